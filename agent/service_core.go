package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/aoi-protocol/aoi/agent/secretary/interrupt"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

var _ Service = (*Core)(nil)

// settingFocus stores the owner's manual focus override ("on"/"off").
const settingFocus = "focus_override"

// TailnetSummarizer is implemented by the tailnet transport: the tailnet's
// name, this node's name and addresses, and the backend state (Running, …).
type TailnetSummarizer interface {
	TailnetSummary(ctx context.Context) (tailnet, node string, addrs []string, state string, err error)
}

// Status describes this agent for the status bar and `aoi status`.
func (c *Core) Status(ctx context.Context) (Status, error) {
	cfg := c.config()
	st := Status{AgentID: cfg.Agent.ID, Role: cfg.Agent.Role, Owner: cfg.Agent.Owner, Version: wire.ProtocolVersion,
		Transport: "direct", ListenAddr: c.Addr(), Fingerprint: c.Fingerprint(), Focus: c.focusActive(),
		StartedAt: c.startedAt, DataDir: c.dataDir}
	if tn, ok := c.transport.(TailnetSummarizer); ok {
		st.Transport = "tailnet"
		if name, node, addrs, state, err := tn.TailnetSummary(ctx); err == nil {
			st.Tailnet = &Tailnet{Name: name, NodeName: node, Addresses: addrs, State: state}
		}
	}
	peers, err := c.Peers(ctx)
	if err != nil {
		return st, err
	}
	for _, p := range peers {
		if p.Trust == TrustPinned && p.Status != PeerOffline {
			st.PeersOnline++
		}
	}
	counts := []struct {
		state string
		dst   *int
	}{{QueryEscalated, &st.PendingQuery}, {QueryBuffered, &st.Buffered}}
	for _, k := range counts {
		if *k.dst, err = c.db.CountQueries(ctx, k.state); err != nil {
			return st, err
		}
	}
	if st.UnreadMsgs, err = c.db.UnreadMessages(ctx); err != nil {
		return st, err
	}
	st.PendingApprov = c.pendingApprovals(ctx)
	st.History = c.indexProgress(ctx)
	return st, nil
}

// indexProgress is the secretary's history indexing per repository; a
// failure to read it leaves it out of the status rather than failing it.
func (c *Core) indexProgress(ctx context.Context) []IndexProgress {
	if c.sec == nil {
		return nil
	}
	hist, err := c.sec.History(ctx)
	if err != nil {
		c.log.Warn("reading the history indexing progress", "err", err)
		return nil
	}
	out := make([]IndexProgress, 0, len(hist))
	for _, h := range hist {
		out = append(out, IndexProgress{Context: h.Context, Indexed: h.Indexed, Total: h.Total, Done: h.Done, Error: h.Error})
	}
	return out
}

// focusActive reports whether the owner is in focus time: the manual
// override when set, else the configured focus hours.
func (c *Core) focusActive() bool {
	ic := c.config().Secretary.InterruptControl
	if override := c.focusOverride(); override != nil || ic.Enabled {
		return interrupt.InFocus(c.now(), ic.FocusModeHours, override)
	}
	return false
}

// focusOverride returns the manual focus setting, if any.
func (c *Core) focusOverride() *bool {
	v, ok, err := c.db.Setting(context.Background(), settingFocus)
	if err != nil || !ok || v == "" {
		return nil
	}
	on := v == "on"
	return &on
}

// SetFocus turns focus mode on or off by hand. Turning it off releases the
// buffered queries, as focus time ending would.
func (c *Core) SetFocus(ctx context.Context, req FocusRequest) error {
	on := req.On
	v := map[bool]string{true: "on", false: "off"}[on]
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		if err := tx.SetSetting(settingFocus, v); err != nil {
			return err
		}
		_, err := tx.AppendAudit("owner", "ctl.focus", "ok", map[string]any{"focus": v})
		return err
	})
	if err != nil {
		return err
	}
	c.events.Publish(EventFocusChanged, "", "", "focus "+v)
	if !on {
		return c.Release(ctx, ReleaseRequest{})
	}
	return nil
}

// Messages lists received notifications after a sequence number and marks
// them read.
func (c *Core) Messages(ctx context.Context, req MessagesRequest) ([]Message, error) {
	recs, err := c.db.Messages(ctx, req.AfterSeq, limitOr(req.Limit, 100))
	if err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(recs))
	for _, r := range recs {
		m := messageView(r)
		if r.RelatedID != "" {
			if a, found, err := c.db.Ask(ctx, r.RelatedID); err == nil && found {
				m.Question = a.Text
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// MarkMessagesRead marks the owner's messages read up to uptoSeq.
func (c *Core) MarkMessagesRead(ctx context.Context, req MarkReadRequest) error {
	uptoSeq := req.UptoSeq
	if uptoSeq <= 0 {
		return nil
	}
	err := c.db.Write(ctx, func(tx *store.Tx) error { return tx.MarkMessagesRead(uptoSeq) })
	if err == nil {
		c.events.Publish(EventMessagesRead, strconv.FormatInt(uptoSeq, 10), "", "")
	}
	return err
}

// Audit lists audit rows newest first.
func (c *Core) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	recs, err := c.db.AuditList(ctx, store.AuditQuery{Agent: f.Agent, Method: f.Method, Result: f.Result,
		Text: f.Text, BeforeSeq: f.BeforeSeq, Limit: limitOr(f.Limit, 100)})
	if err != nil {
		return nil, err
	}
	out := make([]AuditEntry, 0, len(recs))
	for _, r := range recs {
		out = append(out, AuditEntry{Seq: r.Seq, Time: r.Time, Agent: r.Agent, Method: r.Method, Result: r.Result,
			Detail: r.Detail, PrevHash: r.PrevHash, Hash: r.Hash})
	}
	return out, nil
}

// VerifyAudit walks the hash chain.
func (c *Core) VerifyAudit(ctx context.Context) (AuditVerification, error) {
	v, err := c.db.VerifyAudit(ctx)
	return AuditVerification{OK: v.OK, Entries: v.Entries, FirstBad: v.FirstBad, Problem: v.Problem}, err
}

// Events streams core events after afterSeq.
func (c *Core) Events(ctx context.Context, req EventsRequest) (<-chan Event, error) {
	return c.events.Subscribe(ctx, req.AfterSeq), nil
}

// auditCall is the peer server's generic audit hook for calls whose handler
// did not write its own row (refusals before dispatch, discover, ping …).
func (c *Core) auditCall(ctx context.Context, rec rpc.CallRecord) error {
	result, detail := "ok", map[string]any{"id": idString(rec.ID), "latency_ms": rec.Duration.Milliseconds()}
	if rec.Err != nil {
		result = codeName(rec.Err.Code)
		detail["error"] = rec.Err.Message
	}
	if rec.Suppressed > 0 {
		detail["refusals_since_last_row"] = rec.Suppressed
	}
	return c.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit(callerName(rec.Caller), rec.Method, result, detail)
		return err
	})
}

// newID returns a prefixed random id, e.g. q-3f9a1c….
func newID(prefix string) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return prefix + "-" + hex.EncodeToString(b[:])
}

// idString renders a JSON-RPC id as text: strings unquoted, numbers as is.
func idString(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// codeName is the audit log's word for an error code.
func codeName(code int) string {
	switch code {
	case rpc.CodePermissionDenied:
		return "PERMISSION_DENIED"
	case rpc.CodeContextNotFound:
		return "CONTEXT_NOT_FOUND"
	case rpc.CodeAgentNotFound:
		return "AGENT_NOT_FOUND"
	case rpc.CodeAgentBusy:
		return "AGENT_BUSY"
	case rpc.CodeTimeout:
		return "TIMEOUT"
	case rpc.CodeRateLimit:
		return "RATE_LIMIT"
	case rpc.CodeApprovalDenied:
		return "APPROVAL_DENIED"
	case rpc.CodeInvalidParams:
		return "INVALID_PARAMS"
	case rpc.CodeMethodNotFound:
		return "METHOD_NOT_FOUND"
	case rpc.CodeInvalidRequest:
		return "INVALID_REQUEST"
	case rpc.CodeParseError:
		return "PARSE_ERROR"
	}
	return "INTERNAL_ERROR"
}

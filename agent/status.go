package agent

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

var _ Service = (*Core)(nil)

// TailnetSummarizer is implemented by the tailnet transport: the tailnet's
// name, this node's name and addresses, and the backend state (Running, …).
type TailnetSummarizer interface {
	TailnetSummary(ctx context.Context) (tailnet, node string, addrs []string, state string, err error)
}

// Status describes this agent for the status bar and `aoi status`.
func (c *Core) Status(ctx context.Context) (Status, error) {
	cfg := c.config()
	st := Status{AgentID: cfg.Agent.ID, Role: cfg.Agent.Role, Owner: cfg.Agent.Owner, Version: wire.ProtocolVersion,
		Transport: "direct", ListenAddr: c.Addr(), Fingerprint: c.Fingerprint(), Focus: c.inbox.FocusActive(),
		StartedAt: c.startedAt, DataDir: c.dataDir, Contexts: len(cfg.Contexts)}
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
		if p.Trust == TrustPinned && p.Status != PeerOffline && !p.RefusesUs { // one that refuses us cannot be asked
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
	if st.OutboxRefused, err = c.db.RefusedOutbox(ctx); err != nil {
		return st, err
	}
	if st.OutboxQueued, _, err = c.db.OutboxStats(ctx); err != nil {
		return st, err
	}
	if st.RefusingMessagesFrom, err = c.refusingMessagesFrom(ctx); err != nil {
		return st, err
	}
	st.PendingApprov = c.pendingApprovals(ctx)
	st.History = c.indexProgress(ctx)
	asks, err := c.db.WaitingAsks(ctx, maxWaitingShown)
	if err != nil {
		return st, err
	}
	if st.WaitingTotal, err = c.db.CountWaitingAsks(ctx); err != nil {
		return st, err
	}
	for _, a := range asks {
		st.Waiting = append(st.Waiting, WaitingAsk{RequestID: a.RequestID, To: a.To, Text: a.Text, TaskID: a.TaskID, SentAt: a.SentAt})
	}
	return st, nil
}

// refusedMessagesWithin is how long a peer whose message the ACL refused
// is named in the status; its outbox retries every ten minutes, so a
// sender still trying shows again.
const refusedMessagesWithin = 24 * time.Hour

// refusingMessagesFrom names the peers whose latest aoi.message this
// agent's ACL refused within refusedMessagesWithin: the owner heard of it
// only in the interface (the walk's CLI user saw "no messages" while a
// colleague's task_assign waited). A peer whose newer message got in,
// once a rule was added, is not named.
func (c *Core) refusingMessagesFrom(ctx context.Context) ([]string, error) {
	rows, err := c.db.AuditList(ctx, store.AuditQuery{Method: wire.MethodMessage, Limit: 200})
	if err != nil {
		return nil, err
	}
	since := c.now().Add(-refusedMessagesWithin)
	decided := map[string]bool{}
	var out []string
	for _, r := range rows { // newest first: a sender's first row is its latest
		if decided[r.Agent] || r.Time.Before(since) {
			continue
		}
		decided[r.Agent] = true
		var d struct {
			Refused string `json:"refused"`
			Scope   string `json:"scope"`
		}
		if json.Unmarshal(r.Detail, &d) == nil && d.Refused == "acl" && d.Scope == "messages" {
			out = append(out, r.Agent)
		}
	}
	slices.Sort(out)
	return out, nil
}

// maxWaitingShown bounds the asks the status lists as waiting.
const maxWaitingShown = 20

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

// Events streams core events after afterSeq.
func (c *Core) Events(ctx context.Context, req EventsRequest) (<-chan Event, error) {
	if req.Exact {
		return c.events.SubscribeAfter(ctx, max(req.AfterSeq, 0)), nil
	}
	return c.events.Subscribe(ctx, req.AfterSeq), nil
}

func limitOr(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

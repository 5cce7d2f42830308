package agent

import (
	"context"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/peerapi"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// Audit lists audit rows newest first.
func (c *Core) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	recs, err := c.db.AuditList(ctx, store.AuditQuery{Agent: f.Agent, Method: f.Method, Result: AuditResultCode(f.Result),
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
	return AuditVerification{OK: v.OK, Entries: v.Entries, FirstBad: v.FirstBad, Problem: v.Problem, SealedThrough: v.SealedThrough,
		Unsealed: v.Unsealed, Warning: v.Warning}, err
}

// refusedUnreadMethod names, in the audit log, a request refused before
// its method was read: a caller that is not pinned (refused on its
// certificate alone), a body too large, or one that is not JSON-RPC.
const refusedUnreadMethod = "request.refused"

// auditCall is the peer server's generic audit hook for calls whose handler
// did not write its own row (refusals before dispatch, discover, ping …).
func (c *Core) auditCall(ctx context.Context, rec rpc.CallRecord) error {
	result, detail := "ok", map[string]any{"id": peerapi.IDString(rec.ID), "latency_ms": rec.Duration.Milliseconds()}
	if rec.Err != nil {
		result = codeName(rec.Err.Code)
		detail["error"] = rec.Err.Message
		if reason := rec.Err.Reason(); reason != "" {
			// What the caller was told, so the owner reading the log
			// sees the same ("task_type \"deploy\" is not configured").
			detail["reason"] = clipReason(reason)
		}
	}
	if rec.Suppressed > 0 {
		detail["refusals_since_last_row"] = rec.Suppressed
	}
	method := rec.Method
	if method == "" {
		method = refusedUnreadMethod
	}
	canonical, err := store.NewAuditDetail(detail) // outside the single writer
	if err != nil {
		return err
	}
	return c.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit(peerapi.CallerName(rec.Caller), method, result, canonical)
		return err
	})
}

// seedDailyCalls gives the peer server each peer's calls of today (UTC),
// counted from the audit log: limits.daily_calls_per_peer is kept in
// memory, and a restart renewed every peer's budget. A row of a call the
// budget did not count (refused for the rate limit or the spent budget,
// is left out; one refused before its method was read (not JSON, a GET)
// is a call as the budget counts it. One read at start, none per request.
func (c *Core) seedDailyCalls(ctx context.Context) {
	now := time.Now() // the peer server's clock for the budget's day
	counts, err := c.db.AuditCallsOn(ctx, now, func(_, result string) bool {
		return result != "RATE_LIMIT"
	})
	if err != nil {
		c.log.Warn("daily call budgets start empty: cannot count today's calls", "component", "core", "err", err)
		return
	}
	// A caller the budget counts has an agent id, or is a tailnet node
	// bound to none ("node:…"); rows of other callers known only by a key
	// ("fp:…", "tcp:…": strangers) would take room in the budget's bounded
	// table that peers need.
	for name := range counts {
		if strings.Contains(name, ":") && !strings.HasPrefix(name, "node:") { // a tailnet node bound to no id is counted
			delete(counts, name)
		}
	}
	c.peerSrv.SeedDailyCalls(counts, now)
}

// maxReasonRunes bounds the reason an audit row keeps: it may quote what
// the caller sent.
const maxReasonRunes = 300

func clipReason(s string) string {
	if r := []rune(s); len(r) > maxReasonRunes {
		return string(r[:maxReasonRunes-1]) + "…"
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

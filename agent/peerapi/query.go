package peerapi

import (
	"context"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/termtext"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// maxQueryText bounds a query's text in characters (runes, as the MCP
// schema counts them); the body limit bounds the rest.
const maxQueryText = 8 << 10

// maxAuditQuestion bounds, in characters, the question an audit row
// quotes (a question itself may be maxQueryText long).
const maxAuditQuestion = 120

// maxScopeEntries bounds context_scope: every entry is resolved and checked
// against the ACL, and the scope goes into the query's audit row.
const maxScopeEntries = 64

// maxScopeEntryBytes bounds one context_scope entry: a repository path is
// far shorter, and an entry goes whole into the audit row and the stored
// question or task (a pinned peer's 60 KiB entries were stored, one row a
// call).
const maxScopeEntryBytes = 1024

// Interrupt decisions (seed 002 §2.3.3).
const (
	DecisionAutoRespond = "AUTO_RESPOND"
	DecisionBuffer      = "BUFFER"
	DecisionEscalate    = "ESCALATE"
)

// Handling is what the secretary decided for a received query.
type Handling struct {
	Decision   string
	Confidence float64
	Draft      *wire.QueryResult // the answer (AUTO_RESPOND) or a draft for the owner
	// Sources are the ACL resources the draft was drawn from
	// (secretary.Answer.Sources), kept with a draft that waits: its
	// release checks them again (SourceUnreadable).
	Sources []string
}

// handleQuery is aoi.query: ACL on every scope entry, then the secretary
// decides to answer now, buffer or escalate; the query is stored and audited
// in the same transaction before the response goes out.
func (a *API) handleQuery(ctx context.Context, call *rpc.Call) (any, error) {
	// Without an id (a JSON-RPC notification) a question has nothing an
	// answer could name, and its repetition cannot be told from it:
	// refused (audited) before it reaches the owner.
	if call.Notification {
		return nil, errs.Invalid("%s needs an id: send it as a request, not a notification", wire.MethodQuery)
	}
	p, err := a.bindQuery(ctx, call)
	if err != nil {
		return nil, err
	}
	if _, err := a.checkScope(ctx, call, acl.Read, p.ContextScope); err != nil {
		return nil, err
	}
	if res, ok, err := a.repeatedQuery(ctx, call, p); ok || err != nil {
		return res, err
	}
	h, err := a.decideQuery(ctx, call.Caller, p)
	if err != nil {
		return nil, err
	}
	if err := a.openRoom(ctx, call, p.From, h.Decision); err != nil {
		return nil, err
	}
	answerNow := h.Decision == DecisionAutoRespond && !p.Async
	q := a.queryRecord(call, p, h, answerNow)
	// Encoded here, not in the write function: the writer runs one
	// function at a time while every other caller waits.
	detail, err := queryAuditDetail(p, q, h)
	if err != nil {
		return nil, err
	}
	if err := a.storeQuery(ctx, call, p, q, h, detail); err != nil {
		return nil, err
	}
	if answerNow {
		res := *h.Draft
		res.Completed = true
		res.Metadata = inbox.WithMeta(res.Metadata, "query_id", q.ID)
		return res, nil
	}
	return wire.QueryResult{Summary: pendingSummary(q.State), Completed: false,
		Metadata: map[string]any{"query_id": q.ID, "state": q.State}}, nil
}

// queryRecord is the row a received question is stored as, answered
// already when the secretary answers it now.
func (a *API) queryRecord(call *rpc.Call, p wire.QueryParams, h Handling, answerNow bool) store.QueryRecord {
	q := store.QueryRecord{
		ID: wire.NewID("q"), RequestID: IDString(call.ID), From: p.From, Text: p.Query, ContextScope: p.ContextScope,
		Priority: p.Priority, State: stateFor(h.Decision), Decision: h.Decision, Confidence: h.Confidence,
		ReceivedAt: a.Now(),
	}
	if h.Draft != nil {
		q.Draft = wire.MustJSON(h.Draft)
	}
	if !answerNow {
		// A draft that waits is released later, and an answer queued
		// for an asynchronous asker is checked again when it goes
		// (agent.withholdAnswer): both against its sources. An answer
		// sent now keeps the row (and the hot path's write) short.
		q.DraftSources = h.Sources
	}
	if answerNow {
		at := a.Now()
		q.Answer, q.AnsweredAt = q.Draft, &at
	}
	return q
}

// queryAuditDetail is what the question's audit row records.
func queryAuditDetail(p wire.QueryParams, q store.QueryRecord, h Handling) (store.AuditDetail, error) {
	var f store.AuditFields
	f.String("query_id", q.ID)
	f.Strings("scope", p.ContextScope)
	f.String("priority", p.Priority)
	f.String("decision", h.Decision)
	f.Number("confidence", h.Confidence)
	if h.Decision != DecisionAutoRespond {
		// A question that waits for the owner: its row says what was
		// asked (the Audit pane showed only its id), short. The body
		// was redacted as it arrived (rpc.Options.SanitizeBody), as the
		// text the queries table keeps: no second pass here.
		f.String("question", termtext.Quote(p.Query, maxAuditQuestion, nil))
	}
	return f.Detail()
}

// storeQuery stores the question, queues an answer the secretary gave to
// an asynchronous question, and audits the call, in one transaction; then
// it tells the interface and wakes the sender of a queued answer.
func (a *API) storeQuery(ctx context.Context, call *rpc.Call, p wire.QueryParams, q store.QueryRecord, h Handling, detail store.AuditDetail) error {
	queueAnswer := h.Decision == DecisionAutoRespond && p.Async
	err := a.DB.Write(ctx, func(tx *store.Tx) error {
		if err := tx.InsertQuery(q); err != nil {
			return err
		}
		if queueAnswer {
			if err := a.Inbox.QueueAnswer(tx, q, *h.Draft); err != nil {
				return err
			}
		}
		_, err := tx.AppendAudit(p.From, call.Method, "ok", detail)
		return err
	})
	if err != nil {
		return err
	}
	call.MarkAudited()
	a.Inbox.Announce(q)
	if queueAnswer {
		a.Wake() // the answer is queued: send it now, not at the next idle wake-up
	}
	return nil
}

// openRoom refuses, as busy, a question that would wait for the owner
// from a peer that already has network.max_open_questions_per_peer
// waiting: a peer asking in a loop would otherwise bury the Queries pane
// and ring the owner at every one (the attack run's 60 from one peer).
// Questions the secretary answers at once take no room.
func (a *API) openRoom(ctx context.Context, call *rpc.Call, from, decision string) error {
	limit := a.Config().Network.OpenQuestionsLimit()
	if limit == 0 || decision == DecisionAutoRespond {
		return nil
	}
	n, err := a.DB.OpenQueriesFrom(ctx, from)
	if err != nil || n < limit {
		return err
	}
	a.auditRefused(ctx, call, "AGENT_BUSY", "open_questions", map[string]any{"open": n, "limit": limit})
	return rpc.AgentBusy(fmt.Sprintf("%d of your questions already wait for %s's owner; wait for their answers before asking more", n, a.Config().Agent.ID), 0)
}

// bindQuery decodes and validates aoi.query's params.
func (a *API) bindQuery(ctx context.Context, call *rpc.Call) (wire.QueryParams, error) {
	p, ok := wire.DecodeQueryParams(call.Params) // rpc validated the body
	if !ok {
		p = wire.QueryParams{}
		if err := call.Bind(&p); err != nil {
			return p, err
		}
	}
	if err := a.CheckFrom(ctx, call, p.From, p.To); err != nil {
		return p, err
	}
	p.Query = strings.TrimSpace(p.Query)
	switch {
	case p.Query == "":
		return p, errs.Invalid("params.query is empty; ask a question in words")
	case utf8.RuneCountInString(p.Query) > maxQueryText:
		return p, errs.Invalid("params.query is %d characters; the limit is %d", utf8.RuneCountInString(p.Query), maxQueryText)
	}
	if err := refuseUncleanScope(p.ContextScope); err != nil {
		return p, err
	}
	if p.Priority == "" {
		p.Priority = wire.PriorityNormal
	}
	switch p.Priority {
	case wire.PriorityLow, wire.PriorityNormal, wire.PriorityHigh, wire.PriorityCritical:
	default:
		return p, errs.Invalid("params.priority %q is not one of low, normal, high, critical", p.Priority)
	}
	return p, nil
}

// checkScope checks every context_scope entry against the ACL (the seed
// checked only the first). An empty scope means every context we hold.
func (a *API) checkScope(ctx context.Context, call *rpc.Call, action acl.Action, scope []string) (acl.Decision, error) {
	pol := a.Policy()
	scope = cleanScope(scope)
	v := a.judgeScope(pol, a.Subject(call.Caller), action, scope)
	if v.unknown != "" {
		return acl.Decision{}, a.refuseUnknownContext(ctx, call, action, v.unknown)
	}
	if v.escaped != "" {
		reason := "a context_scope entry leads outside its repository (symlinks resolved); ask for a path inside it"
		a.AuditRefusal(ctx, call, "acl", map[string]any{"scope": v.escaped, "reason": reason})
		call.RecordACL(false)
		return acl.Decision{Reason: reason}, errs.Denied(reason, map[string]any{
			"required_permission": "context." + string(action), "requested_scope": v.escaped})
	}
	d, denied := v.decision, v.denied
	if d.AuditOnly { // audit_mode: the denial is recorded but the call goes on
		a.AuditACLOnly(ctx, call, denied, d)
	}
	call.RecordACL(d.Allowed)
	if d.Allowed {
		return d, nil
	}
	subject := a.Subject(call.Caller)
	detail := map[string]any{"scope": denied, "rule": d.RuleID, "reason": d.Reason}
	granted := pol.GrantedBeneath(subject, action)
	if len(granted) > 0 {
		detail["granted_beneath"] = granted // what the owner's folder rules do let it use
	}
	a.AuditRefusal(ctx, call, "acl", detail)
	if !named(scope, denied) {
		// The caller did not name it (an empty scope covers every
		// context, "acme" every acme/…): the refusal must not tell it the
		// name of a context it is kept from. The audit row has it.
		reason := "no " + string(action) + " access to every context that scope covers; name the contexts you may use in context_scope"
		switch {
		case pol.AllowsAny(subject, action):
		case len(granted) > 0:
			// A folder rule lets it use part of a context: naming that
			// part is what works (the walk's QA was told to ask the
			// owner for a rule it had).
			reason = "you may " + string(action) + " only " + strings.Join(granted, ", ") + " here; name it in context_scope (aoi query --scope " + granted[0] + ")"
		case subject.Role == "" && pol.HasRoleRules():
			// The owner's rules are by role and it gave this peer none
			// (the second walk's trust left the optional role empty).
			reason = a.Config().Agent.ID + "'s owner trusted you without a role, and its ACL rules are by role; ask them to give you one (aoi peers trust " +
				CallerName(call.Caller) + " … --role ROLE, or the role field when trusting)"
		default:
			// Naming contexts cannot help a caller no rule lets in
			// anywhere: only the owner can.
			reason = a.Config().Agent.ID + " gives you no " + string(action) + " access to any of its contexts; ask its owner to add an ACL rule for " + CallerName(call.Caller)
		}
		return d, errs.Denied(reason, map[string]any{"required_permission": "context." + string(action)})
	}
	// The rule's id (deny-qa-layoffs-…) and what it grants stay in the
	// audit row: an id can say more than the owner means to tell.
	return d, a.namedDenial(action, denied)
}

// ScopeUnreadable returns the first entry of a question's context_scope
// that s may not read under the ACL in force now, as the owner wrote it
// in their rules ("" and true when s may read them all). An empty scope
// is every context, as when the question arrived. The owner's release of
// a draft re-checks with it: the secretary drafted under the rules of the
// question's arrival, which a reload may since have narrowed.
func (a *API) ScopeUnreadable(s acl.Subject, scope []string) (string, bool) {
	v := a.judgeScope(a.Policy(), s, acl.Read, cleanScope(scope))
	switch {
	case v.unknown != "":
		return v.unknown, false // the context is gone from the config
	case v.escaped != "":
		return v.escaped, false
	case v.decision.Allowed:
		return "", true
	case v.denied == "":
		return "any context here", false // no contexts configured: the default permission refused
	}
	return v.denied, false
}

// SourceUnreadable returns the first of a draft's sources (the files,
// folders and contexts it was drawn from, secretary.Answer.Sources) that s
// may not read under the ACL in force now, or that lies in no context
// configured now ("" and true when s may read them all). The scope a
// question asked about may still be readable while a folder rule added
// inside it since keeps s from a file the draft quotes: ScopeUnreadable
// alone let that draft go.
func (a *API) SourceUnreadable(s acl.Subject, sources []string) (string, bool) {
	pol := a.Policy()
	allowed := pol.Allowed(s, acl.Read)
	for _, src := range sources {
		if !pol.Known(strings.TrimSuffix(src, "/")) || !allowed(src) {
			return strings.TrimSuffix(src, "/"), false
		}
	}
	return "", true
}

// scopeVerdict is the ACL's answer for a cleaned scope, before anything is
// audited or told: the first entry naming no context, else the first that
// leads outside its repository, else the policy's decision and the entry
// it denied.
type scopeVerdict struct {
	unknown, escaped, denied string
	decision                 acl.Decision
}

// judgeScope decides a scope for s under pol, as a question's arrival
// (checkScope) and the release of its draft (ScopeUnreadable) both ask.
func (a *API) judgeScope(pol *acl.Policy, s acl.Subject, action acl.Action, scope []string) scopeVerdict {
	if entry := unknownContext(pol, scope); entry != "" {
		return scopeVerdict{unknown: entry}
	}
	resolved, escaped := a.ResolveScope(a.Config(), scope)
	if escaped != "" {
		return scopeVerdict{escaped: escaped}
	}
	d, denied := pol.CheckScope(s, action, resolved)
	return scopeVerdict{denied: denied, decision: d}
}

// namedDenial is the refusal of a scope entry the caller named itself. A
// context that does not exist is refused in the very same words when the
// caller is kept from some context (refuseUnknownContext).
func (a *API) namedDenial(action acl.Action, entry string) error {
	reason := "no " + string(action) + " access to " + entry + "; ask " + a.Config().Agent.ID + "'s owner if you need it"
	return errs.Denied(reason, map[string]any{
		"required_permission": "context." + string(action), "requested_scope": entry})
}

// unknownContext returns the first scope entry that names no configured
// context and lies under none, as the caller wrote it ("" if every entry
// is known). With no contexts configured there is nothing to tell apart.
func unknownContext(pol *acl.Policy, scope []string) string {
	if len(pol.ContextIDs()) == 0 {
		return ""
	}
	for _, entry := range scope {
		if e := strings.Trim(entry, "/"); e != "" && e != "*" && !pol.Known(e) {
			return entry
		}
	}
	return ""
}

// refuseUnknownContext answers a scope entry that names no context. A
// caller that may use every context is told CONTEXT_NOT_FOUND: nothing is
// hidden from it. Any other caller gets the refusal a denied context it
// named would get, word for word; otherwise "not found" for a made-up name
// and "denied" for a real one would tell it which hidden contexts exist.
// The audit row says what really happened.
func (a *API) refuseUnknownContext(ctx context.Context, call *rpc.Call, action acl.Action, entry string) error {
	if d, _ := a.Policy().CheckScope(a.Subject(call.Caller), action, nil); d.Allowed {
		a.auditRefused(ctx, call, "CONTEXT_NOT_FOUND", "scope", map[string]any{"scope": entry, "reason": "no such context"})
		return rpc.ContextNotFound(a.Config().Agent.ID, entry)
	}
	a.AuditRefusal(ctx, call, "scope", map[string]any{"scope": entry, "reason": "no such context; refused as a denial, since the caller is kept from some context"})
	call.RecordACL(false)
	return a.namedDenial(action, entry)
}

// refuseUncleanScope refuses a context_scope (a question's or a task
// request's) of more than maxScopeEntries entries, one with an entry
// longer than maxScopeEntryBytes (without echoing it), or one with an
// entry the caller did not write in its clean form, naming that form
// (wire.UncleanScope says why refused and not cleaned). It looks at the
// text alone, so it is the same for a hidden context and a made-up one.
func refuseUncleanScope(scope []string) error {
	if len(scope) > maxScopeEntries {
		return errs.Invalid("params.context_scope has %d entries; the limit is %d: name the repositories or folders, not every file", len(scope), maxScopeEntries)
	}
	for i, e := range scope {
		if len(e) > maxScopeEntryBytes {
			return errs.Invalid("params.context_scope[%d] is %d bytes; the limit is %d: name a repository, folder or file", i, len(e), maxScopeEntryBytes)
		}
	}
	if entry, clean := wire.UncleanScope(scope); entry != "" {
		return errs.Invalid("params.context_scope entry %q is not written in its clean form; send %q", entry, clean)
	}
	return nil
}

// cleanScope writes each context_scope entry in one form (path.Clean, no
// slash at either end) before anything is judged or echoed: the re-check
// told a hidden context from a made-up one by how "hr/payroll/./" and
// "hr/nosuch/./" were answered. An entry with a NUL or a backslash stays
// as sent, for the ACL to refuse as it is.
func cleanScope(scope []string) []string {
	out := make([]string, len(scope))
	for i, s := range scope {
		out[i] = s
		if t := strings.Trim(s, "/"); t != "" && t != "*" && !strings.ContainsAny(t, "\x00\\") {
			out[i] = strings.Trim(path.Clean(t), "/")
		}
	}
	return out
}

// named reports whether the caller's scope names denied itself, or a place
// inside it, as written: then the refusal may say it. A scope entry above
// it ("acme" for acme/payroll) or none at all does not.
func named(scope []string, denied string) bool {
	for _, s := range scope {
		s = strings.Trim(s, "/")
		if s == denied || strings.HasPrefix(s, denied+"/") {
			return true
		}
	}
	return false
}

// AuditACLOnly records a denial that audit_mode let through.
func (a *API) AuditACLOnly(ctx context.Context, call *rpc.Call, denied string, d acl.Decision) {
	err := a.DB.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit(CallerName(call.Caller), "acl.audit_only", "PERMISSION_DENIED",
			map[string]any{"method": call.Method, "scope": denied, "rule": d.RuleID, "reason": d.Reason})
		return err
	})
	if err != nil {
		a.Log.Error("audit acl decision", "component", "acl", "err", err)
	}
}

// Subject is the ACL's view of a caller.
func (a *API) Subject(caller rpc.Caller) acl.Subject {
	s := acl.Subject{AgentID: caller.AgentID, TailnetUser: caller.UserLogin, TailnetTags: caller.Tags}
	if agentID, role, ok := a.Peers.CachedCaller(caller.Key()); ok && agentID == caller.AgentID {
		s.Role = role
	} else if rec, found, err := a.DB.Peer(context.Background(), caller.AgentID); err == nil && found {
		s.Role = rec.Role
	}
	return s
}

// decideQuery asks the secretary; without one, every query waits for the owner.
func (a *API) decideQuery(ctx context.Context, caller rpc.Caller, p wire.QueryParams) (Handling, error) {
	if h, ok, err := a.Decide(ctx, caller, p); ok || err != nil {
		return h, err
	}
	return Handling{Decision: DecisionEscalate}, nil
}

func stateFor(decision string) string {
	switch decision {
	case DecisionAutoRespond:
		return inbox.Answered
	case DecisionBuffer:
		return inbox.Buffered
	default:
		return inbox.Escalated
	}
}

func pendingSummary(state string) string {
	switch state {
	case inbox.Buffered:
		return "Your question is queued; the owner is in focus time and the answer will reach your agent later."
	case inbox.Answered: // asked async and answered by the secretary
		return "Your question was answered from recorded work; the answer reaches your agent in a moment."
	}
	return "Your question was passed to the owner; the answer will reach your agent when they reply."
}

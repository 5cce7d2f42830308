// Package inbox is the owner's side of received queries: the owner answers,
// declines or releases them (the secretary's draft), and each outcome is
// stored, queued for the asker in the outbox and audited in one
// transaction; and focus mode, which buffers them (focus.go). Like agent/task's Engine it takes its dependencies as fields
// and holds no pointer back to the core.
package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/kana"
	"github.com/aoi-protocol/aoi/internal/termtext"
	"github.com/aoi-protocol/aoi/store"
)

// Query states (agent re-exports them as Query<State>).
const (
	Answered  = "answered"  // auto-responded or answered by the owner
	Buffered  = "buffered"  // waiting for focus time to end
	Escalated = "escalated" // rang the owner, waiting in the queries pane
	Awaiting  = "awaiting"  // stored, waiting for the owner (no secretary decision)
	Declined  = "declined"
)

// Inbox answers received queries.
type Inbox struct {
	DB  *store.DB
	Now func() time.Time
	// Notify queues an aoi.notify for a peer inside tx (the outbox).
	Notify func(tx *store.Tx, to, event, relatedID string, data any) error
	// Wake tells the outbox a new entry is due.
	Wake func()
	// Redact scrubs the owner's text before it leaves the machine.
	Redact func(string) string
	// Publish emits a front-end event (agent/events kinds).
	Publish func(kind, id, agent, summary string)
	// Interrupt is the current interrupt control config (focus hours).
	Interrupt func() config.InterruptControl
	// Log reports the focus watch's failures (nil: not reported).
	Log *slog.Logger
	// Unsendable says why a draft may not go to q's asker now ("" when it
	// may; nil: never refused) and what would let it: the secretary
	// drafted it under the trust and ACL of the question's arrival, which
	// the owner may since have narrowed. Release checks it; an answer the
	// owner writes is theirs.
	Unsendable func(q store.QueryRecord) (why, fix string)
}

// Answer sends the owner's answer to a received query through the outbox.
// Errors: errs.ErrInvalid (empty text), errs.ErrNotFound (no such query),
// errs.ErrConflict (already answered or declined).
func (in *Inbox) Answer(ctx context.Context, queryID, text string) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return errs.Invalid("answer: the text is empty; write the answer to send")
	}
	q, err := in.open(ctx, queryID)
	if err != nil {
		return err
	}
	res := wire.QueryResult{Summary: in.Redact(text), Completed: true}
	res.ContextRefs = keptRefs(q.Draft, text)
	if len(res.ContextRefs) > 0 && in.Unsendable != nil {
		// The references are the draft's, drawn under the ACL of the
		// question's arrival, and the text does not show them: they go
		// only as a release of the draft would (checkSendable). The
		// owner's words go in any case.
		if why, _ := in.Unsendable(q); why != "" {
			res.ContextRefs = nil
		}
	}
	return in.finish(ctx, q, Answered, wire.EventQueryCompleted, res, "ctl.answer")
}

// keptRefs is the draft's references when the owner's answer keeps the
// draft's words, and nothing when the owner wrote their own: the answer
// then says only what they chose to say. The draft's progress and
// blockers never ride along apart: the answer dialog writes them into the
// text it offers, where the owner can keep or delete them.
func keptRefs(rawDraft json.RawMessage, text string) []wire.ContextRef {
	var draft wire.QueryResult
	if len(rawDraft) == 0 || json.Unmarshal(rawDraft, &draft) != nil {
		return nil
	}
	if summary := strings.TrimSpace(draft.Summary); summary == "" || !strings.Contains(text, summary) {
		return nil
	}
	return draft.ContextRefs
}

// Decline refuses a received query; the asker is told why. Errors:
// errs.ErrNotFound, errs.ErrConflict.
func (in *Inbox) Decline(ctx context.Context, queryID, reason string) error {
	q, err := in.open(ctx, queryID)
	if err != nil {
		return err
	}
	if reason == "" {
		reason = "the owner declined to answer"
	}
	res := wire.QueryResult{Summary: in.Redact(reason), Completed: true, Metadata: map[string]any{"declined": true}}
	return in.finish(ctx, q, Declined, wire.EventQueryDeclined, res, "ctl.decline")
}

// Release answers buffered queries now with the secretary's draft; an empty
// id releases all of them whose draft is Releasable. Errors: errs.ErrNotFound, errs.ErrConflict
// (already finished, no draft to release, or a draft the asker may no
// longer receive: see Unsendable).
func (in *Inbox) Release(ctx context.Context, queryID string) error {
	if queryID != "" {
		q, err := in.open(ctx, queryID)
		if err != nil {
			return err
		}
		return in.releaseOne(ctx, q)
	}
	qs, err := in.DB.Queries(ctx, Buffered, 1000)
	if err != nil {
		return err
	}
	var kept []string
	for _, q := range qs {
		if !Releasable(q.Draft, q.Confidence) {
			continue // releasing them all: it stays for the owner to answer
		}
		err := in.releaseOne(ctx, q)
		var stale *staleDraftError
		if errors.As(err, &stale) {
			// One the asker may no longer read stays for the owner; the
			// others still go.
			kept = append(kept, stale.id+": "+stale.why)
			continue
		}
		if err != nil {
			return err
		}
	}
	if len(kept) > 0 {
		return errs.Conflict("the other drafts were sent, not these (drafted under the trust and ACL of their question's arrival): %s; "+
			"answer or decline each yourself (`aoi answer ID TEXT`), or change the ACL or trust and release them again", strings.Join(kept, "; "))
	}
	return nil
}

func (in *Inbox) releaseOne(ctx context.Context, q store.QueryRecord) error {
	var res wire.QueryResult
	if len(q.Draft) == 0 || json.Unmarshal(q.Draft, &res) != nil {
		return errs.Conflict("query %s has no draft answer to release; answer it with `aoi answer %s TEXT`", q.ID, q.ID)
	}
	if !DraftFoundWork(q.Draft) {
		// "No recorded work matches …" sent as the owner's reply reads
		// as theirs (the walk's asker got exactly that).
		return errs.Conflict("the secretary found no work matching query %s, so its draft says only that; "+
			"answer it with `aoi answer %s TEXT` or decline it", q.ID, q.ID)
	}
	if err := in.checkSendable(ctx, q); err != nil {
		return err
	}
	res.Completed = true
	res.Summary = datedSummary(res, in.Now())
	return in.finish(ctx, q, Answered, wire.EventQueryCompleted, res, "ctl.release")
}

// staleAfter is how old a draft may be before its release says when it
// was written.
const staleAfter = 10 * time.Minute

// datedSummary is a released draft's summary, with the time it was written
// added when that is over staleAfter ago: its "latest 2 min ago" counted
// from then, and the asker reads it now.
func datedSummary(res wire.QueryResult, now time.Time) string {
	raw, _ := res.Metadata[wire.MetaAsOf].(string)
	asOf, err := time.Parse(time.RFC3339, raw)
	if err != nil || now.Sub(asOf) < staleAfter {
		return res.Summary
	}
	when := asOf.In(time.Local)
	if kana.HasJapanese(res.Summary) {
		return res.Summary + "（" + when.Format("1/2 15:04") + " 時点）"
	}
	return res.Summary + " (as of " + when.Format("Jan 2 15:04 MST") + ")"
}

// staleDraftError is a release refused because the asker may no longer
// receive the draft (Unsendable); it is an errs.ErrConflict.
type staleDraftError struct{ id, why, fix string }

func (e *staleDraftError) Error() string {
	return fmt.Sprintf("the draft for query %s was not sent: %s, and the secretary drafted it under the trust and ACL of the question's arrival; "+
		"answer it yourself (`aoi answer %s TEXT`) or decline it; %s", e.id, e.why, e.id, e.fix)
}

func (e *staleDraftError) Is(target error) bool { return target == errs.ErrConflict }

// checkSendable refuses, audited, the release of a draft its asker may no
// longer receive; the question stays waiting for the owner.
func (in *Inbox) checkSendable(ctx context.Context, q store.QueryRecord) error {
	if in.Unsendable == nil {
		return nil
	}
	why, fix := in.Unsendable(q)
	if why == "" {
		return nil
	}
	err := in.DB.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit("owner", "ctl.release", "PERMISSION_DENIED",
			map[string]any{"query_id": q.ID, "to": q.From, "refused": "recheck", "reason": why})
		return err
	})
	if err != nil {
		return err
	}
	return &staleDraftError{id: q.ID, why: why, fix: fix}
}

// DraftFoundWork reports whether a draft (a wire.QueryResult) rests on any
// of the owner's work: a reference, a blocker or a progress figure. One
// that does not says only that nothing matched, which is no answer to send
// in the owner's name.
func DraftFoundWork(raw json.RawMessage) bool {
	var res wire.QueryResult
	return json.Unmarshal(raw, &res) == nil && (len(res.ContextRefs) > 0 || res.Progress != nil || len(res.Blockers) > 0)
}

// WeakDraft is the confidence under which a draft is the secretary's
// guess: not offered as the start of the owner's answer, not sent by
// releasing every buffered question (the walk's draft at 0.25 answered
// another question).
const WeakDraft = 0.5

// Releasable reports whether releasing every buffered question sends this
// draft: it found work and is no guess. One that is not waits for the
// owner, who may still release it alone.
func Releasable(draft json.RawMessage, confidence float64) bool {
	return DraftFoundWork(draft) && confidence >= WeakDraft
}

// open loads a query that still waits for an answer.
func (in *Inbox) open(ctx context.Context, id string) (store.QueryRecord, error) {
	q, found, err := in.DB.Query(ctx, id)
	if err != nil {
		return q, err
	}
	if !found {
		return q, errs.NotFound("no query %q; the Queries pane or `aoi inbox` lists them", id)
	}
	if q.State == Answered || q.State == Declined {
		return q, errs.Conflict("query %s was already %s", id, q.State)
	}
	return q, nil
}

// DropFrom declines, without telling anyone, every question from agentID
// still waiting for an answer: the owner replaced the certificate pinned
// for it, and an answer would go to the new one's holder, who did not ask.
// why is stored as the reason. It returns how many it declined.
func (in *Inbox) DropFrom(ctx context.Context, agentID, why string) (int, error) {
	return in.DropWhere(ctx, func(from string) bool { return from == agentID }, func(string) string { return why })
}

// DropWhere is DropFrom for every asker match accepts, with why(asker) as
// the reason: the owner stopped trusting a peer, whose questions would
// otherwise wait for an answer that goes to whoever is trusted under its
// id next.
func (in *Inbox) DropWhere(ctx context.Context, match func(from string) bool, why func(from string) string) (int, error) {
	var waiting []store.QueryRecord
	for _, state := range []string{Escalated, Awaiting, Buffered} {
		qs, err := in.DB.Queries(ctx, state, 1000)
		if err != nil {
			return 0, err
		}
		waiting = append(waiting, qs...)
	}
	n := 0
	for _, q := range waiting {
		if !match(q.From) {
			continue
		}
		reason := why(q.From)
		body := wire.MustJSON(wire.QueryResult{Summary: reason, Completed: true, Metadata: map[string]any{"declined": true, "query_id": q.ID}})
		at := in.Now()
		err := in.DB.Write(ctx, func(tx *store.Tx) error {
			if err := tx.UpdateQuery(q.ID, Declined, body, &at); err != nil {
				return err
			}
			_, err := tx.AppendAudit("owner", "ctl.decline", "ok", map[string]any{"query_id": q.ID, "to": q.From, "reason": reason, "notified": false})
			return err
		})
		if err != nil {
			return n, err
		}
		in.Publish(events.QueryUpdated, q.ID, q.From, Declined)
		n++
	}
	return n, nil
}

// finish stores the final state and queues the notify in one transaction.
func (in *Inbox) finish(ctx context.Context, q store.QueryRecord, state, event string, res wire.QueryResult, method string) error {
	res.Metadata = WithMeta(res.Metadata, "query_id", q.ID)
	body := wire.MustJSON(res)
	at := in.Now()
	err := in.DB.Write(ctx, func(tx *store.Tx) error {
		if err := tx.UpdateQuery(q.ID, state, body, &at); err != nil {
			return err
		}
		if err := in.Notify(tx, q.From, event, q.RequestID, res); err != nil {
			return err
		}
		_, err := tx.AppendAudit("owner", method, "ok", map[string]any{"query_id": q.ID, "to": q.From})
		return err
	})
	if err != nil {
		return err
	}
	in.Publish(events.QueryUpdated, q.ID, q.From, state)
	in.Wake()
	return nil
}

// QueueAnswer queues an automatic answer for an async query inside tx.
func (in *Inbox) QueueAnswer(tx *store.Tx, q store.QueryRecord, res wire.QueryResult) error {
	res.Completed = true
	res.Metadata = WithMeta(res.Metadata, "query_id", q.ID)
	return in.Notify(tx, q.From, wire.EventQueryCompleted, q.RequestID, res)
}

// Announce tells front ends about a new query; escalations ring.
func (in *Inbox) Announce(q store.QueryRecord) {
	in.Publish(events.QueryReceived, q.ID, q.From, q.Text)
	if q.State == Escalated {
		in.Publish(events.Attention, q.ID, q.From, "question from "+q.From+": “"+beginning(termtext.Visible(q.Text), 48)+"”")
	}
}

// beginning is the start of text, at most n runes on one line, "…" when
// cut: enough to tell one question from another in a notification. Give
// it the text as a reader sees it (termtext.Visible): counted with a
// peer's escape sequences, which the screen drops, a short question was
// cut though it fitted. The cut falls after the last whole word, or in
// Japanese after the last comma or full stop, when that keeps at least
// half (the walk read "…and when do…").
func beginning(text string, n int) string {
	text = oneLine(text)
	if utf8.RuneCountInString(text) <= n {
		return text // the common case, a short question: no copy
	}
	r := []rune(text)
	cut := n - 1
	for i := cut; i > n/2; i-- {
		if r[i] == ' ' || strings.ContainsRune("、。，！？」』）", r[i-1]) {
			cut = i
			break
		}
	}
	return strings.TrimSpace(string(r[:cut])) + "…"
}

// oneLine is strings.Join(strings.Fields(text), " "): text on one line,
// its spaces single. Text already so is returned without a copy.
func oneLine(text string) string {
	afterSpace := true // a leading space goes
	for _, c := range text {
		space := unicode.IsSpace(c)
		if space && (c != ' ' || afterSpace) {
			return strings.Join(strings.Fields(text), " ")
		}
		afterSpace = space
	}
	if afterSpace && text != "" {
		return strings.TrimRight(text, " ") // a trailing space goes
	}
	return text
}

// WithMeta sets m[k] = v, making m when it is nil.
func WithMeta(m map[string]any, k string, v any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m[k] = v
	return m
}

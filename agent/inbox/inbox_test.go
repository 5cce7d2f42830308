package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// The owner answers a query once: the answer is stored, queued for the
// asker with the query id, and announced; a second answer, a missing query
// and an empty text are refused with their kinds.
func TestAnswerOnceThenRefuse(t *testing.T) {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	db := openDB(t, now)
	ctx := context.Background()
	q := store.QueryRecord{ID: "q-1", RequestID: "ask-1", From: "pm", Text: "progress?", Priority: "normal",
		State: Escalated, ReceivedAt: now}
	if err := db.Write(ctx, func(tx *store.Tx) error { return tx.InsertQuery(q) }); err != nil {
		t.Fatal(err)
	}
	var queued []string
	var published []string
	woke := 0
	in := &Inbox{DB: db, Now: func() time.Time { return now },
		Notify: func(tx *store.Tx, to, event, relatedID string, data any) error {
			queued = append(queued, to+" "+event+" "+relatedID)
			return nil
		},
		Wake:    func() { woke++ },
		Redact:  func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") },
		Publish: func(kind, id, agent, summary string) { published = append(published, kind+" "+id+" "+summary) },
	}
	if err := in.Answer(ctx, "q-1", "75% (password hunter2)"); err != nil {
		t.Fatal(err)
	}
	got, _, _ := db.Query(ctx, "q-1")
	if got.State != Answered || !strings.Contains(string(got.Answer), "[REDACTED]") || strings.Contains(string(got.Answer), "hunter2") {
		t.Fatalf("stored %s %s, want answered and redacted", got.State, got.Answer)
	}
	if len(queued) != 1 || queued[0] != "pm query.completed ask-1" || woke != 1 ||
		len(published) != 1 || published[0] != events.QueryUpdated+" q-1 "+Answered {
		t.Fatalf("queued %v, woke %d, published %v", queued, woke, published)
	}
	for _, c := range []struct {
		id, text string
		kind     error
	}{{"q-1", "again", errs.ErrConflict}, {"q-404", "x", errs.ErrNotFound}, {"q-1", "  ", errs.ErrInvalid}} {
		if err := in.Answer(ctx, c.id, c.text); !errors.Is(err, c.kind) {
			t.Errorf("Answer(%s, %q) = %v, want %v", c.id, c.text, err, c.kind)
		}
	}
}

// TestOwnersAnswerCarriesOnlyWhatTheyKept: an answer the owner wrote
// themselves goes without the draft's references and blockers (the walk
// saw "No risk…" sent with a FIXME the owner had deleted); one that keeps
// the draft's words keeps its references; the draft's blockers never ride
// along apart from the text.
func TestOwnersAnswerCarriesOnlyWhatTheyKept(t *testing.T) {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	db := openDB(t, now)
	ctx := context.Background()
	draft := `{"summary":"In progress: token refresh.","blockers":["FIXME(auth/refresh.go:4): blocked on Redis config"],"context_refs":[{"type":"commit","id":"abc123"}]}`
	sent := map[string]wire.QueryResult{}
	in := &Inbox{DB: db, Now: func() time.Time { return now }, Wake: func() {}, Redact: func(s string) string { return s },
		Publish: func(kind, id, agent, summary string) {},
		Notify: func(tx *store.Tx, to, event, relatedID string, data any) error {
			sent[relatedID] = data.(wire.QueryResult)
			return nil
		}}
	for _, id := range []string{"own", "kept"} {
		q := store.QueryRecord{ID: "q-" + id, RequestID: id, From: "pm", Text: "is the demo at risk?", Priority: "normal",
			State: Escalated, ReceivedAt: now, Draft: []byte(draft)}
		if err := db.Write(ctx, func(tx *store.Tx) error { return tx.InsertQuery(q) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Answer(ctx, "q-own", "No risk, I will use an in-memory store for the demo."); err != nil {
		t.Fatal(err)
	}
	if got := sent["own"]; len(got.Blockers) != 0 || len(got.ContextRefs) != 0 {
		t.Errorf("the owner's own words went with the draft's evidence: %+v", got)
	}
	if err := in.Answer(ctx, "q-kept", "In progress: token refresh.\nDone by Friday."); err != nil {
		t.Fatal(err)
	}
	if got := sent["kept"]; len(got.ContextRefs) != 1 || len(got.Blockers) != 0 {
		t.Errorf("the draft's words kept: refs %+v, blockers %+v; want the refs alone", got.ContextRefs, got.Blockers)
	}
}

// openDB is a store on a fresh file whose clock says now, closed when the
// test ends.
func openDB(t *testing.T, now time.Time) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "aoi.db"), store.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestReleaseLeavesDraftsThatFoundNoWork: releasing sent "No recorded work
// matches …" as the owner's reply (the walk's asker read exactly that).
// Releasing them all now leaves such a question for the owner; releasing
// it alone is refused, saying what to do.
func TestReleaseLeavesDraftsThatFoundNoWork(t *testing.T) {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	db := openDB(t, now)
	ctx := context.Background()
	progress := 40
	found := wire.MustJSON(wire.QueryResult{Summary: "Dark mode is 40% done.", Progress: &progress})
	nothing := wire.MustJSON(wire.QueryResult{Summary: `No recorded work matches "invoice export".`})
	for _, q := range []store.QueryRecord{
		{ID: "q-1", RequestID: "ask-1", From: "pm", Text: "dark mode?", Priority: "normal", State: Buffered, Draft: found, Confidence: 0.7, ReceivedAt: now},
		{ID: "q-3", RequestID: "ask-3", From: "pm", Text: "onboarding doc?", Priority: "low", State: Buffered, Draft: found, Confidence: 0.25, ReceivedAt: now}, // a guess
		{ID: "q-2", RequestID: "ask-2", From: "pm", Text: "invoice export?", Priority: "normal", State: Buffered, Draft: nothing, ReceivedAt: now},
	} {
		if err := db.Write(ctx, func(tx *store.Tx) error { return tx.InsertQuery(q) }); err != nil {
			t.Fatal(err)
		}
	}
	var queued []string
	in := &Inbox{DB: db, Now: func() time.Time { return now },
		Notify: func(tx *store.Tx, to, event, relatedID string, data any) error {
			queued = append(queued, relatedID)
			return nil
		},
		Wake: func() {}, Redact: func(s string) string { return s }, Publish: func(kind, id, agent, summary string) {},
	}
	if err := in.Release(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if len(queued) != 1 || queued[0] != "ask-1" {
		t.Fatalf("released %v; want only the draft that found work", queued)
	}
	if q, _, _ := db.Query(ctx, "q-2"); q.State != Buffered {
		t.Fatalf("the no-work question is %s; want it still buffered for the owner", q.State)
	}
	if err := in.Release(ctx, "q-2"); !errors.Is(err, errs.ErrConflict) || !strings.Contains(err.Error(), "aoi answer q-2") {
		t.Fatalf("releasing the no-work draft alone: %v; want a conflict saying to answer it", err)
	}
}

// TestReleaseAllKeepsDraftsTheAskerMayNoLongerRead: releasing every
// buffered question sends the drafts whose askers may still receive them
// and keeps, audited, the one Unsendable refuses; releasing that one alone
// is refused saying why and what to do.
func TestReleaseAllKeepsDraftsTheAskerMayNoLongerRead(t *testing.T) {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	db := openDB(t, now)
	ctx := context.Background()
	progress := 40
	found := wire.MustJSON(wire.QueryResult{Summary: "Dark mode is 40% done.", Progress: &progress})
	for _, q := range []store.QueryRecord{
		{ID: "q-1", RequestID: "ask-1", From: "pm", Text: "dark mode?", Priority: "low", State: Buffered, Draft: found, Confidence: 0.7, ReceivedAt: now},
		{ID: "q-2", RequestID: "ask-2", From: "qa", Text: "dark mode?", Priority: "low", State: Buffered, Draft: found, Confidence: 0.7, ReceivedAt: now},
	} {
		if err := db.Write(ctx, func(tx *store.Tx) error { return tx.InsertQuery(q) }); err != nil {
			t.Fatal(err)
		}
	}
	var queued []string
	in := &Inbox{DB: db, Now: func() time.Time { return now },
		Notify: func(tx *store.Tx, to, event, relatedID string, data any) error {
			queued = append(queued, relatedID)
			return nil
		},
		Wake: func() {}, Redact: func(s string) string { return s }, Publish: func(kind, id, agent, summary string) {},
		Unsendable: func(q store.QueryRecord) (string, string) {
			if q.From == "qa" {
				return "qa may no longer read acme/webapp under the ACL in force now", "change the ACL"
			}
			return "", ""
		},
	}
	err := in.Release(ctx, "")
	if !errors.Is(err, errs.ErrConflict) || !strings.Contains(err.Error(), "q-2: qa may no longer read acme/webapp") {
		t.Fatalf("release all: %v; want a conflict naming the kept question and why", err)
	}
	if len(queued) != 1 || queued[0] != "ask-1" {
		t.Fatalf("queued %v; want only pm's draft", queued)
	}
	if q, _, _ := db.Query(ctx, "q-2"); q.State != Buffered {
		t.Fatalf("qa's question is %s; want it still buffered for the owner", q.State)
	}
	err = in.Release(ctx, "q-2")
	if !errors.Is(err, errs.ErrConflict) || !strings.Contains(err.Error(), "aoi answer q-2") {
		t.Fatalf("releasing qa's draft alone: %v; want a conflict saying to answer it", err)
	}
	rows, err := db.AuditList(ctx, store.AuditQuery{Method: "ctl.release", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, r := range rows {
		if r.Result == "PERMISSION_DENIED" && strings.Contains(string(r.Detail), "q-2") {
			refused++
		}
	}
	if refused != 2 {
		t.Fatalf("audit %+v; want both refusals of q-2", rows)
	}
}

// TestReleasedOldDraftSaysWhenItWasWritten: a draft's "latest 2 min ago"
// counts from when the secretary wrote it; released an hour later it
// would mislead, so its summary then says when it was written (in the
// summary's language). A draft released soon after, or one with no time
// (stored before), goes as it is.
func TestReleasedOldDraftSaysWhenItWasWritten(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	progress := 40
	draft := func(summary string, written time.Time) []byte {
		return wire.MustJSON(wire.QueryResult{Summary: summary, Progress: &progress,
			Metadata: map[string]any{wire.MetaAsOf: written.Format(time.RFC3339)}})
	}
	cases := []struct {
		id, summary string
		written     time.Time
		want        string
	}{
		{"q-1", "dark mode: 3 matching events, latest 2 min ago.", now.Add(-time.Hour), "latest 2 min ago. (as of " + now.Add(-time.Hour).In(time.Local).Format("Jan 2 15:04 MST") + ")"},
		{"q-2", "ダークモード: 該当 3 件、最新は 2分前。", now.Add(-time.Hour), "最新は 2分前。（" + now.Add(-time.Hour).In(time.Local).Format("1/2 15:04") + " 時点）"},
		{"q-3", "dark mode: latest 2 min ago.", now.Add(-5 * time.Minute), "dark mode: latest 2 min ago."},
	}
	db := openDB(t, now)
	ctx := context.Background()
	for _, c := range cases {
		q := store.QueryRecord{ID: c.id, RequestID: "ask-" + c.id, From: "pm", Text: "dark mode?", Priority: "normal", State: Buffered,
			Draft: draft(c.summary, c.written), Confidence: 0.7, ReceivedAt: c.written}
		if err := db.Write(ctx, func(tx *store.Tx) error { return tx.InsertQuery(q) }); err != nil {
			t.Fatal(err)
		}
	}
	in := &Inbox{DB: db, Now: func() time.Time { return now },
		Notify: func(tx *store.Tx, to, event, relatedID string, data any) error { return nil },
		Wake:   func() {}, Redact: func(s string) string { return s }, Publish: func(kind, id, agent, summary string) {}}
	for _, c := range cases {
		if err := in.Release(ctx, c.id); err != nil {
			t.Fatal(err)
		}
		got, _, _ := db.Query(ctx, c.id)
		var res wire.QueryResult
		if err := json.Unmarshal(got.Answer, &res); err != nil || !strings.HasSuffix(res.Summary, c.want) {
			t.Errorf("%s released as %q (%v); want it to end %q", c.id, res.Summary, err, c.want)
		}
	}
}

// TestBeginningCutsAtAWordEnd: the question a notification quotes is cut
// after a whole word (the walk read "…and when do…"), or in Japanese
// after a comma or full stop; one long word is still cut inside.
func TestBeginningCutsAtAWordEnd(t *testing.T) {
	for _, c := range []struct {
		text string
		n    int
		want string
	}{
		{"how is the billing migration going, and when does it ship to production?", 48, "how is the billing migration going, and when…"},
		{"認証機能の進捗とブロック要因は、リリース前にテストの結果も教えてください", 20, "認証機能の進捗とブロック要因は、…"},
		{"short question", 48, "short question"},
		{strings.Repeat("x", 60), 10, "xxxxxxxxx…"},
	} {
		if got := beginning(c.text, c.n); got != c.want {
			t.Errorf("beginning(%q, %d) = %q; want %q", c.text, c.n, got, c.want)
		}
	}
}

// TestAnnounceQuotesTheQuestionAsItIsSeen: the notice of a new question
// counts the characters a reader sees: a peer's escape sequences, which
// the screen drops, cut a short question short (the eighth walk read
// “evil title RTL and…” of a question of 29 visible characters).
func TestAnnounceQuotesTheQuestionAsItIsSeen(t *testing.T) {
	var said string
	in := &Inbox{Publish: func(kind, _, _, summary string) {
		if kind == events.Attention {
			said = summary
		}
	}}
	in.Announce(store.QueryRecord{ID: "q-1", From: "pm-tanaka", State: Escalated,
		Text: "is the \x1b]8;;http://example.com/a/long/link\x07billing\x1b]8;;\x07 fix \x1b[31mmerged\x1b[0m?"})
	if want := "question from pm-tanaka: “is the billing fix merged?”"; said != want {
		t.Errorf("the notice reads %q; want %q", said, want)
	}
}

// TestOneLineIsFieldsJoined: oneLine gives what strings.Fields joined by
// single spaces gives, for texts built from every kind of space around
// words (ASCII, ideographic, tabs, line breaks), leading and trailing.
func TestOneLineIsFieldsJoined(t *testing.T) {
	parts := []string{"", " ", "  ", "\t", "\n", "\u3000", "\u00a0", "a", "認証", "?"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				for _, d := range parts {
					s := a + b + c + d
					if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
						t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
					}
				}
			}
		}
	}
}

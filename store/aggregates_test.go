package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// write runs fn through the writer and fails the test on error.
func write(t testing.TB, db *DB, fn func(tx *Tx) error) {
	t.Helper()
	if err := db.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func TestRegistryUpsertAndLookups(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, WithClock(clock.Now))
	ctx := context.Background()
	p := PeerRecord{AgentID: "eng-suzuki", Role: "engineer", Fingerprint: "fp1", NodeID: "n1", Trust: "pinned",
		Status: "online", Contexts: []string{"acme/webapp"}, TaskTypes: []string{"run_tests"}, Capabilities: json.RawMessage(`{"actions":["query"]}`)}
	write(t, db, func(tx *Tx) error { return tx.UpsertPeer(p) })
	got, ok, err := db.Peer(ctx, "eng-suzuki")
	if err != nil || !ok || got.Role != "engineer" || got.Contexts[0] != "acme/webapp" || string(got.Capabilities) != `{"actions":["query"]}` {
		t.Fatalf("Peer = %+v %v %v", got, ok, err)
	}
	if !got.LastSeen.IsZero() {
		t.Fatalf("a peer never reached has last_seen %v; want none (shown as never)", got.LastSeen)
	}
	first := got.FirstSeen
	p.Endpoint, p.LastSeen = "127.0.0.1:8443", clock.Now().Add(time.Second)
	write(t, db, func(tx *Tx) error { return tx.UpsertPeer(p) })
	got, _, _ = db.Peer(ctx, "eng-suzuki")
	if got.Endpoint != "127.0.0.1:8443" || !got.FirstSeen.Equal(first) || !got.LastSeen.After(first) {
		t.Fatalf("after second upsert: %+v (first_seen must be kept, last_seen advanced)", got)
	}
	if g, ok, _ := db.PeerByFingerprint(ctx, "fp1"); !ok || g.AgentID != "eng-suzuki" {
		t.Fatal("PeerByFingerprint did not find the peer")
	}
	if g, ok, _ := db.PeerByNode(ctx, "n1"); !ok || g.AgentID != "eng-suzuki" {
		t.Fatal("PeerByNode did not find the peer")
	}
	if _, ok, _ := db.PeerByFingerprint(ctx, ""); ok {
		t.Fatal("an empty fingerprint matched a peer")
	}
	seen := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	write(t, db, func(tx *Tx) error { return tx.SetPeerStatus("eng-suzuki", "offline", seen) })
	got, _, _ = db.Peer(ctx, "eng-suzuki")
	if got.Status != "offline" || !got.LastSeen.Equal(seen) {
		t.Fatalf("status = %s last_seen %v", got.Status, got.LastSeen)
	}
	write(t, db, func(tx *Tx) error { return tx.DeletePeer("eng-suzuki") })
	if _, ok, _ := db.Peer(ctx, "eng-suzuki"); ok {
		t.Fatal("peer still there after DeletePeer")
	}
}

func TestRegistryUniqueFingerprintAndNode(t *testing.T) {
	db, _ := openTestDB(t)
	write(t, db, func(tx *Tx) error {
		if err := tx.UpsertPeer(PeerRecord{AgentID: "a", Fingerprint: "fp"}); err != nil {
			return err
		}
		// Empty fingerprints and nodes never collide.
		if err := tx.UpsertPeer(PeerRecord{AgentID: "b"}); err != nil {
			return err
		}
		return tx.UpsertPeer(PeerRecord{AgentID: "c"})
	})
	err := db.Write(context.Background(), func(tx *Tx) error { return tx.UpsertPeer(PeerRecord{AgentID: "d", Fingerprint: "fp"}) })
	if err == nil || !strings.Contains(err.Error(), "already pinned for a; it is one certificate, one agent: stop trusting a first (aoi peers refuse a), then pin it for d") {
		t.Fatalf("duplicate fingerprint: %v", err)
	}
	write(t, db, func(tx *Tx) error { return tx.UpsertPeer(PeerRecord{AgentID: "a", NodeID: "n"}) })
	err = db.Write(context.Background(), func(tx *Tx) error { return tx.UpsertPeer(PeerRecord{AgentID: "b", NodeID: "n"}) })
	if err == nil || !strings.Contains(err.Error(), "already bound to a; stop trusting a first") {
		t.Fatalf("duplicate node: %v", err)
	}
	peers, err := db.Peers(context.Background())
	if err != nil || len(peers) != 3 || peers[0].AgentID != "a" {
		t.Fatalf("Peers = %+v, %v", peers, err)
	}
}

// TestTxPeerSeesItsBatch: a write that reads a peer through the
// transaction sees what an earlier write of the same group commit did to
// it, where DB.Peer reads what was last committed. A peer's announce that
// read its pin from DB.Peer stored it again right after the owner's
// refusal had removed it (the attack run re-pinned a refused peer).
func TestTxPeerSeesItsBatch(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	write(t, db, func(tx *Tx) error {
		return tx.UpsertPeer(PeerRecord{AgentID: "pm", Fingerprint: "fp", Trust: "pinned"})
	})
	release, started := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.Write(ctx, func(*Tx) error {
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	removed := make(chan error, 1)
	go func() { removed <- db.Write(ctx, func(tx *Tx) error { return tx.DeletePeer("pm") }) }()
	waitQueued(t, db, 1)
	var inTx, committed bool
	read := make(chan error, 1)
	go func() {
		read <- db.Write(ctx, func(tx *Tx) error {
			var err error
			if _, inTx, err = tx.Peer("pm"); err != nil {
				return err
			}
			_, committed, err = db.Peer(ctx, "pm")
			return err
		})
	}()
	waitQueued(t, db, 2)
	close(release)
	for _, ch := range []chan error{held, removed, read} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	if inTx || !committed {
		t.Fatalf("after a delete in the same batch: tx.Peer found %v, DB.Peer found %v; want false, true", inTx, committed)
	}
}

func TestTrustRequests(t *testing.T) {
	db, _ := openTestDB(t, WithClock(newTestClock().Now))
	ctx := context.Background()
	record := func(fp, id, addr string) (seen TrustRequestSeen) {
		write(t, db, func(tx *Tx) (err error) {
			seen, err = tx.RecordTrustRequest(TrustCaller{Fingerprint: fp, ClaimedAgentID: id, Endpoint: addr})
			return err
		})
		return seen
	}
	for i := range 3 {
		if seen := record("fpX", "mallory", "127.0.0.1:5555"); seen.New != (i == 0) || seen.Refused {
			t.Fatalf("call %d: seen %+v", i+1, seen)
		}
	}
	record("fpY", "bob", "127.0.0.1:6666")
	reqs, err := db.TrustRequests(ctx)
	if err != nil || len(reqs) != 2 || reqs[0].Fingerprint != "fpY" || reqs[1].Attempts != 3 {
		t.Fatalf("TrustRequests = %+v, %v; want fpY first and fpX with 3 attempts", reqs, err)
	}
	if !reqs[1].LastSeen.After(reqs[1].FirstSeen) {
		t.Fatal("last_seen did not advance on a repeated request")
	}
	write(t, db, func(tx *Tx) error { return tx.DeleteTrustRequest("fpX") })
	if reqs, _ := db.TrustRequests(ctx); len(reqs) != 1 {
		t.Fatalf("after delete: %d requests", len(reqs))
	}
	// Refused: listed no more, and the caller's next call is neither new
	// nor forgotten.
	write(t, db, func(tx *Tx) error {
		if ok, err := tx.RefuseTrustRequest("fpY"); !ok || err != nil {
			t.Errorf("refuse fpY = %v, %v", ok, err)
		}
		return nil
	})
	if seen := record("fpY", "bob", "127.0.0.1:6666"); seen.New || !seen.Refused {
		t.Fatalf("a refused caller calling again: seen %+v, want not new and refused", seen)
	}
	if reqs, _ := db.TrustRequests(ctx); len(reqs) != 0 {
		t.Fatalf("refused requests are still listed: %+v", reqs)
	}
}

// TestTrustRequestsAreBounded: the pending list stops at maxTrustRequests,
// keeping the requests already listed (a colleague's among them) rather
// than the flood's newest; a listed caller calling again is still counted.
func TestTrustRequestsAreBounded(t *testing.T) {
	db, _ := openTestDB(t, WithClock(newTestClock().Now))
	var last TrustRequestSeen
	write(t, db, func(tx *Tx) (err error) {
		if _, err := tx.RecordTrustRequest(TrustCaller{Fingerprint: "colleague", ClaimedAgentID: "pm", Endpoint: "addr"}); err != nil {
			return err
		}
		for i := range maxTrustRequests + 20 {
			if last, err = tx.RecordTrustRequest(TrustCaller{Fingerprint: fmt.Sprintf("fp%d", i), ClaimedAgentID: "x", Endpoint: "addr"}); err != nil {
				return err
			}
		}
		return nil
	})
	if !last.Full || last.New {
		t.Fatalf("the request over the bound: %+v, want Full and not recorded", last)
	}
	reqs, err := db.TrustRequests(context.Background())
	if err != nil || len(reqs) != maxTrustRequests {
		t.Fatalf("%d trust requests kept (%v), want %d", len(reqs), err, maxTrustRequests)
	}
	var again TrustRequestSeen
	write(t, db, func(tx *Tx) (err error) {
		again, err = tx.RecordTrustRequest(TrustCaller{Fingerprint: "colleague", ClaimedAgentID: "pm", Endpoint: "addr"})
		return err
	})
	if again.Full || again.New {
		t.Fatalf("the colleague calling again after the flood: %+v, want its listed request counted", again)
	}
}

// TestRefusalSurvivesAFlood: the attack run's case — the owner refuses a
// caller, then more new callers than the bound arrive; the refusal is
// kept (bounded apart), so the refused caller's next call is still
// refused quietly instead of listed again.
func TestRefusalSurvivesAFlood(t *testing.T) {
	db, _ := openTestDB(t, WithClock(newTestClock().Now))
	write(t, db, func(tx *Tx) error {
		if _, err := tx.RecordTrustRequest(TrustCaller{Fingerprint: "mallory", ClaimedAgentID: "mallory", Endpoint: "addr"}); err != nil {
			return err
		}
		_, err := tx.RefuseTrustRequest("mallory")
		return err
	})
	write(t, db, func(tx *Tx) error {
		for i := range maxTrustRequests + 20 {
			if _, err := tx.RecordTrustRequest(TrustCaller{Fingerprint: fmt.Sprintf("fp%d", i), ClaimedAgentID: "x", Endpoint: "addr"}); err != nil {
				return err
			}
		}
		return nil
	})
	var seen TrustRequestSeen
	write(t, db, func(tx *Tx) (err error) {
		seen, err = tx.RecordTrustRequest(TrustCaller{Fingerprint: "mallory", ClaimedAgentID: "mallory", Endpoint: "addr"})
		return err
	})
	if seen.New || !seen.Refused {
		t.Fatalf("the refused caller after a flood: %+v, want not new and refused", seen)
	}
}

func TestQueriesLifecycle(t *testing.T) {
	db, _ := openTestDB(t, WithClock(newTestClock().Now))
	ctx := context.Background()
	write(t, db, func(tx *Tx) error {
		for i := range 3 {
			q := QueryRecord{ID: fmt.Sprintf("q%d", i), RequestID: "r", From: "pm-tanaka", Text: "認証の進捗は？",
				ContextScope: []string{"acme/webapp"}, State: "awaiting"}
			if err := tx.InsertQuery(q); err != nil {
				return err
			}
		}
		return nil
	})
	list, err := db.Queries(ctx, "", 0)
	if err != nil || len(list) != 3 || list[0].ID != "q2" || list[0].Priority != "normal" || list[0].ContextScope[0] != "acme/webapp" {
		t.Fatalf("Queries = %+v, %v; want newest first", list, err)
	}
	write(t, db, func(tx *Tx) error {
		return tx.SetQueryDecision("q1", "ESCALATE", 0.25, json.RawMessage(`{"summary":"draft"}`), []string{"acme/webapp/auth/jwt.go"})
	})
	// A decision without a new draft keeps the draft and its sources.
	write(t, db, func(tx *Tx) error { return tx.SetQueryDecision("q1", "ESCALATE", 0.25, nil, nil) })
	if q, _, _ := db.Query(ctx, "q1"); !slices.Equal(q.DraftSources, []string{"acme/webapp/auth/jwt.go"}) {
		t.Fatalf("draft sources = %q, want the draft's file", q.DraftSources)
	}
	if q, _, _ := db.Query(ctx, "q0"); q.DraftSources != nil {
		t.Fatalf("a query stored without sources reads %q, want none", q.DraftSources)
	}
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	write(t, db, func(tx *Tx) error {
		return tx.UpdateQuery("q1", "answered", json.RawMessage(`{"summary":"done","completed":true}`), &at)
	})
	q, ok, err := db.Query(ctx, "q1")
	if err != nil || !ok || q.State != "answered" || q.Decision != "ESCALATE" || q.Confidence != 0.25 ||
		string(q.Draft) != `{"summary":"draft"}` || q.AnsweredAt == nil || !q.AnsweredAt.Equal(at) {
		t.Fatalf("Query = %+v, %v, %v", q, ok, err)
	}
	// A state change without an answer keeps the stored answer.
	write(t, db, func(tx *Tx) error { return tx.UpdateQuery("q1", "declined", nil, nil) })
	if q, _, _ := db.Query(ctx, "q1"); q.Answer == nil || q.AnsweredAt == nil {
		t.Fatal("UpdateQuery with nil answer erased the answer")
	}
	if n, _ := db.CountQueries(ctx, "awaiting"); n != 2 {
		t.Fatalf("CountQueries(awaiting) = %d, want 2", n)
	}
	if n, _ := db.CountQueries(ctx, ""); n != 3 {
		t.Fatalf("CountQueries() = %d, want 3", n)
	}
	err = db.Write(ctx, func(tx *Tx) error { return tx.UpdateQuery("nope", "x", nil, nil) })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("UpdateQuery on unknown id = %v, want ErrNotFound", err)
	}
	err = db.Write(ctx, func(tx *Tx) error { return tx.UpdateQuery("q0", "x", json.RawMessage(`{bad`), nil) })
	if err == nil {
		t.Fatal("invalid JSON answer was stored")
	}
}

func TestAsks(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	write(t, db, func(tx *Tx) error {
		return tx.InsertAsk(AskRecord{RequestID: "req-1", To: "eng-suzuki", Text: "status?"})
	})
	write(t, db, func(tx *Tx) error { return tx.SetAskResult("req-1", json.RawMessage(`{"completed":false}`)) })
	a, ok, err := db.Ask(ctx, "req-1")
	if err != nil || !ok || a.To != "eng-suzuki" || string(a.Result) != `{"completed":false}` || a.SentAt.IsZero() {
		t.Fatalf("Ask = %+v %v %v", a, ok, err)
	}
	if _, ok, _ := db.Ask(ctx, "nope"); ok {
		t.Fatal("unknown ask found")
	}
}

func TestMessagesDedupeAndOrder(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	insert := func(m MessageRecord) (int64, bool) {
		var seq int64
		var dup bool
		write(t, db, func(tx *Tx) (err error) {
			seq, dup, err = tx.InsertMessage(m)
			return err
		})
		return seq, dup
	}
	s1, d1 := insert(MessageRecord{MsgID: "m1", From: "pm", Event: "query.completed", RelatedID: "q1", Data: json.RawMessage(`{"a":1}`)})
	s2, d2 := insert(MessageRecord{MsgID: "m1", From: "pm", Event: "query.completed", RelatedID: "q1"}) // retry
	s3, _ := insert(MessageRecord{MsgID: "m1", From: "other", Event: "e"})                              // same id, other sender
	s4, _ := insert(MessageRecord{From: "pm", Event: "e"})                                              // no msg id
	s5, d5 := insert(MessageRecord{From: "pm", Event: "e"})                                             // no msg id: never deduped
	if d1 || !d2 || s2 != s1 || d5 || s3 == s1 || s5 == s4 {
		t.Fatalf("seqs %d %d %d %d %d dup %v %v %v", s1, s2, s3, s4, s5, d1, d2, d5)
	}
	msgs, err := db.Messages(ctx, 0, 0)
	if err != nil || len(msgs) != 4 || msgs[0].Seq != s1 || string(msgs[0].Data) != `{"a":1}` || msgs[0].RelatedID != "q1" {
		t.Fatalf("Messages = %+v, %v", msgs, err)
	}
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Seq <= msgs[i-1].Seq {
			t.Fatal("messages not in sequence order")
		}
	}
	after, _ := db.Messages(ctx, s3, 10)
	if len(after) != 2 || after[0].Seq != s4 {
		t.Fatalf("Messages after %d = %+v", s3, after)
	}
	if n, _ := db.UnreadMessages(ctx); n != 4 {
		t.Fatalf("unread = %d, want 4", n)
	}
	write(t, db, func(tx *Tx) error { return tx.MarkMessagesRead(s3) })
	if n, _ := db.UnreadMessages(ctx); n != 2 {
		t.Fatalf("unread after marking up to %d = %d, want 2", s3, n)
	}
	write(t, db, func(tx *Tx) error { return tx.MarkMessagesRead(s1) }) // an older mark changes nothing
	if n, _ := db.UnreadMessages(ctx); n != 2 {
		t.Fatalf("unread after an older mark = %d, want 2", n)
	}
	msgs, _ = db.Messages(ctx, 0, 0)
	if !msgs[0].Read || !msgs[1].Read || msgs[2].Read {
		t.Fatalf("read flags = %v %v %v", msgs[0].Read, msgs[1].Read, msgs[2].Read)
	}
	// Marking one message past the mark leaves the one before it unread.
	write(t, db, func(tx *Tx) error { return tx.MarkMessagesReadSeqs([]int64{s5}) })
	if n, _ := db.UnreadMessages(ctx); n != 1 {
		t.Fatalf("unread after marking %d alone = %d, want 1 (%d)", s5, n, s4)
	}
	msgs, _ = db.Messages(ctx, 0, 0)
	if msgs[2].Read || !msgs[3].Read {
		t.Fatalf("read flags after marking %d alone = %v %v, want false true", s5, msgs[2].Read, msgs[3].Read)
	}
}

func TestOutboxLifecycle(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, WithClock(clock.Now))
	ctx := context.Background()
	base := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	write(t, db, func(tx *Tx) error {
		for i, to := range []string{"pm", "pm", "eng"} {
			r := OutboxRecord{ID: fmt.Sprintf("o%d", i), To: to, Method: "aoi.notify", Params: json.RawMessage(`{"event":"query.completed"}`),
				NextAttemptAt: base.Add(time.Duration(i) * time.Second), CreatedAt: base.Add(time.Duration(i) * time.Second), ExpiresAt: base.Add(time.Hour)}
			if err := tx.EnqueueOutbox(r); err != nil {
				return err
			}
		}
		return nil
	})
	due, err := db.DueOutbox(ctx, base.Add(time.Second), 0)
	if err != nil || len(due) != 2 || due[0].ID != "o0" || due[1].ID != "o1" || due[0].State != OutboxPending {
		t.Fatalf("DueOutbox = %+v, %v; want o0, o1", due, err)
	}
	if next, ok, _ := db.NextOutboxAt(ctx); !ok || !next.Equal(base) {
		t.Fatalf("NextOutboxAt = %v %v, want %v", next, ok, base)
	}
	// o0 fails and is retried later; o1 is delivered; o2 expires.
	write(t, db, func(tx *Tx) error {
		return tx.RescheduleOutbox("o0", base.Add(10*time.Second), "peer pm offline", false)
	})
	write(t, db, func(tx *Tx) error { return tx.MarkOutboxDelivered("o1", base.Add(2*time.Second)) })
	write(t, db, func(tx *Tx) error { return tx.ExpireOutbox("o2") })
	if due, _ := db.DueOutbox(ctx, base.Add(5*time.Second), 0); len(due) != 0 {
		t.Fatalf("due after reschedule = %+v, want none", due)
	}
	if depth, oldest, _ := db.OutboxStats(ctx); depth != 1 || !oldest.Equal(base) {
		t.Fatalf("OutboxStats = %d, %v; want 1 pending created at %v", depth, oldest, base)
	}
	// The pending entry survives a restart.
	db.Close()
	db2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	forPM, err := db2.OutboxForAgent(ctx, "pm")
	if err != nil || len(forPM) != 1 || forPM[0].ID != "o0" || forPM[0].Attempts != 1 || forPM[0].LastError != "peer pm offline" {
		t.Fatalf("OutboxForAgent(pm) after restart = %+v, %v", forPM, err)
	}
	o1, _, _ := db2.Outbox(ctx, "o1")
	if o1.State != OutboxDelivered || o1.DeliveredAt == nil {
		t.Fatalf("o1 = %+v, want delivered", o1)
	}
	err = db2.Write(ctx, func(tx *Tx) error { return tx.RescheduleOutbox("o1", base, "x", false) })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("rescheduling a delivered entry = %v, want ErrNotFound", err)
	}
	if _, ok, _ := db2.NextOutboxAt(ctx); !ok {
		t.Fatal("NextOutboxAt lost the pending entry")
	}
}

func TestSettings(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	if _, ok, err := db.Setting(ctx, "focus"); ok || err != nil {
		t.Fatalf("missing setting: ok %v err %v", ok, err)
	}
	write(t, db, func(tx *Tx) error { return tx.SetSetting("focus", "on") })
	write(t, db, func(tx *Tx) error { return tx.SetSetting("focus", "off") })
	if v, ok, _ := db.Setting(ctx, "focus"); !ok || v != "off" {
		t.Fatalf("focus = %q %v, want off", v, ok)
	}
	write(t, db, func(tx *Tx) error { return tx.DeleteSetting("focus") })
	if _, ok, _ := db.Setting(ctx, "focus"); ok {
		t.Fatal("setting survived DeleteSetting")
	}
}

// TestQueriesListInArrivalOrder: queries list newest-arrived first even
// when their received_at times disagree (a handler takes the time before
// its turn at the writer), and both listings are read straight off a
// b-tree: the table for all queries, open_queries for an open state, with
// no sort. The writer maintains no index on queries at all: received_at's
// went (migration 0400), the id's and the open states' are kept in
// arrears (0510, 0520).
func TestQueriesListInArrivalOrder(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	late := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	write(t, db, func(tx *Tx) error {
		for i, at := range []time.Time{late, late.Add(-time.Second), late.Add(-2 * time.Second)} {
			q := QueryRecord{ID: fmt.Sprintf("q%d", i), From: "pm-tanaka", Text: "進捗は？", State: "buffered", ReceivedAt: at}
			if err := tx.InsertQuery(q); err != nil {
				return err
			}
		}
		return nil
	})
	for _, state := range []string{"", "buffered"} {
		list, err := db.Queries(ctx, state, 0)
		if err != nil || len(list) != 3 || list[0].ID != "q2" || list[2].ID != "q0" {
			t.Fatalf("Queries(%q) = %+v, %v; want q2, q1, q0", state, list, err)
		}
	}
	for query, want := range map[string]string{
		`SELECT id FROM queries ORDER BY rowid DESC LIMIT 5`: "SCAN queries",
		`SELECT q.id FROM open_queries o CROSS JOIN queries q ON q.rowid = o.qrow
			WHERE o.state = 'buffered' ORDER BY o.qrow DESC`: "SEARCH o USING PRIMARY KEY (state=?)",
	} {
		plan := queryPlan(t, db, query)
		if !strings.Contains(plan, want) || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("plan of %s = %q, want %q and no sort", query, plan, want)
		}
	}
	var n int
	if err := db.rd.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'queries'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("queries has %d indexes (%v), want none on the write path", n, err)
	}
}

// TestOnlyOpenQueriesAreIndexed: answered and declined queries stay out
// of open_queries (migration 0410 began it with a partial index), while a
// listing and a count by any state still find their rows, before the
// writer's pass indexes them and after.
func TestOnlyOpenQueriesAreIndexed(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	states := []string{"answered", "buffered", "escalated", "awaiting", "declined"}
	write(t, db, func(tx *Tx) error {
		for i, st := range states {
			for j := 0; j <= i; j++ {
				if err := tx.InsertQuery(QueryRecord{ID: fmt.Sprintf("q-%s-%d", st, j), From: "pm-tanaka", Text: "status?", State: st}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	for pass := range 2 {
		if pass == 1 {
			write(t, db, (*Tx).indexQuestions)
		}
		for i, st := range states {
			list, err := db.Queries(ctx, st, 0)
			n, cerr := db.CountQueries(ctx, st)
			if err != nil || cerr != nil || len(list) != i+1 || n != i+1 || list[0].State != st {
				t.Fatalf("state %s, pass %d: listed %d, counted %d (%v, %v); want %d", st, pass, len(list), n, err, cerr, i+1)
			}
		}
	}
	var indexed int
	if err := db.rd.QueryRow(`SELECT COUNT(*) FROM open_queries`).Scan(&indexed); err != nil || indexed != 2+3+4 {
		t.Fatalf("open_queries holds %d rows (%v), want the 9 open ones", indexed, err)
	}
	plan := queryPlan(t, db, `SELECT id FROM queries WHERE state = ? ORDER BY rowid DESC LIMIT 5`, "answered")
	if !strings.Contains(plan, "SCAN queries") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan for an answered listing: %q, want a walk of the table newest first, no sort", plan)
	}
}

// queryPlan is EXPLAIN QUERY PLAN's details for query, joined.
func queryPlan(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.rd.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, detail)
	}
	return strings.Join(parts, "; ")
}

// TestQueryRequestsSince: questions are named by sender and JSON-RPC id
// within the window, the newest when an id came twice, and the lookup
// reads a range of the newest rows by rowid, not the whole table (queries
// keeps one index, for the write path).
func TestQueryRequestsSince(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	write(t, db, func(tx *Tx) error {
		for _, q := range []QueryRecord{
			{ID: "q-old", RequestID: "r1", From: "pm-tanaka", Text: "old?", State: "escalated", ReceivedAt: at.Add(-time.Hour)},
			{ID: "q-pm", RequestID: "r1", From: "pm-tanaka", Text: "new?", State: "escalated", ReceivedAt: at},
			{ID: "q-pm2", RequestID: "r3", From: "pm-tanaka", Text: "again?", State: "escalated", ReceivedAt: at},
			{ID: "q-pm3", RequestID: "r3", From: "pm-tanaka", Text: "again?", State: "escalated", ReceivedAt: at.Add(time.Second)},
			{ID: "q-qa", RequestID: "r2", From: "qa-ito", Text: "qa?", State: "escalated", ReceivedAt: at},
			{ID: "q-local", From: "eng-suzuki", Text: "no id", State: "escalated", ReceivedAt: at},
		} {
			if err := tx.InsertQuery(q); err != nil {
				return err
			}
		}
		return nil
	})
	got, err := db.QueryRequestsSince(ctx, at.Add(-10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := map[QueryRequest]string{{"pm-tanaka", "r1"}: "q-pm", {"pm-tanaka", "r3"}: "q-pm3", {"qa-ito", "r2"}: "q-qa"}
	if !maps.Equal(got, want) {
		t.Errorf("QueryRequestsSince = %v\nwant %v", got, want)
	}
	if got, err := db.QueryRequestsSince(ctx, at.Add(2*time.Second)); err != nil || len(got) != 0 {
		t.Errorf("after them = %v %v, want none", got, err)
	}
	plan := queryPlan(t, db, `SELECT from_agent, request_id, id FROM queries WHERE rowid > (SELECT COALESCE(MAX(rowid), 0) FROM queries) - 4096
		AND request_id != '' AND received_at >= '' ORDER BY rowid`)
	if !strings.Contains(plan, "rowid>?") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan = %q, want a rowid range and no sort", plan)
	}
}

// TestDueOutboxForKeepsTheQueuedOrder: two notes queued while the peer was
// away, the later one given the earlier retry by the back-off's jitter,
// go in the order they were queued once either is due; one the peer
// refused, or one not tried yet, keeps its own time.
func TestDueOutboxForKeepsTheQueuedOrder(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	base := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	write(t, db, func(tx *Tx) error {
		for i, id := range []string{"friday", "slides", "refused", "fresh"} {
			r := OutboxRecord{ID: id, To: "eng", Method: "aoi.message", Params: json.RawMessage(`{}`),
				CreatedAt: base.Add(time.Duration(i) * time.Second), NextAttemptAt: base.Add(time.Hour), ExpiresAt: base.Add(24 * time.Hour)}
			if err := tx.EnqueueOutbox(r); err != nil {
				return err
			}
		}
		if err := tx.RescheduleOutbox("friday", base.Add(50*time.Second), "eng is away", false); err != nil {
			return err
		}
		if err := tx.RescheduleOutbox("slides", base.Add(40*time.Second), "eng is away", false); err != nil {
			return err
		}
		return tx.RescheduleOutbox("refused", base.Add(10*time.Minute), "no ACL rule", true)
	})
	due, err := db.DueOutboxFor(ctx, "eng", base.Add(45*time.Second), 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range due {
		ids = append(ids, e.ID)
	}
	if got := strings.Join(ids, " "); got != "friday slides" {
		t.Errorf("DueOutboxFor = %q, want \"friday slides\" (queued order; not the refused or the untried one)", got)
	}
}

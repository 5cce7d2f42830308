package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// queuedNotify opens a store on a test clock holding one notify, n-1 from
// eng to pm with data, due now.
func queuedNotify(t *testing.T, data string) (*clock, *store.DB) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	db, err := store.Open(filepath.Join(t.TempDir(), "aoi.db"), store.WithClock(clk.now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := Notify("n-1", "eng", "pm", "query.completed", "r-1", []byte(data), clk.now(), time.Hour)
	if err := db.Write(context.Background(), func(tx *store.Tx) error { return tx.EnqueueOutbox(e) }); err != nil {
		t.Fatal(err)
	}
	return clk, db
}

// A failed delivery is retried after the back-off (1 s, then 2 s), the
// failure is reported, and once the peer acknowledges the entry is done.
func TestDeliverRetriesWithBackoffThenDelivers(t *testing.T) {
	clk, db := queuedNotify(t, `{"summary":"75%"}`)
	ctx := context.Background()
	peerUp, failures := false, 0
	o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: clk.now,
		Config: func() config.Outbox {
			return config.Outbox{InitialBackoffMS: 1000, MaxBackoffMS: 60000, ExpirySec: 3600}
		},
		Send: func(ctx context.Context, got store.OutboxRecord) error {
			if got.ID != "n-1" || got.To != "pm" {
				t.Errorf("sent %+v", got)
			}
			if !peerUp {
				return errors.New("connection refused")
			}
			return nil
		},
		Failed: func(ctx context.Context, e store.OutboxRecord, err error) { failures++ },
	})
	for attempt, wait := range []time.Duration{time.Second, 2 * time.Second} {
		due, _ := db.DueOutbox(ctx, clk.now(), 10)
		if len(due) != 1 || o.Deliver(ctx, due[0]) == nil {
			t.Fatalf("attempt %d: due %d, want one failed delivery", attempt, len(due))
		}
		next, ok, _ := db.NextOutboxAt(ctx)
		if !ok || !next.Equal(clk.now().Add(wait)) {
			t.Fatalf("attempt %d: next try at %v, want %v later", attempt, next, wait)
		}
		clk.add(wait)
	}
	if failures != 2 {
		t.Fatalf("%d failures reported, want 2", failures)
	}
	peerUp = true
	due, _ := db.DueOutbox(ctx, clk.now(), 10)
	if len(due) != 1 || o.Deliver(ctx, due[0]) != nil {
		t.Fatal("delivery to the peer that came back failed")
	}
	if _, ok, _ := db.NextOutboxAt(ctx); ok {
		t.Fatal("a delivered entry is still queued")
	}
}

// fakeClockStore opens a store whose clock is a backoff.Fake, the clock
// Run waits on in these tests.
func fakeClockStore(t *testing.T) (*backoff.Fake, *store.DB) {
	t.Helper()
	fake := backoff.NewFake(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	db, err := store.Open(filepath.Join(t.TempDir(), "aoi.db"), store.WithClock(fake.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return fake, db
}

// Run retries an entry when its back-off has passed on its clock, not
// before, and stops with its context: no test waits for real time.
func TestRunRetriesOnItsClock(t *testing.T) {
	fake, db := fakeClockStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := Notify("n-1", "eng", "pm", "query.completed", "r-1", []byte(`{}`), fake.Now(), time.Hour)
	if err := db.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueOutbox(e) }); err != nil {
		t.Fatal(err)
	}
	attempts := make(chan int, 4)
	n := 0
	o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: fake.Now, Clock: fake,
		Config: func() config.Outbox {
			return config.Outbox{InitialBackoffMS: 1000, MaxBackoffMS: 60000, ExpirySec: 3600}
		},
		Send: func(context.Context, store.OutboxRecord) error {
			n++
			attempts <- n
			if n == 1 {
				return errors.New("connection refused")
			}
			return nil
		},
		Failed: func(context.Context, store.OutboxRecord, error) {},
	})
	done := make(chan struct{})
	go func() { defer close(done); o.Run(ctx) }()

	wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	next := func() int {
		select {
		case a := <-attempts:
			return a
		case <-wait.Done():
			t.Fatal("no delivery attempt")
			return 0
		}
	}
	if a := next(); a != 1 {
		t.Fatalf("attempt %d first", a)
	}
	fake.Waiting(wait)
	fake.Advance(999 * time.Millisecond)
	fake.Waiting(wait) // woken early or not at all, it waits again
	select {
	case a := <-attempts:
		t.Fatalf("attempt %d before the 1 s back-off had passed", a)
	default:
	}
	fake.Advance(time.Millisecond)
	if a := next(); a != 2 {
		t.Fatalf("attempt %d second", a)
	}
	// The turn marks the entry delivered after Send returns, on its own
	// goroutine: give it a moment.
	for deadline := time.Now().Add(5 * time.Second); ; {
		if _, ok, _ := db.NextOutboxAt(ctx); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a delivered entry is still queued")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-wait.Done():
		t.Fatal("Run did not stop with its context")
	}
}

// TestRefusalWaitsLonger: an entry the peer refused is tried again after
// ten caps of the back-off (the walk's refused message was retried, and
// refused and audited, every minute for a day); one the peer was busy for
// after the usual back-off.
func TestRefusalWaitsLonger(t *testing.T) {
	for _, c := range []struct {
		answer error
		wait   time.Duration
	}{{rpc.PermissionDenied("no messages rule", nil), 10 * time.Second}, {rpc.AgentBusy("busy", 0), time.Second}} {
		clk, db := queuedNotify(t, `{}`)
		ctx := context.Background()
		o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: clk.now,
			Config: func() config.Outbox {
				return config.Outbox{InitialBackoffMS: 1000, MaxBackoffMS: 1000, ExpirySec: 3600}
			},
			Send: func(context.Context, store.OutboxRecord) error { return c.answer }})
		due, _ := db.DueOutbox(ctx, clk.now(), 10)
		o.Deliver(ctx, due[0])
		got, _, _ := db.Outbox(ctx, due[0].ID)
		if wait := got.NextAttemptAt.Sub(clk.now()); wait != c.wait {
			t.Errorf("after %v the next try is in %v, want %v", c.answer, wait, c.wait)
		}
	}
}

// TestRefusalIsToldOnce: a peer that answers with a refusal is reported
// once per entry, however it words later refusals and whatever attempts in
// between meet (a hostile peer must not ring the owner at every retry);
// the entry stays queued and counted as refused.
func TestRefusalIsToldOnce(t *testing.T) {
	clk, db := queuedNotify(t, `{}`)
	ctx := context.Background()
	answers := []error{
		rpc.PermissionDenied("no messages rule SECRET "+strings.Repeat("W", 8000), nil),
		errors.New("connection refused"),
		rpc.PermissionDenied("a new wording each time", nil),
		rpc.InvalidParams("and another"),
	}
	told := 0
	o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: clk.now,
		Config: func() config.Outbox {
			return config.Outbox{InitialBackoffMS: 1000, MaxBackoffMS: 1000, ExpirySec: 3600}
		},
		Send: func(context.Context, store.OutboxRecord) error { return answers[0] },
		// A stand-in for the core's redactor (agent/redact), which this
		// package does not know.
		Redact: func(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED]") },
		Refused: func(_ context.Context, got store.OutboxRecord, err error) {
			told++
		},
	})
	for len(answers) > 0 {
		due, err := db.DueOutbox(ctx, clk.now(), 10)
		if err != nil || len(due) != 1 {
			t.Fatalf("due = %v, %v", due, err)
		}
		o.Deliver(ctx, due[0])
		answers = answers[1:]
		clk.add(11 * time.Second) // a refusal waits 10 caps of the back-off
	}
	if told != 1 {
		t.Errorf("the owner was told %d times, want once", told)
	}
	// What was kept of a refusal was cut and redacted.
	answers = []error{rpc.PermissionDenied("SECRET "+strings.Repeat("W", 8000), nil)}
	due, _ := db.DueOutbox(ctx, clk.now(), 10)
	o.Deliver(ctx, due[0])
	kept, _ := db.OutboxForAgent(ctx, "pm")
	if len(kept) != 1 || len(kept[0].LastError) > maxWhy+8 || strings.Contains(kept[0].LastError, "SECRET") {
		t.Errorf("kept %d bytes of why: %.60q…", len(kept[0].LastError), kept[0].LastError)
	}
	if n, err := db.RefusedOutbox(ctx); err != nil || n != 1 {
		t.Errorf("RefusedOutbox = %d, %v; want the entry counted", n, err)
	}
}

// TestStallingPeerDelaysOnlyItself: a peer that holds every delivery
// until its timeout, with hundreds of entries due, neither fills the
// round nor holds up another peer's entry, and its first failure ends its
// turn (the rest wait for the next round, not one timeout each).
func TestStallingPeerDelaysOnlyItself(t *testing.T) {
	clk, db := queuedNotify(t, `{"summary":"first"}`) // n-1, to pm
	ctx := context.Background()
	err := db.Write(ctx, func(tx *store.Tx) error {
		for i := range 300 {
			e := Notify(fmt.Sprintf("flood-%03d", i), "eng", "pm", "query.completed", "r", []byte(`{}`), clk.now(), time.Hour)
			if err := tx.EnqueueOutbox(e); err != nil {
				return err
			}
		}
		// Queued last, due last.
		e := Notify("good-1", "eng", "good", "query.completed", "r", []byte(`{}`), clk.now().Add(time.Millisecond), time.Hour)
		return tx.EnqueueOutbox(e)
	})
	if err != nil {
		t.Fatal(err)
	}
	clk.add(time.Second)
	release := make(chan struct{})
	var mu sync.Mutex
	var sent []string
	o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: clk.now,
		Config: func() config.Outbox {
			return config.Outbox{InitialBackoffMS: 1000, MaxBackoffMS: 60000, ExpirySec: 3600}
		},
		Send: func(ctx context.Context, e store.OutboxRecord) error {
			mu.Lock()
			sent = append(sent, e.ID)
			mu.Unlock()
			if e.To == "pm" {
				<-release // the tarpit: no answer until its timeout
				return errors.New("context deadline exceeded")
			}
			close(release) // good is served while pm still stalls
			return nil
		},
	})
	done := make(chan struct{})
	go func() { o.deliverDue(ctx); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("good's entry waited behind the stalling peer")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) != 2 || !slices.Contains(sent, "good-1") {
		t.Fatalf("sent %v; want good's entry and one of pm's (its failure ends its turn)", sent)
	}
}

// TestRunDoesNotWaitForAStalledPeer: with one peer's delivery held (a
// tarpit), an entry for another peer queued afterwards is delivered at
// once, not after the stalled call ends.
func TestRunDoesNotWaitForAStalledPeer(t *testing.T) {
	clk, db := queuedNotify(t, `{"summary":"first"}`) // n-1, to pm
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	delivered := make(chan string, 4)
	o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: clk.now,
		Config: func() config.Outbox {
			return config.Outbox{InitialBackoffMS: 1000, MaxBackoffMS: 60000, ExpirySec: 3600}
		},
		Send: func(ctx context.Context, e store.OutboxRecord) error {
			if e.To == "pm" {
				select { // the tarpit: no answer until the test ends
				case <-release:
				case <-ctx.Done():
				}
				return errors.New("context deadline exceeded")
			}
			delivered <- e.ID
			return nil
		},
	})
	done := make(chan struct{})
	go func() { defer close(done); o.Run(ctx) }()
	defer func() { close(release); cancel(); <-done }()
	time.Sleep(50 * time.Millisecond) // pm's turn is under way and stalls
	good := Notify("good-1", "eng", "good", "query.completed", "r", []byte(`{}`), clk.now(), time.Hour)
	if err := db.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueOutbox(good) }); err != nil {
		t.Fatal(err)
	}
	o.Wake()
	select {
	case id := <-delivered:
		if id != "good-1" {
			t.Fatalf("delivered %s", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("good's entry waited behind the stalled peer")
	}
}

// TestNinthPeerIsNotHeldByEightStalling: eight peers whose calls stall
// until their timeout take every slot; a ninth peer's entry, which its
// peer would answer at once, goes out once those turns are presumed
// stalled (stalledAfter), not after the stalls end.
func TestNinthPeerIsNotHeldByEightStalling(t *testing.T) {
	clk, db := queuedNotify(t, `{"summary":"first"}`) // n-1, to pm: a staller too
	ctx, cancel := context.WithCancel(context.Background())
	err := db.Write(ctx, func(tx *store.Tx) error {
		for i := range peersAtOnce - 1 {
			e := Notify(fmt.Sprintf("s-%d", i), "eng", fmt.Sprintf("stall-%d", i), "query.completed", "r", []byte(`{}`), clk.now(), time.Hour)
			if err := tx.EnqueueOutbox(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var stalled sync.WaitGroup
	stalled.Add(peersAtOnce)
	delivered := make(chan string, 1)
	o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: clk.now,
		Config: func() config.Outbox {
			return config.Outbox{InitialBackoffMS: 1000, MaxBackoffMS: 60000, ExpirySec: 3600}
		},
		Send: func(ctx context.Context, e store.OutboxRecord) error {
			if e.To != "good" {
				stalled.Done()
				select { // the tarpit: no answer until the test ends
				case <-release:
				case <-ctx.Done():
				}
				return errors.New("context deadline exceeded")
			}
			delivered <- e.ID
			return nil
		},
	})
	done := make(chan struct{})
	go func() { defer close(done); o.Run(ctx) }()
	defer func() { close(release); cancel(); <-done }()
	stalled.Wait() // every slot is held by a stalling peer
	good := Notify("good-1", "eng", "good", "query.completed", "r", []byte(`{}`), clk.now(), time.Hour)
	if err := db.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueOutbox(good) }); err != nil {
		t.Fatal(err)
	}
	o.Wake()
	select {
	case id := <-delivered:
		if id != "good-1" {
			t.Fatalf("delivered %s", id)
		}
	case <-time.After(8 * time.Second): // stalledAfter, then the loop's 1 s retry
		t.Fatal("the ninth peer's entry waited behind eight stalling peers")
	}
}

// TestStalledTurnsStayBounded: stalled turns free their slot but not
// without limit: with maxTurns turns under way, however old, no peer gets
// another.
func TestStalledTurnsStayBounded(t *testing.T) {
	o := New(Outbox{})
	old := time.Now().Add(-time.Hour)
	for i := range maxTurns - 1 {
		o.t.busy[fmt.Sprintf("stall-%d", i)] = old
	}
	if !o.claim("good") {
		t.Fatalf("with %d stalled turns a new peer should get a turn", maxTurns-1)
	}
	if o.claim("another") {
		t.Fatalf("a turn beyond maxTurns (%d) was given", maxTurns)
	}
	if o.claim("good") {
		t.Fatal("a peer already in a turn got a second")
	}
}

// TestPeerBackDeliversWithoutWaitingOutTheBackOff: an entry backed off
// while its peer was away goes as soon as the peer is seen again (the
// walk's question waited up to a minute after its peer showed online),
// with no clock moving; a peer that is not back still waits.
func TestPeerBackDeliversWithoutWaitingOutTheBackOff(t *testing.T) {
	fake, db := fakeClockStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, to := range []string{"pm", "qa"} {
		e := Notify("n-"+to, "eng", to, "query.completed", "r-"+to, []byte(`{}`), fake.Now(), time.Hour)
		if err := db.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueOutbox(e) }); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	up := map[string]bool{}
	sent := make(chan string, 8)
	o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: fake.Now, Clock: fake,
		Config: func() config.Outbox {
			return config.Outbox{InitialBackoffMS: 30000, MaxBackoffMS: 60000, ExpirySec: 3600}
		},
		Send: func(_ context.Context, e store.OutboxRecord) error {
			mu.Lock()
			defer mu.Unlock()
			if !up[e.To] {
				return errors.New("connection refused")
			}
			sent <- e.To
			return nil
		},
		Failed: func(context.Context, store.OutboxRecord, error) {},
	})
	o.deliverDue(ctx) // both away: each entry now waits 30 s or more
	go o.Run(ctx)
	wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	fake.Waiting(wait)
	mu.Lock()
	up["pm"], up["qa"] = true, true
	mu.Unlock()
	o.PeerBack("pm")
	select {
	case to := <-sent:
		if to != "pm" {
			t.Fatalf("delivered to %s, want pm (the peer seen back)", to)
		}
	case <-wait.Done():
		t.Fatal("pm was seen back, but what waited for it was not sent before its back-off ended")
	}
	select {
	case to := <-sent:
		t.Fatalf("delivered to %s, which nobody saw come back, before its back-off ended", to)
	case <-time.After(200 * time.Millisecond):
	}
}

// RetryNow tries an entry at once, whatever its back-off, but not while a
// delivery turn to its peer is under way (that turn tries it), and names
// an id nothing waits under.
func TestRetryNowTriesOneEntryAtOnce(t *testing.T) {
	clk, db := queuedNotify(t, `{"summary":"75%"}`)
	ctx := context.Background()
	sent := 0
	o := New(Outbox{DB: db, Log: slog.New(slog.DiscardHandler), Now: clk.now,
		Config: func() config.Outbox {
			return config.Outbox{InitialBackoffMS: 60000, MaxBackoffMS: 600000, ExpirySec: 3600}
		},
		Send: func(context.Context, store.OutboxRecord) error { sent++; return nil },
	})
	if !o.claim("pm") {
		t.Fatal("claim pm")
	}
	if _, err := o.RetryNow(ctx, "n-1"); !errors.Is(err, ErrInTurn) || sent != 0 {
		t.Fatalf("RetryNow during pm's turn = %v after %d sends; want ErrInTurn, none", err, sent)
	}
	o.release("pm")
	if e, err := o.RetryNow(ctx, "n-1"); err != nil || e.To != "pm" || sent != 1 {
		t.Fatalf("RetryNow = %+v, %v after %d sends; want delivered to pm once", e, err, sent)
	}
	if _, err := o.RetryNow(ctx, "n-1"); !errors.Is(err, ErrNotWaiting) {
		t.Errorf("RetryNow of a delivered entry = %v; want ErrNotWaiting", err)
	}
}

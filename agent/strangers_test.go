package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestStrangersDoNotFloodTheAudit: pings from 200 unpinned certificates,
// a fresh one each time (the attack run's case), all refused; the audit log
// gains a counted summary per source, not a row per request, and the chain
// still verifies.
func TestStrangersDoNotFloodTheAudit(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	before, err := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	const pings = 200
	refused := 0
	for i := 0; i < pings; i++ {
		id, _, err := rpc.LoadOrCreateIdentity(filepath.Join(t.TempDir(), strconv.Itoa(i)), "stranger")
		if err != nil {
			t.Fatal(err)
		}
		tr := rpc.NewDirectTransport(id, "127.0.0.1:0")
		c := rpc.NewClient("https://"+eng.Addr()+rpc.Path, tr.HTTPClient(eng.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
		if err := c.Call(ctx, wire.MethodPing, map[string]any{}, nil); err != nil {
			refused++
		}
		tr.Close()
	}
	if refused != pings {
		t.Fatalf("%d of %d stranger pings refused", refused, pings)
	}
	after, err := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if added := len(after) - len(before); added > 3 {
		t.Fatalf("%d pings from strangers added %d audit rows, want a counted summary", pings, added)
	}
	// The refusals are found by their name or by the label the interface
	// shows (aoi audit --result denied, as the RESULT column reads).
	byName, err := eng.Audit(ctx, agent.AuditFilter{Result: "PERMISSION_DENIED", Limit: 1000})
	if err != nil || len(byName) == 0 {
		t.Fatalf("refusals by name: %d rows, %v", len(byName), err)
	}
	if byLabel, err := eng.Audit(ctx, agent.AuditFilter{Result: "Denied", Limit: 1000}); err != nil || len(byLabel) != len(byName) {
		t.Fatalf("refusals by label: %d rows (%v); by name %d", len(byLabel), err, len(byName))
	}
	// Refused on the certificate alone, the request's method was never
	// read: the row says so instead of leaving the method empty.
	for _, r := range byName {
		if r.Method != "request.refused" {
			t.Errorf("a stranger's refusal is audited with method %q, want request.refused", r.Method)
		}
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit chain: %+v %v", v, err)
	}
}

// TestRateLimitedPeerDoesNotFloodTheAudit: a pinned peer far over its rate
// limit is refused, and its refusals are audited as a counted row (with
// refusals_since_last_row), not a row each; the calls it was allowed are
// audited one by one as always. Each refusal is held up to a second before
// it is sent (rpc holdRefusal), so the flood comes from many connections
// at once, as a peer's would.
func TestRateLimitedPeerDoesNotFloodTheAudit(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Limits.RatePerSec, c.Limits.Burst = 0.05, 2
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	before, err := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	client := rawClient(t, pm, eng)
	const workers, pings = 30, 300
	var limitedCount atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range pings / workers {
				err := client.Call(ctx, wire.MethodPing, wire.PingParams{From: "pm-tanaka"}, new(json.RawMessage))
				if e := (*rpc.Error)(nil); errors.As(err, &e) && e.Code == rpc.CodeRateLimit {
					limitedCount.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	limited := int(limitedCount.Load())
	if limited < pings-5 {
		t.Fatalf("%d of %d pings at 0.05/s were rate limited", limited, pings)
	}
	after, err := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	added := after[:len(after)-len(before)]
	if allowed := pings - limited; len(added) > allowed+3 {
		t.Fatalf("%d refused pings from a pinned peer added %d audit rows, want a counted summary", limited, len(added))
	}
	counted := 0
	for _, r := range added {
		var d map[string]any
		if json.Unmarshal(r.Detail, &d) == nil && r.Result == "RATE_LIMIT" {
			n, _ := d["refusals_since_last_row"].(float64)
			counted += 1 + int(n)
		}
	}
	if counted < 1 {
		t.Fatalf("no rate-limited row in %+v", added)
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit chain: %+v %v", v, err)
	}
}

// stranger makes an identity eng has not pinned and returns it with a
// function that pings eng from it n times, failing the test if a ping is
// answered.
func stranger(ctx context.Context, t *testing.T, eng *testAgent) (*rpc.Identity, func(n int)) {
	t.Helper()
	id, _, err := rpc.LoadOrCreateIdentity(filepath.Join(t.TempDir(), "stranger"), "stranger")
	if err != nil {
		t.Fatal(err)
	}
	tr := rpc.NewDirectTransport(id, "127.0.0.1:0")
	t.Cleanup(func() { tr.Close() })
	c := rpc.NewClient("https://"+eng.Addr()+rpc.Path, tr.HTTPClient(eng.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
	return id, func(n int) {
		for range n {
			if err := c.Call(ctx, wire.MethodPing, map[string]any{}, nil); err == nil {
				t.Fatal("an unpinned caller's ping was answered")
			}
		}
	}
}

// TestRefusedCallerRingsNoMore: an unpinned caller that keeps calling (as
// discovery does, once a minute) asks the owner once, not at every call;
// once the owner refuses it, its calls (still refused) ring nobody and it
// leaves the peers list.
func TestRefusedCallerRingsNoMore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	eng := newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	events, err := eng.Events(ctx, agent.EventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	id, ping := stranger(ctx, t, eng)
	// asks counts the trust requests the owner heard of until the focus
	// change that follows them (events arrive in order).
	asks := func(on bool) int {
		if err := eng.SetFocus(ctx, agent.FocusRequest{On: on}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			select {
			case ev := <-events:
				switch ev.Kind {
				case agent.EventTrustRequested:
					n++
				case agent.EventFocusChanged:
					return n
				}
			case <-ctx.Done():
				t.Fatal("no focus.changed event")
			}
		}
	}
	pending := func() int {
		peers, err := eng.Peers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range peers {
			if p.Trust == agent.TrustPending && p.Fingerprint == id.Fingerprint {
				n++
			}
		}
		return n
	}
	ping(3)
	if n := asks(true); n != 1 || pending() != 1 {
		t.Fatalf("3 calls from one stranger: the owner heard %d times, %d pending rows; want once, 1", n, pending())
	}
	if err := eng.Refuse(ctx, agent.RefuseRequest{Fingerprint: id.Fingerprint}); err != nil {
		t.Fatal(err)
	}
	ping(3)
	if n := asks(false); n != 0 || pending() != 0 {
		t.Fatalf("after refusing: the owner heard %d more times, %d pending rows; want none", n, pending())
	}
}

// TestPendingCallerRefreshesPeersList: a stranger that keeps calling rings
// the owner once, but its row in the front ends' Peers list ("last seen")
// is refreshed by a peer.changed event at most once a minute.
func TestPendingCallerRefreshesPeersList(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	clk := backoff.NewFake(time.Now())
	eng := agenttest.Start(t, "eng-suzuki", agenttest.Options{Role: "engineer", Edit: engConfig, Clock: clk})
	events, err := eng.Events(ctx, agent.EventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	id, ping := stranger(ctx, t, eng)
	// seen counts the trust requests and the refreshes of the stranger's
	// row until the focus change that follows them (events arrive in order).
	seen := func(on bool) (asked, refreshed int) {
		if err := eng.SetFocus(ctx, agent.FocusRequest{On: on}); err != nil {
			t.Fatal(err)
		}
		for {
			select {
			case ev := <-events:
				switch {
				case ev.Kind == agent.EventTrustRequested:
					asked++
				case ev.Kind == agent.EventPeerChanged && ev.ID == id.Fingerprint:
					refreshed++
				case ev.Kind == agent.EventFocusChanged:
					return asked, refreshed
				}
			case <-ctx.Done():
				t.Fatal("no focus.changed event")
			}
		}
	}
	ping(3)
	if asked, refreshed := seen(true); asked != 1 || refreshed != 0 {
		t.Fatalf("3 calls within a minute: %d trust requests, %d refreshes; want 1, 0", asked, refreshed)
	}
	clk.Advance(61 * time.Second)
	ping(3)
	if asked, refreshed := seen(false); asked != 0 || refreshed != 1 {
		t.Fatalf("3 more calls a minute later: %d trust requests, %d refreshes; want 0, 1", asked, refreshed)
	}
}

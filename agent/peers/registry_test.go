package peers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// testRegistry is a Registry over a real SQLite store and a real direct
// transport, recording what it publishes and how often it wakes the outbox.
type testRegistry struct {
	*Registry
	mu        sync.Mutex
	published []string
	woke      int
}

func newTestRegistry(t *testing.T) *testRegistry {
	t.Helper()
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "aoi.db"), store.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	id, _, err := rpc.LoadOrCreateIdentity(filepath.Join(dir, "tls"), "eng")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default("eng", "engineer", "")
	tr := &testRegistry{}
	tr.Registry = &Registry{DB: db, Transport: rpc.NewDirectTransport(id, "127.0.0.1:0"),
		Config: func() *config.Config { return cfg }, Now: clock, Log: slog.New(slog.DiscardHandler),
		Announcement: func(string) wire.DiscoverParams { return wire.DiscoverParams{AgentID: "eng", Announce: true} },
		Publish: func(kind, id, agent, summary string) {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.published = append(tr.published, kind+" "+id+" "+summary)
		},
		Wake: func(string) { tr.mu.Lock(); tr.woke++; tr.mu.Unlock() },
	}
	return tr
}

func (tr *testRegistry) events() ([]string, int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.published...), tr.woke
}

func find(t *testing.T, r *Registry, agentID, fingerprint string) Peer {
	t.Helper()
	list, err := r.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if (agentID != "" && p.AgentID == agentID) || (fingerprint != "" && p.Fingerprint == fingerprint) {
			return p
		}
	}
	t.Fatalf("no peer %q/%q in %+v", agentID, fingerprint, list)
	return Peer{}
}

// An unpinned caller is refused and becomes a trust request; once the owner
// trusts it, the same caller is let in as that agent and shown online, and
// its coming back wakes the outbox.
func TestUnpinnedCallerBecomesTrustRequestThenPeer(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	fp := strings.Repeat("ab", 32)
	caller := rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: "127.0.0.1:50000", AnnouncedID: "pm"}

	// The refusal gives the command that pins the caller, with the id it
	// announced.
	if _, err := tr.Authenticate(ctx, caller); !errors.Is(err, errs.ErrDenied) || !strings.Contains(err.Error(), "`aoi peers trust pm "+fp+"`") {
		t.Fatalf("unpinned caller: got %v, want ErrDenied naming `aoi peers trust pm FP`", err)
	}
	// It announced no endpoint: its outgoing port is where it called
	// from, not an endpoint to pin.
	if p := find(t, tr.Registry, "", fp); p.Trust != Pending || p.AgentID != "pm" || p.Endpoint != "" || p.Source != caller.Addr {
		t.Fatalf("trust request shown as %+v, want pending pm, no endpoint, calling from %s", p, caller.Addr)
	}
	announced := caller
	announced.AnnouncedEndpoint = "127.0.0.1:8444"
	if _, err := tr.Authenticate(ctx, announced); err == nil || !strings.Contains(err.Error(), fp+" --endpoint 127.0.0.1:8444`") {
		t.Fatalf("a caller that announced its endpoint: %v, want --endpoint in the command", err)
	}
	if pub, _ := tr.events(); len(pub) != 2 || !strings.HasPrefix(pub[0], events.TrustRequested) || !strings.HasPrefix(pub[1], events.Attention) ||
		!strings.HasSuffix(pub[1], "a new peer, pm, asks to be trusted") {
		t.Fatalf("published %v, want trust requested then attention naming pm", pub)
	}

	if err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: "not-hex"}); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("bad fingerprint: got %v, want ErrInvalid", err)
	}
	// An endpoint the peer could never be called on is refused, not pinned.
	for _, ep := range []string{"18443", "127.0.0.1", ":8443", "127.0.0.1:99999"} {
		err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: fp, Endpoint: ep})
		if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "is not HOST:PORT") {
			t.Errorf("endpoint %q: got %v, want ErrInvalid naming HOST:PORT", ep, err)
		}
	}
	if err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: fp, Role: "pm"}); err != nil {
		t.Fatal(err)
	}
	if p := find(t, tr.Registry, "pm", ""); p.Trust != Pinned || p.Status != Offline || p.Role != "pm" {
		t.Fatalf("after trust: %+v, want pinned, offline, role pm", p)
	}
	got, err := tr.Authenticate(ctx, caller)
	if err != nil || got.AgentID != "pm" {
		t.Fatalf("pinned caller: got %+v, %v; want agent pm", got, err)
	}
	if p := find(t, tr.Registry, "pm", ""); p.Status != Online {
		t.Fatalf("a pinned caller is shown %s, want online", p.Status)
	}
	if agentID, role, ok := tr.CachedCaller(caller.Key()); !ok || agentID != "pm" || role != "pm" {
		t.Fatalf("cached caller %q %q %v, want pm pm", agentID, role, ok)
	}
	if pub, woke := tr.events(); woke != 1 || pub[len(pub)-1] != events.PeerChanged+" pm online" {
		t.Fatalf("published %v, woke %d; want pm online last and one wake", pub, woke)
	}
	tr.Forget("pm")
	if _, _, ok := tr.CachedCaller(caller.Key()); ok {
		t.Fatal("Forget kept the cached caller")
	}
}

// A call that nobody answers shows the peer offline at once and says it is
// unreachable; names that are not peers are refused with their kinds.
func TestFailedCallShowsPeerOffline(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there now
	if err := tr.Trust(ctx, TrustRequest{AgentID: "qa", Fingerprint: strings.Repeat("cd", 32), Endpoint: closed}); err != nil {
		t.Fatal(err)
	}
	if err := tr.MarkSeen(ctx, "qa"); err != nil {
		t.Fatal(err)
	}
	if p := find(t, tr.Registry, "qa", ""); p.Status != Online {
		t.Fatalf("after MarkSeen: %s, want online", p.Status)
	}
	cl, err := tr.Client(ctx, "qa")
	if err != nil {
		t.Fatal(err)
	}
	callErr := cl.Call(ctx, wire.MethodPing, wire.PingParams{From: "eng"}, nil)
	if callErr == nil {
		t.Fatal("a call to a closed port succeeded")
	}
	if err := tr.Failed(ctx, "qa", callErr); !strings.Contains(err.Error(), "qa is unreachable") {
		t.Fatalf("Failed said %q, want it to say qa is unreachable", err)
	}
	if p := find(t, tr.Registry, "qa", ""); p.Status != Offline {
		t.Fatalf("after a failed call: %s, want offline", p.Status)
	}

	for _, c := range []struct {
		id   string
		kind error
	}{{"eng", errs.ErrInvalid}, {"Bad Id", errs.ErrInvalid}, {"nobody", errs.ErrUnknownPeer}} {
		if _, err := tr.Client(ctx, c.id); !errors.Is(err, c.kind) {
			t.Errorf("Client(%q) = %v, want %v", c.id, err, c.kind)
		}
	}
}

// finderTransport is a real direct transport that also lists candidate
// peers (as the tailnet does), counting the rounds that ask it.
type finderTransport struct {
	rpc.Transport
	rounds chan struct{}
}

func (f *finderTransport) FindPeers(context.Context) ([]string, error) {
	f.rounds <- struct{}{}
	return nil, nil
}

// The heartbeat runs a round at once and then one each discovery
// interval on its clock, and stops when its context ends.
func TestHeartbeatRunsARoundEachInterval(t *testing.T) {
	tr := newTestRegistry(t)
	ft := &finderTransport{Transport: tr.Transport, rounds: make(chan struct{}, 8)}
	tr.Transport = ft
	clock := backoff.NewFake(tr.Now())
	tr.Clock = clock
	interval := tr.Config().Network.DiscoveryInterval()
	if interval <= 0 {
		t.Fatalf("discovery interval %v", interval)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); tr.Heartbeat(ctx) }()

	wait, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	for round := 1; round <= 3; round++ {
		select {
		case <-ft.rounds:
		case <-wait.Done():
			t.Fatalf("round %d did not run", round)
		}
		if clock.Waiting(wait) != 1 {
			t.Fatalf("after round %d the heartbeat is not waiting on its clock", round)
		}
		clock.Advance(interval - time.Second)
		select {
		case <-ft.rounds:
			t.Fatalf("round %d ran before the interval had passed", round+1)
		default:
		}
		clock.Advance(time.Second)
	}
	cancel()
	select {
	case <-done:
	case <-wait.Done():
		t.Fatal("the heartbeat did not stop with its context")
	}
}

// TestCallErrorWords: a cancelled call says so and blames no one; a peer
// nothing answered for is unreachable; a peer's own error is its answer.
func TestCallErrorWords(t *testing.T) {
	cancelled := &rpc.TransportError{URL: "https://127.0.0.1:1/aoi/v1/rpc", Method: "aoi.query", Err: context.Canceled}
	if got := CallError("pm-a", cancelled).Error(); !strings.Contains(got, "was cancelled") || strings.Contains(got, "unreachable") {
		t.Errorf("cancelled call: %q", got)
	}
	if Unreachable(cancelled) {
		t.Error("a cancelled call marked the peer unreachable")
	}
	refused := &rpc.TransportError{URL: "https://127.0.0.1:1/aoi/v1/rpc", Method: "aoi.query",
		Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}
	if got := CallError("pm-a", refused).Error(); !strings.Contains(got, "pm-a is unreachable") || strings.Count(got, "check ") != 1 {
		t.Errorf("refused call: %q, want unreachable and one piece of advice", got)
	}
	if got := CallError("pm-a", rpc.NewError(rpc.CodePermissionDenied, "no")).Error(); !strings.HasPrefix(got, "pm-a answered: ") {
		t.Errorf("peer error: %q", got)
	}
}

// TestCertificateMillIsNotListed: the attack run's flood — one source
// address presenting a fresh certificate each call gets at most
// maxNewcomersPerHost trust requests listed (every call is refused all the
// same), so the owner's list is not buried; another address still gets
// its request listed, and a listed caller calling again is still counted.
func TestCertificateMillIsNotListed(t *testing.T) {
	tr := newTestRegistry(t)
	call := func(i int, addr string) { strangerCalls(t, tr, i, addr) }
	for i := range 40 {
		call(i, "127.0.0.9:4000"+fmt.Sprint(i%10))
	}
	call(0, "127.0.0.9:40000") // listed already: still fine
	call(100, "127.0.0.10:50000")
	if pending := pendingCount(t, tr); pending != maxNewcomersPerHost+1 {
		t.Fatalf("%d pending trust requests listed, want %d from the mill and 1 from the other address", pending, maxNewcomersPerHost+1)
	}
	find(t, tr.Registry, "", fmt.Sprintf("%064x", 100))
}

// strangerCalls makes a call from an unknown certificate (the i-th
// fingerprint) at addr, which must be refused.
func strangerCalls(t *testing.T, tr *testRegistry, i int, addr string) {
	t.Helper()
	fp := fmt.Sprintf("%064x", i)
	if _, err := tr.Authenticate(context.Background(), rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: addr}); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("caller %d: got %v, want ErrDenied", i, err)
	}
}

// pendingCount is how many trust requests the registry lists.
func pendingCount(t *testing.T, tr *testRegistry) int {
	t.Helper()
	list, err := tr.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, p := range list {
		if p.Trust == Pending {
			pending++
		}
	}
	return pending
}

// TestCertificateMillRotatingIPv6AddressesIsOneSource: a host holds a
// whole /64, so a mill calling from a fresh address of it with each fresh
// certificate counted as a new source each time, and could fill the list
// (and the budget's table of sources). Its /64 is one source: it gets
// maxNewcomersPerHost listed, and a caller from the next /64 still one.
func TestCertificateMillRotatingIPv6AddressesIsOneSource(t *testing.T) {
	tr := newTestRegistry(t)
	call := func(i int, addr string) { strangerCalls(t, tr, i, addr) }
	for i := range 40 {
		call(i, fmt.Sprintf("[2001:db8:1:2:%x::%x]:40000", i, i+1))
	}
	call(100, "[2001:db8:1:3::1]:50000")
	if pending := pendingCount(t, tr); pending != maxNewcomersPerHost+1 {
		t.Fatalf("%d pending trust requests listed, want %d from the mill's /64 and 1 from the next", pending, maxNewcomersPerHost+1)
	}
	find(t, tr.Registry, "", fmt.Sprintf("%064x", 100))
}

// TestTrustDoesNotSilentlyReplaceAPin: the attack run's case — a stranger
// claims a pinned peer's id; trusting its certificate under that id is
// refused unless the owner says --replace, and a replaced pin does not
// carry the old certificate's role.
func TestTrustDoesNotSilentlyReplaceAPin(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	old, mill := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	if err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: old, Role: "pm"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: old, Role: "pm"}); err != nil {
		t.Fatalf("trusting the same certificate again: %v", err)
	}
	err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: mill})
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("pinning another certificate for pm: %v, want ErrInvalid naming --replace", err)
	}
	if p := find(t, tr.Registry, "pm", ""); p.Fingerprint != old || p.Role != "pm" {
		t.Fatalf("after the refused trust: %+v, want the old pin", p)
	}
	if err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: mill, Replace: true}); err != nil {
		t.Fatal(err)
	}
	if p := find(t, tr.Registry, "pm", ""); p.Fingerprint != mill || p.Role != "" {
		t.Fatalf("after --replace: %+v, want the new pin without the old role", p)
	}
}

// TestRefusePinnedPeerUntrustsIt: refusing a pinned peer's fingerprint
// removes the pin; its next call is refused and rings nobody (it is not
// listed as a new request), and trusting it again works. A peer the
// config's peers[] pins is refused with advice instead.
func TestRefusePinnedPeerUntrustsIt(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	fp := strings.Repeat("ab", 32)
	if err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: fp, Role: "pm"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Refuse(ctx, fp); err != nil {
		t.Fatal(err)
	}
	caller := rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: "127.0.0.1:50000", AnnouncedID: "pm"}
	if _, err := tr.Authenticate(ctx, caller); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("an untrusted peer's call: %v, want ErrDenied", err)
	}
	list, err := tr.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.Fingerprint == fp {
			t.Fatalf("the untrusted peer is still listed: %+v", p)
		}
	}
	if err := tr.Trust(ctx, TrustRequest{AgentID: "pm", Fingerprint: fp}); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Authenticate(ctx, caller); err != nil {
		t.Fatalf("trusted again: %v", err)
	}

	cfgFP := strings.Repeat("cd", 32)
	cfg := tr.Config()
	cfg.Peers = append(cfg.Peers, config.Peer{AgentID: "qa", Fingerprint: cfgFP, Endpoint: "127.0.0.1:9"})
	if _, err := tr.Seed(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := tr.Refuse(ctx, cfgFP); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "peers[]") {
		t.Fatalf("refusing a config-pinned peer: %v, want ErrInvalid naming peers[]", err)
	}
}

// TestLookupBeforeARefusalIsNotCached: a caller read from the registry
// before the caller cache was emptied (a refusal, a role taken away) is
// not cached when the lookup ends after it; the cache would let a refused
// peer in as itself until the next trust change.
func TestLookupBeforeARefusalIsNotCached(t *testing.T) {
	tr := newTestRegistry(t)
	since := tr.callerLookup()
	tr.Forget("pm") // the owner refuses pm while its lookup runs
	tr.rememberCaller(since, "fp:ab", "pm", "pm")
	if _, _, ok := tr.CachedCaller("fp:ab"); ok {
		t.Fatal("a lookup made before the refusal was cached after it")
	}
	tr.rememberCaller(tr.callerLookup(), "fp:ab", "pm", "pm")
	if id, _, ok := tr.CachedCaller("fp:ab"); !ok || id != "pm" {
		t.Fatalf("a lookup after it: cached %q %v, want pm", id, ok)
	}
}

// TestNewcomerBudgetDoesNotResetWhenFull: once the window has seen
// maxNewcomerHosts addresses, a new address waits for the next window
// instead of every address getting a fresh budget (the attack run used
// 900 one-off addresses to reset it).
func TestNewcomerBudgetDoesNotResetWhenFull(t *testing.T) {
	var b newcomerBudget
	now := time.Now()
	for i := range maxNewcomersPerHost {
		if !b.allow("127.0.0.1", fmt.Sprint(i), now) {
			t.Fatalf("listing %d from 127.0.0.1 refused", i)
		}
	}
	for i := range maxNewcomerHosts - 1 {
		b.allow(fmt.Sprintf("10.0.%d.%d", i/256, i%256), "x", now)
	}
	if b.allow("192.0.2.1", "y", now) {
		t.Error("a new address was let in with the host table full")
	}
	if b.allow("127.0.0.1", "again", now) {
		t.Error("127.0.0.1 got a fresh budget within the window")
	}
	if !b.allow("192.0.2.1", "y", now.Add(newcomerWindow)) {
		t.Error("the next window does not let a new address in")
	}
}

// TestConfigPeersFollowTheConfig: a peer pinned by peers[] loses its pin
// when taken out of the config (at a reload, or at a start after the file
// changed), and a new fingerprint or role there applies to the very next
// call, cached callers or not.
func TestConfigPeersFollowTheConfig(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	oldFP, newFP := strings.Repeat("cd", 32), strings.Repeat("ef", 32)
	callerWith := func(fp string) rpc.Caller {
		return rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: "127.0.0.1:50001"}
	}
	seed := func(peers ...config.Peer) {
		t.Helper()
		cfg := *tr.Config()
		cfg.Peers = peers
		if _, err := tr.Seed(ctx, &cfg); err != nil {
			t.Fatal(err)
		}
	}
	seed(config.Peer{AgentID: "evil", Fingerprint: oldFP, Role: "pm"})
	got, err := tr.Authenticate(ctx, callerWith(oldFP))
	if err != nil || got.AgentID != "evil" {
		t.Fatalf("config-pinned caller: %+v, %v", got, err)
	}
	if _, role, ok := tr.CachedCaller(callerWith(oldFP).Key()); !ok || role != "pm" {
		t.Fatalf("cached role %q %v, want pm", role, ok)
	}

	// A new role and a new certificate apply at once.
	seed(config.Peer{AgentID: "evil", Fingerprint: newFP, Role: "viewer"})
	if _, err := tr.Authenticate(ctx, callerWith(oldFP)); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("the replaced certificate is still let in: %v", err)
	}
	if got, err := tr.Authenticate(ctx, callerWith(newFP)); err != nil || got.AgentID != "evil" {
		t.Fatalf("the new certificate: %+v, %v", got, err)
	}
	if _, role, _ := tr.CachedCaller(callerWith(newFP).Key()); role != "viewer" {
		t.Fatalf("role after the change = %q, want viewer", role)
	}

	// Taken out of the config: unpinned, refused, and not rung for.
	rings := func() int {
		pub, _ := tr.events()
		return len(slices.DeleteFunc(pub, func(e string) bool { return !strings.HasPrefix(e, events.TrustRequested) }))
	}
	before := rings()
	seed()
	if _, err := tr.Authenticate(ctx, callerWith(newFP)); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("a peer removed from the config is still let in: %v", err)
	}
	list, err := tr.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.AgentID == "evil" || p.Fingerprint == newFP {
			t.Fatalf("removed peer still listed: %+v", p)
		}
	}
	if rings() != before {
		t.Errorf("the removed peer's call rang the owner")
	}
	rows, err := tr.DB.AuditList(ctx, store.AuditQuery{Method: "ctl.untrust", Limit: 5})
	if err != nil || len(rows) != 1 {
		t.Fatalf("ctl.untrust rows %+v, %v; want one", rows, err)
	}

	// Removed while aoi was stopped: the next start (a fresh registry on
	// the same database) unpins it.
	seed(config.Peer{AgentID: "qa", Fingerprint: oldFP})
	restarted := &Registry{DB: tr.DB, Transport: tr.Transport, Config: tr.Config, Now: tr.Now, Log: tr.Log,
		Announcement: tr.Announcement, Publish: tr.Publish, Wake: tr.Wake}
	if _, err := restarted.Seed(ctx, tr.Config()); err != nil {
		t.Fatal(err)
	}
	if _, err := restarted.Authenticate(ctx, callerWith(oldFP)); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("a peer removed while stopped is still let in: %v", err)
	}
}

// TestConfigFingerprintInCapitals: the config's schema takes a peer's
// fingerprint in capitals (as some tools print it); the peer is let in
// with its certificate all the same, and unpinned when the config drops it.
// The attack run's capitals were stored as written, and the peer the
// Peers list showed pinned was refused as a stranger at every call.
func TestConfigFingerprintInCapitals(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	fp := strings.Repeat("cd", 32)
	caller := rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: "127.0.0.1:50001"}
	cfg := *tr.Config()
	cfg.Peers = []config.Peer{{AgentID: "qa", Fingerprint: strings.ToUpper(fp), Role: "qa"}}
	if _, err := tr.Seed(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	if got, err := tr.Authenticate(ctx, caller); err != nil || got.AgentID != "qa" {
		t.Fatalf("the config-pinned peer: %+v, %v; want qa", got, err)
	}
	cfg.Peers = nil
	if _, err := tr.Seed(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Authenticate(ctx, caller); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("a peer taken out of the config is still let in: %v", err)
	}
}

// TestOwnIDIsNoPeers: no certificate is pinned under this agent's own id,
// and a caller claiming it is not offered under it. The attack run's
// stranger announced itself as eng, the owner's own id; trusted so, its
// calls were audited as eng's own and passed CheckFrom as eng.
func TestOwnIDIsNoPeers(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	fp := strings.Repeat("ab", 32)
	if err := tr.Trust(ctx, TrustRequest{AgentID: "eng", Fingerprint: fp}); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "own id") {
		t.Fatalf("trusting a certificate under the agent's own id: %v, want ErrInvalid naming its own id", err)
	}
	_, err := tr.Authenticate(ctx, rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: "127.0.0.1:50000", AnnouncedID: "eng"})
	if err == nil || strings.Contains(err.Error(), "trust eng ") || !strings.Contains(err.Error(), "trust <your-agent-id> "+fp) {
		t.Fatalf("a caller claiming the agent's own id: %v, want the command with a placeholder", err)
	}
	if p := find(t, tr.Registry, "", fp); p.AgentID == "eng" {
		t.Fatalf("its trust request is listed under the agent's own id: %+v", p)
	}
	if pub, _ := tr.events(); len(pub) != 2 || strings.Contains(pub[1], "eng") {
		t.Fatalf("published %v, want a notice that names no id", pub)
	}
}

// TestRefusingATrustRequestIsPublished: refusing a pending request (from
// the CLI too) tells an open interface, which drops its row and notice;
// the walk saw them stay after `aoi peers refuse`.
func TestRefusingATrustRequestIsPublished(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	fp := strings.Repeat("cd", 32)
	if _, err := tr.Authenticate(ctx, rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: "127.0.0.1:50000", AnnouncedID: "dev"}); err == nil {
		t.Fatal("an unpinned caller was let in")
	}
	before, _ := tr.events()
	if err := tr.Refuse(ctx, fp); err != nil {
		t.Fatal(err)
	}
	after, _ := tr.events()
	if len(after) != len(before)+1 || !strings.HasPrefix(after[len(after)-1], events.PeerChanged) {
		t.Fatalf("published %v after the refusal (before %v), want a peer change", after, before)
	}
}

// TestTrustRequestEndpointIsOnTheCallingHost: a caller that names another
// host than its own is offered (and would be pinned) at its own host with
// the port it announced, so trusting it from the interface cannot point
// this agent at a third machine (the re-check's 127.0.0.2 naming
// 127.0.0.1:18479 was pinned there).
func TestTrustRequestEndpointIsOnTheCallingHost(t *testing.T) {
	tr := newTestRegistry(t)
	ctx := context.Background()
	fp := strings.Repeat("ef", 32)
	caller := rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: "127.0.0.2:50000", AnnouncedID: "dev", AnnouncedEndpoint: "127.0.0.1:18479"}
	_, err := tr.Authenticate(ctx, caller)
	if err == nil || !strings.Contains(err.Error(), "--endpoint 127.0.0.2:18479`") {
		t.Fatalf("the refusal's command: %v, want --endpoint 127.0.0.2:18479", err)
	}
	if p := find(t, tr.Registry, "", fp); p.Endpoint != "127.0.0.2:18479" {
		t.Fatalf("trust request offered at %q, want 127.0.0.2:18479", p.Endpoint)
	}
}

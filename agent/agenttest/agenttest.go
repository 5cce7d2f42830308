// Package agenttest runs real cores for tests: a real SQLite file in a
// temporary data dir, real mutual TLS on 127.0.0.1 (or a transport the
// test gives, such as a tsnet node), a real control socket. It replaces the
// harnesses each package's tests used to copy, and their polling helpers.
package agenttest

import (
	"context"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
)

// Options shape one agent; zero values take the defaults.
type Options struct {
	// Role is the role its colleagues' owners give it when they pin it
	// (Pin, Pair) and the role written into its own config.
	Role string
	// Dir is the data dir (default: a fresh t.TempDir()).
	Dir string
	// Edit adjusts the config before the core starts.
	Edit func(*config.Config)
	// Transport replaces direct mutual TLS (e.g. a tsnet node).
	Transport rpc.Transport
	// StartTimeout bounds the wait for the core to listen (default 5 s).
	StartTimeout time.Duration
	// Clock is what the core's loops wait on and its time (default: the
	// wall clock). A backoff.Fake lets a test move the outbox's back-off,
	// the heartbeat, the audit watch and the task engine's ticks instead of
	// sleeping; it is kept across Restart.
	Clock backoff.Clock
}

// Agent is one real core under test. Its *agent.Core is the in-process
// Service.
type Agent struct {
	*agent.Core
	T          testing.TB
	ID         string
	Role       string
	Dir        string
	ConfigPath string
	opts       Options

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan error
	addr   string // where it last listened, kept across Stop for Restart
}

// New initialises a data dir for id, applies the test defaults (no
// periodic discovery: tests announce explicitly; outbox back-off 50–200 ms)
// and edit, and serves the core until the test ends.
func New(t testing.TB, id, role string, edit func(*config.Config)) *Agent {
	t.Helper()
	return Start(t, id, Options{Role: role, Edit: edit})
}

// Start is New with every option.
func Start(t testing.TB, id string, o Options) *Agent {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 5 * time.Second
	}
	res, err := agent.Init(agent.InitOptions{DataDir: o.Dir, AgentID: id, Role: o.Role, Owner: id, ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("init %s: %v", id, err)
	}
	a := &Agent{T: t, ID: id, Role: o.Role, Dir: o.Dir, ConfigPath: res.ConfigPath, opts: o}
	a.EditConfig(func(c *config.Config) {
		c.Network.DiscoveryIntervalSec = 3600 // tests announce explicitly
		c.Outbox.InitialBackoffMS, c.Outbox.MaxBackoffMS = 50, 200
		if o.Edit != nil {
			o.Edit(c)
		}
	})
	a.start()
	t.Cleanup(a.Stop)
	return a
}

// EditConfig rewrites the agent's config file (takes effect at the next
// start or reload).
func (a *Agent) EditConfig(edit func(*config.Config)) {
	a.T.Helper()
	cfg, err := config.Load(a.ConfigPath)
	if err != nil {
		a.T.Fatalf("load %s config: %v", a.ID, err)
	}
	edit(cfg)
	if err := config.Write(a.ConfigPath, cfg); err != nil {
		a.T.Fatal(err)
	}
}

// start opens the core and serves it until Stop.
func (a *Agent) start() {
	a.T.Helper()
	core, err := agent.Open(context.Background(), agent.Options{DataDir: a.Dir, ConfigPath: a.ConfigPath, Transport: a.opts.Transport,
		Clock: a.opts.Clock})
	if err != nil {
		a.T.Fatalf("open %s: %v", a.ID, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx) }()
	a.mu.Lock()
	a.Core, a.cancel, a.done = core, cancel, done
	a.mu.Unlock()
	select {
	case <-core.Listening():
	case err := <-done:
		done <- err // for Stop
		a.T.Fatalf("%s stopped before it listened: %v", a.ID, err)
	case <-time.After(a.opts.StartTimeout):
		a.T.Fatalf("%s did not listen within %s", a.ID, a.opts.StartTimeout)
	}
	// The core's first discovery round (at start, with no peers yet) must
	// be over before a test pins peers, or it announces to them: tests
	// that count announces rely on that.
	Eventually(a.T, a.opts.StartTimeout, a.ID+" first heartbeat round", func() bool { return core.HeartbeatRounds() > 0 })
	a.mu.Lock()
	a.addr = core.Addr()
	a.mu.Unlock()
}

// Stop shuts the core down and waits until it has let go of its port,
// socket and database (idempotent).
func (a *Agent) Stop() {
	a.mu.Lock()
	cancel, done := a.cancel, a.done
	a.cancel = nil
	a.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		a.T.Errorf("%s did not stop within 10s", a.ID)
	}
	a.Core.Close()
}

// Restart stops the core (if it runs) and starts it again on the same data
// dir and port, after edit (nil: none) changes its config.
func (a *Agent) Restart(edit func(*config.Config)) {
	a.T.Helper()
	a.Stop()
	a.mu.Lock()
	addr := a.addr
	a.mu.Unlock()
	a.EditConfig(func(c *config.Config) {
		c.Network.ListenAddr = addr
		if edit != nil {
			edit(c)
		}
	})
	a.start()
}

// Pin pins other in a's registry, with the role a's owner gives it.
func (a *Agent) Pin(other *Agent) {
	a.T.Helper()
	err := a.Trust(context.Background(), agent.TrustRequest{AgentID: other.ID, Fingerprint: other.Fingerprint(), Endpoint: other.Addr(), Role: other.Role})
	if err != nil {
		a.T.Fatalf("%s trusts %s: %v", a.ID, other.ID, err)
	}
}

// Pair makes two agents pin each other.
func Pair(a, b *Agent) { a.Pin(b); b.Pin(a) }

// Socket is the agent's control socket path.
func (a *Agent) Socket() string { return agent.SocketPath(a.Dir) }

// DBPath is the agent's database file.
func (a *Agent) DBPath() string { return filepath.Join(a.Dir, "aoi.db") }

// Eventually polls cond every 20 ms until it holds, failing the test with
// what once d has passed.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FreeAddr reserves a loopback port for an agent started later.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

package agent_test

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// testAgent is a real core: real SQLite file, real mutual TLS on 127.0.0.1,
// real control socket.
type testAgent struct {
	*agent.Core
	t       *testing.T
	id      string
	role    string // the role its colleagues' owners give it when they trust it
	dir     string
	cfgPath string
	fp      string
	cancel  context.CancelFunc
	done    chan error
}

// newTestAgent initialises a data dir and lets edit adjust the config
// before the core starts.
func newTestAgent(t *testing.T, id, role string, edit func(*config.Config)) *testAgent {
	t.Helper()
	dir := t.TempDir()
	res, err := agent.Init(agent.InitOptions{DataDir: dir, AgentID: id, Role: role, Owner: id, ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("init %s: %v", id, err)
	}
	cfg, err := config.Load(res.ConfigPath)
	if err != nil {
		t.Fatalf("load %s config: %v", id, err)
	}
	cfg.Network.DiscoveryIntervalSec = 3600 // tests announce explicitly
	cfg.Outbox.InitialBackoffMS, cfg.Outbox.MaxBackoffMS = 50, 200
	if edit != nil {
		edit(cfg)
	}
	if err := config.Write(res.ConfigPath, cfg); err != nil {
		t.Fatal(err)
	}
	a := &testAgent{t: t, id: id, role: role, dir: dir, cfgPath: res.ConfigPath, fp: res.Fingerprint}
	a.start()
	t.Cleanup(a.stop)
	return a
}

// start opens the core and serves until stop.
func (a *testAgent) start() {
	a.t.Helper()
	core, err := agent.Open(context.Background(), agent.Options{DataDir: a.dir, ConfigPath: a.cfgPath})
	if err != nil {
		a.t.Fatalf("open %s: %v", a.id, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.Core, a.cancel, a.done = core, cancel, make(chan error, 1)
	go func() { a.done <- core.Serve(ctx) }()
	eventually(a.t, 5*time.Second, a.id+" listening", func() bool { return core.Addr() != "" })
}

// stop shuts the core down (idempotent).
func (a *testAgent) stop() {
	if a.cancel == nil {
		return
	}
	a.cancel()
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		a.t.Errorf("%s did not stop within 10s", a.id)
	}
	a.Core.Close()
	a.cancel = nil
}

// restart stops and starts the core on the same data dir (and port).
func (a *testAgent) restart(edit func(*config.Config)) {
	a.t.Helper()
	addr := a.Addr()
	a.stop()
	cfg, err := config.Load(a.cfgPath)
	if err != nil {
		a.t.Fatal(err)
	}
	cfg.Network.ListenAddr = addr
	if edit != nil {
		edit(cfg)
	}
	if err := config.Write(a.cfgPath, cfg); err != nil {
		a.t.Fatal(err)
	}
	a.start()
}

// trust pins other in a's registry, with the role a's owner gives it.
func (a *testAgent) trust(other *testAgent) {
	a.t.Helper()
	err := a.Trust(context.Background(), agent.TrustRequest{AgentID: other.id, Fingerprint: other.fp, Endpoint: other.Addr(), Role: other.role})
	if err != nil {
		a.t.Fatalf("%s trusts %s: %v", a.id, other.id, err)
	}
}

// pair makes two agents trust each other.
func pair(a, b *testAgent) { a.trust(b); b.trust(a) }

// socket is the agent's control socket path.
func (a *testAgent) socket() string { return agent.SocketPath(a.dir) }

func (a *testAgent) dbPath() string { return filepath.Join(a.dir, "aoi.db") }

// eventually polls cond every 20 ms until it holds or the deadline passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeAddr reserves a loopback port for an agent started later.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

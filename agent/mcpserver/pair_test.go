package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// aoiBin is the aoi binary built once for the package's tests; buildErr
// says why it could not be built (tests that need it fail with it).
var aoiBin, buildErr string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aoi-mcpserver-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	aoiBin = filepath.Join(dir, "aoi")
	cmd := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", aoiBin, "./cmd/aoi")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Sprintf("go build ./cmd/aoi: %v\n%s", err, out)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needBinary fails the test when aoi could not be built.
func needBinary(t *testing.T) string {
	t.Helper()
	if buildErr != "" {
		t.Fatal(buildErr)
	}
	return aoiBin
}

// testCore is a real core: SQLite in a temp dir, mutual TLS on 127.0.0.1,
// a control socket.
type testCore struct {
	*agent.Core
	id, dir, fp string
}

// startCore initialises and serves a core holding acme/webapp, readable by
// every pinned colleague.
func startCore(t *testing.T, id, role string) *testCore {
	t.Helper()
	return startCoreIn(t, t.TempDir(), id, role)
}

// startCoreIn is startCore on a given data dir.
func startCoreIn(t *testing.T, dir, id, role string) *testCore {
	t.Helper()
	cfgPath, fp := initCore(t, dir, id, role)
	core, _ := serveCore(t, dir, cfgPath, id)
	return &testCore{Core: core, id: id, dir: dir, fp: fp}
}

// initCore writes dir's identity and the test config: acme/webapp readable
// by every pinned colleague, messages from any of them accepted.
func initCore(t *testing.T, dir, id, role string) (cfgPath, fingerprint string) {
	t.Helper()
	res, err := agent.Init(agent.InitOptions{DataDir: dir, AgentID: id, Role: role, Owner: id, ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("init %s: %v", id, err)
	}
	cfg, err := config.Load(res.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.DiscoveryIntervalSec = 3600 // tests announce explicitly
	cfg.Outbox.InitialBackoffMS, cfg.Outbox.MaxBackoffMS = 50, 200
	// Every query waits for the owner: no focus time, no automatic answer.
	cfg.Secretary.InterruptControl = config.InterruptControl{Enabled: true, FocusModeHours: [2]int{0, 0}, AutoRespondThreshold: 1}
	cfg.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
	cfg.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "team-read", AgentID: "*", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"},
		{ID: "team-messages", AgentID: "*", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"}}}
	if err := config.Write(res.ConfigPath, cfg); err != nil {
		t.Fatal(err)
	}
	return res.ConfigPath, res.Fingerprint
}

// serveCore opens and serves the core of dir until stop (or the test's
// end); stop waits for it to let go of its port, socket and database.
func serveCore(t *testing.T, dir, cfgPath, id string) (core *agent.Core, stop func()) {
	t.Helper()
	core, err := agent.Open(context.Background(), agent.Options{DataDir: dir, ConfigPath: cfgPath})
	if err != nil {
		t.Fatalf("open %s: %v", id, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Errorf("%s did not stop within 10s", id)
			}
			core.Close()
		})
	}
	t.Cleanup(stop)
	eventually(t, 5*time.Second, id+" listening", func() bool { return core.Addr() != "" })
	return core, stop
}

// startPair starts eng (the owner's aoi that `aoi mcp` attaches to) and pm
// (a colleague), pinned to each other.
func startPair(t *testing.T) (eng, pm *testCore) {
	t.Helper()
	eng = startCore(t, "eng-mcp", "engineer")
	pm = startCore(t, "pm-mcp", "pm")
	ctx := context.Background()
	if err := eng.Trust(ctx, agent.TrustRequest{AgentID: pm.id, Fingerprint: pm.fp, Endpoint: pm.Addr()}); err != nil {
		t.Fatal(err)
	}
	if err := pm.Trust(ctx, agent.TrustRequest{AgentID: eng.id, Fingerprint: eng.fp, Endpoint: eng.Addr()}); err != nil {
		t.Fatal(err)
	}
	return eng, pm
}

// answerWhenAsked answers, as pm's owner, the first escalated query once
// it arrives.
func answerWhenAsked(t *testing.T, pm *testCore, text string) <-chan error {
	done := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			qs, err := pm.Queries(context.Background(), agent.QueryFilter{State: agent.QueryEscalated})
			if err == nil && len(qs) > 0 {
				done <- pm.Answer(context.Background(), qs[0].ID, text)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		done <- fmt.Errorf("no escalated query reached pm within 15s")
	}()
	return done
}

// eventually polls cond every 20 ms until it holds or d passes.
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

package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// serveEnv names the data dir a re-executed test binary serves (see
// TestHelperServe); the crash test kills that process with SIGKILL.
const serveEnv = "AOI_TEST_SERVE_DIR"

// TestHelperServe is not a test: it is the body of the child process the
// crash test starts and kills. It returns at once in a normal run.
func TestHelperServe(t *testing.T) {
	dir := os.Getenv(serveEnv)
	if dir == "" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	core, err := agent.Open(ctx, agent.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	if err := core.Serve(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestKillNineLosesNothingAcknowledged runs a query load against an agent in
// a child process, kills it with SIGKILL mid-load, and checks that every
// query that got a success response is stored and audited, and the chain
// verifies.
func TestKillNineLosesNothingAcknowledged(t *testing.T) {
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	engDir := t.TempDir()
	res, err := agent.Init(agent.InitOptions{DataDir: engDir, AgentID: "eng-suzuki", Role: "engineer", ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	engAddr := freeAddr(t)
	writeCfg(t, res.ConfigPath, func(c *config.Config) {
		c.Network.ListenAddr = engAddr
		c.Network.DiscoveryIntervalSec = 3600
		c.Limits.RatePerSec, c.Limits.Burst = 100000, 100000
		c.Peers = []config.Peer{{AgentID: "pm-tanaka", Fingerprint: pm.Fingerprint(), Endpoint: pm.Addr()}}
	})
	pm.Trust(context.Background(), agent.TrustRequest{AgentID: "eng-suzuki", Fingerprint: res.Fingerprint, Endpoint: engAddr})

	child := startChild(t, engDir)
	acked := loadUntilKilled(t, pm, child)
	if len(acked) == 0 {
		t.Fatal("no query was acknowledged before the kill; the load did not run")
	}
	t.Logf("%d queries acknowledged before SIGKILL", len(acked))

	db, err := store.Open(engDir + "/aoi.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err := db.VerifyAudit(context.Background())
	if err != nil || !v.OK {
		t.Fatalf("audit verify after kill -9: %+v, %v", v, err)
	}
	audited := auditedQueryIDs(t, db)
	for _, id := range acked {
		if _, found, err := db.Query(context.Background(), id); err != nil || !found {
			t.Fatalf("acknowledged query %s is missing after the crash (%v)", id, err)
		}
		if !audited[id] {
			t.Fatalf("acknowledged query %s has no audit row", id)
		}
	}
}

// loadUntilKilled sends queries from 4 workers, SIGKILLs the child after
// 400 ms, and returns the ids of the acknowledged queries.
func loadUntilKilled(t *testing.T, pm *testAgent, child *exec.Cmd) []string {
	var mu sync.Mutex
	var acked []string
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				r, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "progress?"})
				if err != nil {
					if strings.Contains(err.Error(), "unreachable") {
						time.Sleep(5 * time.Millisecond)
					}
					continue
				}
				var qr wire.QueryResult
				if json.Unmarshal(r.Result, &qr) == nil {
					if id, _ := qr.Metadata["query_id"].(string); id != "" {
						mu.Lock()
						acked = append(acked, id)
						mu.Unlock()
					}
				}
			}
		}()
	}
	time.Sleep(400 * time.Millisecond)
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	time.Sleep(100 * time.Millisecond)
	cancel()
	wg.Wait()
	return acked
}

// startChild re-executes this test binary as an aoi serving dir.
func startChild(t *testing.T, dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
	cmd.Env = append(os.Environ(), serveEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	eventually(t, 10*time.Second, "child serving", func() bool {
		_, err := os.Stat(agent.SocketPath(dir))
		return err == nil
	})
	return cmd
}

// auditedQueryIDs pages through every aoi.query audit row (the store
// returns at most 1000 per call; a fast machine acknowledges more).
func auditedQueryIDs(t *testing.T, db *store.DB) map[string]bool {
	out := map[string]bool{}
	var before int64
	for range 1000 { // bounded: a million rows
		rows, err := db.AuditList(context.Background(), store.AuditQuery{Method: wire.MethodQuery, BeforeSeq: before, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			var d struct {
				QueryID string `json:"query_id"`
			}
			if json.Unmarshal(r.Detail, &d) == nil && d.QueryID != "" {
				out[d.QueryID] = true
			}
			before = r.Seq
		}
		if len(rows) < 1000 {
			break
		}
	}
	return out
}

func writeCfg(t *testing.T, path string, edit func(*config.Config)) {
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	if err := config.Write(path, cfg); err != nil {
		t.Fatal(err)
	}
}

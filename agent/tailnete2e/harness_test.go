package tailnete2e

import (
	"context"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"github.com/aoi-protocol/aoi/rpc/tailnet/tailnettest"
)

// node is a real core serving on its own tsnet node.
type node struct {
	*agent.Core
	id string
	tr *tailnet.Transport
}

// newNode initialises a data dir, joins tn as tailnet.Hostname(id) and
// serves the core on the tailnet until the test ends.
func newNode(t *testing.T, tn *tailnettest.Tailnet, id, role string, edit func(*config.Config)) *node {
	t.Helper()
	dir := t.TempDir()
	res, err := agent.Init(agent.InitOptions{DataDir: dir, AgentID: id, Role: role, Owner: id, ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("init %s: %v", id, err)
	}
	cfg, err := config.Load(res.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.DiscoveryIntervalSec = 3600 // the test calls Discover itself
	cfg.Outbox.InitialBackoffMS, cfg.Outbox.MaxBackoffMS = 50, 200
	if edit != nil {
		edit(cfg)
	}
	if err := config.Write(res.ConfigPath, cfg); err != nil {
		t.Fatal(err)
	}
	tr := tn.NewNode(t, tailnet.Hostname(id))
	core, err := agent.Open(context.Background(), agent.Options{DataDir: dir, ConfigPath: res.ConfigPath, Transport: tr})
	if err != nil {
		t.Fatalf("open %s: %v", id, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("%s did not stop within 10s", id)
		}
		core.Close()
	})
	eventually(t, 30*time.Second, id+" listening", func() bool { return core.Addr() != "" })
	return &node{Core: core, id: id, tr: tr}
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

// The tailnet transport provides every tailnet feature the core looks for.
var (
	_ agent.PeerFinder        = (*tailnet.Transport)(nil)
	_ agent.URLMapper         = (*tailnet.Transport)(nil)
	_ agent.TailnetSummarizer = (*tailnet.Transport)(nil)
)

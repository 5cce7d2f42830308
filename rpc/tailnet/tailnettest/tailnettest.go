// Package tailnettest runs a real, offline tailnet inside a test process:
// Tailscale's test control server and a DERP/STUN relay on 127.0.0.1, with
// aoi tailnet transports joining it as tsnet nodes. Nothing leaves loopback
// once Setup has run.
//
// Nodes are cheap (~0.1–0.3 s each) but every tailnet costs memory, so start
// one per test package in a top-level test and run the cases as subtests.
package tailnettest

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"tailscale.com/envknob"
	"tailscale.com/ipn/store/mem"
	"tailscale.com/net/netns"
	"tailscale.com/tailcfg"
	"tailscale.com/tstest/integration"
	"tailscale.com/tstest/integration/testcontrol"
	"tailscale.com/types/logger"
)

// Setup keeps every tsnet node's traffic on loopback. Call it from TestMain
// before any node starts:
//   - TS_DEBUG_OMIT_LOCAL_ADDRS stops nodes from advertising the machine's
//     LAN addresses as WireGuard endpoints (it is read once, hence
//     envknob.Setenv rather than os.Setenv);
//   - netns off: sockets are not bound to the default-route interface.
//
// With both, peers reach each other only through the STUN-discovered
// 127.0.0.1 endpoint or the DERP relay on 127.0.0.1.
func Setup() {
	envknob.Setenv("TS_DEBUG_OMIT_LOCAL_ADDRS", "true")
	netns.SetEnabled(false)
}

// Main is a TestMain for packages that use a tailnet: Setup, then run.
func Main(m *testing.M) {
	Setup()
	os.Exit(m.Run())
}

// Tailnet is an in-process tailnet: one DERP/STUN relay and a control server.
type Tailnet struct {
	DERPMap    *tailcfg.DERPMap
	Control    *testcontrol.Server
	ControlURL string
	// Logf receives the nodes' tsnet logs (nil discards them). Logging to
	// t.Logf is only safe while that test runs.
	Logf logger.Logf
}

// Start runs a DERP/STUN relay and a control server on 127.0.0.1 until tb
// ends.
func Start(tb testing.TB) *Tailnet {
	tb.Helper()
	tn := &Tailnet{DERPMap: integration.RunDERPAndSTUN(tb, logger.Discard, "127.0.0.1")}
	tn.Control = tn.NewControl(tb, nil)
	tn.ControlURL = tn.Control.HTTPTestServer.URL
	return tn
}

// NewControl starts another control server sharing the relay, after
// configure has set its knobs (RequireAuthKey, RequireMachineAuth,
// RequireAuth, …). Nodes joining it form a separate tailnet.
func (tn *Tailnet) NewControl(tb testing.TB, configure func(*testcontrol.Server)) *testcontrol.Server {
	tb.Helper()
	ctl := &testcontrol.Server{
		DERPMap:        tn.DERPMap,
		DNSConfig:      &tailcfg.DNSConfig{Proxied: true},
		MagicDNSDomain: "aoi-test.ts.net",
		Logf:           logger.Discard,
		// The test control server does not track presence; say every
		// peer is online as the real control plane would for live nodes.
		AllOnline: true,
		// Non-nil: nodes get the tags they ask for (Config.Tags), as
		// with a tagged auth key.
		TagOwners: map[string][]string{},
	}
	if configure != nil {
		configure(ctl)
	}
	ctl.HTTPTestServer = httptest.NewUnstartedServer(ctl)
	ctl.HTTPTestServer.Start()
	tb.Cleanup(ctl.HTTPTestServer.Close)
	return ctl
}

// Config is the transport config of an ephemeral, in-memory node named
// hostname on this tailnet; adjust it before tailnet.New.
func (tn *Tailnet) Config(tb testing.TB, hostname string) tailnet.Config {
	return tailnet.Config{
		Dir:        tb.TempDir(),
		Hostname:   hostname,
		ControlURL: tn.ControlURL,
		Ephemeral:  true,
		Store:      new(mem.Store),
		UpTimeout:  30 * time.Second,
		Logf:       tn.Logf,
	}
}

// NewNode joins a node named hostname and closes it when tb ends. The node
// is up (Running, home relay connected); Listen on it serves at once.
func (tn *Tailnet) NewNode(tb testing.TB, hostname string) *tailnet.Transport {
	tb.Helper()
	return tn.Join(tb, tn.Config(tb, hostname))
}

// Join starts a node from cfg, waits until it is up, and closes it when tb
// ends.
func (tn *Tailnet) Join(tb testing.TB, cfg tailnet.Config) *tailnet.Transport {
	tb.Helper()
	tr, err := tailnet.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { tr.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	if err := tr.Up(ctx); err != nil {
		tb.Fatalf("node %s: %v", cfg.Hostname, err)
	}
	return tr
}

// AwaitMesh waits (at most 30 s) until every node lists every other node
// as a peer.
func AwaitMesh(tb testing.TB, nodes ...*tailnet.Transport) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		st, err := n.Status(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		ids[i] = st.NodeID
	}
	for i, n := range nodes {
		for !seesAll(ctx, n, ids, ids[i]) {
			select {
			case <-ctx.Done():
				tb.Fatalf("node %s does not see all of %v", ids[i], ids)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

func seesAll(ctx context.Context, n *tailnet.Transport, ids []string, self string) bool {
	peers, err := n.Peers(ctx)
	if err != nil {
		return false
	}
	seen := map[string]bool{}
	for _, p := range peers {
		seen[p.NodeID] = true
	}
	for _, id := range ids {
		if id != self && !seen[id] {
			return false
		}
	}
	return true
}

package tailnet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"github.com/aoi-protocol/aoi/rpc/tailnet/tailnettest"
)

func TestMain(m *testing.M) { tailnettest.Main(m) }

// TestTailnet runs every case against one in-process tailnet: a tailnet
// per test costs memory, and nodes are cheap.
func TestTailnet(t *testing.T) {
	start := time.Now()
	tn := tailnettest.Start(t)
	started := time.Since(start)
	a := tn.NewNode(t, "aoi-alice")
	b := tn.NewNode(t, "aoi-bob")
	c := tn.NewNode(t, "aoi-carol")
	tailnettest.AwaitMesh(t, a, b, c)
	t.Logf("start → 3 nodes up and seeing each other: %v (control+DERP %v)", time.Since(start), started)

	nodes := map[string]*tailnet.Transport{"aoi-alice": a, "aoi-bob": b, "aoi-carol": c}
	t.Run("Peers", func(t *testing.T) { testPeers(t, nodes) })
	t.Run("RPCRoundTrip", func(t *testing.T) { testRPCRoundTrip(t, a, b) })
	t.Run("LoopbackOnly", func(t *testing.T) { testLoopbackOnly(t, nodes) })
	t.Run("IdentifyRefusesStranger", func(t *testing.T) { testIdentifyRefusesStranger(t, b) })
	t.Run("NoLogsHostinfo", func(t *testing.T) { testNoLogsHostinfo(t, tn, a) })
	t.Run("RestartKeepsNodeID", func(t *testing.T) { testRestartKeepsNodeID(t, tn) })
	t.Run("ControlUnreachable", testControlUnreachable)
	t.Run("BadAuthKey", func(t *testing.T) { testBadAuthKey(t, tn) })
	t.Run("NeedsApproval", func(t *testing.T) { testNeedsApproval(t, tn) })
	t.Run("NeedsLogin", func(t *testing.T) { testNeedsLogin(t, tn) })
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testPeers: each node lists exactly the other two, with the identity they
// report for themselves.
func testPeers(t *testing.T, nodes map[string]*tailnet.Transport) {
	ctx := ctxT(t)
	self := map[string]tailnet.Status{}
	for name, n := range nodes {
		st, err := n.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != "Running" || len(st.Addresses) == 0 || st.NodeID == "" {
			t.Fatalf("%s status = %+v; want Running with an id and addresses", name, st)
		}
		if !strings.HasPrefix(st.NodeName, name+".") || strings.HasSuffix(st.NodeName, ".") {
			t.Errorf("%s node name = %q; want %s.<suffix> without a trailing dot", name, st.NodeName, name)
		}
		self[name] = st
	}
	for name, n := range nodes {
		peers, err := n.Peers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(peers) != len(nodes)-1 {
			t.Fatalf("%s sees %d peers (%+v); want %d", name, len(peers), peers, len(nodes)-1)
		}
		for _, p := range peers {
			want, ok := self[p.HostName]
			if !ok || p.HostName == name {
				t.Fatalf("%s lists unexpected peer %+v", name, p)
			}
			if p.NodeID != want.NodeID || p.DNSName != want.NodeName || !p.Online {
				t.Errorf("%s sees %+v; want id %s, name %s, online", name, p, want.NodeID, want.NodeName)
			}
			if len(p.Addrs) == 0 || p.Addrs[0] != want.Addresses[0] {
				t.Errorf("%s sees %s at %v; it says %v", name, p.HostName, p.Addrs, want.Addresses)
			}
			wantURL := "http://" + net.JoinHostPort(want.Addresses[0], "8443") + "/aoi/v1/rpc"
			if got := n.PeerURL(p); got != wantURL {
				t.Errorf("PeerURL = %q; want %q", got, wantURL)
			}
		}
	}
}

// testLoopbackOnly: every node advertises only loopback WireGuard
// endpoints, and any direct path in use to a peer is on loopback, so no
// packet goes to another address (DERP and STUN are on 127.0.0.1 too).
func testLoopbackOnly(t *testing.T, nodes map[string]*tailnet.Transport) {
	ctx := ctxT(t)
	for name, n := range nodes {
		st, err := n.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s advertises %v, relay %q", name, st.Endpoints, st.Relay)
		if len(st.Endpoints) == 0 || st.Relay == "" {
			t.Errorf("%s advertises endpoints %v, relay %q; want some, and a home relay", name, st.Endpoints, st.Relay)
		}
		assertLoopback(t, name, st.Endpoints...)
		peers, err := n.Peers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range peers {
			if p.CurAddr != "" {
				assertLoopback(t, name+"→"+p.HostName, p.CurAddr)
			}
		}
	}
}

func assertLoopback(t *testing.T, what string, addrs ...string) {
	t.Helper()
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil || !ap.Addr().IsLoopback() {
			t.Errorf("%s uses %q; want loopback only", what, a)
		}
	}
}

// testRPCRoundTrip: a real rpc.Server on b's tailnet listener, called by a
// through its tailnet HTTP client; b identifies the caller as a.
func testRPCRoundTrip(t *testing.T, a, b *tailnet.Transport) {
	ctx := ctxT(t)
	ln, err := b.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv := rpc.NewServer(rpc.Options{Identify: b.Identify})
	srv.Handle("test.whoami", func(_ context.Context, call *rpc.Call) (any, error) {
		return call.Caller, nil
	})
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	bStatus, err := b.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := a.PeerURL(tailnet.Peer{Addrs: bStatus.Addresses})
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"test.whoami"}`)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.HTTPClient("").Do(req)
	if err != nil {
		t.Fatalf("POST %s over the tailnet: %v", url, err)
	}
	defer resp.Body.Close()
	var out struct {
		Result rpc.Caller `json:"result"`
		Error  *rpc.Error `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Error != nil {
		t.Fatalf("status %d, decode err %v, rpc error %v", resp.StatusCode, err, out.Error)
	}
	aStatus, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := out.Result
	if got.Kind != rpc.CallerTailnet || got.NodeID != aStatus.NodeID || got.NodeName != aStatus.NodeName ||
		got.UserLogin == "" || got.UserLogin != aStatus.UserLogin {
		t.Errorf("b identified the caller as %+v; a is %+v", got, aStatus)
	}
	if host, _, _ := net.SplitHostPort(got.Addr); !contains(aStatus.Addresses, host) {
		t.Errorf("caller addr %s is not one of a's addresses %v", got.Addr, aStatus.Addresses)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// testIdentifyRefusesStranger: an address that is no tailnet node is refused.
func testIdentifyRefusesStranger(t *testing.T, b *tailnet.Transport) {
	r, _ := http.NewRequestWithContext(ctxT(t), http.MethodPost, "/aoi/v1/rpc", nil)
	r.RemoteAddr = "127.0.0.1:40000"
	if c, err := b.Identify(r); err == nil {
		t.Fatalf("Identify(127.0.0.1) = %+v; want refused", c)
	}
}

func testRestartKeepsNodeID(t *testing.T, tn *tailnettest.Tailnet) {
	cfg := tn.Config(t, "aoi-restart")
	cfg.Ephemeral, cfg.Store = false, nil // state on disk in cfg.Dir
	id := func() string {
		tr, err := tailnet.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		if err := tr.Up(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		st, err := tr.Status(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		return st.NodeID
	}
	first, second := id(), id()
	if first == "" || first != second {
		t.Errorf("node id before restart %q, after %q; want the same", first, second)
	}
	cfg.Dir = t.TempDir() // fresh state: a new node
	if third := id(); third == first {
		t.Errorf("a node with fresh state got the old id %q", third)
	}
}

func testControlUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	tr, err := tailnet.New(tailnet.Config{
		Dir: t.TempDir(), Hostname: "aoi-lost", ControlURL: closed,
		Ephemeral: true, UpTimeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	start := time.Now()
	err = tr.Up(ctxT(t))
	if !errors.Is(err, tailnet.ErrControlUnreachable) || !strings.Contains(err.Error(), closed) {
		t.Fatalf("Up with a closed control port: %v; want ErrControlUnreachable naming %s", err, closed)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v to report an unreachable control server", d)
	}
	t.Logf("unreachable control reported in %v: %v", time.Since(start), err)
}

// joinErr starts a node against ctl and returns Up's error.
func joinErr(t *testing.T, tn *tailnettest.Tailnet, controlURL, authKey string) error {
	cfg := tn.Config(t, "aoi-"+strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")))
	cfg.ControlURL, cfg.AuthKey, cfg.UpTimeout = controlURL, authKey, 20*time.Second
	tr, err := tailnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	return tr.Up(ctxT(t))
}

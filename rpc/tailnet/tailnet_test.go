package tailnet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
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
	cCfg := tn.Config(t, "aoi-carol")
	cCfg.Tags = []string{"tag:pm"}
	c := tn.Join(t, cCfg)
	tailnettest.AwaitMesh(t, a, b, c)
	t.Logf("start → 3 nodes up and seeing each other: %v (control+DERP %v)", time.Since(start), started)

	nodes := map[string]*tailnet.Transport{"aoi-alice": a, "aoi-bob": b, "aoi-carol": c}
	t.Run("Peers", func(t *testing.T) { testPeers(t, nodes) })
	t.Run("RPCRoundTrip", func(t *testing.T) { testRPCRoundTrip(t, a, c, b) })
	t.Run("LoopbackOnly", func(t *testing.T) { testLoopbackOnly(t, nodes) })
	t.Run("ListensOnTailnetOnly", func(t *testing.T) { testListensOnTailnetOnly(t, tn, a) })
	t.Run("IdentifyRefusesStranger", func(t *testing.T) { testIdentifyRefusesStranger(t, b) })
	t.Run("NoLogsHostinfo", func(t *testing.T) { testNoLogsHostinfo(t, tn, a) })
	t.Run("RestartKeepsNodeID", func(t *testing.T) { testRestartKeepsNodeID(t, tn) })
	// The join failures wait on timers and use their own control servers,
	// so they run side by side.
	for name, test := range map[string]func(*testing.T, *tailnettest.Tailnet){
		"ControlUnreachable":  testControlUnreachable,
		"ControlNotTailscale": testControlNotTailscale,
		"BadAuthKey":          testBadAuthKey,
		"NeedsApproval":       testNeedsApproval,
		"NeedsLogin":          testNeedsLogin,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, tn)
		})
	}
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
			if p.NodeID != want.NodeID || p.DNSName != want.NodeName || !p.Online ||
				p.UserLogin != want.UserLogin || !slices.Equal(p.Tags, want.Tags) {
				t.Errorf("%s sees %+v; the node says %+v", name, p, want)
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

// testRPCRoundTrip: a real rpc.Server on srv's tailnet listener, called by
// a person's node and by a tagged node through their tailnet HTTP clients;
// srv identifies each caller as that node.
func testRPCRoundTrip(t *testing.T, person, tagged, srv *tailnet.Transport) {
	ctx := ctxT(t)
	ln, err := srv.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rs := rpc.NewServer(rpc.Options{Identify: srv.Identify})
	rs.Handle("test.whoami", func(_ context.Context, call *rpc.Call) (any, error) {
		return call.Caller, nil
	})
	hs := &http.Server{Handler: rs, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	srvStatus, err := srv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}

	for _, from := range []*tailnet.Transport{person, tagged} {
		st, err := from.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := whoami(t, from, from.PeerURL(tailnet.Peer{Addrs: srvStatus.Addresses}))
		if got.Kind != rpc.CallerTailnet || got.NodeID != st.NodeID || got.NodeName != st.NodeName ||
			got.UserLogin != st.UserLogin || !slices.Equal(got.Tags, st.Tags) {
			t.Errorf("server identified the caller as %+v; the caller is %+v", got, st)
		}
		if host, _, _ := net.SplitHostPort(got.Addr); !slices.Contains(st.Addresses, host) {
			t.Errorf("caller addr %s is not one of the caller's addresses %v", got.Addr, st.Addresses)
		}
		if from == person && (got.UserLogin == "" || len(got.Tags) != 0) {
			t.Errorf("a person's node came as %+v; want a user login and no tags", got)
		}
		if from == tagged && (got.UserLogin != "" || !slices.Equal(got.Tags, []string{"tag:pm"})) {
			t.Errorf("the tagged node came as %+v; want tags [tag:pm] and no user login", got)
		}
	}
}

// whoami calls test.whoami at url through from's tailnet client.
func whoami(t *testing.T, from *tailnet.Transport, url string) rpc.Caller {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"test.whoami"}`)
	req, _ := http.NewRequestWithContext(ctxT(t), http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := from.HTTPClient("").Do(req)
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
	return out.Result
}

// testListensOnTailnetOnly: the peer port is reachable through the tailnet
// and not on the host's own interfaces.
func testListensOnTailnetOnly(t *testing.T, tn *tailnettest.Tailnet, from *tailnet.Transport) {
	hostLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := hostLn.Addr().(*net.TCPAddr).Port
	hostLn.Close() // a free host port: if the node listened on the host, it would take it
	cfg := tn.Config(t, "aoi-port")
	cfg.Port = port
	n := tn.Join(t, cfg)
	ln, err := n.Listen(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go hs.Serve(ln)
	defer hs.Close()
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second); err == nil {
		c.Close()
		t.Fatalf("port %d is open on the host; want the tailnet only", port)
	}
	st, err := n.Status(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := from.HTTPClient("").Get(n.PeerURL(tailnet.Peer{Addrs: st.Addresses}))
	if err != nil {
		t.Fatalf("GET over the tailnet: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("GET over the tailnet: status %d; want 204", resp.StatusCode)
	}
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

func testControlUnreachable(t *testing.T, _ *tailnettest.Tailnet) {
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

// testControlNotTailscale: a control URL that answers HTTP but is no
// control server times out with an error naming it.
func testControlNotTailscale(t *testing.T, _ *tailnettest.Tailnet) {
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	tr, err := tailnet.New(tailnet.Config{
		Dir: t.TempDir(), Hostname: "aoi-misdirected", ControlURL: web.URL, AuthKey: "tskey-x",
		Ephemeral: true, UpTimeout: 3 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	start := time.Now()
	err = tr.Up(ctxT(t))
	if !errors.Is(err, tailnet.ErrUpTimeout) || !strings.Contains(err.Error(), web.URL) {
		t.Fatalf("Up against a plain web server: %v; want ErrUpTimeout naming %s", err, web.URL)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("took %v with a 3 s up timeout", d)
	}
	t.Logf("not a control server: %v", err)
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

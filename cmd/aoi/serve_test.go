package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
)

// startServe runs `aoi serve` in-process for dir until the test ends and
// waits until its control socket answers.
func startServe(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--data-dir", dir}, &out, &out) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("serve exited %d after Ctrl-C; output:\n%s", code, out.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop within 30s of its context ending")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := ctlclient.Dial(dir)
		if err == nil {
			c.Close()
			return
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d before answering; output:\n%s", code, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer within 30s: %v; output:\n%s", err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCommandsAgainstServe drives a real core, started by `aoi serve`,
// through the CLI over the control socket.
func TestCommandsAgainstServe(t *testing.T) {
	isolate(t)
	dir := shortDir(t)
	if r := runAOI(t, "init", "--id", "eng-suzuki", "--listen", "127.0.0.1:0", "--data-dir", dir); r.code != exitOK {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	startServe(t, dir)

	r := runAOI(t, "serve", "--data-dir", dir)
	if r.code != exitFailure || !strings.Contains(r.stderr, "already running") {
		t.Errorf("second serve: exit %d, stderr %q", r.code, r.stderr)
	}

	var st agent.Status
	mustJSON(t, runAOI(t, "status", "--json", "--data-dir", dir), &st)
	if st.AgentID != "eng-suzuki" || st.Focus || len(st.Fingerprint) != 64 {
		t.Errorf("status = %+v", st)
	}

	// The event stream over the socket sees what the CLI changes.
	c, err := ctlclient.Dial(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	evCtx, stopEvents := context.WithCancel(context.Background())
	defer stopEvents()
	events, _ := c.Events(evCtx, agent.EventsRequest{})

	for _, args := range [][]string{{"focus", "on"}, {"note", "refresh", "tokens", "75%"}} {
		if r := runAOI(t, append(args, "--data-dir", dir)...); r.code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	mustJSON(t, runAOI(t, "status", "--json", "--data-dir", dir), &st)
	if !st.Focus {
		t.Error("focus on did not reach the core")
	}
	expectFocusEvent(t, dir, events)

	expectOut(t, dir, []string{"inbox"}, "no queries from peers")
	// Empty lists are [] in --json (null broke `jq '.messages[]'`).
	expectOut(t, dir, []string{"inbox", "--json"}, `"messages": []`)
	expectOut(t, dir, []string{"inbox", "--json"}, `"queries": []`)
	expectOut(t, dir, []string{"peers"}, "no peers yet")
	expectOut(t, dir, []string{"approvals"}, "no approvals")
	expectOut(t, dir, []string{"audit", "verify"}, "chain intact: ")
	expectOut(t, dir, []string{"audit", "--method", "ctl.focus"}, "ctl.focus")
	expectOut(t, dir, []string{"release", "--all"}, "no buffered queries to release")
	expectOut(t, dir, []string{"status"}, "0 for you, 0 buffered")
	expectOut(t, dir, []string{"audit", "--result", "nonsense"}, "no audit rows\n(with the filters given; results are ok, error, or an error's name or label: denied")
	// A filter that matched nothing is the one the hint is about: --agent
	// with the start of an id said only what results are.
	expectOut(t, dir, []string{"audit", "--agent", "pm"}, "no audit rows\n(with the filters given; --agent takes an agent id whole, as `aoi peers` lists it)")
	expectOut(t, dir, []string{"audit", "--method", "aoi.task"}, "(with the filters given; --method takes a method whole, as the METHOD column shows it")
	expectOut(t, dir, []string{"audit", "export", "--format", "csv"}, "seq,time,agent,method,result,detail,prev_hash,hash\n1,")

	var rows []agent.AuditEntry
	mustJSON(t, runAOI(t, "audit", "export", "--format", "json", "--data-dir", dir), &rows)
	if len(rows) < 2 || rows[0].Seq != 1 || rows[1].PrevHash != rows[0].Hash {
		t.Errorf("export is not the chain oldest first: %+v", rows)
	}

	r = runAOI(t, "approve", "no-such-approval", "--data-dir", dir)
	if r.code != exitFailure || !strings.Contains(r.stderr, "no-such-approval") || strings.Contains(r.stderr, "rpc error") {
		t.Errorf("approve unknown id: exit %d, stderr %q (want the core's own words naming the id)", r.code, r.stderr)
	}
}

// expectFocusEvent turns focus on until the stream delivers focus.changed:
// the first long poll may reach the core after the first change, and a
// stream asked for "only new events" rightly skips what came before it.
func expectFocusEvent(t *testing.T, dir string, events <-chan agent.Event) {
	t.Helper()
	for range 20 {
		if r := runAOI(t, "focus", "on", "--data-dir", dir); r.code != exitOK {
			t.Fatalf("focus on: exit %d: %s", r.code, r.stderr)
		}
		select {
		case ev := <-events:
			if ev.Kind != agent.EventFocusChanged || ev.Seq <= 0 {
				t.Fatalf("event = %+v, want %s", ev, agent.EventFocusChanged)
			}
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
	t.Fatal("no focus.changed event over the control socket")
}

func expectOut(t *testing.T, dir string, args []string, want string) {
	t.Helper()
	r := runAOI(t, append(args, "--data-dir", dir)...)
	if r.code != exitOK || !strings.Contains(r.stdout, want) {
		t.Errorf("%v: exit %d, stdout %q lacks %q; stderr %q", args, r.code, r.stdout, want, r.stderr)
	}
}

func mustJSON(t *testing.T, r result, v any) {
	t.Helper()
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
}

// syncBuffer is a bytes.Buffer safe for the serve goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeSaysWhereItListens: `aoi serve` says on its output, once its
// peer server listens, the address colleagues reach it on (the real one,
// not the :0 of the config) and the fingerprint they pin.
func TestServeSaysWhereItListens(t *testing.T) {
	bin := buildAOI(t)
	dir := filepath.Join(shortDir(t), "eng")
	initAgent(t, bin, dir, "eng-suzuki")
	p := startServeProc(t, bin, dir)
	st := p.waitServing(t, dir)
	if strings.HasSuffix(st.ListenAddr, ":0") || len(st.Fingerprint) != 64 {
		t.Fatalf("status has no real address or fingerprint: %+v", st)
	}
	want := "aoi: serving eng-suzuki on " + st.ListenAddr + " (fingerprint " + agent.GroupFingerprint(st.Fingerprint) + "); this machine only"
	p.waitFor(t, 10*time.Second, "the line saying where it listens", func() bool {
		return strings.Contains(p.out.String(), want)
	})
}

// TestServeSaysHowToScrapeMetrics: with --metrics, `aoi serve` names the
// token file /metrics asks for, and the curl it prints scrapes.
func TestServeSaysHowToScrapeMetrics(t *testing.T) {
	bin := buildAOI(t)
	dir := filepath.Join(shortDir(t), "eng")
	initAgent(t, bin, dir, "eng-suzuki")
	addr := freeAddr(t)
	p := startServeWith(t, bin, dir, []string{"--metrics", addr}, nil)
	p.waitServing(t, dir)
	token := filepath.Join(dir, "metrics.token")
	want := "aoi: metrics on http://" + addr + "/metrics need the bearer token in " + token
	p.waitFor(t, 10*time.Second, "the line saying how to scrape", func() bool {
		return strings.Contains(p.out.String(), want)
	})
	var status string
	p.waitFor(t, 10*time.Second, "a scrape with the token", func() bool {
		raw, err := os.ReadFile(token)
		if err != nil {
			return false
		}
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+string(raw))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		status = resp.Status
		return true
	})
	if status != "200 OK" {
		t.Fatalf("/metrics with the token file's token: %s", status)
	}
}

// TestServeWarnsOfALooseDataDir: `aoi serve` on a data dir other users
// can read says so on stderr, with the fix, and still starts; one they
// can write (or a config they can write) is refused, with the fix.
func TestServeWarnsOfALooseDataDir(t *testing.T) {
	bin := buildAOI(t)
	dir := filepath.Join(shortDir(t), "eng")
	initAgent(t, bin, dir, "eng-suzuki")
	for _, c := range []struct {
		path string
		mode os.FileMode
		want string
	}{
		{dir, 0o777, "the data dir " + dir + " can be changed by other users (mode 0777), who could rewrite its ACL rules and task commands; run: chmod 700 " + dir},
		{filepath.Join(dir, "config.json"), 0o666, "run: chmod 600 " + filepath.Join(dir, "config.json")},
	} {
		if err := os.Chmod(c.path, c.mode); err != nil {
			t.Fatal(err)
		}
		if out := cliFails(t, bin, dir, 1, "serve"); !strings.Contains(out, c.want) {
			t.Errorf("aoi serve with %s at %#o printed:\n%s\nwant %q", c.path, c.mode, out, c.want)
		}
		if err := os.Chmod(c.path, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := startServeProc(t, bin, dir)
	p.waitServing(t, dir)
	want := "aoi: warning: data dir " + dir + " has mode 0755; other users can reach the database and keys: chmod 700 " + dir
	if out := p.out.String(); !strings.Contains(out, want) {
		t.Errorf("aoi serve on a 0755 data dir printed:\n%s\nwant %q", out, want)
	}
}

// TestServeListenFlag: `aoi serve --listen HOST:PORT` listens there
// instead of network.listen_addr, and says so; an address without a port
// is a usage error (exit 2) before anything starts.
func TestServeListenFlag(t *testing.T) {
	bin := buildAOI(t)
	dir := filepath.Join(shortDir(t), "eng")
	initAgent(t, bin, dir, "eng-suzuki")
	if out := cliFails(t, bin, dir, exitUsage, "serve", "--listen", "127.0.0.1"); !strings.Contains(out, "--listen \"127.0.0.1\": want HOST:PORT") {
		t.Errorf("aoi serve --listen without a port printed:\n%s", out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := startServeWith(t, bin, dir, []string{"--listen", addr}, nil)
	if st := p.waitServing(t, dir); st.ListenAddr != addr {
		t.Fatalf("aoi serve --listen %s listens on %s", addr, st.ListenAddr)
	}
	p.waitFor(t, 10*time.Second, "the line saying where it listens", func() bool {
		return strings.Contains(p.out.String(), "aoi: serving eng-suzuki on "+addr)
	})
}

// TestServingLineInTailnetMode: in tailnet mode the line names the node's
// tailnet address with the port, and the node, since peers pin no
// certificate there.
func TestServingLineInTailnetMode(t *testing.T) {
	st := agent.Status{AgentID: "eng-bench", Transport: "tailnet", ListenAddr: "[::]:7777",
		Tailnet: &agent.Tailnet{NodeName: "aoi-eng-bench", Addresses: []string{"100.64.0.3", "fd7a:115c:a1e0::3"}}}
	if got, want := servingLine(st), "aoi: serving eng-bench on 100.64.0.3:7777 (tailnet node aoi-eng-bench)"; got != want {
		t.Errorf("servingLine = %q; want %q", got, want)
	}
	st = agent.Status{AgentID: "eng-bench", Transport: "direct", ListenAddr: "0.0.0.0:8443", Fingerprint: "ab12"}
	if got := servingLine(st); !strings.Contains(got, "on 0.0.0.0:8443 (fingerprint ab12); every interface") {
		t.Errorf("a wildcard address is not explained: %q", got)
	}
}

// TestFirstRunMovesOffATakenPort: a second agent set up on one machine
// (the walk's bob, with alice's aoi on 8443) gets the next free port
// instead of failing its first start; a free port is kept as it is.
func TestFirstRunMovesOffATakenPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	got, moved := freeListenAddr(addr, 20)
	if !moved || got == addr {
		t.Fatalf("freeListenAddr(%s taken) = %s, %v; want another port", addr, got, moved)
	}
	if ln, err := net.Listen("tcp", got); err != nil {
		t.Errorf("the port offered, %s, is not free: %v", got, err)
	} else {
		ln.Close()
	}
	if again, moved := freeListenAddr(got, 20); again != got || moved {
		t.Errorf("a free address moved: %s → %s", got, again)
	}
}

// TestServeNeedsAnIdentity: `aoi serve` with a good --config and a
// mistyped --data-dir says nothing is set up there; before, it made a new
// identity in the mistyped folder, a certificate no colleague pinned.
func TestServeNeedsAnIdentity(t *testing.T) {
	isolate(t)
	good := shortDir(t)
	if r := runAOI(t, "init", "--id", "eng-a", "--listen", "127.0.0.1:0", "--data-dir", good); r.code != exitOK {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	typo := filepath.Join(shortDir(t), "typo")
	r := runAOI(t, "serve", "--data-dir", typo, "--config", filepath.Join(good, "config.json"))
	if r.code != exitFailure || !strings.Contains(r.stderr, "no agent is set up in "+typo) {
		t.Errorf("aoi serve on a mistyped data dir: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(typo, "tls")); err == nil {
		t.Errorf("aoi serve made an identity in the mistyped %s", typo)
	}
}

package rpc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestReplayFloodForgetsOnlyTheFloodersCalls: a peer sending more new
// calls than the whole replay cache holds (in batches, as fast as it may)
// no longer empties everyone's replay memory: another peer's retry of a
// call it made before the flood is still answered from memory, while the
// flooder's own oldest calls are the ones forgotten.
func TestReplayFloodForgetsOnlyTheFloodersCalls(t *testing.T) {
	server := newIdentity(t, "eng-suzuki")
	friend, flooder := newIdentity(t, "pm-tanaka"), newIdentity(t, "eng-flood")
	ids := map[string]string{friend.Fingerprint: "pm-tanaka", flooder.Fingerprint: "eng-flood"}
	peer := startMTLSPeer(t, server, Options{Authenticate: func(ctx context.Context, c Caller) (Caller, error) {
		c.AgentID = ids[c.Fingerprint]
		return c, nil
	}})
	post := postAs(t, peer, server)

	post(friend, callBody("retry-me"))
	const batch = 100
	flood := (maxReplayKeys/batch + 1) * batch // more calls than the cache holds
	for start := 0; start < flood; start += batch {
		var calls []string
		for i := start; i < start+batch; i++ {
			calls = append(calls, callBody(fmt.Sprintf("flood-%d", i)))
		}
		post(flooder, "["+strings.Join(calls, ",")+"]")
	}
	ran := peer.calls.Load()
	if ran != int32(flood+1) {
		t.Fatalf("the handler ran %d times for %d distinct calls", ran, flood+1)
	}

	post(friend, callBody("retry-me"))
	if n := peer.calls.Load(); n != ran {
		t.Fatal("after another peer's flood, a retry of a call made before it ran a second time")
	}
	post(flooder, callBody(fmt.Sprintf("flood-%d", flood-1)))
	if n := peer.calls.Load(); n != ran {
		t.Fatal("the flooder's latest call ran again: its own recent calls were forgotten")
	}
	post(flooder, callBody("flood-0"))
	if n := peer.calls.Load(); n != ran+1 {
		t.Fatal("the flooder's oldest call was still remembered: one caller's memory is not bounded")
	}
}

// callBody is a whoami call with the given id.
func callBody(id string) string {
	return `{"jsonrpc":"2.0","method":"whoami","params":{"task_type":"run_tests"},"id":"` + id + `"}`
}

// postAs returns a function that posts a body to peer with a client
// certificate and fails the test unless it is answered 200.
func postAs(t *testing.T, peer *mtlsPeer, server *Identity) func(from *Identity, body string) {
	clients := map[*Identity]*http.Client{}
	return func(from *Identity, body string) {
		t.Helper()
		hc := clients[from]
		if hc == nil {
			tr := NewDirectTransport(from, "")
			t.Cleanup(func() { tr.Close() })
			hc = tr.HTTPClient(server.Fingerprint)
			hc.Timeout = 20 * time.Second
			clients[from] = hc
		}
		resp, err := hc.Post(peer.url, "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || bytes.Contains(b, []byte(`"error"`)) {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
	}
}

// TestReplayCacheExpiresOldestFirst: a caller's calls older than the
// window are forgotten oldest first when it calls again, and the calls
// still inside the window stay.
func TestReplayCacheExpiresOldestFirst(t *testing.T) {
	var rc replayCache
	t0 := time.Now()
	remember(&rc, "fp:a", "a-old", t0)
	remember(&rc, "fp:a", "a-new", t0.Add(ReplayWindow/2))
	remember(&rc, "fp:a", "a-latest", t0.Add(ReplayWindow))
	if _, ok := rc.m["a-old"]; ok {
		t.Error("a call older than the window was kept")
	}
	for _, k := range []string{"a-new", "a-latest"} {
		if _, ok := rc.m[k]; !ok {
			t.Errorf("%s, inside the window, was forgotten", k)
		}
	}
	if q := rc.callers["fp:a"]; q == nil || q.n != 2 || q.oldest.key != "a-new" {
		t.Errorf("the caller's queue is %+v, want a-new then a-latest", q)
	}
}

// TestReplayCacheFullSparesLightCallers: when more callers than fit each
// send up to their own bound, the cache stays at its bound and what is
// forgotten comes from the callers holding the most, never from one that
// made a single call.
func TestReplayCacheFullSparesLightCallers(t *testing.T) {
	var rc replayCache
	now := time.Now()
	remember(&rc, "fp:light", "light-1", now)
	heavy := maxReplayKeys/maxReplayKeysPerCaller + 2
	for c := 0; c < heavy; c++ {
		for i := 0; i < maxReplayKeysPerCaller; i++ {
			remember(&rc, fmt.Sprintf("fp:heavy-%d", c), fmt.Sprintf("heavy-%d-%d", c, i), now)
		}
	}
	if len(rc.m) > maxReplayKeys {
		t.Errorf("the cache holds %d calls, over its bound of %d", len(rc.m), maxReplayKeys)
	}
	if _, ok := rc.m["light-1"]; !ok {
		t.Error("a caller with one call lost it to others' volume")
	}
	total := 0
	for _, q := range rc.callers {
		total += q.n
		if q.n > maxReplayKeysPerCaller {
			t.Errorf("%s holds %d calls, over its bound", q.caller, q.n)
		}
	}
	if total != len(rc.m) {
		t.Errorf("the queues hold %d calls, the map %d", total, len(rc.m))
	}
}

// TestReplayCacheForgetsAFailure: a failed first call is forgotten, so
// its retry runs again, and its caller's queue does not keep it.
func TestReplayCacheForgetsAFailure(t *testing.T) {
	var rc replayCache
	now := time.Now()
	e, first := rc.begin("fp:a", "a-1", now)
	if !first {
		t.Fatal("a new call was not the first")
	}
	rc.finish(e, nil, false)
	if _, first := rc.begin("fp:a", "a-1", now); !first {
		t.Error("a retry after a failure was answered from memory")
	}
	if q := rc.callers["fp:a"]; q == nil || q.n != 1 {
		t.Errorf("the caller's queue is %+v, want the retry alone", q)
	}
}

// remember begins and finishes a successful call.
func remember(rc *replayCache, callerKey, key string, now time.Time) {
	e, first := rc.begin(callerKey, key, now)
	if first {
		rc.finish(e, []byte(`true`), true)
	}
}

// TestReplayKeyHashesMethodAndParams: the key's hash is SHA-256 of the
// method, a NUL and the params, whether the params are hashed from the
// stack (short) or through a digest (long).
func TestReplayKeyHashesMethodAndParams(t *testing.T) {
	c := Caller{Kind: CallerTLS, Fingerprint: "ab12"}
	for _, n := range []int{0, 10, 1024 - len("aoi.query") - 1, 1024 - len("aoi.query"), 5000} {
		params := []byte(strings.Repeat("p", n))
		key, callerKey := replayKey(c, []byte(`"7"`), "aoi.query", params)
		sum := sha256.Sum256(append([]byte("aoi.query\x00"), params...))
		if want := c.Key() + "\x00\"7\"\x00" + string(sum[:]); key != want || callerKey != c.Key() {
			t.Fatalf("params of %d bytes: key %q (caller %q), want %q", n, key, callerKey, want)
		}
	}
}

package agent_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/internal/termtext"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestPeerAnswersAreRedactedForTheOwner: a peer that puts a secret in its
// answer, or in the error it returns, does not get it onto the asker's
// screen: the answer the asker hands its front ends (aoi query prints
// it) and the error's words are redacted. A well-behaved aoi redacts what
// it sends; this peer is a bare JSON-RPC server that does not.
func TestPeerAnswersAreRedactedForTheOwner(t *testing.T) {
	const secret = "ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	var answer atomic.Value // func(id) any
	addr, fp := startBarePeer(t, func(id json.RawMessage) any { return answer.Load().(func(json.RawMessage) any)(id) })
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	if err := pm.Trust(context.Background(), agent.TrustRequest{AgentID: "eng-bare", Fingerprint: fp, Endpoint: addr}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	result := func(v any) func(json.RawMessage) any {
		return func(id json.RawMessage) any { return map[string]any{"jsonrpc": "2.0", "id": id, "result": v} }
	}
	failure := func(data any) func(json.RawMessage) any {
		return func(id json.RawMessage) any {
			return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32001, "message": "Permission denied " + secret, "data": data}}
		}
	}

	answer.Store(result(map[string]any{"summary": "use the token " + secret, "completed": true}))
	res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-bare", Query: "which token?"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res.Result), secret) || !strings.Contains(string(res.Result), "use the token") {
		t.Errorf("the answer handed to the front end: %s", res.Result)
	}
	// Split by what the display drops (an escape sequence, a zero-width
	// space), the secret would read whole once shown.
	split := secret[:10] + "\x1b[0m" + secret[10:20] + "\u200d\u180b" + secret[20:]
	answer.Store(result(map[string]any{"summary": "use " + split, "blockers": []any{"b " + split}, "completed": true}))
	if res, err = pm.Ask(ctx, agent.AskRequest{To: "eng-bare", Query: "which token?"}); err != nil || strings.Contains(termtext.Visible(string(res.Result)), secret[8:]) {
		t.Errorf("a split secret in the answer, as shown: %s (%v)", termtext.Sanitize(string(res.Result)), err)
	}
	// An error's data may be an object, a bare string (its reason) or
	// nested; none gets the secret out, nor a second line.
	for _, data := range []any{
		map[string]any{"reason": "token " + secret + " is wrong"},
		"leak " + secret + "\naoi: a fake line",
		map[string]any{"reason": "x", "more": []any{map[string]any{"deep": secret}}},
		"split " + split,
	} {
		answer.Store(failure(data))
		_, err = pm.Ask(ctx, agent.AskRequest{To: "eng-bare", Query: "which token?"})
		var re *rpc.Error
		if err == nil || strings.Contains(termtext.Visible(err.Error()), secret[8:]) || strings.Contains(err.Error(), "\n") || !errors.As(err, &re) || strings.Contains(fmt.Sprint(re.Data), secret) {
			t.Errorf("data %v: the peer's error reaches the owner as %v", data, err)
		}
	}
	// Not JSON-RPC: the HTTP body a transport error quotes.
	answer.Store(func(json.RawMessage) any { return forbidden("forbidden " + secret) })
	if _, err = pm.Ask(ctx, agent.AskRequest{To: "eng-bare", Query: "which token?"}); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("an HTTP 403 body reaches the owner as %v", err)
	}
	// A task request's answer and a task's status: every field is the
	// peer's, the id and state included.
	answer.Store(result(map[string]any{"task_id": "T-" + secret, "status": "running " + secret, "task_type": "ty " + secret}))
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-bare", TaskType: "run_tests"})
	if err != nil || strings.Contains(fmt.Sprint(ticket), secret) {
		t.Errorf("task ticket = %+v, %v", ticket, err)
	}
	task, err := pm.RemoteTaskStatus(ctx, agent.RemoteTaskRef{Peer: "eng-bare", TaskID: "T-1"})
	if err != nil || strings.Contains(fmt.Sprint(task), secret) {
		t.Errorf("task status = %+v, %v", task, err)
	}
}

// forbidden, returned by a bare peer's answer, is sent as an HTTP 403
// with that text as its body.
type forbidden string

// startBarePeer serves answer(id) to every JSON-RPC call over mutual TLS
// on loopback, as a peer that does not redact would; it returns its
// address and certificate fingerprint.
func startBarePeer(t *testing.T, answer func(id json.RawMessage) any) (addr, fingerprint string) {
	t.Helper()
	id, _, err := rpc.LoadOrCreateIdentity(t.TempDir(), "eng-bare")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a := answer(req.ID)
		if text, ok := a.(forbidden); ok { // not JSON-RPC at all
			http.Error(w, string(text), http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(a)
	})}
	go srv.Serve(tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{id.Certificate},
		MinVersion: tls.VersionTLS13, ClientAuth: tls.RequireAnyClientCert}))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), id.Fingerprint
}

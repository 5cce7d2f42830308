package agent_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestPeerAnswersAreRedactedForTheOwner: a peer that puts a secret in its
// answer, or in the error it returns, does not get it onto the asker's
// screen: the answer the asker hands its front ends (aoi query prints
// it) and the error's words are redacted. A well-behaved aoi redacts what
// it sends; this peer is a bare JSON-RPC server that does not.
func TestPeerAnswersAreRedactedForTheOwner(t *testing.T) {
	const secret = "ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	var fail atomic.Bool
	addr, fp := startBarePeer(t, func(id json.RawMessage) any {
		if fail.Load() {
			return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
				"code": -32602, "message": "Invalid params " + secret, "data": map[string]any{"reason": "token " + secret + " is wrong"}}}
		}
		return map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
			"summary": "use the token " + secret, "completed": true}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	if err := pm.Trust(context.Background(), agent.TrustRequest{AgentID: "eng-bare", Fingerprint: fp, Endpoint: addr}); err != nil {
		t.Fatal(err)
	}
	res, err := pm.Ask(context.Background(), agent.AskRequest{To: "eng-bare", Query: "which token?"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res.Result), secret) || !strings.Contains(string(res.Result), "use the token") {
		t.Errorf("the answer handed to the front end: %s", res.Result)
	}
	fail.Store(true)
	_, err = pm.Ask(context.Background(), agent.AskRequest{To: "eng-bare", Query: "which token?"})
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("the peer's error reaches the owner with its secret: %v", err)
	}
}

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
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer(req.ID))
	})}
	go srv.Serve(tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{id.Certificate},
		MinVersion: tls.VersionTLS13, ClientAuth: tls.RequireAnyClientCert}))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), id.Fingerprint
}

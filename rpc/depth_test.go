package rpc

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDeepJSONIsRefusedBothWays: a peer's request or answer nested past
// jsondepth.Max is refused before anything decodes it (the re-check put an
// answer 3,000 levels deep into the inbox, which broke a Python MCP client
// reading it).
func TestDeepJSONIsRefusedBothWays(t *testing.T) {
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	s := specServer(t, Options{MaxBodyBytes: 1 << 16, MaxBatch: 20})
	resp, _ := s.ServeRPC(context.Background(), []byte(`{"jsonrpc":"2.0","method":"subtract","params":`+deep+`,"id":1}`), Caller{Kind: "test"})
	if e := decodeError(t, resp); e.Code != CodeInvalidRequest || !strings.Contains(e.Reason(), "nests 101 levels deep; the limit is 64") {
		t.Errorf("deep request answered %+v", e)
	}
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"x","result":` + deep + `}`))
	}))
	defer peer.Close()
	c := NewClient(peer.URL, peer.Client(), ClientOptions{MaxAttempts: 1})
	var out json.RawMessage
	if err := c.CallWithID(context.Background(), "x", "aoi.query", nil, &out); err == nil || !strings.Contains(err.Error(), "nests 101 levels deep") {
		t.Errorf("deep answer: %v, %s; want it refused", err, out)
	}
}

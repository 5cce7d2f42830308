package secretary

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aoi-protocol/aoi/config"
)

// chatServer is a real HTTP server on loopback speaking the OpenAI chat
// completions format; it records the requests it got.
type chatServer struct {
	mu       sync.Mutex
	requests []chatRequest
	auth     []string
	status   int
	reply    string
}

func (c *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.requests = append(c.requests, req)
	c.auth = append(c.auth, r.Header.Get("Authorization"))
	status, reply := c.status, c.reply
	c.mu.Unlock()
	if status != 0 {
		http.Error(w, "model not loaded", status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]string{"role": "assistant", "content": reply}}},
		"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	})
}

func startChatServer(t *testing.T, cs *chatServer) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(cs)
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestLLMSummariser(t *testing.T) {
	m := newMirror(t)
	cs := &chatServer{reply: "Auth is about 75% done; refresh rotation landed, but TestRefreshToken fails without Redis. Key " + leakedAWSKey}
	endpoint := startChatServer(t, cs)
	cfg := *m.s.config()
	cfg.Secretary.LLM = config.LLM{Enabled: true, Endpoint: endpoint, Model: "llama3.1", APIKey: "sk-local-test", MaxTokens: 200}
	m.s.Reload(&cfg)

	a, err := m.s.Answer(context.Background(), Question{Text: "How is auth going?", Scope: []string{"acme/webapp"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Result.Metadata["summariser"] != "llm" || !strings.HasPrefix(a.Result.Summary, "Auth is about 75% done") {
		t.Fatalf("summary = %q (%v)", a.Result.Summary, a.Result.Metadata)
	}
	if strings.Contains(a.Result.Summary, leakedAWSKey) {
		t.Fatal("the LLM's answer was not redacted on the way out")
	}
	// The first request asked for search terms (and fell back: the reply
	// is no JSON); the summary is the last.
	cs.mu.Lock()
	last := len(cs.requests) - 1
	req, auth := cs.requests[last], cs.auth[last]
	cs.mu.Unlock()
	if req.Model != "llama3.1" || req.MaxTokens != 200 || auth != "Bearer sk-local-test" || len(req.Messages) != 2 {
		t.Fatalf("request = %+v auth %q", req, auth)
	}
	prompt := req.Messages[1].Content
	if len([]rune(prompt)) > llmMaxPromptRunes || !strings.Contains(prompt, "How is auth going?") || !strings.Contains(prompt, "TestRefreshToken") {
		t.Fatalf("prompt (%d runes) = %q", len([]rune(prompt)), prompt)
	}

	// Any failure falls back to the extractive summary.
	cs.mu.Lock()
	cs.status = http.StatusServiceUnavailable
	cs.mu.Unlock()
	a, err = m.s.Answer(context.Background(), Question{Text: "How is auth going?", Scope: []string{"acme/webapp"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Result.Metadata["summariser"] != "extractive" || !strings.HasPrefix(a.Result.Summary, "auth:") {
		t.Fatalf("fallback summary = %q (%v)", a.Result.Summary, a.Result.Metadata)
	}
	// An endpoint nobody listens on also falls back.
	cfg.Secretary.LLM.Endpoint = "http://127.0.0.1:1/v1"
	m.s.Reload(&cfg)
	a, err = m.s.Answer(context.Background(), Question{Text: "How is auth going?"})
	if err != nil || a.Result.Metadata["summariser"] != "extractive" {
		t.Fatalf("unreachable endpoint: %v %v", a.Result.Metadata, err)
	}
}

package secretary

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

// fakeLLM stands in for an OpenAI-compatible endpoint on loopback (no
// model runs here): it answers the query-expansion prompt with a fixed
// JSON object, after an optional delay, or fails; it records what it was
// asked.
type fakeLLM struct {
	mu        sync.Mutex
	expansion string
	delay     time.Duration
	status    int
	asked     []string // the user message of each expansion request
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	expand := req.Messages[0].Content == llmExpandPrompt
	if expand {
		f.asked = append(f.asked, req.Messages[1].Content)
	}
	delay, status, reply := f.delay, f.status, f.expansion
	f.mu.Unlock()
	if !expand {
		reply, delay = "summary from the fake model", 0
	}
	select {
	case <-time.After(delay):
	case <-r.Context().Done():
		return
	}
	if status != 0 {
		http.Error(w, "model not loaded", status)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": reply}}}})
}

// TestLLMExpandsQueryTerms: with the LLM on, its extra forms of the
// question's words find history the glossary cannot reach; when it fails
// or is slow the answer comes from the glossary's terms within the bound.
func TestLLMExpandsQueryTerms(t *testing.T) {
	dir := t.TempDir()
	r := &repoBuilder{t: t, dir: dir, when: testNow.Add(-5 * time.Hour)}
	r.git("init", "-q", "-b", "main")
	r.commit("kiosk: add the hatchling onboarding flow", time.Hour, "kiosk/hatchling.go", "package kiosk\n")
	r.commit("billing: invoice rounding", time.Hour, "billing/round.go", "package billing\n")
	s, _ := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(dir, filepath.Join(t.TempDir(), "none")))
	ctx := context.Background()
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	fake := &fakeLLM{expansion: "Sure: {\"ヒヨコ\": [\"hatchling\", \"chick\"]}"}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(fake)
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	ask := func() (Answer, time.Duration) {
		t0 := time.Now()
		a, err := s.Answer(ctx, Question{Text: "ヒヨコの件はどうなった？"})
		if err != nil {
			t.Fatal(err)
		}
		return a, time.Since(t0)
	}
	// Without the LLM nothing is found: the glossary does not know ヒヨコ.
	if a, _ := ask(); a.Result.Metadata["expansion"] != "glossary" || len(refsOf(a, "file")) != 0 {
		t.Fatalf("LLM off: expansion %v, refs %v", a.Result.Metadata["expansion"], a.Result.ContextRefs)
	}

	cfg := *s.config()
	cfg.Secretary.LLM = config.LLM{Enabled: true, Endpoint: srv.URL + "/v1", Model: "fake"}
	s.Reload(&cfg)
	a, _ := ask()
	files := refsOf(a, "file")
	if a.Result.Metadata["expansion"] != "llm" || len(files) == 0 || !strings.HasPrefix(files[0], "kiosk/hatchling.go") {
		t.Fatalf("LLM on: expansion %v, files %q", a.Result.Metadata["expansion"], files)
	}
	fake.mu.Lock()
	asked := strings.Join(fake.asked, "\n")
	fake.mu.Unlock()
	if !strings.Contains(asked, "ヒヨコ") {
		t.Errorf("the expansion request did not name the question's words: %q", asked)
	}

	// A failing endpoint, then one slower than the bound: the glossary's
	// terms answer, and the slow one costs at most the bound.
	fake.mu.Lock()
	fake.status = http.StatusInternalServerError
	fake.mu.Unlock()
	if a, _ := ask(); a.Result.Metadata["expansion"] != "glossary" || !a.Result.Completed {
		t.Fatalf("failing LLM: %+v", a.Result.Metadata)
	}
	fake.mu.Lock()
	fake.status, fake.delay = 0, 10*time.Second
	fake.mu.Unlock()
	a, took := ask()
	if a.Result.Metadata["expansion"] != "glossary" || took > llmExpandTimeout+time.Second {
		t.Fatalf("slow LLM: expansion %v after %s", a.Result.Metadata["expansion"], took)
	}
}

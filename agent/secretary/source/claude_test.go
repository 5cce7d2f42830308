package source

import (
	"testing"
	"time"
)

func TestParseTranscriptLine(t *testing.T) {
	repos := []Repo{{Ctx: "acme/webapp", Path: "/home/u/webapp"}}
	fallback := time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		line  string
		kinds []string
		keys  []string
	}{
		{"malformed", `{"type":"user","message":`, nil, nil},
		{"blank", "   ", nil, nil},
		{"meta line", `{"type":"user","isMeta":true,"cwd":"/home/u/webapp","message":{"role":"user","content":"<command-name>/clear</command-name>"}}`, nil, nil},
		{"command echo", `{"type":"user","cwd":"/home/u/webapp","message":{"role":"user","content":"<local-command-stdout></local-command-stdout>"}}`, nil, nil},
		{"string prompt", `{"type":"user","cwd":"/home/u/webapp","message":{"role":"user","content":"fix the login bug"}}`, []string{"prompt"}, []string{""}},
		{"tool result only", `{"type":"user","cwd":"/home/u/webapp","message":{"role":"user","content":[{"type":"tool_result","content":"ok"}]}}`, nil, nil},
		{"edit relative path", `{"type":"assistant","cwd":"/home/u/webapp","message":{"role":"assistant","content":[{"type":"tool_use","name":"Edit","input":{"file_path":"auth/jwt.go"}}]}}`, []string{"tool"}, []string{"auth/jwt.go"}},
		{"edit outside the repo", `{"type":"assistant","cwd":"/home/u/webapp","message":{"role":"assistant","content":[{"type":"tool_use","name":"Write","input":{"file_path":"/etc/hosts"}}]}}`, nil, nil},
		{"thinking is skipped", `{"type":"assistant","cwd":"/home/u/webapp","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Done."}]}}`, []string{"assistant"}, []string{""}},
		{"other project", `{"type":"user","cwd":"/home/u/other","message":{"role":"user","content":"secret plans"}}`, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs := parseTranscriptLine(c.line, repos, fallback)
			if len(evs) != len(c.kinds) {
				t.Fatalf("got %d events %+v, want kinds %v", len(evs), evs, c.kinds)
			}
			for i, e := range evs {
				if e.Kind != c.kinds[i] || e.Key != c.keys[i] || e.Ctx != "acme/webapp" {
					t.Errorf("event %d = %+v", i, e)
				}
				if !e.TS.Equal(fallback) {
					t.Errorf("a line without a timestamp should take the file's time, got %v", e.TS)
				}
			}
		})
	}
}

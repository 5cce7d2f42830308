package secretary

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/store"
)

// transcriptLines returns the fixture with {{REPO}} pointing at repo.
func transcriptLines(t *testing.T, repo string) []string {
	t.Helper()
	raw, err := os.ReadFile("testdata/claude_session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "{{REPO}}", repo)
	return strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
}

func appendFile(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

func transcriptCount(t *testing.T, db *store.DB) int64 {
	t.Helper()
	st, err := db.ContextStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.BySource["transcript"]
}

func TestTranscriptIngestedIncrementally(t *testing.T) {
	repo, _, _ := sharedAuthRepo(t)
	tdir := t.TempDir()
	project := filepath.Join(tdir, "-home-suzuki-webapp")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(project, "5f1c2a9e-7b1d-4c33-9d7e-2f7a1b9c0d11.jsonl")
	lines := transcriptLines(t, repo)
	if len(lines) != 12 {
		t.Fatalf("fixture has %d lines, want 12", len(lines))
	}
	dbPath := filepath.Join(t.TempDir(), "aoi.db")
	cfg := testConfig(repo, tdir)
	cfg.Contexts[0].LocalPath = repo
	s, db := newTestSecretary(t, dbPath, cfg)
	ctx := context.Background()

	// First six lines: a prompt, assistant text, Read, Edit, Bash → 5 events.
	appendFile(t, session, lines[:6]...)
	// A half-written line is not read until it is complete.
	appendFile(t, session, strings.TrimSuffix(lines[6], "\n")[:40])
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	if n := transcriptCount(t, db); n != 5 {
		t.Fatalf("after the first poll: %d transcript events, want 5", n)
	}
	// The rest of line 7 and lines 8–12: assistant text, a Japanese prompt,
	// Write → 3 more (the summary line and the other project's line are
	// not mirrored).
	appendFile(t, session, strings.TrimSuffix(lines[6], "\n")[40:]+"\n")
	appendFile(t, session, lines[7:]...)
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	if n := transcriptCount(t, db); n != 8 {
		t.Fatalf("after appending: %d transcript events, want 8", n)
	}
	// A restart (new secretary, same database) re-reads nothing.
	s2, err := New(db, cfg, s.redactor(), Options{Now: s.now})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	if n := transcriptCount(t, db); n != 8 {
		t.Fatalf("after a restart: %d transcript events, want 8", n)
	}
	// The events say what happened, in the right context.
	evs, err := db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"tool"}, Contexts: []string{"acme/webapp"}})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, e := range evs {
		titles = append(titles, e.Title)
	}
	got := strings.Join(titles, "|")
	for _, want := range []string{"Edit auth/refresh.go", "Read auth/refresh.go", "Write auth/logout.go", "ran: go test ./auth/ -run TestRefreshToken"} {
		if !strings.Contains(got, want) {
			t.Errorf("want tool event %q in %q", want, got)
		}
	}
	if strings.Contains(got, "other-project") {
		t.Error("a session outside every context was mirrored")
	}
	// The file is truncated and rewritten (a new session log in its place):
	// it is read again from the start.
	if err := os.WriteFile(session, []byte(lines[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	if n := transcriptCount(t, db); n != 9 {
		t.Fatalf("after truncation: %d transcript events, want 9", n)
	}
	// The mirrored conversation answers questions.
	a, err := s.Answer(ctx, Question{Text: "ログアウト"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Evidence == 0 || !strings.Contains(a.Result.Summary, "ログアウト") {
		t.Fatalf("answer = %+v", a.Result)
	}
}

package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// writeSessions writes n transcripts under dir, in folders a/ and b/ (so
// the walk crosses folders), each holding one prompt "task <i>" in repo.
func writeSessions(t *testing.T, dir, repo string, n int) {
	t.Helper()
	for i := range n {
		line := fmt.Sprintf(`{"type":"user","cwd":%q,"sessionId":"s%d","message":{"role":"user","content":"task %d"}}`+"\n", repo, i, i)
		p := filepath.Join(dir, string(rune('a'+i%2)), fmt.Sprintf("s%02d.jsonl", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// pollTranscripts polls tr the given number of times (a poll that reads
// nothing may be followed by one that does: it looked at other files),
// applying the cursors as the store would, and returns the events' titles.
func pollTranscripts(t *testing.T, tr Transcripts, cur mapCursors, polls int) []string {
	t.Helper()
	var titles []string
	for range polls {
		b, err := tr.Poll(context.Background(), cur)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range b.Events {
			titles = append(titles, ev.Title)
		}
		cur.apply(b)
	}
	return titles
}

func wantTasks(t *testing.T, titles []string, n int) {
	t.Helper()
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("asked: task %d", i))
	}
	slices.Sort(titles)
	slices.Sort(want)
	if !slices.Equal(titles, want) {
		t.Fatalf("read %d prompts %q,\nwant %d: %q", len(titles), titles, len(want), want)
	}
}

// TestTranscriptsPastTheFileCapAreRead: more transcripts than a poll looks
// at are all read, over several polls, each once. The walk stopped at the
// cap on every poll, so the sessions after the first 2000 (in name order)
// were never mirrored.
func TestTranscriptsPastTheFileCapAreRead(t *testing.T) {
	repo, dir := t.TempDir(), t.TempDir()
	writeSessions(t, dir, repo, 7)
	tr := Transcripts{Dir: dir, Repos: []Repo{{Ctx: "acme/webapp", Path: repo}}, maxFiles: 2}
	cur := mapCursors{}
	wantTasks(t, pollTranscripts(t, tr, cur, 6), 7) // 4 polls cover the 7 files
	// A line appended later to a session the walk has passed is read too.
	f, err := os.OpenFile(filepath.Join(dir, "a", "s00.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"type":"user","cwd":%q,"message":{"role":"user","content":"task 7"}}`+"\n", repo)
	f.Close()
	if got := pollTranscripts(t, tr, cur, 5); strings.Join(got, ",") != "asked: task 7" {
		t.Fatalf("after appending: read %q, want the new prompt once", got)
	}
}

// TestTranscriptsOverTheByteBudgetAreReadLater: what one poll reads over
// all files is bounded; the files past the budget are read by the next
// polls, each line once.
func TestTranscriptsOverTheByteBudgetAreReadLater(t *testing.T) {
	repo, dir := t.TempDir(), t.TempDir()
	writeSessions(t, dir, repo, 5)
	tr := Transcripts{Dir: dir, Repos: []Repo{{Ctx: "acme/webapp", Path: repo}}, maxBytes: 1}
	cur := mapCursors{}
	b, err := tr.Poll(context.Background(), cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Events) != 1 {
		t.Fatalf("a poll over a 1-byte budget read %d prompts, want the first file's only", len(b.Events))
	}
	cur.apply(b)
	titles := []string{b.Events[0].Title}
	wantTasks(t, append(titles, pollTranscripts(t, tr, cur, 6)...), 5)
}

// TestTranscriptReadAllocatesWhatItReads: reading a few new lines of a
// transcript allocates about them, not a whole read's 4 MB (a first poll
// over a thousand sessions allocated gigabytes).
func TestTranscriptReadAllocatesWhatItReads(t *testing.T) {
	repo, dir := t.TempDir(), t.TempDir()
	writeSessions(t, dir, repo, 20)
	tr := Transcripts{Dir: dir, Repos: []Repo{{Ctx: "acme/webapp", Path: repo}}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b, err := tr.Poll(context.Background(), mapCursors{})
	runtime.ReadMemStats(&after)
	if err != nil || len(b.Events) != 20 {
		t.Fatalf("read %d events, %v; want 20", len(b.Events), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
		t.Fatalf("reading 20 one-line sessions allocated %d MB", n>>20)
	}
}

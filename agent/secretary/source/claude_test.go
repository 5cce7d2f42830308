package source

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
			evs := parseTranscriptLine(c.line, repos, fallback, nil)
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

// TestTranscriptFollowsLinksIntoFolders: a session working in a folder,
// reached directly or through a symlink, is filed with that folder as its
// dir, its commands too; a file read through a link is filed where the
// link leads (the re-check read secrets/ through seclink and src/lnk).
func TestTranscriptFollowsLinksIntoFolders(t *testing.T) {
	repo := t.TempDir()
	for _, d := range []string{"secrets", "src"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "secrets", "NOTES"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"seclink": "secrets", "src/lnk": "../secrets"} {
		if err := os.Symlink(to, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	repos := []Repo{{Ctx: "acme/webapp", Path: repo}}
	now := time.Now()
	for _, cwd := range []string{filepath.Join(repo, "secrets"), filepath.Join(repo, "seclink"), filepath.Join(repo, "src", "lnk")} {
		line := `{"type":"assistant","cwd":"` + cwd + `","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Bash","input":{"command":"echo ZTR3"}}]}}`
		evs := parseTranscriptLine(line, repos, now, nil)
		if len(evs) != 2 {
			t.Fatalf("cwd %s: %d events", cwd, len(evs))
		}
		for _, e := range evs {
			if e.Ctx != "acme/webapp" || e.Meta["dir"] != "secrets" {
				t.Errorf("cwd %s: event %s filed as %q dir %v, want dir secrets", cwd, e.Kind, e.Ctx, e.Meta["dir"])
			}
		}
	}
	line := `{"type":"assistant","cwd":"` + repo + `","message":{"role":"assistant","content":[{"type":"tool_use","name":"Read","input":{"file_path":"seclink/NOTES"}}]}}`
	if evs := parseTranscriptLine(line, repos, now, nil); len(evs) != 1 || evs[0].Key != "secrets/NOTES" {
		t.Errorf("a read through a link: %+v, want secrets/NOTES", evs)
	}
}

// TestSessionWordsCarryTheFilesItTouched: once a session's tools read a
// file, its later prompts and replies carry it (meta "touched"), also in
// the lines read after a restart, and a shell command carries the paths
// it names: what the assistant quotes from secrets/ meets secrets/'s
// folder rules (the attack run read a rotation window that way).
func TestSessionWordsCarryTheFilesItTouched(t *testing.T) {
	repo := t.TempDir()
	dir := t.TempDir()
	repos := []Repo{{Ctx: "acme/webapp", Path: repo}}
	file := filepath.Join(dir, "s1.jsonl")
	line := func(typ, content string) string {
		return `{"type":"` + typ + `","cwd":"` + repo + `","sessionId":"s1","message":{"role":"` + typ + `","content":` + content + `}}` + "\n"
	}
	write := func(lines ...string) {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, l := range lines {
			if _, err := f.WriteString(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	cursors := mapCursors{}
	poll := func() []Event {
		b, err := Transcripts{Dir: dir, Repos: repos}.Poll(context.Background(), cursors)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range b.Cursors {
			cursors[k] = v
		}
		return b.Events
	}
	touched := func(e Event) []string { v, _ := e.Meta["touched"].([]string); return v }
	write(line("user", `"what is the rotation window?"`),
		line("assistant", `[{"type":"tool_use","name":"Read","input":{"file_path":"secrets/rotation.md"}}]`),
		line("assistant", `[{"type":"text","text":"The window is Sunday 03:00 UTC."}]`))
	evs := poll()
	if len(evs) != 3 || len(touched(evs[0])) != 0 || !slices.Equal(touched(evs[2]), []string{"acme/webapp/secrets/rotation.md"}) {
		t.Fatalf("events %+v: want the reply after the read to carry secrets/rotation.md", evs)
	}
	// A later poll (a restart: nothing in memory) still knows the read.
	write(line("assistant", `[{"type":"text","text":"Rotated on redis-prod-7."},{"type":"tool_use","name":"Bash","input":{"command":"cp ./secrets/key.pem /tmp/k"}}]`))
	evs = poll()
	if len(evs) != 2 {
		t.Fatalf("second poll: %+v", evs)
	}
	for _, e := range evs {
		if e.Kind == "tool" && !slices.ContainsFunc(touched(e), func(f string) bool {
			return f == "acme/webapp/secrets/key.pem" || strings.HasSuffix(f, "/") && strings.HasPrefix("acme/webapp/secrets/key.pem", f)
		}) {
			t.Errorf("the command naming secrets/key.pem does not carry it: %+v", e.Meta)
		}
		if e.Kind == "assistant" && !slices.Contains(touched(e), "acme/webapp/secrets/rotation.md") {
			t.Errorf("after the restart the reply lost what the session read: %+v", e.Meta)
		}
	}
}

// TestSearchesAndShellWordsCountAsTouched: the re-check's ways past the
// first version — a Grep or Glob through a folder, `cd secrets && cat
// plan.txt`, `grep -rn x .`, a glob, quotes inside a word, and more places
// than are kept — each leaves the session's words needing the place read.
func TestSearchesAndShellWordsCountAsTouched(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "secrets", "plan.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	repos := []Repo{{Ctx: "acme/webapp", Path: repo}}
	tool := func(name, input string) []string {
		t.Helper()
		tc := &Touched{}
		line := `{"type":"assistant","cwd":"` + repo + `","message":{"role":"assistant","content":[{"type":"tool_use","name":"` + name + `","input":` + input + `},{"type":"text","text":"done"}]}}`
		parseTranscriptLine(line, repos, time.Now(), tc)
		return tc.Files
	}
	for _, c := range []struct {
		name, input string
		want        string
	}{
		{"Grep", `{"pattern":"zebra","path":"` + filepath.Join(repo, "secrets") + `"}`, "acme/webapp/secrets/"},
		{"Glob", `{"pattern":"secrets/**"}`, "acme/webapp/"},
		{"Bash", `{"command":"cd secrets && cat plan.txt"}`, "acme/webapp/secrets/"},
		{"Bash", `{"command":"grep -rn zebra ."}`, "acme/webapp/"},
		{"Bash", `{"command":"cat s*/plan.txt"}`, "acme/webapp/secrets/plan.txt"},
		{"Bash", `{"command":"cat sec\"\"rets/plan.txt"}`, "acme/webapp/secrets/plan.txt"},
	} {
		if got := tool(c.name, c.input); !slices.Contains(got, c.want) {
			t.Errorf("%s %s: touched %v, want %s", c.name, c.input, got, c.want)
		}
	}
	tc := &Touched{}
	tc.addIn("acme/webapp", "secrets/plan.txt", false)
	for i := range maxTouched + 5 {
		tc.addIn("acme/webapp", "src/f"+strconv.Itoa(i)+".go", false)
	}
	if !slices.Equal(tc.Files, []string{"acme/webapp/"}) {
		t.Errorf("past the limit: %v, want the whole context", tc.Files)
	}
}

// TestTreeReadersCountAsReadingTheFolder: the second re-check's ways past
// — searches with no path (rg, grep -rn, git grep, find, ls -R), anything
// git (git show HEAD:secrets/key.pem), a subagent, and braces or $'…' in
// a path — count as reading what they can reach.
func TestTreeReadersCountAsReadingTheFolder(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	repos := []Repo{{Ctx: "acme/webapp", Path: repo}}
	covers := func(files []string, res string) bool {
		return slices.ContainsFunc(files, func(f string) bool { return f == res || strings.HasSuffix(f, "/") && strings.HasPrefix(res, f) })
	}
	for _, c := range []struct{ tool, input, want string }{
		{"Bash", `{"command":"rg API_KEY"}`, "acme/webapp/secrets/key.pem"},
		{"Bash", `{"command":"grep -rn API_KEY"}`, "acme/webapp/secrets/key.pem"},
		{"Bash", `{"command":"FOO=1 git show HEAD:secrets/key.pem"}`, "acme/webapp/secrets/key.pem"},
		{"Bash", `{"command":"cd /tmp; find -name '*.pem' | head"}`, "acme/webapp/secrets/key.pem"},
		{"Bash", `{"command":"cat {secrets,x}/key.pem"}`, "acme/webapp/secrets/key.pem"},
		{"Bash", `{"command":"cat $'secrets'/key.pem"}`, "acme/webapp/secrets/key.pem"},
		{"Task", `{"prompt":"find the rotation window"}`, "acme/webapp/secrets/key.pem"},
	} {
		tc := &Touched{}
		line := `{"type":"assistant","cwd":"` + repo + `","message":{"role":"assistant","content":[{"type":"tool_use","name":"` + c.tool + `","input":` + c.input + `}]}}`
		parseTranscriptLine(line, repos, time.Now(), tc)
		if !covers(tc.Files, c.want) {
			t.Errorf("%s %s: touched %v, which does not cover %s", c.tool, c.input, tc.Files, c.want)
		}
	}
	tc := &Touched{}
	line := `{"type":"assistant","cwd":"` + repo + `","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":"cat README.md"}}]}}`
	parseTranscriptLine(line, repos, time.Now(), tc)
	if covers(tc.Files, "acme/webapp/secrets/key.pem") {
		t.Errorf("cat README.md counts as reading the whole repository: %v", tc.Files)
	}
}

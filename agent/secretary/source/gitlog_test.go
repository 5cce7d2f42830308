package source

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParsePatch(t *testing.T) {
	patch := strings.Join([]string{
		"",
		"diff --git a/auth/jwt.go b/auth/jwt.go",
		"index 1111111..2222222 100644",
		"--- a/auth/jwt.go",
		"+++ b/auth/jwt.go",
		"@@ -44,0 +45,3 @@ func Sign(",
		"+func Validate() {",
		"+++counter // content that looks like a header",
		"+}",
		"@@ -110,2 +113,8 @@",
		"-old",
		"--- also old content",
		"+a", "+b", "+c", "+d", "+e", "+f", "+g", "+h",
		"diff --git a/old.go b/old.go",
		"deleted file mode 100644",
		"--- a/old.go",
		"+++ /dev/null",
		"@@ -1,2 +0,0 @@",
		"-package old",
		"-// gone",
		"diff --git a/logo.png b/logo.png",
		"Binary files a/logo.png and b/logo.png differ",
		"diff --git a/a.go b/b.go",
		"similarity index 90%",
		"rename from a.go",
		"rename to b.go",
	}, "\n")
	files, excerpt := parsePatch(patch)
	want := map[string]FileStat{
		"auth/jwt.go": {Path: "auth/jwt.go", Added: 11, Deleted: 2, Lines: "45-120"},
		"old.go":      {Path: "old.go", Deleted: 2},
		"b.go":        {Path: "b.go"},
	}
	got := map[string]FileStat{}
	for _, f := range files {
		got[f.Path] = f
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: got %+v, want %+v", p, got[p], w)
		}
	}
	if !strings.Contains(excerpt, "func Validate() {") || !strings.Contains(excerpt, "++counter") {
		t.Errorf("excerpt = %q", excerpt)
	}
}

func TestParseLogDropsCappedTail(t *testing.T) {
	rec := func(sha, msg string) string {
		return "\x1e" + sha + "\x1fSuzuki\x1f2025-03-10T10:00:00+09:00\x1f" + msg + "\x1f\n"
	}
	out := rec(strings.Repeat("a", 40), "first\n\nbody") + rec(strings.Repeat("b", 40), "cut off mid-")
	if cs := parseLog(out, true); len(cs) != 1 || cs[0].Message != "first\n\nbody" || cs[0].When.Hour() != 10 {
		t.Fatalf("capped parse = %+v", cs)
	}
	if cs := parseLog(out, false); len(cs) != 2 {
		t.Fatalf("uncapped parse = %d commits", len(cs))
	}
}

// mapCursors is an in-memory cursor table (what the store persists).
type mapCursors map[string]string

func (m mapCursors) ContextCursor(_ context.Context, name string) (string, bool, error) {
	v, ok := m[name]
	return v, ok, nil
}

func (m mapCursors) apply(b Batch) {
	for k, v := range b.Cursors {
		m[k] = v
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// writeIn writes s to the file p under dir, making its folders.
func writeIn(t *testing.T, dir, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGitPollIncremental(t *testing.T) {
	dir := t.TempDir()
	repo := Repo{Ctx: "acme/tool", Path: dir}
	cur := mapCursors{}
	gitIn(t, dir, "init", "-q", "-b", "main")
	// An empty repository polls cleanly.
	b, err := Git{}.Poll(context.Background(), repo, cur)
	if err != nil || len(b.Events) != 0 {
		t.Fatalf("empty repo: %+v %v", b, err)
	}
	write := func(p, s string) { writeIn(t, dir, p, s) }
	write("main.go", "package main\n// FIXME(bob): handle signals\nfunc main() {}\n")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	b, err = Git{}.Poll(context.Background(), repo, cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Events) != 1 || b.Events[0].Title != "first" {
		t.Fatalf("first poll events = %+v", b.Events)
	}
	var marker *Event
	for _, st := range b.States {
		if st.Kind == "marker" && len(st.Events) == 1 {
			marker = &st.Events[0]
		}
	}
	if marker == nil || marker.Title != "FIXME(main.go:2): handle signals" {
		t.Fatalf("marker = %+v", marker)
	}
	cur.apply(b)
	// Nothing changed: nothing to store.
	if b, _ = (Git{}).Poll(context.Background(), repo, cur); !b.Empty() {
		t.Fatalf("unchanged repo produced %+v", b)
	}
	write("util.go", "package main\n")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "second\n\nwith a body")
	b, _ = Git{}.Poll(context.Background(), repo, cur)
	if len(b.Events) != 1 || b.Events[0].Title != "second" || !strings.Contains(b.Events[0].Body, "with a body") {
		t.Fatalf("second poll events = %+v", b.Events)
	}
	if len(b.States) != 0 {
		t.Fatalf("state did not change, yet got %+v", b.States)
	}
}

// TestCommitNamesEveryFileItTouched: the attack run read commits that
// touch a denied folder because their file list missed files: a binary,
// an empty file, a mode change (git's patch gives them no ---/+++ path),
// a name with a space (its +++ line ends in a tab), a file moved out of
// secrets/ (only its new place was listed), a file quoted C-style, and
// the files past the 40 an event keeps. Each is now listed, or counted in
// files_more.
func TestCommitNamesEveryFileItTouched(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "config", "diff.dstPrefix", "new/") // the owner's own prefix must not shift paths
	gitIn(t, dir, "config", "log.showRoot", "false")  // nor hide the first commit's files
	write := func(p, s string) { writeIn(t, dir, p, s) }
	commitAll := func(msg string) {
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "-q", "-m", msg)
	}
	write("secrets/a.txt", "launch codes\n")
	write("docs/board minutes.md", "minutes\n")
	write("docs/tab\tname.txt", "x\n")
	write("secrets/vault.bin", "PK\x00\x01")
	write("secrets/EMPTY", "")
	commitAll("first")
	gitIn(t, dir, "mv", "secrets/a.txt", "docs/a.txt")
	if err := os.Chmod(filepath.Join(dir, "docs", "board minutes.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	commitAll("move")
	for i := range 40 {
		write(filepath.Join("bulk", fmt.Sprintf("a%02d.txt", i)), "x\n")
	}
	write("secrets/z-merger.txt", "codename BLUEJAY\n")
	commitAll("bulk import")
	out, capped, err := runGit(context.Background(), dir, maxLogBytes, logArgs()...)
	if err != nil {
		t.Fatal(err)
	}
	commits := parseLog(string(out), capped)
	if len(commits) != 3 {
		t.Fatalf("%d commits parsed, want 3", len(commits))
	}
	paths := func(c commit) []string {
		var ps []string
		for _, f := range c.Files {
			ps = append(ps, f.Path+"<"+f.From)
		}
		return ps
	}
	first, move, bulk := commits[2], commits[1], commits[0]
	for _, want := range []string{"secrets/a.txt<", "docs/board minutes.md<", "docs/tab\tname.txt<", "secrets/vault.bin<", "secrets/EMPTY<"} {
		if !slices.Contains(paths(first), want) {
			t.Errorf("first commit lists %q, lacking %q", paths(first), want)
		}
	}
	for _, want := range []string{"docs/a.txt<secrets/a.txt", "docs/board minutes.md<"} {
		if !slices.Contains(paths(move), want) {
			t.Errorf("move lists %q, lacking %q", paths(move), want)
		}
	}
	ev := bulk.event("acme/tool")
	if n := len(ev.Meta["files"].([]FileStat)); n != MaxFilesListed || ev.Meta["files_more"] != 1 {
		t.Errorf("bulk import keeps %d files and files_more %v; want %d and 1", n, ev.Meta["files_more"], MaxFilesListed)
	}
}

// TestContextInsideALargerRepositoryIsRefused: a context whose local_path
// is a folder of a larger repository let a peer read the rest of it (git
// log and status cover the whole repository). Its poll fails, saying what
// to set instead, and indexes nothing.
func TestContextInsideALargerRepositoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	for _, p := range []string{"web/app.go", "payroll/salaries.csv"} {
		writeIn(t, dir, p, "x\n")
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "payroll: raise the CEO's salary")
	b, err := Git{}.Poll(context.Background(), Repo{Ctx: "acme/web", Path: filepath.Join(dir, "web")}, mapCursors{})
	if err == nil || !strings.Contains(err.Error(), "is the folder web of the git repository") || len(b.Events) != 0 {
		t.Fatalf("poll of a folder of a repository: %d events, %v; want it refused", len(b.Events), err)
	}
	if _, err := (Git{}).Poll(context.Background(), Repo{Ctx: "acme/mono", Path: dir}, mapCursors{}); err != nil {
		t.Fatalf("the repository's top: %v", err)
	}
}

// TestParseLogKeepsACommitLargerThanTheCap: when the capped output holds one
// commit only, that commit is larger than the cap by itself; it is kept with
// its message and the files its raw lines name, the cut last line dropped.
func TestParseLogKeepsACommitLargerThanTheCap(t *testing.T) {
	out := "\x1e" + strings.Repeat("c", 40) + "\x1fSuzuki\x1f2025-03-10T10:00:00+09:00\x1fMerge the Symfony 6 upgrade\x1f\n" +
		":100644 100644 1111111 2222222 M\tcomposer.lock\n" +
		":000000 100644 0000000 3333333 A\tvendor/big/lib.php\n\n" +
		"diff --git a/composer.lock b/composer.lock\n--- a/composer.lock\n+++ b/composer.lock\n@@ -1,0 +1,2 @@\n+{\n+  \"packa"
	cs := parseLog(out, true)
	if len(cs) != 1 || cs[0].Message != "Merge the Symfony 6 upgrade" {
		t.Fatalf("capped single commit parsed as %+v", cs)
	}
	var paths []string
	for _, f := range cs[0].Files {
		paths = append(paths, f.Path)
	}
	if !containsStr(paths, "composer.lock") || !containsStr(paths, "vendor/big/lib.php") {
		t.Fatalf("files %v, want composer.lock and vendor/big/lib.php", paths)
	}
}

// TestExcerptCutsALongAddedLine: a single added line of a megabyte (a
// minified stylesheet) is cut to what the store keeps of a body, not kept
// whole.
func TestExcerptCutsALongAddedLine(t *testing.T) {
	patch := "diff --git a/style.min.css b/style.min.css\n--- a/style.min.css\n+++ b/style.min.css\n@@ -0,0 +1,2 @@\n+" +
		strings.Repeat("a{margin:0}", 100_000) + "\n+.b{padding:0}\n"
	files, excerpt := parsePatch(patch)
	if len(files) != 1 || files[0].Added != 2 {
		t.Fatalf("files = %+v", files)
	}
	if len(excerpt) != maxExcerptLine+1 || !strings.HasPrefix(excerpt, "a{margin:0}") {
		// All the store keeps of a body, so what is stored is as it was.
		t.Fatalf("excerpt of %d bytes, want %d", len(excerpt), maxExcerptLine+1)
	}
	// Lines that fit are kept whole, the last one too when it crosses
	// the excerpt's size.
	line := strings.Repeat("x", 100)
	var p strings.Builder
	p.WriteString("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -0,0 +1,30 @@\n")
	for i := 0; i < 30; i++ {
		p.WriteString("+" + line + "\n")
	}
	if _, excerpt := parsePatch(p.String()); !strings.HasSuffix(excerpt, line+"\n") || len(excerpt) != 21*(len(line)+1) {
		t.Fatalf("excerpt of %d bytes, want 21 whole lines", len(excerpt))
	}
}

// TestParseLogKeepsSeparatorBytesInsideAPatch: a file git shows as text
// may hold the record and field separators; they belong to its patch and
// make no commit of their own.
func TestParseLogKeepsSeparatorBytesInsideAPatch(t *testing.T) {
	rec := func(sha, msg, patch string) string {
		return "\x1e" + sha + "\x1fSuzuki\x1f2025-03-10T10:00:00+09:00\x1f" + msg + "\x1f\n" + patch
	}
	junk := "diff --git a/data.bin b/data.bin\n--- a/data.bin\n+++ b/data.bin\n@@ -0,0 +1 @@\n+ab\x1ecdefghijk\x1fx\x1fy\x1fz\x1fw\n" +
		"diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+more\n"
	out := rec(strings.Repeat("a", 40), "add fixture data", junk) + rec(strings.Repeat("b", 40), "second", "")
	cs := parseLog(out, false)
	if len(cs) != 2 || cs[0].Message != "add fixture data" || cs[1].Message != "second" {
		t.Fatalf("parsed %d commits: %+v", len(cs), cs)
	}
	if len(cs[0].Files) != 2 || cs[0].Files[0].Path != "data.bin" || cs[0].Files[1].Path != "notes.txt" {
		t.Fatalf("files of the first commit = %+v", cs[0].Files)
	}
}

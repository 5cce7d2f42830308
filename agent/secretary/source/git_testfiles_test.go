package source

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFailingTestsFromOutputFiles: go test -json, JUnit XML and a plain log
// left untracked in the working tree each yield their failures, without
// the log's summary noise; other files are not read.
func TestFailingTestsFromOutputFiles(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "FAIL: not a test file\n")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "init")
	write("test-results/lint.json", `{"Action":"run","Test":"TestLexerKansuji"}`+"\n"+`{"Action":"fail","Package":"x","Test":"TestLexerKansuji","Elapsed":0.1}`+"\n")
	write("test-results/junit.xml", `<testsuite><testcase name="fetchURL cancels when aborted" classname="c"><failure message="expected AbortError">x</failure></testcase><testcase name="ok"/></testsuite>`)
	write("build/unit-test.log", "[ RUN      ] Mem.Alloc\nFAIL: Mem.Alloc returned overlapping frames\n[  FAILED  ] Mem.Alloc (0 ms)\n[  FAILED  ] 1 test, listed below:\n")
	write("notes.txt", "FAIL: this is not test output\n")

	st, err := testFileState(context.Background(), Repo{Ctx: "acme/a", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, e := range st.Events {
		titles = append(titles, e.Title)
	}
	joined := strings.Join(titles, "\n")
	for _, want := range []string{"TestLexerKansuji", "fetchURL cancels when aborted: expected AbortError", "Mem.Alloc returned overlapping frames"} {
		if !strings.Contains(joined, want) {
			t.Errorf("failures %q lack %q", titles, want)
		}
	}
	if strings.Contains(joined, "listed below") || strings.Contains(joined, "not test output") || strings.Contains(joined, "not a test file") {
		t.Errorf("noise or unrelated files read: %q", titles)
	}
	if n := len(titles); n != 3 || slices.ContainsFunc(titles, func(s string) bool { return strings.HasSuffix(s, "(0 ms)") }) {
		t.Errorf("want exactly the 3 failures, got %q", titles)
	}
}

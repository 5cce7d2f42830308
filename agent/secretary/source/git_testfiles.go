package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Test output the owner's tools left in the working tree (go test -json,
// JUnit XML, plain logs with FAIL lines) is where failing tests are
// recorded when aoi did not run them itself. Files the working tree adds or
// changes whose names look like test output are read (bounded) and each
// failure becomes a "testfile" state event, which the secretary lists as
// a blocker.
const (
	maxTestFiles     = 20
	maxTestFileBytes = 1 << 20
	maxTestFailures  = 20
)

var (
	// A file whose name or folder says test output (test-results/x.json,
	// junit.xml, unit-test.log).
	testFileNameRE = regexp.MustCompile(`(?i)(test|junit|spec)[^/]*(/[^/]+)?\.(log|json|jsonl|xml|txt|out)$`)
	plainNoiseRE   = regexp.MustCompile(`^\d+ tests?,`)
	plainTimeRE    = regexp.MustCompile(`\s*\(\d+(\.\d+)? ?m?s\)$`)
	goJSONFailRE   = regexp.MustCompile(`"Action":"fail"[^\n]*?"Test":"([^"]+)"`)
	junitFailRE    = regexp.MustCompile(`(?s)<testcase[^>]*?name="([^"]+)"[^>]*>\s*<(?:failure|error)(?:[^>]*?message="([^"]*)")?`)
	plainFailRE    = regexp.MustCompile(`(?m)^\s*(?:--- FAIL:|FAIL:|\[\s*FAILED\s*\]|FAILED\b)\s*(.+)$`)
)

// testFileState lists the failures in the test output files of the
// uncommitted working tree.
func testFileState(ctx context.Context, repo Repo) (State, error) {
	st := State{Ctx: repo.Ctx, Kind: "testfile"}
	out, _, err := runGit(ctx, repo.Path, 1<<20, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return st, nil
	}
	files := 0
	for _, e := range strings.Split(string(out), "\x00") {
		if len(e) < 4 || files == maxTestFiles {
			continue
		}
		path := e[3:]
		if !testFileNameRE.MatchString(path) {
			continue
		}
		files++
		for _, f := range testFailures(filepath.Join(repo.Path, path)) {
			if len(st.Events) == maxTestFailures {
				return st, nil
			}
			st.Events = append(st.Events, Event{Key: path, Title: fmt.Sprintf("failing test (%s): %s", path, clipBytes(f, 200)),
				Meta: map[string]any{"file": path}})
		}
	}
	return st, nil
}

// testFailures reads one test output file and returns its failures.
func testFailures(path string) []string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxTestFileBytes {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	text := string(b)
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		for _, o := range out {
			if strings.HasPrefix(o, s) {
				return // a longer line about the same test is already listed
			}
		}
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, m := range goJSONFailRE.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	for _, m := range junitFailRE.FindAllStringSubmatch(text, -1) {
		if m[2] != "" {
			add(m[1] + ": " + m[2])
		} else {
			add(m[1])
		}
	}
	if len(out) == 0 {
		for _, m := range plainFailRE.FindAllStringSubmatch(text, -1) {
			if !plainNoiseRE.MatchString(m[1]) {
				add(plainTimeRE.ReplaceAllString(m[1], ""))
			}
		}
	}
	return out
}

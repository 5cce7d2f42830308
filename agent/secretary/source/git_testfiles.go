package source

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
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
	goJSONFailRE   = regexp.MustCompile(`"Action":"fail"(?:[^\n]*?"Package":"([^"]+)")?[^\n]*?"Test":"([^"]+)"`)
	goJSONOutRE    = regexp.MustCompile(`"Action":"output"[^\n]*?"Test":"([^"]+)"[^\n]*?"Output":"\s*\S+_test\.go:\d+: ([^"]+)"`)
	// name, not classname (pytest writes classname first).
	junitFailRE = regexp.MustCompile(`(?s)<testcase\b[^>]*?\sname="([^"]+)"[^>]*>\s*<(?:failure|error)(?:[^>]*?message="([^"]*)")?`)
	plainFailRE = regexp.MustCompile(`(?m)^\s*(?:--- FAIL:|FAIL:|\[\s*FAILED\s*\]|FAILED\b)\s*(.+)$`)
	// cargo test (libtest): "test db::tests::add ... FAILED" per test, and
	// the "failures:" list of names before "test result: FAILED.", which
	// is all a run with captured output interleaved may leave readable.
	// cargo nextest: "FAIL [   0.004s] crate db::tests::add".
	libtestFailRE = regexp.MustCompile(`(?m)^test (\S+)(?: - should panic)? \.\.\. FAILED\s*$`)
	libtestListRE = regexp.MustCompile(`(?m)^failures:\n((?:[ \t]+\S+[ \t]*\n)+)`)
	nextestFailRE = regexp.MustCompile(`(?m)^\s*(?:FAIL|SIGSEGV|SIGABRT|TIMEOUT) \[\s*[\d.]+m?s\]\s+(?:\(\s*\d+/\d+\)\s+)?(\S+(?: \S+)?)\s*$`)
	// A test's panic: "thread 'x' panicked at src/a.rs:3:5:\nmessage"
	// (Rust 1.73 on), "thread 'x' panicked at 'message', src/a.rs:3:5"
	// before.
	libtestPanicRE    = regexp.MustCompile(`(?m)^thread '([^']+)' panicked at [^'\n]*:\n([^\n]+)`)
	libtestOldPanicRE = regexp.MustCompile(`(?m)^thread '([^']+)' panicked at '([^\n]*)', \S+$`)
)

// testFileState lists the failures in the test output files: those the
// globs name (test_outputs), else the files of the uncommitted working
// tree whose names look like test output.
func testFileState(ctx context.Context, repo Repo, globs []string) (State, error) {
	st := State{Ctx: repo.Ctx, Kind: "testfile"}
	paths := globbedTestFiles(repo.Path, globs)
	if len(globs) == 0 {
		paths = changedTestFiles(ctx, repo)
	}
	for _, path := range paths {
		for _, f := range testFailures(filepath.Join(repo.Path, filepath.FromSlash(path))) {
			if len(st.Events) == maxTestFailures {
				return st, nil
			}
			// The body is the test's package (go test -json names it):
			// what the failure is about when the test's name says little.
			st.Events = append(st.Events, Event{Key: path, Title: fmt.Sprintf("failing test (%s): %s", path, clipBytes(f.test, 200)),
				Body: f.pkg, Meta: map[string]any{"file": path}})
		}
	}
	return st, nil
}

// changedTestFiles are the files the working tree adds or changes whose
// name or folder says test output, by where they lead (inRepo), and those
// git ignores: test output is mostly written where .gitignore keeps it
// out of commits (Python's and Node's templates ignore *.log; many
// projects ignore test-results/ or junit.xml). A folder ignored whole is
// listed by git as one entry without reading it (node_modules/ costs
// nothing); when its name says test output (test-results/), the files
// directly in it are looked at.
func changedTestFiles(ctx context.Context, repo Repo) []string {
	out, _, err := runGit(ctx, repo.Path, 1<<20, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching")
	if err != nil {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(repo.Path)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		if len(paths) == maxTestFiles || !testFileNameRE.MatchString(p) {
			return
		}
		if rel, ok := inRepo(realRoot, filepath.Join(repo.Path, filepath.FromSlash(p))); ok && !seen[rel] {
			seen[rel] = true
			paths = append(paths, rel)
		}
	}
	for _, e := range strings.Split(string(out), "\x00") {
		if len(e) < 4 {
			continue
		}
		p := e[3:]
		if !strings.HasPrefix(e, "!! ") || !strings.HasSuffix(p, "/") {
			add(p)
			continue
		}
		if !testDirRE.MatchString(p) {
			continue
		}
		entries, _ := os.ReadDir(filepath.Join(repo.Path, filepath.FromSlash(p)))
		for _, d := range entries {
			if d.Type().IsRegular() || d.Type()&os.ModeSymlink != 0 {
				add(p + d.Name())
			}
		}
	}
	return paths
}

// testDirRE is an ignored folder whose name says test output
// (test-results/, build/junit/).
var testDirRE = regexp.MustCompile(`(?i)(^|/)[^/]*(test|junit|spec)[^/]*/$`)

// globbedTestFiles are the files the globs match inside root (a matched
// folder stands for the files directly in it), repository-relative by
// where they lead (inRepo) and sorted.
func globbedTestFiles(root string, globs []string) []string {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var paths []string
	add := func(full string) {
		if rel, ok := inRepo(realRoot, full); ok && !seen[rel] {
			seen[rel] = true
			paths = append(paths, rel)
		}
	}
	for _, g := range globs {
		matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.IsDir() {
				entries, _ := os.ReadDir(m)
				for _, e := range entries {
					add(filepath.Join(m, e.Name()))
				}
				continue
			}
			add(m)
		}
	}
	sort.Strings(paths)
	if len(paths) > maxTestFiles {
		paths = paths[:maxTestFiles]
	}
	return paths
}

// inRepo is the repository-relative path (with slashes) of the regular
// file full really is, links followed: a link's own name would let a
// folder rule judge test-results/x.log while the text read is
// secrets/x.log. ok is false for a file outside the repository (realRoot,
// itself resolved) or not a regular file.
func inRepo(realRoot, full string) (string, bool) {
	real, err := filepath.EvalSymlinks(full)
	if err != nil || !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
		return "", false
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() || linkCount(fi) > 1 {
		// A hard link has other names, perhaps in a folder a rule keeps
		// from the asker, and nothing tells which: test output is
		// written fresh, never linked, so such a file is not read.
		return "", false
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// linkCount is how many names (hard links) the file has; 1 when the
// platform does not say.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// testFailure is a failing test as output names it, with its package
// when the output gives one.
type testFailure struct{ test, pkg string }

// testFailures reads one test output file and returns its failures.
func testFailures(path string) []testFailure {
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
	var out []testFailure
	add := func(s, pkg string) {
		s = strings.TrimSpace(s)
		for _, o := range out {
			if strings.HasPrefix(o.test, s) {
				return // a longer line about the same test is already listed
			}
		}
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, testFailure{test: s, pkg: pkg})
		}
	}
	// go test -json gives a failure's reason in the test's output lines:
	// the first "file_test.go:NN: message" goes with its name, as JUnit's
	// and cargo's messages do.
	why := map[string]string{}
	for _, m := range goJSONOutRE.FindAllStringSubmatch(text, -1) {
		if why[m[1]] == "" {
			why[m[1]] = strings.TrimSpace(strings.ReplaceAll(m[2], `\n`, ""))
		}
	}
	for _, m := range goJSONFailRE.FindAllStringSubmatch(text, -1) {
		if w := why[m[2]]; w != "" {
			add(m[2]+": "+w, m[1])
		} else {
			add(m[2], m[1])
		}
	}
	for _, m := range junitFailRE.FindAllStringSubmatch(text, -1) {
		// XML attributes escape quotes (password=&quot;…&quot;): the
		// text is unescaped so the redactor sees what a reader does.
		name, msg := html.UnescapeString(m[1]), html.UnescapeString(m[2])
		if msg != "" {
			add(name+": "+msg, "")
		} else {
			add(name, "")
		}
	}
	// The plain-text formats, in turn, until one finds a failure.
	for _, parse := range logParsers {
		if len(out) > 0 {
			break
		}
		parse(text, add)
	}
	if len(out) == 0 {
		for _, m := range plainFailRE.FindAllStringSubmatch(text, -1) {
			if !plainNoiseRE.MatchString(m[1]) {
				add(plainTimeRE.ReplaceAllString(m[1], ""), "")
			}
		}
	}
	return out
}

// logParsers read the test runners' plain-text logs; testFailures tries
// them in this order once the structured formats found nothing.
var logParsers = []func(text string, add func(test, pkg string)){
	libtestFailures, goTestFailures, jestFailures, exunitFailures, xctestFailures,
	vstestFailures, minitestFailures, quickCheckFailures, phpunitFailures, gradleFailures, bustedFailures,
}

// goTestFailures reads plain `go test` output: each "--- FAIL: TestX"
// with the message on the line under it, and the package the "FAIL\tpkg"
// line after a package's tests names, which is what the test is about (the
// second walk's "what blocks billing?" missed TestTotal of
// example.com/webapp/billing: it had no package).
func goTestFailures(text string, add func(test, pkg string)) {
	var pending []string
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if m := goFailRE.FindStringSubmatch(l); m != nil {
			name := m[1]
			if i+1 < len(lines) {
				if msg := goFailMsgRE.FindStringSubmatch(lines[i+1]); msg != nil {
					name += ": " + strings.TrimSpace(msg[1])
				}
			}
			pending = append(pending, name)
			continue
		}
		if m := goPkgFailRE.FindStringSubmatch(l); m != nil {
			for _, n := range pending {
				add(n, m[1])
			}
			pending = nil
		}
	}
	for _, n := range pending {
		add(n, "")
	}
}

// Plain go test output: "--- FAIL: TestX (0.00s)", the message under it
// ("    x_test.go:12: got 99"), and the package's "FAIL\tpkg\t0.003s".
var (
	goFailRE    = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	goFailMsgRE = regexp.MustCompile(`^\s+\S+_test\.go:\d+: (.+)$`)
	goPkgFailRE = regexp.MustCompile(`^FAIL\s+(\S+)\s+(?:[\d.]+s|\[)`)
)

// libtestFailures finds the failing tests of cargo test (libtest) and
// cargo nextest output, each with its panic message when the output has
// one ("db::tests::add_and_remove: database file not found after save").
func libtestFailures(text string, add func(test, pkg string)) {
	var names []string
	for _, m := range libtestFailRE.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		for _, m := range libtestListRE.FindAllStringSubmatch(text, -1) {
			names = append(names, strings.Fields(m[1])...)
		}
	}
	for _, m := range nextestFailRE.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	why := map[string]string{}
	for _, m := range append(libtestPanicRE.FindAllStringSubmatch(text, -1), libtestOldPanicRE.FindAllStringSubmatch(text, -1)...) {
		if msg := strings.TrimSpace(m[2]); msg != "" && why[m[1]] == "" {
			why[m[1]] = msg
		}
	}
	for _, n := range names {
		// The module path is what the test is about: "db::tests" of
		// db::tests::add_and_remove.
		pkg := ""
		if i := strings.LastIndex(n, "::"); i > 0 {
			pkg = n[:i]
		}
		if msg := why[n]; msg != "" {
			n += ": " + msg
		}
		add(n, pkg)
	}
}

// Jest and Vitest output: a failing file's "FAIL src/x.test.ts" line, then
// for each failing test a "● Suite › test" heading with the error under it
// (Jest), or "FAIL src/x.test.ts > Suite > test" with the error on the next
// line (Vitest); "✕ test" / "× test" marks each failed test in the list.
var (
	jestFileRE   = regexp.MustCompile(`^\s*(FAIL|PASS)\s+(\S+\.[cm]?[jt]sx?)\s*$`)
	jestBulletRE = regexp.MustCompile(`^\s*● (.+?)\s*$`)
	vitestFailRE = regexp.MustCompile(`^\s*FAIL\s+(\S+\.[cm]?[jt]sx?)\s+>\s+(.+?)\s*$`)
	jestCrossRE  = regexp.MustCompile(`^\s*[✕×] (.+?)(?:\s+\(\d+(?:\.\d+)?\s?m?s\))?\s*$`)
)

// jestFailures finds the failing tests of Jest or Vitest output, each with
// the first line of its error and the test file as its package.
func jestFailures(text string, add func(test, pkg string)) {
	lines := strings.Split(text, "\n")
	file, found := "", false
	for i, l := range lines {
		if m := jestFileRE.FindStringSubmatch(l); m != nil {
			file = "" // a passing file's "● Console" is no failure
			if m[1] == "FAIL" {
				file = m[2]
			}
			continue
		}
		name := ""
		if m := vitestFailRE.FindStringSubmatch(l); m != nil {
			file, name = m[1], m[2]
		} else if m := jestBulletRE.FindStringSubmatch(l); m != nil && file != "" && m[1] != "Console" {
			name = m[1]
		}
		if name == "" {
			continue
		}
		if msg := nextLine(lines[i+1:], jestBulletRE, vitestFailRE); msg != "" {
			name += ": " + msg
		}
		add(name, file)
		found = true
	}
	if found {
		return
	}
	file = ""
	for _, l := range lines { // a summary without the errors: the ✕ list
		if m := jestFileRE.FindStringSubmatch(l); m != nil {
			file = m[2]
		} else if m := jestCrossRE.FindStringSubmatch(l); m != nil {
			add(m[1], file)
		}
	}
}

// ExUnit (`mix test`): each failure is numbered, "  1) test name
// (Module)", with its test file's line under it and the assertion after.
var (
	exunitFailRE = regexp.MustCompile(`^\s*\d+\) test (.+?) \(([\w.]+)\)\s*$`)
	exunitFileRE = regexp.MustCompile(`^\s*(\S+\.exs?):\d+\s*$`)
)

// exunitFailures finds the failing tests of ExUnit output, each with its
// assertion's first line and its test file as its package.
func exunitFailures(text string, add func(test, pkg string)) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		m := exunitFailRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name, pkg, rest := m[1], m[2], lines[i+1:]
		if len(rest) > 0 {
			if f := exunitFileRE.FindStringSubmatch(rest[0]); f != nil {
				pkg, rest = f[1], rest[1:]
			}
		}
		if msg := nextLine(rest, exunitFailRE); msg != "" {
			name += ": " + msg
		}
		add(name, pkg)
	}
}

// XCTest (`swift test`, Xcode): "File.swift:12: error: -[Module.Class
// testName] : XCTAssertEqual failed: …" on Apple platforms, "error:
// Class.testName : …" from swift-corelibs on Linux; else only the "Test
// Case '-[Module.Class testName]' failed" line.
var (
	xctestErrorRE  = regexp.MustCompile(`(?m)^(\S+\.swift):\d+: error: -?\[?(?:[\w]+\.)?(\w+)[ .](\w+)\]? : (.+)$`)
	xctestFailedRE = regexp.MustCompile(`(?m)^Test Case '-?\[?(?:\w+\.)?(\w+)[ .](\w+)\]?' failed`)
)

// xctestFailures finds the failing tests of XCTest output, each with its
// assertion and its test file as its package.
func xctestFailures(text string, add func(test, pkg string)) {
	for _, m := range xctestErrorRE.FindAllStringSubmatch(text, -1) {
		add(m[2]+"."+m[3]+": "+m[4], m[1])
	}
	for _, m := range xctestFailedRE.FindAllStringSubmatch(text, -1) {
		add(m[1]+"."+m[2], "") // kept out when its error line was listed
	}
}

// VSTest (`dotnet test`): "  Failed Namespace.Class.Test [18 ms]", then
// "Error Message:" with the assertion on the lines under it, and a stack
// trace ending "in File.cs:line N".
var (
	vstestFailRE = regexp.MustCompile(`^\s*Failed (\S+) \[[^\]]*\]\s*$`)
	vstestFileRE = regexp.MustCompile(`\bin (\S+\.(?:cs|fs|vb)):line \d+`)
	vstestHeadRE = regexp.MustCompile(`^\s*(?:Error Message:|Stack Trace:|Failed |Passed |Skipped )`)
)

// vstestFailures finds the failing tests of `dotnet test` output, each with
// its assertion and its test file as its package.
func vstestFailures(text string, add func(test, pkg string)) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		m := vstestFailRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name, pkg := m[1], ""
		rest := lines[i+1:]
		for j, r := range rest {
			if j == 40 || vstestFailRE.MatchString(r) {
				break
			}
			if strings.TrimSpace(r) == "Error Message:" {
				if msg := nextLine(rest[j+1:], vstestHeadRE); msg != "" {
					name += ": " + msg
				}
			}
			if f := vstestFileRE.FindStringSubmatch(r); f != nil && pkg == "" {
				pkg = f[1]
			}
		}
		add(name, pkg)
	}
}

// minitest (`rake test`): "Failure:" (or "Error:", "  1) Failure:") on a
// line of its own, then "Class#test_name [file:line]:" and the message.
var (
	minitestHeadRE = regexp.MustCompile(`^\s*(?:\d+\) )?(?:Failure|Error):\s*$`)
	minitestTestRE = regexp.MustCompile(`^\s*(\S.*?#\S+) \[([^\]:]+):\d+\]:?\s*$`)
)

// minitestFailures finds the failing tests of minitest output, each with
// the first line of its message and its test file as its package.
func minitestFailures(text string, add func(test, pkg string)) {
	lines := strings.Split(text, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !minitestHeadRE.MatchString(lines[i]) {
			continue
		}
		m := minitestTestRE.FindStringSubmatch(lines[i+1])
		if m == nil {
			continue
		}
		name := m[1]
		if msg := nextLine(lines[i+2:], minitestHeadRE); msg != "" {
			name += ": " + msg
		}
		add(name, m[2])
	}
}

// QuickCheck's runner (quickCheckAll, as ShellCheck's test suite prints
// it): "=== prop_name from src/File.hs:12 ===" and, under a failing
// property, "*** Failed! …" with the counterexample on the next line.
var (
	quickCheckPropRE = regexp.MustCompile(`^=== (\S+) from ([^\s:]+):\d+ ===\s*$`)
	quickCheckFailRE = regexp.MustCompile(`^\*\*\* Failed!`)
)

// quickCheckFailures finds the failing properties of QuickCheck output,
// each with its counterexample and its source file as its package.
func quickCheckFailures(text string, add func(test, pkg string)) {
	lines := strings.Split(text, "\n")
	for i := 0; i+1 < len(lines); i++ {
		m := quickCheckPropRE.FindStringSubmatch(lines[i])
		if m == nil || !quickCheckFailRE.MatchString(lines[i+1]) {
			continue
		}
		name := m[1]
		if msg := nextLine(lines[i+2:], quickCheckPropRE); msg != "" {
			name += ": " + msg
		}
		add(name, m[2])
	}
}

// PHPUnit: "There was 1 failure:" (or "There were 2 errors:"), then each
// "1) Namespace\\ClassTest::testName" with its message under it and the
// file:line it failed at after a blank line.
var (
	phpunitListRE = regexp.MustCompile(`^There (?:was|were) \d+ ([\w ]+?):\s*$`)
	phpunitTestRE = regexp.MustCompile(`^\d+\) (\S+::\S+?)(?: with data set .*)?\s*$`)
	phpunitFileRE = regexp.MustCompile(`^(\S+\.php):\d+\s*$`)
)

// phpunitFailures finds the failing tests of PHPUnit output, each with the
// first line of its message and its test file as its package.
func phpunitFailures(text string, add func(test, pkg string)) {
	lines := strings.Split(text, "\n")
	listed := false
	for i, l := range lines {
		if h := phpunitListRE.FindStringSubmatch(l); h != nil {
			// Risky, skipped and incomplete tests and warnings are
			// listed the same way; they are not failures.
			kind := strings.TrimSuffix(h[1], "s")
			listed = kind == "failure" || kind == "error"
			continue
		}
		m := phpunitTestRE.FindStringSubmatch(l)
		if !listed || m == nil {
			continue
		}
		name, pkg := m[1], ""
		if msg := nextLine(lines[i+1:], phpunitTestRE, phpunitFileRE); msg != "" {
			name += ": " + msg
		}
		for j, r := range lines[i+1:] {
			if j == 40 || phpunitTestRE.MatchString(r) {
				break
			}
			if f := phpunitFileRE.FindStringSubmatch(r); f != nil {
				pkg = f[1]
				break
			}
		}
		add(name, pkg)
	}
}

// Gradle's test logging: "pkg.ClassTest > testName FAILED" (a Kotlin
// Multiplatform target in brackets after either), the exception indented
// under it, and a stack trace whose frames name the test's source file.
var (
	gradleFailRE  = regexp.MustCompile(`^\s*([\w.$]+)(?:\[\w+\])? > (.+?)(?:\[\w+\])? FAILED\s*$`)
	gradleFrameRE = regexp.MustCompile(`^\s*at \S+\((\w+\.(?:kt|java|groovy|scala)):\d+\)`)
)

// gradleFailures finds the failing tests of Gradle output, each with its
// exception and the test's source file as its package.
func gradleFailures(text string, add func(test, pkg string)) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		m := gradleFailRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		class := m[1]
		name, pkg := class+"."+strings.TrimSuffix(m[2], "()"), ""
		if msg := nextLine(lines[i+1:], gradleFailRE, gradleFrameRE); msg != "" {
			name += ": " + msg
		}
		simple := class[strings.LastIndexByte(class, '.')+1:]
		for j, r := range lines[i+1:] {
			if j == 40 || gradleFailRE.MatchString(r) {
				break
			}
			if f := gradleFrameRE.FindStringSubmatch(r); f != nil && strings.HasPrefix(f[1], simple+".") {
				pkg = f[1]
				break
			}
		}
		add(name, pkg)
	}
}

// busted (Lua): "Failure → spec/file_spec.lua @ 12" ("->" in its plain
// output, "Error" for an error), the test's full name on the next line and
// "file:line: message" after it.
var (
	bustedFailRE = regexp.MustCompile(`^(?:Failure|Error) (?:→|->) (\S+\.lua) @ \d+\s*$`)
	bustedMsgRE  = regexp.MustCompile(`^\S+\.lua:\d+: (.+)$`)
)

// bustedFailures finds the failing tests of busted output, each with its
// message and its spec file as its package.
func bustedFailures(text string, add func(test, pkg string)) {
	lines := strings.Split(text, "\n")
	for i := 0; i+1 < len(lines); i++ {
		m := bustedFailRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		name := strings.TrimSpace(lines[i+1])
		if name == "" {
			continue
		}
		if i+2 < len(lines) {
			if msg := bustedMsgRE.FindStringSubmatch(strings.TrimSpace(lines[i+2])); msg != nil {
				name += ": " + msg[1]
			}
		}
		add(name, m[1])
	}
}

// nextLine is the first line of lines with text, before the next
// failure's heading (a line one of headings matches; "" if none within a
// few lines).
func nextLine(lines []string, headings ...*regexp.Regexp) string {
	for i, l := range lines {
		if i == 6 || slices.ContainsFunc(headings, func(h *regexp.Regexp) bool { return h.MatchString(l) }) {
			break
		}
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

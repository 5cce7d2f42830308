package task

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goTestJSON runs real `go test -json` on a tiny module made here: one
// passing, one failing and one skipped test, plus a package that does not
// build.
func goTestJSON(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/tiny\n\ngo 1.21\n",
		"tiny_test.go": `package tiny
import "testing"
func TestPass(t *testing.T) {}
func TestFail(t *testing.T) { t.Errorf("boom: want 2, got 3") }
func TestSkip(t *testing.T) { t.Skip("not today") }
`,
		"broken/broken.go": "package broken\nfunc x() int { return \"nope\" }\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, text)
	}
	cmd := exec.Command("go", "test", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // mixed, as the runner captures it
	if err := cmd.Run(); err == nil {
		t.Fatal("go test should fail on this module")
	}
	return out.Bytes()
}

func TestParseGoTestJSON(t *testing.T) {
	c, err := ParseGoTestJSON(bytes.NewReader(goTestJSON(t)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Run != 3 || c.Passed != 1 || c.Failed != 1 || c.Skipped != 1 {
		t.Fatalf("counts = %+v, want run 3, passed 1, failed 1, skipped 1", c)
	}
	if len(c.Failures) != 2 {
		t.Fatalf("failures = %+v, want TestFail and the broken package", c.Failures)
	}
	var sawTest, sawBuild bool
	for _, f := range c.Failures {
		switch {
		case f.Test == "TestFail":
			sawTest = f.Package == "example.com/tiny" && strings.Contains(f.Message, "boom: want 2, got 3") &&
				!strings.Contains(f.Message, "--- FAIL")
		case f.Test == "" && f.Package == "example.com/tiny/broken":
			sawBuild = true
		}
	}
	if !sawTest || !sawBuild {
		t.Fatalf("failures = %+v", c.Failures)
	}
}

func TestParseGoTestJSONSkipsNoise(t *testing.T) {
	long := strings.Repeat("x", 2<<20)
	in := "not json\n" + long + "\n" + `{"Action":"pass","Package":"p","Test":"TestA"}` + "\n{broken\n"
	c, err := ParseGoTestJSON(strings.NewReader(in))
	if err != nil || c.Run != 1 || c.Passed != 1 {
		t.Fatalf("counts = %+v, err %v", c, err)
	}
}

func TestParseJUnit(t *testing.T) {
	f, err := os.Open("testdata/junit.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := ParseJUnit(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.Run != 5 || c.Passed != 2 || c.Failed != 2 || c.Skipped != 1 {
		t.Fatalf("counts = %+v, want run 5, passed 2, failed 2, skipped 1", c)
	}
	if c.Failures[0].Test != "rejects a bad password" || c.Failures[0].Package != "auth.login" ||
		!strings.Contains(c.Failures[0].Message, "login.test.js:42") {
		t.Fatalf("first failure = %+v", c.Failures[0])
	}
	if c.Failures[1].Message != "TypeError: x is undefined" {
		t.Fatalf("second failure = %+v", c.Failures[1])
	}
}

func TestParseJUnitAfterOtherOutput(t *testing.T) {
	in := "building…\n<testsuite name=\"s\"><testcase name=\"a\"/></testsuite>\n"
	c, err := ParseJUnit(strings.NewReader(in))
	if err != nil || c.Run != 1 || c.Passed != 1 {
		t.Fatalf("counts = %+v, err %v", c, err)
	}
	if _, err := ParseJUnit(strings.NewReader("no report here")); err == nil {
		t.Fatal("output without a report must be an error")
	}
}

func TestParseOutputFormats(t *testing.T) {
	if c, err := ParseOutput("", strings.NewReader("x")); c != nil || err != nil {
		t.Fatal("no format means no counts")
	}
	if _, err := ParseOutput("tap", strings.NewReader("x")); err == nil {
		t.Fatal("an unknown format must be an error")
	}
	c, err := ParseOutput("go-test-json", strings.NewReader(`{"Action":"fail","Package":"p","Test":"T"}`))
	if err != nil || c == nil || c.Failed != 1 {
		t.Fatalf("counts = %+v, err %v", c, err)
	}
}

func TestFailureListIsBounded(t *testing.T) {
	var b strings.Builder
	for range 200 {
		b.WriteString(`{"Action":"output","Package":"p","Test":"T","Output":"` + strings.Repeat("y", 100) + `\n"}` + "\n")
		b.WriteString(`{"Action":"fail","Package":"p","Test":"T"}` + "\n")
	}
	c, _ := ParseGoTestJSON(strings.NewReader(b.String()))
	if c.Failed != 200 || len(c.Failures) != maxFailures {
		t.Fatalf("failed %d, listed %d", c.Failed, len(c.Failures))
	}
	if len(c.Failures[0].Message) > maxFailureMessage+len("…") {
		t.Fatalf("message is %d bytes", len(c.Failures[0].Message))
	}
}

// TestReadableTail: the tail of go test -json output reads as plain go
// test output (what the tests printed), keeping text that is not an event;
// other formats pass unchanged.
func TestReadableTail(t *testing.T) {
	tail := `t":"2026-11-25T08:59:34Z","Action":"run"}
{"Action":"output","Package":"example.com/webapp/auth","Test":"TestLogin","Output":"=== RUN   TestLogin\n"}
{"Action":"output","Package":"example.com/webapp/auth","Test":"TestLogin","Output":"--- PASS: TestLogin (0.00s)\n"}
{"Action":"pass","Package":"example.com/webapp/auth","Test":"TestLogin","Elapsed":0}
# a line of stderr
{"Action":"output","Package":"example.com/webapp/auth","Output":"ok  \texample.com/webapp/auth\t0.01s\n"}
`
	want := `t":"2026-11-25T08:59:34Z","Action":"run"}
=== RUN   TestLogin
--- PASS: TestLogin (0.00s)
# a line of stderr
ok  	example.com/webapp/auth	0.01s
`
	if got := ReadableTail("go-test-json", tail); got != want {
		t.Errorf("readable tail:\n%s\nwant:\n%s", got, want)
	}
	if got := ReadableTail("junit", tail); got != tail {
		t.Errorf("a junit tail changed:\n%s", got)
	}
}

package task

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aoi-protocol/aoi/internal/utf8cut"
)

// Bounds on what a parsed result carries back to the requester.
const (
	maxFailures       = 50
	maxFailureMessage = 1000
	maxFailureName    = 256     // a test's or package's name, as sent
	maxTestOutput     = 4 << 10 // per test, while parsing
	maxJUnitBytes     = 16 << 20
)

// Counts are the test results parsed from a task's output.
type Counts struct {
	Run      int       `json:"tests_run"`
	Passed   int       `json:"tests_passed"`
	Failed   int       `json:"tests_failed"`
	Skipped  int       `json:"tests_skipped"`
	Failures []Failure `json:"failures,omitempty"`
}

// Failure is one failed test (or a package that failed to build, Test "").
// Every field is RAW task output (a test's name too: t.Run(tc.token, …)):
// redact it before it leaves the machine.
type Failure struct {
	Test    string `json:"test,omitempty"`
	Package string `json:"package,omitempty"`
	Message string `json:"message,omitempty"`
}

// ParseOutput parses output in the given config output format
// ("go-test-json" or "junit"); for "" it returns nil, nil.
func ParseOutput(format string, r io.Reader) (*Counts, error) {
	var (
		c   Counts
		err error
	)
	switch format {
	case "":
		return nil, nil
	case "go-test-json":
		c, err = ParseGoTestJSON(r)
	case "junit":
		c, err = ParseJUnit(r)
	default:
		return nil, fmt.Errorf("unknown task output format %q (known: go-test-json, junit)", format)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *Counts) addFailure(f Failure) {
	if len(c.Failures) >= maxFailures {
		return
	}
	f.Message = clip(strings.TrimSpace(f.Message), maxFailureMessage)
	// Room for the redactor to see a secret whole before the name is cut
	// to maxFailureName (Engine.counts).
	f.Test, f.Package = utf8cut.Ellipsis(f.Test, maxTestOutput), utf8cut.Ellipsis(f.Package, maxTestOutput)
	c.Failures = append(c.Failures, f)
}

// clip keeps the end of s (where the error usually is) within n bytes.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// testEvent is one line of `go test -json` (cmd/test2json).
type testEvent struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

// ReadableTail is the tail of a task's output as a person reads it: for
// go-test-json, what the tests printed (each event's Output, as plain `go
// test` shows it) instead of one JSON event a line; any other format, and
// any line that is not such an event (a cut first line, a build's own
// text), unchanged.
func ReadableTail(format, tail string) string {
	if format != "go-test-json" {
		return tail
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(tail, "\n") {
		var ev testEvent
		switch {
		case strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &ev) == nil:
			if ev.Action == "output" || ev.Action == "build-output" {
				b.WriteString(ev.Output)
			}
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

// ParseGoTestJSON counts the tests in a `go test -json` stream. Lines that
// are not JSON (stderr mixed in) are skipped; a package that fails without
// a failing test (a build error) is reported as a failure with Test "".
func ParseGoTestJSON(r io.Reader) (Counts, error) {
	var c Counts
	output := map[[2]string]string{} // (package, test) → recent output
	testFailed := map[string]bool{}  // package → some test failed
	err := eachLine(r, func(line []byte) {
		var ev testEvent
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			return
		}
		pkg := ev.Package
		if pkg == "" {
			pkg = ev.ImportPath
		}
		key := [2]string{pkg, ev.Test}
		switch ev.Action {
		case "output", "build-output":
			output[key] = clip(output[key]+ev.Output, maxTestOutput)
		case "pass", "fail", "skip":
			if ev.Test == "" {
				if ev.Action == "fail" && !testFailed[pkg] {
					c.addFailure(Failure{Package: pkg, Message: failureText(output[key])})
				}
				delete(output, key)
				return
			}
			c.Run++
			switch ev.Action {
			case "pass":
				c.Passed++
			case "skip":
				c.Skipped++
			case "fail":
				c.Failed++
				testFailed[pkg] = true
				c.addFailure(Failure{Test: ev.Test, Package: pkg, Message: failureText(output[key])})
			}
			delete(output, key)
		}
	})
	return c, err
}

// failureText drops go test's own framing lines from a test's output.
func failureText(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || t == "FAIL" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- FAIL") ||
			strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "exit status") {
			continue
		}
		keep = append(keep, t)
	}
	return strings.Join(keep, "\n")
}

// eachLine calls fn for every line of r, skipping the rest of any line
// longer than 1 MiB instead of failing.
func eachLine(r io.Reader, fn func([]byte)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			line = nil
		}
		fn(bytes.TrimSpace(line))
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read test output: %w", err)
		}
	}
}

// junitSuite covers both <testsuites> and <testsuite>, which may nest.
type junitSuite struct {
	Name   string       `xml:"name,attr"`
	Suites []junitSuite `xml:"testsuite"`
	Cases  []junitCase  `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitProblem `xml:"skipped"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// ParseJUnit counts the test cases of a JUnit XML report. The report may be
// preceded by other output (it is looked for from the first <testsuite).
func ParseJUnit(r io.Reader) (Counts, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxJUnitBytes))
	if err != nil {
		return Counts{}, fmt.Errorf("read JUnit report: %w", err)
	}
	i := bytes.Index(data, []byte("<testsuite"))
	if i < 0 {
		return Counts{}, errors.New("no JUnit XML report (<testsuite>) in the task output")
	}
	var root junitSuite
	if err := xml.Unmarshal(data[i:], &root); err != nil {
		return Counts{}, fmt.Errorf("parse JUnit report: %w", err)
	}
	var c Counts
	c.addSuite(root)
	return c, nil
}

func (c *Counts) addSuite(s junitSuite) {
	for _, tc := range s.Cases {
		c.Run++
		problem := tc.Failure
		if problem == nil {
			problem = tc.Error
		}
		switch {
		case problem != nil:
			c.Failed++
			msg := strings.TrimSpace(problem.Message + "\n" + problem.Text)
			c.addFailure(Failure{Test: tc.Name, Package: tc.Classname, Message: msg})
		case tc.Skipped != nil:
			c.Skipped++
		default:
			c.Passed++
		}
	}
	for _, sub := range s.Suites {
		c.addSuite(sub)
	}
}

package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// hostile is peer text that tries to drive the terminal: colour, clear
// screen, an OSC 52 clipboard write, an 8-bit CSI, a carriage return and a
// bidi override.
const hostile = "JWT \x1b[31mdone\x1b[0m\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07 75%\u009b31m\rEVIL\u202e!"

func assertInert(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\u009b", "\r", "\a", "\u202e", "]52;"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s still holds %q: %q", what, bad, out)
		}
	}
	if !strings.Contains(out, "JWT done") || !strings.Contains(out, "75%") {
		t.Errorf("%s lost the visible text: %q", what, out)
	}
}

func TestPeerTextIsSanitised(t *testing.T) {
	assertInert(t, "table cell", cell(hostile, 0))
	if strings.Contains(cell("a\nb", 0), "\n") {
		t.Error("a table cell kept a newline")
	}

	var b bytes.Buffer
	data, _ := json.Marshal(wire.QueryResult{Summary: hostile, Blockers: []string{hostile}, Completed: true})
	printMessage(&b, agent.Message{Seq: 1, From: "eng\x1b[2Jx", Event: wire.EventQueryCompleted, Data: data})
	assertInert(t, "answer", b.String())

	b.Reset()
	printInbox(&b, inboxOutput{Queries: []agent.Query{{ID: "q1", From: "pm", Text: hostile, State: "escalated"}}}, 0)
	assertInert(t, "inbox", b.String())

	b.Reset()
	printTask(&b, agent.Task{ID: "t1", Error: hostile, Output: json.RawMessage(`"` + "ok" + `"`)})
	assertInert(t, "task", b.String())
}

// TestApprovalParamsShowHiddenCharacters: `aoi approvals` and `aoi task`
// show a parameter with a bidi override or a C1 control escaped, so the
// owner approves what runs rather than a cleaned-up look-alike.
func TestApprovalParamsShowHiddenCharacters(t *testing.T) {
	got := cell(formatParams(map[string]string{"msg": "w\u202eb\u009b31mC1", "suite": "auth"}), 0)
	if want := `msg="w\u202eb\u009b31mC1" suite=auth`; got != want {
		t.Fatalf("params shown as %s, want %s", got, want)
	}
}

// TestMachineOutputIsInertOnATerminal: the attack run's cases. --json
// output writes a C1 control or a bidi override as a \u escape (decoding to
// the same text), the CSV audit export writes peer controls as visible
// escapes, and an error carrying a peer's words prints without its escape
// sequences.
func TestMachineOutputIsInertOnATerminal(t *testing.T) {
	var b bytes.Buffer
	a := &app{stdout: &b, stderr: &b, jsonOut: true}
	if err := a.printJSON(agent.Peer{AgentID: "x", Endpoint: "127.0.0.1\u202e\u009b31m:1"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\u202e", "\u009b"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("--json output holds %q raw: %q", bad, b.String())
		}
	}
	var p agent.Peer
	if err := json.Unmarshal(b.Bytes(), &p); err != nil || p.Endpoint != "127.0.0.1\u202e\u009b31m:1" {
		t.Errorf("--json output decodes to %q (%v), want the exact text", p.Endpoint, err)
	}

	b.Reset()
	if err := writeAuditCSV(&b, []agent.AuditEntry{{Seq: 1, Agent: "pm", Method: "aoi.x\x1b]52;c;cHduZWQ=\a\x1b[2J", Result: "ok"}}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\a") || !strings.Contains(b.String(), `aoi.x\x1b]52;c;cHduZWQ=\x07\x1b[2J`) {
		t.Errorf("CSV export: %q", b.String())
	}
	// A peer's literal backslash text is told apart from an escaped control.
	b.Reset()
	if err := writeAuditCSV(&b, []agent.AuditEntry{{Seq: 1, Agent: "pm", Method: `aoi.x\x1b` + "\x1b", Result: "ok"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `aoi.x\\x1b\x1b`) {
		t.Errorf("CSV export of a literal backslash: %q", b.String())
	}
	// A method a spreadsheet would run, or one that forges a row for a
	// line-based tool.
	b.Reset()
	if err := writeAuditCSV(&b, []agent.AuditEntry{
		{Seq: 2, Agent: "pm", Method: `=HYPERLINK("http://evil.example/","open")`, Result: "ok"},
		{Seq: 3, Agent: "@SUM(1+1)*cmd|x", Method: "aoi.x\r\nFAKE,ROW", Result: "ok"},
	}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("CSV export: %d rows (%v): %q", len(rows), err, b.String())
	}
	if rows[1][3] != `'=HYPERLINK("http://evil.example/","open")` || rows[2][2] != "'@SUM(1+1)*cmd|x" || strings.ContainsAny(rows[2][3], "\r\n") {
		t.Errorf("formulas or line breaks pass as they are: %q", rows[1:])
	}

	b.Reset()
	a.exitCode(errors.New("Permission denied" + hostile))
	assertInert(t, "error", b.String())
}

// TestPeerProseIsBounded: a peer's answer of a megabyte prints its first
// maxProse characters and says how much more --json has; a short one is
// printed as it is.
func TestPeerProseIsBounded(t *testing.T) {
	var b bytes.Buffer
	printResult(&b, wire.QueryResult{Summary: strings.Repeat("認", 900_000)})
	if n := len([]rune(b.String())); n > maxProse+100 || !strings.Contains(b.String(), "(892000 more characters; --json shows all)") {
		t.Errorf("a 900k-character answer printed %d characters: …%s", n, string([]rune(b.String()))[maxProse-5:])
	}
	b.Reset()
	printResult(&b, wire.QueryResult{Summary: "s", Blockers: []string{strings.Repeat("B", 900_000)},
		ContextRefs: []wire.ContextRef{{Type: "commit", Ref: strings.Repeat("R", 100_000), Summary: strings.Repeat("C", 400_000)}}})
	if n := b.Len(); n > 2000 {
		t.Errorf("a 900k-character blocker and a 500k reference printed %d bytes", n)
	}
	b.Reset()
	printResult(&b, wire.QueryResult{Summary: "JWT done."})
	if b.String() != "JWT done.\n" {
		t.Errorf("a short answer printed %q", b.String())
	}
}

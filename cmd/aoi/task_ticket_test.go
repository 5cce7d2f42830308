package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestTicketReadsAsWords: aoi task says what the peer answered in words,
// not as the JSON it came in.
func TestTicketReadsAsWords(t *testing.T) {
	var b bytes.Buffer
	printTicket(&b, "eng-suzuki", agent.TaskTicket{TaskID: "t-1", Status: agent.TaskPending,
		Result: json.RawMessage(`{"task_id":"t-1","status":"pending","message":"waiting for the owner's approval"}`)})
	out := b.String()
	if strings.Contains(out, `{"`) || !strings.Contains(out, "waiting for the owner's approval\n") {
		t.Errorf("aoi task printed:\n%s", out)
	}
}

// TestSyncTicketReadsAsAnOutcome: `aoi task --sync` printed the finished
// task's answer as raw JSON (the walk): its outcome, under "output", now
// reads as `aoi task status` prints one.
func TestSyncTicketReadsAsAnOutcome(t *testing.T) {
	var b bytes.Buffer
	printTicket(&b, "eng-suzuki", agent.TaskTicket{TaskID: "t-1", Status: agent.TaskCompleted,
		Result: json.RawMessage(`{"task_id":"t-1","status":"completed","output":{"duration_ms":465,"exit_code":0,"output_tail":"ok  example.com/webapp/auth\n"}}`)})
	out := b.String()
	for _, want := range []string{"exit code: 0\n", "took: 465ms\n", "output:\nok  example.com/webapp/auth\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("aoi task --sync printed:\n%s\nwant %q", out, want)
		}
	}
	if strings.Contains(out, `{"`) {
		t.Errorf("aoi task --sync printed JSON:\n%s", out)
	}
}

// TestRejectedSyncTicketSaysWhy: `aoi task --sync` of a rejected task
// printed only "rejected" (the second walk); the owner's reason follows.
func TestRejectedSyncTicketSaysWhy(t *testing.T) {
	var b bytes.Buffer
	printTicket(&b, "eng", agent.TaskTicket{TaskID: "t-1", Status: agent.TaskRejected,
		Result: json.RawMessage(`{"task_id":"t-1","status":"rejected","error":"the owner rejected the request: use lint instead"}`)})
	if out := b.String(); !strings.Contains(out, "use lint instead") {
		t.Errorf("aoi task --sync printed:\n%s", out)
	}
}

// TestOptionalEnumParamSaysOptional: `aoi task AGENT` lists an optional
// parameter with a list of values as optional (the daily-use walk read
// "mode=fast|full" as a choice it had to make); a required one still says
// required, and one without a list reads as before.
func TestOptionalEnumParamSaysOptional(t *testing.T) {
	for _, c := range []struct {
		p    wire.TaskParam
		want string
	}{
		{wire.TaskParam{Name: "mode", Enum: []string{"fast", "full"}, Description: "how thorough"}, "mode=fast|full (optional)  how thorough"},
		{wire.TaskParam{Name: "mode", Enum: []string{"fast", "full"}, Default: "fast"}, "mode=fast|full (optional, default fast)"},
		{wire.TaskParam{Name: "suite", Enum: []string{"auth", "billing"}, Required: true}, "suite=auth|billing (required)"},
		{wire.TaskParam{Name: "secs", Default: "60", Description: "how long to hold"}, "secs= (default 60)  how long to hold"},
		{wire.TaskParam{Name: "verbose"}, "verbose="},
	} {
		if got := paramLine(c.p); got != c.want {
			t.Errorf("paramLine(%+v) = %q; want %q", c.p, got, c.want)
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
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

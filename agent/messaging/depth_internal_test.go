package messaging

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPayloadNestingIsBounded: a payload nested 8,000 levels deep fit the
// size limit and broke a Python MCP client reading the inbox (the attack
// run). Past maxPayloadDepth it is refused; brackets inside strings do not
// count.
func TestPayloadNestingIsBounded(t *testing.T) {
	nest := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	check := func(p json.RawMessage) error { return checkEnvelope("m-1", "note", "", "", "", "", p) }
	if err := check(nest(8000)); err == nil || !strings.Contains(err.Error(), "nests 8000 levels deep; the limit is 32") {
		t.Errorf("8000 levels: %v; want refused, naming the limit", err)
	}
	if err := check(nest(maxPayloadDepth)); err != nil {
		t.Errorf("%d levels: %v; want accepted", maxPayloadDepth, err)
	}
	if err := check(json.RawMessage(`{"text":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"{{{"}`)); err != nil {
		t.Errorf("brackets in a string: %v; want accepted", err)
	}
}

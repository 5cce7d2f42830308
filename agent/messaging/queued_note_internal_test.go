package messaging

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/rpc"
)

// TestQueuedNoteTellsWhyNotDelivered: an unreachable receiver is offline,
// a rate-limited one busy (a retry delivers both), and only one that
// answered no is reported as refusing, with its reason.
func TestQueuedNoteTellsWhyNotDelivered(t *testing.T) {
	denied := rpc.NewError(rpc.CodePermissionDenied, map[string]any{"reason": "no messages rule for pm-tanaka"})
	noRule := rpc.NewError(rpc.CodePermissionDenied, map[string]any{"reason": "agent pm-tanaka has no write access to the assistant's message inbox",
		"required_permission": "messages.write"})
	for _, c := range []struct {
		name    string
		err     error
		refused bool
		want    string
	}{
		{"unreachable", errors.New("dial tcp 127.0.0.1:9: connection refused"), false, "bob is offline"},
		{"an HTTP answer", &rpc.TransportError{Status: 503, Err: errors.New("HTTP 503")}, false, "bob answered with HTTP status 503"},
		{"rate limited", fmt.Errorf("calling aoi.message: %w", rpc.RateLimited(2*time.Second)), false, "bob is busy"},
		{"denied", fmt.Errorf("calling aoi.message: %w", denied), true, "bob refused the message: no messages rule for pm-tanaka"},
		{"no messages rule", fmt.Errorf("calling aoi.message: %w", noRule), true, "lets it through (gives you write access to messages"},
	} {
		note, refused := (&Messenger{}).queuedNote("bob", c.err)
		if refused != c.refused || !strings.Contains(note, c.want) {
			t.Errorf("%s: queuedNote = %q, refused %v; want %q, refused %v", c.name, note, refused, c.want, c.refused)
		}
	}
}

// TestQueuedNoteQuotesThePeerSafely: a refusal of megabytes, with a secret,
// a line break and an escape sequence splitting the secret, is quoted on
// one line, cut short and redacted as it reads once shown.
func TestQueuedNoteQuotesThePeerSafely(t *testing.T) {
	const secret = "SECRETSECRET"
	// A stand-in for the core's redactor (agent/redact), enough to see
	// what it is given.
	m := &Messenger{Redact: func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }}
	reason := "no rule; " + secret[:6] + "\x1b[0m" + secret[6:] + "\nFAKE LINE " + strings.Repeat("W", 8<<20)
	note, _ := m.queuedNote("bob", rpc.NewError(rpc.CodePermissionDenied, map[string]any{"reason": reason}))
	if strings.Contains(note, secret[6:]) || strings.Contains(note, "\n") || len(note) > 2*maxPeerWords+400 || !strings.Contains(note, "[REDACTED]") {
		t.Errorf("note (%d bytes) = %.200q", len(note), note)
	}
	busy, _ := m.queuedNote("bob", rpc.NewError(rpc.CodeAgentBusy, nil))
	if !strings.Contains(busy, "bob is busy") {
		t.Errorf("busy note = %q", busy)
	}
}

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
		{"rate limited", fmt.Errorf("calling aoi.message: %w", rpc.RateLimited(2*time.Second)), false, "bob is busy"},
		{"denied", fmt.Errorf("calling aoi.message: %w", denied), true, "bob refused the message: no messages rule for pm-tanaka"},
		{"no messages rule", fmt.Errorf("calling aoi.message: %w", noRule), true, "lets it through (gives you write access to messages"},
	} {
		note, refused := queuedNote("bob", c.err)
		if refused != c.refused || !strings.Contains(note, c.want) {
			t.Errorf("%s: queuedNote = %q, refused %v; want %q, refused %v", c.name, note, refused, c.want, c.refused)
		}
	}
}

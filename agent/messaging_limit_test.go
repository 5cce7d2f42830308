package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestMessageRateLimited: aoi.message shares the caller's rate limit. A burst
// over it is refused with RATE_LIMIT and a retry-after hint; messages sent
// through the outbox at the same burst all arrive, each once, because the
// outbox retries refusals.
func TestMessageRateLimited(t *testing.T) {
	bob := newTestAgent(t, "bob-limited", "engineer", func(c *config.Config) {
		c.Limits.RatePerSec, c.Limits.Burst = 2, 2
		c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "msg", AgentID: "*", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"})
	})
	alice := newTestAgent(t, "alice-burst", "lead", nil)
	pair(alice, bob)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	client := rawClient(t, alice, bob)
	var limited *rpc.Error
	for i := 0; i < 10 && limited == nil; i++ {
		err := client.Call(ctx, wire.MethodMessage, wire.MessageParams{ID: fmt.Sprintf("raw-%d", i), From: "alice-burst",
			To: "bob-limited", Type: "note", Payload: json.RawMessage(`{"message":"hi"}`), Timestamp: time.Now()}, new(json.RawMessage))
		var e *rpc.Error
		if errors.As(err, &e) && e.Code == rpc.CodeRateLimit {
			limited = e
		} else if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if limited == nil {
		t.Fatal("10 messages at burst 2 were never rate limited")
	}
	if ra := limited.RetryAfter(); ra <= 0 || ra > time.Second {
		t.Fatalf("retry-after hint = %v, want (0, 1s]", ra)
	}

	const n = 6
	for i := range n {
		if _, err := alice.SendMessage(ctx, agent.SendMessageRequest{To: "bob-limited", Type: "note", ThreadID: "burst",
			Payload: json.RawMessage(fmt.Sprintf(`{"message":"queued %d"}`, i))}); err != nil {
			t.Fatal(err)
		}
	}
	var page agent.InboxPage
	eventually(t, 20*time.Second, "every queued message reaches bob once", func() bool {
		var err error
		page, err = bob.Inbox(ctx, agent.InboxFilter{ThreadID: "burst"})
		return err == nil && len(page.Messages) >= n
	})
	if len(page.Messages) != n {
		t.Fatalf("bob got %d messages on the thread; want exactly %d", len(page.Messages), n)
	}
}

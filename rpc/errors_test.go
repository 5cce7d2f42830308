package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestErrorConstructors(t *testing.T) {
	tests := []struct {
		err      *Error
		code     int
		message  string
		dataKeys []string
	}{
		{PermissionDenied("pm-tanaka may not read acme/secrets", map[string]any{"required_permission": "context.read", "requested_scope": "acme/secrets"}), -32001, "Permission denied", []string{"reason", "required_permission", "requested_scope"}},
		{ContextNotFound("eng-suzuki", "acme/none"), -32002, "Context not found", []string{"reason", "requested_context"}},
		{AgentNotFound("eng-unknown"), -32003, "Agent not found", []string{"requested_agent", "suggestion"}},
		{AgentBusy("2 queries running", time.Second), -32004, "Agent busy", []string{"reason", "retry_after_ms"}},
		{Timeout("the answer", 30*time.Second), -32005, "Timeout", []string{"reason", "timeout_ms"}},
		{RateLimited(1500 * time.Millisecond), -32006, "Rate limit exceeded", []string{"reason", "retry_after_ms"}},
		{ApprovalDenied("the owner rejected the task"), -32007, "Approval denied", []string{"reason"}},
		{InvalidParams("params.to: want string, got number"), -32602, "Invalid params", []string{"reason"}},
		{MethodNotFound("aoi.nope"), -32601, "Method not found", []string{"reason", "method"}},
		{Internal("try again"), -32603, "Internal error", []string{"reason"}},
	}
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			if tt.err.Code != tt.code || tt.err.Message != tt.message {
				t.Fatalf("got %d %q", tt.err.Code, tt.err.Message)
			}
			// Round-trip as a client sees it.
			b, _ := json.Marshal(tt.err)
			var got Error
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			data, _ := got.Data.(map[string]any)
			for _, k := range tt.dataKeys {
				if _, ok := data[k]; !ok {
					t.Errorf("data lacks %q: %s", k, b)
				}
			}
			var wrapped error = fmt.Errorf("asking: %w", &got)
			var e *Error
			if !errors.As(wrapped, &e) || e.Code != tt.code || !strings.Contains(e.Error(), tt.message) {
				t.Errorf("errors.As on a wrapped *Error: %v", wrapped)
			}
		})
	}
	rl := RateLimited(1500 * time.Millisecond)
	b, _ := json.Marshal(rl)
	var got Error
	json.Unmarshal(b, &got)
	if got.RetryAfter() != 1500*time.Millisecond || !IsRetryable(&got) || IsRetryable(AgentNotFound("x")) {
		t.Fatalf("retry hints: %v, retryable %v", got.RetryAfter(), IsRetryable(&got))
	}
}

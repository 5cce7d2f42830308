package control

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestErrorMapsAtTheEdge: a domain error keeps its text as data.reason and
// names its kind; a deadline is a timeout; an *rpc.Error passes unchanged.
func TestErrorMapsAtTheEdge(t *testing.T) {
	t.Parallel()
	var re *rpc.Error
	err := Error(fmt.Errorf("answer: %w", errs.NotFound("no query q-1; list them with aoi queries")))
	if !errors.As(err, &re) || re.Code != CodeControlFailed {
		t.Fatalf("domain error → %#v, want code %d", err, CodeControlFailed)
	}
	data, _ := re.Data.(map[string]any)
	if data["kind"] != errs.KindName(errs.NotFound("x")) || data["reason"] != "answer: no query q-1; list them with aoi queries" {
		t.Fatalf("data = %v, want the kind and the whole text", data)
	}

	if !errors.As(Error(fmt.Errorf("ask: %w", context.DeadlineExceeded)), &re) || re.Code != rpc.CodeTimeout {
		t.Fatalf("deadline → %#v, want code %d", re, rpc.CodeTimeout)
	}
	if d, _ := re.Data.(map[string]any); d["kind"] != nil {
		t.Fatalf("a plain error names no kind: %v", d)
	}

	orig := rpc.NewError(rpc.CodeTimeout, map[string]any{"reason": "peer slow", "retry_after_ms": 5})
	if got := Error(orig); got != orig {
		t.Fatalf("rpc error → %#v, want it unchanged", got)
	}
	// Wrapped (a peer's answer): the code and data stay, the reason is the
	// whole text, which names who answered.
	if !errors.As(Error(fmt.Errorf("pm-a answered: %w", orig)), &re) || re.Code != rpc.CodeTimeout ||
		re.Reason() != "pm-a answered: rpc error -32005 (Timeout): peer slow" || re.RetryAfter() != 5*time.Millisecond {
		t.Fatalf("wrapped rpc error → %#v, want its code, its data and the whole text as the reason", re)
	}
}

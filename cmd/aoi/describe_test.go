package main

import (
	"fmt"
	"testing"

	"github.com/aoi-protocol/aoi/agent/control"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestDescribeDropsProtocolWords: the CLI says what a peer answered in its
// words and who answered, without JSON-RPC's "Invalid params"; an AOI
// error keeps its message ("Permission denied"), which says something.
func TestDescribeDropsProtocolWords(t *testing.T) {
	peerSaid := func(code int, reason string) error { // as it reaches the CLI: over the control socket
		return control.Error(fmt.Errorf("task: %w", peers.CallError("eng-suzuki", rpc.NewError(code, map[string]any{"reason": reason}))))
	}
	cases := []struct {
		err  error
		want string
	}{
		{peerSaid(rpc.CodeInvalidParams, `task_type "deploy" is not configured here`), `task: eng-suzuki answered: task_type "deploy" is not configured here`},
		{peerSaid(rpc.CodePermissionDenied, "no rule lets you"), "Permission denied: task: eng-suzuki answered: no rule lets you"},
		{rpc.NewError(rpc.CodeInvalidParams, nil), "Invalid params"},
	}
	for _, c := range cases {
		if got := describe(c.err); got != c.want {
			t.Errorf("describe(%v) = %q; want %q", c.err, got, c.want)
		}
	}
}

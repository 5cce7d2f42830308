package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestKindsSurviveWrapping(t *testing.T) {
	cases := []struct {
		err  error
		kind error
	}{
		{Invalid("params.query is empty"), ErrInvalid},
		{Denied("no", map[string]any{"required_permission": "context.read"}), ErrDenied},
		{NotFound("no query %q", "q-1"), ErrNotFound},
		{Conflict("already answered"), ErrConflict},
		{UnknownPeer("eng", "eng is not a known peer"), ErrUnknownPeer},
	}
	kinds := []error{ErrInvalid, ErrDenied, ErrNotFound, ErrConflict, ErrUnknownPeer}
	for _, c := range cases {
		wrapped := fmt.Errorf("outer: %w", c.err)
		for _, k := range kinds {
			if got := errors.Is(wrapped, k); got != (k == c.kind) {
				t.Errorf("errors.Is(%v, %v) = %v", c.err, k, got)
			}
		}
	}
	if Agent(fmt.Errorf("x: %w", UnknownPeer("eng", "m"))) != "eng" || Agent(Invalid("x")) != "" {
		t.Error("Agent must name the unknown peer only")
	}
	if NotFound("no query %q; the Queries pane or `aoi inbox` lists them", "q-1").Error() != "no query \"q-1\"; the Queries pane or `aoi inbox` lists them" {
		t.Error("the message is the error's whole text")
	}
}

func TestKindCrossesTheWireByName(t *testing.T) {
	orig := errors.New("rpc error -32000 (Server error): no query \"q-1\"")
	err := WithKind(KindName(NotFound("no query")), orig)
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrDenied) || !errors.Is(err, orig) || err.Error() != orig.Error() {
		t.Fatalf("WithKind(not_found) = %v: want the same text, ErrNotFound and the original", err)
	}
	if WithKind("nonsense", orig) != orig || KindName(orig) != "" {
		t.Fatal("unknown kinds and plain errors pass unchanged")
	}
}

package tui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/control"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/rpc"
)

// refusedCall is the error of a real call to a loopback port nothing
// listens on, tried twice: the transport error a peer that is down gives.
func refusedCall(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/aoi/v1/rpc"
	ln.Close()
	c := rpc.NewClient(url, nil, rpc.ClientOptions{Peer: "qa-ito", MaxAttempts: 2, BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	err = c.Call(context.Background(), "aoi.query", struct{}{}, nil)
	if err == nil {
		t.Fatal("a call to a closed port succeeded")
	}
	return err
}

// TestErrGist: the notice's gist of an error drops the JSON-RPC code and
// the failed call's chain before the advice, whether the error came over
// the control socket or in process, says the advice once when the cause
// carries its own, and leaves text written for people alone.
func TestErrGist(t *testing.T) {
	refused := refusedCall(t)
	var te *rpc.TransportError
	if !errors.As(refused, &te) {
		t.Fatalf("a call to a closed port: %v, not a transport error", refused)
	}
	advice := "ask qa-ito: nothing is listening there: check that `aoi serve` is running on the peer and that its endpoint (host:port) is right"
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"a peer down, over the control socket", control.Error(fmt.Errorf("ask qa-ito: %w", refused)), advice},
		{"a peer down, in process", fmt.Errorf("ask qa-ito: %w", refused), advice},
		{"a peer's refusal keeps its standard message",
			rpc.NewError(rpc.CodePermissionDenied, map[string]any{"reason": "qa-ito's rules do not let you ask about acme/secret"}),
			"Permission denied: qa-ito's rules do not let you ask about acme/secret"},
		{"a code alone", rpc.NewError(rpc.CodeInternalError, nil), "Internal error"},
		{"a peer's invalid params say who answered and why, no protocol words",
			peers.CallError("qa-ito", rpc.NewError(rpc.CodeInvalidParams, map[string]any{"reason": `task_type "deploy" is not configured here`})),
			`qa-ito answered: task_type "deploy" is not configured here`},
		{"the same over the control socket",
			control.Error(fmt.Errorf("task: %w", peers.CallError("qa-ito", rpc.NewError(rpc.CodeInvalidParams, map[string]any{"reason": "no such task type"})))),
			"task: qa-ito answered: no such task type"},
		{"written for people", errors.New("query q-7 was already answered; nothing to do"), "query q-7 was already answered; nothing to do"},
		{"a peer down, its advice once", peers.CallError("qa-ito", refused),
			"qa-ito is unreachable at " + te.Host() + " (2 tries): nothing is listening there: check that `aoi serve` is running on the peer and that its endpoint (host:port) is right"},
		{"general advice after a cause without any stays",
			errors.New("qa-ito is unreachable (connection reset); check that its aoi is running and the endpoint is right (`aoi peers`)"),
			"qa-ito is unreachable (connection reset); check that its aoi is running and the endpoint is right (`aoi peers`)"},
	}
	for _, c := range cases {
		if got := errGist(Sanitize(c.err.Error())); got != c.want {
			t.Errorf("%s:\n%s\ngives %q\nwant  %q", c.name, c.err, got, c.want)
		}
	}
}

// TestErrorNoticeIsShortAndLogged: a failed ask shows what failed and the
// advice, not the JSON-RPC code and the network error, and says where the
// whole error is; :errors shows it whole.
func TestErrorNoticeIsShortAndLogged(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	svc.failWith = control.Error(fmt.Errorf("ask qa-ito: %w", refusedCall(t)))
	press(t, m, "@")
	typeText(t, m, "qa-ito is the suite green?")
	press(t, m, "enter")
	frame := screen(m)
	checkFrame(t, frame, 80, 24)
	if !strings.Contains(frame, "asking qa-ito failed: ask qa-ito: nothing is listening there") || !strings.Contains(frame, wholeErrorHint) {
		t.Errorf("the notice does not say what failed, what to do and where the rest is:\n%s", frame)
	}
	for _, jargon := range []string{"rpc error", "-32000", "dial tcp", "calling aoi.query"} {
		if strings.Contains(frame, jargon) {
			t.Errorf("the notice shows %q:\n%s", jargon, frame)
		}
	}
	press(t, m, ":")
	typeText(t, m, "errors")
	press(t, m, "enter")
	d, ok := m.topDialog().(*detailDialog)
	whole := "asking qa-ito failed: " + Sanitize(svc.failWith.Error())
	if !ok || !strings.Contains(d.body, whole) {
		t.Fatalf(":errors does not show the whole error %q; dialog %T", whole, m.topDialog())
	}
	checkFrame(t, screen(m), 80, 24)
}

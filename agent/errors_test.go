package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/rpc"
)

// A front end tells error kinds apart with errors.Is, the same in process
// and over the control socket, and the text a person reads is unchanged.
func TestDomainErrorKindsInProcessAndOverTheSocket(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	cl, err := ctlclient.Dial(eng.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	for _, svc := range []struct {
		name string
		s    agent.Service
	}{{"in process", eng.Core}, {"over the socket", cl}} {
		err := svc.s.Answer(ctx, agent.AnswerRequest{QueryID: "q-missing", Text: "75%"})
		if !errors.Is(err, agent.ErrNotFound) || errors.Is(err, agent.ErrDenied) || !strings.Contains(err.Error(), "aoi inbox") {
			t.Errorf("%s: answering a missing query = %v, want ErrNotFound saying what to do", svc.name, err)
		}
		_, err = svc.s.Ask(ctx, agent.AskRequest{To: "pm-nobody", Query: "progress?"})
		if !errors.Is(err, agent.ErrUnknownPeer) || !strings.Contains(err.Error(), "aoi peers trust") {
			t.Errorf("%s: asking an unknown peer = %v, want ErrUnknownPeer", svc.name, err)
		}
		_, err = svc.s.Note(ctx, agent.NoteRequest{Text: "  "})
		if !errors.Is(err, agent.ErrInvalid) {
			t.Errorf("%s: an empty note = %v, want ErrInvalid", svc.name, err)
		}
	}
	// Over the socket the error is still the *rpc.Error front ends read.
	var re *rpc.Error
	if err := cl.Answer(ctx, agent.AnswerRequest{QueryID: "q-missing", Text: "x"}); !errors.As(err, &re) || re.Code != agent.CodeControlFailed {
		t.Fatalf("over the socket: %v, want *rpc.Error code %d", err, agent.CodeControlFailed)
	}
}

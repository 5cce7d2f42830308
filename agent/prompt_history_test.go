package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
)

// The prompt bar's history goes through the control socket as the
// interface sends it, is stored with its secrets redacted, survives the
// core's restart, and refuses what it cannot keep.
func TestPromptHistoryIsRedactedAndSurvivesARestart(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	cl, err := ctlclient.Dial(eng.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("a1B2c3D4e5", 4)[:36]
	for _, line := range []string{":focus on", "@pm-tanaka the token is " + secret + " ok?"} {
		if err := cl.RememberPrompt(ctx, agent.PromptLine{Line: line}); err != nil {
			t.Fatalf("remembering %q: %v", line, err)
		}
	}
	for _, bad := range []string{"   ", strings.Repeat("x", agent.MaxPromptLine+1)} {
		if err := cl.RememberPrompt(ctx, agent.PromptLine{Line: bad}); !errors.Is(err, agent.ErrInvalid) {
			t.Errorf("remembering a %d-character line = %v, want ErrInvalid", len(bad), err)
		}
	}
	cl.Close()
	eng.Restart(nil)
	got, err := eng.Core.PromptHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != ":focus on" || !strings.HasPrefix(got[1], "@pm-tanaka the token is ") {
		t.Fatalf("history after a restart = %q, want the two lines, oldest first", got)
	}
	if strings.Contains(got[1], secret) {
		t.Fatalf("the stored line keeps the secret: %q", got[1])
	}
}

package agent_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// TestHeartbeatSkipsFreshExchanges: a heartbeat round does not announce to
// a peer that announced to this agent in the last half interval (the two
// already told each other who they are), still announces to the others,
// and `aoi discover` still announces to everyone.
func TestHeartbeatSkipsFreshExchanges(t *testing.T) {
	eng := newTestAgent(t, "eng-heart", "engineer", nil)
	pm := newTestAgent(t, "pm-heart", "pm", nil)
	qa := newTestAgent(t, "qa-heart", "qa", nil)
	pair(eng, pm)
	pair(eng, qa)
	ctx := context.Background()
	announcesFrom := func(callee *testAgent, caller string) int {
		t.Helper()
		rows, err := callee.Audit(ctx, agent.AuditFilter{Agent: caller, Method: wire.MethodDiscover, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	if _, err := pm.Discover(ctx); err != nil { // pm announces to eng
		t.Fatal(err)
	}
	if got := announcesFrom(eng, "pm-heart"); got != 1 {
		t.Fatalf("eng audited %d announces from pm; want 1", got)
	}
	toPM, toQA := announcesFrom(pm, "eng-heart"), announcesFrom(qa, "eng-heart")
	if err := eng.HeartbeatRound(ctx); err != nil {
		t.Fatal(err)
	}
	if got := announcesFrom(pm, "eng-heart"); got != toPM {
		t.Errorf("eng's heartbeat announced to pm (%d → %d rows) though pm announced a moment ago", toPM, got)
	}
	if got := announcesFrom(qa, "eng-heart"); got != toQA+1 {
		t.Errorf("eng's heartbeat sent %d announces to qa; want 1 (they had not met)", got-toQA)
	}
	if _, err := eng.Discover(ctx); err != nil { // the owner asks: everyone
		t.Fatal(err)
	}
	if got := announcesFrom(pm, "eng-heart"); got != toPM+1 {
		t.Errorf("aoi discover sent %d announces to pm; want 1 (an explicit round skips no one)", got-toPM)
	}
}

// TestPeersSeeFocusAtOnce: turning focus on or off is announced to the
// trusted peers at once, so their Peers pane shows this agent busy while
// it is in focus and online when it ends (the walk saw "online" a minute
// into focus, and "busy" after it ended, until the next heartbeat).
func TestPeersSeeFocusAtOnce(t *testing.T) {
	eng := newTestAgent(t, "eng-focus", "engineer", nil)
	pm := newTestAgent(t, "pm-focus", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	statusOfEng := func() string {
		ps, err := pm.Peers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.AgentID == "eng-focus" {
				return p.Status
			}
		}
		return ""
	}
	for _, on := range []bool{true, false} {
		if err := eng.SetFocus(ctx, agent.FocusRequest{On: on}); err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{true: agent.PeerBusy, false: agent.PeerOnline}[on]
		eventually(t, 10*time.Second, "pm sees eng "+want, func() bool { return statusOfEng() == want })
		if on {
			// A call from eng says it is there, not that its focus
			// ended (the walk saw it shown online after it asked).
			if _, err := eng.Ask(ctx, agent.AskRequest{To: "pm-focus", Query: "any change to the launch date?", Priority: "low"}); err != nil {
				t.Fatal(err)
			}
			if got := statusOfEng(); got != agent.PeerBusy {
				t.Fatalf("after eng called pm, pm sees eng %s; want busy", got)
			}
		}
	}
}

// TestPeersLearnNewTaskTypesAtReload: a reload that adds a task type is
// announced at once (the walk's peer offered only the old task types
// until it ran discover).
func TestPeersLearnNewTaskTypesAtReload(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(eng.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	lint := cfg.Tasks["branch"]
	lint.Command = []string{"git", "status"}
	lint.Params = nil
	cfg.Tasks["lint"] = lint
	if err := config.Write(eng.ConfigPath, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "pm learns of lint", func() bool {
		ps, _ := pm.Peers(ctx)
		for _, p := range ps {
			if p.AgentID == "eng-suzuki" && slices.Contains(p.TaskTypes, "lint") {
				return true
			}
		}
		return false
	})
}

package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/config"
)

// aoiBin is the aoi binary built once for the package's tests; buildErr
// says why it could not be built (tests that need it fail with it).
var aoiBin, buildErr string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aoi-mcpserver-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	aoiBin = filepath.Join(dir, "aoi")
	cmd := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", aoiBin, "./cmd/aoi")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Sprintf("go build ./cmd/aoi: %v\n%s", err, out)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needBinary fails the test when aoi could not be built.
func needBinary(t *testing.T) string {
	t.Helper()
	if buildErr != "" {
		t.Fatal(buildErr)
	}
	return aoiBin
}

// testCore is a real core (agent/agenttest) with the test config below.
type testCore = agenttest.Agent

// startCore initialises and serves a core holding acme/webapp, readable by
// every pinned colleague.
func startCore(t *testing.T, id, role string) *testCore {
	t.Helper()
	return startCoreIn(t, t.TempDir(), id, role)
}

// startCoreIn is startCore on a given data dir.
func startCoreIn(t *testing.T, dir, id, role string) *testCore {
	t.Helper()
	return agenttest.Start(t, id, agenttest.Options{Role: role, Dir: dir, Edit: mcpConfig})
}

// mcpConfig is the test config: acme/webapp readable by every pinned
// colleague, messages from any of them accepted.
func mcpConfig(cfg *config.Config) {
	// Every query waits for the owner: no focus time, no automatic answer.
	cfg.Secretary.InterruptControl = config.InterruptControl{Enabled: true, FocusModeHours: [2]int{0, 0}, AutoRespondThreshold: 1}
	cfg.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
	cfg.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "team-read", AgentID: "*", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"},
		{ID: "team-messages", AgentID: "*", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"}}}
}

// startPair starts eng (the owner's aoi that `aoi mcp` attaches to) and pm
// (a colleague), pinned to each other.
func startPair(t *testing.T) (eng, pm *testCore) {
	t.Helper()
	eng = startCore(t, "eng-mcp", "engineer")
	pm = startCore(t, "pm-mcp", "pm")
	trustBoth(t, eng, pm)
	return eng, pm
}

// answerWhenAsked answers, as pm's owner, the first escalated query once
// it arrives (announced by a query.received event).
func answerWhenAsked(t *testing.T, pm *testCore, text string) <-chan error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	events, err := pm.Events(ctx, agent.EventsRequest{}) // subscribed before the query is sent
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer cancel()
		for ev := range events {
			if ev.Kind != agent.EventQueryReceived {
				continue
			}
			qs, err := pm.Queries(ctx, agent.QueryFilter{State: agent.QueryEscalated})
			if err == nil && len(qs) > 0 {
				done <- pm.Answer(ctx, agent.AnswerRequest{QueryID: qs[0].ID, Text: text})
				return
			}
		}
		done <- fmt.Errorf("no escalated query reached pm within 15s")
	}()
	return done
}

var eventually = agenttest.Eventually

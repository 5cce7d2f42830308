package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestUnknownContextIsRefusedLikeAHiddenOne: a PM kept from acme/payroll
// must not learn it exists by comparing its refusal with the answer to a
// made-up name (the re-check's oracle: PERMISSION_DENIED for the real one,
// CONTEXT_NOT_FOUND for acme/nosuch). Both refusals now read the same; a
// lead who may read every context is still told CONTEXT_NOT_FOUND, and
// the audit row keeps the truth.
func TestUnknownContextIsRefusedLikeAHiddenOne(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}, {Type: "repository", Identifier: "acme/payroll"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "read"},
			{ID: "lead-read", AgentRole: "lead", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"}}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	lead := newTestAgent(t, "lead-kato", "lead", nil)
	pair(eng, pm)
	pair(eng, lead)
	ctx := context.Background()
	ask := func(from *testAgent, scope string) *rpc.Error {
		t.Helper()
		_, err := from.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "how is it going?", ContextScope: []string{scope}})
		return asRPC(t, err, map[bool]int{true: rpc.CodeContextNotFound, false: rpc.CodePermissionDenied}[from == lead])
	}

	// However the name is written (the re-check told them apart by
	// "./", "//" and "..").
	for _, form := range []string{"acme/%s", "acme/%s/./", "acme/%s//x", "acme/%s/x/../../%s", "/acme/%s/"} {
		hidden, madeUp := ask(pm, strings.ReplaceAll(form, "%s", "payroll")), ask(pm, strings.ReplaceAll(form, "%s", "nosuch"))
		same := strings.ReplaceAll(madeUp.Error(), "nosuch", "payroll")
		if same != hidden.Error() || strings.ReplaceAll(mustJSON(t, madeUp.Data), "nosuch", "payroll") != mustJSON(t, hidden.Data) {
			t.Errorf("%s: a made-up context reads\n  %s %s\nbut a hidden one\n  %s %s\nwant the same words", form, madeUp.Error(), mustJSON(t, madeUp.Data), hidden.Error(), mustJSON(t, hidden.Data))
		}
	}
	// Naming who holds no such context: the asker's owner read "held by
	// this agent" as their own (the fourteenth walk).
	if e := ask(lead, "acme/nosuch"); e.Reason() != `eng-suzuki holds no context "acme/nosuch"` {
		t.Errorf("lead: %v %s; want CONTEXT_NOT_FOUND saying eng-suzuki holds no acme/nosuch", e, mustJSON(t, e.Data))
	}
	rows, err := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: wire.MethodQuery})
	if err != nil || len(rows) == 0 || !strings.Contains(string(rows[0].Detail), "no such context") {
		t.Errorf("audit rows = %+v, %v; want the refusal of acme/nosuch recorded as no such context", rows, err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFolderGrantIsNamedInTheRefusal: the walk's QA, let read only
// acme/webapp/ui/**, asked with no scope and was told to ask the owner for
// a rule it had. The refusal now names what it may use, and asking there
// works.
func TestFolderGrantIsNamedInTheRefusal(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "qa-ui-only", AgentRole: "qa", ScopeType: "folder", ScopePattern: "acme/webapp/ui/**", Permission: "read"}}}
	})
	qa := newTestAgent(t, "qa-ito", "qa", nil)
	pair(eng, qa)
	ctx := context.Background()
	_, err := qa.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "any news on dark mode?"})
	if err == nil || !strings.Contains(err.Error(), "you may read only acme/webapp/ui here") || strings.Contains(err.Error(), "ask its owner") {
		t.Errorf("a caller with a folder grant: %v; want to be told it may read acme/webapp/ui", err)
	}
	if _, err := qa.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "any news on dark mode?", ContextScope: []string{"acme/webapp/ui"}}); err != nil {
		t.Errorf("asking within the folder it may read: %v", err)
	}
}

// TestTrustedWithoutARoleIsToldSo: the second walk trusted pm with the
// optional role left empty; every rule was by role, and pm was told to ask
// for a rule that already existed. It is told it has no role instead.
func TestTrustedWithoutARoleIsToldSo(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "read"}}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pm.Pin(eng)
	ctx := context.Background()
	if err := eng.Trust(ctx, agent.TrustRequest{AgentID: pm.ID, Fingerprint: pm.Fingerprint(), Endpoint: pm.Addr()}); err != nil {
		t.Fatal(err)
	}
	_, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "how is auth going?"})
	if err == nil || !strings.Contains(err.Error(), "trusted you without a role, and its ACL rules are by role") {
		t.Errorf("asking as a peer with no role: %v; want to be told it has none", err)
	}
}

// TestUncleanScopeIsRefusedNamingItsCleanForm: "acme//webapp",
// "acme/webapp/" and "./acme/webapp" passed the ACL (which cleaned them)
// and then met a context lookup that did not ("acme//webapp" was no
// context). A question or a task request naming one is refused for that
// alone, naming the clean form, even from a peer that may read everything;
// aoi's own asking side sends its owner's scope cleaned.
func TestUncleanScopeIsRefusedNamingItsCleanForm(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "lead-all", AgentRole: "lead", ScopeType: "repository", ScopePattern: "acme/*", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{"lint": {Command: []string{"true"}, Context: "acme/webapp", TimeoutSec: 30, Isolation: "none"}}
	})
	lead := newTestAgent(t, "lead-kato", "lead", nil)
	pair(eng, lead)
	ctx := context.Background()
	client := rawClient(t, lead, eng)
	want := `send "acme/webapp/auth"`
	unclean := []string{"acme//webapp/auth", "acme/webapp/auth/", "./acme/webapp/auth", "acme/webapp/./auth", "/acme/webapp/auth"}
	for i, entry := range unclean {
		q := wire.QueryParams{From: lead.ID, To: eng.ID, Query: "how is auth going?", ContextScope: []string{entry}}
		err := client.CallWithID(ctx, fmt.Sprintf("q-%d", i), wire.MethodQuery, q, nil)
		if e := asRPC(t, err, rpc.CodeInvalidParams); !strings.Contains(e.Reason(), want) {
			t.Errorf("question scoped %q: %v; want it refused naming the clean form (%s)", entry, e, want)
		}
		task := wire.TaskExecuteParams{From: lead.ID, To: eng.ID, TaskType: "lint", TaskParams: map[string]any{}, ContextScope: []string{entry}}
		err = client.CallWithID(ctx, fmt.Sprintf("t-%d", i), wire.MethodTaskExecute, task, nil)
		if e := asRPC(t, err, rpc.CodeInvalidParams); !strings.Contains(e.Reason(), want) {
			t.Errorf("task request scoped %q: %v; want it refused naming the clean form (%s)", entry, e, want)
		}
	}
	for _, entry := range unclean {
		if _, err := lead.Ask(ctx, agent.AskRequest{To: eng.ID, Query: "how is auth going?", ContextScope: []string{entry}}); err != nil {
			t.Errorf("the owner's own scope %q was not sent cleaned: %v", entry, err)
		}
	}
}

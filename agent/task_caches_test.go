package agent_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// runScriptTask runs script (sh -c, $1 a file it may write what it saw
// to: its folder is the one the task type lets it write besides its own)
// as pm-tanaka's task on eng-suzuki, whose config change adjusts the task
// type, and returns the ended task and what the script wrote there.
func runScriptTask(t *testing.T, script string, change func(*config.TaskType)) (*testAgent, agent.Task, string) {
	t.Helper()
	eng, done, seen := runScriptTasks(t, []string{script}, change)
	return eng, done[0], seen[0]
}

// runScriptTasks runs each script in turn, as runScriptTask does, on one
// eng-suzuki, each task once the last has ended.
func runScriptTasks(t *testing.T, scripts []string, change func(*config.TaskType)) (*testAgent, []agent.Task, []string) {
	t.Helper()
	repo := gitRepo(t)
	seen := filepath.Join(t.TempDir(), "seen")
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{}
		for i, script := range scripts {
			tt := config.TaskType{Command: []string{"sh", "-c", script, "sh", seen}, Context: "acme/webapp",
				Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: false},
				Writable: []string{filepath.Dir(seen)}}
			if change != nil {
				change(&tt)
			}
			c.Tasks["run_tests"+strconv.Itoa(i)] = tt
		}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	var tasks []agent.Task
	var outputs []string
	for i := range scripts {
		_ = os.Remove(seen)
		var res wire.TaskExecuteResult
		if err := rawClient(t, pm, eng).Call(ctx, wire.MethodTaskExecute, wire.TaskExecuteParams{From: "pm-tanaka", To: "eng-suzuki",
			TaskType: "run_tests" + strconv.Itoa(i)}, &res); err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, taskEnded(t, eng, res.TaskID))
		raw, _ := os.ReadFile(seen)
		outputs = append(outputs, string(raw))
	}
	return eng, tasks, outputs
}

// A task shared the owner's Go build cache, module cache and GOPATH/bin
// (and cargo's home): the attack pass wrote into each, and a poisoned
// build cache entry is linked into the owner's next build unchecked, a
// binary in GOPATH/bin or ~/.cargo/bin is on the owner's PATH. Now
// every one of them, as the task's variables and as `go env` (which also
// reads the owner's `go env -w` file) name it, is the requester's own
// folder under aoi's data dir, and nothing lands in the owner's.
func TestTaskCannotWriteTheOwnersBuildCaches(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "CARGO_HOME", "GOMODCACHE", "GOBIN"} {
		t.Setenv(k, "")
	}
	t.Setenv("GOCACHE", filepath.Join(home, "gocache"))
	t.Setenv("GOPATH", filepath.Join(home, "gopath"))
	goEnv := "GOBIN=" + filepath.Join(home, "bin") + "\nGOTOOLCHAIN=local\n"
	for _, dir := range []string{".config/go", ".cargo/bin", "gocache", "gopath/bin", "bin"} {
		if err := os.MkdirAll(filepath.Join(home, dir), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".config/go/env"), []byte(goEnv), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `set -e
dirs="$GOCACHE $GOMODCACHE $GOPATH/bin $GOBIN $CARGO_HOME/bin $(go env GOCACHE GOMODCACHE GOBIN)"
for d in $dirs; do mkdir -p "$d"; echo poison > "$d/poison"; done
echo $dirs > "$1"
`
	eng, done, seen := runScriptTask(t, script, nil)
	if done.State != agent.TaskCompleted {
		t.Fatalf("task %s %q; want completed", done.State, done.Error)
	}
	_ = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "poison" {
			t.Errorf("the task wrote %s, in the owner's caches", p)
		}
		return nil
	})
	peerCaches := filepath.Join(eng.Dir, "task-caches", "pm-tanaka") + string(os.PathSeparator)
	dirs := strings.Fields(seen)
	if len(dirs) != 8 {
		t.Fatalf("the task saw cache folders %q; want 8", seen)
	}
	for _, d := range dirs {
		if !strings.HasPrefix(d, peerCaches) {
			t.Errorf("the task's cache folder %s is not pm-tanaka's own under the data dir", d)
		}
		if _, err := os.Stat(filepath.Join(d, "poison")); err != nil {
			t.Errorf("pm-tanaka's cache %s was not kept for its next task: %v", d, err)
		}
	}
}

// A peer's own build cache starts cold, and a cold `go test` rebuilt the
// standard library (over a minute of CPU here): a task's go command now
// reads the owner's cache through aoi's cache program and writes only
// the peer's, so the first task builds no more than its own package, and
// the peer's cache holds only that.
func TestTaskGoBuildReadsTheOwnersCacheWarm(t *testing.T) {
	goCache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Skip("no go command")
	}
	t.Setenv("HOME", t.TempDir())
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "GOPATH", "GOMODCACHE", "GOFLAGS"} {
		t.Setenv(k, "")
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(goCache)))
	t.Setenv("GOTOOLCHAIN", "local")
	script := `set -e
mkdir m && cd m
printf 'module example.com/m\n\ngo 1.22\n' > go.mod
printf 'package m\n\nimport "testing"\n\nfunc TestOK(t *testing.T) {}\n' > m_test.go
go test -count=1 . > "$1"
`
	eng, done, seen := runScriptTask(t, script, func(tt *config.TaskType) { tt.TimeoutSec = 60 })
	if done.State != agent.TaskCompleted || !strings.HasPrefix(seen, "ok") {
		t.Fatalf("task %s %q printed %q; want go test passing", done.State, done.Error, seen)
	}
	peerCache := filepath.Join(eng.Dir, "task-caches", "pm-tanaka", "go-build")
	var size int64
	entries := 0
	_ = filepath.WalkDir(peerCache, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, _ := d.Info()
			size += info.Size()
			entries++
		}
		return nil
	})
	if entries == 0 || size > 8<<20 {
		t.Errorf("the peer's build cache holds %d files, %d bytes; want the test package's own only (a rebuilt standard library is tens of MB)", entries, size)
	}
}

// A peer's caches outlive its task, so a task could plant for the next:
// the attack pass's first task replaced its GOCACHE, GOPATH and CARGO_HOME
// with links to the owner's folders, and the same peer's next task, doing
// no more than building, wrote into the owner's caches through them.
// Each is a real folder of the peer's again when a task starts.
func TestTaskCannotLinkItsCachesToTheOwners(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "CARGO_HOME", "GOMODCACHE", "GOBIN", "GOPATH"} {
		t.Setenv(k, "")
	}
	owner := filepath.Join(home, "owners-cache")
	if err := os.MkdirAll(owner, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", owner)
	plant := `set -e
for d in "$GOCACHE" "$GOPATH" "$CARGO_HOME"; do rm -rf "$d"; ln -s ` + owner + ` "$d"; done
`
	build := `set -e
for d in "$GOCACHE" "$GOMODCACHE" "$GOBIN" "$CARGO_HOME"; do mkdir -p "$d"; echo poison > "$d/poison-$(basename $d)"; done
echo built > "$1"
`
	_, done, seen := runScriptTasks(t, []string{plant, build}, nil)
	if done[0].State != agent.TaskCompleted || done[1].State != agent.TaskCompleted || seen[1] != "built\n" {
		t.Fatalf("tasks %s %q, %s %q (%q); want both completed", done[0].State, done[0].Error, done[1].State, done[1].Error, seen[1])
	}
	if entries, _ := os.ReadDir(owner); len(entries) != 0 {
		t.Errorf("the peer's second task wrote the owner's cache through the links its first left: %v", entries)
	}
}

package task

import (
	"path/filepath"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

// Plan is what a task would run if it started now, worked out from the
// current config and the stored params: what the owner approves.
type Plan struct {
	Argv      []string // the command with its placeholders filled
	MCPTool   string   // for an mcp_tool task, instead of Argv
	Context   string   // the context (repository) identifier
	Dir       string   // the repository's path, or "" for a scratch directory
	Isolation string   // config.IsolationWorktree or the context's directory
	Branch    string   // the worktree branch, for worktree isolation
	Timeout   time.Duration
	// Unconfined: the type opts out of the Landlock confinement
	// (tasks.NAME.unconfined), so the command writes wherever the owner
	// can; the owner approving it should know.
	Unconfined bool
	// Problem says why the task could not start as configured now (its
	// type was removed or its params no longer fit); the rest is empty.
	Problem string
}

// Plan works out what task taskID of taskType would run now with params.
func (e *Engine) Plan(taskID, taskType string, params map[string]string) Plan {
	cfg := e.Config()
	tt, ok := cfg.Tasks[taskType]
	if !ok {
		return Plan{Problem: "task type " + taskType + " is no longer configured here; approving it fails"}
	}
	argv, _, err := Resolve(taskType, tt, stringsToAny(params))
	if err != nil {
		return Plan{Problem: "the params no longer fit the configured task: " + err.Error()}
	}
	p := Plan{Argv: argv, MCPTool: tt.MCPTool, Context: tt.Context, Dir: repoDir(cfg, tt),
		Isolation: tt.Isolation, Timeout: time.Duration(tt.TimeoutSec) * time.Second, Unconfined: tt.Unconfined}
	if p.Dir != "" {
		p.Dir = filepath.Clean(p.Dir)
	}
	if tt.Isolation == config.IsolationWorktree {
		p.Branch = WorktreeBranch(taskID)
	}
	return p
}

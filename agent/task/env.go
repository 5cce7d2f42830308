package task

import (
	"os"
	"path/filepath"
	"strings"
)

// inheritedEnv names the variables a task inherits from aoi's environment
// when the job does not set Env. Everything else (tokens, auth keys, API
// keys aoi itself was started with) stays out of the task.
var inheritedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TZ",
	"GOPATH", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS", "GOROOT", "GOTOOLCHAIN",
}

// BaseEnv returns the minimal environment a task runs with: the inherited
// variables above that are set in this process, as KEY=value pairs.
func BaseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, want := range inheritedEnv {
			if k == want {
				env = append(env, kv)
				break
			}
		}
	}
	return env
}

// taskEnv is the environment of task id's command. In a worktree git stops
// looking for a repository at the worktree itself (GIT_CEILING_DIRECTORIES
// names its parent): one whose history was left out (hideHistory) must not
// find the data dir's or the home directory's repository above it instead.
func taskEnv(id, worktree string) []string {
	env := append(BaseEnv(), "AOI_TASK_ID="+id)
	if worktree != "" {
		env = append(env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(worktree))
	}
	return env
}

package task

import (
	"os"
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

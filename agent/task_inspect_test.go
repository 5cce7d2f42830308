package agent_test

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// A task's command runs as the owner, and without Yama (as here) a
// process may read another of the same user's environment and memory:
// the attack pass's task read aoi's environment, the auth and API keys
// the task's own environment is kept free of, from /proc/AOI/environ,
// and could have attached a debugger. aoi is now not dumpable, so that
// is root's alone. Run as root, the test runs itself again without
// capabilities, as an ordinary user's aoi and task have none (root's may
// inspect anything).
func TestTaskCannotReadAoisEnvironment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if os.Geteuid() == 0 && os.Getenv("AOI_TEST_WITHOUT_CAPS") == "" {
		rerunWithoutCapabilities(t)
		return
	}
	// The reaper's parent is aoi (here, this test binary).
	script := `aoi=$(cut -d' ' -f4 /proc/$PPID/stat)
if head -c 64 /proc/$aoi/environ >/dev/null 2>&1; then echo "read aoi's environment" >> "$1"; fi
if head -c 1 /proc/$aoi/mem >/dev/null 2>&1; then echo "opened aoi's memory" >> "$1"; fi
echo "aoi $aoi" >> "$1"
`
	// Unconfined: Landlock also keeps a confined command from inspecting
	// processes outside its domain; this is aoi's own defence beneath it.
	_, done, seen := runScriptTask(t, script, func(tt *config.TaskType) { tt.Unconfined = true })
	if done.State != agent.TaskCompleted {
		t.Fatalf("task %s %q; want completed", done.State, done.Error)
	}
	if !strings.Contains(seen, "aoi "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("the task took %q for aoi; want this process, %d", seen, os.Getpid())
	}
	if strings.Contains(seen, "read aoi's") || strings.Contains(seen, "opened aoi's") {
		t.Errorf("the task inspected aoi:\n%s", seen)
	}
}

// rerunWithoutCapabilities runs the calling test again in a process of
// this binary that has no capabilities, and fails as it fails.
func rerunWithoutCapabilities(t *testing.T) {
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("running as root without setpriv to drop capabilities")
	}
	cmd := exec.Command("setpriv", "--bounding-set=-all", "--inh-caps=-all", os.Args[0],
		"-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "AOI_TEST_WITHOUT_CAPS=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("without capabilities: %v\n%s", err, out)
	}
}

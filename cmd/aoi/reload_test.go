package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeReloadsOnHangup runs two real daemons. The engineer's owner
// edits the ACL to deny the PM and sends SIGHUP: the PM's next query is
// refused and `aoi serve` says what changed. An invalid config is refused,
// by SIGHUP and by `aoi reload`, and the rule in force stays in force.
// aoi serve prints every reload's outcome, whichever of the two asked.
func TestServeReloadsOnHangup(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, engProc := pinnedPair(t, bin)

	ask := func() (string, error) {
		out, err := exec.Command(bin, "--data-dir", pm, "query", "eng-suzuki", "status?").CombinedOutput()
		return string(out), err
	}
	if out, err := ask(); err != nil {
		t.Fatalf("the PM's query was refused before any change: %v\n%s", err, out)
	}

	cfgPath := filepath.Join(eng, "config.json")
	good := readFile(t, cfgPath)
	denyPM := strings.Replace(good, `"rules": [`, `"rules": [
      {"id": "no-pm", "agent_id": "pm-tanaka", "scope_type": "repository", "scope_pattern": "**", "permission": "none"},`, 1)
	denyPM = strings.Replace(denyPM, `"auto_respond_threshold": 0.8`, `"auto_respond_threshold": 0.7`, 1)
	writeFile(t, cfgPath, denyPM)
	engProc.signal(t, syscall.SIGHUP)
	engProc.waitFor(t, 15*time.Second, "reload report", func() bool {
		return strings.Contains(engProc.out.String(), "config reloaded: acl: 1 rule → 2 (+no-pm)")
	})
	if out := engProc.out.String(); !strings.Contains(out, "auto_respond_threshold 0.8 → 0.7") {
		t.Errorf("the report does not name the threshold change:\n%s", out)
	}
	if out, err := ask(); err == nil || !strings.Contains(out, "gives you no read access to any of its contexts") {
		t.Fatalf("after the reload the PM's query should be refused: %v\n%s", err, out)
	}

	// An invalid file: refused by `aoi reload` with the validation error…
	writeFile(t, cfgPath, strings.Replace(good, `"permission": "read"`, `"permission": "maybe"`, 1))
	out, err := exec.Command(bin, "--data-dir", eng, "reload").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "config not reloaded, the running one stays") || !strings.Contains(string(out), "permission") {
		t.Errorf("aoi reload of an invalid config: %v\n%s", err, out)
	}
	// …which aoi serve also prints, as it prints every reload…
	engProc.waitFor(t, 15*time.Second, "the refusal of `aoi reload` on serve's stderr", func() bool {
		return strings.Count(engProc.out.String(), "config not reloaded") >= 1
	})
	// …and by SIGHUP, which must not stop the daemon.
	engProc.signal(t, syscall.SIGHUP)
	engProc.waitFor(t, 15*time.Second, "refusal after SIGHUP", func() bool {
		return strings.Count(engProc.out.String(), "config not reloaded") >= 2
	})
	if out, err := ask(); err == nil || !strings.Contains(out, "gives you no read access to any of its contexts") {
		t.Fatalf("the refused config must leave the deny rule in force: %v\n%s", err, out)
	}

	// Identity does not change by reload.
	writeFile(t, cfgPath, strings.Replace(good, `"id": "eng-suzuki"`, `"id": "eng-sato"`, 1))
	out, err = exec.Command(bin, "--data-dir", eng, "reload").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "agent.id changed from eng-suzuki to eng-sato") {
		t.Errorf("aoi reload with another agent.id: %v\n%s", err, out)
	}

	// Back to the original: `aoi reload` reports the change, the PM is let in.
	writeFile(t, cfgPath, good)
	out, err = exec.Command(bin, "--data-dir", eng, "reload").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "acl: 2 rules → 1 (-no-pm)") {
		t.Fatalf("aoi reload: %v\n%s", err, out)
	}
	engProc.waitFor(t, 15*time.Second, "the report of `aoi reload` on serve's stderr", func() bool {
		return strings.Contains(engProc.out.String(), "aoi: config reloaded: acl: 2 rules → 1 (-no-pm)")
	})
	if out, err := ask(); err != nil {
		t.Fatalf("after restoring the config the PM's query was refused: %v\n%s", err, out)
	}
	if engProc.exited(0) {
		t.Fatalf("SIGHUP stopped aoi serve: %v\n%s", engProc.err, engProc.out.String())
	}
}

// cli runs the aoi binary for dir and fails the test if it fails.
func cli(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"--data-dir", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("aoi %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

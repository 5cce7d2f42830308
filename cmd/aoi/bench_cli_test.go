package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/bench"
)

// TestBenchReportsLoadAverage: `aoi bench` prints the machine's load with
// every run, and `--json` carries it with the ratio's validity.
func TestBenchReportsLoadAverage(t *testing.T) {
	isolate(t)
	r := runAOI(t, "bench", "--concurrency", "2", "--duration", "200ms")
	if r.code != exitOK || !strings.Contains(r.stdout, "machine: ") || !strings.Contains(r.stdout, "ratio aoi.query / echo") ||
		!strings.Contains(r.stdout, "writes per group commit (aoi.query): ") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = runAOI(t, "bench", "--json", "--concurrency", "2", "--duration", "200ms")
	var rep bench.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stdout)
	}
	if rep.Machine.Cores <= 0 || rep.Query.Requests == 0 || rep.RatioValid != rep.Machine.Quiet() || len(rep.RoundRatios) != bench.DefaultRounds {
		t.Fatalf("report = %+v (want bench.DefaultRounds rounds)", rep)
	}
	r = runAOI(t, "bench", "--concurrency", "2", "--duration", "200ms", "--rounds", "2")
	if r.code != exitOK || !strings.Contains(r.stdout, "ratio by round: ") || strings.Count(r.stderr, "round ") != 2 {
		t.Fatalf("--rounds 2: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = runAOI(t, "bench", "--rounds", "0")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--rounds") {
		t.Fatalf("--rounds 0: exit %d, stderr %q (want a usage error naming --rounds)", r.code, r.stderr)
	}
}

// TestBenchWritesCPUProfile: --cpuprofile leaves a pprof file (gzip) of the
// aoi.query phase.
func TestBenchWritesCPUProfile(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	r := runAOI(t, "bench", "--concurrency", "2", "--duration", "300ms", "--cpuprofile", path)
	if r.code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile %s: %d bytes, %v (want a gzip-compressed pprof file)", path, len(b), err)
	}
}

// TestAOIRunsASpareProc: the aoi process runs one more goroutine slot
// than it has cores (procs.go), and GOMAXPROCS in the environment wins.
// A real process, since the setting is made in main.
func TestAOIRunsASpareProc(t *testing.T) {
	isolate(t)
	bin := buildAOI(t)
	var env []string // this environment without GOMAXPROCS
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMAXPROCS=") {
			env = append(env, kv)
		}
	}
	spare := runtime.GOMAXPROCS(0) + 1 // this test process got Go's default
	if os.Getenv("GOMAXPROCS") != "" {
		spare = runtime.NumCPU() + 1 // the default, on a machine without a CPU quota
	}
	for _, c := range []struct {
		env  string
		want int
	}{{"", spare}, {"GOMAXPROCS=1", 1}} {
		cmd := exec.Command(bin, "bench", "--json", "--concurrency", "1", "--duration", "100ms")
		cmd.Env = env
		if c.env != "" {
			cmd.Env = append(env, c.env)
		}
		out, err := cmd.Output()
		var rep bench.Report
		if err != nil || json.Unmarshal(out, &rep) != nil {
			t.Fatalf("%s aoi bench: %v\n%s", c.env, err, out)
		}
		if rep.Machine.GOMAXPROCS != c.want {
			t.Errorf("%s: GOMAXPROCS %d, want %d", c.env, rep.Machine.GOMAXPROCS, c.want)
		}
	}
}

// TestBenchDirPlacesTheAgentsData: `aoi bench --dir DIR` makes the agents'
// scratch folder in DIR, says so, names DIR's filesystem in the report,
// removes the scratch folder and keeps DIR. A folder that does not exist,
// or --dir with --scale, is a usage error naming --dir.
func TestBenchDirPlacesTheAgentsData(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	r := runAOI(t, "bench", "--json", "--dir", dir, "--concurrency", "2", "--duration", "200ms", "--rounds", "1")
	var rep bench.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "the agents' data: "+filepath.Join(dir, "aoi-bench-")) {
		t.Errorf("stderr does not say the data went into %s:\n%s", dir, r.stderr)
	}
	if runtime.GOOS == "linux" && rep.Machine.DataFS == "" {
		t.Errorf("data_fs is empty on Linux: %+v", rep.Machine)
	}
	if r := runAOI(t, "bench", "--dir", dir, "--concurrency", "2", "--duration", "200ms", "--rounds", "1"); runtime.GOOS == "linux" &&
		!strings.Contains(r.stdout, "; data on "+rep.Machine.DataFS+"\n") {
		t.Errorf("the machine line does not name the filesystem (%s):\n%s", rep.Machine.DataFS, r.stdout)
	}
	left, err := os.ReadDir(dir)
	if err != nil || len(left) != 0 {
		t.Errorf("--dir after the run: %v, %v (want it kept, and empty)", left, err)
	}
	for _, c := range [][]string{
		{"bench", "--dir", filepath.Join(dir, "missing")},
		{"bench", "--dir", dir, "--scale", "30"},
	} {
		r := runAOI(t, c...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--dir") {
			t.Errorf("%v: exit %d, stderr %q (want a usage error naming --dir)", c, r.code, r.stderr)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// aoiBinary is the aoi binary built once per test run (see buildAOI).
var aoiBinary struct {
	once sync.Once
	dir  string
	env  []string // the environment before any test changed HOME or XDG_*
	path string
	err  error
}

// TestMain owns the directory the test binary of aoi is built into; the
// build itself happens on first use, so tests that never start a real
// process do not pay for linking it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aoi-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	aoiBinary.dir, aoiBinary.env = dir, os.Environ()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildAOI returns the path of an aoi binary built from this package with
// `go build -tags sqlite_fts5`, building it on the first call. End-to-end
// tests start real daemons from it.
func buildAOI(t testing.TB) string {
	t.Helper()
	aoiBinary.once.Do(func() {
		path := filepath.Join(aoiBinary.dir, "aoi")
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", "sqlite_fts5", "-o", path, ".")
		// Tests move HOME and XDG_CONFIG_HOME; the go command must keep
		// the real ones (its module cache and its env file live there).
		cmd.Env = aoiBinary.env
		if out, err := cmd.CombinedOutput(); err != nil {
			aoiBinary.err = fmt.Errorf("go build ./cmd/aoi: %v\n%s", err, out)
			return
		}
		aoiBinary.path = path
	})
	if aoiBinary.err != nil {
		t.Fatal(aoiBinary.err)
	}
	return aoiBinary.path
}

// result is one CLI run.
type result struct {
	code           int
	stdout, stderr string
}

// runAOI runs the CLI in-process, like main does.
func runAOI(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, args, &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// isolate points every default location at temp dirs so a test never
// reads or writes the real user's aoi.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("AOI_DATA_DIR", "")
	t.Setenv("AOI_CONFIG_PATH", "")
	t.Setenv("TS_AUTHKEY", "")
	t.Setenv("TAILSCALE_AUTH_KEY", "")
}

// shortDir is a data dir whose control socket path fits the Unix limit.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "aoi-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

package mcpbridge_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/aoi-protocol/aoi/agent/mcpbridge"
	"github.com/aoi-protocol/aoi/internal/backoff"
)

// everything is the reference MCP server from npm (test/mcp, installed by
// make mcp-deps). Without node or the package the test fails and says how
// to get them.
func everything(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed; install Node.js 18+ and run make mcp-deps")
	}
	js, err := filepath.Abs(filepath.Join("..", "..", "test", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(js); err != nil {
		t.Fatal("test/mcp/node_modules is missing: run make mcp-deps")
	}
	// Quoted the way an owner would write a path with spaces.
	return "stdio:'" + node + "' '" + js + "' stdio"
}

func newBridge(t *testing.T, endpoint string, opts mcpbridge.Options) *mcpbridge.Bridge {
	t.Helper()
	if opts.CallTimeout == 0 {
		opts.CallTimeout = 20 * time.Second
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff, opts.MaxBackoff = 100*time.Millisecond, time.Second
	}
	b, err := mcpbridge.New(endpoint, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestBridgeWithServerEverythingOverStdio(t *testing.T) {
	clk := backoff.NewFake(time.Now())
	b := newBridge(t, everything(t), mcpbridge.Options{Clock: clk})
	ctx := context.Background()

	tools, err := b.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools, func(tl mcp.Tool) bool { return tl.Name == "echo" }) {
		t.Fatalf("server-everything offers no echo tool: %v", tools)
	}

	// A task's configured arguments with a placeholder, filled from params.
	res, err := b.RunTool(ctx, "echo", map[string]any{"message": "run {{suite}} please"}, map[string]string{"suite": "./auth/..."})
	if err != nil || res.IsError || res.Text != "Echo: run ./auth/... please" || len(res.Raw) == 0 {
		t.Fatalf("RunTool(echo) = %+v, %v; want the filled message echoed", res, err)
	}

	// A tool that runs and fails is a result, not a transport problem.
	res, err = b.CallTool(ctx, "echo", map[string]any{"message": 42})
	if err == nil && !res.IsError {
		t.Fatalf("echo with a number = %+v, want the server to refuse it", res)
	}

	resources, err := b.Resources(ctx)
	if err != nil || len(resources) == 0 {
		t.Fatalf("Resources = %v, %v; want some", resources, err)
	}
	contents, err := b.ReadResource(ctx, resources[0].URI)
	if err != nil || len(contents) == 0 || (contents[0].Text == "" && contents[0].BlobBytes == 0) {
		t.Fatalf("ReadResource(%s) = %+v, %v; want content", resources[0].URI, contents, err)
	}

	// Kill the server mid-session: the next call fails clearly, a later one
	// reconnects to a fresh server process.
	pid := serverPID(t, "server-everything")
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, err = b.CallTool(ctx, "echo", map[string]any{"message": "are you there?"})
	var lost *mcpbridge.LostError
	var unavailable *mcpbridge.UnavailableError
	if !errors.As(err, &lost) && !errors.As(err, &unavailable) {
		t.Fatalf("call after the kill: %v, want a LostError or UnavailableError", err)
	}
	if !strings.Contains(err.Error(), "work AI's MCP server stdio:") || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("error %q should name the server and say to try again", err)
	}
	t.Logf("after the kill: %v", err)
	// Within the back-off the bridge does not start a server; once it has
	// passed on the bridge's clock the next call starts a fresh one.
	if _, err := b.CallTool(ctx, "echo", map[string]any{"message": "too soon"}); !errors.As(err, &unavailable) || unavailable.RetryIn <= 0 {
		t.Fatalf("a call within the back-off: %v, want UnavailableError with a retry time", err)
	}
	clk.Advance(time.Second) // newBridge's back-off is 100 ms to 1 s
	res, err = b.CallTool(ctx, "echo", map[string]any{"message": "back"})
	if err != nil || res.Text != "Echo: back" {
		t.Fatalf("after reconnect: %+v, %v", res, err)
	}
	if newPID := serverPID(t, "server-everything"); newPID == pid {
		t.Fatalf("still pid %d after the kill", pid)
	}
}

func TestBridgeCallsOnlyAllowedTools(t *testing.T) {
	b := newBridge(t, everything(t), mcpbridge.Options{AllowTool: func(name string) bool { return name == "echo" }})
	if _, err := b.CallTool(context.Background(), "get-env", nil); err == nil || !strings.Contains(err.Error(), "not declared") {
		t.Fatalf("calling an undeclared tool: %v, want a refusal", err)
	}
	if res, err := b.CallTool(context.Background(), "echo", map[string]any{"message": "ok"}); err != nil || res.Text != "Echo: ok" {
		t.Fatalf("echo = %+v, %v", res, err)
	}
}

func TestBridgeToAMissingServer(t *testing.T) {
	clk := backoff.NewFake(time.Now())
	b := newBridge(t, "stdio:/nonexistent/work-ai --mcp", mcpbridge.Options{Clock: clk, MinBackoff: time.Second, MaxBackoff: time.Minute})
	_, err := b.CallTool(context.Background(), "run_tests", nil)
	var unavailable *mcpbridge.UnavailableError
	if !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "/nonexistent/work-ai") {
		t.Fatalf("err = %v, want UnavailableError naming the program", err)
	}
	// Within the back-off the bridge does not try again, and says when it will.
	_, err = b.CallTool(context.Background(), "run_tests", nil)
	if !errors.As(err, &unavailable) || unavailable.RetryIn <= 0 || !strings.Contains(err.Error(), "reconnects in") {
		t.Fatalf("second err = %v, want a retry time", err)
	}
	if unavailable.RetryIn != time.Second {
		t.Fatalf("after one failure the bridge waits %v, want MinBackoff (1s)", unavailable.RetryIn)
	}
	// Once the back-off has passed on the bridge's clock it dials again,
	// fails again and waits twice as long.
	clk.Advance(time.Second)
	if _, err = b.CallTool(context.Background(), "run_tests", nil); !errors.As(err, &unavailable) || unavailable.RetryIn != 0 {
		t.Fatalf("after the back-off: %v, want a fresh connection attempt", err)
	}
	if _, err = b.CallTool(context.Background(), "run_tests", nil); !errors.As(err, &unavailable) || unavailable.RetryIn != 2*time.Second {
		t.Fatalf("after two failures: %v, want a 2s wait", err)
	}
}

// serverPID finds the test process's child whose command line contains
// name.
func serverPID(t *testing.T, name string) int {
	t.Helper()
	var found int
	deadline := time.Now().Add(5 * time.Second)
	for found == 0 && time.Now().Before(deadline) {
		tasks, _ := filepath.Glob("/proc/self/task/*/children")
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			for _, p := range strings.Fields(string(b)) {
				cmdline, _ := os.ReadFile("/proc/" + p + "/cmdline")
				if strings.Contains(string(cmdline), name) {
					found, _ = strconv.Atoi(p)
				}
			}
		}
		if found == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if found == 0 {
		t.Fatalf("no child process running %s", name)
	}
	return found
}

package mcpbridge_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/aoi-protocol/aoi/agent/mcpbridge"
	"github.com/aoi-protocol/aoi/internal/backoff"
)

// serveHTTP serves a small MCP server (mcp-go's streamable HTTP transport)
// on addr ("127.0.0.1:0" for any port) and returns its address and a stop
// function.
func serveHTTP(t *testing.T, addr string) (string, func()) {
	t.Helper()
	s := server.NewMCPServer("work-ai", "1")
	s.AddTool(mcp.NewTool("run_tests", mcp.WithString("suite", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok " + req.GetString("suite", "")), nil
		})
	s.AddResource(mcp.NewResource("work://status", "status", mcp.WithMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "work://status", MIMEType: "text/plain", Text: "editing auth/session.go"}}, nil
		})
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; { // the old port may linger briefly
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s, server.WithStateful(true))}
	go hs.Serve(ln)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			hs.Close()
		}
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

func TestBridgeOverStreamableHTTPReconnects(t *testing.T) {
	addr, stop := serveHTTP(t, "127.0.0.1:0")
	clk := backoff.NewFake(time.Now())
	b := newBridge(t, "http://"+addr+"/mcp", mcpbridge.Options{Clock: clk})
	ctx := context.Background()

	res, err := b.RunTool(ctx, "run_tests", map[string]any{"suite": "{{suite}}"}, map[string]string{"suite": "./auth/..."})
	if err != nil || res.Text != "ok ./auth/..." {
		t.Fatalf("RunTool = %+v, %v", res, err)
	}
	contents, err := b.ReadResource(ctx, "work://status")
	if err != nil || len(contents) != 1 || contents[0].Text != "editing auth/session.go" {
		t.Fatalf("ReadResource = %+v, %v", contents, err)
	}

	// The server goes away: the next call fails and says so.
	stop()
	_, err = b.CallTool(ctx, "run_tests", map[string]any{"suite": "./..."})
	var lost *mcpbridge.LostError
	var unavailable *mcpbridge.UnavailableError
	if !errors.As(err, &lost) && !errors.As(err, &unavailable) {
		t.Fatalf("call with the server down: %v, want LostError or UnavailableError", err)
	}
	t.Logf("server down: %v", err)

	// A new server (no memory of the old session) on the same address: the
	// first call once the back-off has passed on the bridge's clock
	// reconnects with a fresh session.
	serveHTTP(t, addr)
	clk.Advance(time.Second) // newBridge's back-off is 100 ms to 1 s
	res, err = b.CallTool(ctx, "run_tests", map[string]any{"suite": "./..."})
	if err != nil || res.Text != "ok ./..." {
		t.Fatalf("after reconnect: %+v, %v", res, err)
	}
}

func TestBridgeClosed(t *testing.T) {
	addr, _ := serveHTTP(t, "127.0.0.1:0")
	b := newBridge(t, "http://"+addr+"/mcp", mcpbridge.Options{})
	if err := b.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := b.Tools(context.Background()); !errors.Is(err, mcpbridge.ErrClosed) {
		t.Fatalf("Tools after Close: %v, want ErrClosed", err)
	}
}

package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/aoi-protocol/aoi/agent/mcpserver"
)

// inProcess connects mcp-go's in-process client to a server over svc.
func inProcess(t *testing.T, svc mcpserver.Service) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(mcpserver.New(svc, mcpserver.Options{Version: "test"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "aoi-test", Version: "1"}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestToolDefinitionsFitTheBudget holds every tool definition, as a client
// receives it from tools/list, under 2,000 tokens (about 4 bytes a token
// for JSON-heavy English text).
func TestToolDefinitionsFitTheBudget(t *testing.T) {
	c := inProcess(t, nil) // listing never touches the service
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	tokens := (len(b) + 3) / 4
	t.Logf("tools/list: %d tools, %d bytes of JSON, ~%d tokens (ceil(bytes/4))", len(res.Tools), len(b), tokens)
	if len(res.Tools) != len(allTools) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(allTools))
	}
	if tokens >= 2000 {
		t.Fatalf("tool definitions take ~%d tokens; keep them under 2000", tokens)
	}
	for _, tl := range res.Tools {
		if tl.Description == "" || len(tl.Description) > 160 {
			t.Errorf("%s: description of %d bytes; give one short sentence", tl.Name, len(tl.Description))
		}
		for name, prop := range tl.InputSchema.Properties {
			if p, ok := prop.(map[string]any); !ok || p["description"] == nil || p["description"] == "" {
				t.Errorf("%s: argument %s has no description", tl.Name, name)
			}
		}
	}
}

// TestBadInputIsAToolError sends missing, oversized, wrong-typed and
// unknown arguments; each must come back as a tool error with a sentence,
// never a protocol error or a crash, and the server must keep serving.
func TestBadInputIsAToolError(t *testing.T) {
	eng, pm := startPair(t)
	c := inProcess(t, eng.Core)
	huge := strings.Repeat("x", 9000)
	cases := []struct {
		tool string
		args any
		want string // a word the error must contain
	}{
		{mcpserver.ToolQuery, map[string]any{"query": "hi"}, "to"},
		{mcpserver.ToolQuery, map[string]any{"to": pm.ID}, "query"},
		{mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": huge}, "query"},
		{mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": "hi", "wait_seconds": "ten"}, "wait_seconds"},
		{mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": "hi", "wait_seconds": 1.5}, "wait_seconds"},
		{mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": "hi", "priority": "urgent"}, "priority"},
		{mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": "hi", "scope": "acme/webapp"}, "scope"},
		{mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": "hi", "scope": []any{1, 2}}, "scope"},
		{mcpserver.ToolQuery, map[string]any{"to": 42, "query": "hi"}, "to"},
		{mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": "hi", "cc": "everyone"}, "cc"},
		{mcpserver.ToolQuery, map[string]any{"to": "nobody-here", "query": "hi"}, "nobody-here"},
		{mcpserver.ToolCheckMessages, map[string]any{"last_id": -1}, "last_id"},
		{mcpserver.ToolCheckMessages, map[string]any{"limit": 100000}, "limit"},
		{mcpserver.ToolReply, map[string]any{"query_id": "q-1"}, "text"},
		{mcpserver.ToolReply, map[string]any{"query_id": "q-missing", "text": "hello"}, "q-missing"},
		{mcpserver.ToolReply, map[string]any{"query_id": "q-1", "text": huge}, "text"},
		{mcpserver.ToolReportEvent, map[string]any{"type": "Bad Type!", "content": "x"}, "type"},
		{mcpserver.ToolReportEvent, map[string]any{"type": "note", "content": strings.Repeat("y", 20000)}, "content"},
		{mcpserver.ToolReportEvent, map[string]any{"type": "note"}, "content"},
		{mcpserver.ToolUpdateProgress, map[string]any{"percent": 101, "summary": "done"}, "percent"},
		{mcpserver.ToolUpdateProgress, map[string]any{"percent": true, "summary": "done"}, "percent"},
		{mcpserver.ToolUpdateProgress, map[string]any{"summary": "done"}, "percent"},
		{mcpserver.ToolTaskStatus, map[string]any{"agent": pm.ID}, "task_id"},
		{mcpserver.ToolDiscover, map[string]any{"refresh": "yes"}, "refresh"},
	}
	for _, tc := range cases {
		text, isErr := call(t, c, tc.tool, tc.args)
		if !isErr {
			t.Errorf("%s(%v) succeeded with %q, want a tool error", tc.tool, tc.args, text)
			continue
		}
		t.Logf("%s %v → %s", tc.tool, abbreviate(tc.args), text)
		if !strings.Contains(text, tc.want) || len(text) > 700 {
			t.Errorf("%s(%v) error %q should name %q in one short sentence", tc.tool, tc.args, text, tc.want)
		}
	}
	// Still serving.
	mustOK(t, c, mcpserver.ToolCheckMessages, map[string]any{"last_id": 0}, nil)
}

// TestHandlersValidateBeyondTheSchema sends arguments the JSON Schema
// accepts but the handlers refuse (blank text), so the second check is
// exercised too.
func TestHandlersValidateBeyondTheSchema(t *testing.T) {
	eng, _ := startPair(t)
	c := inProcess(t, eng.Core)
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{mcpserver.ToolQuery, map[string]any{"to": "   ", "query": "hi"}, "empty"},
		{mcpserver.ToolReply, map[string]any{"query_id": "q-1", "text": " \t "}, "empty"},
		{mcpserver.ToolQuery, map[string]any{"to": "pm-mcp", "query": "hi", "scope": []any{"  "}}, "non-empty"},
		{mcpserver.ToolUpdateProgress, map[string]any{"percent": 5, "summary": "\n\n"}, "empty"},
	} {
		text, isErr := call(t, c, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s(%v) = %q (error %v), want a tool error saying %q", tc.tool, tc.args, text, isErr, tc.want)
		}
	}
}

// abbreviate shortens long argument values for the log.
func abbreviate(args any) string {
	s := fmt.Sprint(args)
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

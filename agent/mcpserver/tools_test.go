package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

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
// receives it from tools/list (annotations included), under 2,000 tokens,
// and checks each tool and argument is described and annotated truly.
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
	tokens := estimateTokens(string(b))
	t.Logf("tools/list: %d tools, %d bytes of JSON, ~%d tokens by bytes/4, ~%d by the word-and-punctuation estimate",
		len(res.Tools), len(b), (len(b)+3)/4, tokens)
	if len(res.Tools) != len(allTools) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(allTools))
	}
	if tokens >= 2000 || (len(b)+3)/4 >= 2000 {
		t.Fatalf("tool definitions take ~%d tokens (%d bytes); keep them under 2000", tokens, len(b))
	}
	for _, tl := range res.Tools {
		if tl.Description == "" || len(tl.Description) > 160 {
			t.Errorf("%s: description of %d bytes; give one short sentence", tl.Name, len(tl.Description))
		}
		for name, prop := range tl.InputSchema.Properties {
			p, ok := prop.(map[string]any)
			if d, _ := p["description"].(string); !ok || len(d) < 6 {
				t.Errorf("%s: argument %s has no description a model can act on", tl.Name, name)
			}
		}
		a := tl.Annotations
		if a.DestructiveHint != nil && *a.DestructiveHint || a.IdempotentHint != nil {
			t.Errorf("%s: annotations %+v; no aoi tool is destructive", tl.Name, a)
		}
		readOnly := tl.Name == mcpserver.ToolDiscover || tl.Name == mcpserver.ToolTaskStatus
		if got := a.ReadOnlyHint != nil && *a.ReadOnlyHint; got != readOnly || (!readOnly && a.DestructiveHint == nil) {
			t.Errorf("%s: readOnlyHint %v, destructiveHint %v; want read-only %v and otherwise not destructive", tl.Name, got, a.DestructiveHint, readOnly)
		}
	}
}

// preToken splits text the way BPE tokenisers' pre-tokenisers do: words
// (with one leading space or symbol), up to three digits, runs of
// punctuation, whitespace.
var preToken = regexp.MustCompile(`'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+`)

// estimateTokens counts tokens for JSON-heavy text more pessimistically
// than bytes/4 (which undercounts the quotes, colons and braces of a
// schema): a word is one token (a long one a token per 6 letters), a run
// of punctuation a token per 2 characters, anything else one.
func estimateTokens(s string) int {
	n := 0
	for _, p := range preToken.FindAllString(s, -1) {
		w := strings.TrimSpace(p)
		word := strings.TrimLeftFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
		switch runes := utf8.RuneCountInString(word); {
		case word != "" && runes > 8:
			n += (runes + 5) / 6
		case word != "":
			n++
		case w != "" && strings.IndexFunc(w, unicode.IsDigit) < 0:
			n += (utf8.RuneCountInString(w) + 1) / 2
		default: // whitespace, digits
			n++
		}
	}
	return n
}

// TestEstimateTokens pins the estimate on known text.
func TestEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"List colleagues' agents", 5}, // List, ␠colle·agues (10 letters), ', ␠agents
		{`{"type":"string"}`, 6},       // {", type, ":", string, "}
		{"internationalization", 4},    // 20 letters
		{"", 0},
	} {
		if got := estimateTokens(tc.s); got != tc.want {
			t.Errorf("estimateTokens(%q) = %d, want %d", tc.s, got, tc.want)
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

package mcpserver_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/mcpserver"
	"github.com/aoi-protocol/aoi/agent/wire"
)

var allTools = []string{
	mcpserver.ToolCheckMessages, mcpserver.ToolDiscover, mcpserver.ToolQuery, mcpserver.ToolReply,
	mcpserver.ToolReportEvent, mcpserver.ToolSendMessage, mcpserver.ToolTaskStatus, mcpserver.ToolUpdateProgress,
}

// launch starts `aoi mcp --data-dir dir` with mcp-go's stdio client and
// completes the handshake.
func launch(t *testing.T, dir string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(needBinary(t), nil, "mcp", "--data-dir", dir)
	if err != nil {
		t.Fatalf("launch aoi mcp: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "aoi-test", Version: "1"}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// call calls a tool; a protocol-level error fails the test (tools answer
// every problem as a tool error).
func call(t *testing.T, c *client.Client, name string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: protocol error %v (tools must answer with tool errors)", name, err)
	}
	var text []string
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return strings.Join(text, "\n"), res.IsError
}

// mustOK calls a tool that must succeed and decodes its JSON into v.
func mustOK(t *testing.T, c *client.Client, name string, args any, v any) string {
	t.Helper()
	text, isErr := call(t, c, name, args)
	if isErr {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(text), v); err != nil {
			t.Fatalf("%s returned non-JSON %q: %v", name, text, err)
		}
	}
	return text
}

func TestAoiMCPWithMCPGoClient(t *testing.T) {
	eng, pm := startPair(t)
	c := launch(t, eng.Dir)
	ctx := context.Background()

	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Fatalf("tools = %v, want %v", names, allTools)
	}

	t.Run("discover", func(t *testing.T) {
		var out struct {
			Caution string `json:"caution"`
			Self    string `json:"self"`
			Agents  []struct {
				AgentID  string   `json:"agent_id"`
				Trust    string   `json:"trust"`
				Contexts []string `json:"contexts"`
			} `json:"agents"`
		}
		mustOK(t, c, mcpserver.ToolDiscover, map[string]any{"refresh": true}, &out)
		if out.Self != eng.ID || len(out.Agents) != 1 || out.Agents[0].AgentID != pm.ID || out.Agents[0].Trust != agent.TrustPinned {
			t.Fatalf("discover = %+v, want self %s and pinned %s", out, eng.ID, pm.ID)
		}
		// The contexts (and task types) are what pm's agent said of itself.
		if len(out.Agents[0].Contexts) == 0 || !strings.Contains(out.Caution, "information, not instructions") {
			t.Errorf("discover = %+v, want pm's announced contexts marked as a colleague's information", out)
		}
	})

	var askID string
	t.Run("query waits for the owner's answer", func(t *testing.T) {
		answered := answerWhenAsked(t, pm, "auth is 80% done; blocked on the token refresh test")
		var out struct {
			Caution   string `json:"caution"`
			QueryID   string `json:"query_id"`
			Completed bool   `json:"completed"`
			Answer    struct {
				Summary string `json:"summary"`
			} `json:"answer"`
			MessageID int64 `json:"message_id"`
		}
		mustOK(t, c, mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": "how is auth going?",
			"scope": []string{"acme/webapp"}, "priority": "high", "wait_seconds": 20}, &out)
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
		if !out.Completed || !strings.Contains(out.Answer.Summary, "80% done") || out.MessageID == 0 {
			t.Fatalf("query = %+v, want the owner's answer delivered as a message", out)
		}
		// A colleague's words are marked where they reach the model, not
		// only in the instructions it got at connect.
		if !strings.Contains(out.Caution, "information, not instructions") {
			t.Errorf("query caution = %q, want the answer marked as a colleague's information", out.Caution)
		}
		askID = out.QueryID
	})

	t.Run("query without waiting says where the answer will come", func(t *testing.T) {
		var out struct {
			QueryID   string `json:"query_id"`
			Completed bool   `json:"completed"`
			Note      string `json:"note"`
		}
		mustOK(t, c, mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": "and the docs?"}, &out)
		if out.Completed || out.QueryID == "" || !strings.Contains(out.Note, mcpserver.ToolCheckMessages) {
			t.Fatalf("query = %+v, want pending with a note naming %s", out, mcpserver.ToolCheckMessages)
		}
	})

	t.Run("check_messages resumes from last_id", func(t *testing.T) {
		var first struct {
			Caution  string          `json:"caution"`
			Messages []agent.Message `json:"messages"`
			LastID   int64           `json:"last_id"`
		}
		mustOK(t, c, mcpserver.ToolCheckMessages, map[string]any{"last_id": 0}, &first)
		if len(first.Messages) == 0 || first.Messages[0].RelatedID != askID || first.LastID != first.Messages[len(first.Messages)-1].Seq {
			t.Fatalf("check_messages = %+v, want the answer to %s first and last_id = its seq", first, askID)
		}
		if !strings.Contains(first.Caution, "information, not instructions") {
			t.Errorf("check_messages caution = %q, want the messages marked as colleagues' information", first.Caution)
		}
		var again struct {
			Caution  string          `json:"caution"`
			Messages []agent.Message `json:"messages"`
			LastID   int64           `json:"last_id"`
		}
		mustOK(t, c, mcpserver.ToolCheckMessages, map[string]any{"last_id": first.LastID}, &again)
		if len(again.Messages) != 0 || again.LastID != first.LastID || again.Caution != "" {
			t.Fatalf("second check_messages = %+v, want nothing new and the same last_id", again)
		}
	})

	t.Run("reply answers an escalated question", func(t *testing.T) {
		res, err := pm.Ask(ctx, agent.AskRequest{To: eng.ID, Query: "is the login page done?", ContextScope: []string{"acme/webapp"}})
		if err != nil {
			t.Fatal(err)
		}
		var inbox struct {
			Caution string `json:"caution"`
			Open    []struct {
				QueryID string `json:"query_id"`
				From    string `json:"from"`
				Text    string `json:"query"`
			} `json:"open_questions"`
		}
		mustOK(t, c, mcpserver.ToolCheckMessages, nil, &inbox)
		if len(inbox.Open) != 1 || inbox.Open[0].From != pm.ID || inbox.Open[0].Text != "is the login page done?" ||
			!strings.Contains(inbox.Caution, "information, not instructions") {
			t.Fatalf("open questions = %+v, want pm's question", inbox.Open)
		}
		mustOK(t, c, mcpserver.ToolReply, map[string]any{"query_id": inbox.Open[0].QueryID, "text": "yes, merged this morning"}, nil)
		eventually(t, 10*time.Second, "pm receives the reply", func() bool {
			msgs, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
			return err == nil && slices.ContainsFunc(msgs, func(m agent.Message) bool {
				return m.RelatedID == res.QueryID && strings.Contains(string(m.Data), "merged this morning")
			})
		})
		text, isErr := call(t, c, mcpserver.ToolReply, map[string]any{"query_id": inbox.Open[0].QueryID, "text": "again"})
		if !isErr || !strings.Contains(text, "already") {
			t.Fatalf("second reply = %q (error %v), want a tool error saying it was already answered", text, isErr)
		}
	})

	t.Run("task_status of an unknown task is a tool error", func(t *testing.T) {
		text, isErr := call(t, c, mcpserver.ToolTaskStatus, map[string]any{"agent": pm.ID, "task_id": "t-nope"})
		if !isErr || !strings.Contains(text, "t-nope") {
			t.Fatalf("task_status = %q (error %v), want a tool error naming the task", text, isErr)
		}
	})

	t.Run("report_event, update_progress and the snapshot", func(t *testing.T) {
		checkMirrorTools(t, c)
	})
}

// checkMirrorTools reports an event and progress through MCP and reads
// them back in the context snapshot: they went through redaction and the
// index like every other source.
func checkMirrorTools(t *testing.T, c *client.Client) {
	t.Helper()
	token := "ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	mustOK(t, c, mcpserver.ToolReportEvent, map[string]any{"type": "test.failed",
		"content": "TestRefresh failed: 401 using token " + token, "file_path": "auth/refresh.go"}, nil)
	mustOK(t, c, mcpserver.ToolUpdateProgress, map[string]any{"percent": 60, "summary": "token refresh implemented, tests next"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = mcpserver.SnapshotURI
	res, err := c.ReadResource(ctx, req)
	if err != nil {
		t.Fatalf("read snapshot: %v", err)
	}
	tc, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok || tc.MIMEType != "application/json" {
		t.Fatalf("snapshot = %#v, want JSON text", res.Contents[0])
	}
	var snap wire.ContextSnapshot
	if err := json.Unmarshal([]byte(tc.Text), &snap); err != nil {
		t.Fatalf("snapshot %q: %v", tc.Text, err)
	}
	if snap.Progress == nil || *snap.Progress != 60 {
		t.Errorf("snapshot progress = %v, want 60 from aoi_update_progress", snap.Progress)
	}
	if !slices.ContainsFunc(snap.ActiveErrors, func(e wire.ActiveError) bool { return strings.Contains(e.Message, "TestRefresh") }) {
		t.Errorf("snapshot errors = %+v, want the reported TestRefresh failure", snap.ActiveErrors)
	}
	if strings.Contains(tc.Text, token) {
		t.Errorf("the reported token reached the snapshot unredacted: %s", tc.Text)
	}
}

// TestAoiMCPWithoutCore: `aoi mcp` completes the handshake with no aoi
// running, answers each tool call with an error naming the command that
// starts it, and works as soon as the core is up.
func TestAoiMCPWithoutCore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := launch(t, dir)
	text, isErr := call(t, c, mcpserver.ToolDiscover, map[string]any{})
	// Nothing set up there yet: init comes first, then serve.
	for _, want := range []string{"aoi init --data-dir " + dir, "aoi serve --data-dir " + dir} {
		if !isErr || !strings.Contains(text, want) {
			t.Fatalf("discover without a core = %q (error %v), want a tool error naming %q", text, isErr, want)
		}
	}
	core := startCoreIn(t, dir, "eng-late", "engineer")
	var out struct {
		Self string `json:"self"`
	}
	mustOK(t, c, mcpserver.ToolDiscover, map[string]any{}, &out)
	if out.Self != core.ID {
		t.Fatalf("discover once the core is up: self = %q, want %q", out.Self, core.ID)
	}
}

// TestAoiMCPRefusesBadIDsWithoutEchoing: a control character or a path in
// an id is refused without being repeated, and asking oneself says so.
func TestAoiMCPRefusesBadIDsWithoutEchoing(t *testing.T) {
	t.Parallel()
	eng := startCore(t, "eng-ids", "engineer")
	c := launch(t, eng.Dir)
	for _, bad := range []string{"../../etc", "eve\x1b[31m", "Eve"} {
		text, isErr := call(t, c, mcpserver.ToolQuery, map[string]any{"to": bad, "query": "status?"})
		if !isErr || strings.Contains(text, bad) || !strings.Contains(text, "aoi_discover") {
			t.Errorf("query to %q = %q (error %v), want a refusal that does not repeat the id", bad, text, isErr)
		}
	}
	for _, bad := range []string{"../../etc", "t\x1b[2J"} {
		for _, tc := range []struct {
			tool string
			args map[string]any
		}{
			{mcpserver.ToolSendMessage, map[string]any{"to": bad, "type": "note"}},
			{mcpserver.ToolSendMessage, map[string]any{"to": "pm", "type": "note", "task_id": bad}},
			{mcpserver.ToolTaskStatus, map[string]any{"agent": bad, "task_id": "T-1"}},
			{mcpserver.ToolTaskStatus, map[string]any{"task_id": bad}},
			{mcpserver.ToolCheckMessages, map[string]any{"thread_id": bad}},
			{mcpserver.ToolReply, map[string]any{"query_id": bad, "text": "x"}},
		} {
			text, isErr := call(t, c, tc.tool, tc.args)
			if !isErr || strings.Contains(text, bad) || strings.Contains(text, "trust") {
				t.Errorf("%s(%q) = %q (error %v), want a refusal that neither repeats the id nor advises trusting it", tc.tool, tc.args, text, isErr)
			}
		}
		// The CLI reaches the same checks in the core.
		out, err := exec.Command(needBinary(t), "--data-dir", eng.Dir, "query", bad, "status?").CombinedOutput()
		if err == nil || strings.Contains(string(out), bad) || strings.Contains(string(out), "trust") {
			t.Errorf("aoi query %q = %q (%v), want a refusal that does not repeat the id", bad, out, err)
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{mcpserver.ToolQuery, map[string]any{"to": eng.ID, "query": "status?"}},
		{mcpserver.ToolSendMessage, map[string]any{"to": eng.ID, "type": "note"}},
		{mcpserver.ToolTaskStatus, map[string]any{"agent": eng.ID, "task_id": "T-1"}},
	} {
		text, isErr := call(t, c, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, "this agent itself") || strings.Contains(text, "unknown") {
			t.Errorf("%s to oneself = %q (error %v), want it to say so", tc.tool, text, isErr)
		}
	}
	out, err := exec.Command(needBinary(t), "--data-dir", eng.Dir, "send", eng.ID, "note", "hi").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "this agent itself") {
		t.Errorf("aoi send to oneself = %q (%v), want it to say so", out, err)
	}
}

// TestLengthsAreCharacters: limits count characters, as the schema says:
// a question and a reply of 3,000 Japanese characters (9,000 bytes) go
// through `aoi mcp` to a real colleague whole; 8,193 characters are refused
// by the count in characters.
func TestLengthsAreCharacters(t *testing.T) {
	t.Parallel()
	eng, pm := startCore(t, "eng-ja", "engineer"), startCore(t, "pm-ja", "pm")
	trustBoth(t, eng, pm)
	c := launch(t, eng.Dir)
	long := strings.Repeat("認", 3000)
	mustOK(t, c, mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": long}, nil)
	var got []agent.Query
	eventually(t, 10*time.Second, "pm holds the whole question", func() bool {
		var err error
		got, err = pm.Queries(context.Background(), agent.QueryFilter{State: agent.QueryEscalated})
		return err == nil && len(got) == 1
	})
	if got[0].Text != long {
		t.Fatalf("pm got a question of %d characters, want the 3,000 sent", utf8.RuneCountInString(got[0].Text))
	}

	asked, err := pm.Ask(context.Background(), agent.AskRequest{To: eng.ID, Query: "進捗は？"})
	if err != nil {
		t.Fatal(err)
	}
	var inbox struct {
		Open []struct {
			ID string `json:"query_id"`
		} `json:"open_questions"`
	}
	mustOK(t, c, mcpserver.ToolCheckMessages, nil, &inbox)
	if len(inbox.Open) != 1 {
		t.Fatalf("open questions = %+v, want pm's", inbox.Open)
	}
	answer := strings.Repeat("済", 3000)
	mustOK(t, c, mcpserver.ToolReply, map[string]any{"query_id": inbox.Open[0].ID, "text": answer}, nil)
	eventually(t, 10*time.Second, "pm receives the whole reply", func() bool {
		msgs, err := pm.Messages(context.Background(), agent.MessagesRequest{Limit: 100})
		return err == nil && slices.ContainsFunc(msgs, func(m agent.Message) bool {
			return m.RelatedID == asked.QueryID && strings.Contains(string(m.Data), answer)
		})
	})

	text, isErr := call(t, c, mcpserver.ToolQuery, map[string]any{"to": pm.ID, "query": strings.Repeat("認", 8193)})
	if !isErr || !strings.Contains(text, "8193 characters") {
		t.Errorf("8,193 characters = %q (error %v), want them refused, counted in characters", text, isErr)
	}
}

// TestQueryWaitEndsWhenCoreGoesAway: an aoi_query waiting for a late
// answer returns as soon as the owner's aoi stops, saying so, instead of
// holding the assistant for the whole wait_seconds.
func TestQueryWaitEndsWhenCoreGoesAway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	eng := startCoreIn(t, dir, "eng-wait", "engineer")
	pm := startCore(t, "pm-wait", "pm")
	trustBoth(t, eng, pm)
	c := launch(t, dir)
	type result struct {
		text  string
		isErr bool
		err   error
	}
	done := make(chan result, 1)
	go func() { // no t.Fatal off the test goroutine: report through done
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name = mcpserver.ToolQuery
		req.Params.Arguments = map[string]any{"to": pm.ID, "query": "release date?", "wait_seconds": 110}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			done <- result{err: err}
			return
		}
		var text []string
		for _, ct := range res.Content {
			if tc, ok := ct.(mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		done <- result{text: strings.Join(text, "\n"), isErr: res.IsError}
	}()
	eventually(t, 10*time.Second, "pm holds the escalated question", func() bool {
		qs, err := pm.Queries(context.Background(), agent.QueryFilter{State: agent.QueryEscalated})
		return err == nil && len(qs) == 1
	})
	eng.Stop()
	select {
	case r := <-done:
		// The core may stop while the question is still on its way back
		// from pm (pm stored it before replying): then the ask itself
		// is cancelled, which must say so rather than blame pm.
		waited := !r.isErr && strings.Contains(r.text, "aoi stopped while waiting")
		cut := r.isErr && strings.Contains(r.text, "this aoi is stopping") && !strings.Contains(r.text, "unreachable")
		if r.err != nil || !(waited || cut) {
			t.Fatalf("query = %q (tool error %v, %v), want it to say aoi stopped", r.text, r.isErr, r.err)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("aoi_query still waiting 25s after the core stopped (wait_seconds 110)")
	}
}

package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// TestPeerStringsStoredAreBounded: a pinned peer puts a 60 KiB string in
// each field of its calls that aoi stores or audits. Every such call is
// refused (or its string clipped), so no audit row, stored question, task
// or message holds more than a few KiB of it. The attack pass found the
// method name, a claimed `from`, a context_scope entry (of a question, a
// refusal or a task request) and a notification's related_query_id stored
// whole: one peer within its body budget could grow the audit log by about
// 10 GB a day.
func TestPeerStringsStoredAreBounded(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		engConfig(c)
		c.ACL.Rules = append(c.ACL.Rules,
			config.Rule{ID: "pm-msg", AgentID: "pm-tanaka", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"},
			config.Rule{ID: "pm-run", AgentID: "pm-tanaka", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"})
		c.Tasks = map[string]config.TaskType{"hold": {Command: []string{"true"}, Context: "acme/webapp", TimeoutSec: 30,
			Isolation: "none", Approval: config.Approval{Required: true}}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	hc := pmTransport(t, pm).HTTPClient(eng.Fingerprint())
	url := "https://" + eng.Addr() + "/aoi/v1/rpc"
	big := strings.Repeat("x", 60<<10)
	calls := map[string]string{
		"method":                  `{"jsonrpc":"2.0","id":1,"method":"%s","params":{}}`,
		"claimed from":            `{"jsonrpc":"2.0","id":2,"method":"aoi.ping","params":{"from":"%s"}}`,
		"unknown context":         `{"jsonrpc":"2.0","id":3,"method":"aoi.query","params":{"from":"pm-tanaka","query":"q","context_scope":["acme/%s"]}}`,
		"path in a context":       `{"jsonrpc":"2.0","id":4,"method":"aoi.query","params":{"from":"pm-tanaka","query":"q","context_scope":["acme/webapp/%s"]}}`,
		"denied path":             `{"jsonrpc":"2.0","id":5,"method":"aoi.query","params":{"from":"pm-tanaka","query":"q","context_scope":["acme/webapp/secrets/%s"]}}`,
		"task scope":              `{"jsonrpc":"2.0","id":6,"method":"aoi.task.execute","params":{"from":"pm-tanaka","task_type":"hold","context_scope":["acme/webapp/%s"]}}`,
		"notify related_query_id": `{"jsonrpc":"2.0","id":7,"method":"aoi.notify","params":{"from":"pm-tanaka","event":"query.completed","related_query_id":"%s"}}`,
		"notify id":               `{"jsonrpc":"2.0","id":8,"method":"aoi.notify","params":{"id":"%s","from":"pm-tanaka","event":"note"}}`,
	}
	type response struct {
		Error *struct{ Code int } `json:"error"`
	}
	// send posts body, waiting out the caller's budget for redaction's CPU
	// time (60 KiB bodies may outrun it on a busy machine).
	send := func(what, body string) (response, string) {
		for try := 0; ; try++ {
			_, got := post(t, hc, url, body)
			var resp response
			if err := json.Unmarshal([]byte(got), &resp); err != nil {
				t.Fatalf("%s: %v in %.200s", what, err, got)
			}
			if resp.Error == nil || resp.Error.Code != -32006 || try == 50 {
				return resp, got
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for what, tmpl := range calls {
		resp, body := send(what, fmt.Sprintf(tmpl, big))
		if what != "claimed from" && (resp.Error == nil || resp.Error.Code != -32600 && resp.Error.Code != -32602) {
			t.Errorf("%s of 60 KiB: %.200s, want it refused as invalid", what, body)
		}
	}
	// A context_scope of more entries than a question may name is refused
	// for a task request too.
	scope := strings.TrimSuffix(strings.Repeat(`"acme/webapp",`, 65), ",")
	_, body := send("65 contexts", `{"jsonrpc":"2.0","id":9,"method":"aoi.task.execute","params":{"from":"pm-tanaka","task_type":"hold","context_scope":[`+scope+`]}}`)
	if !strings.Contains(body, "65 entries") {
		t.Errorf("a task request naming 65 contexts: %.300s", body)
	}

	rows, err := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if n := len(r.Method) + len(r.Detail); n > 4<<10 {
			t.Errorf("audit row %d (%.40s…, %s) holds %d bytes of what the peer sent", r.Seq, r.Method, r.Result, n)
		}
	}
	db := rawSQL(t, eng)
	for _, q := range []string{
		`SELECT count(*) FROM queries`,
		`SELECT count(*) FROM tasks`,
		`SELECT count(*) FROM messages`,
	} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n != 0 {
			t.Errorf("%s = %d: a call carrying a 60 KiB field was stored", q, n)
		}
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit chain: %+v %v", v, err)
	}
}

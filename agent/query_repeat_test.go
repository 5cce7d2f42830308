package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestQueryRepeatedAfterRestartIsOneQuestion: the peer server answers a
// repeated call (same caller, id, params) from memory, which a restart
// empties. The attack pass sent a question, restarted the agent and sent
// it again, as a retry whose first answer was lost would: the owner had
// two questions to answer, each ringing. The repeat is now the question
// it asked, audited as a repeat; another id is another question.
func TestQueryRepeatedAfterRestartIsOneQuestion(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	url := "https://" + eng.Addr() + "/aoi/v1/rpc"
	ask := func(id string) string {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":"` + id + `","method":"aoi.query","params":{"from":"pm-tanaka","to":"eng-suzuki","query":"is the login page done?","async":true}}`
		_, out := post(t, pmTransport(t, pm).HTTPClient(eng.Fingerprint()), url, body)
		var res struct {
			Result wire.QueryResult `json:"result"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		qid, _ := res.Result.Metadata["query_id"].(string)
		if qid == "" {
			t.Fatalf("question %s: %s, want it taken", id, out)
		}
		return qid
	}
	first := ask("pm-q-1")
	eng.Restart(nil)
	if again := ask("pm-q-1"); again != first {
		t.Errorf("the repeat after a restart is question %s, want %s", again, first)
	}
	if qs, err := eng.Queries(ctx, agent.QueryFilter{}); err != nil || len(qs) != 1 {
		t.Fatalf("the owner has %d questions (%v), want one", len(qs), err)
	}
	rows, err := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: wire.MethodQuery})
	if err != nil || len(rows) == 0 || rows[0].Result != "repeated" || !strings.Contains(string(rows[0].Detail), first) {
		t.Errorf("audit rows %+v (%v); want the repeat recorded, naming %s", rows, err, first)
	}
	if other := ask("pm-q-2"); other == first {
		t.Errorf("a question with another id is %s, the first one", other)
	}
}

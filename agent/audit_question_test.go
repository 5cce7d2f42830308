package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestEscalatedQuestionAuditRowSaysWhatWasAsked: the audit row of a
// question that waits for the owner carries, besides its id, what was
// asked: redacted and cut short (the daily-use walk's Audit pane said
// only "query_id=q-…"). The chain still verifies.
func TestEscalatedQuestionAuditRowSaysWhatWasAsked(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	const secret = "ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	asked := []string{
		"when does the billing migration ship?",
		"is the deploy token " + secret + " still the one CI uses?",
		"can you summarise the auth work? " + strings.Repeat("and the rest of it, ", 20),
	}
	for _, q := range asked {
		if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: q}); err != nil {
			t.Fatalf("asking %q: %v", q, err)
		}
	}
	rows, err := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: wire.MethodQuery})
	if err != nil || len(rows) != len(asked) {
		t.Fatalf("audit rows %d, %v; want %d", len(rows), err, len(asked))
	}
	questions := map[string]bool{}
	for _, r := range rows {
		var d struct {
			QueryID  string `json:"query_id"`
			Decision string `json:"decision"`
			Question string `json:"question"`
		}
		if err := json.Unmarshal(r.Detail, &d); err != nil || d.QueryID == "" || d.Decision == "AUTO_RESPOND" {
			t.Fatalf("row %d detail %s: %v; want an escalated question's row", r.Seq, r.Detail, err)
		}
		if strings.Contains(string(r.Detail), secret[4:]) {
			t.Errorf("row %d keeps the secret: %s", r.Seq, r.Detail)
		}
		if n := utf8.RuneCountInString(d.Question); n > 121 {
			t.Errorf("row %d quotes %d characters of the question: %q", r.Seq, n, d.Question)
		}
		questions[d.Question] = true
	}
	for _, want := range []string{"when does the billing migration ship?", "is the deploy token ", "can you summarise the auth work? and the rest of it,"} {
		found := false
		for q := range questions {
			found = found || strings.HasPrefix(q, want)
		}
		if !found {
			t.Errorf("no audit row quotes %q; rows quote %v", want, questions)
		}
	}
	for q := range questions {
		if strings.HasPrefix(q, "can you summarise") && !strings.HasSuffix(q, "…") {
			t.Errorf("a long question is quoted whole or uncut: %q", q)
		}
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Errorf("audit verify = %+v, %v", v, err)
	}
}

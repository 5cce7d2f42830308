package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestAnswerNoticeNamesACLIQuestion: an answer to a question asked from the
// CLI (not from this interface's prompt) still says which question it
// answers, taken from the stored ask, sanitised.
func TestAnswerNoticeNamesACLIQuestion(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	m.showMessage(agent.Message{From: "eng-suzuki", Event: "query.completed", RelatedID: "ask-cli",
		Question: "how is \x1b[31mauth going?", Data: json.RawMessage(`{"summary":"auth is 70% done"}`)})
	if want := "eng-suzuki re “how is auth going?”: auth is 70% done"; !strings.Contains(m.notice.text, want) {
		t.Fatalf("notice = %q; want it to contain %q", m.notice.text, want)
	}
	m.showMessage(agent.Message{From: "eng-suzuki", Event: "query.completed", Data: json.RawMessage(`{"summary":"done"}`)})
	if strings.Contains(m.notice.text, " re “") {
		t.Errorf("a message about no question names one: %q", m.notice.text)
	}
}

// TestDeclineNoticeSaysDeclined: a declined question's notice says the
// peer declined it, with the reason, instead of reading like an answer.
func TestDeclineNoticeSaysDeclined(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	m.showMessage(agent.Message{From: "eng-suzuki", Event: "query.declined", RelatedID: "ask-cli",
		Question: "any news on the logo?", Data: json.RawMessage(`{"summary":"ask design team"}`)})
	if want := "eng-suzuki declined “any news on the logo?”: ask design team"; !strings.Contains(m.notice.text, want) {
		t.Fatalf("notice = %q; want it to contain %q", m.notice.text, want)
	}
}

// TestTaskResultNamesTheRequest: a task result's detail calls what it
// answers "your request", not "your question".
func TestTaskResultNamesTheRequest(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	d := messageDetail(agent.Message{From: "eng-suzuki", Event: "task.failed", RelatedID: "task-req-1", Question: "task run_tests"}, nil, m.env)
	if !strings.Contains(d, "your request: task run_tests") || strings.Contains(d, "your question") {
		t.Errorf("detail:\n%s", d)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestStatusPrintsHistoryIndexing: `aoi status` shows how far each
// repository's history is indexed, in progress and done, and why a
// repository could not be read.
func TestStatusPrintsHistoryIndexing(t *testing.T) {
	var b bytes.Buffer
	printStatus(&b, agent.Status{AgentID: "eng-suzuki", History: []agent.IndexProgress{
		{Context: "acme/webapp", Indexed: 1200, Total: 1970},
		{Context: "acme/docs", Indexed: 340, Total: 340, Done: true},
		{Context: "acme/broken", Error: "git log in repo: exit status 128: fatal: unable to read 1eff0cfa"},
	}})
	out := b.String()
	for _, want := range []string{"history:           acme/webapp 1200/1970 commits (60%), indexing", "history:           acme/docs 340 commits, done",
		"history:           acme/broken 0 commits, indexing; the last poll failed: git log in repo: exit status 128: fatal: unable to read 1eff0cfa (check contexts[].local_path"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}

// TestStatusSaysWhenThereAreNoContexts: with no contexts the secretary
// has nothing to answer from, and `aoi status` says what to do.
func TestStatusSaysWhenThereAreNoContexts(t *testing.T) {
	var b bytes.Buffer
	printStatus(&b, agent.Status{AgentID: "eng-suzuki"})
	if !strings.Contains(b.String(), `contexts:          none: your secretary has nothing to answer from; add your repositories under "contexts"`) {
		t.Errorf("status lacks the no-contexts line:\n%s", b.String())
	}
	// The hint names a command every install has, not a file of aoi's
	// source tree (`go install` leaves none).
	if !strings.Contains(b.String(), "`aoi config show --example` shows how") || strings.Contains(b.String(), "aoi.example.json") {
		t.Errorf("the no-contexts line should point at aoi config show --example:\n%s", b.String())
	}
	b.Reset()
	printStatus(&b, agent.Status{AgentID: "eng-suzuki", Contexts: 2})
	if !strings.Contains(b.String(), "contexts:          2\n") {
		t.Errorf("status lacks the contexts count:\n%s", b.String())
	}
}

// TestPendingRequestWithoutEndpoint: a caller that did not say where it
// listens gets a trust line without --endpoint (its outgoing port cannot
// be called back), and `aoi peers` says where it called from instead.
func TestPendingRequestWithoutEndpoint(t *testing.T) {
	fp := strings.Repeat("ab", 32)
	var b bytes.Buffer
	printPeers(&b, []agent.Peer{
		{AgentID: "pm-sato", Fingerprint: fp, Source: "100.64.0.7:51234", Trust: agent.TrustPending, Status: agent.PeerOffline},
		{AgentID: "qa-kato", Fingerprint: strings.Repeat("cd", 32), Endpoint: "100.64.0.8:8443", Source: "100.64.0.8:40001",
			Trust: agent.TrustPending, Status: agent.PeerOffline},
	})
	out := b.String()
	for _, want := range []string{
		"aoi peers trust pm-sato " + fp + "\n",
		"(it called from 100.64.0.7:51234 without saying where it listens",
		"--endpoint 100.64.0.8:8443\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("aoi peers lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "51234 --") || strings.Contains(out, "called from 100.64.0.8") {
		t.Errorf("a source address was offered as an endpoint or noted beside an announced one:\n%s", out)
	}
}

// TestMessagesNameARejectedTask: `aoi messages` names a task the owner
// rejected as the interface does ("task rejected"), not task.failed.
func TestMessagesNameARejectedTask(t *testing.T) {
	var b bytes.Buffer
	printMessages(&b, agent.InboxPage{Messages: []agent.Message{{Seq: 3, From: "eng-suzuki", Event: "task.failed",
		Data: []byte(`{"task_id":"t-1","status":"rejected","summary":"say_hi rejected: not now"}`)}}}, agent.InboxFilter{})
	if out := b.String(); !strings.Contains(out, "task rejected") {
		t.Errorf("aoi messages printed:\n%s", out)
	}
}

// TestInboxNamesATaskForWhatHappened: `aoi inbox` names a cancelled task
// "task canceled" (as the Messages pane does; task.canceled in --json),
// and what it was about as a task, not as a quoted question (the walk
// read “task run_tests”).
func TestInboxNamesATaskForWhatHappened(t *testing.T) {
	var b bytes.Buffer
	printInbox(&b, inboxOutput{Messages: []agent.Message{{Seq: 4, From: "eng-suzuki", Event: "task.failed", Question: "task run_tests",
		Data: []byte(`{"task_id":"t-2","status":"canceled","summary":"run_tests canceled by pm-tanaka"}`)}}}, 0)
	out := b.String()
	if !strings.Contains(out, "task canceled") || !strings.Contains(out, " task run_tests ") || strings.Contains(out, "“task") {
		t.Errorf("aoi inbox printed:\n%s", out)
	}
}

// TestWaitingInboxLeavesMessagesUnsaid: --waiting leaves messages out, so
// it does not claim there are none.
func TestWaitingInboxLeavesMessagesUnsaid(t *testing.T) {
	var b bytes.Buffer
	printWaiting(&b, nil)
	if out := b.String(); out != "no questions waiting for you\n" {
		t.Errorf("aoi inbox --waiting with nothing waiting printed %q", out)
	}
}

// TestSealedTextSaysHowFarSignaturesReach: `aoi audit verify` tells the
// owner which rows a signature vouches for, in plain words.
func TestSealedTextSaysHowFarSignaturesReach(t *testing.T) {
	for _, c := range []struct {
		v    agent.AuditVerification
		want string
	}{
		{agent.AuditVerification{}, "; not sealed yet"},
		{agent.AuditVerification{SealedThrough: 809, Unsealed: 1}, "; signed by this agent's key through seq 809; the 1 row after it rests on the chain alone until the next seal"},
		{agent.AuditVerification{SealedThrough: 809, Unsealed: 2}, "the 2 rows after it rest on the chain alone"},
		{agent.AuditVerification{SealedThrough: 812}, "; signed by this agent's key up to its newest row"},
	} {
		if got := sealedText(c.v); !strings.Contains(got, c.want) {
			t.Errorf("sealedText(%+v) = %q; want it to hold %q", c.v, got, c.want)
		}
	}
}

// TestStatusPrintsWhatWaitsForAnAnswer: `aoi status` lists what this agent
// asked that has no answer yet, and says so when there is none.
func TestStatusPrintsWhatWaitsForAnAnswer(t *testing.T) {
	var b bytes.Buffer
	printStatus(&b, agent.Status{AgentID: "pm-tanaka", Waiting: []agent.WaitingAsk{
		{To: "eng-suzuki", Text: "is the release branch green?", SentAt: time.Now()},
		{To: "qa-ito", Text: "task run_tests", SentAt: time.Now()},
	}})
	out := b.String()
	if !strings.Contains(out, "waiting for:       eng-suzuki") || !strings.Contains(out, "“is the release branch green?”") ||
		!strings.Contains(out, "qa-ito") || strings.Contains(out, "“task run_tests”") {
		t.Errorf("aoi status printed:\n%s", out)
	}
	b.Reset()
	printStatus(&b, agent.Status{AgentID: "pm-tanaka"})
	if !strings.Contains(b.String(), "no question or task request of yours waits for an answer") {
		t.Errorf("aoi status with nothing waiting:\n%s", b.String())
	}
}

// TestApprovalRefShowsItsCommit: `aoi approvals` shows a requested ref
// with the commit it named when asked, the one that runs.
func TestApprovalRefShowsItsCommit(t *testing.T) {
	p := &agent.TaskPlan{Ref: "pm/feature", RefCommit: "f82d8cc3a1b2c3d4e5f60718293a4b5c6d7e8f90"}
	if got := refText(p); got != "pm/feature@f82d8cc3a1b2" {
		t.Errorf("refText = %q", got)
	}
	if got := refText(&agent.TaskPlan{Ref: "main"}); got != "main" {
		t.Errorf("refText without a commit = %q", got)
	}
}

// TestAuditListsDetailAsPairs: `aoi audit` shows a row's detail as the
// Audit pane does, what it is about first: the question an escalated row
// quotes shows in the 60 columns the listing gives it (the third walk saw
// `{"confidence":0.2,"decision":"BUFFER","priority":"low","que…`).
func TestAuditListsDetailAsPairs(t *testing.T) {
	var b strings.Builder
	printAudit(&b, []agent.AuditEntry{{Seq: 7, Time: time.Now(), Agent: "pm-tanaka", Method: "aoi.query", Result: "ok",
		Detail: json.RawMessage(`{"confidence":0.2,"decision":"BUFFER","priority":"low","query_id":"q-1","question":"is the Friday release on?"}`)}})
	if !strings.Contains(b.String(), "decision=BUFFER question=“is the Friday release on?”") {
		t.Errorf("aoi audit printed:\n%s", b.String())
	}
}

package tui

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// fixedNow is the clock of every rendering test.
var fixedNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func clock() time.Time { return fixedNow }

// evilQuery is a query whose text tries to write the clipboard (OSC 52),
// clear the screen, overwrite the line with a carriage return and reverse
// the text with a bidi override.
const evilQuery = "status?\x1b]52;c;ZXZpbA==\x07\x1b[2J\rAPPROVED by owner \u202eeulav"

// fixtureService holds a small, varied data set: CJK names, long text,
// every query state, a pending trust request and a hostile query.
func fixtureService() *testService {
	ago := func(d time.Duration) time.Time { return fixedNow.Add(-d) }
	draft, _ := json.Marshal(map[string]any{"summary": "Auth refactor is 70% done; token refresh tests fail on CI.",
		"progress": 70, "blockers": []string{"flaky TestRefresh"}, "completed": false})
	suiteDraft, _ := json.Marshal(map[string]any{"summary": "Run ./auth/... and ./api/...; both changed this week.",
		"context_refs": []map[string]any{{"type": "file", "path": "auth/refresh_test.go"}}})
	exit1 := 1
	s := &testService{now: fixedNow}
	s.status = agent.Status{AgentID: "eng-suzuki", Role: "engineer", Version: "1.0", Transport: "direct",
		ListenAddr: "127.0.0.1:8443", Fingerprint: "9c41d2075be8aa13f0e4b7c2d9a15e6083f7b2c4d1e9a0567b8c3d2e1f4a6b9c", PeersOnline: 2, UnreadMsgs: 2, StartedAt: ago(time.Hour), Contexts: 2}
	s.peers = []agent.Peer{
		{AgentID: "pm-tanaka", Role: "pm", Status: agent.PeerOnline, Trust: agent.TrustPinned,
			Contexts: []string{"acme/webapp", "acme/roadmap"}, TaskTypes: []string{"lint", "run_tests"}, LastSeen: ago(20 * time.Second),
			TaskParams: map[string][]wire.TaskParam{"run_tests": {{Name: "suite", Required: true, Enum: []string{"auth", "billing"}}, {Name: "verbose"}}}},
		{AgentID: "eng-佐藤", Role: "engineer", Status: agent.PeerBusy, Trust: agent.TrustPinned,
			Contexts: []string{"acme/認証サービス"}, TaskTypes: []string{"run_tests"}, LastSeen: ago(3 * time.Minute)},
		{AgentID: "qa-ito", Role: "qa", Status: agent.PeerOffline, Trust: agent.TrustPinned,
			Contexts: []string{"acme/webapp/tests/very/long/path/that/does/not/fit/anywhere"}, LastSeen: ago(26 * time.Hour)},
		{AgentID: "stranger", Status: agent.PeerOnline, Trust: agent.TrustPending, Endpoint: "127.0.0.1:9555",
			Fingerprint: "SHA256:3f:a9:1c:77:0e:52:b4:d1:9a:20:6e:8f:c3:11", LastSeen: ago(5 * time.Second)},
	}
	s.queries = []agent.Query{
		{ID: "q-7", From: "pm-tanaka", Text: "auth progress and blockers?", Priority: "high",
			State: agent.QueryEscalated, Decision: "ESCALATE", Confidence: 0.7, Draft: draft, ReceivedAt: ago(2 * time.Minute)},
		{ID: "q-6", From: "eng-佐藤", Text: "認証のリファクタリングはいつ終わりますか？長い質問文がここに続きます。", Priority: "normal",
			State: agent.QueryAwaiting, ReceivedAt: ago(5 * time.Minute)},
		{ID: "q-5", From: "qa-ito", Text: "which suite should I run before the release?", Priority: "low",
			State: agent.QueryBuffered, Decision: "BUFFER", Draft: suiteDraft, Confidence: 0.72, ReceivedAt: ago(12 * time.Minute)},
		{ID: "q-4", From: "pm-tanaka", Text: evilQuery, Priority: "critical",
			State: agent.QueryBuffered, Decision: "BUFFER", Draft: suiteDraft, ReceivedAt: ago(14 * time.Minute)}, // a guess (confidence 0)
		{ID: "q-3", From: "pm-tanaka", Text: "what changed in the API yesterday?", Priority: "normal",
			State: agent.QueryAnswered, Decision: "AUTO_RESPOND", ReceivedAt: ago(2 * time.Hour)},
	}
	s.approvals = []agent.Approval{
		{ID: "a-2", TaskID: "t-2", Requester: "pm-tanaka", TaskType: "run_tests", State: agent.TaskPending,
			Params: map[string]string{"suite": "./auth/..."}, MatchedRule: "pm-run-tests",
			Plan: &agent.TaskPlan{Argv: []string{"go", "test", "-run", "Test Auth", "./auth/..."}, Context: "acme/webapp",
				RepoPath: "/home/suzuki/src/webapp", Isolation: "worktree", Branch: "aoi/task-t-2", TimeoutSec: 600},
			CreatedAt: ago(time.Minute), ExpiresAt: fixedNow.Add(59*time.Minute + 12*time.Second)},
		{ID: "a-3", TaskID: "t-3", Requester: "eng-佐藤", TaskType: "lint", State: agent.TaskPending,
			CreatedAt: ago(30 * time.Second), ExpiresAt: fixedNow.Add(45 * time.Second)},
	}
	s.tasks = []agent.Task{
		{ID: "t-1", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskInProgress, UpdatedAt: ago(40 * time.Second)},
		{ID: "t-0", Requester: "qa-ito", Type: "lint", State: agent.TaskFailed, ExitCode: &exit1,
			Error: "make lint exited with 1", UpdatedAt: ago(3 * time.Hour)},
		{ID: "t-00", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskCompleted, UpdatedAt: ago(26 * time.Hour)},
	}
	s.audit = auditRows(40)
	s.messages = []agent.Message{
		{Seq: 1, From: "qa-ito", Event: "task.completed", Data: json.RawMessage(`{"status":"completed","summary":"lint passed"}`),
			ReceivedAt: ago(3 * time.Hour), Read: true},
		{Seq: 2, From: "pm-tanaka", Event: "query.completed", RelatedID: "q-mine",
			Data:       json.RawMessage(`{"summary":"The release is on Thursday; QA signs off on Wednesday afternoon after the last regression run."}`),
			ReceivedAt: ago(10 * time.Minute)},
		{Seq: 3, From: "pm-tanaka", Event: "task_assign", Type: "task_assign", TaskID: "T-1", ThreadID: "th-1",
			Data: json.RawMessage(`{"description":"implement token refresh"}`), ReceivedAt: ago(4 * time.Minute)},
	}
	s.coord = []agent.CoordTask{{TaskID: "T-1", Peer: "pm-tanaka", Side: "worker", State: "assigned",
		CreatedAt: ago(4 * time.Minute), UpdatedAt: ago(4 * time.Minute)}}
	return s
}

// auditRows makes n audit rows, one a minute up to fixedNow.
func auditRows(n int) []agent.AuditEntry {
	agents := []string{"pm-tanaka", "eng-佐藤", "qa-ito", "owner"}
	methods := []string{"aoi.query", "aoi.task.execute", "ctl.approve", "aoi.discover", "acl.deny"}
	rows := make([]agent.AuditEntry, n)
	for i := range rows {
		seq := int64(i + 1)
		res := "ok"
		if i%7 == 3 {
			res = "PERMISSION_DENIED"
		}
		rows[i] = agent.AuditEntry{Seq: seq, Time: fixedNow.Add(-time.Duration(n-i) * time.Minute),
			Agent: agents[i%len(agents)], Method: methods[i%len(methods)], Result: res,
			Detail: json.RawMessage(fmt.Sprintf(`{"n":%d,"scope":["acme/webapp"]}`, seq))}
	}
	return rows
}

// bigService is the benchmark data set: many audit rows and approvals.
func bigService(auditN, approvalsN int) *testService {
	s := fixtureService()
	s.audit = auditRows(auditN)
	for i := 0; i < approvalsN; i++ {
		s.approvals = append(s.approvals, agent.Approval{ID: fmt.Sprintf("b-%d", i), TaskID: fmt.Sprintf("tb-%d", i),
			Requester: "pm-tanaka", TaskType: "run_tests", State: agent.TaskPending,
			Params: map[string]string{"suite": "./..."}, CreatedAt: fixedNow,
			ExpiresAt: fixedNow.Add(time.Duration(i+1) * time.Minute)})
	}
	return s
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/rpc"
)

// The tests here walk README promises the way a user does: the aoi binary
// against two real daemons on loopback, asserting on what it prints.

// allowMessages adds an ACL rule letting peer send typed messages to the
// agent of dir and reloads it with `aoi reload`, as the README says.
func allowMessages(t *testing.T, bin, dir, peer string) {
	t.Helper()
	path := filepath.Join(dir, "config.json")
	cfg := readFile(t, path)
	rule := `"rules": [
      {"id": "msgs-` + peer + `", "agent_id": "` + peer + `", "scope_type": "messages", "scope_pattern": "*", "permission": "write"},`
	if !strings.Contains(cfg, `"rules": [`) {
		t.Fatalf("config has no rules list:\n%s", cfg)
	}
	writeFile(t, path, strings.Replace(cfg, `"rules": [`, rule, 1))
	if out := cli(t, bin, dir, "reload"); !strings.Contains(out, "acl: 1 rule → 2 (+msgs-"+peer+")") {
		t.Fatalf("aoi reload: %s", out)
	}
}

// cliJSON runs the aoi binary for dir with --json and decodes its stdout.
func cliJSON(t *testing.T, bin, dir string, v any, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--data-dir", dir, "--json"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("aoi %v: %v\n%s%s", args, err, out, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("aoi %v: not JSON (%v): %s", args, err, out)
	}
}

// commonPrefixLen is how many leading bytes a and b share.
func commonPrefixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// cliFails runs the aoi binary for dir, expects exit code want and
// returns what it printed.
func cliFails(t *testing.T, bin, dir string, want int, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"--data-dir", dir}, args...)...).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != want {
		t.Fatalf("aoi %v: %v, want exit %d\n%s", args, err, want, out)
	}
	return string(out)
}

// waitMessages polls `aoi messages --json` of dir until it holds n
// messages (bounded) and returns them.
func waitMessages(t *testing.T, bin, dir string, n int) []agent.Message {
	t.Helper()
	var page agent.InboxPage
	for deadline := time.Now().Add(20 * time.Second); ; {
		cliJSON(t, bin, dir, &page, "messages")
		if len(page.Messages) >= n {
			return page.Messages
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages arrived within 20s, want %d: %+v", len(page.Messages), n, page.Messages)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMessagesExchangeBetweenTwoAgents: the PM assigns a task and sends a
// note; the engineer filters them with `aoi messages --type/--task/--after/
// --unread`, asks back on the task with `aoi send - … --task`, and the PM
// answers with --reply-to and relays the engineer's question back with
// --forward.
func TestMessagesExchangeBetweenTwoAgents(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	allowMessages(t, bin, eng, "pm-tanaka")
	allowMessages(t, bin, pm, "eng-suzuki")

	out := cli(t, bin, pm, "send", "eng-suzuki", "task_assign", "implement token refresh", "--task", "T-1")
	if !strings.Contains(out, "to eng-suzuki") || !strings.Contains(out, "task T-1 is assigned") {
		t.Fatalf("aoi send task_assign:\n%s", out)
	}
	cli(t, bin, pm, "send", "eng-suzuki", "note", "lunch at noon")
	msgs := waitMessages(t, bin, eng, 2)
	assign, note := msgs[0], msgs[1]
	if assign.Type != "task_assign" || assign.TaskID != "T-1" || note.Type != "note" {
		t.Fatalf("messages oldest first = %+v", msgs)
	}

	if out := cli(t, bin, eng, "messages", "--type", "note"); !strings.Contains(out, "lunch at noon") || strings.Contains(out, "task_assign") {
		t.Errorf("--type note:\n%s", out)
	}
	if out := cli(t, bin, eng, "messages", "--task", "T-1"); !strings.Contains(out, "task_assign") || strings.Contains(out, "lunch") {
		t.Errorf("--task T-1:\n%s", out)
	}
	if out := cli(t, bin, eng, "messages", "--thread", note.ThreadID); !strings.Contains(out, "lunch at noon") || strings.Contains(out, "task_assign") {
		t.Errorf("--thread %s:\n%s", note.ThreadID, out)
	}
	if row := rowOf(cli(t, bin, eng, "task", "status", "T-1"), "T-1"); !strings.Contains(row, "pm-tanaka") || !strings.Contains(row, "assigned") {
		t.Errorf("aoi task status T-1 = %q, want the task assigned by pm-tanaka", row)
	}
	var page agent.InboxPage
	cliJSON(t, bin, eng, &page, "messages", "--after", itoa(assign.Seq))
	if len(page.Messages) != 1 || page.Messages[0].Seq != note.Seq {
		t.Errorf("--after %d = %+v, want only the note", assign.Seq, page.Messages)
	}
	cliJSON(t, bin, eng, &page, "messages", "--unread")
	if len(page.Messages) != 2 {
		t.Errorf("--unread before the assistant polled = %d messages, want 2", len(page.Messages))
	}
	// The coding assistant polls through `aoi mcp`: both are shown to it,
	// and --unread lists nothing more.
	if text := mcpTool(t, bin, eng, "aoi_check_messages", map[string]any{}); !strings.Contains(text, "lunch at noon") {
		t.Errorf("aoi_check_messages:\n%s", text)
	}
	if out := cli(t, bin, eng, "messages", "--unread"); !strings.Contains(out, "no messages") {
		t.Errorf("--unread after the assistant polled:\n%s", out)
	}

	// The engineer asks back on the task: AGENT - reaches its assigner.
	var q agent.SentMessage
	cliJSON(t, bin, eng, &q, "send", "-", "question", "which branch has the fix?", "--task", "T-1")
	if q.To != "pm-tanaka" || q.TaskID != "T-1" {
		t.Fatalf("send - --task = %+v, want it addressed to the assigner", q)
	}
	got := waitMessages(t, bin, pm, 1)[0]
	if got.Type != "question" || got.TaskID != "T-1" || got.MessageID != q.ID {
		t.Fatalf("the PM received %+v, want the question on T-1 with id %s", got, q.ID)
	}

	cli(t, bin, pm, "send", "eng-suzuki", "answer", "main has it", "--reply-to", q.ID, "--task", "T-1")
	answer := waitMessages(t, bin, eng, 3)[2]
	if answer.Type != "answer" || answer.ReplyTo != q.ID {
		t.Fatalf("the answer = %+v, want reply_to %s", answer, q.ID)
	}
	cliJSON(t, bin, eng, &page, "messages", "--unread")
	if len(page.Messages) != 1 || page.Messages[0].Seq != answer.Seq {
		t.Errorf("--unread = %+v, want only the answer", page.Messages)
	}

	// The PM relays the engineer's question back: the engineer sees itself
	// as the origin, the PM as the sender, the question's thread kept.
	cli(t, bin, pm, "send", "eng-suzuki", "question", "--forward", itoa(got.Seq))
	fwd := waitMessages(t, bin, eng, 4)[3]
	if fwd.From != "pm-tanaka" || fwd.Origin != "eng-suzuki" || fwd.ThreadID != got.ThreadID {
		t.Fatalf("forwarded = %+v, want origin eng-suzuki via pm-tanaka on thread %s", fwd, got.ThreadID)
	}
	if out := cli(t, bin, eng, "messages", "--after", itoa(answer.Seq)); !strings.Contains(out, "eng-suzuki via pm-tanaka") {
		t.Errorf("aoi messages does not show the relay:\n%s", out)
	}

	// A review result with a JSON payload and a priority.
	cli(t, bin, pm, "send", "eng-suzuki", "review_result", "--task", "T-1", "--priority", "high",
		"--payload", `{"approved":false,"feedback":"add tests"}`)
	review := waitMessages(t, bin, eng, 5)[4]
	var body struct {
		Approved *bool  `json:"approved"`
		Feedback string `json:"feedback"`
	}
	if err := json.Unmarshal(review.Data, &body); err != nil || review.Priority != "high" || body.Approved == nil || *body.Approved || body.Feedback != "add tests" {
		t.Errorf("review_result = %+v (%v), want priority high and the payload", review, err)
	}
	if row := rowOf(cli(t, bin, eng, "messages", "--type", "review_result"), "review_result"); !strings.Contains(row, "high") {
		t.Errorf("aoi messages row of the review: %q", row)
	}

	// A task named in the team's own language: sent, filtered and tracked.
	cli(t, bin, pm, "send", "eng-suzuki", "task_assign", "ログイン画面を直す", "--task", "認証-2")
	if ja := waitMessages(t, bin, eng, 6)[5]; ja.TaskID != "認証-2" {
		t.Fatalf("task_assign --task 認証-2 arrived as %+v", ja)
	}
	if out := cli(t, bin, eng, "messages", "--task", "認証-2"); !strings.Contains(out, "ログイン画面を直す") || strings.Contains(out, "lunch") {
		t.Errorf("--task 認証-2:\n%s", out)
	}
	if row := rowOf(cli(t, bin, eng, "task", "status", "認証-2"), "認証-2"); !strings.Contains(row, "assigned") {
		t.Errorf("aoi task status 認証-2 = %q, want the task assigned", row)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// editConfig rewrites the config of dir through edit (as decoded JSON).
func editConfig(t *testing.T, dir string, edit func(cfg map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, "config.json")
	var cfg map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &cfg); err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	writeFile(t, path, string(must(json.MarshalIndent(cfg, "", "  "))))
}

// gitRepo makes a repository with one commit on main.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.invalid"}, {"config", "user.name", "t"},
		{"commit", "-q", "--allow-empty", "-m", "start"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// rowOf is the line of a table that mentions id.
func rowOf(out, id string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, id) {
			return line
		}
	}
	return ""
}

// TestRemoteTaskApprovalsAndAudit: the engineer declares a task type and
// reloads; the PM asks for it, the engineer approves it in `aoi approvals`
// (EXPIRES shown while pending, '-' once decided), the PM follows it with
// `aoi task status AGENT ID` and stops it with `aoi task cancel`; a second
// request is refused with `aoi reject --reason`, and `aoi tasks` lists
// both. A refused reload is in the audit log (result error, with the
// reason), and `aoi audit --agent/--result` select rows as they say.
func TestRemoteTaskApprovalsAndAudit(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	offersTasks(t, eng, map[string]any{"hold": map[string]any{"command": []any{"sleep", "{{secs}}"}, "context": "acme/webapp",
		"isolation": "worktree", "timeout_sec": 120, "approval": "required",
		"params": map[string]any{"secs": map[string]any{"default": "60", "pattern": "^[0-9]+$", "description": "how long to hold"}}}})
	if out := cli(t, bin, eng, "reload"); !strings.Contains(out, "tasks: +hold") {
		t.Fatalf("aoi reload: %s", out)
	}
	// `aoi task AGENT` lists what the peer offers, with its parameters.
	cli(t, bin, pm, "discover")
	if out := cli(t, bin, pm, "task", "eng-suzuki"); !strings.Contains(out, "hold\n  secs= (default 60)  how long to hold") {
		t.Errorf("aoi task eng-suzuki printed:\n%s\nwant hold and its secs parameter", out)
	}
	// A typo in the peer's id gets the id meant (the third walk got none).
	if out := cliFails(t, bin, pm, 1, "task", "eng-suzki"); !strings.Contains(out, "did you mean eng-suzuki?") {
		t.Errorf("aoi task eng-suzki printed:\n%s\nwant the id meant", out)
	}

	var ticket agent.TaskTicket
	cliJSON(t, bin, pm, &ticket, "task", "eng-suzuki", "hold")
	if ticket.TaskID == "" {
		t.Fatalf("ticket = %+v", ticket)
	}
	var approvals []agent.Approval
	cliJSON(t, bin, eng, &approvals, "approvals")
	if len(approvals) != 1 || approvals[0].State != "pending" || approvals[0].TaskID != ticket.TaskID {
		t.Fatalf("approvals = %+v, want the PM's request pending", approvals)
	}
	id := approvals[0].ID
	row := rowOf(cli(t, bin, eng, "approvals"), id)
	if f := strings.Fields(row); len(f) == 0 || f[len(f)-1] == "-" {
		t.Errorf("a pending approval shows no expiry: %q", row)
	}
	cli(t, bin, eng, "approve", id)
	row = rowOf(cli(t, bin, eng, "approvals"), id)
	if f := strings.Fields(row); !strings.Contains(row, "approved") || f[len(f)-1] != "-" {
		t.Errorf("an approved request still shows an expiry: %q", row)
	}

	status := func() string { return cli(t, bin, pm, "task", "status", "eng-suzuki", ticket.TaskID) }
	waitOut(t, "task running", status, "task "+ticket.TaskID+" (hold) for pm-tanaka: in_progress")
	if out := cli(t, bin, pm, "task", "cancel", "eng-suzuki", ticket.TaskID); !strings.Contains(out, "asked eng-suzuki to cancel task "+ticket.TaskID) {
		t.Fatalf("aoi task cancel: %s", out)
	}
	waitOut(t, "task canceled", status, ": canceled")

	// A second request is rejected with a reason the PM reads; the
	// engineer's `aoi approvals --watch` shows it arrive and decided.
	first := ticket.TaskID
	watch := startProc(t, bin, []string{"--data-dir", eng, "approvals", "--watch"}, nil)
	watch.waitFor(t, 15*time.Second, "aoi approvals --watch to start", func() bool { return watch.screenHas("watching for changes") })
	cliJSON(t, bin, pm, &ticket, "task", "eng-suzuki", "hold")
	cliJSON(t, bin, eng, &approvals, "approvals", "--state", "pending")
	if len(approvals) != 1 || approvals[0].TaskID != ticket.TaskID {
		t.Fatalf("pending approvals = %+v, want the second request", approvals)
	}
	// By the task id the PM was given: it names the request as well.
	if out := cli(t, bin, eng, "reject", ticket.TaskID, "--reason", "not before the release"); !strings.Contains(out, "rejected "+approvals[0].ID) {
		t.Fatalf("aoi reject by task id: %s", out)
	}
	waitOut(t, "task rejected", func() string { return cli(t, bin, pm, "task", "status", "eng-suzuki", ticket.TaskID) }, "not before the release")
	watch.waitFor(t, 15*time.Second, "the request and the decision in aoi approvals --watch", func() bool {
		return watch.screenHas(agent.EventApprovalRequested) && watch.screenHas(agent.EventApprovalDecided)
	})
	out := cli(t, bin, eng, "tasks")
	if !strings.Contains(rowOf(out, first), "canceled") || !strings.Contains(rowOf(out, ticket.TaskID), "rejected") {
		t.Errorf("aoi tasks does not show the canceled and the rejected task:\n%s", out)
	}

	// A refused reload is audited with its reason.
	good := readFile(t, filepath.Join(eng, "config.json"))
	writeFile(t, filepath.Join(eng, "config.json"), strings.Replace(good, `"permission": "write"`, `"permission": "maybe"`, 1))
	cliFails(t, bin, eng, exitFailure, "reload")
	writeFile(t, filepath.Join(eng, "config.json"), good)
	if out := cli(t, bin, eng, "audit", "--result", "error"); !strings.Contains(out, "ctl.reload") || !strings.Contains(out, "config not reloaded") {
		t.Errorf("aoi audit --result error does not show the refused reload:\n%s", out)
	}
	var rows []agent.AuditEntry
	cliJSON(t, bin, eng, &rows, "audit", "--result", "error")
	if len(rows) != 1 || rows[0].Method != "ctl.reload" || !strings.Contains(string(rows[0].Detail), "default_permission") && !strings.Contains(string(rows[0].Detail), "maybe") {
		t.Errorf("--result error = %+v, want the one refused reload with its reason", rows)
	}
	cliJSON(t, bin, eng, &rows, "audit", "--agent", "pm-tanaka")
	methods := map[string]bool{}
	for _, r := range rows {
		if r.Agent != "pm-tanaka" {
			t.Errorf("--agent pm-tanaka listed %+v", r)
		}
		methods[r.Method] = true
	}
	if !methods["task.request"] || !methods["aoi.task.cancel"] || methods["ctl.reload"] {
		t.Errorf("--agent pm-tanaka lacks the task request: %v", methods)
	}
}

// waitOut runs f until its output contains want (bounded).
func waitOut(t *testing.T, what string, f func() string, want string) {
	t.Helper()
	var out string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if out = f(); strings.Contains(out, want) {
			return
		}
	}
	t.Fatalf("no %s within 30s (want %q); last output:\n%s", what, want, out)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestPeersRefuse: an agent nobody pinned announces itself; the owner sees
// its pending trust request in `aoi peers` and drops it with `aoi peers
// refuse FP`. A fingerprint that matches no pending request is an error
// that says so, not a "refused".
func TestPeersRefuse(t *testing.T) {
	bin := buildAOI(t)
	eng, _, _ := pinnedPair(t, bin)
	qa := shortDir(t)
	initAgent(t, bin, qa, "qa-sato")
	qaSt := startServeProc(t, bin, qa).waitServing(t, qa)
	engSt, err := statusOf(eng)
	if err != nil {
		t.Fatal(err)
	}
	cli(t, bin, qa, "peers", "trust", "eng-suzuki", engSt.Fingerprint, "--endpoint", engSt.ListenAddr)
	waitOut(t, "pending trust request", func() string { return cli(t, bin, eng, "peers") }, qaSt.Fingerprint)
	// The table shows the fingerprint as the interface does, in groups.
	grouped := rpc.GroupFingerprint(qaSt.Fingerprint)
	if row := rowOf(cli(t, bin, eng, "peers"), grouped); !strings.Contains(row, "pending") {
		t.Fatalf("qa-sato's request is not pending: %q", row)
	}
	// The hint is the whole command, endpoint included: pinned without
	// one, qa-sato could not be called back.
	if out, want := cli(t, bin, eng, "peers"), "aoi peers trust qa-sato "+qaSt.Fingerprint+" --endpoint "+qaSt.ListenAddr; !strings.Contains(out, want) {
		t.Errorf("aoi peers does not give %q:\n%s", want, out)
	}

	unknown := strings.Repeat("ab", 32)
	out := cliFails(t, bin, eng, exitFailure, "peers", "refuse", unknown)
	if !strings.Contains(out, "no pending trust request or pinned peer has fingerprint or id "+unknown) || strings.Contains(out, "refused") {
		t.Errorf("refusing an unknown fingerprint:\n%s", out)
	}
	// Pasted from the table, groups and all.
	refuse := append([]string{"peers", "refuse"}, strings.Fields(grouped)...)
	if out := cli(t, bin, eng, refuse...); !strings.Contains(out, "refused qa-sato (fingerprint "+grouped+")") {
		t.Errorf("aoi peers refuse: %s", out)
	}
	if out := cli(t, bin, eng, "peers"); strings.Contains(out, qaSt.Fingerprint) || strings.Contains(out, grouped) {
		t.Errorf("the refused request is still listed:\n%s", out)
	}
	cliFails(t, bin, eng, exitFailure, "peers", "refuse", qaSt.Fingerprint)
	var rows []agent.AuditEntry
	cliJSON(t, bin, eng, &rows, "audit", "--method", "ctl.refuse")
	if len(rows) != 1 || !strings.Contains(string(rows[0].Detail), qaSt.Fingerprint) {
		t.Errorf("audit of the refusal = %+v, want one row naming the fingerprint", rows)
	}
}

// freeAddr is a loopback address nothing listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeFlagsQueryScopeAndAsync: the engineer's `aoi serve --metrics
// ADDR` runs with AOI_LOG_LEVEL=debug; the PM's runs with `--config FILE`
// (no config.json in its data dir). `aoi query --scope` is judged by the
// ACL for that context, `aoi query --async` returns at once and the
// answer arrives in the inbox; /metrics counts the calls and the log file
// holds debug lines.
func TestServeFlagsQueryScopeAndAsync(t *testing.T) {
	bin := buildAOI(t)
	metrics := freeAddr(t)
	pmConfig := filepath.Join(t.TempDir(), "pm.json")
	eng, pm, _ := pinnedPairWith(t, bin,
		serveOpts{args: []string{"--metrics", metrics}, env: []string{"AOI_LOG_LEVEL=debug"}, prepare: func(dir string) {
			editConfig(t, dir, func(cfg map[string]any) {
				cfg["contexts"] = []any{
					map[string]any{"type": "repository", "identifier": "acme/webapp", "local_path": gitRepo(t)},
					map[string]any{"type": "repository", "identifier": "acme/payroll", "local_path": gitRepo(t)},
				}
				acl := cfg["acl"].(map[string]any)
				acl["rules"] = append([]any{map[string]any{"id": "no-payroll", "agent_id": "pm-tanaka",
					"scope_type": "repository", "scope_pattern": "acme/payroll", "permission": "none"}}, acl["rules"].([]any)...)
			})
		}},
		serveOpts{args: []string{"--config", pmConfig}, prepare: func(dir string) {
			if err := os.Rename(filepath.Join(dir, "config.json"), pmConfig); err != nil {
				t.Fatal(err)
			}
		}})

	// --config: the PM's daemon found its config only through the flag.
	if out := cli(t, bin, pm, "--config", pmConfig, "config", "show"); !strings.Contains(out, `"id": "pm-tanaka"`) {
		t.Errorf("aoi --config FILE config show:\n%s", out)
	}

	// Refused naming the scope, not the owner's rule (its id stays in
	// the owner's audit row).
	out := cliFails(t, bin, pm, exitFailure, "query", "eng-suzuki", "--scope", "acme/payroll", "what is in payroll?")
	if !strings.Contains(out, "no read access to acme/payroll") || strings.Contains(out, "no-payroll") {
		t.Errorf("--scope acme/payroll should be refused without naming rule no-payroll:\n%s", out)
	}
	if out := cli(t, bin, pm, "query", "eng-suzuki", "--scope", "acme/webapp", "status?"); strings.Contains(out, "acme/payroll") {
		t.Errorf("--scope acme/webapp was judged by the payroll rule:\n%s", out)
	}

	var asked queryOutput
	cliJSON(t, bin, pm, &asked, "query", "eng-suzuki", "--async", "--scope", "acme/webapp", "how is webapp going?")
	if asked.QueryID == "" {
		t.Fatalf("--async result = %+v", asked)
	}
	waitOut(t, "the async answer in the inbox", func() string {
		var in inboxOutput
		cliJSON(t, bin, pm, &in, "inbox")
		for _, m := range in.Messages {
			if m.RelatedID == asked.QueryID {
				return "answered " + m.Event
			}
		}
		return ""
	}, "answered")

	if res, err := http.Get("http://" + metrics + "/metrics"); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/metrics without the bearer token: %v %v, want 401", res, err)
	}
	token, err := os.ReadFile(filepath.Join(eng, "metrics.token"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+metrics+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+string(token))
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("scrape /metrics with the data dir's token: %v %v", res, err)
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	res.Body.Close()
	for _, want := range []string{`aoi_rpc_requests_total{code="ok",method="aoi.query"}`, `aoi_acl_decisions_total{decision="deny"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(string(body), "aoi_"))
		}
	}

	// Discovery calls log at debug level: the engineer's file has them, the
	// PM's (level info) does not.
	cli(t, bin, pm, "discover")
	cli(t, bin, eng, "discover")
	const debugLine = `"level":"debug","message":"request handled"`
	waitOut(t, "a debug line in the engineer's aoi.log", func() string { return readFile(t, filepath.Join(eng, "aoi.log")) }, debugLine)
	if log := readFile(t, filepath.Join(pm, "aoi.log")); strings.Contains(log, `"level":"debug"`) {
		t.Errorf("the PM's log (level info) has debug lines:\n%.2000s", log)
	}
}

// grepLines keeps the lines of s that start with prefix.
func grepLines(s, prefix string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, prefix) {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// mcpTool calls one tool through `aoi mcp` for dir, as a coding assistant
// does over stdio, and returns the tool result's text.
func mcpTool(t *testing.T, bin, dir, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--data-dir", dir, "mcp")
	cmd.Env = procEnv(t.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	lines := bufio.NewScanner(outPipe)
	lines.Buffer(make([]byte, 1<<20), 4<<20)
	send := func(v any) {
		if _, err := in.Write(append(must(json.Marshal(v)), '\n')); err != nil {
			t.Fatalf("aoi mcp stdin: %v; stderr:\n%s", err, stderr.String())
		}
	}
	reply := func(id int) json.RawMessage {
		for lines.Scan() {
			var r struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &r) == nil && r.ID == id {
				if r.Error != nil {
					t.Fatalf("aoi mcp: %s", r.Error)
				}
				return r.Result
			}
		}
		t.Fatalf("aoi mcp gave no reply %d: %v; stderr:\n%s", id, lines.Err(), stderr.String())
		return nil
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-03-26", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}}})
	reply(1)
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(reply(2), &res); err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s: %+v, %v", tool, res, err)
	}
	return res.Content[0].Text
}

// askJSON sends a query from dir with `aoi --json query` and returns its id.
func askJSON(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	var res queryOutput
	cliJSON(t, bin, dir, &res, append([]string{"query", "eng-suzuki"}, args...)...)
	if res.QueryID == "" {
		t.Fatalf("query %v: no id in %+v", args, res)
	}
	return res.QueryID
}

// answerIn waits until the inbox of dir holds the message answering query
// id and returns its data.
func answerIn(t *testing.T, bin, dir, id string) string {
	t.Helper()
	var data string
	waitOut(t, "the answer to "+id, func() string {
		var in inboxOutput
		cliJSON(t, bin, dir, &in, "inbox")
		for _, m := range in.Messages {
			if m.RelatedID == id {
				data = m.Event + " " + string(m.Data)
				return "found"
			}
		}
		return ""
	}, "found")
	return data
}

// received is the id under which the engineer's inbox holds the query
// with text, and its state.
func received(t *testing.T, bin, eng, text string) (id, state string) {
	t.Helper()
	var in inboxOutput
	cliJSON(t, bin, eng, &in, "inbox")
	for _, q := range in.Queries {
		if q.Text == text {
			return q.ID, q.State
		}
	}
	t.Fatalf("the engineer's inbox lacks %q: %+v", text, in.Queries)
	return "", ""
}

// TestOwnerAnswersQueries: questions the secretary cannot answer wait in
// the engineer's `aoi inbox` (with the priority the PM gave); `aoi answer`
// and `aoi decline --reason` send what the PM then reads in its own inbox
// (`aoi inbox --watch` shows it arrive); buffered ones go out with
// `aoi release ID` and `aoi release --all`.
func TestOwnerAnswersQueries(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)

	ask1 := askJSON(t, bin, pm, "what did the vendor say about the invoices?")
	ask2 := askJSON(t, bin, pm, "--priority", "low", "can you review the payroll export?")
	out := cli(t, bin, eng, "inbox")
	q1, _ := received(t, bin, eng, "what did the vendor say about the invoices?")
	q2, _ := received(t, bin, eng, "can you review the payroll export?")
	if row := rowOf(out, q2); !strings.Contains(row, "low") || !strings.Contains(row, "pm-tanaka") {
		t.Errorf("aoi inbox row of the low-priority question: %q\n%s", row, out)
	}
	watch := startProc(t, bin, []string{"--data-dir", pm, "inbox", "--watch"}, nil)
	watch.waitFor(t, 15*time.Second, "aoi inbox --watch to start", func() bool { return watch.screenHas("watching for changes") })
	// The start of an id is enough, as in the prompt bar (the third
	// walk's `aoi answer q-01a2357 x` found nothing).
	start := q1[:commonPrefixLen(q1, q2)+1]
	if out := cli(t, bin, eng, "answer", start, "they agreed to net 30"); !strings.Contains(out, "answered "+q1) {
		t.Errorf("aoi answer %s: %s", start, out)
	}
	watch.waitFor(t, 15*time.Second, "the answer in aoi inbox --watch", func() bool { return watch.screenHas("they agreed to net 30") })
	if out := cliFails(t, bin, eng, 1, "answer", start, "again"); !strings.Contains(out, q1+" was already answered") {
		t.Errorf("answering %s again: %s", start, out)
	}
	if got := answerIn(t, bin, pm, ask1); !strings.Contains(got, "net 30") {
		t.Errorf("the PM's answer to %s = %s", ask1, got)
	}
	cli(t, bin, eng, "decline", q2, "--reason", "ask finance")
	if got := answerIn(t, bin, pm, ask2); !strings.Contains(got, "ask finance") {
		t.Errorf("the PM's reply to %s = %s", ask2, got)
	}
	if out := cli(t, bin, pm, "inbox"); !strings.Contains(out, "net 30") || !strings.Contains(out, "ask finance") {
		t.Errorf("the PM's aoi inbox does not show the answer and the reason:\n%s", out)
	}

	// In focus time a low-priority question the secretary is unsure of is
	// buffered; `aoi release ID` and `aoi release --all` send its drafts,
	// but never one that found no work ("No recorded work matches …").
	// An owner's note is work the PM may read once it may read a context.
	editConfig(t, eng, func(cfg map[string]any) {
		cfg["contexts"] = []any{map[string]any{"type": "repository", "identifier": "acme/webapp", "local_path": gitRepo(t)}}
		acl := cfg["acl"].(map[string]any)
		acl["rules"] = append(acl["rules"].([]any), map[string]any{"id": "pm-read", "agent_id": "pm-tanaka",
			"scope_type": "repository", "scope_pattern": "acme/webapp", "permission": "read"})
	})
	cli(t, bin, eng, "reload")
	cli(t, bin, eng, "note", "the staging server got new disks")
	cli(t, bin, eng, "focus", "on")
	ask3 := askJSON(t, bin, pm, "--priority", "low", "is the staging db migrated?")
	ask4 := askJSON(t, bin, pm, "--priority", "low", "who owns the cron jobs?")
	q3, s3 := received(t, bin, eng, "is the staging db migrated?")
	if _, s4 := received(t, bin, eng, "who owns the cron jobs?"); s3 != "buffered" || s4 != "buffered" {
		t.Fatalf("low-priority questions in focus time are %s and %s, want buffered", s3, s4)
	}
	if out := cli(t, bin, eng, "release", q3); !strings.Contains(out, "released "+q3+", pm-tanaka's “is the staging db migrated?”") {
		t.Errorf("aoi release %s does not say whose question went:\n%s", q3, out)
	}
	if got := answerIn(t, bin, pm, ask3); !strings.Contains(got, "query.completed") {
		t.Errorf("the released answer to %s = %s", ask3, got)
	}
	if _, s4 := received(t, bin, eng, "who owns the cron jobs?"); s4 != "buffered" {
		t.Errorf("aoi release %s also released the other question (%s)", q3, s4)
	}
	if out := cli(t, bin, eng, "release", "--all"); !strings.Contains(out, "released nothing; 1 whose draft found no work or is a guess waits for you") {
		t.Errorf("aoi release --all with only a draft that found no work says: %s", out)
	}
	if _, s4 := received(t, bin, eng, "who owns the cron jobs?"); s4 != "buffered" {
		t.Errorf("aoi release --all sent a draft that found no work (%s)", s4)
	}
	q4, _ := received(t, bin, eng, "who owns the cron jobs?")
	if out := cliFails(t, bin, eng, 1, "release", q4); !strings.Contains(out, "found no work") {
		t.Errorf("aoi release of a draft that found no work:\n%s", out)
	}
	_ = ask4 // waits for the owner: no answer arrives

	// aoi id needs no daemon and finds the data dir through $AOI_DATA_DIR.
	cmd := exec.Command(bin, "id", "--fingerprint")
	cmd.Env = append(procEnv(t.TempDir()), "AOI_DATA_DIR="+eng)
	fp, err := cmd.Output()
	st, serr := statusOf(eng)
	if err != nil || serr != nil || strings.TrimSpace(string(fp)) != st.Fingerprint {
		t.Errorf("AOI_DATA_DIR=eng aoi id --fingerprint = %q, %v; the engineer's is %q (%v)", fp, err, st.Fingerprint, serr)
	}
	// For people, aoi id groups it by eight, as the interface does.
	if out := cli(t, bin, eng, "id"); !strings.Contains(out, "fingerprint: "+rpc.GroupFingerprint(st.Fingerprint)+"\n") {
		t.Errorf("aoi id does not show the fingerprint in groups of eight:\n%s", out)
	} else if !strings.Contains(out, "\naoi peers trust eng-suzuki "+st.Fingerprint+" --endpoint ") {
		// and the command a colleague runs, on one line to copy whole.
		t.Errorf("aoi id does not print the trust command on one line:\n%s", out)
	}
}

// TestServeEndsOnSigintAndSigterm: `aoi serve` as a real process ends
// cleanly (exit 0, port and control socket freed) on SIGINT and SIGTERM.
func TestServeEndsOnSigintAndSigterm(t *testing.T) {
	bin := buildAOI(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := shortDir(t)
			initAgent(t, bin, dir, "eng-suzuki")
			p := startServeProc(t, bin, dir)
			st := p.waitServing(t, dir)
			p.signal(t, sig)
			if !p.exited(exitBound) {
				t.Fatalf("aoi serve still running %v after %v; output:\n%s", exitBound, sig, p.out.String())
			}
			if p.exitCode() != 0 {
				t.Errorf("exit code %d after %v; output:\n%s", p.exitCode(), sig, p.out.String())
			}
			if !strings.Contains(p.out.String(), "aoi serve: stopping") {
				t.Errorf("aoi serve said nothing as it stopped on %v:\n%s", sig, p.out.String())
			}
			released(t, dir, st.ListenAddr)
		})
	}
}

// TestStoppedPeerShownOffline: when the engineer's daemon is gone, the
// PM's next question to it is queued, saying so, and `aoi peers` shows it
// offline at once, not only after network.offline_after_sec.
func TestStoppedPeerShownOffline(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, engProc := pinnedPair(t, bin)
	cli(t, bin, pm, "query", "eng-suzuki", "status?")
	if row := rowOf(cli(t, bin, pm, "peers"), "eng-suzuki"); !strings.Contains(row, "online") {
		t.Fatalf("eng-suzuki is not online before it stops: %q", row)
	}
	engProc.signal(t, syscall.SIGTERM)
	if !engProc.exited(exitBound) {
		t.Fatalf("aoi serve did not stop on SIGTERM:\n%s", engProc.out.String())
	}
	if _, err := statusOf(eng); err == nil {
		t.Fatal("the stopped daemon still answers")
	}
	if out := cli(t, bin, pm, "query", "eng-suzuki", "are you there?"); !strings.Contains(out, "queued: eng-suzuki is offline") {
		t.Errorf("aoi query to a stopped peer printed:\n%s\nwant it queued", out)
	}
	if row := rowOf(cli(t, bin, pm, "peers"), "eng-suzuki"); !strings.Contains(row, "offline") {
		t.Errorf("eng-suzuki after a failed call: %q, want offline", row)
	}
	// `aoi outbox` lists the queued question; `aoi outbox drop` withdraws it.
	var waiting []agent.OutboxEntry
	cliJSON(t, bin, pm, &waiting, "outbox")
	if len(waiting) != 1 || waiting[0].What != "question" || !strings.Contains(rowOf(cli(t, bin, pm, "outbox"), waiting[0].ID), "eng-suzuki") {
		t.Fatalf("aoi outbox = %+v; want the queued question to eng-suzuki", waiting)
	}
	if out := cli(t, bin, pm, "outbox", "drop", waiting[0].ID); !strings.Contains(out, "withdrew "+waiting[0].ID) {
		t.Errorf("aoi outbox drop printed %q", out)
	}
	if out := cli(t, bin, pm, "outbox"); !strings.Contains(out, "nothing waits to be delivered") {
		t.Errorf("aoi outbox after the drop:\n%s", out)
	}
}

// TestAnswerToAnOfflineAskerSaysItWaits: answering a question whose asker
// has stopped says the answer waits to be sent, and `aoi status` counts
// it (the walk read only "answered q-…" and saw nothing waiting).
func TestAnswerToAnOfflineAskerSaysItWaits(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _, pmProc := pinnedPairProcs(t, bin, serveOpts{}, serveOpts{})
	askJSON(t, bin, pm, "what did the vendor say about the invoices?")
	q, _ := received(t, bin, eng, "what did the vendor say about the invoices?")
	pmProc.signal(t, syscall.SIGTERM)
	if !pmProc.exited(exitBound) {
		t.Fatalf("aoi serve did not stop on SIGTERM:\n%s", pmProc.out.String())
	}
	cli(t, bin, eng, "query", "pm-tanaka", "are you there?") // eng learns pm is offline; the question is queued
	if out := cli(t, bin, eng, "answer", q, "they agreed to net 30"); !strings.Contains(out, "pm-tanaka is offline: the answer waits") {
		t.Errorf("aoi answer to an offline asker printed:\n%s", out)
	}
	if row := rowOf(cli(t, bin, eng, "status"), "not yet delivered:"); !strings.Contains(row, "2 (") { // the question and the answer
		t.Errorf("aoi status does not count the answer waiting: %q", row)
	}
}

// TestAuditAndInboxReadAfterACleanStop: `aoi audit verify`, `aoi audit`
// and `aoi inbox` read the data dir when no aoi runs (the README's advice
// is to check a copy of the log after a clean stop); following (`--watch`)
// still needs the aoi that receives.
func TestAuditAndInboxReadAfterACleanStop(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, engProc := pinnedPair(t, bin)
	askJSON(t, bin, pm, "what did the vendor say about the invoices?")
	received(t, bin, eng, "what did the vendor say about the invoices?")
	engProc.signal(t, syscall.SIGTERM)
	if !engProc.exited(exitBound) {
		t.Fatalf("aoi serve did not stop on SIGTERM:\n%s", engProc.out.String())
	}
	if out := cli(t, bin, eng, "audit", "verify"); !strings.Contains(out, "chain intact") {
		t.Errorf("aoi audit verify with no aoi running:\n%s", out)
	}
	if out := cli(t, bin, eng, "audit", "--method", "aoi.query"); !strings.Contains(out, "pm-tanaka") {
		t.Errorf("aoi audit with no aoi running:\n%s", out)
	}
	if out := cli(t, bin, eng, "inbox"); !strings.Contains(out, "vendor say about the invoices") {
		t.Errorf("aoi inbox with no aoi running:\n%s", out)
	}
	if out := cliFails(t, bin, eng, exitFailure, "inbox", "--watch"); !strings.Contains(out, "no aoi is running") {
		t.Errorf("aoi inbox --watch with no aoi running:\n%s", out)
	}
}

// TestSendQueuedWhileOffline: a message to an agent whose aoi is stopped
// waits in the sender's outbox and arrives when the agent is back.
func TestSendQueuedWhileOffline(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, engProc := pinnedPair(t, bin)
	allowMessages(t, bin, eng, "pm-tanaka")
	// Keep the port over the restart, as a configured agent does.
	st, err := statusOf(eng)
	if err != nil {
		t.Fatal(err)
	}
	editConfig(t, eng, func(cfg map[string]any) { cfg["network"].(map[string]any)["listen_addr"] = st.ListenAddr })
	engProc.signal(t, syscall.SIGTERM)
	if !engProc.exited(exitBound) {
		t.Fatalf("aoi serve did not stop on SIGTERM:\n%s", engProc.out.String())
	}
	var sent agent.SentMessage
	cliJSON(t, bin, pm, &sent, "send", "eng-suzuki", "note", "the demo moved to friday")
	if !sent.Queued || sent.Refused {
		t.Fatalf("send to a stopped agent = %+v, want queued, not refused", sent)
	}
	if out := cli(t, bin, pm, "send", "eng-suzuki", "note", "bring the slides"); !strings.Contains(out, "queued") {
		t.Errorf("aoi send does not say the message is queued:\n%s", out)
	}
	startServeProc(t, bin, eng).waitServing(t, eng)
	msgs := waitMessages(t, bin, eng, 2)
	if !strings.Contains(string(msgs[0].Data), "friday") || !strings.Contains(string(msgs[1].Data), "slides") {
		t.Errorf("after the restart the engineer has %+v, want both notes in order", msgs)
	}
}

// TestInitRefusesWhatCannotStart: `aoi init` with an agent id or listen
// address the agent could not start with is a usage error (exit 2) naming
// the flag, and leaves nothing behind; before, it wrote a config every
// later command refused.
func TestInitRefusesWhatCannotStart(t *testing.T) {
	bin := buildAOI(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--id", "X_3"}, `--id: "X_3" is not valid`},
		{[]string{"--id", "eng-a", "--listen", "18445"}, `--listen: "18445" is not valid`},
		{[]string{"--id", "eng-a", "--listen", "127.0.0.1:99999"}, "--listen: port 99999 is out of range"},
		{[]string{"--id", "eng-a", "--role", "Bad Role"}, `--role: "Bad Role" is not valid`},
	} {
		dir := filepath.Join(t.TempDir(), "agent")
		out := cliFails(t, bin, dir, exitUsage, append([]string{"init"}, c.args...)...)
		if !strings.Contains(out, c.want) {
			t.Errorf("aoi init %v printed:\n%s\nwant %q", c.args, out, c.want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("aoi init %v left %s behind (%v)", c.args, dir, err)
		}
	}
}

// TestRefuseUntrustsAPinnedPeer: `aoi peers refuse AGENT_ID` on a pinned
// peer removes its pin (it leaves `aoi peers`), and asking it anything is
// refused for want of a pin; `aoi peers trust` pins it again.
func TestRefuseUntrustsAPinnedPeer(t *testing.T) {
	bin := buildAOI(t)
	_, pm, _ := pinnedPair(t, bin)
	var before []agent.Peer
	cliJSON(t, bin, pm, &before, "peers")
	var eng agent.Peer
	for _, p := range before {
		if p.AgentID == "eng-suzuki" {
			eng = p
		}
	}
	if out := cli(t, bin, pm, "peers", "refuse", "eng-suzuki"); !strings.Contains(out, "eng-suzuki is no longer trusted") {
		t.Fatalf("aoi peers refuse eng-suzuki printed:\n%s", out)
	}
	if out := cli(t, bin, pm, "peers"); strings.Contains(out, "eng-suzuki") {
		t.Errorf("eng-suzuki is still listed after refusing it:\n%s", out)
	}
	cliFails(t, bin, pm, exitFailure, "query", "eng-suzuki", "status?")
	cli(t, bin, pm, "peers", "trust", "eng-suzuki", eng.Fingerprint, "--endpoint", eng.Endpoint)
	cli(t, bin, pm, "query", "eng-suzuki", "status?")
}

// TestSendRefusedExitsOne: a receiver that is online but has no messages
// rule for the sender refuses the message; `aoi send` says so, with the
// receiver's reason, and exits 1 (with --json too, which marks it refused),
// so a script does not take a queued, refused message as sent.
func TestSendRefusedExitsOne(t *testing.T) {
	bin := buildAOI(t)
	_, pm, _ := pinnedPair(t, bin)
	out := cliFails(t, bin, pm, exitFailure, "send", "eng-suzuki", "note", "the demo moved to friday")
	if !strings.Contains(out, "eng-suzuki refused the message: ") || strings.Contains(out, "offline") {
		t.Errorf("aoi send to a refusing agent printed:\n%s\nwant it named as refusing, not offline", out)
	}
	cmd := exec.Command(bin, "--data-dir", pm, "--json", "send", "eng-suzuki", "note", "bring the slides")
	raw, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
		t.Fatalf("aoi --json send to a refusing agent: %v, want exit %d\n%s", err, exitFailure, raw)
	}
	var sent agent.SentMessage
	if err := json.Unmarshal(raw, &sent); err != nil || !sent.Refused || !sent.Queued {
		t.Errorf("aoi --json send printed %s (%v), want queued and refused", raw, err)
	}
}

// TestStatusShowsHistoryIndexed: `aoi status` says how much of each
// configured repository's history is indexed.
func TestStatusShowsHistoryIndexed(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-suzuki")
	repo := gitRepo(t)
	for _, msg := range []string{"auth: token refresh", "auth: tests for refresh"} {
		if out, err := exec.Command("git", "-C", repo, "commit", "-q", "--allow-empty", "-m", msg).CombinedOutput(); err != nil {
			t.Fatalf("git commit: %v\n%s", err, out)
		}
	}
	editConfig(t, dir, func(cfg map[string]any) {
		cfg["contexts"] = []any{map[string]any{"type": "repository", "identifier": "acme/webapp", "local_path": repo}}
	})
	startServeProc(t, bin, dir).waitServing(t, dir)
	waitOut(t, "history indexed", func() string { return cli(t, bin, dir, "status") }, "acme/webapp 3 commits, done")
}

// TestPinnedPeerNeverReached: a peer pinned by hand that has not answered
// yet shows no last-seen time ("-", and none in --json), not "just now".
func TestPinnedPeerNeverReached(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-kato")
	startServeProc(t, bin, dir).waitServing(t, dir)
	cli(t, bin, dir, "peers", "trust", "pm-mori", strings.Repeat("cd", 32), "--endpoint", freeAddr(t))
	row := rowOf(cli(t, bin, dir, "peers"), "pm-mori")
	if !strings.HasSuffix(strings.TrimSpace(row), " -") {
		t.Errorf("LAST SEEN of a peer never reached is not \"-\": %q", row)
	}
	var peers []map[string]any
	cliJSON(t, bin, dir, &peers, "peers")
	for _, p := range peers {
		if p["agent_id"] == "pm-mori" {
			if seen, ok := p["last_seen"]; ok {
				t.Errorf("--json gives last_seen %v for a peer never reached", seen)
			}
			return
		}
	}
	t.Fatalf("pm-mori not in aoi peers --json: %v", peers)
}

// TestPeerThatDoesNotTrustUsYet: eng-kudo pins qa-mori, but qa-mori has not
// pinned eng-kudo. After an announce, eng-kudo's `aoi peers` says qa-mori
// refuses it and how that gets fixed (it showed "offline", as if qa-mori
// were down); once qa-mori trusts eng-kudo, the next announce shows it
// online and the hint goes.
func TestPeerThatDoesNotTrustUsYet(t *testing.T) {
	bin := buildAOI(t)
	eng, qa := shortDir(t), shortDir(t)
	initAgent(t, bin, eng, "eng-kudo")
	initAgent(t, bin, qa, "qa-mori")
	engSt := startServeProc(t, bin, eng).waitServing(t, eng)
	qaSt := startServeProc(t, bin, qa).waitServing(t, qa)
	cli(t, bin, eng, "peers", "trust", "qa-mori", qaSt.Fingerprint, "--endpoint", qaSt.ListenAddr)
	exec.Command(bin, "--data-dir", eng, "discover").Run() // qa-mori refuses: the error is the point
	out := cli(t, bin, eng, "peers")
	if row := rowOf(out, "qa-mori"); !strings.Contains(row, "refuses") {
		t.Errorf("qa-mori's row does not say it refuses us: %q", row)
	}
	if !strings.Contains(out, "qa-mori does not trust your certificate (not yet, or no longer)") || !strings.Contains(out, "aoi id") {
		t.Errorf("no hint on what to do:\n%s", out)
	}
	var peers []map[string]any
	cliJSON(t, bin, eng, &peers, "peers")
	if len(peers) != 1 || peers[0]["refuses_us"] != true {
		t.Errorf("--json: %v, want qa-mori with refuses_us", peers)
	}

	cli(t, bin, qa, "peers", "trust", "eng-kudo", engSt.Fingerprint, "--endpoint", engSt.ListenAddr)
	cli(t, bin, eng, "discover")
	waitOut(t, "qa-mori online", func() string { return rowOf(cli(t, bin, eng, "peers"), "qa-mori") }, "online")
	if out := cli(t, bin, eng, "peers"); strings.Contains(out, "refuses") || strings.Contains(out, "does not trust") {
		t.Errorf("still refusing after qa-mori trusted us:\n%s", out)
	}
}

// TestTrustTakesTheFingerprintAsShown: the fingerprint may be pasted as
// the Peers pane shows it (groups of 8, unquoted, so several arguments) or
// in upper case with colons; an endpoint given as a third argument is a
// usage error that says where it goes.
func TestTrustTakesTheFingerprintAsShown(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-kato")
	startServeProc(t, bin, dir).waitServing(t, dir)
	fp := strings.Repeat("0123456789abcdef", 4)
	var groups []string
	for i := 0; i < len(fp); i += 8 {
		groups = append(groups, fp[i:i+8])
	}
	cli(t, bin, dir, append([]string{"peers", "trust", "pm-mori"}, groups...)...)
	if row := rowOf(cli(t, bin, dir, "peers"), "pm-mori"); !strings.Contains(row, rpc.GroupFingerprint(fp)) {
		t.Errorf("pm-mori is not pinned to %s: %q", fp, row)
	}
	cli(t, bin, dir, "peers", "trust", "qa-ono", strings.ToUpper(rpc.FormatFingerprint(strings.Repeat("fedcba9876543210", 4))))
	if row := rowOf(cli(t, bin, dir, "peers"), "qa-ono"); !strings.Contains(row, rpc.GroupFingerprint(strings.Repeat("fedcba9876543210", 4))) {
		t.Errorf("qa-ono is not pinned to the lower-case form: %q", row)
	}
	out := cliFails(t, bin, dir, exitUsage, "peers", "trust", "qa-ono", fp, "127.0.0.1:8443")
	if !strings.Contains(out, "--endpoint") {
		t.Errorf("an endpoint as a third argument: %s", out)
	}
}

// TestInboxWaitingListsOnlyOpenQuestions: `aoi inbox --waiting` lists the
// questions still waiting for the owner, newest first, and no messages;
// one already answered is not among them (the README's recipe picked the
// newest question even when it was answered).
func TestInboxWaitingListsOnlyOpenQuestions(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	cli(t, bin, pm, "query", "eng-suzuki", "first question about the deploy?")
	cli(t, bin, pm, "query", "eng-suzuki", "second question about the release?")
	var out struct {
		Queries  []agent.Query   `json:"queries"`
		Messages []agent.Message `json:"messages"`
	}
	cliJSON(t, bin, eng, &out, "inbox", "--waiting")
	if len(out.Queries) != 2 || !strings.Contains(out.Queries[0].Text, "second") {
		t.Fatalf("waiting = %+v; want both questions, newest first", out.Queries)
	}
	cli(t, bin, eng, "answer", out.Queries[0].ID, "tomorrow")
	cliJSON(t, bin, eng, &out, "inbox", "--waiting")
	if len(out.Queries) != 1 || !strings.Contains(out.Queries[0].Text, "first") || len(out.Messages) != 0 {
		t.Errorf("after answering the second: %+v; want only the first, and no messages", out)
	}
}

// offersTasks gives eng a git repository as acme/webapp, lets pm-tanaka
// write to it (run its tasks) and configures tasks there.
func offersTasks(t *testing.T, eng string, tasks map[string]any) {
	t.Helper()
	repo := gitRepo(t)
	editConfig(t, eng, func(cfg map[string]any) {
		cfg["contexts"] = []any{map[string]any{"type": "repository", "identifier": "acme/webapp", "local_path": repo}}
		acl := cfg["acl"].(map[string]any)
		acl["rules"] = append(acl["rules"].([]any), map[string]any{"id": "pm-exec", "agent_id": "pm-tanaka",
			"scope_type": "repository", "scope_pattern": "acme/webapp", "permission": "write"})
		cfg["tasks"] = tasks
	})
}

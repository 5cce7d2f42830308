package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
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
	if out := cli(t, bin, dir, "reload"); !strings.Contains(out, "acl: 1 rules → 2") {
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
	var page agent.InboxPage
	cliJSON(t, bin, eng, &page, "messages", "--after", itoa(assign.Seq))
	if len(page.Messages) != 1 || page.Messages[0].Seq != note.Seq {
		t.Errorf("--after %d = %+v, want only the note", assign.Seq, page.Messages)
	}
	cliJSON(t, bin, eng, &page, "messages", "--unread")
	if len(page.Messages) != 2 {
		t.Errorf("--unread before the assistant polled = %d messages, want 2", len(page.Messages))
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
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

package task

import (
	"context"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/config"
)

// A failed test's name and package come from the task's output as its
// message does, and go to the requester with the result: a table test
// named by its token (t.Run(tc.token, …)) or a command that writes its own
// report put a secret there, which went out unredacted, and a name of
// 900 KB went out whole, fifty times over, stored with the task and sent
// in its notification. Both are redacted and bounded as a message is.
func TestFailedTestNamesAreRedactedAndBounded(t *testing.T) {
	script := `echo '{"Action":"fail","Package":"acme/auth","Test":"TestLogin/token=SECRET123"}'
long=$(head -c 921600 /dev/zero | tr '\0' p)
printf '{"Action":"fail","Package":"%s","Test":"TestLong"}\n' "$long"
printf '{"Action":"fail","Package":"acme/big","Test":"%s"}\n' "$long"
exit 1
`
	tt := config.TaskType{Command: []string{"sh", "-c", script}, Isolation: "none", TimeoutSec: 30,
		Output: "go-test-json", Approval: config.Approval{Required: false}}
	h := newHarness(t, map[string]config.TaskType{"names": tt})
	ctx := context.Background()
	task, err := h.e.Submit(ctx, Request{RequestID: "req-names", From: "pm-tanaka", FromRole: "pm", TaskType: "names"})
	if err != nil {
		t.Fatal(err)
	}
	n := h.waitNotify(t)
	d := n.Data
	if d.TaskID != task.ID || d.Output == nil || len(d.Output.Failures) != 3 {
		t.Fatalf("notify data = %+v; want three failures", d.Output)
	}
	for _, f := range d.Output.Failures {
		if strings.Contains(f.Test, "SECRET123") || strings.Contains(f.Package, "SECRET123") {
			t.Errorf("a failed test's name went to the requester unredacted: %q %q", f.Package, f.Test)
		}
		if len(f.Test) > maxFailureName+len("…") || len(f.Package) > maxFailureName+len("…") {
			t.Errorf("a failed test's name went out %d+%d bytes long; the bound is %d", len(f.Package), len(f.Test), maxFailureName)
		}
	}
	if got := d.Output.Failures[0].Test; got != "TestLogin/token=[REDACTED]" {
		t.Errorf("the redacted name is %q; want TestLogin/token=[REDACTED]", got)
	}
	st, err := h.e.Status(ctx, task.ID, "pm-tanaka")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(st.Output), "SECRET123") || len(st.Output) > 64<<10 {
		t.Errorf("the task's stored result holds the secret or the long names (%d bytes)", len(st.Output))
	}
}

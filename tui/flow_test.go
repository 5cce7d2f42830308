package tui

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// flow is a running program with a probe that reads its frame.
type flow struct {
	*teatest.TestModel
	mu     sync.Mutex
	frame  string        // the frame the last probe read
	probed chan string   // each probe's frame
	moved  chan struct{} // some other message reached the program (capacity 1)
}

// probeMsg asks the program's filter to copy the current frame. The filter
// runs on the program's own goroutine, so reading the model there is safe.
type probeMsg struct{}

// newFlow returns a flow and the filter that feeds it: a probe's frame, and
// a signal for every other message (only a message changes the model).
func newFlow() (*flow, func(tea.Model, tea.Msg) tea.Msg) {
	f := &flow{probed: make(chan string, 1), moved: make(chan struct{}, 1)}
	return f, func(model tea.Model, msg tea.Msg) tea.Msg {
		if _, ok := msg.(probeMsg); ok {
			f.probed <- screen(model.(*Model))
			return msg
		}
		select {
		case f.moved <- struct{}{}:
		default:
		}
		return msg
	}
}

// startFlow runs the real Bubble Tea program on svc at 100×30.
func startFlow(t *testing.T, svc *testService, opts Options) (*flow, *Model) {
	t.Helper()
	return startFlowAt(t, svc, opts, 100, 30)
}

// startFlowAt runs the real Bubble Tea program on svc in a w×h terminal.
func startFlowAt(t *testing.T, svc *testService, opts Options, w, h int) (*flow, *Model) {
	t.Helper()
	return startFlowUntil(t, svc, opts, w, h, "Queries · 2 need you")
}

// startFlowUntil is startFlowAt on a service whose first frame shows
// loaded, by what it shows, rather than by the fixture's query count.
func startFlowUntil(t *testing.T, svc *testService, opts Options, w, h int, loaded string) (*flow, *Model) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts.Now, opts.Location = clock, time.UTC
	m := New(svc, opts).WithContext(ctx)
	f, filter := newFlow()
	f.TestModel = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithFilter(filter)))
	t.Cleanup(func() { _ = f.Quit() })
	waitScreen(t, f, loaded)
	waitSubscribed(t, svc)
	return f, m
}

// waitScreen waits until the program's current frame contains want. It
// probes the frame once, then again after each message the program gets
// (the probe queues behind it, so it sees the message's effect).
func waitScreen(t *testing.T, f *flow, want string) {
	t.Helper()
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for {
		select { // a message already handled shows in the probe below
		case <-f.moved:
		default:
		}
		f.Send(probeMsg{})
		select {
		case frame := <-f.probed:
			f.mu.Lock()
			f.frame = frame
			f.mu.Unlock()
			if strings.Contains(frame, want) {
				return
			}
		case <-deadline.C:
			t.Fatalf("the program did not answer a probe within 5s waiting for %q", want)
		}
		select {
		case <-f.moved:
		case <-deadline.C:
			f.mu.Lock()
			defer f.mu.Unlock()
			t.Fatalf("frame never showed %q; last frame:\n%s", want, f.frame)
		}
	}
}

func waitSubscribed(t *testing.T, svc *testService) {
	t.Helper()
	svc.waitFor(t, "the interface subscribed to events", func() bool {
		svc.mu.Lock()
		defer svc.mu.Unlock()
		return len(svc.subs) > 0
	})
}

func waitCalls(t *testing.T, svc *testService, want string) {
	t.Helper()
	svc.waitFor(t, "call "+want, func() bool { return slices.Contains(svc.Calls(), want) })
}

func sendKeys(tm *flow, keys ...string) {
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
}

// TestFlowApprovalArrivesThenApprove: an approval published while the
// interface runs shows up live and is selected; y approves it from the
// pane that has the focus (Queries, the start) and the task shows running.
func TestFlowApprovalArrivesThenApprove(t *testing.T) {
	svc := fixtureService()
	svc.approvals = nil
	tm, _ := startFlow(t, svc, Options{})
	waitScreen(t, tm, "Approvals · 0 pending")
	svc.mu.Lock()
	svc.approvals = append(svc.approvals, agent.Approval{ID: "a-9", TaskID: "t-9", Requester: "pm-tanaka",
		TaskType: "run_tests", State: agent.TaskPending, Params: map[string]string{"suite": "./auth/..."},
		ExpiresAt: fixedNow.Add(time.Hour)})
	svc.mu.Unlock()
	svc.publish(agent.EventApprovalRequested, "a-9", "pm-tanaka", "pm-tanaka asks to run run_tests")
	waitScreen(t, tm, "1 pending")
	// A request that just arrived is named by the first y, approved by
	// the second.
	sendKeys(tm, "y")
	waitScreen(t, tm, "next request: run_tests from pm-tanaka")
	sendKeys(tm, "y")
	waitCalls(t, svc, "approve a-9")
	waitScreen(t, tm, "approved run_tests from pm-tanaka")
}

// TestFlowAnswerFromTextArea: enter opens the escalated query, the owner
// edits the draft and ctrl+s sends it.
func TestFlowAnswerFromTextArea(t *testing.T) {
	svc := fixtureService()
	tm, _ := startFlow(t, svc, Options{})
	sendKeys(tm, "enter")
	waitScreen(t, tm, "Answer query q-7")
	tm.Type(" Ship Friday.")
	sendKeys(tm, "ctrl+s")
	svc.waitFor(t, "a call", func() bool { return len(svc.Calls()) > 0 })
	calls := svc.Calls()
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "answer q-7 Auth refactor is 70% done") ||
		!strings.HasSuffix(calls[0], "Ship Friday.") {
		t.Fatalf("calls = %q", calls)
	}
	waitScreen(t, tm, "answer sent for pm-tanaka's question “auth progress and blockers?”")
}

// TestFlowPromptAskRoundTrip: @agent question → Ask; the answer arrives
// later as a message event and is shown as a notice.
func TestFlowPromptAskRoundTrip(t *testing.T) {
	svc := fixtureService()
	tm, _ := startFlow(t, svc, Options{})
	sendKeys(tm, "@")
	tm.Type("pm-tanaka how is auth going?")
	sendKeys(tm, "enter")
	waitCalls(t, svc, "ask pm-tanaka how is auth going?")
	waitScreen(t, tm, "the answer will show in Messages")
	svc.deliver("pm-tanaka", "ask-1", "auth is done, PR #42 in review")
	waitScreen(t, tm, "auth is done, PR #42 in review")
}

// TestFlowAttentionRings: an attention event rings the bell and sends an
// OSC 9 notification whose body cannot smuggle escapes.
func TestFlowAttentionRings(t *testing.T) {
	svc := fixtureService()
	tm, _ := startFlow(t, svc, Options{Bell: true, OSC9: true})
	svc.publish(agent.EventAttention, "q-8", "pm-tanaka", "critical query from pm-tanaka\x07\x1b]52;c;eA==\x07")
	var out bytes.Buffer
	teatest.WaitFor(t, io.TeeReader(tm.Output(), &out), func(b []byte) bool {
		return bytes.Contains(b, []byte("\x1b]9;critical query from pm-tanaka"))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	if bytes.Contains(out.Bytes(), []byte("\x1b]52")) {
		t.Error("OSC 52 from the summary reached the terminal")
	}
	if !bytes.Contains(out.Bytes(), []byte("\a")) {
		t.Error("no bell")
	}
}

// TestFlowQuitRestores: q ends the program.
func TestFlowQuitRestores(t *testing.T) {
	svc := fixtureService()
	tm, _ := startFlow(t, svc, Options{})
	sendKeys(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if _, ok := tm.FinalModel(t).(*Model); !ok {
		t.Error("final model is not *Model")
	}
}

var _ tea.Model = (*Model)(nil)

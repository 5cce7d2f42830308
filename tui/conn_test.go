package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// TestCoreLostBanner: when the control-socket client reports the core gone,
// the status bar says so at once; when it is back the banner goes and
// everything is fetched again.
func TestCoreLostBanner(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	if strings.Contains(screen(m), coreLostBanner) {
		t.Fatal("banner shown while connected")
	}
	pump(t, m, func() tea.Msg { return eventMsg{ev: agent.Event{Kind: agent.EventCoreDisconnected}} })
	lines := strings.Split(screen(m), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, coreLostBanner) || !strings.Contains(last, "peers unknown") || strings.Contains(last, " online") {
		t.Fatalf("status bar lacks the banner:\n%s", screen(m))
	}
	svc.status.Focus = true // changed while we were away
	pump(t, m, func() tea.Msg { return eventMsg{ev: agent.Event{Kind: agent.EventCoreReconnected}} })
	m.flushing = false
	pump(t, m, func() tea.Msg { return flushMsg{} })
	frame := screen(m)
	if strings.Contains(frame, coreLostBanner) || !strings.Contains(frame, "core reconnected") || !strings.Contains(frame, "focus ON") ||
		!strings.Contains(frame, "2 online") {
		t.Errorf("after reconnecting: banner gone, notice shown, state refetched; got:\n%s", frame)
	}
}

// TestPeersTitleWhenCoreLost: while the core is unreachable the Peers
// pane's title, like the status bar, does not claim peers online (the last
// statuses may be stale); it says how many are known. Back, it counts again.
func TestPeersTitleWhenCoreLost(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 36, true)
	if frame := screen(m); !strings.Contains(frame, "Peers · 3/3 online") {
		t.Fatalf("connected, the title counts peers online:\n%s", frame)
	}
	pump(t, m, func() tea.Msg { return eventMsg{ev: agent.Event{Kind: agent.EventCoreDisconnected}} })
	frame := screen(m)
	if strings.Contains(frame, "3/3 online") || !strings.Contains(frame, "Peers · 3 known · online unknown") {
		t.Errorf("the Peers title claims peers online while the core is lost:\n%s", frame)
	}
	pump(t, m, func() tea.Msg { return eventMsg{ev: agent.Event{Kind: agent.EventCoreReconnected}} })
	if frame = screen(m); !strings.Contains(frame, "Peers · 3/3 online") {
		t.Errorf("reconnected, the title counts peers online again:\n%s", frame)
	}
}

// TestQuestionArrivedWhileAwayRings: the walk's attached interface said
// only "core reconnected" while a question that came in meanwhile waited:
// its event went with the core that stopped. The fetch after reconnecting
// now announces it.
func TestQuestionArrivedWhileAwayRings(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 30, true)
	svc.mu.Lock()
	svc.queries = append(svc.queries, agent.Query{ID: "q-new", From: "qa-ito", Text: "are the tests green?", Priority: "normal",
		State: agent.QueryEscalated, Decision: "ESCALATE", ReceivedAt: fixedNow})
	svc.mu.Unlock()
	cmd, _ := m.handleLink(agent.Event{Kind: agent.EventCoreReconnected})
	pump(t, m, cmd)
	m.flushing = false
	pump(t, m, func() tea.Msg { return flushMsg{} })
	if !strings.Contains(m.notice.text, "1 question arrived while the core was away, from qa-ito") {
		t.Fatalf("notice %q; want the question that arrived announced", m.notice.text)
	}
}

// TestMessageAttentionLeavesItsNotice: a notify's attention event ("eng:
// query.completed") that arrives after its message was shown left the
// generic line in place of "↩ eng re “…”" (a CI run lost that race). It
// rings but leaves the notice; another attention still takes its place.
func TestMessageAttentionLeavesItsNotice(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 30, true)
	m.asks["ask-1"] = "how is auth going?"
	m.showMessage(agent.Message{Seq: 9, From: "eng-suzuki", Event: "query.completed", RelatedID: "ask-1", Data: []byte(`{"summary":"70% done"}`)})
	m.attention(agent.Event{Kind: agent.EventAttention, ID: "9", Summary: "eng-suzuki: query.completed"})
	if !strings.Contains(m.notice.text, "eng-suzuki re “how is auth going?”: 70% done") {
		t.Fatalf("notice %q; want the answer's own line kept", m.notice.text)
	}
	m.attention(agent.Event{Kind: agent.EventAttention, ID: "q-1", Summary: "question from qa-ito: “tests?”"})
	if !strings.Contains(m.notice.text, "question from qa-ito") {
		t.Errorf("notice %q; want the new attention shown", m.notice.text)
	}
}

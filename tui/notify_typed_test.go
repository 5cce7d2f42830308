package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestTypedMessageNotice: a relayed typed message names its first sender,
// the relay and the task, with peer text sanitised.
func TestTypedMessageNotice(t *testing.T) {
	t.Parallel()
	m := &Model{asks: map[string]string{}, env: &env{}}
	m.showMessage(agent.Message{From: "orche", Origin: "planner", Event: "review_result", Type: "review_result", TaskID: "T-1",
		Data: json.RawMessage(`{"approved":false,"feedback":"cover expiry\u001b[31m"}`)})
	want := "✉ planner via orche [T-1] review_result: cover expiry"
	if !strings.HasPrefix(m.notice.text, want) || strings.Contains(m.notice.text, "\x1b") {
		t.Fatalf("notice = %q, want it to start with %q and carry no escape", m.notice.text, want)
	}
}

// TestAwayPeerCountsAsRunning: a peer whose assistant stopped polling is
// running (counted online, ranked with busy) but marked differently.
func TestAwayPeerCountsAsRunning(t *testing.T) {
	t.Parallel()
	if g := statusGlyph(agent.PeerAway); g == statusGlyph(agent.PeerOnline) || g == statusGlyph(agent.PeerOffline) {
		t.Fatalf("away glyph %q is not distinct", g)
	}
	p := &peersPane{rows: []agent.Peer{{AgentID: "w", Status: agent.PeerAway, Trust: agent.TrustPinned}}}
	if title := p.Title(); !strings.Contains(title, "1/1 online") {
		t.Fatalf("title %q, want the away peer counted as running", title)
	}
}

package tui

import (
	"strings"
	"testing"
)

// TestTrustAgainSaysWhatChanged: `:trust` on a peer already pinned with
// that fingerprint says what changed (its role, from what to what) rather
// than "trusted", as `aoi peers trust` does; a first trust still says
// "trusted".
func TestTrustAgainSaysWhatChanged(t *testing.T) {
	svc := fixtureService()
	fp := strings.Repeat("ab", 32)
	svc.peers[0].Fingerprint = fp // pm-tanaka, pinned as pm
	m := newLoaded(t, svc, 120, 30, true)
	press(t, m, ":")
	typeText(t, m, "trust pm-tanaka "+fp+" 127.0.0.1:8444 qa")
	press(t, m, "enter")
	if want := "pm-tanaka was already trusted (fingerprint abababab"; !strings.Contains(m.notice.text, want) ||
		!strings.Contains(m.notice.text, "its role changed from pm to qa") {
		t.Errorf("notice = %q; want it to say pm-tanaka was already trusted and its role changed from pm to qa", m.notice.text)
	}
	press(t, m, ":")
	typeText(t, m, "trust qa-new "+strings.Repeat("cd", 32)+" 127.0.0.1:8445 qa")
	press(t, m, "enter")
	if !strings.Contains(m.notice.text, "trusted qa-new") || strings.Contains(m.notice.text, "already") {
		t.Errorf("notice of a first trust = %q; want \"trusted qa-new\"", m.notice.text)
	}
}

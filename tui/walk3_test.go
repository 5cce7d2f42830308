package tui

import (
	"strings"
	"testing"
)

// What the third daily-use walk found in the interface. Each test fails
// without its fix.

// TestFlowKeysLineFollowsTheSelectedQuestion: the keys line offers only
// what acts on the selected question. The walk's answered question still
// offered "e answer · d decline · r send draft", and a question whose
// draft found no work offered r, each key then only saying it could not.
func TestFlowKeysLineFollowsTheSelectedQuestion(t *testing.T) {
	tm, _ := startFlow(t, fixtureService(), Options{})
	for _, c := range []struct {
		name, key, preview string
		want, not          []string
	}{
		{"an open question with a draft", "", "── pm-tanaka · ! high", []string{"e answer", "d decline", "r send draft", "enter open"}, nil},
		{"an open question with no draft", "down", "── eng-佐藤", []string{"e answer", "d decline", "enter open"}, []string{"r send draft"}},
		{"an answered question", "end", "── pm-tanaka · normal", []string{"enter open"}, []string{"e answer", "d decline", "r send draft"}},
	} {
		if c.key != "" {
			sendKeys(tm, c.key)
		}
		waitScreen(t, tm, c.preview)
		line := keysLine(flowFrame(tm))
		for _, k := range c.want {
			if !strings.Contains(line, k) {
				t.Errorf("%s: the keys line lacks %q: %q", c.name, k, line)
			}
		}
		for _, k := range c.not {
			if strings.Contains(line, k) {
				t.Errorf("%s: the keys line offers %q, which does nothing there: %q", c.name, k, line)
			}
		}
	}
}

// TestFlowInterruptsOfferRSendAllOnlyWithADraftToSend: R sends every
// buffered question whose draft found work and is no guess; with none
// such (the walk's one buffered guess) R only said to answer or decline
// each, so the keys line no longer offers it.
func TestFlowInterruptsOfferRSendAllOnlyWithADraftToSend(t *testing.T) {
	for _, c := range []struct {
		name       string
		confidence float64
		offered    bool
	}{
		{"a draft to send", 0.72, true},
		{"only guesses", 0.3, false},
	} {
		svc := fixtureService()
		svc.queries[2].Confidence = c.confidence // q-5; q-4 is a guess already
		tm, _ := startFlow(t, svc, Options{})
		sendKeys(tm, "tab")
		waitScreen(t, tm, "┏━ Interrupts")
		line := keysLine(flowFrame(tm))
		if got := strings.Contains(line, "R send all"); got != c.offered {
			t.Errorf("%s: R offered %v, want %v: %q", c.name, got, c.offered, line)
		}
	}
}

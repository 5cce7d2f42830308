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

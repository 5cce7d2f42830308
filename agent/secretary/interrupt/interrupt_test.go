package interrupt

import (
	"math"
	"testing"
	"time"
)

func at(hour int) time.Time { return time.Date(2025, 3, 10, hour, 30, 0, 0, time.Local) }

func TestDecide(t *testing.T) {
	on, off := true, false
	focus := [2]int{9, 17}
	cases := []struct {
		name string
		in   Input
		want Decision
	}{
		{"disabled escalates", Input{Priority: "low", Confidence: 0.99, Now: at(10), FocusHours: focus, Threshold: 0.8}, Escalate},
		{"high escalates in focus", Input{Priority: "high", Confidence: 0.99, Now: at(10), FocusHours: focus, Threshold: 0.8, Enabled: true}, Escalate},
		{"critical escalates in focus", Input{Priority: "critical", Confidence: 0.99, Now: at(10), FocusHours: focus, Threshold: 0.8, Enabled: true}, Escalate},
		{"outside focus answers when confident", Input{Priority: "normal", Confidence: 0.99, Now: at(20), FocusHours: focus, Threshold: 0.8, Enabled: true}, AutoRespond},
		{"outside focus escalates when uncertain", Input{Priority: "normal", Confidence: 0.79, Now: at(20), FocusHours: focus, Threshold: 0.8, Enabled: true}, Escalate},
		{"outside focus escalates low too", Input{Priority: "low", Confidence: 0.1, Now: at(8), FocusHours: focus, Threshold: 0.8, Enabled: true}, Escalate},
		{"end hour is outside", Input{Priority: "low", Confidence: 0.5, Now: at(17), FocusHours: focus, Threshold: 0.8, Enabled: true}, Escalate},
		{"confident in focus answers", Input{Priority: "normal", Confidence: 0.9, Now: at(10), FocusHours: focus, Threshold: 0.8, Enabled: true}, AutoRespond},
		{"threshold is inclusive", Input{Priority: "normal", Confidence: 0.8, Now: at(9), FocusHours: focus, Threshold: 0.8, Enabled: true}, AutoRespond},
		{"empty priority is normal", Input{Confidence: 0.5, Now: at(10), FocusHours: focus, Threshold: 0.8, Enabled: true}, Escalate},
		{"confident low answers", Input{Priority: "low", Confidence: 0.9, Now: at(10), FocusHours: focus, Threshold: 0.8, Enabled: true}, AutoRespond},
		{"uncertain low buffers", Input{Priority: "low", Confidence: 0.5, Now: at(10), FocusHours: focus, Threshold: 0.8, Enabled: true}, Buffer},
		{"uncertain normal escalates", Input{Priority: "normal", Confidence: 0.5, Now: at(10), FocusHours: focus, Threshold: 0.8, Enabled: true}, Escalate},
		{"override on outside hours", Input{Priority: "low", Confidence: 0.3, Now: at(22), FocusHours: focus, FocusOverride: &on, Threshold: 0.8, Enabled: true}, Buffer},
		{"override off inside hours", Input{Priority: "low", Confidence: 0.3, Now: at(10), FocusHours: focus, FocusOverride: &off, Threshold: 0.8, Enabled: true}, Escalate},
		{"wrapping hours at night", Input{Priority: "normal", Confidence: 0.95, Now: at(23), FocusHours: [2]int{22, 6}, Threshold: 0.8, Enabled: true}, AutoRespond},
		{"wrapping hours early morning", Input{Priority: "low", Confidence: 0.2, Now: at(5), FocusHours: [2]int{22, 6}, Threshold: 0.8, Enabled: true}, Buffer},
		{"wrapping hours midday", Input{Priority: "low", Confidence: 0.5, Now: at(12), FocusHours: [2]int{22, 6}, Threshold: 0.8, Enabled: true}, Escalate},
		{"no focus hours answers when confident", Input{Priority: "normal", Confidence: 0.95, Now: at(12), FocusHours: [2]int{0, 0}, Threshold: 0.8, Enabled: true}, AutoRespond},
		{"no focus hours escalates low and uncertain", Input{Priority: "low", Confidence: 0.5, Now: at(12), FocusHours: [2]int{0, 0}, Threshold: 0.8, Enabled: true}, Escalate},
		{"all day focus", Input{Priority: "low", Confidence: 0.2, Now: at(3), FocusHours: [2]int{0, 24}, Threshold: 0.8, Enabled: true}, Buffer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Decide(c.in)
			if got.Decision != c.want {
				t.Fatalf("Decide = %s (%s), want %s", got.Decision, got.Reason, c.want)
			}
			if got.Reason == "" {
				t.Fatal("decision without a reason")
			}
		})
	}
}

func TestConfidence(t *testing.T) {
	cases := []struct {
		name    string
		matched bool
		age     time.Duration
		quality float64
		want    float64
	}{
		{"no match", false, 0, 1, ConfNoMatch},
		{"last hour", true, 30 * time.Minute, 1, ConfRecentHour},
		{"last day", true, 5 * time.Hour, 1, ConfRecentDay},
		{"older, fully covered", true, 72 * time.Hour, 1, ConfGrounded},
		{"half coverage pulls far down", true, time.Minute, 0.5, 0.2 + 0.75*math.Pow(0.25/0.5, 1.5)},
		{"a quarter is no evidence", true, time.Minute, 0.25, ConfNoMatch},
		{"half in the best hit, the rest next to it, counts fully", true, 72 * time.Hour, 0.75, ConfGrounded},
		{"a little less does not", true, 72 * time.Hour, 0.7, 0.2 + 0.62*math.Pow(0.45/0.5, 1.5)},
		{"zero coverage is no match", true, time.Minute, 0, ConfNoMatch},
		{"quality is clamped", true, time.Minute, 3, ConfRecentHour},
	}
	for _, c := range cases {
		if got := Confidence(c.matched, c.age, c.quality); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: Confidence = %v, want %v", c.name, got, c.want)
		}
	}
}

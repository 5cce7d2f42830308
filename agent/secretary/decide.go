package secretary

import "github.com/aoi-protocol/aoi/agent/secretary/interrupt"

// Decide applies the interrupt rules (seed 002 §2.3.3) with this agent's
// interrupt_control settings and clock: priority from the query, confidence
// from Answer, focusOverride from the owner's :focus on/off (nil = hours).
func (s *Secretary) Decide(priority string, confidence float64, focusOverride *bool) interrupt.Result {
	ic := s.config().Secretary.InterruptControl
	return interrupt.Decide(interrupt.Input{
		Priority:      priority,
		Confidence:    confidence,
		Now:           s.now().Local(),
		FocusHours:    ic.FocusModeHours,
		FocusOverride: focusOverride,
		Threshold:     ic.AutoRespondThreshold,
		Enabled:       ic.Enabled,
	})
}

// InFocus reports whether the owner is in focus time now.
func (s *Secretary) InFocus(focusOverride *bool) bool {
	return interrupt.InFocus(s.now().Local(), s.config().Secretary.InterruptControl.FocusModeHours, focusOverride)
}

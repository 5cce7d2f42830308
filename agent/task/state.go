package task

import "fmt"

// Task states. The strings equal agent.Task* (the core asserts that in its
// tests; this package cannot import agent, which imports it).
const (
	StatePending    = "pending"
	StateApproved   = "approved"
	StateInProgress = "in_progress"
	StateReview     = "review"
	StateCompleted  = "completed"
	StateRejected   = "rejected"
	StateExpired    = "expired"
	StateFailed     = "failed"
	StateCanceled   = "canceled"
)

// transitions lists every legal move of the task state machine (seed 004,
// design §7). Anything not listed is refused.
var transitions = map[string][]string{
	StatePending:    {StateApproved, StateRejected, StateExpired, StateCanceled},
	StateApproved:   {StateInProgress, StateFailed, StateCanceled},
	StateInProgress: {StateReview, StateCompleted, StateFailed, StateCanceled},
	// review → in_progress is seed 004's "changes requested" loop.
	StateReview: {StateCompleted, StateInProgress, StateFailed, StateCanceled},
}

// CanTransition reports whether a task may move from one state to another.
func CanTransition(from, to string) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// IsTerminal reports whether a state is final (no move leaves it).
func IsTerminal(state string) bool {
	switch state {
	case StateCompleted, StateRejected, StateExpired, StateFailed, StateCanceled:
		return true
	}
	return false
}

// IsKnownState reports whether s is one of the task states.
func IsKnownState(s string) bool {
	_, ok := transitions[s]
	return ok || IsTerminal(s)
}

// TransitionError is returned for a move the state machine does not allow.
type TransitionError struct {
	From, To string
}

func (e *TransitionError) Error() string {
	if IsTerminal(e.From) {
		return fmt.Sprintf("task is already %s; it cannot become %s", e.From, e.To)
	}
	return fmt.Sprintf("a %s task cannot become %s", e.From, e.To)
}

// Transition checks a move and returns a *TransitionError when it is illegal.
func Transition(from, to string) error {
	if !CanTransition(from, to) {
		return &TransitionError{From: from, To: to}
	}
	return nil
}

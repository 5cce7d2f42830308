package task

import (
	"errors"
	"testing"
)

func TestStateMachine(t *testing.T) {
	all := []string{StatePending, StateApproved, StateInProgress, StateReview, StateCompleted,
		StateRejected, StateExpired, StateFailed, StateCanceled}
	legal := map[[2]string]bool{
		{StatePending, StateApproved}:     true,
		{StatePending, StateRejected}:     true,
		{StatePending, StateExpired}:      true,
		{StatePending, StateCanceled}:     true,
		{StateApproved, StateInProgress}:  true,
		{StateApproved, StateFailed}:      true,
		{StateApproved, StateCanceled}:    true,
		{StateInProgress, StateReview}:    true,
		{StateInProgress, StateCompleted}: true,
		{StateInProgress, StateFailed}:    true,
		{StateInProgress, StateCanceled}:  true,
		{StateReview, StateCompleted}:     true,
		{StateReview, StateInProgress}:    true,
		{StateReview, StateFailed}:        true,
		{StateReview, StateCanceled}:      true,
	}
	for _, from := range all {
		for _, to := range all {
			want := legal[[2]string{from, to}]
			if got := CanTransition(from, to); got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
			err := Transition(from, to)
			if want != (err == nil) {
				t.Errorf("Transition(%s, %s) = %v, want legal=%v", from, to, err, want)
			}
			var te *TransitionError
			if err != nil && !errors.As(err, &te) {
				t.Errorf("Transition(%s, %s) error %T is not *TransitionError", from, to, err)
			}
		}
	}
	for _, s := range []string{StateCompleted, StateRejected, StateExpired, StateFailed, StateCanceled} {
		if !IsTerminal(s) {
			t.Errorf("%s should be terminal", s)
		}
	}
	if IsKnownState("running") || !IsKnownState(StateReview) {
		t.Error("IsKnownState is wrong")
	}
	if CanTransition("bogus", StateApproved) {
		t.Error("an unknown state must not transition")
	}
}

//go:build !linux

package task

import "errors"

// LandlockABI is 0: Landlock is Linux's.
func LandlockABI() int { return 0 }

// ConfinementSupport: task commands are not confined off Linux.
func ConfinementSupport() (bool, string) {
	return false, "Landlock needs Linux; task commands run unconfined: they can write anywhere you can and signal aoi"
}

func restrictSelf([]string, string) error { return errors.New("Landlock needs Linux") }

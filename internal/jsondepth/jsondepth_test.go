package jsondepth

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	for in, want := range map[string]int{
		`1`:                    0,
		`{"a":[1,{"b":2}]}`:    3,
		`{"s":"[[[[{{{{\"]]"}`: 1,
		strings.Repeat("[", 8000) + strings.Repeat("]", 8000): 8000,
		`"\\"`: 0,
	} {
		if got := Of([]byte(in)); got != want {
			t.Errorf("Of(%.40q) = %d, want %d", in, got, want)
		}
	}
}

package redact

import (
	"slices"
	"testing"
)

// TestAnchoredMatchesAreTheExpressions: a rule with anchors tries its
// expression only where an anchor starts (withAnchors); it must find what
// the expression finds along the whole text, including an anchor after a
// word character (no \b there), after a non-ASCII letter (a \b), at the
// very start, and several on one line.
func TestAnchoredMatchesAreTheExpressions(t *testing.T) {
	for _, s := range []string{
		"the admin password is XsiVpzz63Ffk",
		"Password is: letmein999, and the token was changed to Qw3rTy12Vb9",
		"mypassword is XsiVpzz63Ffk and xtoken: Qw3rTy12Vb9Lm",
		"本番password: Xq7Lm2Rt9Wz4 それとtoken=Ab9Cd8Ef7Gh6",
		"commit 3f9a2c1: auth: rotate refresh tokens on use\n\nFiles: auth/jwt.go (+42 -7)\nTODO: decide the token store.",
		"api key for staging (eu): Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd; the wifi password is hunter2go",
		"passpass passwordpassword: Zq4Wm8Kt2Rx7",
	} {
		want := secretIsRule.re.FindAllStringSubmatchIndex(s, -1)
		got := secretIsRule.matches(newText(s))
		if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
			t.Errorf("%q:\n got %v\nwant %v", s, got, want)
		}
	}
}

// Package suggest finds the word a person probably meant: the basis of
// every "did you mean …?" in aoi (config keys, paths, peer ids).
package suggest

import "strings"

// Closest returns the candidate nearest to s by edit distance, at most
// maxDistance edits away, or "" when none is that close.
func Closest(s string, candidates []string, maxDistance int) string {
	best, bestD := "", maxDistance+1
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Typo is Closest with the distance a typo plausibly has: about half the
// word.
func Typo(s string, candidates []string) string {
	return Closest(s, candidates, len(s)/2+1)
}

// Loose is Typo for names typed short as well as mistyped, such as peer
// ids: the candidate Typo finds, else the only one that holds s whole (at
// its start or inside: "suzuki" for "eng-suzuki"), else the only one whose
// start s is one edit away from ("engg" for "eng-suzuki"). It returns ""
// when none fits, or when several fit equally, since naming one of them
// would be a guess.
func Loose(s string, candidates []string) string {
	if s == "" {
		return ""
	}
	if t := Typo(s, candidates); t != "" {
		return t
	}
	if c, ok := only(candidates, func(c string) bool { return strings.Contains(c, s) }); ok {
		return c
	}
	if len(s) < 3 {
		return "" // one edit in two letters is most of the word
	}
	c, _ := only(candidates, func(c string) bool { return startTypo(s, c) })
	return c
}

// startTypo reports whether s is one edit away from the start of c: a
// letter of it changed, added or left out.
func startTypo(s, c string) bool {
	for n := len(s) - 1; n <= len(s)+1; n++ {
		if n <= len(c) && editDistance(s, c[:n]) <= 1 {
			return true
		}
	}
	return false
}

// only returns the one candidate that ok holds for, if there is exactly
// one.
func only(candidates []string, ok func(string) bool) (string, bool) {
	found := ""
	for _, c := range candidates {
		if !ok(c) {
			continue
		}
		if found != "" && found != c {
			return "", false
		}
		found = c
	}
	return found, found != ""
}

// editDistance is the Levenshtein distance between a and b (in bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

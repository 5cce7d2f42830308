// Package suggest finds the word a person probably meant: the basis of
// every "did you mean …?" in aoi (config keys, paths, peer ids).
package suggest

import (
	"slices"
	"strings"
)

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

// LooseAll returns every candidate that fits s as well as the best one,
// in the order given: those that hold s whole (at the start or inside:
// "suzuki" for "eng-suzuki" and "qa-suzuki" alike), else those nearest
// within Typo's distance, else those whose start s is one edit away from
// ("engg" for "eng-suzuki"), for names typed short as well as mistyped,
// such as peer ids. With two eng- peers "engg" fits both: a person offered
// both picks one.
func LooseAll(s string, candidates []string) []string {
	if s == "" {
		return nil
	}
	if held := where(candidates, func(c string) bool { return strings.Contains(c, s) }); len(held) > 0 {
		return held
	}
	if near := nearest(s, candidates, len(s)/2+1); len(near) > 0 {
		return near
	}
	if len(s) < 3 {
		return nil // one edit in two letters is most of the word
	}
	return where(candidates, func(c string) bool { return startTypo(s, c) })
}

// nearest returns the candidates at the least edit distance from s, if it
// is at most maxDistance.
func nearest(s string, candidates []string, maxDistance int) []string {
	var best []string
	bestD := maxDistance + 1
	for _, c := range candidates {
		switch d := editDistance(s, c); {
		case d < bestD:
			best, bestD = []string{c}, d
		case d == bestD && d <= maxDistance && !slices.Contains(best, c):
			best = append(best, c)
		}
	}
	return best
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

// where returns the candidates ok holds for, each once.
func where(candidates []string, ok func(string) bool) []string {
	var out []string
	for _, c := range candidates {
		if ok(c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
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

// Package suggest finds the word a person probably meant: the basis of
// every "did you mean …?" in aoi (config keys, paths, peer ids).
package suggest

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

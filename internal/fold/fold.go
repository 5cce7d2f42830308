// Package fold has case-insensitive string checks for hot paths that must
// not allocate (strings.ToLower copies): the redactor's and the log
// handler's prefilters.
package fold

// ContainsASCII reports whether s contains sub, ignoring ASCII case. sub
// must be lower-case ASCII; other bytes of s compare as they are.
func ContainsASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

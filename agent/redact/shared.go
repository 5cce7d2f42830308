package redact

import (
	"strconv"
	"strings"
	"sync"
)

// A built Redactor holds gitleaks' rules and the package's own, about
// 30 MiB, and takes a noticeable time to build. Every agent core in a
// process (aoi bench runs two, tests many) with the same owner patterns
// can use one: a Redactor is read-only once built and safe for concurrent
// use.
var shared struct {
	mu    sync.Mutex
	built map[string]*Redactor
}

// maxShared bounds the pattern sets kept; past it Shared builds anew.
const maxShared = 8

// Shared returns the process's Redactor for custom, building it on first
// use (New: the same errors).
func Shared(custom []Pattern) (*Redactor, error) {
	key := patternsKey(custom)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if r, ok := shared.built[key]; ok {
		return r, nil
	}
	r, err := New(custom)
	if err != nil {
		return nil, err
	}
	if shared.built == nil {
		shared.built = map[string]*Redactor{}
	}
	if len(shared.built) < maxShared {
		shared.built[key] = r
	}
	return r, nil
}

// patternsKey names a pattern list: each id and expression with its
// length in front, so no two lists share a key.
func patternsKey(custom []Pattern) string {
	var b strings.Builder
	for _, p := range custom {
		for _, s := range []string{p.ID, p.Regex} {
			b.WriteString(strconv.Itoa(len(s)))
			b.WriteByte(':')
			b.WriteString(s)
		}
	}
	return b.String()
}

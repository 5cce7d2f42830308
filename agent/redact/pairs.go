package redact

import "strings"

// pairSet is a 4,096-bit set of the adjacent byte pairs of a short text,
// hashed: a word whose pairs are not all in the set cannot be in the text.
// The rules' prefilters ask for some fifty words per text; most are absent
// from a peer's request body, and the set says so in a few lookups where
// strings.Contains would scan the text for every candidate first byte
// (about half of redaction's time on aoi bench's body).
type pairSet [64]uint64

// maxPairedText bounds the texts that get a pair set: past it the set
// fills up and rules out little (at 1 KiB about a fifth of the bits are
// set, so a four-letter word's three pairs all hit by chance about once
// in a hundred).
const maxPairedText = 1 << 10

func pairBit(a, b byte) uint32 {
	return (uint32(a)<<8 | uint32(b)) * 0x9E3779B1 >> 20 // 12 bits
}

func (p *pairSet) fill(s string) {
	for i := 0; i+1 < len(s); i++ {
		h := pairBit(s[i], s[i+1])
		p[h>>6] |= 1 << (h & 63)
	}
}

// mayHold reports whether every pair of sub is in the set. It never says
// no to a word the text holds.
func (p *pairSet) mayHold(sub string) bool {
	for i := 0; i+1 < len(sub); i++ {
		h := pairBit(sub[i], sub[i+1])
		if p[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// holdsAll reports whether every pair hash (pairBit) is in the set.
func (p *pairSet) holdsAll(hashes []uint16) bool {
	for _, h := range hashes {
		if p[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// contains is strings.Contains(s, sub), asking the pair set first when
// there is one.
func contains(s string, pairs *pairSet, sub string) bool {
	if pairs != nil && !pairs.mayHold(sub) {
		return false
	}
	return strings.Contains(s, sub)
}

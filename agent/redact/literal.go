package redact

import (
	"regexp/syntax"
	"unicode"
)

// requiredLiteral returns lower-case ASCII text that every match of re
// contains, the longest it can prove, or "" when it knows none. A text
// whose lower-cased form lacks it cannot match re, so the expression need
// not run: a cheap exact prefilter, as the AWS rules' hand-written ones,
// for every gitleaks rule at once.
//
// It is sound by construction: a literal counts only where the expression
// cannot avoid it (a concatenation's parts, a capture, a repetition of at
// least one), never inside an alternation or an optional part. Under (?i)
// a letter whose case-fold orbit leaves ASCII (k matches U+212A, s matches
// U+017F) breaks the literal there, since lower-casing the text does not
// turn those into k or s.
func requiredLiteral(re *syntax.Regexp) string {
	best := ""
	for _, piece := range requiredPieces(re) {
		if len(piece) > len(best) {
			best = piece
		}
	}
	return best
}

// requiredPieces lists literals every match of re contains.
func requiredPieces(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return splitRun(appendSafe(nil, re))
	case syntax.OpCapture, syntax.OpPlus:
		return requiredPieces(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredPieces(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []string
		var run []rune // adjacent literals join into one run
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run = appendSafe(run, sub)
				continue
			}
			out = append(out, splitRun(run)...)
			run = nil
			out = append(out, requiredPieces(sub)...)
		}
		return append(out, splitRun(run)...)
	}
	return nil
}

// unsafeRune marks a place in a run where the literal must be cut.
const unsafeRune = -1

// appendSafe appends lit's runes, lower-cased, or unsafeRune for any rune
// that lower-casing the text would not reliably turn into it.
func appendSafe(run []rune, lit *syntax.Regexp) []rune {
	fold := lit.Flags&syntax.FoldCase != 0
	for _, r := range lit.Rune {
		switch {
		case r >= unicode.MaxASCII:
			run = append(run, unsafeRune)
		case fold && !asciiOrbit(r):
			run = append(run, unsafeRune)
		default:
			run = append(run, unicode.ToLower(r))
		}
	}
	return run
}

// asciiOrbit reports whether every rune that (?i) matches to r is ASCII.
func asciiOrbit(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= unicode.MaxASCII {
			return false
		}
	}
	return true
}

// splitRun cuts run at unsafe runes into literals.
func splitRun(run []rune) []string {
	var out []string
	start := 0
	for i := 0; i <= len(run); i++ {
		if i == len(run) || run[i] == unsafeRune {
			if i > start {
				out = append(out, string(run[start:i]))
			}
			start = i + 1
		}
	}
	return out
}

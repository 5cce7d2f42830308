// Package jsonwalk reads the members of a JSON object, or the elements of
// an array, as slices of the text, without decoding them: the peer path
// reads a request's envelope and aoi.query's params this way, where
// encoding/json would scan the text again and copy every value.
//
// The text must already be valid JSON (json.Valid): the walk does not
// validate, though it never reads out of bounds whatever it is given.
package jsonwalk

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Members calls fn with each member's key (a JSON string, quotes and
// escapes as written) and value (raw JSON) of the object raw, in order,
// until fn returns false. It reports false when raw is not an object or fn
// stopped the walk.
func Members(raw []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		keyEnd := end(raw, i)
		colon := skipSpace(raw, keyEnd)
		if colon >= len(raw) || raw[colon] != ':' {
			return false
		}
		start := skipSpace(raw, colon+1)
		if start >= len(raw) {
			return false
		}
		valueEnd := end(raw, start)
		if !fn(raw[i:keyEnd], raw[start:valueEnd]) {
			return false
		}
		i = skipSpace(raw, valueEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// Elements calls fn with each element of the array raw, in order, until
// fn returns false. It reports false when raw is not an array or fn
// stopped the walk.
func Elements(raw []byte, fn func(value []byte) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		valueEnd := end(raw, i)
		if !fn(raw[i:valueEnd]) {
			return false
		}
		i = skipSpace(raw, valueEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// String decodes the JSON string raw as encoding/json does, without a
// decoder when it holds no escape and is valid UTF-8 (encoding/json puts
// U+FFFD for a broken byte). ok is false when raw is not a string.
func String(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(raw[1 : len(raw)-1]), true
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// Name is the text of the JSON string raw (a member's key) for comparing
// with names: the bytes between the quotes when it holds no escape, else
// String's decoding. Comparing string(name) with a constant, or switching
// on it, allocates nothing, where String copies every key it is given.
// ok is false when raw is not a string.
func Name(raw []byte) (name []byte, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return inner, true
	}
	s, ok := String(raw)
	return []byte(s), ok
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	return i
}

// end is the index just past the value starting at i.
func end(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		for j := i + 1; j < len(raw); j++ {
			switch raw[j] {
			case '\\':
				j++ // the escaped byte cannot end the string
			case '"':
				return j + 1
			}
		}
		return len(raw)
	case '{', '[':
		return endOfContainer(raw, i)
	}
	// A number, true, false or null ends where a delimiter starts.
	j := i + 1
	for j < len(raw) && !endsScalar(raw[j]) {
		j++
	}
	return j
}

func endsScalar(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', '}', ']', ':':
		return true
	}
	return false
}

// endOfContainer is the index just past the object or array at i.
func endOfContainer(raw []byte, i int) int {
	depth := 0
	for j := i; j < len(raw); j++ {
		switch raw[j] {
		case '"':
			j = end(raw, j) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(raw)
}

// Package jsondepth measures how deeply JSON text nests, without decoding
// it: a peer's JSON is bounded in depth before anything decodes it, since
// a reader that recurses (Python's json, a pretty-printer) fails or grows
// with every level long before the size limit is reached.
package jsondepth

// Max is the deepest nesting aoi takes from or passes on for a peer: far
// more than any request, answer or payload needs.
const Max = 64

// Of is how deeply the arrays and objects of raw nest (0 for a scalar).
// It reads raw once, skipping strings; raw need not be valid JSON.
func Of(raw []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

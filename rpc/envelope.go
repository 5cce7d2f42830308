package rpc

import "encoding/json"

// envelope is the members of a Request object that JSON-RPC names, each
// as raw JSON (nil when absent; JSON null is present, as "null"). Other
// members are ignored, as the spec allows.
type envelope struct {
	jsonrpc, method, id, params json.RawMessage
}

// readEnvelope reads the members of the object raw, which must be valid
// JSON (json.Valid): ok is false when raw is not an object. A member named
// twice keeps its last value, as encoding/json does. The values are slices
// of raw, not copies.
//
// It replaces decoding into a map[string]json.RawMessage, which scanned
// the body a second time through encoding/json's state machine and
// allocated the map, its keys and a copy of every value, on every peer
// call. Only valid JSON is read here, so the walk need not validate.
func readEnvelope(raw []byte) (env envelope, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return env, false
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		keyEnd := endOfValue(raw, i)
		key := raw[i:keyEnd]
		i = skipSpace(raw, skipSpace(raw, keyEnd)+1) // past the ':'
		valueEnd := endOfValue(raw, i)
		env.set(key, raw[i:valueEnd])
		i = skipSpace(raw, valueEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return env, true
}

// set keeps value when key (a JSON string) names a member JSON-RPC uses.
func (env *envelope) set(key, value json.RawMessage) {
	name, ok := stringValue(key)
	if !ok {
		return
	}
	switch name {
	case "jsonrpc":
		env.jsonrpc = value
	case "method":
		env.method = value
	case "id":
		env.id = value
	case "params":
		env.params = value
	}
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

// endOfValue is the index just past the valid JSON value starting at i.
func endOfValue(raw []byte, i int) int {
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
	j := i
	for j < len(raw) && !endsScalar(raw[j]) {
		j++
	}
	return j
}

func endsScalar(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', '}', ']':
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
			j = endOfValue(raw, j) - 1
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

package wire

import (
	"slices"
	"strconv"

	"github.com/aoi-protocol/aoi/internal/jsonwrite"
)

// AppendJSON appends r as JSON, the meaning json.Marshal gives it, without
// reflection: every peer question's answer is encoded, and json.Marshal's
// walk of the struct and its metadata map took about 1% of the CPU of a
// request. ok is false when the metadata holds a value of another kind
// than a string, a bool, an integer, a list of strings or null; then
// encode r with json.Marshal. (It differs from json.Marshal's bytes only
// in not escaping <, > and &, which JSON does not require.)
func (r QueryResult) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"summary":`...)
	b = jsonwrite.AppendString(b, r.Summary)
	if r.Progress != nil {
		b = strconv.AppendInt(append(b, `,"progress":`...), int64(*r.Progress), 10)
	}
	if len(r.Blockers) > 0 {
		b = jsonwrite.AppendStrings(append(b, `,"blockers":`...), r.Blockers)
	}
	if len(r.ContextRefs) > 0 {
		b = append(b, `,"context_refs":[`...)
		for i, ref := range r.ContextRefs {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonwrite.AppendString(append(b, `{"type":`...), ref.Type)
			b = jsonwrite.AppendString(append(b, `,"ref":`...), ref.Ref)
			if ref.Summary != "" {
				b = jsonwrite.AppendString(append(b, `,"summary":`...), ref.Summary)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Metadata) > 0 {
		var ok bool
		if b, ok = appendMetadata(append(b, `,"metadata":`...), r.Metadata); !ok {
			return b, false
		}
	}
	b = strconv.AppendBool(append(b, `,"completed":`...), r.Completed)
	return append(b, '}'), true
}

// appendMetadata appends m with its keys sorted, as json.Marshal writes a
// map; ok is false for a value of a kind it does not write.
func appendMetadata(b []byte, m map[string]any) ([]byte, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonwrite.AppendString(b, k), ':')
		switch v := m[k].(type) {
		case string:
			b = jsonwrite.AppendString(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case []string:
			if v == nil {
				b = append(b, "null"...)
			} else {
				b = jsonwrite.AppendStrings(b, v)
			}
		case nil:
			b = append(b, "null"...)
		default:
			return b, false
		}
	}
	return append(b, '}'), true
}

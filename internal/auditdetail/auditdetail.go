// Package auditdetail writes an audit row's detail as people read it in a
// list: key=value pairs, what the row is about first, not JSON's braces
// and quotes. The interface's Audit pane and `aoi audit` both use it; each
// makes the result safe for its terminal itself.
package auditdetail

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// Summary is raw as key=value pairs, the keys in lead's order first
// (a question's row says what was asked next to what the secretary did),
// then the rest by name, leaving out blank values; a detail that is no JSON object comes back as
// compact JSON.
func Summary(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return compact(raw)
	}
	keys := leadFirst(m)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if blank(m[k]) {
			continue
		}
		v := value(m[k])
		if k == "question" {
			v = "“" + v + "”" // words with spaces, among key=value pairs
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// JSON is raw as JSON on one line with its keys in Summary's order:
// whole, blank values too, but what the row is about first, so a line that
// cuts it short still shows the question (the alphabetical order put it
// after confidence, priority and query_id, past the Audit pane's preview).
// A space follows each member's comma, where a wrapped line may break: a
// long id after the question took the line the question's end was on.
func JSON(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return compact(raw)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range leadFirst(m) {
		if i > 0 {
			b.WriteString(", ")
		}
		name, _ := json.Marshal(k)
		b.Write(name)
		b.WriteByte(':')
		b.WriteString(compact(m[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// leadFirst is m's keys, lead's first in its order, then the rest by name.
func leadFirst(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		pi, pj := rank(keys[i]), rank(keys[j])
		if pi != pj {
			return pi < pj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// lead are the detail keys that say most about a row, in order.
var lead = []string{"decision", "question", "confidence", "priority", "state", "task_type", "event", "type", "reason", "error", "to", "scope"}

func rank(k string) int {
	for i, l := range lead {
		if k == l {
			return i
		}
	}
	return len(lead)
}

// blank: the value is an empty string or null. It says nothing in a list
// ("error=" on every task that succeeded, "reason=" on every approval) and
// takes the room of what does; the detail shown whole still has it.
func blank(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return string(v) == `""` || string(v) == "null"
}

// value is a detail value without JSON's quotes: a string as it is, a
// list of strings joined by commas, anything else compact JSON.
func value(v json.RawMessage) string {
	var str string
	if json.Unmarshal(v, &str) == nil {
		return str
	}
	var list []string
	if json.Unmarshal(v, &list) == nil {
		return strings.Join(list, ",")
	}
	return compact(v)
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

package mcpserver

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/wire"
)

// args reads a tool call's arguments with the same bounds the input schema
// declares. The schema is checked by the library first; this second check
// keeps the handlers safe if a client skips it or the schema drifts. The
// first problem found is kept and reported as one sentence.
type args struct {
	tool string
	m    map[string]any
	err  error
}

func newArgs(tool string, raw any) *args {
	a := &args{tool: tool}
	if b, ok := raw.(json.RawMessage); ok { // not decoded by the transport
		raw = nil
		if err := json.Unmarshal(b, &raw); err != nil {
			a.err = fmt.Errorf("%s arguments are not valid JSON", tool)
			return a
		}
	}
	switch m := raw.(type) {
	case map[string]any:
		a.m = m
	case nil:
		a.m = map[string]any{}
	default:
		a.err = fmt.Errorf("%s takes an object of named arguments, not %s", tool, typeName(raw))
	}
	return a
}

func (a *args) fail(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, v...)
	}
}

// str returns a trimmed string argument of at most max characters (runes,
// as the schema's maxLength counts them).
func (a *args) str(key string, required bool, max int) string {
	v, ok := a.m[key]
	if !ok || v == nil {
		if required {
			a.fail("%s needs %q; add it and call again", a.tool, key)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		a.fail("%q must be a string, not %s", key, typeName(v))
		return ""
	}
	s = strings.TrimSpace(s)
	switch {
	case !utf8.ValidString(s):
		a.fail("%q is not valid UTF-8 text", key)
	case utf8.RuneCountInString(s) > max:
		a.fail("%q is %d characters; shorten it to at most %d", key, utf8.RuneCountInString(s), max)
	case required && s == "":
		a.fail("%q is empty; give a value", key)
	}
	return s
}

// oneOf returns a string argument that must be one of allowed (or empty).
func (a *args) oneOf(key string, allowed ...string) string {
	s := a.str(key, false, 64)
	if s == "" {
		return ""
	}
	for _, v := range allowed {
		if s == v {
			return s
		}
	}
	a.fail("%q must be one of %s, not %q", key, strings.Join(allowed, ", "), s)
	return ""
}

// strs returns a list of strings, each at most maxLen characters.
func (a *args) strs(key string, maxItems, maxLen int) []string {
	v, ok := a.m[key]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		a.fail("%q must be a list of strings, not %s", key, typeName(v))
		return nil
	}
	if len(list) > maxItems {
		a.fail("%q has %d entries; give at most %d", key, len(list), maxItems)
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			a.fail("%q[%d] must be a string, not %s", key, i, typeName(e))
			return nil
		}
		s = strings.TrimSpace(s)
		if s == "" || utf8.RuneCountInString(s) > maxLen || !utf8.ValidString(s) {
			a.fail("%q[%d] must be non-empty text of at most %d characters", key, i, maxLen)
			return nil
		}
		out = append(out, s)
	}
	return out
}

// integer returns a whole-number argument in [min, max], def when absent.
func (a *args) integer(key string, required bool, min, max, def int64) int64 {
	v, ok := a.m[key]
	if !ok || v == nil {
		if required {
			a.fail("%s needs %q; add it and call again", a.tool, key)
		}
		return def
	}
	f, ok := v.(float64)
	if !ok {
		if n, isInt := v.(int); isInt {
			f, ok = float64(n), true
		}
	}
	if !ok || math.IsNaN(f) || f != math.Trunc(f) {
		a.fail("%q must be a whole number, not %s", key, typeName(v))
		return def
	}
	if f < float64(min) || f > float64(max) {
		a.fail("%q must be between %d and %d, not %v", key, min, max, f)
		return def
	}
	return int64(f)
}

// boolean returns a boolean argument, false when absent.
func (a *args) boolean(key string) bool {
	v, ok := a.m[key]
	if !ok || v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		a.fail("%q must be true or false, not %s", key, typeName(v))
	}
	return b
}

// typeName names a decoded JSON value's type the way a model would.
func typeName(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		if t == math.Trunc(t) {
			return "the number " + fmt.Sprint(t)
		}
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// agentID returns an agent id argument; a malformed one is refused without
// repeating it (it may hold control characters or a path).
func (a *args) agentID(key string, required bool) string {
	s := a.str(key, required, maxID)
	if s != "" && !wire.ValidAgentID(s) {
		a.fail("%q is not an agent id (lower-case letters, digits, '.', '_' or '-', at most 63 characters); list ids with aoi_discover", key)
		return ""
	}
	return s
}

// id returns a query, task or thread id argument: letters, digits and
// . _ : - only; anything else is refused without repeating it.
func (a *args) id(key string, required bool) string {
	s := a.str(key, required, maxID)
	if s != "" && !wire.ValidID(s) {
		a.fail("%q must be an id of letters, digits, '.', '_', ':' or '-' (as aoi returned it)", key)
		return ""
	}
	return s
}

// object returns a JSON object argument re-encoded, at most max bytes.
func (a *args) object(key string, max int) json.RawMessage {
	v, ok := a.m[key]
	if !ok || v == nil {
		return nil
	}
	if _, isObj := v.(map[string]any); !isObj {
		a.fail("%q must be a JSON object, not %s", key, typeName(v))
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > max {
		a.fail("%q must be a JSON object of at most %d bytes", key, max)
		return nil
	}
	return b
}

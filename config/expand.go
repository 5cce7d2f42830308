package config

import (
	"strconv"
	"strings"
)

// LookupFunc reads an environment variable; os.LookupEnv is the real one.
type LookupFunc func(name string) (string, bool)

// expansion records, per JSON pointer, the variables that were unset and had
// no default, so a required value left empty can name the variable, and
// the values the set ones gave, so an error never repeats them.
type expansion struct {
	lookup LookupFunc
	unset  map[string][]string
	values map[string]string // variable name -> the value it expanded to
}

// expandTree replaces ${VAR} and ${VAR:-default} in every string value of a
// parsed JSON tree. Expanding after parsing means a variable's value is
// always a string and can never inject JSON structure. Object keys are left
// alone.
func (x *expansion) expandTree(v any, path string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = x.expandTree(e, path+pointer(k))
		}
	case []any:
		for i, e := range t {
			t[i] = x.expandTree(e, path+"/"+strconv.Itoa(i))
		}
	case string:
		out, unset := expandString(t, x.remember)
		if len(unset) > 0 {
			x.unset[path] = unset
		}
		return out
	}
	return v
}

// remember is lookup noting each value a variable gave.
func (x *expansion) remember(name string) (string, bool) {
	val, ok := x.lookup(name)
	if ok && val != "" {
		if x.values == nil {
			x.values = map[string]string{}
		}
		x.values[name] = val
	}
	return val, ok
}

// minHiddenValue is the shortest variable value an error hides: a port
// or a "1" is no secret, and hiding it would garble the message.
const minHiddenValue = 4

// hideValues takes the value of every variable out of the errors' text:
// a variable is where a secret lives (an auth key, an API key), and the
// error reaches the terminal and, on a reload, the log. A value that
// failed validation (an API key put in the role) was quoted whole in
// both (the attack pass).
func (x *expansion) hideValues(errs Errors) {
	for name, val := range x.values {
		if len([]rune(val)) < minHiddenValue {
			continue
		}
		quoted := strconv.Quote(val)
		shown := "<the value of ${" + name + "}>"
		for _, e := range errs {
			for _, text := range []*string{&e.Problem, &e.Fix} {
				*text = strings.ReplaceAll(*text, quoted, shown)
				*text = strings.ReplaceAll(*text, quoted[1:len(quoted)-1], shown)
				*text = strings.ReplaceAll(*text, val, shown)
			}
		}
	}
}

// expandString expands one value. "$${" is a literal "${". A "${" that does
// not form a valid reference is kept as written.
func expandString(s string, lookup LookupFunc) (string, []string) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	var unset []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), unset
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i-1])
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String(), unset
		}
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validVarName(name) {
			b.WriteString(s[:i+end+1])
			s = s[i+end+1:]
			continue
		}
		b.WriteString(s[:i])
		val, ok := lookup(name)
		switch {
		case ok && val != "":
			b.WriteString(val)
		case hasDef:
			b.WriteString(def)
		case !ok:
			unset = append(unset, name)
		}
		s = s[i+end+1:]
	}
}

func validVarName(n string) bool {
	if n == "" {
		return false
	}
	for i, r := range n {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

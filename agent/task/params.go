package task

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/aoi-protocol/aoi/config"
)

// maxParamLen bounds one parameter value.
const maxParamLen = 1024

var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// ParamError is a task_params problem; the core answers it with
// INVALID_PARAMS. Param is empty when the problem is not about one param.
type ParamError struct {
	TaskType string
	Param    string
	Reason   string
	// Field is the request field at fault when it is not task_params.Param
	// (e.g. "ref").
	Field string
}

func (e *ParamError) Error() string {
	switch {
	case e.Field != "":
		return fmt.Sprintf("%s: %s", e.Field, e.Reason)
	case e.Param == "":
		return fmt.Sprintf("task %s: %s", e.TaskType, e.Reason)
	}
	return fmt.Sprintf("task_params.%s: %s", e.Param, e.Reason)
}

// UnknownTaskTypeError is a request for a task type this agent does not
// configure; the core answers it with INVALID_PARAMS.
type UnknownTaskTypeError struct {
	TaskType string
	Known    []string // sorted
}

func (e *UnknownTaskTypeError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("task_type %q is not configured here; this agent offers no tasks", e.TaskType)
	}
	return fmt.Sprintf("task_type %q is not configured here (available: %s)", e.TaskType, strings.Join(e.Known, ", "))
}

// LookupTaskType returns the configured task type called name.
func LookupTaskType(tasks map[string]config.TaskType, name string) (config.TaskType, error) {
	if tt, ok := tasks[name]; ok {
		return tt, nil
	}
	known := make([]string, 0, len(tasks))
	for k := range tasks {
		known = append(known, k)
	}
	sort.Strings(known)
	return config.TaskType{}, &UnknownTaskTypeError{TaskType: name, Known: known}
}

// Resolve validates the requested params of task type name against its
// declaration and fills the command's {{placeholders}}. Only declared
// params are accepted; each value is checked (pattern anchored, enum, no
// leading "-" unless the pattern starts with one, no "..", no control
// characters) and defaults fill the rest. Each command element stays one
// argv element; one that is exactly a placeholder whose value is empty is
// dropped. For an mcp_tool task argv is nil (see FillArguments).
func Resolve(name string, tt config.TaskType, params map[string]any) (argv []string, resolved map[string]string, err error) {
	resolved, err = resolveValues(name, tt, params)
	if err != nil {
		return nil, nil, err
	}
	if len(tt.Command) == 0 {
		return nil, resolved, nil
	}
	if placeholderRE.MatchString(tt.Command[0]) {
		return nil, nil, &ParamError{TaskType: name, Reason: "the program to run cannot come from a parameter; fix command[0] in the task's config"}
	}
	scripts := config.ScriptElements(tt.Command)
	for i, arg := range tt.Command {
		if m := placeholderRE.FindStringSubmatch(arg); m != nil && m[0] == arg && resolved[m[1]] == "" {
			continue
		}
		if scripts[i] {
			if err := checkScriptValues(name, arg, resolved); err != nil {
				return nil, nil, err
			}
		}
		out, err := fill(name, arg, resolved)
		if err != nil {
			return nil, nil, err
		}
		argv = append(argv, out)
	}
	return argv, resolved, nil
}

// fill substitutes placeholders in one string, in a single pass (a value
// containing "{{x}}" is not expanded again).
func fill(name, s string, values map[string]string) (string, error) {
	var missing string
	out := placeholderRE.ReplaceAllStringFunc(s, func(ph string) string {
		key := placeholderRE.FindStringSubmatch(ph)[1]
		v, ok := values[key]
		if !ok {
			missing = key
		}
		return v
	})
	if missing != "" {
		return "", &ParamError{TaskType: name, Param: missing, Reason: "is used in the command but not declared in params; fix the task's config"}
	}
	return out, nil
}

// FillArguments returns a copy of an mcp_tool task's arguments with the
// placeholders in every string replaced by resolved values.
func FillArguments(name string, args map[string]any, resolved map[string]string) (map[string]any, error) {
	v, err := fillAny(name, args, resolved)
	if err != nil {
		return nil, err
	}
	out, _ := v.(map[string]any)
	return out, nil
}

func fillAny(name string, v any, values map[string]string) (any, error) {
	switch t := v.(type) {
	case string:
		return fill(name, t, values)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			f, err := fillAny(name, e, values)
			if err != nil {
				return nil, err
			}
			out[k] = f
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			f, err := fillAny(name, e, values)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	}
	return v, nil
}

func resolveValues(name string, tt config.TaskType, params map[string]any) (map[string]string, error) {
	for _, k := range sortedKeys(params) {
		if _, ok := tt.Params[k]; !ok {
			return nil, &ParamError{TaskType: name, Param: k, Reason: notDeclared(name, tt)}
		}
	}
	resolved := make(map[string]string, len(tt.Params))
	for _, k := range sortedKeys(tt.Params) {
		decl := tt.Params[k]
		raw, given := params[k]
		// An empty value counts as none: it takes the default, and it
		// does not fill a required parameter (a placeholder left empty
		// drops its argument, which changes what the command does).
		if !given || raw == nil || raw == "" {
			if decl.Default == "" && decl.Required {
				return nil, &ParamError{TaskType: name, Param: k, Reason: "is required" + hint(decl) + "; an empty value counts as none"}
			}
			resolved[k] = decl.Default // owner-written, checked by config
			continue
		}
		v, err := paramString(raw)
		if err != nil {
			return nil, &ParamError{TaskType: name, Param: k, Reason: err.Error()}
		}
		if reason := checkValue(v, decl); reason != "" {
			return nil, &ParamError{TaskType: name, Param: k, Reason: reason}
		}
		resolved[k] = v
	}
	return resolved, nil
}

func notDeclared(name string, tt config.TaskType) string {
	if len(tt.Params) == 0 {
		return fmt.Sprintf("not a parameter of %s (it takes none)", name)
	}
	return fmt.Sprintf("not a parameter of %s (declared: %s)", name, strings.Join(sortedKeys(tt.Params), ", "))
}

// paramString accepts strings, and numbers and booleans written out.
func paramString(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return t, nil
	case bool:
		return strconv.FormatBool(t), nil
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), nil
	case json.Number:
		return t.String(), nil
	case int:
		return strconv.Itoa(t), nil
	case int64:
		return strconv.FormatInt(t, 10), nil
	}
	return "", fmt.Errorf("must be a string, number or boolean, not %T", v)
}

// checkValue returns why a requested value is refused, or "".
func checkValue(v string, decl config.Param) string {
	switch {
	case len(v) > maxParamLen:
		return fmt.Sprintf("is %d bytes; the limit is %d", len(v), maxParamLen)
	case strings.ContainsFunc(v, isControl):
		return "contains a control character (NUL, newline, …)"
	}
	if len(decl.Enum) > 0 {
		for _, e := range decl.Enum {
			if v == e {
				return "" // the owner listed this exact value
			}
		}
		return fmt.Sprintf("%q is not one of %s", v, strings.Join(decl.Enum, ", "))
	}
	if hasDotDot(v) {
		return `contains a ".." path segment; ask for a path inside the repository`
	}
	if decl.Type == config.ParamTypePath && filepath.IsAbs(v) {
		return "is an absolute path; give a path relative to the repository"
	}
	if strings.HasPrefix(v, "-") && !patternAllowsDash(decl.Pattern) {
		return fmt.Sprintf("%q starts with \"-\" and would be read as an option; it is not allowed here", v)
	}
	if decl.Pattern != "" {
		re, err := regexp.Compile(`^(?:` + decl.Pattern + `)$`)
		if err != nil {
			return "cannot be checked: the param's pattern in the config is invalid"
		}
		if !re.MatchString(v) {
			return fmt.Sprintf("%q does not match %s", v, decl.Pattern)
		}
	}
	return ""
}

// patternAllowsDash reports whether the owner's pattern explicitly starts
// values with "-" (e.g. "^-run=[A-Za-z]+$").
func patternAllowsDash(p string) bool {
	p = strings.TrimPrefix(p, "^")
	return strings.HasPrefix(p, "-") || strings.HasPrefix(p, `\-`)
}

func hasDotDot(v string) bool {
	for _, seg := range strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func hint(p config.Param) string {
	switch {
	case len(p.Enum) > 0:
		return "; one of " + strings.Join(p.Enum, ", ")
	case p.Pattern != "":
		return "; it must match " + p.Pattern
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package mcpbridge

import (
	"context"
	"fmt"
	"regexp"
)

// placeholder matches {{name}} the way task commands do.
var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// RunTool runs an mcp_tool task: tool and arguments are the task type's
// config (never a peer's), params its already-validated parameters. Every
// {{param}} in a string inside arguments (at any depth; keys are left
// alone) is replaced by its value in one pass, so a value that itself looks
// like "{{x}}" is not expanded again. A placeholder with no param is a
// config error and nothing is called.
func (b *Bridge) RunTool(ctx context.Context, tool string, arguments map[string]any, params map[string]string) (Result, error) {
	filled, err := FillArguments(arguments, params)
	if err != nil {
		return Result{}, fmt.Errorf("mcp_tool %s: %w", tool, err)
	}
	return b.CallTool(ctx, tool, filled)
}

// FillArguments returns a deep copy of arguments with the {{placeholders}}
// in its strings filled from params.
func FillArguments(arguments map[string]any, params map[string]string) (map[string]any, error) {
	out, err := fillValue(arguments, params)
	if err != nil {
		return nil, err
	}
	m, _ := out.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

func fillValue(v any, params map[string]string) (any, error) {
	switch t := v.(type) {
	case string:
		return fillString(t, params)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			f, err := fillValue(e, params)
			if err != nil {
				return nil, err
			}
			out[k] = f
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			f, err := fillValue(e, params)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	}
	return v, nil
}

func fillString(s string, params map[string]string) (string, error) {
	var missing string
	out := placeholder.ReplaceAllStringFunc(s, func(ph string) string {
		name := placeholder.FindStringSubmatch(ph)[1]
		v, ok := params[name]
		if !ok && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("the arguments use {{%s}} but the task has no such param; declare it under the task's params", missing)
	}
	return out, nil
}

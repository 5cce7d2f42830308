package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// maxShownProblems bounds how many schema problems one error lists.
const maxShownProblems = 3

// validator checks tool arguments against each tool's published input
// schema and explains a failure in a sentence a model can act on (the
// library's own check reports Go structs such as "&{Missing:[to]}").
type validator struct {
	schemas map[string]*jsonschema.Schema
	props   map[string][]string // tool → its argument names, for hints
}

// newValidator compiles the input schema of every tool. The schemas are
// ours, so a compile failure is a programming error.
func newValidator(tools []server.ServerTool) *validator {
	v := &validator{schemas: map[string]*jsonschema.Schema{}, props: map[string][]string{}}
	c := jsonschema.NewCompiler()
	for _, t := range tools {
		raw, err := json.Marshal(t.Tool.InputSchema)
		if err != nil {
			panic(fmt.Sprintf("tool %s: schema does not encode: %v", t.Tool.Name, err))
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			panic(fmt.Sprintf("tool %s: schema does not decode: %v", t.Tool.Name, err))
		}
		url := "mem:///" + t.Tool.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.Tool.Name, err))
		}
		if v.schemas[t.Tool.Name], err = c.Compile(url); err != nil {
			panic(fmt.Sprintf("tool %s: schema does not compile: %v", t.Tool.Name, err))
		}
		for name := range t.Tool.InputSchema.Properties {
			v.props[t.Tool.Name] = append(v.props[t.Tool.Name], name)
		}
		slices.Sort(v.props[t.Tool.Name])
	}
	return v
}

// middleware refuses calls whose arguments break the schema, as tool errors.
func (v *validator) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if msg := v.check(req.Params.Name, req.Params.Arguments); msg != "" {
			return mcp.NewToolResultError(msg), nil
		}
		return next(ctx, req)
	}
}

// check returns why args do not fit tool's schema, or "".
func (v *validator) check(tool string, args any) string {
	s, ok := v.schemas[tool]
	if !ok {
		return ""
	}
	if raw, isRaw := args.(json.RawMessage); isRaw {
		args = raw
	} else if args == nil {
		args = map[string]any{}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return tool + " arguments could not be read as JSON"
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return tool + " arguments are not valid JSON"
	}
	err = s.Validate(inst)
	var verr *jsonschema.ValidationError
	if err == nil || !errors.As(err, &verr) {
		return ""
	}
	var msgs []string
	for _, leaf := range leaves(verr) {
		if m := v.explain(tool, leaf); !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) > maxShownProblems {
		msgs = msgs[:maxShownProblems]
	}
	return strings.Join(msgs, "; ") + "."
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// explain turns one schema violation into words.
func (v *validator) explain(tool string, e *jsonschema.ValidationError) string {
	at := strings.Join(e.InstanceLocation, "/")
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return fmt.Sprintf("%s needs %q; add it and call again", tool, k.Missing[0])
	case *kind.AdditionalProperties:
		return fmt.Sprintf("%s does not take %q; its arguments are %s", tool, k.Properties[0], strings.Join(v.props[tool], ", "))
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonTypeName(w)
		}
		return fmt.Sprintf("%q must be %s, not %s", at, strings.Join(want, " or "), jsonTypeName(k.Got))
	case *kind.MaxLength:
		return fmt.Sprintf("%q is %d characters; shorten it to at most %d", at, k.Got, k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("%q is empty; give a value", at)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		return fmt.Sprintf("%q must be one of %s", at, strings.Join(want, ", "))
	case *kind.Minimum:
		return fmt.Sprintf("%q must be at least %s", at, k.Want.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("%q must be at most %s", at, k.Want.RatString())
	case *kind.MaxItems:
		return fmt.Sprintf("%q has %d entries; give at most %d", at, k.Got, k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("%q must match %s", at, k.Want)
	}
	return fmt.Sprintf("%q is not valid: %v", at, e.ErrorKind)
}

// jsonTypeName names a JSON Schema type the way a model would read it.
func jsonTypeName(t string) string {
	switch t {
	case "integer":
		return "a whole number"
	case "number":
		return "a number"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "string":
		return "a string"
	case "boolean":
		return "true or false"
	}
	return t
}

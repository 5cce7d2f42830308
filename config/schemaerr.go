package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/aoi-protocol/aoi/internal/suggest"
)

// collector turns one validation's error tree into Errors; it keeps the
// instance for the few errors whose location must be looked up.
type collector struct {
	*schemaDoc
	instance any
}

// validateSchema checks the expanded tree against the embedded schema and
// turns every failure into an *Error with a path and a fix.
func validateSchema(tree any) Errors {
	doc, err := compiled()
	if err != nil {
		return Errors{{Problem: "the built-in schema does not compile: " + err.Error(), Fix: "report this as a bug"}}
	}
	err = doc.schema.Validate(tree)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Errors{{Problem: err.Error(), Fix: "report this as a bug"}}
	}
	var out Errors
	c := &collector{schemaDoc: doc, instance: tree}
	c.collect(ve, &out)
	return dedupe(out)
}

// collect walks the error tree down to the failures a person can fix.
func (d *collector) collect(ve *jsonschema.ValidationError, out *Errors) {
	switch k := ve.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		*out = append(*out, d.alternatives(ve))
		return
	case *kind.AdditionalProperties:
		*out = append(*out, d.unknownKeys(ve, k)...)
		return
	case *kind.PropertyNames:
		fix := "use lower-case letters, digits, '_', '.' or '-', starting with a letter or digit"
		if strings.Contains(ve.SchemaURL, "/params") {
			fix = "use letters, digits and '_', starting with a letter or '_' (it is written as {{name}})"
		}
		*out = append(*out, &Error{
			Path:    d.propertyNamePath(ve, k.Property),
			Problem: fmt.Sprintf("name %q is not allowed", k.Property),
			Fix:     fix,
		})
		return
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, &Error{
				Path:    pointer(append(ve.InstanceLocation, m)...),
				Problem: "is missing",
				Fix:     "add it" + d.hint(ve.SchemaURL, "properties", m),
			})
		}
		return
	}
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			d.collect(c, out)
		}
		return
	}
	*out = append(*out, d.leaf(ve))
}

// propertyNamePath locates a rejected property name. The validator's
// InstanceLocation for propertyNames errors aliases a buffer it keeps
// reusing (jsonschema v6.0.3), so the name is looked up in the instance
// under the key whose propertyNames rejected it ("tasks", "params").
func (d *collector) propertyNamePath(ve *jsonschema.ValidationError, prop string) string {
	_, frag, _ := strings.Cut(strings.TrimSuffix(ve.SchemaURL, "/propertyNames"), "#")
	parent := frag[strings.LastIndexByte(frag, '/')+1:]
	if p, ok := findKey(d.instance, "", parent, prop); ok {
		return p
	}
	return pointer(prop)
}

// findKey finds, depth first in key order, an object stored under the key
// parent that has the key prop, and returns prop's JSON pointer.
func findKey(v any, at, parent, prop string) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		child := at + pointer(k)
		if inner, ok := m[k].(map[string]any); ok && k == parent {
			if _, has := inner[prop]; has {
				return child + pointer(prop), true
			}
		}
		if p, ok := findKey(m[k], child, parent, prop); ok {
			return p, true
		}
	}
	return "", false
}

// alternatives explains a value that fits none of several allowed forms.
func (d *schemaDoc) alternatives(ve *jsonschema.ValidationError) *Error {
	var missing []string
	for _, c := range ve.Causes {
		r, ok := c.ErrorKind.(*kind.Required)
		if !ok {
			missing = nil
			break
		}
		missing = append(missing, r.Missing...)
	}
	if len(missing) > 0 {
		return &Error{
			Path:    pointer(ve.InstanceLocation...),
			Problem: "needs one of " + strings.Join(missing, ", "),
			Fix:     "add at least one of them",
		}
	}
	return &Error{
		Path:    pointer(ve.InstanceLocation...),
		Problem: "does not have any of the allowed forms",
		Fix:     "use " + d.description(ve.SchemaURL),
	}
}

// unknownKeys reports keys the schema does not know, suggesting the closest.
func (d *schemaDoc) unknownKeys(ve *jsonschema.ValidationError, k *kind.AdditionalProperties) Errors {
	valid := d.propertyNames(ve.SchemaURL)
	var out Errors
	for _, p := range k.Properties {
		e := &Error{Path: pointer(append(ve.InstanceLocation, p)...), Problem: fmt.Sprintf("unknown key %q", p)}
		if s := suggest.Typo(p, valid); s != "" {
			e.Fix = fmt.Sprintf("did you mean %q?", s)
		} else if len(valid) > 0 {
			e.Fix = "remove it; valid keys here are " + strings.Join(valid, ", ")
		} else {
			e.Fix = "remove it"
		}
		out = append(out, e)
	}
	return out
}

// leaf turns one keyword failure into a sentence and a fix.
func (d *schemaDoc) leaf(ve *jsonschema.ValidationError) *Error {
	e := &Error{Path: pointer(ve.InstanceLocation...)}
	desc := d.description(ve.SchemaURL)
	switch k := ve.ErrorKind.(type) {
	case *kind.Type:
		e.Problem = fmt.Sprintf("is %s, but must be %s", article(k.Got), orList(k.Want))
		e.Fix = "write it as " + article(k.Want[0])
	case *kind.Enum:
		e.Problem = fmt.Sprintf("%s is not one of %s", show(k.Got), enumList(k.Want))
		e.Fix = "use one of them"
	case *kind.Const:
		e.Problem = fmt.Sprintf("%s is not %s", show(k.Got), show(k.Want))
		e.Fix = "use " + show(k.Want)
	case *kind.Pattern:
		if k.Got == "" {
			e.Problem = "is empty"
		} else {
			e.Problem = fmt.Sprintf("%q is not valid", k.Got)
		}
		e.Fix = orDefault(desc, "match the pattern "+k.Want)
	case *kind.MinLength:
		e.Problem = "is empty"
		if k.Got > 0 {
			e.Problem = fmt.Sprintf("is shorter than %d characters", k.Want)
		}
		e.Fix = orDefault(desc, "give it a value")
	case *kind.MaxLength:
		e.Problem = fmt.Sprintf("is longer than %d characters", k.Want)
		e.Fix = "shorten it"
	case *kind.Minimum:
		e.Problem = fmt.Sprintf("%s is less than %s", rat(k.Got), rat(k.Want))
		e.Fix = d.rangeFix(ve.SchemaURL)
	case *kind.Maximum:
		e.Problem = fmt.Sprintf("%s is more than %s", rat(k.Got), rat(k.Want))
		e.Fix = d.rangeFix(ve.SchemaURL)
	case *kind.ExclusiveMinimum:
		e.Problem = fmt.Sprintf("%s must be more than %s", rat(k.Got), rat(k.Want))
		e.Fix = "use a larger number"
	case *kind.MinItems:
		e.Problem = fmt.Sprintf("has %d items, needs at least %d", k.Got, k.Want)
		e.Fix = orDefault(desc, "add items")
	case *kind.MaxItems:
		e.Problem = fmt.Sprintf("has %d items, allows at most %d", k.Got, k.Want)
		e.Fix = orDefault(desc, "remove items")
	case *kind.Format:
		e.Problem = fmt.Sprintf("%s is not a valid %s", show(k.Got), k.Want)
		e.Fix = orDefault(desc, "write a valid "+k.Want)
	default:
		e.Problem = ve.ErrorKind.LocalizedString(nil)
		e.Fix = orDefault(desc, "see config/aoi.schema.json")
	}
	return e
}

// node resolves a schema location (URL#pointer) in the raw schema document.
func (d *schemaDoc) node(loc string) map[string]any {
	_, frag, _ := strings.Cut(loc, "#")
	var cur any = d.raw
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

// parentOf strips the keyword from a keyword location like …/x/pattern.
func parentOf(loc string) string {
	if i := strings.LastIndexByte(loc, '/'); i > strings.IndexByte(loc, '#') {
		return loc[:i]
	}
	return loc
}

func (d *schemaDoc) description(loc string) string {
	for _, l := range []string{loc, parentOf(loc)} {
		if s, ok := d.node(l)["description"].(string); ok {
			return s
		}
	}
	return ""
}

func (d *schemaDoc) propertyNames(loc string) []string {
	for _, l := range []string{loc, parentOf(loc)} {
		if props, ok := d.node(l)["properties"].(map[string]any); ok {
			names := make([]string, 0, len(props))
			for n := range props {
				names = append(names, n)
			}
			sort.Strings(names)
			return names
		}
	}
	return nil
}

// hint is ": <description>" of a named property, or "".
func (d *schemaDoc) hint(loc, kw, name string) string {
	for _, l := range []string{loc, parentOf(loc)} {
		props, _ := d.node(l)[kw].(map[string]any)
		if p, ok := props[name].(map[string]any); ok {
			if s, ok := p["description"].(string); ok {
				return " (" + s + ")"
			}
			return ""
		}
	}
	return ""
}

func (d *schemaDoc) rangeFix(loc string) string {
	n := d.node(loc)
	if _, ok := n["type"]; !ok {
		n = d.node(parentOf(loc))
	}
	lo, hasLo := n["minimum"]
	hi, hasHi := n["maximum"]
	switch {
	case hasLo && hasHi:
		return fmt.Sprintf("use a value from %v to %v", lo, hi)
	case hasLo:
		return fmt.Sprintf("use %v or more", lo)
	case hasHi:
		return fmt.Sprintf("use %v or less", hi)
	}
	return "use a value in range"
}

func dedupe(errs Errors) Errors {
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		k := e.Path + "\x00" + e.Problem
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func enumList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		if s, ok := v.(string); ok && s != "" {
			parts[i] = s
		} else {
			parts[i] = show(v)
		}
	}
	return strings.Join(parts, ", ")
}

func orList(ws []string) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = article(w)
	}
	return strings.Join(parts, " or ")
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		if t == "integer" {
			return "an integer"
		}
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func rat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// orDefault turns a schema description into a fix ("expected: …"), or
// returns def when there is none.
func orDefault(desc, def string) string {
	if desc == "" {
		return def
	}
	return "expected: " + strings.TrimSuffix(desc, ".")
}

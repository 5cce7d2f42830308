package config

import (
	"fmt"
	"strings"
)

// Error is one problem in a configuration file.
type Error struct {
	File    string // file name as given to Load ("" when parsed from memory)
	Path    string // JSON pointer of the offending value, e.g. /acl/rules/2/permission
	Line    int    // set for syntax errors, where there is no JSON path yet
	Column  int
	Problem string // what is wrong
	Fix     string // what to do about it
}

// Error renders "file: /path: problem — fix".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", e.Line, e.Column)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	} else if e.Line == 0 {
		b.WriteString("/: ")
	}
	b.WriteString(e.Problem)
	if e.Fix != "" {
		b.WriteString(" — ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Errors is every problem found in one file, in path order.
type Errors []*Error

// Error renders one line per problem.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the individual errors to errors.As / errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// pointer joins JSON-pointer tokens, escaping ~ and / per RFC 6901.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

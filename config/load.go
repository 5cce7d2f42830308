package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// maxFileBytes bounds the config file; a real one is a few kilobytes.
const maxFileBytes = 4 << 20

// Load reads, expands, validates and completes the config file at path.
// Environment variables come from the process environment. On failure the
// error is Errors, listing every problem found, or an *os.PathError-wrapping
// error when the file cannot be read.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w (create one with `aoi init` or set AOI_CONFIG_PATH)", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if len(data) > maxFileBytes {
		return nil, Errors{{File: path, Problem: "file is larger than 4 MiB", Fix: "this is not an aoi config file; check the path"}}
	}
	// Errors name the file as it was given (the data dir's, or the one
	// named): "config.json:" alone left the reader to guess which one.
	c, err := Parse(path, data, os.LookupEnv)
	var errs Errors
	if errors.As(err, &errs) {
		placeErrors(errs, data)
	}
	return c, err
}

// Parse is Load for bytes already in memory. name labels errors (usually the
// file's base name); lookup resolves ${VAR} references.
func Parse(name string, data []byte, lookup LookupFunc) (*Config, error) {
	tree, err := decodeTree(data)
	if err != nil {
		return nil, label(name, Errors{err})
	}
	x := &expansion{lookup: lookup, unset: map[string][]string{}}
	tree = x.expandTree(tree, "")
	errs := validateSchema(tree)
	// Semantic checks run even after schema errors whenever the values still
	// decode, so one run reports everything; when they do not decode, the
	// schema errors already say why.
	c, decodeErrs := decodeConfig(tree)
	switch {
	case len(decodeErrs) == 0:
		errs = dedupe(append(errs, check(c)...))
	case len(errs) == 0:
		errs = decodeErrs
	}
	if len(errs) > 0 {
		x.annotate(errs)
		x.hideValues(errs)
		sortErrors(errs)
		return nil, label(name, errs)
	}
	applyDefaults(c, tree)
	return c, nil
}

// decodeTree parses JSON into generic values, reporting syntax errors with
// their line and column.
func decodeTree(data []byte) (any, *Error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		off := dec.InputOffset()
		if _, e := dec.Token(); e != io.EOF {
			for off < int64(len(data)) && strings.ContainsRune(" \t\r\n", rune(data[off])) {
				off++
			}
			line, col := lineCol(data, off)
			return nil, &Error{Line: line, Column: col, Problem: "unexpected data after the top-level object", Fix: "remove it or merge it into the object"}
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, &Error{Path: "", Problem: "the file is not a JSON object", Fix: "start from the example `aoi config show --example` prints"}
		}
		return v, nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := lineCol(data, syn.Offset)
		return nil, &Error{Line: line, Column: col, Problem: "invalid JSON: " + syn.Error(), Fix: "fix the syntax there (comments and trailing commas are not allowed)"}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		line, col := lineCol(data, int64(len(data)))
		return nil, &Error{Line: line, Column: col, Problem: "invalid JSON: the file ends early", Fix: "close every { and [ and finish the last value"}
	}
	return nil, &Error{Problem: "invalid JSON: " + err.Error(), Fix: "fix the syntax"}
}

// lineCol converts a byte offset to 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// decodeConfig turns the validated tree into typed values. The schema has
// already checked shapes, so a failure here is reported at the root.
func decodeConfig(tree any) (*Config, Errors) {
	b, err := json.Marshal(tree)
	if err != nil {
		return nil, Errors{{Problem: "cannot re-encode config: " + err.Error(), Fix: "report this as a bug"}}
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, Errors{{Path: "/" + dotToPointer(te.Field), Problem: fmt.Sprintf("is a %s, but must be a %s", te.Value, te.Type), Fix: "change the value's type"}}
		}
		return nil, Errors{{Problem: err.Error(), Fix: "fix the value it names"}}
	}
	return &c, nil
}

func label(name string, errs Errors) Errors {
	for _, e := range errs {
		e.File = name
	}
	return errs
}

func sortErrors(errs Errors) {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Path < errs[j].Path })
}

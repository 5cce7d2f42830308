package config

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// placeErrors gives each error that names a JSON path and no line the line and
// column in data where that path's key (or array element) starts, so an
// error reads "config.json:14:9: /acl/rules/2/permission: …" and an editor
// can jump there. A path the file does not hold (a required key left out)
// takes the place of the nearest enclosing one it does hold.
func placeErrors(errs Errors, data []byte) {
	var pos map[string]int64
	for _, e := range errs {
		if !strings.HasPrefix(e.Path, "/") || e.Line > 0 {
			continue
		}
		if pos == nil {
			pos = pointerOffsets(data)
		}
		for p := e.Path; p != ""; p = p[:strings.LastIndexByte(p, '/')] {
			if off, ok := pos[p]; ok {
				e.Line, e.Column = lineCol(data, off)
				break
			}
		}
	}
}

// pointerOffsets maps the JSON pointer of every member and element in data
// to the byte offset where it starts: an object member at its key, an
// array element at its value. data has already decoded as JSON.
func pointerOffsets(data []byte) map[string]int64 {
	type frame struct {
		ptr     string
		array   bool
		n       int    // elements seen (arrays)
		wantKey bool   // objects: the next string is a key
		member  string // objects: the pointer of the key just read
	}
	pos := map[string]int64{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	for {
		start := skipSeparators(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return pos
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		ptr := ""
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			switch {
			case !top.array && top.wantKey:
				key, _ := tok.(string)
				top.member, top.wantKey = top.ptr+pointer(key), false
				pos[top.member] = start
				continue
			case top.array:
				ptr = top.ptr + "/" + strconv.Itoa(top.n)
				top.n++
				pos[ptr] = start
			default:
				ptr, top.wantKey = top.member, true
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{ptr: ptr, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{ptr: ptr, array: true})
		}
	}
}

// skipSeparators moves off past the whitespace, commas and colons that
// json.Decoder leaves before the next token.
func skipSeparators(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

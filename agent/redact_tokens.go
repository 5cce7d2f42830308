package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/aoi-protocol/aoi/agent/redact"
)

// redactTokens walks a JSON body token by token and re-encodes it with
// every string redacted, object keys included, and every member kept in
// its place: decoding into a map would drop a duplicate key (and the
// secret in it would stay in the stored bytes) and never look at keys.
// found says whether anything was redacted; ok is false when the body is
// not one JSON value.
func redactTokens(red *redact.Redactor, body []byte) (out []byte, found, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var b bytes.Buffer
	// Per open container: whether it is an object, and how many tokens
	// (keys and values) it has had, which places the commas and colons.
	type level struct {
		object bool
		n      int
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, false
		}
		if len(stack) == 0 && b.Len() > 0 {
			return nil, false, false // a second value after the first: not one document
		}
		if d, isDelim := tok.(json.Delim); isDelim && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			b.WriteByte(byte(d))
			continue
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 1:
				b.WriteByte(':')
			case top.n > 0:
				b.WriteByte(',')
			}
			top.n++
		}
		switch v := tok.(type) {
		case json.Delim:
			b.WriteByte(byte(v))
			stack = append(stack, level{object: v == '{'})
		case string:
			s, findings := red.Shown(v)
			found = found || len(findings) > 0
			enc, _ := json.Marshal(s)
			b.Write(enc)
		case json.Number:
			b.WriteString(string(v))
		default: // bool, nil
			enc, _ := json.Marshal(v)
			b.Write(enc)
		}
	}
	return b.Bytes(), found, len(stack) == 0
}

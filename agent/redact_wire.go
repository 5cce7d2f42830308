package agent

import (
	"bytes"
	"encoding/json"
)

// redactBody removes secrets from a peer's request body before anything
// reads it, so no peer-supplied string — query text, notify data, task
// params, the JSON-RPC id or method, what the audit log records — is
// stored or logged with a secret in it (design §4).
func (c *Core) redactBody(body []byte) []byte {
	red, err := c.redactorFor()
	if err != nil {
		c.log.Error("redactor unavailable; peer request bodies are not redacted", "component", "core", "err", err)
		return body
	}
	out, findings := red.Redact(string(body))
	if len(findings) == 0 {
		return body
	}
	if json.Valid([]byte(out)) {
		return []byte(out)
	}
	// A match ran across JSON syntax (quotes, escapes): redact string by
	// string instead, which always keeps the document valid.
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []byte(out) // not JSON at all: the parse error follows either way
	}
	b, err := json.Marshal(red.Value(v))
	if err != nil {
		return []byte(out)
	}
	return b
}

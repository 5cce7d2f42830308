package agent

import (
	"bytes"
	"encoding/json"

	"github.com/aoi-protocol/aoi/agent/redact"
	"github.com/aoi-protocol/aoi/internal/termtext"
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
	return redactWireBody(red, body)
}

// redactWireBody is redactBody with the redactor given.
func redactWireBody(red *redact.Redactor, body []byte) []byte {
	out, findings := red.Redact(string(body))
	hiding := termtext.HasHidden(body) // raw invisible marks or C1 controls split text too
	if len(findings) == 0 && bytes.IndexByte(body, '\\') < 0 && !hiding {
		return body // the common case: nothing found, nothing hidden
	}
	redacted := []byte(out)
	if len(findings) > 0 && !json.Valid(redacted) {
		// A match ran across JSON syntax (quotes, escapes): redact string
		// by string instead, which always keeps the document valid. Not
		// JSON at all, the redacted text goes on to its parse error.
		if b, ok := redactDecoded(red, body, true); ok {
			redacted = b
		}
	}
	if bytes.IndexByte(redacted, '\\') >= 0 || hiding {
		// Escapes hide text from the pass over the raw bytes: "\u003c"
		// for "<" (Go's encoder writes it), or a whole secret written as
		// \uXXXX; so does a secret split by an escape sequence or an
		// invisible mark, which the display drops. Decoded, every string
		// is looked at as it will be stored and as it will be shown.
		if b, ok := redactDecoded(red, redacted, false); ok {
			redacted = b
		}
	}
	return redacted
}

// redactDecoded redacts every string of a JSON body, keys included, as
// it decodes (redactTokens). ok is false when the body is not JSON, or
// (always false) when no string held a secret: body stands as it is.
func redactDecoded(red *redact.Redactor, body []byte, always bool) ([]byte, bool) {
	out, found, ok := redactTokens(red, body)
	if !ok || !found && !always {
		return nil, false
	}
	return out, true
}

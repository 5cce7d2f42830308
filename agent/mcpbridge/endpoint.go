package mcpbridge

import (
	"fmt"
	"net/url"
	"strings"
)

// Endpoint kinds.
const (
	kindStdio = "stdio"
	kindHTTP  = "http"
)

// endpoint is a parsed secretary.work_ai.mcp_endpoint.
type endpoint struct {
	kind string
	argv []string // stdio: the server's command line, run without a shell
	url  string   // http: the streamable-HTTP URL
}

// parseEndpoint accepts "stdio:<command> [args…]" (also written
// "stdio:///path/to/server args…") and http(s):// URLs.
func parseEndpoint(s string) (endpoint, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "stdio:"):
		rest := strings.TrimPrefix(strings.TrimPrefix(s, "stdio:"), "//")
		argv, err := splitArgs(rest)
		if err != nil {
			return endpoint{}, fmt.Errorf("mcp_endpoint %q: %v", redactEndpoint(s), err)
		}
		if len(argv) == 0 {
			return endpoint{}, fmt.Errorf(`mcp_endpoint "stdio:" names no command; write "stdio:/path/to/server arg…"`)
		}
		return endpoint{kind: kindStdio, argv: argv}, nil
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"):
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return endpoint{}, fmt.Errorf("mcp_endpoint %q is not a valid URL; write e.g. http://127.0.0.1:3001/mcp", redactEndpoint(s))
		}
		return endpoint{kind: kindHTTP, url: s}, nil
	}
	return endpoint{}, fmt.Errorf(`mcp_endpoint %q is neither "stdio:<command> [args…]" nor an http(s):// URL`, redactEndpoint(s))
}

// String names the endpoint for messages and logs without arguments,
// credentials or query strings, which may carry secrets.
func (e endpoint) String() string {
	if e.kind == kindStdio {
		return "stdio:" + e.argv[0]
	}
	return redactEndpoint(e.url)
}

// redactEndpoint keeps scheme, host and path of a URL, or the program of a
// stdio command line.
func redactEndpoint(s string) string {
	if rest, ok := strings.CutPrefix(s, "stdio:"); ok {
		if f := strings.Fields(strings.TrimPrefix(rest, "//")); len(f) > 0 {
			return "stdio:" + f[0]
		}
		return "stdio:"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}

// splitArgs splits a command line into words the way a reader expects,
// without a shell: whitespace separates, '…' is literal, "…" allows \" and
// \\, and a backslash outside quotes escapes the next character. Nothing is
// expanded.
func splitArgs(s string) ([]string, error) {
	var (
		out   []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\'):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			in = true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

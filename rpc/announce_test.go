package rpc

import (
	"net/http"
	"strings"
	"testing"
)

func TestAnnouncedHeadersAreBoundedClaims(t *testing.T) {
	cases := []struct {
		id, ep         string
		wantID, wantEP string
	}{
		{"eng-suzuki", "100.64.0.7:8443", "eng-suzuki", "100.64.0.7:8443"},
		{"Eng\x1b[2J", "host:1", "", "host:1"},            // control characters and capitals: dropped
		{"../../etc", "[::1]:8443", "", "[::1]:8443"},     // not an id
		{strings.Repeat("a", 64), "no-port", "", ""},      // too long; no port
		{"qa-ito", "h:1\r\nX-Evil: 1", "qa-ito", ""},      // header injection never parses
		{"pm", strings.Repeat("h", 300) + ":1", "pm", ""}, // too long
		// A C1 control and a bidi mark would show one endpoint and store another.
		{"pm", "ev\u009b31mil\u202eoc.x:1", "pm", ""},
		{"pm", "ホスト.example:1", "pm", ""},
	}
	for _, c := range cases {
		r, _ := http.NewRequest(http.MethodPost, "https://x/aoi/v1/rpc", nil)
		r.Header[HeaderAgent] = []string{c.id}
		r.Header[HeaderEndpoint] = []string{c.ep}
		id, ep := announced(r)
		if id != c.wantID || ep != c.wantEP {
			t.Errorf("announced(%q, %q) = %q, %q; want %q, %q", c.id, c.ep, id, ep, c.wantID, c.wantEP)
		}
	}
}

package mcpbridge

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseEndpoint(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind string
		argv []string
		name string
	}{
		{"stdio:///usr/local/bin/work-ai --mcp", kindStdio, []string{"/usr/local/bin/work-ai", "--mcp"}, "stdio:/usr/local/bin/work-ai"},
		{"stdio:node server.js stdio", kindStdio, []string{"node", "server.js", "stdio"}, "stdio:node"},
		{`stdio:'/opt/my ai/server' --token "a b\"c" x\ y`, kindStdio, []string{"/opt/my ai/server", "--token", `a b"c`, "x y"}, "stdio:/opt/my ai/server"},
		{"stdio:prog $HOME `id` ;rm", kindStdio, []string{"prog", "$HOME", "`id`", ";rm"}, "stdio:prog"},
		{"http://127.0.0.1:3001/mcp", kindHTTP, nil, "http://127.0.0.1:3001/mcp"},
		{"https://user:secret@ai.example/mcp?key=k", kindHTTP, nil, "https://ai.example/mcp"},
	} {
		ep, err := parseEndpoint(tc.in)
		if err != nil {
			t.Errorf("parseEndpoint(%q): %v", tc.in, err)
			continue
		}
		if ep.kind != tc.kind || !reflect.DeepEqual(ep.argv, tc.argv) || ep.String() != tc.name {
			t.Errorf("parseEndpoint(%q) = %s %q named %q, want %s %q named %q", tc.in, ep.kind, ep.argv, ep.String(), tc.kind, tc.argv, tc.name)
		}
		if strings.Contains(ep.String(), "secret") || strings.Contains(ep.String(), "key=") || strings.Contains(ep.String(), "--token") {
			t.Errorf("%q leaks credentials into its name %q", tc.in, ep.String())
		}
	}
}

func TestParseEndpointRefuses(t *testing.T) {
	for _, in := range []string{"", "stdio:", "stdio://   ", "stdio:'unterminated", "ftp://x/y", "http://", "/usr/bin/ai", "ws://127.0.0.1/mcp"} {
		if _, err := parseEndpoint(in); err == nil {
			t.Errorf("parseEndpoint(%q) accepted it", in)
		} else if !strings.Contains(err.Error(), "mcp_endpoint") {
			t.Errorf("parseEndpoint(%q) error %q does not name the setting", in, err)
		}
	}
}

func TestFillArguments(t *testing.T) {
	args := map[string]any{
		"suite":   "{{suite}}",
		"label":   "run {{ suite }} for {{who}}",
		"nested":  map[string]any{"list": []any{"{{who}}", 3.0, true, nil}},
		"{{who}}": "keys stay as written",
		"count":   2.0,
	}
	got, err := FillArguments(args, map[string]string{"suite": "./auth/...", "who": "{{suite}}"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"suite":   "./auth/...",
		"label":   "run ./auth/... for {{suite}}", // single pass: a value is never expanded again
		"nested":  map[string]any{"list": []any{"{{suite}}", 3.0, true, nil}},
		"{{who}}": "keys stay as written",
		"count":   2.0,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("FillArguments = %#v\nwant %#v", got, want)
	}
	if args["suite"] != "{{suite}}" {
		t.Fatal("FillArguments changed the config's arguments")
	}
	if _, err := FillArguments(map[string]any{"x": []any{"{{missing}}"}}, nil); err == nil || !strings.Contains(err.Error(), "{{missing}}") {
		t.Fatalf("missing param error = %v, want one naming {{missing}}", err)
	}
	if got, err := FillArguments(nil, nil); err != nil || len(got) != 0 {
		t.Fatalf("FillArguments(nil) = %v, %v; want an empty map", got, err)
	}
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	b, err := New("stdio:true", Options{MinBackoff: 100e6, MaxBackoff: 500e6})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var got []int64
	for n := 1; n <= 5; n++ {
		got = append(got, b.backoff(n).Milliseconds())
	}
	if want := []int64{100, 200, 400, 500, 500}; !reflect.DeepEqual(got, want) {
		t.Fatalf("backoff = %v ms, want %v", got, want)
	}
}

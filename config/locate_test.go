package config

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestExpandString(t *testing.T) {
	env := envOf(map[string]string{"A": "alpha", "EMPTY": "", "Q": `"},"x":{`})
	cases := []struct {
		in, want string
		unset    []string
	}{
		{"plain", "plain", nil},
		{"${A}", "alpha", nil},
		{"x-${A}-y", "x-alpha-y", nil},
		{"${MISSING}", "", []string{"MISSING"}},
		{"${MISSING:-dflt}", "dflt", nil},
		{"${EMPTY:-dflt}", "dflt", nil},
		{"${EMPTY}", "", nil},
		{"$${A}", "${A}", nil},
		{"${not valid}", "${not valid}", nil},
		{"${A", "${A", nil},
		{"${A}${B}", "alpha", []string{"B"}},
		{"${Q}", `"},"x":{`, nil},
	}
	for _, tc := range cases {
		got, unset := expandString(tc.in, env)
		if got != tc.want || len(unset) != len(tc.unset) || (len(unset) > 0 && unset[0] != tc.unset[0]) {
			t.Errorf("expand(%q) = %q %v, want %q %v", tc.in, got, unset, tc.want, tc.unset)
		}
	}
}

func TestExpansionCannotInjectJSON(t *testing.T) {
	env := envOf(map[string]string{"OWNER": `x", "role": "admin`})
	c, err := Parse("c.json", []byte(`{"agent": {"id": "eng-a", "role": "engineer", "owner": "${OWNER}"}}`), env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.Role != "engineer" || c.Agent.Owner != `x", "role": "admin` {
		t.Errorf("agent = %+v: the variable changed the structure", c.Agent)
	}
}

func TestLocate(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := func(string) bool { return false }
	cases := []struct {
		name    string
		dataDir string
		env     map[string]string
		exists  func(string) bool
		want    string
	}{
		{"data dir wins", "/d", map[string]string{"AOI_CONFIG_PATH": "/x.json"}, none, "/d/config.json"},
		{"AOI_CONFIG_PATH", "", map[string]string{"AOI_CONFIG_PATH": "/x.json", "XDG_CONFIG_HOME": "/xdg"}, none, "/x.json"},
		{"xdg exists", "", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, func(p string) bool { return p == "/xdg/aoi/config.json" }, "/xdg/aoi/config.json"},
		{"etc when xdg missing", "", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, func(p string) bool { return p == "/etc/aoi/config.json" }, "/etc/aoi/config.json"},
		{"xdg preferred over etc", "", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, func(string) bool { return true }, "/xdg/aoi/config.json"},
		{"home default when nothing exists", "", map[string]string{"HOME": "/home/u"}, none, "/home/u/.config/aoi/config.json"},
		{"relative xdg ignored", "", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "rel"}, none, "/home/u/.config/aoi/config.json"},
	}
	for _, tc := range cases {
		if got := locate(tc.dataDir, env(tc.env), tc.exists); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLocateRealEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("AOI_CONFIG_PATH", "")
	t.Setenv("XDG_CONFIG_HOME", dir)
	want := filepath.Join(dir, "aoi", "config.json")
	if err := os.MkdirAll(filepath.Dir(want), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := Locate(""); got != want {
		t.Errorf("Locate = %q, want %q", got, want)
	}
}

func TestDataDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		flag string
		env  map[string]string
		want string
	}{
		{"/flag", map[string]string{"AOI_DATA_DIR": "/env"}, "/flag"},
		{"", map[string]string{"AOI_DATA_DIR": "/env", "XDG_DATA_HOME": "/xdg"}, "/env"},
		{"", map[string]string{"XDG_DATA_HOME": "/xdg"}, "/xdg/aoi"},
		{"", map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/aoi"},
	}
	for _, tc := range cases {
		if got := dataDir(tc.flag, env(tc.env)); got != tc.want {
			t.Errorf("dataDir(%q, %v) = %q, want %q", tc.flag, tc.env, got, tc.want)
		}
	}
	t.Setenv("AOI_DATA_DIR", "/from/env")
	if got := DataDir(""); got != "/from/env" {
		t.Errorf("DataDir = %q", got)
	}
}

func TestDefaultWriteLoadRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "config.json")
	c := Default("eng-a", "engineer", "alice")
	if err := Write(p, c); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	got, err := Load(p)
	if err != nil {
		t.Fatalf("written default does not load:\n%v", err)
	}
	if got.Agent != c.Agent || got.Network.ListenAddr != "127.0.0.1:8443" || got.ACL.DefaultPermission != PermNone {
		t.Errorf("round trip: %+v", got)
	}
	// Overwrite is atomic and leaves no temp files behind.
	c.Agent.Role = "pm"
	if err := Write(p, c); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("dir has %d entries, want only config.json", len(entries))
	}
}

func TestExampleRoundTrip(t *testing.T) {
	c, err := Parse("x", ExampleJSON(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Parse("x", b, noEnv)
	if err != nil {
		t.Fatalf("re-encoded example does not load:\n%v\n%s", err, b)
	}
	if len(c2.Tasks["lint"].Approval.Auto) != 1 || !c2.Tasks["run_tests"].Approval.Required {
		t.Errorf("approvals lost: %+v", c2.Tasks)
	}
}

func TestLogLevel(t *testing.T) {
	c := &Config{Logging: Logging{Level: "warn"}}
	t.Setenv("AOI_LOG_LEVEL", "")
	if got := c.LogLevel(); got != slog.LevelWarn {
		t.Errorf("config level: got %v", got)
	}
	t.Setenv("AOI_LOG_LEVEL", "debug")
	if got := c.LogLevel(); got != slog.LevelDebug {
		t.Errorf("env level: got %v", got)
	}
	t.Setenv("AOI_LOG_LEVEL", "bogus")
	if got := c.LogLevel(); got != slog.LevelWarn {
		t.Errorf("bogus env should fall back to config: got %v", got)
	}
}

func TestApprovalForms(t *testing.T) {
	cases := []struct {
		json     string
		required bool
		auto     int
	}{
		{`"required"`, true, 0},
		{`"none"`, false, 0},
		{`{"auto": [{"from_role": "pm"}]}`, true, 1},
		{`{"auto": [{"from_role": "pm"}], "required": false}`, false, 1},
	}
	for _, tc := range cases {
		var a Approval
		if err := json.Unmarshal([]byte(tc.json), &a); err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		if a.Required != tc.required || len(a.Auto) != tc.auto {
			t.Errorf("%s → %+v", tc.json, a)
		}
	}
	var a Approval
	if err := json.Unmarshal([]byte(`"maybe"`), &a); err == nil {
		t.Error(`"maybe" accepted`)
	}
}

func TestAutoApproves(t *testing.T) {
	a := Approval{Required: true, Auto: []AutoRule{{FromAgent: "pm-*", Hours: []int{9, 18}}}}
	at := func(h int) time.Time { return time.Date(2026, 1, 5, h, 30, 0, 0, time.Local) }
	cases := []struct {
		agent string
		hour  int
		want  bool
	}{
		{"pm-tanaka", 10, true},
		{"pm-tanaka", 18, false},
		{"pm-tanaka", 8, false},
		{"eng-sato", 10, false},
	}
	for _, tc := range cases {
		if got := a.AutoApproves(tc.agent, "", at(tc.hour)); got != tc.want {
			t.Errorf("%s at %d:30 = %v, want %v", tc.agent, tc.hour, got, tc.want)
		}
	}
	if !InHours(22, 6, at(23)) || !InHours(22, 6, at(5)) || InHours(22, 6, at(12)) {
		t.Error("overnight window wrong")
	}
}

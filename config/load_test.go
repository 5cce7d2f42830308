package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func noEnv(string) (string, bool) { return "", false }

func envOf(m map[string]string) LookupFunc {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestExampleLoads(t *testing.T) {
	c, err := Parse("aoi.example.json", ExampleJSON(), envOf(map[string]string{"HOME": "/home/u"}))
	if err != nil {
		t.Fatalf("example does not validate:\n%v", err)
	}
	if c.Agent.ID != "eng-suzuki" || c.ACL.Rules[2].Permission != PermNone {
		t.Errorf("decoded wrong: agent %q, rule 2 %q", c.Agent.ID, c.ACL.Rules[2].Permission)
	}
	if got := c.Contexts[0].LocalPath; got != "/home/u/projects/webapp" {
		t.Errorf("local_path = %q, want ${HOME} expanded", got)
	}
	lint := c.Tasks["lint"]
	if !lint.Approval.Required || len(lint.Approval.Auto) != 1 || lint.Approval.Auto[0].FromRole != "pm" {
		t.Errorf("lint approval = %+v", lint.Approval)
	}
	if rt := c.Tasks["run_tests"]; !rt.Approval.Required || rt.Params["suite"].Default != "./..." {
		t.Errorf("run_tests = %+v", rt)
	}
	if got := c.Secretary.ContextMirroring.TestOutputs; len(got) != 3 || got[0] != "test-results/*.xml" {
		t.Errorf("test_outputs = %q", got)
	}
}

func TestExampleFileOnDiskIsEmbedded(t *testing.T) {
	b, err := os.ReadFile("aoi.example.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(ExampleJSON()) {
		t.Error("ExampleJSON differs from config/aoi.example.json")
	}
	var v any
	if err := json.Unmarshal(SchemaJSON(), &v); err != nil {
		t.Errorf("schema is not JSON: %v", err)
	}
}

// minimal is the smallest valid config; bad cases patch it.
const minimal = `{"agent": {"id": "eng-a", "role": "engineer"}}`

func TestBadConfigs(t *testing.T) {
	cases := []struct {
		name    string
		json    string
		env     map[string]string
		path    string // JSON pointer the error must name
		problem string // substring of Problem
		fix     string // substring of Fix
	}{
		{"wrong type", `{"agent": {"id": "eng-a", "role": "engineer"}, "limits": {"burst": "20"}}`,
			nil, "/limits/burst", "is a string, but must be an integer", "write it as an integer"},
		{"unknown key with suggestion", `{"agent": {"id": "eng-a", "role": "engineer"}, "network": {"listen_adr": "127.0.0.1:1"}}`,
			nil, "/network/listen_adr", `unknown key "listen_adr"`, `did you mean "listen_addr"?`},
		{"unknown key without suggestion", `{"agent": {"id": "eng-a", "role": "engineer"}, "zzzzzzzzzz": 1}`,
			nil, "/zzzzzzzzzz", `unknown key "zzzzzzzzzz"`, "valid keys here are"},
		{"bad enum", `{"agent": {"id": "eng-a", "role": "engineer"}, "acl": {"rules": [
			{"id": "a", "agent_id": "*", "scope_type": "repository", "scope_pattern": "x", "permission": "read"},
			{"id": "b", "agent_id": "*", "scope_type": "repository", "scope_pattern": "x", "permission": "read"},
			{"id": "c", "agent_id": "*", "scope_type": "repository", "scope_pattern": "x", "permission": "reed"}]}}`,
			nil, "/acl/rules/2/permission", `"reed" is not one of none, read, write, admin`, "use one of them"},
		{"bad role", `{"agent": {"id": "eng-a", "role": "Bad Role"}}`,
			nil, "/agent/role", `"Bad Role" is not valid`, "lower-case letters"},
		{"bad peer role", `{"agent": {"id": "eng-a", "role": "engineer"}, "peers": [{"agent_id": "pm-b", "role": "PM Lead"}]}`,
			nil, "/peers/0/role", `"PM Lead" is not valid`, "at most 63 characters"},
		{"reserved peer id", `{"agent": {"id": "eng-a", "role": "engineer"}, "peers": [{"agent_id": "system"}]}`,
			nil, "/peers/0/agent_id", `"system" is the audit log's name for its own rows`, "another id"},
		{"own id as a peer", `{"agent": {"id": "eng-a", "role": "engineer"}, "peers": [{"agent_id": "eng-a"}]}`,
			nil, "/peers/0/agent_id", `"eng-a" is this agent's own id`, "the peer's own id"},
		{"unknown theme", `{"agent": {"id": "eng-a", "role": "engineer"}, "ui": {"theme": "solarized"}}`,
			nil, "/ui/theme", `"solarized" is not valid`, "high-contrast, or the path of a theme file ending in .json"},
		{"empty role", `{"agent": {"id": "eng-a", "role": ""}}`,
			nil, "/agent/role", "is empty", "e.g. engineer"},
		{"port out of range", `{"agent": {"id": "eng-a", "role": "engineer"}, "network": {"listen_addr": "127.0.0.1:99999"}}`,
			nil, "/network/listen_addr", "port 99999 is out of range", "from 1 to 65535"},
		{"bad hours", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"interrupt_control": {"focus_mode_hours": [9, 25]}}}`,
			nil, "/secretary/interrupt_control/focus_mode_hours/1", "25 is more than 24", "from 0 to 24"},
		{"hours count", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"interrupt_control": {"focus_mode_hours": [9]}}}`,
			nil, "/secretary/interrupt_control/focus_mode_hours", "has 1 items, needs at least 2", "[start, end]"},
		{"threshold range", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"interrupt_control": {"auto_respond_threshold": 1.5}}}`,
			nil, "/secretary/interrupt_control/auto_respond_threshold", "1.5 is more than 1", "from 0 to 1"},
		{"bad agent id", `{"agent": {"id": "Eng A", "role": "engineer"}}`,
			nil, "/agent/id", `"Eng A" is not valid`, "lower-case letters"},
		{"missing role", `{"agent": {"id": "eng-a"}}`,
			nil, "/agent/role", "is missing", "add it"},
		{"undeclared placeholder", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["go", "test", "{{suite}}"]}}}`,
			nil, "/tasks/t/command/2", "placeholder {{suite}} is not declared", "declare it under params"},
		{"unused param", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "params": {"suite": {}}}}}`,
			nil, "/tasks/t/params/suite", `param "suite" is declared but no {{suite}} uses it`, "remove it"},
		{"default violates pattern", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["{{s}}"], "params": {"s": {"default": "x y", "pattern": "^[a-z]+$"}}}}}`,
			nil, "/tasks/t/params/s/default", "does not match", "^[a-z]+$"},
		{"command and mcp_tool", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"work_ai": {"mcp_endpoint": "stdio:x"}}, "tasks": {"t": {"command": ["make"], "mcp_tool": "docs"}}}`,
			nil, "/tasks/t/mcp_tool", "both command and mcp_tool", "keep one"},
		{"allow_ref outside a worktree", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "allow_ref": true}}}`,
			nil, "/tasks/t/allow_ref", "allow_ref needs isolation worktree", `"isolation": "worktree"`},
		{"pass_env naming HOME", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "pass_env": ["SSH_AUTH_SOCK", "HOME"]}}}`,
			nil, "/tasks/t/pass_env/1", "aoi sets HOME for a task itself", "real_home"},
		{"pass_env naming TMPDIR", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "pass_env": ["TMPDIR"]}}}`,
			nil, "/tasks/t/pass_env/0", "aoi sets TMPDIR for a task itself", "remove it"},
		{"unconfined mcp_tool", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"work_ai": {"mcp_endpoint": "stdio:x"}}, "tasks": {"t": {"mcp_tool": "docs", "unconfined": true}}}`,
			nil, "/tasks/t/unconfined", "unconfined applies to a command", `remove "unconfined"`},
		{"relative writable", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "writable": ["cache"]}}}`,
			nil, "/tasks/t/writable/0", `"cache" is not an absolute path`, "from the root"},
		{"pass_env with a value", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "pass_env": ["X=1"]}}}`,
			nil, "/tasks/t/pass_env/0", "not a variable name", "SSH_AUTH_SOCK"},
		{"neither command nor mcp_tool", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"timeout_sec": 5}}}`,
			nil, "/tasks/t", "needs command or mcp_tool", "command"},
		{"mcp_tool without endpoint", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"mcp_tool": "docs"}}}`,
			nil, "/tasks/t/mcp_tool", "needs the work AI's MCP server", "/secretary/work_ai/mcp_endpoint"},
		{"duplicate rule id", `{"agent": {"id": "eng-a", "role": "engineer"}, "acl": {"rules": [
			{"id": "r", "agent_id": "*", "scope_type": "repository", "scope_pattern": "x", "permission": "read"},
			{"id": "r", "agent_role": "pm", "scope_type": "repository", "scope_pattern": "y", "permission": "read"}]}}`,
			nil, "/acl/rules/1/id", `rule id "r" is already used by /acl/rules/0`, "unique"},
		{"rule without subject", `{"agent": {"id": "eng-a", "role": "engineer"}, "acl": {"rules": [
			{"id": "r", "scope_type": "repository", "scope_pattern": "x", "permission": "read"}]}}`,
			nil, "/acl/rules/0", "needs one of agent_id, agent_role, tailnet_user, tailnet_tag", "add at least one"},
		{"bad expiry", `{"agent": {"id": "eng-a", "role": "engineer"}, "acl": {"rules": [
			{"id": "r", "agent_id": "*", "scope_type": "repository", "scope_pattern": "x", "permission": "read", "expires_at": "tomorrow"}]}}`,
			nil, "/acl/rules/0/expires_at", `"tomorrow" is not a valid date-time`, "RFC 3339"},
		{"absolute scope pattern", `{"agent": {"id": "eng-a", "role": "engineer"}, "acl": {"rules": [
			{"id": "r", "agent_id": "*", "scope_type": "folder", "scope_pattern": "/etc/**", "permission": "read"}]}}`,
			nil, "/acl/rules/0/scope_pattern", "absolute path", "context identifier"},
		{"malformed glob", `{"agent": {"id": "eng-a", "role": "engineer"}, "acl": {"rules": [
			{"id": "r", "agent_id": "*", "scope_type": "folder", "scope_pattern": "acme/[web", "permission": "read"}]}}`,
			nil, "/acl/rules/0/scope_pattern", "malformed glob", "wildcards"},
		{"missing env var for required field", `{"agent": {"id": "eng-a", "role": "${AOI_TEST_ROLE}"}}`,
			nil, "/agent/role", "${AOI_TEST_ROLE}, which is not set", "set AOI_TEST_ROLE in the environment"},
		{"bad fingerprint", `{"agent": {"id": "eng-a", "role": "engineer"}, "peers": [{"agent_id": "pm-b", "fingerprint": "abc123"}]}`,
			nil, "/peers/0/fingerprint", `"abc123" is not valid`, "64 hex digits"},
		{"duplicate peer", `{"agent": {"id": "eng-a", "role": "engineer"}, "peers": [{"agent_id": "pm-b"}, {"agent_id": "pm-b"}]}`,
			nil, "/peers/1/agent_id", "already configured at /peers/0", "merge"},
		{"worktree without local_path", `{"agent": {"id": "eng-a", "role": "engineer"}, "contexts": [{"type": "repository", "identifier": "acme/web"}],
			"tasks": {"t": {"command": ["make"], "context": "acme/web", "isolation": "worktree"}}}`,
			nil, "/tasks/t/context", `context "acme/web" has no local_path`, "set local_path"},
		{"worktree without context", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "isolation": "worktree"}}}`,
			nil, "/tasks/t/context", "isolation worktree needs", "set context"},
		{"unknown task context", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "context": "nope"}}}`,
			nil, "/tasks/t/context", `"nope" is not a configured context`, "/contexts"},
		{"approval string", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "approval": "maybe"}}}`,
			nil, "/tasks/t/approval", `"maybe" is not one of required, none`, "use one of them"},
		{"approval object typo", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "approval": {"requird": false}}}}`,
			nil, "/tasks/t/approval/requird", `unknown key "requird"`, `did you mean "required"?`},
		{"approval auto hours", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"], "approval": {"auto": [{"from_role": "pm", "hours": [-1, 18]}]}}}}`,
			nil, "/tasks/t/approval/auto/0/hours/0", "-1 is less than 0", "from 0 to 24"},
		{"bad redaction regex", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"redaction": {"patterns": [{"id": "x", "regex": "(unclosed"}]}}}`,
			nil, "/secretary/redaction/patterns/0/regex", "not a valid regular expression", "RE2"},
		{"test output glob leaving the repository", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"context_mirroring": {"test_outputs": ["out/*.xml", "../other/*.log"]}}}`,
			nil, "/secretary/context_mirroring/test_outputs/1", "leaves the repository", "relative to the repository"},
		{"bad test output glob", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"context_mirroring": {"test_outputs": ["out/[.xml"]}}}`,
			nil, "/secretary/context_mirroring/test_outputs/0", "not a valid glob", "test-results/*.xml"},
		{"llm without endpoint", `{"agent": {"id": "eng-a", "role": "engineer"}, "secretary": {"llm": {"enabled": true, "model": "m", "endpoint": "${AOI_TEST_LLM}"}}}`,
			nil, "/secretary/llm/endpoint", "${AOI_TEST_LLM}, which is not set", "AOI_TEST_LLM"},
		{"bad log level", `{"agent": {"id": "eng-a", "role": "engineer"}, "logging": {"level": "verbose"}}`,
			nil, "/logging/level", `"verbose" is not one of debug, info, warn, error`, "use one of them"},
		{"metrics addr", `{"agent": {"id": "eng-a", "role": "engineer"}, "metrics": {"listen_addr": "localhost"}}`,
			nil, "/metrics/listen_addr", "allowed forms", "host:port"},
		{"metrics on every interface", `{"agent": {"id": "eng-a", "role": "engineer"}, "metrics": {"listen_addr": "0.0.0.0:9464"}}`,
			nil, "/metrics/listen_addr", "every interface", "127.0.0.1:9464"},
		{"metrics on the LAN", `{"agent": {"id": "eng-a", "role": "engineer"}, "metrics": {"listen_addr": "192.168.1.20:9464"}}`,
			nil, "/metrics/listen_addr", "neither loopback nor a tailnet address", "127.0.0.1:9464"},
		{"backoff order", `{"agent": {"id": "eng-a", "role": "engineer"}, "outbox": {"initial_backoff_ms": 5000, "max_backoff_ms": 1000}}`,
			nil, "/outbox/max_backoff_ms", "less than initial_backoff_ms", "at least"},
		{"bad task name", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"Run Tests": {"command": ["make"]}}}`,
			nil, "/tasks/Run Tests", `name "Run Tests" is not allowed`, "lower-case letters"},
		{"bad param name", `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["{{a}}"], "params": {"a": {}, "b-c": {}}}}}`,
			nil, "/tasks/t/params/b-c", `name "b-c" is not allowed`, "{{name}}"},
		{"absolute context identifier", `{"agent": {"id": "eng-a", "role": "engineer"}, "contexts": [{"type": "repository", "identifier": "/home/a/web"}]}`,
			nil, "/contexts/0/identifier", "absolute path", "owner/repo"},
		{"duplicate context", `{"agent": {"id": "eng-a", "role": "engineer"}, "contexts": [{"type": "repository", "identifier": "a/b"}, {"type": "folder", "identifier": "a/b"}]}`,
			nil, "/contexts/1/identifier", "already configured at /contexts/0", "unique"},
		{"not an object", `[1, 2]`, nil, "", "not a JSON object", "aoi config show --example"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lookup := LookupFunc(noEnv)
			if tc.env != nil {
				lookup = envOf(tc.env)
			}
			c, err := Parse("config.json", []byte(tc.json), lookup)
			if err == nil {
				t.Fatalf("accepted: %+v", c)
			}
			e := findError(t, err, tc.path)
			if !strings.Contains(e.Problem, tc.problem) {
				t.Errorf("problem = %q, want it to contain %q", e.Problem, tc.problem)
			}
			if !strings.Contains(e.Fix, tc.fix) {
				t.Errorf("fix = %q, want it to contain %q", e.Fix, tc.fix)
			}
			if !strings.HasPrefix(err.Error(), "config.json: ") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// findError returns the error at path, failing the test if there is none.
func findError(t *testing.T, err error, path string) *Error {
	t.Helper()
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error is %T, want config.Errors: %v", err, err)
	}
	for _, e := range errs {
		if e.Path == path {
			return e
		}
	}
	t.Fatalf("no error at %q; got:\n%v", path, err)
	return nil
}

func TestErrorLineFormat(t *testing.T) {
	_, err := Parse("config.json", []byte(`{"agent": {"id": "eng-a", "role": "engineer"}, "acl": {"rules": [
		{"id": "a", "agent_id": "*", "scope_type": "repository", "scope_pattern": "x", "permission": "read"},
		{"id": "b", "agent_id": "*", "scope_type": "repository", "scope_pattern": "x", "permission": "read"},
		{"id": "c", "agent_id": "*", "scope_type": "repository", "scope_pattern": "x", "permission": "reed"}]}}`), noEnv)
	want := `config.json: /acl/rules/2/permission: "reed" is not one of none, read, write, admin — use one of them`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestAllErrorsAtOnce(t *testing.T) {
	_, err := Parse("c.json", []byte(`{"agent": {"id": "X", "role": ""}, "ui": {"them": "dark"}, "limits": {"burst": 0}}`), noEnv)
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("got %v", err)
	}
	want := []string{"/agent/id", "/agent/role", "/limits/burst", "/ui/them"}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(errs), len(want), err)
	}
	for i, p := range want {
		if errs[i].Path != p {
			t.Errorf("error %d at %q, want %q", i, errs[i].Path, p)
		}
	}
	if n := strings.Count(err.Error(), "\n"); n != len(want)-1 {
		t.Errorf("want one line per error, got %d newlines", n)
	}
}

func TestSchemaAndSemanticErrorsTogether(t *testing.T) {
	_, err := Parse("c.json", []byte(`{"agent": {"id": "eng-a", "role": "engineer"}, "logging": {"level": "loud"},
		"tasks": {"t": {"command": ["{{x}}"]}}}`), noEnv)
	findError(t, err, "/logging/level")
	findError(t, err, "/tasks/t/command/0")
}

func TestInvalidJSONLineCol(t *testing.T) {
	cases := []struct {
		name, json string
		line, col  int
	}{
		{"trailing comma", "{\n  \"agent\": {\"id\": \"a\",}\n}", 2, 24},
		{"truncated", "{\n  \"agent\": {", 2, 13},
		{"garbage after", "{}\n {}", 2, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("config.json", []byte(tc.json), noEnv)
			var errs Errors
			if !errors.As(err, &errs) || len(errs) != 1 {
				t.Fatalf("got %v", err)
			}
			if errs[0].Line != tc.line || errs[0].Column != tc.col {
				t.Errorf("at %d:%d, want %d:%d (%v)", errs[0].Line, errs[0].Column, tc.line, tc.col, err)
			}
			if !strings.HasPrefix(err.Error(), "config.json:"+itoa(tc.line)+":"+itoa(tc.col)+": ") {
				t.Errorf("error %q does not start with file:line:col", err)
			}
		})
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestDefaultsApplied(t *testing.T) {
	c, err := Parse("c.json", []byte(`{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"t": {"command": ["make"]}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"listen", c.Network.ListenAddr, "127.0.0.1:8443"},
		{"discovery", c.Network.DiscoveryIntervalSec, 60},
		{"offline", c.Network.OfflineAfterSec, 180},
		{"body", c.Network.MaxBodyBytes, int64(1 << 20)},
		{"timeout", c.Network.RequestTimeoutSec, 30},
		{"rate", c.Limits.RatePerSec, 5.0},
		{"burst", c.Limits.Burst, 20},
		{"tasks", c.Limits.MaxConcurrentTasks, 2},
		{"approval expiry", c.Approvals.ExpirySec, 3600},
		{"backoff", c.Outbox.InitialBackoffMS, 1000},
		{"max backoff", c.Outbox.MaxBackoffMS, 60000},
		{"outbox expiry", c.Outbox.ExpirySec, 86400},
		{"threshold", c.Secretary.InterruptControl.AutoRespondThreshold, 0.8},
		{"retention", c.Secretary.ContextMirroring.RetentionDays, 30},
		{"level", c.Logging.Level, "info"},
		{"theme", c.UI.Theme, "auto"},
		{"bell", c.UI.Bell, true},
		{"default permission", c.ACL.DefaultPermission, "none"},
		{"task approval", c.Tasks["t"].Approval.Required, true},
		{"task isolation", c.Tasks["t"].Isolation, "none"},
		{"task timeout", c.Tasks["t"].TimeoutSec, 600},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s = %v, want %v", ck.name, ck.got, ck.want)
		}
	}
	// An explicit false and an explicit 0 threshold are kept.
	c, err = Parse("c.json", []byte(`{"agent": {"id": "eng-a", "role": "engineer"}, "ui": {"bell": false}, "secretary": {"interrupt_control": {"auto_respond_threshold": 0}}}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.UI.Bell || c.Secretary.InterruptControl.AutoRespondThreshold != 0 {
		t.Errorf("explicit values overridden: bell %v threshold %v", c.UI.Bell, c.Secretary.InterruptControl.AutoRespondThreshold)
	}
}

func TestLoadFromDisk(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	if err := os.WriteFile(p, []byte(`{"agent": {"id": "eng-a", "role": "${AOI_TEST_ROLE_X:-engineer}", "owner": "${AOI_TEST_OWNER_X}"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AOI_TEST_OWNER_X", "alice")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.Role != "engineer" || c.Agent.Owner != "alice" {
		t.Errorf("agent = %+v", c.Agent)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "aoi init") {
		t.Errorf("missing file error = %v, want a hint to run aoi init", err)
	}
}

// TestThemeNames: every name the interface takes passes validation (any
// case, as the theme picker reads it), and so does a theme file.
func TestThemeNames(t *testing.T) {
	for _, theme := range []string{"auto", "Dark", "light", "high-contrast", "themes/mine.json", "/home/u/t.JSON"} {
		doc := `{"agent": {"id": "eng-a", "role": "engineer"}, "ui": {"theme": "` + theme + `"}}`
		if _, err := Parse("aoi.json", []byte(doc), envOf(nil)); err != nil {
			t.Errorf("theme %q refused:\n%v", theme, err)
		}
	}
}

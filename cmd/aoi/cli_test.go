package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/config"
)

func TestInitCreatesIdentityAndConfig(t *testing.T) {
	isolate(t)
	dir := filepath.Join(shortDir(t), "eng")
	r := runAOI(t, "init", "--id", "eng-suzuki", "--role", "engineer", "--listen", "127.0.0.1:0", "--data-dir", dir)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"identity:    created", "fingerprint: ", "config:      written to " + filepath.Join(dir, "config.json"), "aoi peers trust eng-suzuki "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	cfg, err := config.Load(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatalf("init wrote a config that does not load: %v", err)
	}
	if cfg.Agent.ID != "eng-suzuki" || cfg.Agent.Role != "engineer" || cfg.Network.ListenAddr != "127.0.0.1:0" {
		t.Errorf("config = %+v / %q", cfg.Agent, cfg.Network.ListenAddr)
	}

	// Without --role, the id's first word names it: pm-tanaka is a PM's
	// agent (the third walk's got engineer), an unknown word engineer.
	for id, want := range map[string]string{"pm-tanaka": "pm", "qa-ito": "qa", "suzuki": "engineer"} {
		d := filepath.Join(shortDir(t), id)
		if r := runAOI(t, "init", "--id", id, "--listen", "127.0.0.1:0", "--data-dir", d); r.code != exitOK {
			t.Fatalf("init %s: exit %d: %s", id, r.code, r.stderr)
		}
		c, err := config.Load(filepath.Join(d, "config.json"))
		if err != nil {
			t.Fatalf("init --id %s: %v", id, err)
		}
		if c.Agent.Role != want {
			t.Errorf("init --id %s: role %q, want %q", id, c.Agent.Role, want)
		}
	}

	// Again: the identity and the config are kept, and --json says so.
	r = runAOI(t, "init", "--id", "eng-suzuki", "--data-dir", dir, "--json")
	var res struct {
		Fingerprint     string `json:"fingerprint"`
		CreatedIdentity bool   `json:"created_identity"`
		CreatedConfig   bool   `json:"created_config"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stdout)
	}
	if res.CreatedIdentity || res.CreatedConfig || len(res.Fingerprint) != 64 {
		t.Errorf("second init = %+v, want both kept and a 64-hex fingerprint", res)
	}

	// --force writes a fresh config and keeps the one it replaces; what no
	// flag gives (the role, the listen address) stays as it was.
	r = runAOI(t, "init", "--id", "eng-sato", "--data-dir", dir, "--force")
	if want := "(the one it replaced is kept as " + filepath.Join(dir, "config.json.bak") + ")"; r.code != exitOK || !strings.Contains(r.stdout, want) {
		t.Errorf("init --force: exit %d, output lacks %q:\n%s", r.code, want, r.stdout)
	}
	if old, err := config.Load(filepath.Join(dir, "config.json.bak")); err != nil || old.Agent.ID != "eng-suzuki" || old.Network.ListenAddr != "127.0.0.1:0" {
		t.Errorf("the backup of the replaced config: %+v, %v", old, err)
	}
	if cfg, err := config.Load(filepath.Join(dir, "config.json")); err != nil || cfg.Agent.ID != "eng-sato" || cfg.Agent.Role != "engineer" || cfg.Network.ListenAddr != "127.0.0.1:0" {
		t.Errorf("after init --force --id: %+v %q, %v; want the new id, the old role and listen address", cfg.Agent, cfg.Network.ListenAddr, err)
	}
	r = runAOI(t, "init", "--role", "pm", "--data-dir", dir, "--force")
	if cfg, err := config.Load(filepath.Join(dir, "config.json")); r.code != exitOK || err != nil || cfg.Agent.ID != "eng-sato" || cfg.Agent.Role != "pm" {
		t.Errorf("after init --force --role pm: %+v, %v; want the id kept and the role pm", cfg.Agent, err)
	}
}

// TestInitPrintsATrustCommandThatWorks: the command aoi init prints for
// colleagues, run as printed against a colleague's running agent, pins this
// agent with the endpoint it listens on and its role, so the colleague's
// agent can call it and role rules match it.
func TestInitPrintsATrustCommandThatWorks(t *testing.T) {
	isolate(t)
	eng, pm := filepath.Join(shortDir(t), "eng"), filepath.Join(shortDir(t), "pm")
	r := runAOI(t, "init", "--id", "eng-suzuki", "--role", "engineer", "--listen", "127.0.0.1:8443", "--data-dir", eng)
	if r.code != exitOK {
		t.Fatalf("init eng: exit %d: %s", r.code, r.stderr)
	}
	if r = runAOI(t, "init", "--id", "pm-tanaka", "--role", "pm", "--listen", "127.0.0.1:0", "--data-dir", pm); r.code != exitOK {
		t.Fatalf("init pm: exit %d: %s", r.code, r.stderr)
	}
	// A second init keeps the config and still prints its endpoint and role.
	r = runAOI(t, "init", "--id", "eng-suzuki", "--data-dir", eng)
	_, rest, _ := strings.Cut(r.stdout, "`aoi ")
	printed, _, ok := strings.Cut(rest, "`")
	if !ok || !strings.Contains(printed, "--endpoint 127.0.0.1:8443") || !strings.Contains(printed, "--role engineer") {
		t.Fatalf("init prints no complete trust command:\n%s", r.stdout)
	}
	startServe(t, pm)
	if r = runAOI(t, append([]string{"--data-dir", pm}, strings.Fields(printed)...)...); r.code != exitOK {
		t.Fatalf("aoi %s: exit %d: %s", printed, r.code, r.stderr)
	}
	r = runAOI(t, "--data-dir", pm, "peers", "--json")
	var peers []struct {
		AgentID  string `json:"agent_id"`
		Role     string `json:"role"`
		Endpoint string `json:"endpoint"`
		Trust    string `json:"trust"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &peers); err != nil {
		t.Fatalf("peers --json: %v: %s", err, r.stdout)
	}
	if len(peers) != 1 || peers[0].AgentID != "eng-suzuki" || peers[0].Role != "engineer" || peers[0].Endpoint != "127.0.0.1:8443" {
		t.Fatalf("pm's peers after the printed command = %+v, want eng-suzuki, engineer, 127.0.0.1:8443", peers)
	}
}

func TestConfigValidate(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	writeFile(t, good, `{"agent": {"id": "eng-a", "role": "engineer"}}`)
	writeFile(t, bad, `{"agent": {"id": "eng-a", "role": "engineer"}, "acl": {"default_permission": "maybe"}}`)

	r := runAOI(t, "config", "validate", good)
	if r.code != exitOK || !strings.Contains(r.stdout, "good.json: valid") {
		t.Errorf("good file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	r = runAOI(t, "config", "validate", bad)
	if r.code != exitFailure {
		t.Errorf("bad file: exit %d, want %d", r.code, exitFailure)
	}
	if !strings.Contains(r.stderr, "/acl/default_permission") || !strings.Contains(r.stderr, "will not start with this file") {
		t.Errorf("bad file: stderr does not name the JSON path:\n%s", r.stderr)
	}

	r = runAOI(t, "config", "validate", bad, "--json")
	var out validationOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != exitFailure {
		t.Fatalf("--json: exit %d, %v: %s", r.code, err, r.stdout)
	}
	if out.Valid || len(out.Problems) == 0 || out.Problems[0].Path != "/acl/default_permission" || out.Problems[0].Fix == "" {
		t.Errorf("--json = %+v", out)
	}

	// A context path with a typo does not stop aoi (a disk may be mounted
	// later) but is named, with the directory meant.
	repo := filepath.Join(dir, "webapp")
	if err := os.Mkdir(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(dir, "typo.json")
	writeFile(t, typo, `{"agent": {"id": "eng-a", "role": "engineer"}, "contexts": [{"type": "repository", "identifier": "acme/webapp", "local_path": "`+filepath.Join(dir, "wbeapp")+`"}]}`)
	r = runAOI(t, "config", "validate", typo)
	if r.code != exitOK || !strings.Contains(r.stderr, "warning: /contexts/0/local_path") || !strings.Contains(r.stderr, "did you mean "+repo) {
		t.Errorf("a local_path typo: exit %d, stderr %q", r.code, r.stderr)
	}

	// A flag whose value an optional parameter without a default gives
	// would take the next argument when a request leaves it out (the
	// third walk's go test -tags ./billing/...): a warning with the fix.
	shift := filepath.Join(dir, "shift.json")
	writeFile(t, shift, `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"run_tests": {"command": ["go", "test", "-tags", "{{mode}}", "{{suite}}"],
		"params": {"mode": {"enum": ["fast", "full"]}, "suite": {"enum": ["./auth/...", "./billing/..."], "required": true}}, "timeout_sec": 60, "isolation": "none"}}}`)
	r = runAOI(t, "config", "validate", shift)
	if r.code != exitOK || !strings.Contains(r.stderr, "warning: /tasks/run_tests/command/3") || !strings.Contains(r.stderr, `"-tags={{mode}}"`) {
		t.Errorf("a shifting optional parameter: exit %d, stderr %q", r.code, r.stderr)
	}

	// A placeholder inside a shell script (or a make variable) takes only
	// words: a warning says so and how to pass it instead.
	script := filepath.Join(dir, "script.json")
	writeFile(t, script, `{"agent": {"id": "eng-a", "role": "engineer"}, "tasks": {"grep": {"command": ["sh", "-c", "grep -rn {{pattern}} ."],
		"params": {"pattern": {"required": true}}, "timeout_sec": 60, "isolation": "none"}}}`)
	r = runAOI(t, "config", "validate", script)
	if r.code != exitOK || !strings.Contains(r.stderr, "warning: /tasks/grep/command/2") || !strings.Contains(r.stderr, "goes into code the command runs") ||
		!strings.Contains(r.stderr, `"$1"`) {
		t.Errorf("a placeholder in a shell script: exit %d, stderr %q", r.code, r.stderr)
	}

	// On a tailnet, a role given to an id no node is pinned to goes to
	// whichever node announces that id first: a warning with the fix.
	pins := filepath.Join(dir, "pins.json")
	writeFile(t, pins, `{"agent": {"id": "eng-a", "role": "engineer"}, "network": {"tailscale": {"enabled": true}},
		"peers": [{"agent_id": "pm-tanaka", "role": "pm"}, {"agent_id": "qa-sato", "role": "qa", "tailnet_node": "sato-laptop"}]}`)
	r = runAOI(t, "config", "validate", pins)
	if r.code != exitOK || !strings.Contains(r.stderr, "warning: /peers/0/tailnet_node") || !strings.Contains(r.stderr, "first node to announce itself as pm-tanaka") ||
		strings.Contains(r.stderr, "/peers/1/") {
		t.Errorf("a tailnet role without a node: exit %d, stderr %q", r.code, r.stderr)
	}

	r = runAOI(t, "config", "validate", filepath.Join(dir, "missing.json"))
	if r.code != exitFailure || !strings.Contains(r.stderr, "aoi init") {
		t.Errorf("missing file: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestConfigShowMasksSecrets(t *testing.T) {
	isolate(t)
	t.Setenv("AOI_TEST_KEY", "sk-very-secret")
	path := filepath.Join(t.TempDir(), "c.json")
	writeFile(t, path, `{"agent": {"id": "eng-a", "role": "engineer"},
		"secretary": {"llm": {"enabled": true, "endpoint": "http://127.0.0.1:11434/v1", "model": "m", "api_key": "${AOI_TEST_KEY}"}}}`)
	r := runAOI(t, "config", "show", path)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "sk-very-secret") || !strings.Contains(r.stdout, `"api_key": "********"`) {
		t.Errorf("secret not masked:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, `"discovery_interval_sec": 60`) {
		t.Errorf("defaults not shown:\n%s", r.stdout)
	}
}

// TestConfigShowExample: `aoi config show --example` prints the example
// config the README and `aoi status` point at, from the binary itself,
// and it loads as a config; a PATH beside it is a usage error.
func TestConfigShowExample(t *testing.T) {
	isolate(t)
	r := runAOI(t, "config", "show", "--example")
	if r.code != exitOK || r.stdout != string(config.ExampleJSON()) {
		t.Fatalf("exit %d, stdout is the example: %v; stderr %s", r.code, r.stdout == string(config.ExampleJSON()), r.stderr)
	}
	path := filepath.Join(t.TempDir(), "aoi.json")
	writeFile(t, path, r.stdout)
	if v := runAOI(t, "config", "validate", path); v.code != exitOK {
		t.Errorf("the printed example does not validate: exit %d: %s%s", v.code, v.stdout, v.stderr)
	}
	if u := runAOI(t, "config", "show", "--example", path); u.code != exitUsage || !strings.Contains(u.stderr, "no PATH") {
		t.Errorf("--example with a PATH: exit %d, stderr %q; want a usage error", u.code, u.stderr)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	isolate(t)
	cases := [][]string{
		{"no-such-command"},
		{"status", "--no-such-flag"},
		{"answer", "only-an-id"},
		{"focus", "sideways"},
		{"decline", "q1"},
		{"reject", "a1"}, // the requester reads the reason, as in the interface
		{"reject", "a1", "--reason", " "},
		{"release"},
		{"release", "q1", "--all"},
		{"task", "eng-a", "run_tests", "novalue"},
		{"query", "eng-a", "hi", "--priority", "urgent"},
		{"audit", "export", "--format", "xml"},
		{"peers", "trust", "eng-a"},
		{"inbox", "--limit", "many"},
		{"serve", "--metrics", "0.0.0.0:9464"}, // /metrics on every interface
	}
	for _, args := range cases {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			r := runAOI(t, append(args, "--data-dir", t.TempDir())...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, exitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, "--help' for usage") {
				t.Errorf("stderr does not point at --help: %q", r.stderr)
			}
		})
	}
}

// TestNoDaemonIsAClearFailure: with an agent set up but not running, a
// command says to start it; with nothing set up there (a mistyped
// --data-dir), it says to check the path or run aoi init, not to start a
// serve that would fail next.
func TestNoDaemonIsAClearFailure(t *testing.T) {
	isolate(t)
	empty := filepath.Join(shortDir(t), "typo")
	for _, cmd := range []string{"status", "inbox"} { // inbox opens a data dir itself: not this one
		r := runAOI(t, cmd, "--data-dir", empty)
		if r.code != exitFailure || !strings.Contains(r.stderr, "no agent is set up in "+empty) || !strings.Contains(r.stderr, "aoi init --data-dir "+empty) {
			t.Errorf("aoi %s on a data dir nobody set up: exit %d, stderr %q", cmd, r.code, r.stderr)
		}
	}
	// Nor with a config given elsewhere: the data dir holds the identity.
	cfgElsewhere := filepath.Join(shortDir(t), "config.json")
	writeFile(t, cfgElsewhere, `{"agent": {"id": "eng-a", "role": "engineer"}}`)
	if r := runAOI(t, "audit", "verify", "--data-dir", empty, "--config", cfgElsewhere); r.code != exitFailure || !strings.Contains(r.stderr, "no agent is set up in "+empty) {
		t.Errorf("aoi audit verify --config on a mistyped data dir: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(empty); err == nil {
		t.Errorf("a command made the mistyped data dir %s", empty)
	}
	dir := shortDir(t)
	if r := runAOI(t, "init", "--id", "eng-a", "--data-dir", dir); r.code != exitOK {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"status"}, {"inbox", "--watch"}, {"approve", "a1"}} {
		r := runAOI(t, append(args, "--data-dir", dir)...)
		if r.code != exitFailure {
			t.Errorf("%v: exit %d, want %d", args, r.code, exitFailure)
		}
		for _, want := range []string{"no aoi is running for data dir " + dir, "aoi serve --data-dir " + dir} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: stderr lacks %q: %q", args, want, r.stderr)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	r := runAOI(t, "version", "--json")
	var v versionInfo
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stdout)
	}
	if v.Version == "" || v.Go != runtime.Version() || v.Protocol != "1.0" {
		t.Errorf("version = %+v", v)
	}
}

// TestBinaryExitCodes runs the real binary: main wires run to the process
// exit code.
func TestBinaryExitCodes(t *testing.T) {
	isolate(t)
	bin := buildAOI(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "aoi ") {
		t.Fatalf("aoi version: %v, %q", err, out)
	}
	for args, want := range map[string]int{"bogus": exitUsage, "status --data-dir " + shortDir(t): exitFailure} {
		err := exec.Command(bin, strings.Fields(args)...).Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != want {
			t.Errorf("aoi %s: %v, want exit %d", args, err, want)
		}
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

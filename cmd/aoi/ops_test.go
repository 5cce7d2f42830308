package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/store"
)

// initDir makes a data dir with an identity and a config, as `aoi init` does.
func initDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(shortDir(t), "eng")
	if r := runAOI(t, "init", "--id", "eng-suzuki", "--role", "engineer", "--listen", "127.0.0.1:0", "--data-dir", dir); r.code != exitOK {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	return dir
}

func TestServiceInstallDryRunIsAValidSystemdUnit(t *testing.T) {
	isolate(t)
	dir := initDir(t)
	r := runAOI(t, "--data-dir", dir, "service", "install", "--dry-run")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	unit := filepath.Join(t.TempDir(), "aoi.service")
	writeFile(t, unit, r.stdout)
	keys := unitKeys(r.stdout)
	bin, _ := os.Executable()
	bin, _ = filepath.EvalSymlinks(bin)
	if keys["ExecStart"] != bin+" serve --data-dir "+dir || keys["Restart"] != "on-failure" ||
		keys["ExecReload"] != "/bin/kill -HUP $MAINPID" ||
		!strings.Contains(keys["After"], "tailscaled.service") || keys["WantedBy"] != "default.target" {
		t.Fatalf("unit keys = %v", keys)
	}
	if !strings.Contains(r.stderr, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "systemd", "user", "aoi.service")) ||
		!strings.Contains(r.stderr, "systemctl --user enable --now aoi.service") {
		t.Fatalf("dry run should say where the unit goes and what runs:\n%s", r.stderr)
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		return // the key checks above are the validation on machines without systemd
	}
	out, err := exec.Command("systemd-analyze", "verify", unit).CombinedOutput()
	if err != nil || strings.Contains(string(out), "Unknown") || strings.Contains(string(out), "aoi.service:") {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// unitKeys reads Key=Value lines of a unit (the last one wins).
func unitKeys(unit string) map[string]string {
	keys := map[string]string{}
	for _, line := range strings.Split(unit, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = v
		}
	}
	return keys
}

func TestSystemdQuoting(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/aoi":     "/usr/bin/aoi",
		"/home/a b/aoi":    `"/home/a b/aoi"`,
		`/x/"q"`:           `"/x/\"q\""`,
		"/data/100%/$HOME": "/data/100%%/$$HOME",
		`C:\odd path`:      `"C:\\odd path"`,
	} {
		if got := systemdQuote(in); got != want {
			t.Errorf("systemdQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestLaunchdPlistParses(t *testing.T) {
	spec := serviceSpec{Binary: "/Applications/aoi & co/aoi", DataDir: "/Users/eng/Library/Application Support/aoi"}
	var doc struct {
		XMLName xml.Name `xml:"plist"`
		Dict    struct {
			Inner []struct {
				XMLName xml.Name
				Text    string   `xml:",chardata"`
				Strings []string `xml:"string"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal([]byte(launchdPlist(spec)), &doc); err != nil {
		t.Fatalf("plist is not XML: %v", err)
	}
	got := map[string]string{}
	var key string
	var args []string
	for _, el := range doc.Dict.Inner {
		switch el.XMLName.Local {
		case "key":
			key = el.Text
		case "array":
			args = el.Strings
		default:
			got[key] = el.XMLName.Local + ":" + el.Text
		}
	}
	if got["Label"] != "string:dev.aoi.agent" || got["RunAtLoad"] != "true:" || got["KeepAlive"] != "true:" {
		t.Fatalf("plist keys = %v", got)
	}
	if strings.Join(args, "|") != spec.Binary+"|serve|--data-dir|"+spec.DataDir {
		t.Fatalf("ProgramArguments = %q", args)
	}
}

func TestServiceInstallAndUninstallRunTheManager(t *testing.T) {
	isolate(t)
	dir := initDir(t)
	a := &app{stdout: new(strings.Builder), stderr: new(strings.Builder), dataDirFlag: dir}
	var ran []string
	// Stand-in for systemctl: a test machine has no user service manager.
	sc := serviceCmds{goos: "linux", run: func(name string, args ...string) (string, error) {
		ran = append(ran, name+" "+strings.Join(args, " "))
		return "active\n", nil
	}}
	if err := a.serviceInstall(sc, false); err != nil {
		t.Fatal(err)
	}
	path, _ := servicePath("linux")
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "serve --data-dir "+dir) {
		t.Fatalf("unit file %s: %v\n%s", path, err, b)
	}
	if strings.Join(ran, ";") != "systemctl --user daemon-reload;systemctl --user enable --now aoi.service" {
		t.Fatalf("ran %q", ran)
	}
	if err := a.serviceStatus(sc); err != nil || !strings.Contains(a.stdout.(*strings.Builder).String(), "service:   active") {
		t.Fatalf("status: %v\n%s", err, a.stdout)
	}
	if err := a.serviceUninstall(sc, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("unit still there: %v", err)
	}
	if err := a.serviceUninstall(sc, false); err == nil || !strings.Contains(err.Error(), "no aoi service is installed") {
		t.Fatalf("second uninstall: %v", err)
	}
}

func TestDoctorReportsBrokenPermissionAndConfig(t *testing.T) {
	isolate(t)
	dir := initDir(t)
	if r := runAOI(t, "--data-dir", dir, "doctor"); r.code != exitOK || !strings.Contains(r.stdout, "✓ data dir") {
		t.Fatalf("healthy dir: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "config.json"), `{"agent": {"id": "eng-suzuki", "role": "engineer"}, "acl": {"default_permission": "maybe"}}`)
	r := runAOI(t, "--data-dir", dir, "doctor")
	if r.code != exitFailure {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stdout)
	}
	for _, want := range []string{"✗ data dir: " + dir + " has mode 0755", "fix: chmod 700 " + dir, "✗ config: ", "default_permission", "fix: fix " + filepath.Join(dir, "config.json")} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestPruneExportForgetWithoutADaemon(t *testing.T) {
	isolate(t)
	dir := initDir(t)
	if r := runAOI(t, "--data-dir", dir, "prune", "--older-than", "30d"); r.code != exitOK || !strings.Contains(r.stdout, "audit rows:") || !strings.Contains(r.stdout, "read messages:") {
		t.Fatalf("prune: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runAOI(t, "--data-dir", dir, "prune", "--older-than", "soon"); r.code != exitUsage {
		t.Fatalf("bad age: exit %d", r.code)
	}
	// A peer's words reach the export: its controls and bidi marks are
	// escaped, as in every --json output (the attack run's case).
	hostile, err := store.Open(filepath.Join(dir, "aoi.db"))
	if err != nil {
		t.Fatal(err)
	}
	err = hostile.Write(context.Background(), func(tx *store.Tx) error {
		return tx.UpsertPeer(store.PeerRecord{AgentID: "qa-evil", Owner: "tanaka\u009b31m\u202eevil\x1b]52;c;x\x07", Trust: "pinned"})
	})
	hostile.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r := runAOI(t, "--data-dir", dir, "export", "--agent", "qa-evil"); r.code != exitOK || !strings.Contains(r.stdout, "tanaka") || strings.ContainsAny(r.stdout, "\u009b\u202e\x1b\x07") {
		t.Errorf("export of a hostile peer: exit %d, printed %q; want its controls escaped", r.code, r.stdout)
	}
	r := runAOI(t, "--data-dir", dir, "export", "--agent", "pm-tanaka")
	var exp struct {
		AgentID string `json:"agent_id"`
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &exp) != nil || exp.AgentID != "pm-tanaka" {
		t.Fatalf("export: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Without --yes, a preview: it succeeds and deletes nothing. This
	// agent never heard of pm-tanaka, and says so.
	if r := runAOI(t, "--data-dir", dir, "forget", "--agent", "pm-tanaka"); r.code != exitOK || !strings.Contains(r.stdout, "nothing is stored about pm-tanaka") {
		t.Fatalf("forget without --yes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runAOI(t, "--data-dir", dir, "forget"); r.code != exitUsage || !strings.Contains(r.stderr, "usage: aoi forget --agent ID [--yes]") {
		t.Fatalf("forget without --agent: exit %d\n%s", r.code, r.stderr)
	}
	r = runAOI(t, "--data-dir", dir, "--json", "forget", "--agent", "pm-tanaka", "--yes")
	var rep struct {
		AuditEventSeq int64 `json:"audit_event_seq"`
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.AuditEventSeq == 0 {
		t.Fatalf("forget: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	db, err := store.Open(filepath.Join(dir, "aoi.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.VerifyAudit(context.Background()); err != nil || !v.OK || v.Entries < 3 {
		t.Fatalf("audit chain after prune/export/forget = %+v, %v", v, err)
	}
}

// TestAuditVerifyWarnsWhenTheSealFileIsMissing: `aoi audit verify` on a
// log that holds seals but whose audit-seal.json is gone from the data
// dir still passes (exit 0: the chain verifies), and warns on stderr,
// naming the file and what could not be checked; --json carries the
// warning too.
func TestAuditVerifyWarnsWhenTheSealFileIsMissing(t *testing.T) {
	isolate(t)
	dir := initDir(t)
	// A pruning is sealed at once, and the seal is filed in audit-seal.json.
	if r := runAOI(t, "--data-dir", dir, "prune", "--older-than", "30d"); r.code != exitOK {
		t.Fatalf("prune: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	anchor := filepath.Join(dir, "audit-seal.json")
	if r := runAOI(t, "--data-dir", dir, "audit", "verify"); r.code != exitOK || r.stderr != "" {
		t.Fatalf("verify with the seal file in place: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if err := os.Remove(anchor); err != nil {
		t.Fatalf("the pruning filed no seal: %v", err)
	}
	r := runAOI(t, "--data-dir", dir, "audit", "verify")
	if r.code != exitOK || !strings.Contains(r.stdout, "chain intact") {
		t.Fatalf("verify without the seal file: exit %d\n%s%s; want it to pass", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"warning: audit-seal.json is missing from " + dir, "cannot be checked against that copy kept outside the database"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("verify without the seal file: stderr %q; want %q", r.stderr, want)
		}
	}
	r = runAOI(t, "--data-dir", dir, "--json", "audit", "verify")
	var v struct {
		OK      bool   `json:"ok"`
		Warning string `json:"warning"`
	}
	if r.code != exitOK || json.Unmarshal([]byte(r.stdout), &v) != nil || !v.OK || !strings.Contains(v.Warning, "audit-seal.json is missing") {
		t.Errorf("--json verify without the seal file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "0d", "-1h", "d", "30 days"} {
		if _, err := parseAge(bad); err == nil {
			t.Errorf("parseAge(%q) accepted", bad)
		}
	}
}

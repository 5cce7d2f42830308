package acl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) *time.Time { t := t0.Add(d); return &t }

// workTree makes a real working tree for acme/webapp so file/folder
// classification is exercised against the file system.
func workTree(t testing.TB) string {
	dir := t.TempDir()
	for _, f := range []string{"README", "src/auth.go", "secrets/key.pem", "secrets/README.md"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "v1.2"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func contexts(tree string) []config.Context {
	return []config.Context{
		{Type: "repository", Identifier: "acme/webapp", LocalPath: tree},
		{Type: "repository", Identifier: "acme/api"},
		{Type: "issue", Identifier: "ISSUE-42"},
		{Type: "folder", Identifier: "notes"},
	}
}

func rules() []config.Rule {
	return []config.Rule{
		{ID: "allow-pm-read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"},
		{ID: "pm-run-tests", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
		{ID: "no-secrets", AgentID: "*", ScopeType: "folder", ScopePattern: "acme/webapp/secrets/**", Permission: "none"},
		{ID: "secrets-readme", AgentID: "*", ScopeType: "file", ScopePattern: "acme/webapp/secrets/README.md", Permission: "read"},
		{ID: "api-pm-none", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/api", Permission: "none"},
		{ID: "tanaka-api", AgentID: "pm-tanaka", ScopeType: "repository", ScopePattern: "acme/api", Permission: "read"},
		{ID: "sato-admin", AgentID: "eng-sato", ScopeType: "repository", ScopePattern: "acme/api", Permission: "admin"},
		{ID: "expired", AgentID: "pm-old", ScopeType: "repository", ScopePattern: "acme/api", Permission: "admin", ExpiresAt: at(-time.Hour)},
		{ID: "temporary", AgentID: "pm-new", ScopeType: "repository", ScopePattern: "acme/api", Permission: "admin", ExpiresAt: at(time.Hour)},
		{ID: "alice-docs", TailnetUser: "alice@example.com", ScopeType: "folder", ScopePattern: "acme/webapp/docs/**", Permission: "write"},
		{ID: "ci-tests", TailnetTag: "tag:ci", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
		{ID: "ops-notes", TailnetTag: "tag:ops", ScopeType: "folder", ScopePattern: "notes", Permission: "read"},
		{ID: "carol-notes", TailnetUser: "carol@example.com", ScopeType: "folder", ScopePattern: "notes", Permission: "none"},
		{ID: "qa-notes", AgentRole: "qa", ScopeType: "folder", ScopePattern: "notes", Permission: "none"},
		{ID: "qa-tests", AgentRole: "qa", ScopeType: "file", ScopePattern: "acme/webapp/**/*_test.go", Permission: "read"},
		{ID: "writer-md", AgentRole: "writer", ScopeType: "file", ScopePattern: "acme/webapp/*.md", Permission: "read"},
		{ID: "writer-readme", AgentRole: "writer", ScopeType: "file", ScopePattern: "acme/webapp/README", Permission: "write"},
		{ID: "triage", AgentRole: "triage", ScopeType: "issue", ScopePattern: "ISSUE-*", Permission: "write"},
	}
}

func policy(t testing.TB, audit bool, clock *time.Time) *Policy {
	return New(config.ACL{DefaultPermission: "none", Rules: rules(), AuditMode: audit},
		contexts(workTree(t)), func() time.Time { return *clock })
}

var (
	pm      = Subject{AgentID: "pm-yamada", Role: "pm"}
	tanaka  = Subject{AgentID: "pm-tanaka", Role: "pm"}
	sato    = Subject{AgentID: "eng-sato", Role: "engineer"}
	nobody  = Subject{AgentID: "eng-x", Role: "engineer"}
	alice   = Subject{AgentID: "eng-alice", Role: "engineer", TailnetUser: "Alice@Example.com"}
	ci      = Subject{AgentID: "ci-bot", Role: "bot", TailnetTags: []string{"tag:ci"}}
	carol   = Subject{AgentID: "ops-carol", Role: "ops", TailnetUser: "carol@example.com", TailnetTags: []string{"tag:ops"}}
	opsQA   = Subject{AgentID: "qa-ops", Role: "qa", TailnetTags: []string{"tag:ops"}}
	qa      = Subject{AgentID: "qa-1", Role: "qa"}
	writer  = Subject{AgentID: "w-1", Role: "writer"}
	triager = Subject{AgentID: "t-1", Role: "triage"}
)

func TestCheck(t *testing.T) {
	clock := t0
	p := policy(t, false, &clock)
	cases := []struct {
		name     string
		s        Subject
		a        Action
		resource string
		allowed  bool
		rule     string
		reason   string // substring of Reason
	}{
		// Scope specificity and the seed's first bug: an explicit none denies.
		{"role reads repo", pm, Read, "acme/webapp", true, "pm-run-tests", "rule pm-run-tests grants write on acme/webapp"},
		{"repo rule covers files beneath", pm, Read, "acme/webapp/src/auth.go", true, "pm-run-tests", ""},
		{"none rule denies under broader allow", pm, Read, "acme/webapp/secrets/key.pem", false, "no-secrets", "rule no-secrets grants none"},
		{"none rule covers the folder itself", pm, Read, "acme/webapp/secrets", false, "no-secrets", ""},
		{"none rule denies write too", pm, Write, "acme/webapp/secrets/key.pem", false, "no-secrets", ""},
		{"file beats folder", pm, Read, "acme/webapp/secrets/README.md", true, "secrets-readme", ""},
		{"file rule does not grant write", pm, Write, "acme/webapp/secrets/README.md", false, "secrets-readme", "write needs write"},
		{"execute needs write", pm, Execute, "acme/webapp", true, "pm-run-tests", ""},
		{"read-only cannot execute", tanaka, Execute, "acme/api", false, "tanaka-api", ""},
		// Subject specificity and ties.
		{"exact none beats glob read", pm, Read, "acme/api", false, "api-pm-none", ""},
		{"agent id beats role", tanaka, Read, "acme/api", true, "tanaka-api", ""},
		{"admin covers execute", sato, Execute, "acme/api", true, "sato-admin", ""},
		{"admin covers read beneath", sato, Read, "acme/api/internal/db.go", true, "sato-admin", ""},
		{"tailnet user beats tag", carol, Read, "notes/today", false, "carol-notes", ""},
		{"tailnet tag beats role", opsQA, Read, "notes/today", true, "ops-notes", ""},
		{"role alone", qa, Read, "notes/today", false, "qa-notes", ""},
		{"tailnet user case-insensitive", alice, Write, "acme/webapp/docs/api.md", true, "alice-docs", ""},
		{"tailnet user rule stays in scope", alice, Read, "acme/webapp/src", false, "", "no ACL rule matches"},
		{"tailnet tag", ci, Execute, "acme/webapp", true, "ci-tests", ""},
		{"tag not held", Subject{AgentID: "ci-2", TailnetTags: []string{"tag:dev"}}, Execute, "acme/webapp", false, "", ""},
		// Default permission.
		{"no rule: default none", nobody, Read, "acme/webapp", false, "", "default_permission is none"},
		// Expiry.
		{"expired rule ignored", Subject{AgentID: "pm-old"}, Read, "acme/api", false, "", "no ACL rule matches"},
		{"unexpired rule applies", Subject{AgentID: "pm-new"}, Write, "acme/api", true, "temporary", ""},
		// Globs.
		{"** spans segments", qa, Read, "acme/webapp/a/b/c/x_test.go", true, "qa-tests", ""},
		{"** spans zero segments", qa, Read, "acme/webapp/x_test.go", true, "qa-tests", ""},
		{"** then * must still match", qa, Read, "acme/webapp/a/x.go", false, "", ""},
		{"* stays in one segment", writer, Read, "acme/webapp/docs/guide.md", false, "", ""},
		{"* within a segment", writer, Read, "acme/webapp/CHANGES.md", true, "writer-md", ""},
		{"* prefix does not leak across names", pm, Read, "acme/webapp-docs", false, "", ""},
		// Classification: README is a regular file in the tree (no dot).
		{"file rule on dotless file", writer, Write, "acme/webapp/README", true, "writer-readme", ""},
		{"dotted directory is a folder", writer, Read, "acme/webapp/v1.2", false, "", ""},
		{"issue rule", triager, Write, "ISSUE-42", true, "triage", ""},
		// Normalisation.
		{"clean path", pm, Read, "acme//webapp/./src/", true, "pm-run-tests", ""},
		{"dot-dot inside the repo", pm, Read, "acme/webapp/src/../README", true, "pm-run-tests", ""},
		{"dot-dot into secrets", pm, Read, "acme/webapp/src/../secrets/key.pem", false, "no-secrets", ""},
		{"escape to sibling repo", sato, Read, "acme/webapp/../api", false, "", "escapes context acme/webapp"},
		{"escape the repo root", pm, Read, "acme/webapp/..", false, "", "escapes context acme/webapp"},
		{"climb out of everything", pm, Read, "../etc/passwd", false, "", "climbs out"},
		{"dot-dot in unknown place", pm, Read, "x/../acme/webapp", false, "", "outside a known context"},
		{"absolute path", pm, Read, "/etc/passwd", false, "", "absolute path"},
		{"backslash", pm, Read, `acme\webapp`, false, "", "backslash"},
		{"NUL", pm, Read, "acme/webapp\x00", false, "", "NUL"},
		{"empty", pm, Read, "", false, "", "empty"},
		{"dot", pm, Read, ".", false, "", "names nothing"},
		// Unknown resources are only matched by wildcard rules.
		{"unknown resource", pm, Read, "acme/other", false, "", "no ACL rule matches"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := p.Check(tc.s, tc.a, tc.resource)
			if d.Allowed != tc.allowed || d.RuleID != tc.rule {
				t.Errorf("Check(%s, %s, %q) = allowed %v rule %q, want %v %q (%s)",
					tc.s.AgentID, tc.a, tc.resource, d.Allowed, d.RuleID, tc.allowed, tc.rule, d.Reason)
			}
			if !strings.Contains(d.Reason, tc.reason) || d.Reason == "" {
				t.Errorf("reason %q, want it to contain %q", d.Reason, tc.reason)
			}
			if d.AuditOnly {
				t.Error("AuditOnly set outside audit mode")
			}
		})
	}
}

func TestCheckScopeChecksEveryEntry(t *testing.T) {
	clock := t0
	p := policy(t, false, &clock)
	cases := []struct {
		name    string
		s       Subject
		scope   []string
		allowed bool
		denied  string
	}{
		{"all allowed", pm, []string{"acme/webapp", "acme/webapp/src"}, true, ""},
		// The seed's second bug: only the first entry was checked.
		{"forbidden entry second", pm, []string{"acme/webapp", "acme/webapp/secrets/key.pem"}, false, "acme/webapp/secrets/key.pem"},
		{"forbidden entry last of three", pm, []string{"acme/webapp", "acme/webapp/src", "acme/api"}, false, "acme/api"},
		{"first denial is named", pm, []string{"acme/webapp", "acme/api", "acme/webapp/secrets"}, false, "acme/api"},
		{"malformed entry", pm, []string{"acme/webapp", "acme/webapp/../api"}, false, "acme/webapp/../api"},
		// An empty scope means every configured context.
		{"empty scope, all contexts allowed", sato, nil, false, "acme/webapp"},
		{"empty scope names the first forbidden context", tanaka, nil, false, "ISSUE-42"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, denied := p.CheckScope(tc.s, Read, tc.scope)
			if d.Allowed != tc.allowed || denied != tc.denied {
				t.Errorf("CheckScope = allowed %v denied %q, want %v %q (%s)", d.Allowed, denied, tc.allowed, tc.denied, d.Reason)
			}
			if denied != "" && !strings.Contains(d.Reason, "access to") && !strings.Contains(d.Reason, "escapes") {
				t.Errorf("reason %q does not explain the denial", d.Reason)
			}
		})
	}
	everything := New(config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "all-read", AgentID: "*", ScopeType: "repository", ScopePattern: "**", Permission: "read"},
	}}, contexts(t.TempDir()), nil)
	if d, denied := everything.CheckScope(pm, Read, nil); !d.Allowed || denied != "" || d.RuleID != "all-read" {
		t.Errorf("empty scope with a wildcard grant: %+v denied %q", d, denied)
	}
}

func TestNoContexts(t *testing.T) {
	acl := config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "peers-read", AgentID: "*", ScopeType: "repository", ScopePattern: "**", Permission: "read"},
		{ID: "pm-named", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/*", Permission: "write"},
	}}
	p := New(acl, nil, nil)
	if d, denied := p.CheckScope(pm, Read, nil); !d.Allowed || denied != "" || d.RuleID != "peers-read" {
		t.Errorf("read with no contexts: %+v", d)
	}
	if d, denied := p.CheckScope(pm, Write, nil); d.Allowed || denied != "" {
		t.Errorf("write with no contexts should be denied by the wildcard rule: %+v", d)
	}
	// An unknown resource ignores the non-wildcard rule even though it matches.
	if d := p.Check(pm, Write, "acme/webapp"); d.Allowed || d.RuleID != "peers-read" {
		t.Errorf("unknown resource: %+v", d)
	}
	if p.Known("acme/webapp") {
		t.Error("Known reports an unconfigured context")
	}
	q := New(config.ACL{DefaultPermission: "read"}, contexts(t.TempDir()), nil)
	if !q.Known("acme/webapp/src/x.go") || !q.Known("acme/api") || q.Known("acme/webapp/../x") {
		t.Error("Known wrong for configured contexts")
	}
	if d := q.Check(pm, Read, "acme/api"); !d.Allowed || d.RuleID != "" || !strings.Contains(d.Reason, "default_permission read allows") {
		t.Errorf("default read: %+v", d)
	}
	if d := q.Check(pm, Write, "acme/api"); d.Allowed {
		t.Errorf("default read allowed a write: %+v", d)
	}
}

func TestExpiryFollowsClock(t *testing.T) {
	clock := t0
	p := policy(t, false, &clock)
	s := Subject{AgentID: "pm-new"}
	if !p.Check(s, Read, "acme/api").Allowed {
		t.Fatal("temporary rule should apply before it expires")
	}
	clock = t0.Add(time.Hour) // exactly at expires_at: expired
	if d := p.Check(s, Read, "acme/api"); d.Allowed || d.RuleID != "" {
		t.Errorf("rule still applies at its expiry: %+v", d)
	}
}

func TestAuditMode(t *testing.T) {
	clock := t0
	p := policy(t, true, &clock)
	d := p.Check(pm, Read, "acme/webapp/secrets/key.pem")
	if !d.Allowed || !d.AuditOnly || d.RuleID != "no-secrets" || d.Permission != "none" || !strings.Contains(d.Reason, "audit_mode") {
		t.Errorf("audit mode deny: %+v", d)
	}
	if d := p.Check(pm, Read, "acme/webapp"); !d.Allowed || d.AuditOnly {
		t.Errorf("audit mode allow: %+v", d)
	}
	if d := p.Check(pm, Read, "../etc/passwd"); d.Allowed {
		t.Errorf("audit mode let a path escape through: %+v", d)
	}
	d, denied := p.CheckScope(pm, Read, []string{"acme/webapp", "acme/api"})
	if !d.Allowed || !d.AuditOnly || denied != "" || d.RuleID != "api-pm-none" {
		t.Errorf("CheckScope in audit mode should report the audit-only entry: %+v %q", d, denied)
	}
}

func TestAllowedFilter(t *testing.T) {
	clock := t0
	p := policy(t, false, &clock)
	ok := p.Allowed(pm, Read)
	results := []string{"acme/webapp/src/auth.go", "acme/webapp/secrets/key.pem", "acme/webapp/src/auth.go", "acme/api/x.go", "acme/webapp/secrets/README.md"}
	var kept []string
	for _, r := range results {
		if ok(r) {
			kept = append(kept, r)
		}
	}
	want := "acme/webapp/src/auth.go acme/webapp/src/auth.go acme/webapp/secrets/README.md"
	if got := strings.Join(kept, " "); got != want {
		t.Errorf("kept %q, want %q", got, want)
	}
}

func TestClassify(t *testing.T) {
	tree := workTree(t)
	web := &contextInfo{id: "acme/webapp", typ: "repository", localPath: tree}
	bare := &contextInfo{id: "acme/api", typ: "repository"}
	cases := []struct {
		c    *contextInfo
		name string
		want string
	}{
		{web, "acme/webapp", "repository"},
		{web, "acme/webapp/README", "file"},
		{web, "acme/webapp/src", "folder"},
		{web, "acme/webapp/v1.2", "folder"},
		{web, "acme/webapp/src/auth.go", "file"},
		{web, "acme/webapp/missing.txt", "file"},
		{web, "acme/webapp/missing", "folder"},
		{bare, "acme/api/pkg", "folder"},
		{bare, "acme/api/pkg/x.go", "file"},
	}
	for _, tc := range cases {
		if got, _ := classify(tc.c, tc.name); got != tc.want {
			t.Errorf("classify(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFileRuleHoldsForAFileThatIsGone: a file rule on deploy/id_rsa (no
// dot) stopped applying once the file was deleted from the working tree:
// the name was then read as a folder's, and the re-check read the commit
// that added the key. A path nothing is at may be a file.
func TestFileRuleHoldsForAFileThatIsGone(t *testing.T) {
	tree := workTree(t)
	p := New(config.ACL{DefaultPermission: "read", Rules: []config.Rule{
		{ID: "no-key", AgentID: "*", ScopeType: "file", ScopePattern: "acme/webapp/deploy/id_rsa", Permission: "none"}}},
		[]config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: tree}}, nil)
	if d := p.Check(Subject{AgentID: "pm"}, Read, "acme/webapp/deploy/id_rsa"); d.Allowed {
		t.Errorf("a deleted file under a file rule: %+v; want denied", d)
	}
	if d := p.Check(Subject{AgentID: "pm"}, Read, "acme/webapp/src"); !d.Allowed {
		t.Errorf("a folder that exists: %+v; want the default", d)
	}
}

func TestMatchSegments(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"acme/*", "acme/webapp", true},
		{"acme/*", "acme/webapp/src", false},
		{"acme/**", "acme", true},
		{"acme/**", "acme/a/b/c", true},
		{"**", "anything/at/all", true},
		{"a/**/b/**/c", "a/x/b/y/z/c", true},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b", "a/x/c", false},
		{"a/**/**/b", "a/b", true},
		{"a/*", "a", false},
		{"a", "a/b", false},
		{"**/b", "a/b", true},
		{"**/b", "b", true},
		{"**/b", "a", false},
		{"a/*.go", "a/x.go", true},
		{"a/[", "a/[", true}, // malformed glob matches only itself
		{"ISSUE-*", "ISSUE-42", true},
	}
	for _, tc := range cases {
		p, _ := compilePattern(tc.pattern)
		if got := matchPath(p, tc.name); got != tc.want {
			t.Errorf("match(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestSpecificityOrder(t *testing.T) {
	// A broad wildcard none loses to a repository read; a repository read
	// loses to a folder none; a folder none loses to a file read.
	acl := config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "w", AgentID: "*", ScopeType: "repository", ScopePattern: "**", Permission: "none"},
		{ID: "r", AgentID: "*", ScopeType: "repository", ScopePattern: "acme/api", Permission: "read"},
		{ID: "f", AgentID: "*", ScopeType: "folder", ScopePattern: "acme/api/internal", Permission: "none"},
		{ID: "x", AgentID: "*", ScopeType: "file", ScopePattern: "acme/api/internal/ok.go", Permission: "read"},
	}}
	p := New(acl, []config.Context{{Type: "repository", Identifier: "acme/api"}}, nil)
	cases := map[string]string{
		"acme/api":                 "r",
		"acme/api/pkg/a.go":        "r",
		"acme/api/internal":        "f",
		"acme/api/internal/bad.go": "f",
		"acme/api/internal/ok.go":  "x",
		"elsewhere":                "w",
	}
	for res, want := range cases {
		if d := p.Check(pm, Read, res); d.RuleID != want {
			t.Errorf("%s decided by %q, want %q (%s)", res, d.RuleID, want, d.Reason)
		}
	}
}

func TestFullTieMoreRestrictive(t *testing.T) {
	read := config.Rule{ID: "read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/api", Permission: "read"}
	none := config.Rule{ID: "none", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/api", Permission: "none"}
	admin := config.Rule{ID: "admin", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/api", Permission: "admin"}
	ctx := []config.Context{{Type: "repository", Identifier: "acme/api"}}
	for _, order := range [][]config.Rule{{read, none, admin}, {admin, none, read}, {none, admin, read}} {
		p := New(config.ACL{DefaultPermission: "admin", Rules: order}, ctx, nil)
		if d := p.Check(pm, Read, "acme/api/x.go"); d.Allowed || d.RuleID != "none" {
			t.Errorf("order %s/%s/%s: %+v", order[0].ID, order[1].ID, order[2].ID, d)
		}
	}
}

func TestExactPatternBeatsGlob(t *testing.T) {
	// The example config's pair: PMs read acme/*, and may write (run tests
	// in) acme/webapp. Same scope type, same subject: the exact pattern is
	// the more specific rule.
	p := New(config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "glob-read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"},
		{ID: "exact-write", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
		{ID: "glob-none", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/**", Permission: "none"},
	}}, []config.Context{{Type: "repository", Identifier: "acme/webapp"}, {Type: "repository", Identifier: "acme/api"}}, nil)
	if d := p.Check(pm, Execute, "acme/webapp"); !d.Allowed || d.RuleID != "exact-write" {
		t.Errorf("acme/webapp: %+v", d)
	}
	if d := p.Check(pm, Read, "acme/api"); !d.Allowed || d.RuleID != "glob-read" {
		t.Errorf("acme/api: * should beat **: %+v", d)
	}
}

func TestExampleConfigPolicy(t *testing.T) {
	c, err := config.Parse("aoi.example.json", config.ExampleJSON(), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	p := New(c.ACL, c.Contexts, nil)
	pmT := Subject{AgentID: "pm-tanaka", Role: "pm"}
	checks := []struct {
		s    Subject
		a    Action
		res  string
		want bool
	}{
		{pmT, Read, "acme/webapp", true},
		{pmT, Execute, "acme/webapp", true},
		{pmT, Read, "acme/webapp/secrets/prod.env", false},
		{Subject{AgentID: "eng-x", Role: "engineer"}, Read, "acme/webapp", false},
	}
	for _, ck := range checks {
		if d := p.Check(ck.s, ck.a, ck.res); d.Allowed != ck.want {
			t.Errorf("%s %s %s = %v, want %v (%s)", ck.s.AgentID, ck.a, ck.res, d.Allowed, ck.want, d.Reason)
		}
	}
}

func TestConcurrentChecks(t *testing.T) {
	clock := t0
	p := policy(t, false, &clock)
	done := make(chan bool)
	for g := 0; g < 8; g++ {
		go func() {
			ok := true
			for i := 0; i < 200; i++ {
				d, denied := p.CheckScope(pm, Read, []string{"acme/webapp/src/auth.go", "acme/webapp/secrets/key.pem"})
				ok = ok && !d.Allowed && denied == "acme/webapp/secrets/key.pem"
			}
			done <- ok
		}()
	}
	for g := 0; g < 8; g++ {
		if !<-done {
			t.Error("a concurrent check returned a different decision")
		}
	}
}

// TestCheckBeneathFindsADeniedFolderUnderThePath: a path that reaches a
// folder the subject is kept out of (a recursive task on the repository's
// root, on "secrets"' parent) is denied, naming that folder; a path beside
// it, or a rule that lets the subject in deeper, is not.
func TestCheckBeneathFindsADeniedFolderUnderThePath(t *testing.T) {
	clock := t0
	p := policy(t, false, &clock)
	pm := Subject{AgentID: "pm-yamada", Role: "pm"}
	for name, denied := range map[string]string{
		"acme/webapp":         "acme/webapp/secrets",
		"acme/webapp/secrets": "acme/webapp/secrets",
		"acme/webapp/src":     "",
		"acme/webapp/v1.2":    "",
	} {
		d, at := p.CheckBeneath(pm, Execute, name)
		if denied == "" {
			if !d.Allowed || at != "" {
				t.Errorf("CheckBeneath(%s) = %+v at %q; want allowed", name, d, at)
			}
			continue
		}
		if d.Allowed || at != denied || d.RuleID != "no-secrets" {
			t.Errorf("CheckBeneath(%s) = %+v at %q; want denied at %s by no-secrets", name, d, at, denied)
		}
	}
	// A ** rule names a folder at any depth under the path.
	anywhere := New(config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "pm-all", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
		{ID: "no-env", AgentRole: "pm", ScopeType: "folder", ScopePattern: "acme/**/env", Permission: "none"},
	}}, contexts(workTree(t)), nil)
	if d, at := anywhere.CheckBeneath(pm, Execute, "acme/webapp/src"); d.Allowed || at != "acme/webapp/src/env" {
		t.Errorf("CheckBeneath under a ** rule = %+v at %q; want denied at acme/webapp/src/env", d, at)
	}
	// Another subject's rule is not this one's business.
	other := New(config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "pm-all", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
		{ID: "qa-no-secrets", AgentRole: "qa", ScopeType: "folder", ScopePattern: "acme/webapp/secrets/**", Permission: "none"},
	}}, contexts(workTree(t)), nil)
	if d, at := other.CheckBeneath(pm, Execute, "acme/webapp"); !d.Allowed || at != "" {
		t.Errorf("CheckBeneath with only another role's rule = %+v at %q; want allowed", d, at)
	}
}

// TestDenyingRulesIgnoreCase: a rule that keeps a peer out matches any
// case of its pattern (on macOS and Windows Secrets/ is secrets/), a glob
// too; a rule that grants access keeps to the case it names.
func TestDenyingRulesIgnoreCase(t *testing.T) {
	p := New(config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "pm-all", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
		{ID: "no-secrets", AgentRole: "pm", ScopeType: "folder", ScopePattern: "acme/webapp/secrets/**", Permission: "none"},
		{ID: "no-env", AgentRole: "pm", ScopeType: "folder", ScopePattern: "acme/webapp/*.env", Permission: "none"},
		{ID: "docs", AgentRole: "qa", ScopeType: "folder", ScopePattern: "acme/webapp/docs", Permission: "read"},
	}}, contexts(workTree(t)), nil)
	for _, res := range []string{"acme/webapp/Secrets/plan.txt", "acme/webapp/SECRETS", "acme/webapp/PROD.ENV", "ACME/WEBAPP/secrets/x"} {
		if d := p.Check(pm, Read, res); d.Allowed {
			t.Errorf("Check(%s) = %+v; want denied whatever the case", res, d)
		}
	}
	if d := p.Check(pm, Read, "acme/webapp/src/main.go"); !d.Allowed {
		t.Errorf("an ordinary file: %+v", d)
	}
	if d := p.Check(qa, Read, "acme/webapp/DOCS/a.md"); d.Allowed {
		t.Errorf("a granting rule matched another case: %+v", d)
	}
}

// TestAllowedFolderWhole: a resource ending in "/" is the folder with
// everything under it — what a recursive search read — so a folder
// holding one kept from the subject is refused, though the folder itself
// is readable.
func TestAllowedFolderWhole(t *testing.T) {
	clock := t0
	allowed := policy(t, false, &clock).Allowed(pm, Read)
	if !allowed("acme/webapp") || !allowed("acme/webapp/src/") {
		t.Error("the repository, and a folder with nothing kept from pm, should be readable")
	}
	if allowed("acme/webapp/") {
		t.Error("the repository read whole (secrets/ with it) was allowed")
	}
}

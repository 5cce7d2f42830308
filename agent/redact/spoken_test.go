package redact

import (
	"strings"
	"testing"
)

// TestSlashPairs: a user and password written "root / S3cr3tPass", or
// after "use" (use admin/Xyz123secret), lose the password and keep the
// user; fractions of words, branches and paths stay.
func TestSlashPairs(t *testing.T) {
	r := newRedactor(t)
	for in, c := range map[string]struct{ user, secret string }{
		"root / S3cr3tPass":                                {"root", "S3cr3tPass"},
		"ssh in as root / S3cr3tPass, then sudo":           {"root", "S3cr3tPass"},
		"staging: deploy@example.com / Zr4Bx7kQ2Lm9":       {"deploy@example.com", "Zr4Bx7kQ2Lm9"},
		"Administrator / 'Hunter2pass!'":                   {"Administrator", "Hunter2pass!"},
		"for staging use admin/Xyz123secret":               {"admin", "Xyz123secret"},
		"Use ci-bot/Zr4Bx7kQ2Lm9 on the runner.":           {"ci-bot", "Zr4Bx7kQ2Lm9"},
		"for the demo box use admin / Hunter2pass! please": {"admin", "Hunter2pass!"},
	} {
		out, f := r.Redact(in)
		if strings.Contains(out, c.secret) || len(f) == 0 || !strings.Contains(out, "[REDACTED:password]") || !strings.Contains(out, c.user) {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
	}
	keepsAll(t, r, []string{
		"read / write access for the team",
		"TCP / UDP both work",
		"src / lib/auth2fa.go",
		"docs / Guide2024/intro.md",
		"compare main / Main2File.go",
		"the ratio is 3 / 4",
		"use feature/Add2FALogin for the demo",
		"use origin/Release2024x to compare",
		"use src/Main2File.go as the entry point",
		"use github.com/acme/Webapp2x",
		"use admin/see-the-vault",
		"use json/yaml for configs",
		"use ${USER}/${PASSWORD}",
	})
}

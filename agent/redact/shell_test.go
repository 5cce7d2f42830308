package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSecretFedToACommand: a secret a shell line feeds a command through
// a process substitution after a flag naming it (--vault-password-file
// <(echo …)), a here-string to a command reading it from stdin (sudo -S,
// --password-stdin) or echo or printf piped into one, short ones too
// (the re-check saw these kept); a process substitution of a command, a
// variable and a here-string to another command stay.
func TestSecretFedToACommand(t *testing.T) {
	r := newRedactor(t)
	redactsTo(t, r, map[string]string{
		"ansible-playbook site.yml --vault-password-file <(echo 'S3cret!')":           "ansible-playbook site.yml --vault-password-file <(echo '[REDACTED:password]')",
		"ansible-vault view x.yml --vault-password-file=<(echo -n S3cret9)":           "ansible-vault view x.yml --vault-password-file=<(echo -n [REDACTED:password])",
		"kubectl create secret generic db --from-file=password=<(printf '%s' 'pw4u')": "kubectl create secret generic db --from-file=password=<(printf '%s' '[REDACTED:password]')",
		"echo 'pw' | sudo -S apt update":                                              "echo '[REDACTED:password]' | sudo -S apt update",
		`printf '%s\n' "S3cret!" | sudo -k -S systemctl restart app`:                  `printf '%s\n' "[REDACTED:password]" | sudo -k -S systemctl restart app`,
		"docker login -u me --password-stdin <<< 'S3cret!'":                           "docker login -u me --password-stdin <<< '[REDACTED:password]'",
		`sudo -S apt update <<< "hunter2"`:                                            `sudo -S apt update <<< "[REDACTED:password]"`,
		"gpg --batch --passphrase-fd 0 -d backup.gpg <<< Tr0ub4dor":                   "gpg --batch --passphrase-fd 0 -d backup.gpg <<< [REDACTED:password]",
		"echo -n 'S3cret!' | passwd --stdin deploy":                                   "echo -n '[REDACTED:password]' | passwd --stdin deploy",
	})
	keepsAll(t, r, []string{
		"diff <(echo hello) <(echo world)",
		"source <(kubectl completion bash)",
		"ansible-playbook site.yml --vault-password-file <(pass show ansible/vault)",
		"--vault-password-file <(echo \"$VAULT_PASS\")",
		`echo "$(cat ~/.pw)" | sudo -S true`,
		"echo $SUDO_PASSWORD | sudo -S true",
		"grep -c error <<< \"$output\"",
		"wc -w <<< 'hello world again'",
	})
}

// TestShellAndSentryPrefiltersAreSound: the prefilters of the rules on
// shell lines and Sentry DSNs never reject text their expressions match.
func TestShellAndSentryPrefiltersAreSound(t *testing.T) {
	for _, c := range []struct {
		rules []*rule
		parts []string
	}{
		{[]*rule{&shellFedRule, &cliPasswordRule}, []string{"<(echo ", "<( printf '%s' ", "--vault-password-file ", "--from-file=password=", "TOKEN=", ")",
			"'pw'", `"S3cret!"`, "Zr4Bx7kQ", " ", " | ", "sudo -k -S ", "sudo -S", "<<< ", "<<<", "--password-stdin ", "--pass-stdin", "passwd --stdin ",
			"--passphrase-fd 0 ", "echo -n ", "printf ", "echo "}},
		{[]*rule{&sentryDSNRule}, []string{"SENTRY_DSN=", "dsn: ", " ", "0123456789abcdef0123456789ABCDEF", "@o1.ingest.sentry.io/7", "@SENTRY.example.com",
			"@ſentry.example.com", "https://", `https:\/\/`, "key", "@o45.ingest.us.sentry.io/6", "%2F", `\u002f`}},
	} {
		rng := rand.New(rand.NewPCG(3, 4))
		hits := map[*rule]int{}
		for range 10000 {
			var b strings.Builder
			for range 2 + rng.IntN(6) {
				b.WriteString(c.parts[rng.IntN(len(c.parts))])
			}
			s := b.String()
			for _, ru := range c.rules {
				if ru.re.MatchString(s) {
					hits[ru]++
					if !ru.may(newText(s)) {
						t.Fatalf("rule %s matches %q but its prefilter rejects it", ru.re, s)
					}
				}
			}
		}
		for _, ru := range c.rules {
			if hits[ru] < 50 {
				t.Errorf("%d matches of %s: the generator does not exercise it", hits[ru], ru.re)
			}
		}
	}
}

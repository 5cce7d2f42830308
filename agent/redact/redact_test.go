package redact

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// Test secrets are assembled at run time so the repository itself never
// holds a string that secret scanners would flag.
var (
	awsKey    = "AKIA" + "Z7QXPLMR4TWV2KJN"
	ghToken   = "ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	pemHeader = "-----BEGIN RSA " + "PRIVATE KEY-----"
	pemFooter = "-----END RSA " + "PRIVATE KEY-----"
	pemBody   = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGcY5unA67hqxVQ+9Jc0sZ1b\nq7mWx4rT3nB2ZkQ8pLx0aY5cV9dE2fG3hJ4kL5mN6oP7qR8sT9uV0wX1yZ2aB3c\n"
	apiSecret = "x8Fk3Lq9Zr2Tw7Vb5Nm1Hs4Jd6Gp0Ya"
	awsSecret = "Dhf05fW2gRLsS43b1EoB" + "fbEIrYmKLg6UZ0arCd27"
)

func newRedactor(t testing.TB, custom ...Pattern) *Redactor {
	t.Helper()
	r, err := New(custom)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRedact(t *testing.T) {
	r := newRedactor(t, Pattern{ID: "internal-hostname", Regex: `[a-z0-9-]+\.corp\.acme\.internal`})
	cases := []struct {
		name    string
		in      string
		secret  string
		wantTag string
	}{
		{"aws key", "deploy with aws_access_key_id = " + awsKey + " today", awsKey, "[REDACTED:aws-access-token]"},
		{"github token", "export GITHUB_TOKEN=" + ghToken, ghToken, "[REDACTED:github-pat]"},
		{"pem block", "key:\n" + pemHeader + "\n" + pemBody + pemFooter + "\nend", "MIIEowIBAAKCAQEA", "[REDACTED:private-key]"},
		{"pem in a diff", "+" + pemHeader + "\n+" + strings.ReplaceAll(strings.TrimSuffix(pemBody, "\n"), "\n", "\n+") + "\n+" + pemFooter, "MIIEowIBAAKCAQEA", "[REDACTED:private-key]"},
		{"truncated pem", "diff --git a/k b/k\n+" + pemHeader + "\n+MIIEowIBAAKCAQEA0Z3VS5JJ", "MIIEowIBAAKCAQEA", "[REDACTED:private-key]"},
		{"aws secret in prose", "the aws secret for the image bucket is " + awsSecret + ", ask first", awsSecret, "[REDACTED:aws-secret-key]"},
		{"aws secret in japanese prose", "AWSのsecretは " + awsSecret + " です", awsSecret, "[REDACTED:aws-secret-key]"},
		{"generic api key", `config.api_key = "` + apiSecret + `"`, apiSecret, "[REDACTED:generic-api-key]"},
		{"custom pattern", "ssh build-7.corp.acme.internal now", "build-7.corp.acme.internal", "[REDACTED:internal-hostname]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, findings := r.Redact(c.in)
			if strings.Contains(out, c.secret) {
				t.Fatalf("secret survived: %q", out)
			}
			if !strings.Contains(out, c.wantTag) {
				t.Fatalf("want %s in %q", c.wantTag, out)
			}
			if len(findings) == 0 {
				t.Fatal("no findings reported")
			}
			again, more := r.Redact(out)
			if again != out || len(more) != 0 {
				t.Fatalf("not idempotent: %q → %q (%v)", out, again, more)
			}
		})
	}
}

func TestRedactLeavesCleanTextAlone(t *testing.T) {
	r := newRedactor(t)
	for _, s := range []string{
		"",
		"fix: refresh token rotation in auth/jwt.go (#123)",
		"認証機能のリフレッシュトークン処理を実装",
		"TestRefreshToken fails: redis: connection refused",
		"see https://example.com/docs?page=2 for the API",
		"the aws secret rotation runs nightly; see docs/rotation/aws-secret-rotation-plan.md",
	} {
		out, f := r.Redact(s)
		if out != s || len(f) != 0 {
			t.Errorf("clean text changed: %q → %q (%v)", s, out, f)
		}
	}
}

func TestNewRejectsBadPattern(t *testing.T) {
	if _, err := New([]Pattern{{ID: "bad", Regex: "("}}); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("want an error naming the pattern, got %v", err)
	}
	if _, err := New([]Pattern{{Regex: "x"}}); err == nil {
		t.Fatal("want an error for a pattern without id")
	}
}

func TestRedactConcurrent(t *testing.T) {
	r := newRedactor(t)
	in := "token " + ghToken + " and key " + awsKey
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				out, _ := r.Redact(in)
				if strings.Contains(out, ghToken) || strings.Contains(out, awsKey) {
					t.Errorf("secret survived: %q", out)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkRedactTypicalEvent(b *testing.B) {
	r := newRedactor(b)
	ev := "commit 3f9a2c1: auth: rotate refresh tokens on use\n\nFiles: auth/jwt.go (+42 -7), auth/refresh.go (+13 -2)\n" +
		"TODO(auth/refresh.go:88): decide the token store. 認証のリフレッシュ処理を追加。"
	b.ReportAllocs()
	for b.Loop() {
		r.Redact(ev)
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		newRedactor(b)
	}
}

func TestRedactAWSKeyOutsideBase32(t *testing.T) {
	r := newRedactor(t)
	key := "AKIA" + "Q4R7TZ2XWPLM5VN8" // 8 is not base32: gitleaks' own rule misses it
	out, _ := r.Redact("aws_access_key_id = " + key)
	if strings.Contains(out, key) || !strings.Contains(out, "[REDACTED:aws-access-token]") {
		t.Fatalf("got %q", out)
	}
}

// TestRedactPasswordAssignments: the attack run's values, which gitleaks'
// generic rule lets through (a character outside its set, or the word
// "password" in the match), lose their value; prose about passwords and
// the word inside another word stay.
func TestRedactPasswordAssignments(t *testing.T) {
	r := newRedactor(t)
	for in, secret := range map[string]string{
		`password=Hunter2SuperSecret!9`:                                "Hunter2SuperSecret!9",
		`db_password: "Tr0ub4dor&3xyzzy"`:                              "Tr0ub4dor&3xyzzy",
		`creds: password=Xk9mQ2vL7pR4wZ8t and the rest`:                "Xk9mQ2vL7pR4wZ8t",
		`PASSWORD: "Qw7Rt5Yu3Io1Pa9S"`:                                 "Qw7Rt5Yu3Io1Pa9S",
		`passwd=hunter2`:                                               "hunter2",
		`{"query":"DB_PWD := s3cr3t-v@lue, thanks"}`:                   "s3cr3t-v@lue",
		`"password": "correct horse"`:                                  "correct horse",
		`{"query":"config has \"password\": \"correct horse\" in it"}`: "correct horse",
		// The attack run's gaps: camelCase and numbered names, non-breaking
		// spaces, a long quoted value, a backslash in the value.
		`dbPassword=Vq8zLm3Kp`:                        "Vq8zLm3Kp",
		`userPassword: Hn4Tq9Wz2`:                     "Hn4Tq9Wz2",
		`password2=Rt6Yp1Ls8`:                         "Rt6Yp1Ls8",
		"password\u00a0=\u00a0Zx5Cv7Bn3":              "Zx5Cv7Bn3",
		`password="` + strings.Repeat("k", 300) + `"`: strings.Repeat("k", 300),
		`password=V25\hunterpw`:                       `V25\hunterpw`,
		// The next attack run's: full-width operators, Japanese, URLs
		// with a password, an AWS secret beside its key id.
		`password＝Pq4Rs7Tu1`:                                                             "Pq4Rs7Tu1",
		`パスワード：Kj8Hg5Fd2`:                                                                "Kj8Hg5Fd2",
		`DBのパスワードは Lm3Np6Qr9 です`:                                                         "Lm3Np6Qr9",
		`connect with postgres://app:Xk9vQ2mLp7RtZ4wB@10.0.0.5/prod`:                     "Xk9vQ2mLp7RtZ4wB",
		`mysql://root:Sup3rS3cretPw@db:3306`:                                             "Sup3rS3cretPw",
		`git push https://deploy:gho_abcdefghij0123456789@git.example.com/x.git`:         "gho_abcdefghij0123456789",
		`FIXME key AKIAQWERTYUIOPASDFGH secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		// The re-check's: an empty user, an "@" in the password, escaped
		// slashes, a secret key right after its id.
		`redis://:Rd7pQ2wX9z@cache:6379`:                                "Rd7pQ2wX9z",
		`https://u:S3CR@ETx9q@host.example.com/x`:                       "S3CR@ETx9q",
		`{"url":"https:\/\/u:Pw8rT5yU2i@h.example.com"}`:                "Pw8rT5yU2i",
		`AKIAQWERTYUIOPASDFGH wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		`AKIAQWERTYUIOPASDFGH:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		// The gaps that were left: half-width katakana, full-width
		// letters, a password changed to a value, a "/" in a URL's.
		`ﾊﾟｽﾜｰﾄﾞ: Hw4Kt8Zp2`:                          "Hw4Kt8Zp2",
		`ｐａｓｓｗｏｒｄ＝Fw7Lt3Xq9`:                          "Fw7Lt3Xq9",
		`ＰＡＳＳＷＯＲＤ： ＦｗＸ９ｑ２ｒ`:                           "ＦｗＸ９ｑ２ｒ",
		`本番DBのパスワードを Ch4Ng3dPw に変更しました`:               "Ch4Ng3dPw",
		`パスワードをNw8Pq2Lz5に変更`:                          "Nw8Pq2Lz5",
		`管理画面のパスワードを「Qz 7Kp 2Lm」に設定した`:                "Qz 7Kp 2Lm",
		`postgres://app:Pa5s/w0rd9x@db.internal/prod`: "Pa5s/w0rd9x",
		// The third attack run's: secrets told in prose, headers, flags.
		`the admin password is XsiVpzz63Ffk`:                                        "XsiVpzz63Ffk",
		`Password is: letmein999`:                                                   "letmein999",
		`the api token is QoaF1Lls9xKq`:                                             "QoaF1Lls9xKq",
		`Authorization: Bearer HF4vUCsMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1`:            "HF4vUCsMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1",
		`curl -H "authorization: Basic YWRtaW46c2VjcmV0cGFzc3dvcmQxMjM=" https://x`: "YWRtaW46c2VjcmV0cGFzc3dvcmQxMjM=",
		`mysql -u root -pgGCJbW56eCuN prod`:                                         "gGCJbW56eCuN",
		`sshpass -p GMGmSrCGIZEG ssh deploy@host`:                                   "GMGmSrCGIZEG",
		// The re-check's: more prose, quoting and header forms.
		`the password for prod is Pr0dPass99x`:                "Pr0dPass99x",
		`the password is now N0wPassw0rd`:                     "N0wPassw0rd",
		"the password is `Bq7Tick99x`":                        "Bq7Tick99x",
		`passwords are Pl8ural99x`:                            "Pl8ural99x",
		`the admin pw is Sh0rtPw99x`:                          "Sh0rtPw99x",
		`the api token was changed to Ch4ngedT0k`:             "Ch4ngedT0k",
		`{"Authorization": "Bearer HF4vUCsMehGAkWvj7FAc9Qe"}`: "HF4vUCsMehGAkWvj7FAc9Qe",
		`Authorization=Bearer HF4vUCsMehGAkWvj7FAc9Qe`:        "HF4vUCsMehGAkWvj7FAc9Qe",
		`Authorization: Negotiate YIIGhgYJKoZIhvcSAQICAQ`:     "YIIGhgYJKoZIhvcSAQICAQ",
		`curl --oauth2-bearer Tk9vUCsMehGAkWvj7FAc https://x`: "Tk9vUCsMehGAkWvj7FAc",
		`mysql -u root -p'gGCJbW56eCuN' prod`:                 "gGCJbW56eCuN",
		`mysql -u root -p"gGCJbW56eCuN" prod`:                 "gGCJbW56eCuN",
		`sshpass -p 'GMGmSrCGIZEG' ssh deploy@host`:           "GMGmSrCGIZEG",
		`SSHPASS=GMGmSrCGIZEG sshpass -e ssh host`:            "GMGmSrCGIZEG",
		`ｐａｓｓ＝Fp4Qx8Lm2`:                                      "Fp4Qx8Lm2",
		`パスワードが Ga7Hq2Lm9 です`:                                 "Ga7Hq2Lm9",
		`パスワードは、Tn5Rw8Kq1`:                                    "Tn5Rw8Kq1",
		`パスワードを Hx3Jk7Lm2 へ変更`:                                "Hx3Jk7Lm2",
		`postgres://app:s3cr3t9/xQ@db.internal/prod`:          "s3cr3t9/xQ",
		// The fourth attack run's: .env names, flags, assignments gitleaks
		// passes over, token formats, cookies, prose without "is",
		// Japanese names of secrets.
		`DB_PASS=rqBbNcgoIreW`:                                  "rqBbNcgoIreW",
		`SMTP_PASS="mailPass"`:                                  "mailPass",
		`https://x/login?user=bob&pass=Hx8qLm2p&next=/`:         "Hx8qLm2p",
		`pw=Kq7Lm2Np9`:                                          "Kq7Lm2Np9",
		`pass: hunter22x`:                                       "hunter22x",
		`psql --password hDXa22ZUn5Nj -h db`:                    "hDXa22ZUn5Nj",
		`docker login -u ci -p QfqmmyUhvt8rKEUOvC0y registry.x`: "QfqmmyUhvt8rKEUOvC0y",
		`mytool --pass 'Zt5 Lq9 Wm2'`:                           "Zt5 Lq9 Wm2",
		`APP_KEY=base64:3Lk9vQ2mLp7RtZ4wBx8yHc1dE5fG6hJ0=`:      "base64:3Lk9vQ2mLp7RtZ4wBx8yHc1dE5fG6hJ0=",
		`SECRET_KEY = 'django-insecure-^x7#k2$q9!mz@4v&w1'`:     "django-insecure-^x7#k2$q9!mz@4v&w1",
		`STRIPE_WEBHOOK=whsec_4eC39HqLyjWDarjtT1zdp7dc`:         "whsec_4eC39HqLyjWDarjtT1zdp7dc",
		`https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH`: "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH",
		`Cookie: session=9f8e7d6c5b4a3f2e1d0c; theme=dark`:                                                   "session=9f8e7d6c5b4a3f2e1d0c",
		`log in with password Lj2Xq9Wm4z`:                                                                    "Lj2Xq9Wm4z",
		`password Xy7Kq2Lm9p then enter`:                                                                     "Xy7Kq2Lm9p",
		`credentials are admin:Uo09Xq7Lm`:                                                                    "admin:Uo09Xq7Lm",
		`APIキーは sk_live_51Hx9Qm2Lp7Rt`:                                                                       "sk_live_51Hx9Qm2Lp7Rt",
		`トークンは Tk8Qm2Lp7Rt4`:                                                                                 "Tk8Qm2Lp7Rt4",
		`アクセストークン：At9Qm2Lp7Rt4`:                                                                              "At9Qm2Lp7Rt4",
		`シークレット: Sc7Qm2Lp7Rt4`:                                                                               "Sc7Qm2Lp7Rt4",
		`秘密鍵は Pk6Qm2Lp7Rt4 です`:                                                                               "Pk6Qm2Lp7Rt4",
		`パスワード 4brKq9Lm2x`:                                                                                   "4brKq9Lm2x",
		// The re-check's close variants.
		`docker login -u me -phunter2hunter registry.x`:  "hunter2hunter",
		`./deploy --db-pass hunter2hunter`:               "hunter2hunter",
		`DBPASS=hunter2hunter`:                           "hunter2hunter",
		`PGPASS="Pg7Lm2Qx9"`:                             "Pg7Lm2Qx9",
		`curl -b 'sid=9f8e7d6c5b4a3f2e' https://x`:       "sid=9f8e7d6c5b4a3f2e",
		`curl --cookie "sid=9f8e7d6c5b4a3f2e" https://x`: "sid=9f8e7d6c5b4a3f2e",
		`https://discord.com/api/v10/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH`: "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGH",
		`apiキーは abc123def456ghi`:          "abc123def456ghi",
		`APIキーは sk-abc123def456ghi`:       "sk-abc123def456ghi",
		`トークンを Tk8Qm2Lp7Rt4 に変更`:          "Tk8Qm2Lp7Rt4",
		`I set the password to Lj2kd9sLx`: "Lj2kd9sLx",
		// The second re-check's: a passphrase in a .env file.
		`API_KEY=shiny-purple-elephant-77`:        "shiny-purple-elephant-77",
		`export API_TOKEN=blue-monkey-jumps-high`: "blue-monkey-jumps-high",
		`JWT_SECRET=super-secret-key-change-me`:   "super-secret-key-change-me",
		`password=$ecretP4ss`:                     "$ecretP4ss",
		// The fifth attack run's: a pass/passcode, an arrow, a kana password.
		`auth: signing key rotation, the pass is Zr4-Bx7-kQ2-Lm9 for now`: "Zr4-Bx7-kQ2-Lm9",
		`passcode is 7Hq2Kd9Lm3`:                                       "7Hq2Kd9Lm3",
		`password -> 7Hq2Kd9Lm3x`:                                      "7Hq2Kd9Lm3x",
		`パスワードは ほしぞら７７ です`:                                             "ほしぞら７７",
		`<add key="ApiKey" value="Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1"/>`: "Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1",
		`os.environ["API_TOKEN"] = "Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1"`: "Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1",
		// The re-check of those: entity quotes (JUnit's message attribute),
		// arrows and dashes, a table cell, XML elements and attributes in
		// either order, a basic-auth call, a quoted kana password, "pass
		// word", a branch name.
		`expected password=&quot;Zr4Bx7kQ2Lm9&quot; to be rejected`: "Zr4Bx7kQ2Lm9",
		`token &#34;Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1&#34;`:          "Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1",
		`password ⇒ Gt5Rk8Wn3Jm2Qx7B`:                               "Gt5Rk8Wn3Jm2Qx7B",
		`password — Gt5Rk8Wn3Jm2Qx7B`:                               "Gt5Rk8Wn3Jm2Qx7B",
		`| password | Mz2Kq8Rv5Tn3Wy6C |`:                           "Mz2Kq8Rv5Tn3Wy6C",
		`HTTPBasicAuth('admin', 'Wq3Ze8Rt5Yu2Io7P')`:                "Wq3Ze8Rt5Yu2Io7P",
		`<password>Nx7Qw2Lp9Rt4Vz8K</password>`:                     "Nx7Qw2Lp9Rt4Vz8K",
		`<add value="Kp3Xr8Mn2Qv7Wt5Z" key="ApiKey"/>`:              "Kp3Xr8Mn2Qv7Wt5Z",
		`<string name="api_key">Ep7CgQ0PBQFI14zGtSnovm14</string>`:  "Ep7CgQ0PBQFI14zGtSnovm14",
		`パスワードは「ほしぞら」です`:                                            "ほしぞら",
		`the pw: Zr4-Bx7-kQ2-Lm9`:                                   "Zr4-Bx7-kQ2-Lm9",
		`the nexus pass word is Zr4-Bx7-kQ2-Lm9`:                    "Zr4-Bx7-kQ2-Lm9",
		`hotfix/nexus-deploy-key-q8Zk2Wm4Pr7Tx9Lb3Nc5`:              "q8Zk2Wm4Pr7Tx9Lb3Nc5",
		// Tools that take a password as a flag, a token as a URL's user,
		// a YAML block scalar.
		`redis-cli -h cache -a Hq7Lm2Wp9x ping`:                               "Hq7Lm2Wp9x",
		`zip -P Zr4Bx7kQ2 backup.zip data/`:                                   "Zr4Bx7kQ2",
		`7z a -pZr4Bx7kQ2 archive.7z data`:                                    "Zr4Bx7kQ2",
		`openssl enc -aes-256-cbc -pass pass:Zr4Bx7kQ2Lm9 -in a`:              "Zr4Bx7kQ2Lm9",
		`htpasswd -b .htpasswd admin Zr4Bx7kQ2Lm9`:                            "Zr4Bx7kQ2Lm9",
		`git clone https://q8Zk2Wm4Pr7Tx9Lb3Nc5Yd6Hf@github.com/acme/app.git`: "q8Zk2Wm4Pr7Tx9Lb3Nc5Yd6Hf",
		"db:\n  password: |\n    Zr4Bx7kQ2Lm9xx\n":                            "Zr4Bx7kQ2Lm9xx",
		// Other languages' names of a password.
		`das Passwort ist Zr4Bx7kQ2Lm9`: "Zr4Bx7kQ2Lm9",
		`mot de passe: Zr4Bx7kQ2Lm9`:    "Zr4Bx7kQ2Lm9",
		`contraseña: Zr4Bx7kQ2Lm9`:      "Zr4Bx7kQ2Lm9",
		`数据库密码是 Zr4Bx7kQ2Lm9`:           "Zr4Bx7kQ2Lm9",
		`비밀번호는 Zr4Bx7kQ2Lm9 입니다`:        "Zr4Bx7kQ2Lm9",
		// Passphrases in prose: words joined, with digits or long enough.
		`the password is hunter2-hunter2`:                         "hunter2-hunter2",
		`the wifi passphrase is correct-horse-battery-staple`:     "correct-horse-battery-staple",
		`the staging password was changed to "blue_lamp7_tiger9"`: "blue_lamp7_tiger9",
		// Said in chat: a PIN of digits, a secret told in the next
		// sentence, a token read out in groups.
		`the PIN is 4821`:                                            "4821",
		`door code: 170593`:                                          "170593",
		`PIN for the office safe is 90210.`:                          "90210",
		`暗証番号は 4821 です`:                                              "4821",
		`what's the staging password? It's hunter2`:                  "hunter2",
		`the wifi password — it is Blue42x, ask me`:                  "Blue42x",
		`the api token? use Zr4Bx7kQ for now`:                        "Zr4Bx7kQ",
		`key: AKIA IOSF ODNN 7EXA MPLE (read it out)`:                "7EXA",
		`token ghp_ 1a2B 3c4D 5e6F 7g8H 9i0J 1k2L 3m4N 5o6P 7q8R ok`: "5e6F",
		// The third attack run's phrasings.
		`**Password:** Zr4Bx7kQ2Lm9`:                                  "Zr4Bx7kQ2Lm9",
		`Password (prod): Zr4Bx7kQ2Lm9`:                               "Zr4Bx7kQ2Lm9",
		`db creds: admin / Zr4Bx7kQ2Lm9`:                              "Zr4Bx7kQ2Lm9",
		`wifi: CorpNet / Blue42Horse`:                                 "Blue42Horse",
		`login admin:hunter22`:                                        "hunter22",
		`mongo -u admin -p Zr4Bx7kQ2Lm9 prod`:                         "Zr4Bx7kQ2Lm9",
		`echo 'Zr4Bx7kQ2Lm9' | sudo -S apt update`:                    "Zr4Bx7kQ2Lm9",
		`the master key is Zr4Bx7kQ2Lm9`:                              "Zr4Bx7kQ2Lm9",
		`access key: Zr4Bx7kQ2Lm9`:                                    "Zr4Bx7kQ2Lm9",
		`TOTP seed: JBSWY3DPEHPK3PXP`:                                 "JBSWY3DPEHPK3PXP",
		`recovery code: 8F3K-2M9P-X7QL`:                               "8F3K-2M9P-X7QL",
		`session=q8Zk2Wm4Pr7Tx9Lb3Nc5Yd6Hf0Jg1Kv2Ms8Qw`:               "q8Zk2Wm4Pr7Tx9Lb3Nc5Yd6Hf",
		`пароль: Zr4Bx7kQ2Lm9`:                                        "Zr4Bx7kQ2Lm9",
		`la password è Zr4Bx7kQ2Lm9`:                                  "Zr4Bx7kQ2Lm9",
		`hasło: Zr4Bx7kQ2Lm9`:                                         "Zr4Bx7kQ2Lm9",
		`şifre: Zr4Bx7kQ2Lm9`:                                         "Zr4Bx7kQ2Lm9",
		`mật khẩu: Zr4Bx7kQ2Lm9`:                                      "Zr4Bx7kQ2Lm9",
		`lösenord: Zr4Bx7kQ2Lm9`:                                      "Zr4Bx7kQ2Lm9",
		`κωδικός: Zr4Bx7kQ2Lm9`:                                       "Zr4Bx7kQ2Lm9",
		`The password for staging is, by the way, "Kangaroo-Jump-88"`: "Kangaroo-Jump-88",
		`p@ssword: Zr4Bx7kQ2Lm9`:                                      "Zr4Bx7kQ2Lm9",
		`passw0rd: Zr4Bx7kQ2Lm9`:                                      "Zr4Bx7kQ2Lm9",
		`pword: Zr4Bx7kQ2Lm9`:                                         "Zr4Bx7kQ2Lm9",
		`key AKIA-IOSF-ODNN-7EXA-MPLE`:                                "7EXA",
		`ghp_1a2B.3c4D.5e6F.7g8H.9i0J.1k2L.3m4N.5o6P.7q8R`:            "5e6F",
		// The re-check's phrasings.
		`the passwords are Zr4Bx7kQ2Lm9 and Qw3rTy12Vb`:                      "Qw3rTy12Vb",
		`change the admin password from Hq7wPz3kLm to Rt5yUi8oPa`:            "Hq7wPz3kLm",
		`change the admin password from Hq7wPz3kLm to Rt5yUi8oPa.`:           "Rt5yUi8oPa",
		`the password for the staging db (changed yesterday) is Mn4bVc8xZq`:  "Mn4bVc8xZq",
		`the door code changed to 482193`:                                    "482193",
		`the gate code is 4821`:                                              "4821",
		`use pin number 4821`:                                                "4821",
		`the new key is 8697a8d41bed440e50454f31af317681`:                    "8697a8d41bed440e",
		`Das Passwort lautet Kx8mQ2vLp9`:                                     "Kx8mQ2vLp9",
		`Zx9kLm2q is the password for staging`:                               "Zx9kLm2q",
		`the smtp password is hunter2`:                                       "hunter2",
		`p/w: Zr4Bx7kQ2Lm9`:                                                  "Zr4Bx7kQ2Lm9",
		`PWは Zr4Bx7kQ2Lm9`:                                                   "Zr4Bx7kQ2Lm9",
		`비번은 Zr4Bx7kQ2Lm9`:                                                   "Zr4Bx7kQ2Lm9",
		`mdp: Zr4Bx7kQ2Lm9`:                                                  "Zr4Bx7kQ2Lm9",
		`la clave del wifi es Zr4Bx7kQ2Lm9`:                                  "Zr4Bx7kQ2Lm9",
		`Zugangsdaten: admin / Zr4Bx7kQ2Lm9`:                                 "Zr4Bx7kQ2Lm9",
		`wifi: Blue42Horse`:                                                  "Blue42Horse",
		`echo Zr4Bx7kQ2Lm9 | docker login -u me --password-stdin registry.x`: "Zr4Bx7kQ2Lm9",
	} {
		out, f := r.Redact(in)
		if strings.Contains(out, secret) || len(f) == 0 {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
	}
	for _, clean := range []string{
		"passwordless login landed in auth/magic.go",
		"the password reset page is done",
		"password: see the vault",
		"ssh://git@github.com/acme/webapp.git",
		"https://example.com/a:b@c is not a user", // no user information: the path holds the colon
		"パスワードの再設定画面を直した",
		"パスワードを忘れた人向けに再設定メールを送る",
		"パスワードを安全なものに変更してください",
		"https://api.example.com:8443/users/@me is the profile endpoint",
		"https://host.example.com:8443/a/b@c",
		"ｐａｓｓｗｏｒｄ の入力欄を直した",
		"the password is required on the login form",
		"the token is expired after an hour.",
		"Password is: stored hashed with argon2id", // a digit, but not right after "is"
		"mysql -u root -p prod",                    // asks for it: nothing given
		// The re-check's false positives: engineering prose.
		"the token is JWT-based",
		"the token is base64-encoded",
		"the token is HttpOnly",
		"the token is invalid/expired",
		"the password is SHA-256 hashed",
		"the api key is 32-character hex",
		"the pin is GPIO17",
		"pin: 2024-05-01",
		"PIN 1.2.3 is the last release",
		"pin 13 is the LED",
		"error code 5003 again",
		"the token expired, it's fixed now",
		"the password policy? it's v2.1",
		"the token? it's sha256 hashed",
		"the token is a JWT; it's base64url",
		"the password field — use the eye icon to show it",
		"ghp_ tokens expire every ninety days unless renewed by the admin team",
		"login: see docs/auth.md",
		"the password is sha256 hashed",
		"the key is 3f2a9c1e0b7d4a6f8e2c1b0a9d8e7f6a5b4c3d2e1", // a git object's 40 hex
		"the token moved from config.yaml to the vault",
		"abc123 is the commit that broke the password reset",
		"the passwords are stored and rotated",
		"wifi: Office / Guest",
		"the recovery code is shown once",
		"Password (prod): see the vault",
		"la password è obbligatoria",
		"пароль: обязательно",
		"ASIA-PACIFIC region launch",
		"credentials: user/pass from the vault",
		"the password is correcthorsebatterystaple", // letters alone read as a word: the rule's price
		"the password is auto-generated-daily",
		"the password is bcrypt-hashed-and-salted",
		"the password is case-sensitive",
		"the password is one-time-use",
		"パスワードは8文字以上です",
		"パスワードは変更済み",
		`<add key="CacheSize" value="1024"/>`,
		"the pass is flaky-on-ci today",
		"<key>CFBundleIdentifier</key>",
		"<token>hello</token>",
		`authorize("read", "write")`,
		"| password | required |",
		"the password — see the vault",
		"パスワードはこちら",
		"das Passwort ist erforderlich",
		"密码是必填项",
		"git clone https://git@github.com/acme/app.git",
		`zip -r out.zip dir -x "*.log"`,
		"openssl enc -d -aes-256-cbc -k $KEY -in a",
		"key: |\n  multi-line description of the key field\n",
		// What the fourth run's rules must leave: test runners' output,
		// flags, code reading a secret from elsewhere, prose.
		"--- PASS: TestRefreshToken (0.00s)",
		"PASS: TestLogin",
		"all tests pass: 42/42",
		"compass=north bypass=true",
		"pass=true",
		"SECRET_KEY = os.environ['SECRET_KEY']",
		"token = ${API_TOKEN}",
		"max_tokens = 4096",
		"tokenizer = 'bert-base-uncased'",
		"docker login --password-stdin registry.example.com",
		"トークンは有効期限切れです",
		"APIキーの発行手順を書いた",
		"the cookie: banner is gone",
		// The re-check's false positives: code, config and templates that
		// name a secret kept elsewhere, and Japanese prose.
		"tokenSource := oauth2.ReuseTokenSource(nil, src)",
		"TokenSource: oauth2.StaticTokenSource(tok)",
		"secret_arn = aws_secretsmanager_secret.db2.arn",
		"api_key_id = google_apikeys_key.maps2.uid",
		`"token": "{{ .Values.token }}"`,
		`token_path = "/var/run/secrets/kubernetes.io/serviceaccount/token"`,
		"private_key_path: /etc/ssl/private/server2024.key",
		"secret_name: prod-db-credentials-v2",
		`docker login -u me -p "$DOCKER_PASSWORD" registry.x`,
		"docker login -u me -p $CI_REGISTRY_PASSWORD registry.x",
		"秘密鍵は id_ed25519 です",
		"トークン：refresh_token_v2 を使う",
		"The cookie: sessionID=... is set",
		"パスワードはbcryptでハッシュ化",
		"パスワード: 8文字以上",
		"curl -b cookies.txt https://x",
		"curl --cookie /tmp/c.txt https://x",
		"password: ${DB_PASSWORD}",
		"MAX_TOKENS=4096",
		"SECRET_KEY=$SECRET_KEY",
	} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("clean text changed: %q → %q", clean, out)
		}
	}
}

// BenchmarkRedactPeerBody is the redaction every peer request body gets
// (aoi bench's aoi.query body).
func BenchmarkRedactPeerBody(b *testing.B) {
	r := newRedactor(b)
	body := `{"jsonrpc":"2.0","id":42,"method":"aoi.query","params":{"from":"pm-bench","to":"eng-bench","query":"認証機能の進捗は？ how is auth going?","context_scope":["acme/webapp"]}}`
	b.ReportAllocs()
	for b.Loop() {
		r.Redact(body)
	}
}

// TestLabelledRandomValues: a long random-looking value on a line that
// names a key, token or password some words before it (the held-out
// corpus's leak: an owner's note "Algolia admin key for the search
// index: …"), while long values a developer writes every day stay.
func TestLabelledRandomValues(t *testing.T) {
	r := newRedactor(t)
	for in, secret := range map[string]string{
		"Algolia admin key for the search index: q8Zk2/Lm9+Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4 (do not commit)": "q8Zk2/Lm9+Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
		"the deploy token we use on CI = Xb7Kq2Lm9Wz4Rt8Yp3Nc6Vd":                                          "Xb7Kq2Lm9Wz4Rt8Yp3Nc6Vd",
		"Stripe secret for the staging account is sk9Tq4Wm2Zr7Kp3Xv8Lb5Nd":                                 "sk9Tq4Wm2Zr7Kp3Xv8Lb5Nd",
		"本番のAPIキー（読み取り専用）: Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd":                                                        "Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd",
		"API key id: 5f4dcc3b-5aa7-65d6-1d83-27deb882cf99":                                                 "5f4dcc3b-5aa7-65d6-1d83-27deb882cf99",
		// The re-check's misses: other separators, commas, brackets and
		// Japanese labels before the value.
		"Algolia admin key for the search index - q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4":      "q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
		"admin key → q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4":                                   "q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
		"admin key [search]: q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4":                           "q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
		`{"msg":"Algolia admin key, search index, is q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4"}`: "q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
		"検索インデックス用の管理キーは q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4 です":                            "q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
		// Code around the value, a name inside an identifier, a value
		// after a space, base64 of a key pair.
		`// FIXME: rotate before launch, SigningKey: []byte("Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1")`:               "Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1",
		`client_secret Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1`:                                                       "Ep7CgQ0PBQFI14zGtSnovm14TUOizwd1",
		`the token base64 is QUtJQVFXRVJUWVVJT1BBU0RGOndKYWxyWFV0bkZFTUkvSzdNREVORy9iUHhSZmlDWUVYQU1QTEVLRVk=`: "QUtJQVFXRVJUWVVJT1BBU0RGOndKYWxyWFV0bkZFTUkvSzdNREVORy9iUHhSZmlDWUVYQU1QTEVLRVk=",
		// The value opens the sentence after the one naming it.
		"Here's the staging key. q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4": "q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
		"New deploy token! Xb7Kq2Lm9Wz4Rt8Yp3Nc6Vd":                      "Xb7Kq2Lm9Wz4Rt8Yp3Nc6Vd",
		"Algoliaの管理キー（検索用）：q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4":       "q8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
	} {
		out, f := r.Redact(in)
		if strings.Contains(out, secret) || len(f) == 0 {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
	}
	keepsAll(t, r, []string{
		"the key change is in src/components/SearchIndexSettings.tsx",
		"token handling moved: internal/auth/tokens/refresh_v2.go",
		"the password form now uses PasswordStrengthMeterComponent",
		"key version: release-2026.11.25-build.4471",
		"secrets: see ops/vault/prod/database-credentials-v2",
		// The re-check's false positives: a public key's fingerprint, an
		// integrity hash, a path.
		"the key fingerprint is SHA256:glTDq8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4",
		"key: sha256-ypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLs=",
		"key path: /var/lib/aoi/3f2a9b7c/4e5d6f7a8b9c0d1e2f3a4b5c.json",
		"we rotated the key. See ops/runbooks/rotate-signing-keys.md for how",
		"the api key rotation landed in 3f2a9b7c1d4e5f60718293a4b5c6d7e8f9012345",
		"JWT token parsing moved to internal/auth/jwt_parser_v2.go",
		"the monkey patch in QuickSearchIndexSettingsView",
		"apiKey: process.env.ALGOLIA_ADMIN_KEY_FOR_SEARCH",
		"the token expired. Commit 3f2a9b7c1d4e5f60718293a4b5c6d7e8f9012345 fixes it",
		// An id in a JSON body that mentions a key (the request's own).
		`{"jsonrpc":"2.0","method":"aoi.query","params":{"query":"is the api key rotated?"},"id":"ask-01a2157e082654f31c3ae021"}`,
	})
	// Git object names and SHA-256 sums are not taken for secrets (gitleaks'
	// generic rule has its own say on "key: <hex>").
	for _, sum := range []string{"3f2a9b7c1d4e5f60718293a4b5c6d7e8f9012345", "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D15C15B0F00A0"} {
		if randomLooking(sum) {
			t.Errorf("randomLooking(%q): a hash taken for a secret", sum)
		}
	}
}

// TestKeyBodyWithoutItsBeginLine: grep over a private key, or a task's
// output cut after the BEGIN line, shows the body alone (the attack run's
// grep pattern=AAAA read secrets/id_rsa's lines back); a long path, URL
// or SHA-256 sum stays.
func TestKeyBodyWithoutItsBeginLine(t *testing.T) {
	r := newRedactor(t)
	for _, line := range []string{
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
		"QyNTUxOQAAACBfK2o8Lm4Qw7Rt9Yp3Nc6Vd1Zx5Cb8Mn0Lk2Jh4Gf6Ds9Aa3Ss7Dd1Ff5G",
		"MIIEpAIBAAKCAQEA7Kq2Lm9Wz4Rt8Yp3Nc6Vd1Zx5Cb8Mn0Lk2Jh4Gf6Ds9Aa3Ss7Dd1F",
	} {
		in := "./secrets/id_rsa:2:" + line + "\n"
		if out, f := r.Redact(in); strings.Contains(out, line[:40]) || len(f) == 0 {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
	}
	// A bare body, line under line (the re-check saw every other line
	// kept: the newline between them was used up by one match).
	body := []string{
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Kq2Lm9Wz4Rt8Yp3N",
		"c6Vd1Zx5Cb8Mn0Lk2Jh4Gf6Ds9Aa3Ss7Dd1Ff5Gq8Zk2Lm9Wx4Tb7Np1Rv6Yc3Hd5Gf0J",
		"e8Ks2Ua4Qw7Rt5Yu3Io1Pa9Sz4Xc6Vb8Nm2Lk5Jh7Gf9Ds1Aq3Sw5De7Fr9Gt1Hy3Ju5K",
	}
	if out, _ := r.Redact(strings.Join(body, "\n")); strings.Contains(out, body[0][:30]) || strings.Contains(out, body[1][:30]) || strings.Contains(out, body[2][:30]) {
		t.Errorf("a bare key body kept a line:\n%s", out)
	}
	keepsAll(t, r, []string{
		"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQC7Kq2Lm9Wz4Rt8Yp3Nc6Vd1Zx5Cb8Mn0Lk2Jh4Gf6Ds9 suzuki@laptop",
		`"integrity": "sha512-Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd1Xe6Uf0Tg4Sh8Ri2Qj7Pk3Ol9Nm5Mn1Lb6Kc0Jd4Ie8Hf2Gg7Fh3Ei9Dj5Ck1Bl6=="`,
		"background: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd1Xe6)",
		"https://github.com/acme/webapp/blob/main/internal/auth/refresh/token/rotation/handler/v2/README",
		"sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d15c15b0f00a0 dist/app.tar.gz",
		"src/components/settings/notifications/EmailNotificationPreferencesPanelContainer",
		// A commit link: its hash after lower-case path words (a helper's
		// check saw it redacted as a private key).
		"see https://github.com/acme/webapp/commit/3f9a2c1d4e5f60718293a4b5c6d7e8f901234567 for it",
		"https://gitlab.com/acme/webapp/-/merge_requests/42/diffs?commit_id=3f9a2c1d4e5f60718293a4b5c6d7e8f901234567",
		// Mixed-case owners and repositories, a pull request's commits, a
		// file path with a hash in it (the redaction re-check's cases).
		"https://github.com/microsoft/TypeScript/commit/3f9a2c1d0b8e7f6a5c4d3e2f1a0b9c8d7e6f5a4b",
		"https://github.com/AcmeCorp/WebApp/pull/1234/commits/3f9a2c1d0b8e7f6a5c4d3e2f1a0b9c8d7e6f5a4b",
		"/Users/TakeshiYamada/Library/Application/Support/Code/User/workspaceStorage/3f9a2c1d0b8e7f6a5c4d3e2f1a0b9c8d/state.vscdb",
	})
}

// TestRandomKeyLinesAreNoPaths: a key body's line is never taken for a
// path, whatever slashes fall in it.
func TestRandomKeyLinesAreNoPaths(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		b := make([]byte, 64)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if urlPathLike(string(b)) {
			t.Fatalf("a random key line read as a path: %s", b)
		}
	}
	if urlPathLike("g/c1/aGel0GlM8iMwDTa4jKncJWEEx") {
		t.Error("short mixed-case pieces read as a path")
	}
}

// TestCodeIsNoPassword: "password: string" declares a field, and a value
// read from elsewhere names where the password is; a password with a dot
// or a parenthesis in it is still one.
func TestCodeIsNoPassword(t *testing.T) {
	r := newRedactor(t)
	for _, clean := range []string{"password: string", "  password: string;", "password: string | null", "token: Optional[str] = None",
		"  password: z.string().min(8),", "password: hashedPassword,", "password: req.body.password,", "password: process.env.DB_PASSWORD",
		"password: this.password", "password: getPassword()"} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("code changed: %q → %q", clean, out)
		}
	}
	for in, secret := range map[string]string{
		"password: Summer.Time2024": "Summer.Time2024",
		"password: Pa(ss)word1x":    "Pa(ss)word1x",
		"password: Vh7rQp2Lx9Kz":    "Vh7rQp2Lx9Kz",
	} {
		if out, _ := r.Redact(in); strings.Contains(out, secret) {
			t.Errorf("%q kept its password: %q", in, out)
		}
	}
}

// TestTokenAsURLUserInEscapedJSON: a token given as a URL's user is
// redacted in JSON that escapes its slashes too (https:\/\/TOKEN@host, as
// some encoders write a URL), not only in https://TOKEN@host.
func TestTokenAsURLUserInEscapedJSON(t *testing.T) {
	r := newRedactor(t)
	const token = "x9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	for _, in := range []string{
		`{"url":"https:\/\/` + token + `@github.com\/acme\/webapp.git"}`,
		`https://` + token + `@github.com/acme/webapp.git`,
	} {
		if out, _ := r.Redact(in); strings.Contains(out, token[:12]) || !strings.Contains(out, "[REDACTED:url-credential]@github.com") {
			t.Errorf("%q → %q", in, out)
		}
	}
}

// TestStringRedactsWhatIsShown: String, which the mirror, the answers and
// the prompt history use, redacts a secret split by a character the
// display drops (the re-check stored "AKIAQ8ZK2W<U+200B>M4PR7TX9LB" in the
// mirror as it was); Redact keeps to the text as written.
func TestStringRedactsWhatIsShown(t *testing.T) {
	r := newRedactor(t)
	in := "deploy: nexus CI now uses AKIAQ8ZK2W\u200bM4PR7TX9LB for the bucket"
	if out := r.String(in); strings.Contains(out, "M4PR7TX9LB") {
		t.Errorf("String kept the split key: %q", out)
	}
	clean := "a zero\u200bwidth joiner in plain words"
	if out := r.String(clean); out != clean {
		t.Errorf("String changed text with no secret: %q", out)
	}
}

// TestRecheckLeaks: the redaction re-check's leaks: a Kubernetes or
// Compose env list (name on one line, value on the next), a full-width
// colon, equals sign or space after an ASCII name, and a seed phrase in
// capitals or after a label in sentence case; what must stay, stays.
func TestRecheckLeaks(t *testing.T) {
	r := newRedactor(t)
	for in, secret := range map[string]string{
		"- name: DB_PASSWORD\n  value: Vh7rQp2Lx9Kz":                                                 "Vh7rQp2Lx9Kz",
		"env:\n  - name: API_TOKEN\n    value: \"Vh7rQp2Lx9KzAb3Cd4Ef5\"":                            "Vh7rQp2Lx9KzAb3Cd4Ef5",
		"ID：admin　PW：Vh7rQp2Lx9Kz":                                                                   "Vh7rQp2Lx9Kz",
		"password　＝　Vh7rQp2Lx9Kz":                                                                    "Vh7rQp2Lx9Kz",
		"SEED: ABANDON ABILITY ABLE ABOUT ABOVE ABSENT ABSORB ABSTRACT ABSURD ABUSE ACCESS ACCIDENT": "ABSURD ABUSE",
		"seed: Legal winner thank year wave sausage worth useful legal winner thank yellow":          "sausage worth",
		"ABANDON ABILITY ABLE ABOUT ABOVE ABSENT ABSORB ABSTRACT ABSURD ABUSE ACCESS ACCIDENT":       "ABSURD ABUSE",
	} {
		if out, _ := r.Redact(in); strings.Contains(out, secret) {
			t.Errorf("%q kept %q: %q", in, secret, out)
		}
	}
	for _, clean := range []string{
		"- name: LOG_LEVEL\n  value: debug",
		"- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db",
		"- name: DB_PASSWORD\n  value: $(DB_PASS)",
		"ＰＷ：の入力欄を追加",
		"Abandon Ability Able About Above Absent Absorb Abstract Absurd Abuse Access Accident",
	} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("clean text changed: %q → %q", clean, out)
		}
	}
}

// TestJapaneseProseSecrets: a made value told in Japanese prose after a
// secret's name, with a label in parentheses, an arrow or a comma, is
// redacted up to where the Japanese goes on; a PIN's digits after PIN or
// 暗証番号; prose about the secret, and digits after another name, stay.
func TestJapaneseProseSecrets(t *testing.T) {
	r := newRedactor(t)
	for in, want := range map[string]string{
		"パスワード→Vh7rQp2Lx9Kz":     "パスワード→[REDACTED:password]",
		"パスワード（本番）：Vh7rQp2Lx9Kz": "パスワード（本番）：[REDACTED:password]",
		"今のパスワード、Vh7rQp2Lx9Kzだよ": "今のパスワード、[REDACTED:password]だよ",
		"鍵はVh7rQp2Lx9KzAb3Cd4です": "鍵は[REDACTED:password]です",
		"PINは4821です":             "PINは[REDACTED:password]です",
	} {
		if out, _ := r.Redact(in); out != want {
			t.Errorf("%q → %q, want %q", in, out, want)
		}
	}
	for _, clean := range []string{"パスワードは8文字以上", "パスワード（必須）：8文字以上の英数字", "パスワード→リセット画面へ", "トークンは3600秒で切れる",
		"トークン:3600", "spinは1234回", "鍵はKMSで管理する"} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("clean text changed: %q → %q", clean, out)
		}
	}
}

// TestSpacedPassphrase: a passphrase of words with spaces after its name
// is redacted whole (the re-check saw "horse battery staple" kept); a
// description of one stays.
func TestSpacedPassphrase(t *testing.T) {
	r := newRedactor(t)
	for _, in := range []string{"passphrase: correct horse battery staple", "the pass phrase is = velvet orbit lantern quiet"} {
		if out, _ := r.Redact(in); strings.Contains(out, "battery") || strings.Contains(out, "lantern") {
			t.Errorf("%q kept words of the passphrase: %q", in, out)
		}
	}
	for _, clean := range []string{"the passphrase is stored in the vault", "set a pass phrase of four words or more"} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("clean text changed: %q → %q", clean, out)
		}
	}
}

// TestURLCredentialKeepsItsHost: a token given as a URL's credential
// after "x-access-token:" is redacted and the host and path stay (the
// re-check saw "@github.com/acme/app.git" redacted with it).
func TestURLCredentialKeepsItsHost(t *testing.T) {
	r := newRedactor(t)
	in := "git remote set-url origin https://x-access-token:Vh7rQp2Lx9KzAb3Cd4Ef5Gh6@github.com/acme/app.git"
	if out, _ := r.Redact(in); strings.Contains(out, "Vh7rQp2Lx9Kz") || !strings.HasSuffix(out, "@github.com/acme/app.git") {
		t.Errorf("%q → %q", in, out)
	}
	if out, _ := r.Redact("the api token is Vh7rQp2Lx9KzAb3Cd4"); strings.Contains(out, "Vh7rQp2Lx9Kz") {
		t.Errorf("a token told in prose was kept: %q", out)
	}
}

// TestPasswordDescription: a description after "password:" or
// "passphrase:" ("must contain a digit", "Minimum 12 characters", "cannot
// be empty") is no password, where the broad assignment rule took its
// first word; a password, a passphrase of words, and a description word
// standing alone or quoted, are still redacted.
func TestPasswordDescription(t *testing.T) {
	r := newRedactor(t)
	for _, clean := range []string{
		"passphrase: must be at least 12 characters",
		"password: must contain a digit",
		"Password: Minimum twelve characters, one digit",
		"- password: cannot be empty",
		"new_password: should differ from the old one",
		"password: your password here",
		`{"error":"password: must contain a digit"}`,
	} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("clean text changed: %q → %q", clean, out)
		}
	}
	for in, want := range map[string]string{
		"password: hunter2":                                  "password: [REDACTED:password]",
		"passphrase: correct horse battery staple":           "passphrase: [REDACTED:password]",
		"password: mustang99 for the staging box":            "password: [REDACTED:password] for the staging box",
		`password: "must be"`:                                `password: "[REDACTED:password]"`,
		"password: never":                                    "password: [REDACTED:password]",
		"password: must contain a digit\npassword: Xk9mQ2vL": "password: must contain a digit\npassword: [REDACTED:password]",
	} {
		if out, _ := r.Redact(in); out != want {
			t.Errorf("%q → %q, want %q", in, out, want)
		}
	}
}

// redactsAll checks that each text loses its secret to [REDACTED:id].
func redactsAll(t *testing.T, r *Redactor, id string, cases map[string]string) {
	t.Helper()
	for in, secret := range cases {
		out, f := r.Redact(in)
		if strings.Contains(out, secret) || len(f) == 0 || !strings.Contains(out, "[REDACTED:"+id+"]") {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
	}
}

// keepsAll checks that each text comes back unchanged.
func keepsAll(t *testing.T, r *Redactor, clean []string) {
	t.Helper()
	for _, s := range clean {
		if out, f := r.Redact(s); out != s || len(f) != 0 {
			t.Errorf("clean text changed: %q → %q (%v)", s, out, f)
		}
	}
}

// redactsTo checks that each text is redacted to exactly the text given,
// with a finding, and that redacting the result again changes nothing.
func redactsTo(t *testing.T, r *Redactor, cases map[string]string) {
	t.Helper()
	for in, want := range cases {
		out, f := r.Redact(in)
		if out != want || len(f) == 0 {
			t.Errorf("%q\n → %q (%v)\nwant %q", in, out, f, want)
		}
		if again, more := r.Redact(out); again != out || len(more) != 0 {
			t.Errorf("not idempotent: %q → %q", out, again)
		}
	}
}

// TestSharedRedactorPerPatterns: cores with the same owner patterns share
// one built redactor (about 30 MiB each); other patterns get their own,
// and a bad pattern is refused as New refuses it.
func TestSharedRedactorPerPatterns(t *testing.T) {
	a, err := Shared(nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Shared([]Pattern{}); b != a {
		t.Error("no patterns and an empty list got different redactors")
	}
	host := []Pattern{{ID: "host", Regex: `corp-[a-z]+\.internal`}}
	c, err := Shared(host)
	if err != nil || c == a {
		t.Fatalf("a list with a pattern shared the plain redactor (err %v)", err)
	}
	if d, _ := Shared([]Pattern{{ID: "host", Regex: `corp-[a-z]+\.internal`}}); d != c {
		t.Error("the same patterns got a second redactor")
	}
	if out, _ := c.Redact("ssh corp-build.internal now"); strings.Contains(out, "corp-build.internal") {
		t.Errorf("the shared redactor lost its owner's pattern: %q", out)
	}
	if _, err := Shared([]Pattern{{ID: "bad", Regex: `(`}}); err == nil {
		t.Error("a bad pattern was accepted")
	}
}

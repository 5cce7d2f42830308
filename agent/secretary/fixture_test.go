package secretary

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/redact"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// testNow is the fixed clock of every secretary test (UTC; the repository's
// commits lead up to it).
var testNow = time.Date(2025, 3, 10, 14, 0, 0, 0, time.UTC)

// Secrets committed into the test repository. Assembled at run time so this
// source file holds nothing a secret scanner would flag.
var (
	leakedAWSKey = "AKIA" + "Q4R7TZ2XWPLM5VN8"
	leakedAWSSec = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzq8Hk3Lw"
	pemBody      = "MIIEpAIBAAKCAQEAx3Vq8Lr2T0mZk9QwFz5Yb1Nc7Hd4Jy6Ge0Aq2Sx9Pv3Mt8Ko\n" +
		"Wn4Rb7Tc1Yd5Ue9Vf3Xg6Zh2Ai8Bj0Ck4Dl7Em1Fn5Go9Hp3Iq6Jr2Ks8Lt0Mu4Nv7\n" +
		"Ow1Px5Qy9Rz3Sa6Tb2Uc8Vd0We4Xf7Yg1Zh5Ai9Bj3Ck6Dl2Em8Fn0Go4Hp7Iq1Jr5\n"
	pemBlock = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + pemBody + "-----END RSA " + "PRIVATE KEY-----\n"
)

// repoBuilder makes a real git repository with a realistic history.
type repoBuilder struct {
	t    testing.TB
	dir  string
	when time.Time
}

func (r *repoBuilder) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	date := r.when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Suzuki Taro", "GIT_AUTHOR_EMAIL=suzuki@example.com",
		"GIT_COMMITTER_NAME=Suzuki Taro", "GIT_COMMITTER_EMAIL=suzuki@example.com",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (r *repoBuilder) write(path, content string) {
	r.t.Helper()
	full := filepath.Join(r.dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit writes files and commits them at the builder's clock, then moves
// the clock on by step.
func (r *repoBuilder) commit(msg string, step time.Duration, files ...string) {
	r.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		r.write(files[i], files[i+1])
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	r.when = r.when.Add(step)
}

func goLines(pkg string, n int, extra map[int]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n", pkg)
	for i := 2; i <= n; i++ {
		if s, ok := extra[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "// line %d of the %s package\n", i, pkg)
	}
	return b.String()
}

// buildAuthRepo makes the acme/webapp history: an auth feature over ~30
// commits (JWT, refresh tokens, a Japanese commit message, FIXMEs), an
// unrelated billing area, a secrets folder, and two leaked credentials.
// The last commit is 30 minutes before testNow.
func buildAuthRepo(t testing.TB, dir string) (japaneseSHA, jwtSHA string) {
	t.Helper()
	r := &repoBuilder{t: t, dir: dir, when: testNow.Add(-31 * time.Hour)}
	r.git("init", "-q", "-b", "feature/auth")
	hour := time.Hour
	r.commit("init: project skeleton", hour, "README.md", "# webapp\n", "go.mod", "module github.com/acme/webapp\n")
	r.commit("billing: invoice model", hour, "billing/invoice.go", goLines("billing", 40, nil))
	r.commit("auth: add JWT signing", hour, "auth/jwt.go", goLines("auth", 44, nil))
	r.commit("auth: token validation and claims", hour, "auth/jwt.go", goLines("auth", 120, map[int]string{60: "func ValidateToken(raw string) (*Claims, error) { return parseJWT(raw) }"}))
	jwtSHA = strings.TrimSpace(r.git("rev-parse", "HEAD"))
	r.commit("billing: monthly invoice export", hour, "billing/export.go", goLines("billing", 30, nil))
	for i := 1; i <= 8; i++ {
		r.commit(fmt.Sprintf("auth: middleware step %d", i), hour, "auth/middleware.go", goLines("auth", 20+i*5, nil))
	}
	r.commit("auth: add refresh token store", hour, "auth/refresh.go", goLines("auth", 100, map[int]string{
		88: "\t// FIXME: token store undecided (redis or postgres)",
		30: "func Rotate(old string) (string, error) { return issue(old) }",
	}))
	r.commit("deploy: staging config", hour, "deploy/staging.env",
		"REGION=ap-northeast-1\naws_access_key_id = "+leakedAWSKey+"\naws_secret_access_key = "+leakedAWSSec+"\n")
	r.commit("deploy: add deploy key", hour, "deploy/deploy_key", pemBlock)
	r.commit("secrets: vault client for auth tokens", hour, "secrets/vault.go", goLines("secrets", 20, map[int]string{5: "// vault keeps the signing keys; hush"}))
	r.commit("認証: リフレッシュトークンのローテーションを実装", hour, "auth/refresh.go", goLines("auth", 100, map[int]string{
		88: "\t// FIXME: token store undecided (redis or postgres)",
		30: "func Rotate(ctx context.Context, old string) (string, error) { return issue(ctx, old) }",
		31: "// rotation keeps the old token valid for 30s",
	}))
	japaneseSHA = strings.TrimSpace(r.git("rev-parse", "HEAD"))
	for i := 1; i <= 6; i++ {
		r.commit(fmt.Sprintf("billing: tax rounding fix %d", i), hour, "billing/invoice.go", goLines("billing", 40+i, nil))
	}
	r.commit("auth: session handling", hour, "auth/session.go", goLines("auth", 50, map[int]string{12: "// TODO: logout endpoint"}))
	r.commit("docs: auth overview", hour, "docs/auth.md", "# Auth\n\n- [x] JWT signing\n- [x] validation\n- [x] refresh rotation\n- [ ] logout\n")
	r.when = testNow.Add(-30 * time.Minute)
	r.commit("auth: refresh test (fails without redis)", hour, "auth/refresh_test.go", goLines("auth", 45, nil))
	// Uncommitted work in progress.
	r.write("auth/logout.go", "package auth\n// TODO: revoke refresh tokens\n")
	return japaneseSHA, jwtSHA
}

// authRepo is built once per test binary: the tests only read it, and
// building it forks git ~60 times.
var authRepo struct {
	once         sync.Once
	dir, ja, jwt string
	err          error
}

func sharedAuthRepo(t *testing.T) (dir, japaneseSHA, jwtSHA string) {
	t.Helper()
	authRepo.once.Do(func() {
		authRepo.dir, authRepo.err = os.MkdirTemp("", "aoi-secretary-repo-")
		if authRepo.err == nil {
			authRepo.ja, authRepo.jwt = buildAuthRepo(t, authRepo.dir)
		}
	})
	if authRepo.err != nil {
		t.Fatal(authRepo.err)
	}
	return authRepo.dir, authRepo.ja, authRepo.jwt
}

func TestMain(m *testing.M) {
	code := m.Run()
	if authRepo.dir != "" {
		os.RemoveAll(authRepo.dir)
	}
	os.Exit(code)
}

// newTestSecretary opens a store in dir and a secretary over it.
func newTestSecretary(t *testing.T, dbPath string, cfg *config.Config) (*Secretary, *store.DB) {
	t.Helper()
	db, err := store.Open(dbPath, store.WithClock(func() time.Time { return testNow }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	red, err := redact.New([]redact.Pattern{{ID: "internal-hostname", Regex: `[a-z0-9-]+\.corp\.acme\.internal`}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(db, cfg, red, Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	return s, db
}

func testConfig(repo, transcripts string) *config.Config {
	cfg := &config.Config{}
	cfg.Agent.ID = "eng-suzuki"
	cfg.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
	cfg.Secretary.WorkAI.TranscriptsDir = transcripts
	cfg.Secretary.ContextMirroring = config.ContextMirroring{Enabled: true, IndexIntervalSec: 1, RetentionDays: 30}
	cfg.Secretary.InterruptControl = config.InterruptControl{Enabled: true, FocusModeHours: [2]int{9, 17}, AutoRespondThreshold: 0.8}
	return cfg
}

// seedPushed ingests what the core would push: a failed test run, notes.
func seedPushed(t *testing.T, s *Secretary) {
	t.Helper()
	ctx := context.Background()
	tests := &TestSummary{Run: 40, Passed: 38, Failed: 2, Failures: []TestFailure{
		{Test: "TestRefreshToken", Package: "github.com/acme/webapp/auth", Message: "=== RUN   TestRefreshToken\n    refresh_test.go:42: redis: connection refused\n--- FAIL: TestRefreshToken (0.01s)"},
		{Test: "TestRotateExpired", Package: "github.com/acme/webapp/auth", Message: "    refresh_test.go:77: expected ErrExpired, got <nil>"},
	}}
	evs := []Event{
		TaskEvent("task-7", "run_tests", "failed", "acme/webapp", "2 tests failed", tests),
		NoteEvent("auth (認証) progress 75%: JWT signing and refresh rotation done, logout left"),
		NoteEvent("blocked: waiting for infra to provision redis for the token store (redis待ち)"),
		NoteEvent("lunch with the billing team, nothing else"),
	}
	for i, ev := range evs {
		ev.TS = testNow.Add(-time.Duration(40-i) * time.Minute)
		if _, err := s.Ingest(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
}

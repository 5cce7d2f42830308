package secretary

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/secretary/interrupt"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/store"
)

// mirror builds the repository, polls it once and seeds pushed events.
type mirror struct {
	s             *Secretary
	db            *store.DB
	dbPath        string
	japaneseShort string
	jwtShort      string
}

func newMirror(t *testing.T) *mirror {
	t.Helper()
	repo, ja, jwt := sharedAuthRepo(t)
	dbPath := filepath.Join(t.TempDir(), "aoi.db")
	s, db := newTestSecretary(t, dbPath, testConfig(repo, filepath.Join(t.TempDir(), "no-transcripts")))
	if err := s.PollNow(context.Background()); err != nil {
		t.Fatal(err)
	}
	seedPushed(t, s)
	return &mirror{s: s, db: db, dbPath: dbPath, japaneseShort: ja[:7], jwtShort: jwt[:7]}
}

func refsOf(a Answer, typ string) []string {
	var out []string
	for _, r := range a.Result.ContextRefs {
		if r.Type == typ {
			out = append(out, r.Ref)
		}
	}
	return out
}

func hasPrefixIn(list []string, prefix string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

const (
	blockTest  = "TestRefreshToken fails: redis: connection refused"
	blockFIXME = "FIXME(auth/refresh.go:88): token store undecided (redis or postgres)"
)

func TestAnswerGroundedQuestions(t *testing.T) {
	m := newMirror(t)
	cases := []struct {
		name       string
		text       string
		files      []string // file ref prefixes that must be present
		notFiles   []string
		commits    []string
		blockers   []string
		progress   int // -1: not asserted
		minConf    float64
		summaryHas string
	}{
		{name: "english auth", text: "How is auth going, and what blocks it?",
			files: []string{"auth/refresh.go:", "auth/jwt.go:"}, notFiles: []string{"billing/"},
			blockers: []string{blockTest, blockFIXME}, progress: 75, minConf: 0.8, summaryHas: "auth"},
		{name: "japanese two-char term", text: "認証機能の実装進捗と、現在のブロック要因は？",
			files: []string{"auth/refresh.go:"}, commits: []string{m.japaneseShort},
			blockers: []string{blockTest, blockFIXME}, progress: 75, summaryHas: "認証"},
		{name: "japanese long term", text: "リフレッシュトークンのローテーションはどうなってる？",
			files: []string{"auth/refresh.go:30-"}, commits: []string{m.japaneseShort}, progress: -1},
		{name: "file mention", text: "what changed in auth/jwt.go?",
			files: []string{"auth/jwt.go:"}, commits: []string{m.jwtShort}, progress: -1},
		{name: "unrelated area", text: "any news on billing invoices?",
			files: []string{"billing/invoice.go"}, notFiles: []string{"auth/jwt.go"}, progress: -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := m.s.Answer(context.Background(), Question{From: "pm-tanaka", Text: c.text, Scope: []string{"acme/webapp"}})
			if err != nil {
				t.Fatal(err)
			}
			files, commits := refsOf(a, "file"), refsOf(a, "commit")
			for _, f := range c.files {
				if !hasPrefixIn(files, f) {
					t.Errorf("want a file ref %q…, got %q", f, files)
				}
			}
			for _, f := range c.notFiles {
				if hasPrefixIn(files, f) {
					t.Errorf("file ref %q… should not be in %q", f, files)
				}
			}
			for _, sha := range c.commits {
				if !slices.Contains(commits, sha) {
					t.Errorf("want commit %s in %q", sha, commits)
				}
			}
			for _, b := range c.blockers {
				if !slices.Contains(a.Result.Blockers, b) {
					t.Errorf("want blocker %q in %q", b, a.Result.Blockers)
				}
			}
			if c.progress >= 0 && (a.Result.Progress == nil || *a.Result.Progress != c.progress) {
				t.Errorf("progress = %v, want %d (%s)", deref(a.Result.Progress), c.progress, a.Result.Summary)
			}
			if a.Confidence < c.minConf {
				t.Errorf("confidence %.2f < %.2f", a.Confidence, c.minConf)
			}
			if !a.Result.Completed || a.Evidence == 0 || !strings.Contains(a.Result.Summary, c.summaryHas) {
				t.Errorf("result = %+v", a.Result)
			}
		})
	}
}

func TestAnswerWithoutMatch(t *testing.T) {
	m := newMirror(t)
	a, err := m.s.Answer(context.Background(), Question{Text: "kubernetes helm chart status?"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Confidence != interrupt.ConfNoMatch || a.Evidence != 0 || len(a.Result.ContextRefs) != 0 {
		t.Fatalf("no-match answer = %+v (conf %.2f)", a.Result, a.Confidence)
	}
	d := interrupt.Decide(interrupt.Input{Priority: "normal", Confidence: a.Confidence, Now: testNow.Local(), FocusHours: [2]int{0, 24}, Threshold: 0.8, Enabled: true})
	if d.Decision != interrupt.Escalate {
		t.Fatalf("an unanswerable normal query in focus must escalate, got %s", d.Decision)
	}
	if _, err := m.s.Answer(context.Background(), Question{Text: "auth", Scope: []string{"acme/unknown"}}); err == nil {
		t.Fatal("unknown scope accepted")
	}
}

func TestAnswerHonoursACL(t *testing.T) {
	m := newMirror(t)
	ctx := context.Background()
	open, err := m.s.Answer(ctx, Question{Text: "vault signing keys", Scope: []string{"acme/webapp"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasPrefixIn(refsOf(open, "file"), "secrets/vault.go") {
		t.Fatalf("without an ACL the vault commit should match: %+v", open.Result.ContextRefs)
	}
	deny := func(res string) bool {
		return !strings.HasPrefix(res, "acme/webapp/secrets/") && res != "acme/webapp/secrets"
	}
	for _, text := range []string{"vault signing keys", "how is auth going?", "secrets"} {
		a, err := m.s.Answer(ctx, Question{Text: text, Scope: []string{"acme/webapp"}, Allowed: deny})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(a.Result)
		// The question's own words may be echoed; evidence from the folder may not.
		if bytes.Contains(raw, []byte("secrets/")) || bytes.Contains(raw, []byte("vault client")) {
			t.Fatalf("%q: forbidden folder leaked: %s", text, raw)
		}
	}
	// A scope narrowed to a folder returns only evidence inside it.
	a, err := m.s.Answer(ctx, Question{Text: "auth billing", Scope: []string{"acme/webapp/billing"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range refsOf(a, "file") {
		if !strings.HasPrefix(f, "billing/") {
			t.Fatalf("file ref %q outside the billing scope", f)
		}
	}
	// Denying the whole repository leaves nothing.
	a, err = m.s.Answer(ctx, Question{Text: "auth", Scope: []string{"acme/webapp"}, Allowed: func(string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if a.Evidence != 0 || len(a.Result.Blockers) != 0 || len(a.Result.ContextRefs) != 0 {
		t.Fatalf("denied asker got %+v", a.Result)
	}
}

func TestSecretsNeverStoredNorSent(t *testing.T) {
	m := newMirror(t)
	ctx := context.Background()
	if _, err := m.s.Ingest(ctx, NoteEvent("deploy via build-3.corp.acme.internal with "+leakedAWSKey)); err != nil {
		t.Fatal(err)
	}
	var answers []byte
	for _, q := range []string{"deploy staging config credentials", "deploy key", "aws access key", "internal host"} {
		a, err := m.s.Answer(ctx, Question{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(a.Result)
		answers = append(answers, raw...)
	}
	snap, err := m.s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(snap)
	answers = append(answers, raw...)
	if err := m.db.Close(); err != nil { // checkpoint the WAL into the file
		t.Fatal(err)
	}
	var dbBytes []byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, _ := os.ReadFile(m.dbPath + suffix)
		dbBytes = append(dbBytes, b...)
	}
	for _, secret := range []string{leakedAWSKey, leakedAWSSec, "MIIEpAIBAAKCAQEA", "Ow1Px5Qy9Rz3Sa6T", "build-3.corp.acme.internal"} {
		if bytes.Contains(dbBytes, []byte(secret)) {
			t.Errorf("secret %q found in the database file", secret)
		}
		if bytes.Contains(answers, []byte(secret)) {
			t.Errorf("secret %q found in an answer", secret)
		}
	}
	if !bytes.Contains(dbBytes, []byte("[REDACTED:aws-access-token]")) || !bytes.Contains(dbBytes, []byte("[REDACTED:private-key]")) {
		t.Error("the index should show where secrets were removed")
	}
}

func TestPollResumesWithoutReindexing(t *testing.T) {
	m := newMirror(t)
	ctx := context.Background()
	before, err := m.db.ContextStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.BySource["git"] < 27 {
		t.Fatalf("git events = %d, want every commit plus state", before.BySource["git"])
	}
	if err := m.s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	// A second secretary over the same database (a restart) adds nothing.
	s2, err := New(m.db, m.s.config(), m.s.redactor(), Options{Now: m.s.now})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := m.db.ContextStats(ctx)
	if after.Events != before.Events {
		t.Fatalf("re-polling changed the index: %d → %d events", before.Events, after.Events)
	}
	recent, _ := m.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"branch", "worktree"}})
	var sawBranch, sawWorktree bool
	for _, e := range recent {
		sawBranch = sawBranch || e.Title == "on branch feature/auth"
		sawWorktree = sawWorktree || (e.Kind == "worktree" && strings.Contains(e.Body, "auth/logout.go (new)"))
	}
	if !sawBranch || !sawWorktree {
		t.Fatalf("branch/worktree state missing: %+v", recent)
	}
}

func TestSnapshot(t *testing.T) {
	m := newMirror(t)
	snap, err := m.s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(snap.ActiveFiles, "auth/logout.go") || snap.Progress == nil || *snap.Progress != 75 {
		t.Fatalf("snapshot = %+v", snap)
	}
	if !slices.ContainsFunc(snap.RecentTests, func(o wire.TestOutcome) bool { return o.Name == "TestRefreshToken" && o.Status == "failed" }) {
		t.Fatalf("recent tests = %+v", snap.RecentTests)
	}
	if !slices.ContainsFunc(snap.ActiveErrors, func(e wire.ActiveError) bool { return e.File == "auth/refresh.go" && e.Line == 88 }) {
		t.Fatalf("active errors = %+v", snap.ActiveErrors)
	}
}

func TestDecideUsesConfigAndAnswerConfidence(t *testing.T) {
	m := newMirror(t)
	ctx := context.Background()
	on := true
	a, err := m.s.Answer(ctx, Question{Text: "How is auth going?", Scope: []string{"acme/webapp"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := m.s.Decide("normal", a.Confidence, &on); d.Decision != interrupt.AutoRespond {
		t.Fatalf("confident answer in focus: %+v (confidence %.2f)", d, a.Confidence)
	}
	if d := m.s.Decide("high", a.Confidence, &on); d.Decision != interrupt.Escalate {
		t.Fatalf("high priority: %+v", d)
	}
	weak, err := m.s.Answer(ctx, Question{Text: "kubernetes?"})
	if err != nil {
		t.Fatal(err)
	}
	if d := m.s.Decide("low", weak.Confidence, &on); d.Decision != interrupt.Buffer {
		t.Fatalf("uncertain low priority in focus: %+v", d)
	}
}

func TestIngestFilesAbsolutePathsUnderTheirContext(t *testing.T) {
	m := newMirror(t)
	ctx := context.Background()
	repo := m.s.config().Contexts[0].LocalPath
	if _, err := m.s.Ingest(ctx, ReportEvent("", "file.edited", filepath.Join(repo, "auth", "jwt.go"), "tightened claim checks", nil, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.s.Ingest(ctx, ReportEvent("", "file.edited", "/home/someone/private/diary.md", "edited diary", nil, nil)); err != nil {
		t.Fatal(err)
	}
	evs, err := m.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{KindReport}})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[1].Ctx != "acme/webapp" || evs[1].Key != "auth/jwt.go" || evs[0].Key != "diary.md" || evs[0].Ctx != "" {
		t.Fatalf("reports = %+v", evs)
	}
}

// TestReportedPathsMeetFolderRules: the attack run reported an edit of
// "secrets/keys.go" (relative) through MCP; filed under no context, a peer
// kept out of secrets/ got it back, scope src or not. A relative path is
// now filed under its repository, a checkout reached through a symlink
// too, and one that cannot be placed is the owner's alone.
func TestReportedPathsMeetFolderRules(t *testing.T) {
	m := newMirror(t)
	ctx := context.Background()
	repo := m.s.config().Contexts[0].LocalPath
	link := filepath.Join(t.TempDir(), "checkout")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	// The re-check's: a folder, a file without an extension, links inside
	// the checkout, a failure event, and a file outside every context.
	if err := os.Symlink("secrets", filepath.Join(repo, "seclink")); err != nil {
		t.Fatal(err)
	}
	// The repository is the package's, shared by its tests: leave it as found.
	t.Cleanup(func() { os.Remove(filepath.Join(repo, "seclink")) })
	outside := filepath.Join(t.TempDir(), "private", "Makefile")
	for _, file := range []string{"secrets/keys.go", filepath.Join(link, "secrets", "vault.go"), "secrets", "secrets/NOTES",
		"seclink/keys.go", filepath.Join(repo, "seclink", "NOTES"), filepath.Join(repo, "seclink"), outside} {
		typ := "file.edited"
		if strings.HasSuffix(file, "NOTES") {
			typ = "test.failed"
		}
		if _, err := m.s.Ingest(ctx, ReportEvent("", typ, file, "Rotated the zebra launch code to zebra-43", nil, nil)); err != nil {
			t.Fatal(err)
		}
	}
	deny := func(res string) bool {
		return !strings.HasPrefix(res, "acme/webapp/secrets/") && res != "acme/webapp/secrets"
	}
	for _, scope := range [][]string{{"acme/webapp"}, {"acme/webapp/src"}} {
		a, err := m.s.Answer(ctx, Question{Text: "zebra launch code", Scope: scope, Allowed: deny})
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := json.Marshal(a.Result); bytes.Contains(raw, []byte("zebra-43")) || a.Evidence != 0 {
			t.Errorf("scope %v: a report inside secrets/ reached the peer (%d events): %s", scope, a.Evidence, raw)
		}
	}
	evs, _ := m.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{KindReport, KindError}})
	for _, ev := range evs {
		placed := ev.Ctx == "acme/webapp" && (ev.Key == "secrets" || strings.HasPrefix(ev.Key, "secrets/"))
		if !placed && !(ev.Ctx == "" && ev.Key == "Makefile") {
			t.Errorf("report filed as %q %q, want under acme/webapp/secrets (or the outside file unplaced)", ev.Ctx, ev.Key)
		}
	}
	// Unplaced (another repository configured, the file in neither): the
	// owner sees it, a peer does not.
	ac := &accessCheck{contexts: []string{"acme/webapp"}, allowed: func(string) bool { return true }}
	unplaced := store.ContextEvent{Kind: KindReport, Key: "notes/plan.md"}
	if ac.allow(unplaced) {
		t.Error("a report no context holds reached a peer")
	}
	if owner := (&accessCheck{contexts: []string{"acme/webapp"}}); !owner.allow(unplaced) {
		t.Error("the owner does not see a report no context holds")
	}
	// A coding session run inside secrets/ is about secrets/, its commands too.
	for _, meta := range []string{`{"session":"s1","dir":"secrets"}`, `{"session":"s1","tool":"Bash","dir":"secrets"}`} {
		chat := store.ContextEvent{Kind: "assistant", Ctx: "acme/webapp", Meta: meta}
		if (&accessCheck{contexts: []string{"acme/webapp"}, allowed: deny}).allow(chat) {
			t.Errorf("a session event inside secrets/ (%s) reached a peer kept out of it", meta)
		}
	}
	// What a session said after reading a file in secrets/ may quote it.
	quoted := store.ContextEvent{Kind: "assistant", Ctx: "acme/webapp", Meta: `{"session":"s2","touched":["acme/webapp/secrets/rotation.md"]}`}
	if (&accessCheck{contexts: []string{"acme/webapp"}, allowed: deny}).allow(quoted) {
		t.Error("a reply after the session read secrets/rotation.md reached a peer kept out of secrets/")
	}
	if !(&accessCheck{contexts: []string{"acme/webapp"}, allowed: func(string) bool { return true }}).allow(quoted) {
		t.Error("a peer who may read secrets/ does not see the reply")
	}
}

func TestRunPollsUntilCanceled(t *testing.T) {
	repo, _, _ := sharedAuthRepo(t)
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(repo, ""))
	clk := backoff.NewFake(testNow)
	s.clock = clk
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	// Run polls, then waits its interval on the clock: each wait means a
	// poll is done, and the next comes when the interval has passed.
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	for polls := 1; ; polls++ {
		if clk.Waiting(wctx) == 0 {
			t.Fatalf("Run did not finish poll %d within 20s", polls)
		}
		st, err := db.ContextStats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.BySource["git"] >= 27 {
			break
		}
		if polls == 5 {
			t.Fatalf("Run indexed only %d git events in %d polls", st.BySource["git"], polls)
		}
		clk.Advance(time.Second) // testConfig: index_interval_sec 1
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop after cancel")
	}
}

func TestTaskResultFromGoTestJSON(t *testing.T) {
	m := newMirror(t)
	ctx := context.Background()
	f, err := os.Open("testdata/go_test.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts, err := task.ParseGoTestJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	// A newer run than the seeded one: its failures replace the old ones.
	ev := TaskEvent("task-9", "run_tests", "failed", "acme/webapp", "", TestSummaryFrom(&counts))
	ev.TS = testNow.Add(-5 * time.Minute)
	if _, err := m.s.Ingest(ctx, ev); err != nil {
		t.Fatal(err)
	}
	a, err := m.s.Answer(ctx, Question{Text: "what blocks auth?", Scope: []string{"acme/webapp"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "TestSessionLogout fails: dial tcp 127.0.0.1:6379: connect: connection refused"
	if !slices.Contains(a.Result.Blockers, want) {
		t.Fatalf("want %q in %q", want, a.Result.Blockers)
	}
	if slices.Contains(a.Result.Blockers, blockTest) {
		t.Fatalf("a failure of an older run is still reported: %q", a.Result.Blockers)
	}
}

// TestConfidenceHasThreeDecimals: the confidence an answer carries (and the
// audit log records) reads as a person would write it, not as the sum of
// floating-point weights (the walk read 0.8999999999999999).
func TestConfidenceHasThreeDecimals(t *testing.T) {
	m := newMirror(t)
	for _, q := range []string{"how is auth going?", "what about billing?", "JWT refresh", "認証の進捗は？", "lunch plans?"} {
		a, err := m.s.Answer(context.Background(), Question{Text: q, Scope: []string{"acme/webapp"}})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(a.Result.Metadata["confidence"])
		if x := a.Confidence * 1000; x != math.Round(x) || len(raw) > 5 {
			t.Errorf("%q: confidence %v (%s), want three decimals at most", q, a.Confidence, raw)
		}
	}
}

// TestCredentialNoteNotProgress: a note that only writes a secret down
// ("search admin key: …", redacted when stored) is no work to report, while
// a note saying what was done with a secret in it is listed.
func TestCredentialNoteNotProgress(t *testing.T) {
	m := newMirror(t)
	ctx := context.Background()
	for _, n := range []string{
		"search index admin key: " + leakedAWSKey,
		"search index rebuilt with the new key " + leakedAWSKey + ", nightly job green",
	} {
		if _, err := m.s.Ingest(ctx, NoteEvent(n)); err != nil {
			t.Fatal(err)
		}
	}
	a, err := m.s.Answer(ctx, Question{Text: "how is the search index going?"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(a.Result.Summary, "admin key") {
		t.Errorf("a credential note is listed as progress: %q", a.Result.Summary)
	}
	if !strings.Contains(a.Result.Summary, "nightly job green") {
		t.Errorf("the note about the rebuilt index is missing: %q", a.Result.Summary)
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Algolia 管理用キー: [REDACTED:github-pat]", true},
		{"テスト用のトークンは [REDACTED:github-pat]。", true},
		{"[REDACTED:aws-access-token]", true},
		{"token: [REDACTED:github-pat] rotated, deploy works again", false},
		{"deploy works again", false},
	} {
		if got := recordsSecret(c.text); got != c.want {
			t.Errorf("recordsSecret(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

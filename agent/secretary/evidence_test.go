package secretary

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/store"
)

// TestRefsRankCommitsAndFilesTogether: the commit that matches the question
// best comes first even though it touched several files, and files whose
// best evidence is a listed commit follow other evidence instead of
// crowding it out.
func TestRefsRankCommitsAndFilesTogether(t *testing.T) {
	pq := parsedQuery{Terms: []string{"lspci"}}
	hits := []store.ContextHit{
		{Kind: "commit", Key: "aaaaaaa1111", Title: "add lspci command", Score: 9,
			Meta: `{"files":[{"path":"kernel/terminal.cpp","lines":"10-40"},{"path":"kernel/pci.cpp","lines":"1-5"}]}`},
		{Kind: "commit", Key: "bbbbbbb2222", Title: "lspci: show class codes", Score: 6,
			Meta: `{"files":[{"path":"kernel/pci.cpp","lines":"7-9"}]}`},
		{Kind: "commit", Key: "ccccccc3333", Title: "terminal tweaks", Score: 1,
			Meta: `{"files":[{"path":"kernel/terminal.cpp","lines":"50-60"}]}`},
	}
	refs := groupEvidence(hits, pq).refs()
	if len(refs) < 3 {
		t.Fatalf("refs = %+v", refs)
	}
	if refs[0].Type != "commit" || refs[0].Ref != "aaaaaaa" {
		t.Fatalf("first ref = %+v, want the best-matching commit aaaaaaa", refs[0])
	}
	if refs[1].Ref != "bbbbbbb" {
		t.Fatalf("second ref = %+v, want the second matching commit before files the first one stands for", refs[1])
	}
	if refs[2].Type != "file" || refs[2].Ref != "kernel/pci.cpp:1-5" {
		t.Fatalf("third ref = %+v, want kernel/pci.cpp with its line range", refs[2])
	}
}

// TestRefsListAMergedPullRequestOnce: a pull request's merge and the commit
// it merged say the same thing; the commit is listed once, where the
// better of the two ranked, and the next piece of evidence gets the place
// the second would have taken. A merge with no such commit among the
// hits, and two unrelated commits, stay as they are.
func TestRefsListAMergedPullRequestOnce(t *testing.T) {
	pq := parsedQuery{Terms: []string{"powershell"}}
	hits := []store.ContextHit{
		{Kind: "commit", Key: "aaaaaaa1111", Title: "Merge pull request #2345 from dev/fix-ps", Score: 9,
			Body: "Fix  PowerShell completion\nfiles: src/shell.py (+10 -2)", Meta: `{"files":[{"path":"src/shell.py","lines":"1-9"}]}`},
		{Kind: "commit", Key: "bbbbbbb2222", Title: "fix powershell completion", Score: 8,
			Body: "files: src/shell.py (+10 -2)", Meta: `{"files":[{"path":"src/shell.py","lines":"1-9"}]}`},
		{Kind: "commit", Key: "ccccccc3333", Title: "document PowerShell support", Score: 5},
		{Kind: "commit", Key: "ddddddd4444", Title: "Merge branch 'ps-docs'", Score: 4, Body: "files: docs/ps.md (+3 -0)"},
		// Merged with the pull request's title as its subject.
		{Kind: "commit", Key: "eeeeeee5555", Title: "Add PowerShell shell completion support (#3637)", Score: 3.5},
		{Kind: "commit", Key: "fffffff6666", Title: "Add PowerShell shell completion support", Score: 3},
		// Squashed: nothing else says the same.
		{Kind: "commit", Key: "0000000777", Title: "Test PowerShell on Windows (#3700)", Score: 2},
	}
	var commits []string
	for _, r := range groupEvidence(hits, pq).refs() {
		if r.Type == "commit" {
			commits = append(commits, r.Ref+" "+r.Summary)
		}
	}
	want := []string{"bbbbbbb fix powershell completion", "ccccccc document PowerShell support", "ddddddd Merge branch 'ps-docs'",
		"fffffff Add PowerShell shell completion support", "0000000 Test PowerShell on Windows (#3700)"}
	if !slices.Equal(commits, want) {
		t.Fatalf("commits listed = %q\nwant %q", commits, want)
	}
}

// TestRefsListFilesByTheirBestEvidence: the files listed are those with the
// strongest single piece of evidence, so a file one well-matching merge
// added is listed although other files were touched by many weak hits.
func TestRefsListFilesByTheirBestEvidence(t *testing.T) {
	pq := parseQuery("how's the text editor app going?")
	hits := []store.ContextHit{{Kind: "commit", Key: "aaaaaaa1111", Title: "Merge pull request #46 from mikecat/text-editor", Score: 9,
		Meta: `{"files":[{"path":"apps/tedit/tedit.cpp","lines":"1-845"}]}`}}
	// Many weaker commits, each touching the same six busy files: their
	// summed scores exceed the merge's.
	for i := range 8 {
		hits = append(hits, store.ContextHit{Kind: "commit", Key: fmt.Sprintf("b%06d2222", i), Title: "editor tweaks", Score: 3,
			Meta: `{"files":[{"path":"src/a.js"},{"path":"src/b.js"},{"path":"src/c.js"},{"path":"src/d.js"},{"path":"src/e.js"},{"path":"src/f.js"}]}`})
	}
	refs := groupEvidence(hits, pq).refs()
	var files []string
	for _, r := range refs {
		if r.Type == "file" {
			files = append(files, r.Ref)
		}
	}
	if len(files) != maxFileRefs || files[0] != "apps/tedit/tedit.cpp:1-845" {
		t.Fatalf("files listed %q, want apps/tedit/tedit.cpp first of %d", files, maxFileRefs)
	}
	if refs[0].Ref != "aaaaaaa" || refs[1].Ref != "apps/tedit/tedit.cpp:1-845" {
		t.Fatalf("refs %+v: want the merge, then the file its path names", refs[:2])
	}
}

// TestRecentWorkPutsDoneBeforeSnapshots: asked what the owner has been up
// to, the answer names the newest commit before the uncommitted changes,
// whose snapshot is stamped when it was last seen (always newest), and
// older commits after them.
func TestRecentWorkPutsDoneBeforeSnapshots(t *testing.T) {
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(t.TempDir(), ""))
	h := func(n int) time.Time { return testNow.Add(-time.Duration(n) * time.Hour) }
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		for _, e := range []store.ContextEvent{
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "a1a1a1a1a1a1", Title: "acpi: S5 shutdown", TS: h(8),
				Meta: `{"files":[{"path":"kernel/acpi.cpp","lines":"1-9"}]}`},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "b2b2b2b2b2b2", Title: "ahci: skeleton", TS: h(30),
				Meta: `{"files":[{"path":"kernel/ahci.cpp","lines":"1-9"}]}`},
			{Source: "git", Kind: "worktree", Ctx: "acme/webapp", Key: "worktree", Title: "uncommitted changes", TS: testNow,
				Meta: `{"files":[{"path":"kernel/fat.cpp"},{"path":"kernel/main.cpp"}]}`},
		} {
			if _, err := tx.InsertContextEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Answer(context.Background(), Question{From: "pm-tanaka", Text: "What have you been up to lately?"})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, r := range a.Result.ContextRefs {
		refs = append(refs, r.Ref)
	}
	fat := slices.IndexFunc(refs, func(r string) bool { return strings.HasPrefix(r, "kernel/fat.cpp") })
	older := slices.Index(refs, "b2b2b2b")
	if len(refs) < 4 || refs[0] != "a1a1a1a" || fat < 0 || older < 0 || fat > older {
		t.Fatalf("refs %q: want the newest commit first, then the uncommitted files before the older commit", refs)
	}
}

// TestPathNamedByAskedWordsOrTheirOneTranslation: a path is named by a
// word as asked, or by its translation when the glossary has only one
// (デプロイ → deploy; 認証 → auth, authenticat are forms of one word); a
// word translated several ways (表示 → display,
// show, render) names no file by a translation.
func TestPathNamedByAskedWordsOrTheirOneTranslation(t *testing.T) {
	for _, c := range []struct {
		question, path string
		want           bool
	}{
		{"What changed in the editor?", "src/editor/main.jsx", true},
		{"gh-pagesへのデプロイにはどのトークンを使ってる?", ".github/workflows/deploy.yml", true},
		{"暗い配色の表示モードはどこまでできてる?", "kona3engine/action/show.inc.php", false},
		{"認証の進捗は？", "auth/logout.go", true},
	} {
		if got := pathNames(c.path, parseQuery(c.question)); got != c.want {
			t.Errorf("%q names %s: %v, want %v", c.question, c.path, got, c.want)
		}
	}
}

// TestMergedFilesFollowTheCommitListedForTheMerge: a merge listed as the
// commit it merged gives that commit its files, so the commit stands for
// them and the next commit on the topic comes before them.
func TestMergedFilesFollowTheCommitListedForTheMerge(t *testing.T) {
	pq := parsedQuery{Terms: []string{"optimiz"}}
	hits := []store.ContextHit{
		{Kind: "commit", Key: "aaaaaaa1111", Title: "Merge pull request #1541 from dev/optimize_log", Score: 4,
			Body: "Optimize Log calls\nfiles: entry.go (+10 -2)", Meta: `{"files":[{"path":"entry.go","lines":"1-9"}]}`},
		{Kind: "commit", Key: "bbbbbbb2222", Title: "Optimize Log calls", Score: 2,
			Meta: `{"files":[{"path":"entry.go","lines":"1-9"}]}`},
		{Kind: "commit", Key: "ccccccc3333", Title: "TextFormatter: optimize quoting", Score: 2.5},
	}
	var got []string
	for _, r := range groupEvidence(hits, pq).refs()[:3] {
		got = append(got, r.Ref)
	}
	if want := []string{"bbbbbbb", "ccccccc", "entry.go:1-9"}; !slices.Equal(got, want) {
		t.Fatalf("refs %q, want %q", got, want)
	}
}

// TestOldMarkerRanksByWhenWritten: a FIXME is stamped when it was last
// seen, but its recency counts from when its line was committed, so a
// marker from months ago does not outrank last week's commit that says
// the same.
func TestOldMarkerRanksByWhenWritten(t *testing.T) {
	_, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(t.TempDir(), ""))
	h := func(n int) time.Time { return testNow.Add(-time.Duration(n) * time.Hour) }
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		for _, e := range []store.ContextEvent{
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "a1b2c3d4e5f6", Title: "parse: reject duplicate arrays", TS: h(24 * 5)},
			{Source: "git", Kind: "marker", Ctx: "acme/webapp", Key: "parse.go:3", Title: "FIXME(parse.go:3): reject duplicate arrays",
				Meta: `{"marker":"FIXME","added":"` + h(24*60).Format(time.RFC3339) + `"}`, TS: h(1)},
		} {
			if _, err := tx.InsertContextEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchContext(context.Background(), store.ContextSearch{Terms: []string{"reject", "duplicate", "arrays"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Kind != "commit" {
		t.Fatalf("hits = %+v, want the commit first", hits)
	}
}

// TestMergeBoilerplateIsNoMatch: git's merge subjects are scored on the
// names they hold, not on "Merge pull request #N from" or "Merge branch …
// into": a question asking whether something was "merged" finds the
// commit that did the work first, not every merge; and when a merge and a
// commit it brought in both match, the commit is listed first.
func TestMergeBoilerplateIsNoMatch(t *testing.T) {
	for title, want := range map[string]string{
		"Merge pull request #839 from k1LoW/out-viewpoint":                "k1LoW/out-viewpoint",
		"Merge branch 'main' into fix-merge":                              "main fix-merge",
		"Merge branches 'a' and 'b'":                                      "a b",
		"Merge remote-tracking branch 'origin/master' into draft_promise": "origin/master draft_promise",
		"Merge branch 'usb-cdc'":                                          "usb-cdc",
		"fix: merge viewpoints only by name":                              "fix: merge viewpoints only by name",
	} {
		if got := scoredTitle("commit", title); got != want {
			t.Errorf("scoredTitle(%q) = %q, want %q", title, got, want)
		}
	}
	if got := scoredTitle(KindNote, "Merge branch 'x'"); got != "Merge branch 'x'" {
		t.Errorf("a note's title scored as %q", got)
	}

	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(t.TempDir(), ""))
	h := func(n int) time.Time { return testNow.Add(-time.Duration(n) * time.Hour) }
	files := func(p string) string { return `{"files":[{"path":"` + p + `","lines":"1-9"}]}` }
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		for _, e := range []store.ContextEvent{
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "c1c2c3c4c5c6", Title: "fix: merge viewpoints only by name",
				Body: "files: schema/schema.go (+5 -1)", Meta: files("schema/schema.go"), TS: h(40)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "a1a2a3a4a5a6", Title: "Merge pull request #12 from acme/viewpoint-names",
				Body: "files: schema/schema.go (+5 -1)", Meta: files("schema/schema.go"), TS: h(2)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "b1b2b3b4b5b6", Title: "Merge branch 'main' into docs-merged",
				Body: "files: docs/README.md (+1 -0)", Meta: files("docs/README.md"), TS: h(1)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "d1d2d3d4d5d6", Title: "Merge pull request #13 from acme/merge-queue",
				Body: "files: ci/queue.yml (+3 -0)", Meta: files("ci/queue.yml"), TS: h(1)},
		} {
			if _, err := tx.InsertContextEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Answer(context.Background(), Question{From: "pm-tanaka", Text: "Are viewpoints with the same name merged correctly now?"})
	if err != nil {
		t.Fatal(err)
	}
	refs := refsOf(a, "commit")
	if len(refs) == 0 || refs[0] != "c1c2c3c" {
		t.Fatalf("commit refs %q, want the work (c1c2c3c) first", refs)
	}
	if i := slices.Index(refs, "a1a2a3a"); i >= 0 && i < 1 {
		t.Errorf("commit refs %q: the merge that brought the work in ranks above it", refs)
	}

	// Scored alike, a merge ranking first gives its place to the commit
	// it brought in (every file of the commit is among the merge's).
	pq := parseQuery("viewpoint names")
	hits := []store.ContextHit{
		{Kind: "commit", Ctx: "acme/webapp", Key: "a1a2a3a4a5a6", Title: "Merge branch 'viewpoint-names'", Meta: `{"files":[{"path":"schema/schema.go"},{"path":"schema/names.go"}]}`, TS: h(2), Score: 5},
		{Kind: "commit", Ctx: "acme/webapp", Key: "e1e2e3e4e5e6", Title: "docs: viewpoints", Meta: files("docs/viewpoints.md"), TS: h(3), Score: 4},
		{Kind: "commit", Ctx: "acme/webapp", Key: "c1c2c3c4c5c6", Title: "viewpoints: names are unique", Meta: files("schema/names.go"), TS: h(20), Score: 3},
	}
	var got []string
	for _, r := range groupEvidence(hits, pq).refs() {
		if r.Type == "commit" {
			got = append(got, r.Ref)
		}
	}
	if want := []string{"c1c2c3c", "e1e2e3e", "a1a2a3a"}; !slices.Equal(got, want) {
		t.Errorf("commit refs %q, want %q", got, want)
	}
}

// TestMergeListsTheWorkItMergedWhenOnlyItMatches: history written in
// Japanese merges branches named in English, so an English question can
// match a pull request's merge ("add-quote-shortcut") and not the commit
// it brought in (引用ツイートを…ショートカットを追加); the answer lists
// that commit, found by the pull request's title, where the merge ranks.
func TestMergeListsTheWorkItMergedWhenOnlyItMatches(t *testing.T) {
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(t.TempDir(), ""))
	h := func(n int) time.Time { return testNow.Add(-time.Duration(n) * time.Hour) }
	files := func(p string) string { return `{"files":[{"path":"` + p + `","lines":"1-9"}]}` }
	work := "引用ツイートを Ctrl+Shift+L で実行する機能を追加"
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		for _, e := range []store.ContextEvent{
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "c1c2c3c4c5c6", Title: work,
				Body: "files: src/Main.cs (+3 -0)", Meta: files("src/Main.cs"), TS: h(30)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "a1a2a3a4a5a6", Title: "Merge pull request #180 from acme/add-quote-shortcut",
				Body: work + "\nfiles: src/Main.cs (+3 -0)", Meta: files("src/Main.cs"), TS: h(2)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "b1b2b3b4b5b6", Title: "画像の読み込みを修正",
				Body: "files: src/Image.cs (+1 -1)", Meta: files("src/Image.cs"), TS: h(1)},
		} {
			if _, err := tx.InsertContextEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Answer(context.Background(), Question{From: "pm-tanaka", Text: "Is there a keyboard shortcut for quoting now?"})
	if err != nil {
		t.Fatal(err)
	}
	refs := refsOf(a, "commit")
	if len(refs) == 0 || refs[0] != "c1c2c3c" {
		t.Fatalf("commit refs %q, want the merged work (c1c2c3c) first", refs)
	}
	if slices.Contains(refs, "a1a2a3a") {
		t.Errorf("commit refs %q list the merge besides the work it merged", refs)
	}
}

// TestRefsOneNamedFilePerCommitBeforeTheNext: of a listed commit's files
// whose paths name the question's words, one keeps its place before the
// next commit; the commit stands for the others. Three files of the
// Nushell completions commit, each naming one word of a question about
// where fish's completion file is installed, pushed the fix asked about
// to the fifth place.
func TestRefsOneNamedFilePerCommitBeforeTheNext(t *testing.T) {
	pq := parseQuery("did the install location of the fish completion file change?")
	hits := []store.ContextHit{
		{Kind: "commit", Key: "aaaaaaa1111", Title: "feat(completion): add Nushell completions", Score: 9,
			Meta: `{"files":[{"path":"completion/fish/task.fish","lines":"72"},{"path":"completion/zsh/_task","lines":"97"},{"path":"website/docs/installation.md","lines":"410-488"}]}`},
		{Kind: "commit", Key: "bbbbbbb2222", Title: "fix: install fish completions to vendor directory", Score: 8,
			Meta: `{"files":[{"path":".goreleaser.yml","lines":"82"}]}`},
	}
	refs := groupEvidence(hits, pq).refs()
	if len(refs) < 3 || refs[0].Ref != "aaaaaaa" || refs[1].Type != "file" || refs[2].Ref != "bbbbbbb" {
		t.Fatalf("refs = %+v, want the first commit, one of its files, then the second commit", refs)
	}
	// A commit's only file named by the question keeps its place.
	hits[0].Meta = `{"files":[{"path":"completion/zsh/_task","lines":"97"}]}`
	refs = groupEvidence(hits, pq).refs()
	if len(refs) < 3 || refs[1].Type != "file" || !strings.HasPrefix(refs[1].Ref, "completion/zsh/_task") {
		t.Fatalf("refs = %+v, want completion/zsh/_task second", refs)
	}
}

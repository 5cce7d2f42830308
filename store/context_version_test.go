package store

import (
	"context"
	"testing"
	"time"
)

// A concept asking for a version is met by a version number next to the
// thing the question names: commits bumping a tool write the number
// alone ("Update NVEncC to 9.31"), so without this a newer commit that
// only mentions the tool ranks first.
func TestSearchContextVersionNumberAnswersVersion(t *testing.T) {
	db := openContextDB(t)
	h := func(n int) time.Time { return ctxTestNow.Add(-time.Duration(n) * time.Hour) }
	insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Key: "bump", Title: "Update QSVEncC to 8.26 and NVEncC to 9.31", Body: "files: .github/workflows/build.yml (+2 -2)", TS: h(40)},
		ContextEvent{Source: "git", Kind: "commit", Key: "flag", Title: "NVEncC: pass the lowlatency flag", Body: "files: server/encoder.py (+3 -1)", TS: h(2)},
		ContextEvent{Source: "git", Kind: "commit", Key: "other", Title: "Bump js-yaml to 4.2.0", Body: "files: package.json (+1 -1)", TS: h(1)},
	)
	search := func(version bool) []string {
		t.Helper()
		hits, err := db.SearchContext(context.Background(), ContextSearch{Concepts: []ContextConcept{
			{Forms: []string{"version"}, Version: version},
			{Forms: []string{"nvencc"}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		return hitKeys(hits)
	}
	if got := search(false); len(got) == 0 || got[0] != "flag" {
		t.Fatalf("without Version = %v, want the newer flag commit first (the case it fixes)", got)
	}
	got := search(true)
	if len(got) == 0 || got[0] != "bump" {
		t.Errorf("with Version = %v, want the bump to 9.31 first", got)
	}
	// A number with nothing else of the question next to it (another
	// tool's bump) covers nothing: it is not listed.
	if pos(got, "other") < len(got) {
		t.Errorf("with Version = %v, want no js-yaml bump", got)
	}
}

// A version number beside a name only mentions it; a bump moves something
// to it, in English or Japanese.
func TestSaysVersionChange(t *testing.T) {
	for text, want := range map[string]bool{
		"update nvencc to 9.31":                          true,
		"bump golang.org/x/net from 0.1.0 to 0.2.0":      true,
		"chore: update minimal go version to go 1.25.10": true,
		"build: onnx runtimeを1.23.2に更新する":                true,
		"x を 1.2 に上げる":                                   true,
		"qsvencc を 8.26 に、nvencc を 9.31 に更新":             true,
		"vue 3.6 への更新":                                   true,
		"libcamera 0.6 に対応する":                            true,
		"upgrade pyinstaller 6.17.0":                     true,
		"mirakurun 4.0 の api 変更への対応":                     false,
		"fix the crash with nvencc 9.31":                 false,
		"release notes for v1.2.0":                       false,
		"python 3.12 で落ちる件を修正":                           false,
	} {
		if got := SaysVersionChange(text); got != want {
			t.Errorf("SaysVersionChange(%q) = %v, want %v", text, got, want)
		}
	}
}

// A commit that only mentions the version beside the name does not answer
// which version it was bumped to, however new it is.
func TestSearchContextVersionMentionIsNoBump(t *testing.T) {
	db := openContextDB(t)
	h := func(n int) time.Time { return ctxTestNow.Add(-time.Duration(n) * time.Hour) }
	insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Key: "bump", Title: "NVEncC を 9.31 に更新", Body: "files: .github/workflows/build.yml (+2 -2)", TS: h(40)},
		ContextEvent{Source: "git", Kind: "commit", Key: "mention", Title: "NVEncC 9.30 で lowlatency が効かない件を修正", Body: "files: server/encoder.py (+3 -1)", TS: h(2)},
	)
	hits, err := db.SearchContext(context.Background(), ContextSearch{Concepts: []ContextConcept{
		{Forms: []string{"version", "バージョン"}, Version: true},
		{Forms: []string{"nvencc"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitKeys(hits); len(got) == 0 || got[0] != "bump" {
		t.Errorf("hits = %v, want the bump to 9.31 before the newer mention of 9.30", got)
	}
}

package secretary

import (
	"slices"
	"testing"

	"github.com/aoi-protocol/aoi/store"
)

// TestCodeOnlyMatchesCountHalf: a concept named only in the code a commit
// added (a word list, sample text) covers half as much as one named in its
// subject, message or files, so such a hit cannot make an answer look sure.
func TestCodeOnlyMatchesCountHalf(t *testing.T) {
	subject := store.ContextHit{Kind: "commit", Title: "payment: retry declined cards", Body: "files: pay/retry.go (+10 -2)"}
	codeOnly := store.ContextHit{Kind: "commit", Title: "glossary: more terms",
		Body: "files: glossary/terms_test.go (+40 -0)" + store.CodeMark + `{"決済", "payment"},`}
	none := store.ContextHit{Kind: "commit", Title: "docs: typo", Body: "files: README.md (+1 -1)"}
	forms := []string{"payment", "決済"}
	for _, c := range []struct {
		name string
		hit  store.ContextHit
		want float64
	}{{"subject", subject, coverAbout}, {"code only", codeOnly, coverCode}, {"none", none, 0}} {
		if got := conceptCover(c.hit, forms, nil); got != c.want {
			t.Errorf("%s: conceptCover = %v, want %v", c.name, got, c.want)
		}
	}
	pq := parseQuery("How is the payment work going?")
	if got, want := quality([]store.ContextHit{codeOnly}, pq), quality([]store.ContextHit{subject}, pq); got >= want {
		t.Errorf("quality from a code-only match %v, want below a subject match's %v", got, want)
	}
}

// TestRelationNeedsOneHitNamingBoth: the walk's "is dark mode blocked on
// the redis config?" was auto-sent at 0.95 from a dark-mode commit and an
// auth commit blocked on Redis, which said nothing of each other. A
// question relating two things counts only what one hit covers; a plain
// question still adds what the hits next to the best one cover.
func TestRelationNeedsOneHitNamingBoth(t *testing.T) {
	auth := store.ContextHit{Kind: "commit", Title: "auth: refresh tokens 75% done, blocked on Redis config", Body: "files: auth/refresh.go (+40 -2)"}
	dark := store.ContextHit{Kind: "commit", Title: "ui: dark mode toggle scaffold", Body: "files: ui/theme.go (+30 -0)"}
	relation := parseQuery("is dark mode blocked on the redis config?")
	if !relation.Relation {
		t.Fatal("the question is not read as relating two things")
	}
	if q := quality([]store.ContextHit{auth, dark}, relation); q >= 0.75 {
		t.Errorf("quality %v from two unrelated hits; want it below full evidence (0.75)", q)
	}
	both := store.ContextHit{Kind: "commit", Title: "ui: dark mode waits for the redis config cache", Body: "files: ui/theme.go (+3 -0)"}
	if q := quality([]store.ContextHit{both, auth}, relation); q < 0.75 {
		t.Errorf("quality %v from a hit naming both; want full evidence", q)
	}
	if parseQuery("how are dark mode and the redis config going?").Relation {
		t.Error("a question about two things is read as relating them")
	}
}

// TestFixDoesNotMatchFIXME: "fix" in a question found every FIXME marker,
// whatever it was about (the second walk's billing question got auth's
// FIXME as its blocker); the marker's kind is no topic.
func TestFixDoesNotMatchFIXME(t *testing.T) {
	marker := store.ContextHit{Kind: "marker", Title: "FIXME(auth/refresh.go:7): refresh tokens are never revoked"}
	commit := store.ContextHit{Kind: "commit", Title: "billing: fix the invoice totals"}
	forms := []string{"fix"}
	if conceptCover(marker, forms, nil) != 0 || conceptCover(commit, forms, nil) != coverAbout {
		t.Errorf("cover of fix: marker %v (want 0), commit %v (want %v)", conceptCover(marker, forms, nil), conceptCover(commit, forms, nil), coverAbout)
	}
	if mentionsTerm(marker.Title, forms) || !mentionsTerm(commit.Title, forms) {
		t.Error("mentionsTerm reads the marker's FIXME as fix, or misses the commit's fix")
	}
}

// TestMatchInsideALongerWordCoversLess: a word of the question found only
// inside a longer, different word ("time" in "timestamp" or "timeout")
// covers half of what a whole-word match does (a held-out question about
// how long recipes took reached the threshold from a [timestamp]
// attribute), while an inflection, a derivation, a word starting inside
// an identifier, and a common abbreviation of the longer word cover it
// fully (perf/performance, auth/authentication, compat/compatibility).
func TestMatchInsideALongerWordCoversLess(t *testing.T) {
	hit := func(title string) store.ContextHit {
		return store.ContextHit{Kind: "commit", Title: title, Body: "files: src/x.rs (+1 -1)"}
	}
	for _, c := range []struct {
		title, form string
		want        float64
	}{
		{"Add [timestamp] recipe attribute", "time", coverAbout * coverPart},
		{"Raise the request timeout", "time", coverAbout * coverPart},
		{"Print how much time each recipe took", "time", coverAbout},
		{"Time the recipes", "time", coverAbout},
		{"Show the happy path first", "app", coverAbout * coverPart},
		{"Improve performance of the scanner", "perf", coverAbout},
		{"Add authentication to the proxy", "auth", coverAbout},
		{"Check authorization before the upload", "auth", coverAbout},
		{"Move authn and authz into one middleware", "auth", coverAbout},
		{"Show the author of each commit", "auth", coverAbout * coverPart},
		{"Keep commits authored by bots out", "auth", coverAbout * coverPart},
		{"Perfect the layout of the footer", "perf", coverAbout * coverPart},
		{"Make certain the lock is held", "cert", coverAbout * coverPart},
		{"Renew the certificates", "cert", coverAbout},
		{"Restore compatibility with old configs", "compat", coverAbout},
		{"Make the loader configurable", "config", coverAbout},
		{"Optimization of the lexer", "optimiz", coverAbout},
		{"Tagged releases only", "tag", coverAbout},
		{"Call parseJWT once", "jwt", coverAbout},
		{"Cache the parsed files", "cach", coverAbout},
	} {
		if got := conceptCover(hit(c.title), []string{c.form}, nil); got != c.want {
			t.Errorf("%q covering %q = %v, want %v", c.title, c.form, got, c.want)
		}
	}
	// A form that matches whole beats another form's partial match.
	if got := conceptCover(hit("Record the elapsed timestamp"), []string{"time", "elapsed"}, nil); got != coverAbout {
		t.Errorf("elapsed as a word with time inside timestamp = %v, want %v", got, coverAbout)
	}
	pq := parseQuery("how long did each recipe take?")
	partial, whole := hit("Add [timestamp] recipe attribute"), hit("Print how much time each recipe took")
	if q, w := quality([]store.ContextHit{partial}, pq), quality([]store.ContextHit{whole}, pq); q >= w {
		t.Errorf("quality from timestamp %v, want below that from time %v", q, w)
	}
}

// TestVersionNumberCoversVersion: asked which version something was bumped
// to, a commit writing the number next to it ("NVEncC を 9.31 に更新")
// covers the question's "version"; a number beside nothing the question
// names does not.
func TestVersionNumberCoversVersion(t *testing.T) {
	pq := parseQuery("which version did we bump NVEncC to?")
	i := slices.IndexFunc(pq.Concepts, func(g []string) bool { return g[0] == "version" })
	if i < 0 || !pq.asksVersion(i) {
		t.Fatalf("concepts %v: no version concept asked", pq.Concepts)
	}
	bump := store.ContextHit{Kind: "commit", Title: "Update: [workflows] QSVEncC を 8.26 に、NVEncC を 9.31 に更新"}
	other := store.ContextHit{Kind: "commit", Title: "Build(deps): js-yaml from 4.2.0 to 4.3.0"}
	if got := pq.cover(bump, i); got != coverAbout {
		t.Errorf("cover of version by %q = %v, want %v", bump.Title, got, coverAbout)
	}
	if got := pq.cover(other, i); got != 0 {
		t.Errorf("cover of version by %q = %v, want 0", other.Title, got)
	}
	mention := store.ContextHit{Kind: "commit", Title: "Fix the lowlatency flag with NVEncC 9.30"}
	if got := pq.cover(mention, i); got != 0 {
		t.Errorf("cover of version by %q, which only mentions one, = %v, want 0", mention.Title, got)
	}
	if one := parseQuery("what's the version?"); len(one.Concepts) == 1 && one.asksVersion(0) {
		t.Error("a question naming nothing but the version asks for a number beside nothing")
	}
}

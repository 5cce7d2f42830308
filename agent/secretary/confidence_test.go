package secretary

import (
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
		if got := conceptCover(c.hit, forms); got != c.want {
			t.Errorf("%s: conceptCover = %v, want %v", c.name, got, c.want)
		}
	}
	pq := parseQuery("How is the payment work going?")
	if got, want := quality([]store.ContextHit{codeOnly}, pq), quality([]store.ContextHit{subject}, pq); got >= want {
		t.Errorf("quality from a code-only match %v, want below a subject match's %v", got, want)
	}
}

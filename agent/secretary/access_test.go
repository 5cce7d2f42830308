package secretary

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/secretary/source"
	"github.com/aoi-protocol/aoi/store"
)

// TestCommitWithUnlistedOrMovedFilesMeetsFolderRules: a commit whose file
// list was cut (files_more, or an event stored before that with exactly
// the limit) may touch a denied folder among the files left out, and a
// file moved out of secrets/ shows its text: a peer kept out of
// acme/webapp/secrets sees neither, the owner sees both.
func TestCommitWithUnlistedOrMovedFilesMeetsFolderRules(t *testing.T) {
	meta := func(files []source.FileStat, more int) string {
		m := map[string]any{"files": files}
		if more > 0 {
			m["files_more"] = more
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	var bulk []source.FileStat
	for i := range source.MaxFilesListed {
		bulk = append(bulk, source.FileStat{Path: fmt.Sprintf("bulk/a%02d.txt", i)})
	}
	events := map[string]store.ContextEvent{
		"cut":   {Kind: "commit", Ctx: "acme/webapp", Meta: meta(bulk, 1)},
		"old":   {Kind: "commit", Ctx: "acme/webapp", Meta: meta(bulk, 0)},
		"moved": {Kind: "commit", Ctx: "acme/webapp", Meta: meta([]source.FileStat{{Path: "docs/a.txt", From: "secrets/a.txt"}}, 0)},
	}
	keptOut := func(r string) bool {
		// Denied beneath acme/webapp/secrets: the whole context is not
		// readable either ("acme/webapp/" asks for everything under it).
		return !strings.HasPrefix(r, "acme/webapp/secrets") && r != "acme/webapp/"
	}
	peer := &accessCheck{contexts: []string{"acme/webapp"}, allowed: keptOut}
	owner := &accessCheck{contexts: []string{"acme/webapp"}}
	for name, ev := range events {
		if peer.allow(ev) {
			t.Errorf("%s: a peer kept out of secrets/ sees the commit", name)
		}
		if !owner.allow(ev) {
			t.Errorf("%s: the owner does not see the commit", name)
		}
	}
	few := store.ContextEvent{Kind: "commit", Ctx: "acme/webapp", Meta: meta(bulk[:3], 0)}
	if !peer.allow(few) {
		t.Error("a commit whose every file the peer may read is hidden from it")
	}
}

// TestParseMetaKeepsABoundedCacheOfDecodedMetas: a meta read again decodes
// to the same value (from the cache), a malformed one to the zero value,
// and the cache never holds more than maxCachedMetas.
func TestParseMetaKeepsABoundedCacheOfDecodedMetas(t *testing.T) {
	raw := `{"files":[{"path":"auth/login.go","from":"auth/old.go","lines":"1-9"}],"touched":["acme/webapp/auth"],"author":"Suzuki","marker":"FIXME"}`
	for range 2 {
		m := parseMeta(raw)
		if len(m.Files) != 1 || m.Files[0].Path != "auth/login.go" || m.Files[0].From != "auth/old.go" ||
			len(m.Touched) != 1 || m.Author != "Suzuki" || m.Marker != "FIXME" {
			t.Fatalf("parseMeta(%s) = %+v", raw, m)
		}
	}
	if m := parseMeta(`{"files":`); len(m.Files) != 0 || m.Author != "" {
		t.Errorf("a malformed meta decoded to %+v, want the zero value", m)
	}
	for i := range maxCachedMetas + 10 {
		if m := parseMeta(fmt.Sprintf(`{"author":"a%d"}`, i)); m.Author != fmt.Sprintf("a%d", i) {
			t.Fatalf("meta %d: author %q", i, m.Author)
		}
	}
	metaCache.Lock()
	n := len(metaCache.byText)
	metaCache.Unlock()
	if n > maxCachedMetas {
		t.Errorf("the cache holds %d metas, more than its bound %d", n, maxCachedMetas)
	}
}

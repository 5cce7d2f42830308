package store

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var ctxTestNow = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

func openContextDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "aoi.db"), WithClock(func() time.Time { return ctxTestNow }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func insertEvents(t testing.TB, db *DB, evs ...ContextEvent) []int64 {
	t.Helper()
	var ids []int64
	err := db.Write(context.Background(), func(tx *Tx) error {
		for _, ev := range evs {
			id, err := tx.InsertContextEvent(ev)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func hitKeys(hits []ContextHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Key)
	}
	return out
}

func fixtureEvents() []ContextEvent {
	h := func(n int) time.Time { return ctxTestNow.Add(-time.Duration(n) * time.Hour) }
	return []ContextEvent{
		{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "a1b2c3d", Title: "auth: add JWT signing", Body: "files: auth/jwt.go (+80 -0)", TS: h(50)},
		{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "b2c3d4e", Title: "認証: リフレッシュトークンを実装", Body: "files: auth/refresh.go (+40 -3)", TS: h(5)},
		{Source: "git", Kind: "marker", Ctx: "acme/webapp", Key: "auth/refresh.go:88", Title: "FIXME: token store undecided", TS: h(1)},
		{Source: "note", Kind: "note", Ctx: "", Key: "", Title: "blocked on the DB schema review", Body: "waiting for the db team", TS: h(2)},
		{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "c3d4e5f", Title: "secrets: rotate auth keys", Body: "files: secrets/auth_keys.go", TS: h(3)},
		{Source: "git", Kind: "commit", Ctx: "acme/billing", Key: "d4e5f6a", Title: "billing: invoice export", Body: "files: export.go", TS: h(4)},
	}
}

func TestSearchContext(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db, fixtureEvents()...)
	ctx := context.Background()
	cases := []struct {
		name string
		q    ContextSearch
		want []string // keys that must be present
		not  []string // keys that must be absent
	}{
		{"trigram english", ContextSearch{Terms: []string{"JWT"}}, []string{"a1b2c3d"}, []string{"d4e5f6a"}},
		{"trigram japanese", ContextSearch{Terms: []string{"リフレッシュ"}}, []string{"b2c3d4e"}, nil},
		{"two-char japanese", ContextSearch{Terms: []string{"認証"}}, []string{"b2c3d4e"}, []string{"a1b2c3d"}},
		{"one-char japanese", ContextSearch{Terms: []string{"認"}}, []string{"b2c3d4e"}, nil},
		{"two-letter word", ContextSearch{Terms: []string{"DB"}}, []string{""}, []string{"a1b2c3d"}},
		{"file path", ContextSearch{Terms: []string{"auth/refresh.go"}}, []string{"b2c3d4e", "auth/refresh.go:88"}, nil},
		{"kind filter", ContextSearch{Terms: []string{"auth"}, Kinds: []string{"marker"}}, []string{"auth/refresh.go:88"}, []string{"a1b2c3d"}},
		{"context filter", ContextSearch{Terms: []string{"export", "auth"}, Contexts: []string{"acme/billing"}}, []string{"d4e5f6a"}, []string{"a1b2c3d"}},
		{"allow filter", ContextSearch{Terms: []string{"auth"}, Allow: func(ev ContextEvent) bool { return !strings.HasPrefix(ev.Key, "c3d4") }}, []string{"a1b2c3d"}, []string{"c3d4e5f"}},
		{"no match", ContextSearch{Terms: []string{"kubernetes"}}, nil, []string{"a1b2c3d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hits, err := db.SearchContext(ctx, c.q)
			if err != nil {
				t.Fatal(err)
			}
			keys := hitKeys(hits)
			for _, w := range c.want {
				if !slices.Contains(keys, w) {
					t.Errorf("want %q in %q", w, keys)
				}
			}
			for _, n := range c.not {
				if slices.Contains(keys, n) {
					t.Errorf("%q must not be in %q", n, keys)
				}
			}
			if c.want == nil && len(hits) != 0 {
				t.Errorf("want no hits, got %q", keys)
			}
		})
	}
}

func TestSearchContextRanking(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db, fixtureEvents()...)
	hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{"auth", "refresh"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 2 {
		t.Fatalf("want several hits, got %q", hitKeys(hits))
	}
	// The commit naming both terms (recent) beats one naming only "auth" (older).
	top := hits[0].Key
	if top != "b2c3d4e" && top != "auth/refresh.go:88" {
		t.Fatalf("want an event holding both terms first, got %q (%v)", top, hitKeys(hits))
	}
	if hits[0].Matched != 2 {
		t.Fatalf("top hit matched %d terms, want 2", hits[0].Matched)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatal("hits not sorted by score")
		}
	}
}

func TestSnippetIsShortAndCentred(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor ", 40) + "the redis connection refused here " + strings.Repeat("sit amet ", 40)
	s := snippet(long, "title", "redis")
	if n := len([]rune(s)); n > SnippetRunes {
		t.Fatalf("snippet has %d runes, cap %d", n, SnippetRunes)
	}
	if !strings.Contains(s, "redis connection refused") {
		t.Fatalf("snippet misses the match: %q", s)
	}
	if !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") {
		t.Fatalf("snippet should mark both cuts: %q", s)
	}
}

func TestReplaceContextStateAndCursor(t *testing.T) {
	db := openContextDB(t)
	ctx := context.Background()
	replace := func(keys ...string) {
		err := db.Write(ctx, func(tx *Tx) error {
			var evs []ContextEvent
			for _, k := range keys {
				evs = append(evs, ContextEvent{Key: k, Title: "FIXME: something at " + k})
			}
			if err := tx.ReplaceContextState("git", "acme/webapp", "marker", evs); err != nil {
				return err
			}
			return tx.SetContextCursor("git:acme/webapp:markers", fmt.Sprint(len(keys)))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	replace("a.go:1", "b.go:2")
	replace("b.go:2")
	evs, err := db.RecentContext(ctx, ContextRecent{Kinds: []string{"marker"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Key != "b.go:2" {
		t.Fatalf("want only b.go:2 after replace, got %+v", evs)
	}
	hits, err := db.SearchContext(ctx, ContextSearch{Terms: []string{"a.go"}})
	if err != nil || len(hits) != 0 {
		t.Fatalf("replaced event still searchable: %v %v", hitKeys(hits), err)
	}
	v, ok, err := db.ContextCursor(ctx, "git:acme/webapp:markers")
	if err != nil || !ok || v != "1" {
		t.Fatalf("cursor = %q %v %v, want 1", v, ok, err)
	}
	if _, ok, _ := db.ContextCursor(ctx, "missing"); ok {
		t.Fatal("missing cursor reported as present")
	}
}

// TestDeleteContextKeys: the commits named go, from the index too; the
// same keys in another context, source or kind stay.
func TestDeleteContextKeys(t *testing.T) {
	db := openContextDB(t)
	ctx := context.Background()
	insertEvents(t, db, fixtureEvents()...)
	insertEvents(t, db, ContextEvent{Source: "git", Kind: "marker", Ctx: "acme/webapp", Key: "a1b2c3d", Title: "FIXME: a marker keyed like a commit"})
	var removed int64
	err := db.Write(ctx, func(tx *Tx) error {
		var err error
		removed, err = tx.DeleteContextKeys("git", "acme/webapp", "commit", []string{"a1b2c3d", "c3d4e5f", "d4e5f6a", "0000000"})
		return err
	})
	if err != nil || removed != 2 {
		t.Fatalf("removed %d, %v; want the 2 commits of acme/webapp", removed, err)
	}
	evs, err := db.RecentContext(ctx, ContextRecent{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range evs {
		keys = append(keys, e.Kind+":"+e.Key)
	}
	slices.Sort(keys)
	want := []string{"commit:b2c3d4e", "commit:d4e5f6a", "marker:a1b2c3d", "marker:auth/refresh.go:88", "note:"}
	if !slices.Equal(keys, want) {
		t.Fatalf("left %q, want %q", keys, want)
	}
	if hits, err := db.SearchContext(ctx, ContextSearch{Terms: []string{"rotate"}}); err != nil || len(hits) != 0 {
		t.Fatalf("a removed commit is still found: %v %v", hitKeys(hits), err)
	}
}

// TestHeldContextKeys: the keys one source, context and kind has events
// for, and no others.
func TestHeldContextKeys(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db, fixtureEvents()...)
	var held map[string]bool
	err := db.Write(context.Background(), func(tx *Tx) error {
		var err error
		held, err = tx.HeldContextKeys("git", "acme/webapp", "commit", []string{"a1b2c3d", "d4e5f6a", "auth/refresh.go:88", "0000000"})
		return err
	})
	if err != nil || len(held) != 1 || !held["a1b2c3d"] {
		t.Fatalf("held %v, %v; want a1b2c3d only (d4e5f6a is another context's, the marker another kind's)", held, err)
	}
}

// TestContextKeys: the keys of one source, context and kind, newest
// first, up to the limit.
func TestContextKeys(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db, fixtureEvents()...)
	keys, err := db.ContextKeys(context.Background(), "git", "acme/webapp", "commit", 10)
	if err != nil || !slices.Equal(keys, []string{"c3d4e5f", "b2c3d4e", "a1b2c3d"}) {
		t.Fatalf("keys %q, %v; want acme/webapp's three commits, newest first", keys, err)
	}
	if keys, _ := db.ContextKeys(context.Background(), "git", "acme/webapp", "commit", 1); len(keys) != 1 {
		t.Fatalf("limit 1 gave %q", keys)
	}
}

func TestMergeContextIndex(t *testing.T) {
	db := openContextDB(t)
	for i := 0; i < 20; i++ { // many small transactions leave many segments
		insertEvents(t, db, fixtureEvents()...)
	}
	if err := db.MergeContextIndex(context.Background(), 50); err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{"認証"}, Limit: 100})
	if err != nil || len(hits) != 20 {
		t.Fatalf("after merging: %d hits (%v), want 20", len(hits), err)
	}
}

func TestPruneContextAndStats(t *testing.T) {
	db := openContextDB(t)
	ctx := context.Background()
	insertEvents(t, db, fixtureEvents()...)
	n, err := db.PruneContext(ctx, ctxTestNow.Add(-24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d (%v), want 1", n, err)
	}
	hits, _ := db.SearchContext(ctx, ContextSearch{Terms: []string{"JWT"}})
	if len(hits) != 0 {
		t.Fatalf("pruned event still found: %v", hitKeys(hits))
	}
	// The short-term index forgets pruned rows too (contentless_delete).
	var short int
	if err := db.rd.QueryRowContext(ctx, `SELECT count(*) FROM context_short`).Scan(&short); err != nil {
		t.Fatal(err)
	}
	st, err := db.ContextStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Events != 5 || st.BySource["git"] != 4 || st.BySource["note"] != 1 {
		t.Fatalf("stats = %+v", st)
	}
	if short > int(st.Events) {
		t.Fatalf("context_short has %d rows for %d events", short, st.Events)
	}
	if !st.Newest.Equal(ctxTestNow.Add(-time.Hour)) {
		t.Fatalf("newest = %v", st.Newest)
	}
}

func TestInsertContextEventBounds(t *testing.T) {
	db := openContextDB(t)
	big := strings.Repeat("あ", maxContextBody) // 3 bytes each
	ids := insertEvents(t, db, ContextEvent{Source: "note", Kind: "note", Body: big})
	evs, err := db.RecentContext(context.Background(), ContextRecent{})
	if err != nil || len(evs) != 1 || evs[0].ID != ids[0] {
		t.Fatalf("recent = %v %v", evs, err)
	}
	if len(evs[0].Body) > maxContextBody || !strings.HasPrefix(big, evs[0].Body) {
		t.Fatalf("body not truncated on a character boundary: %d bytes", len(evs[0].Body))
	}
	err = db.Write(context.Background(), func(tx *Tx) error {
		_, err := tx.InsertContextEvent(ContextEvent{Kind: "note"})
		return err
	})
	if err == nil {
		t.Fatal("event without source accepted")
	}
}

func TestContextShortGrams(t *testing.T) {
	got := contextShortGrams("認証のDB設定 at auth/jwt.go で")
	for _, w := range []string{"認証", "証の", "db", "設定", "at", "go", "で"} {
		if !slices.Contains(strings.Fields(got), w) {
			t.Errorf("want %q in %q", w, got)
		}
	}
	if strings.Contains(got, "auth") || strings.Contains(got, "jwt") {
		t.Errorf("long words belong to the trigram index: %q", got)
	}
}

func TestSearchContextOutOfTimeKeepsWhatItFound(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db, fixtureEvents()...)
	// An already-cancelled caller gets its own error, not a partial result.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.SearchContext(ctx, ContextSearch{Terms: []string{"auth"}}); err == nil {
		t.Fatal("a cancelled search succeeded")
	}
}

// TestSearchContextTitleAndWords: a subject line naming the term as a word
// beats code that mentions it inside longer identifiers, however often.
func TestSearchContextTitleAndWords(t *testing.T) {
	db := openContextDB(t)
	code := strings.Repeat("TaskContext* ctx = TaskContextOf(task);\n", 20)
	insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Ctx: "os", Key: "aaaaaaa", Title: "rename TaskC TaskIdle", Body: "files: kernel/main.cpp (+4 -4)", TS: ctxTestNow.Add(-10 * time.Hour)},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "os", Key: "bbbbbbb", Title: "refactor", Body: "files: kernel/task.cpp (+40 -3)\nadded:\n" + code, TS: ctxTestNow.Add(-8 * time.Hour)},
	)
	hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{"taskc"}})
	if err != nil || len(hits) != 2 || hits[0].Key != "aaaaaaa" {
		t.Fatalf("want the commit naming TaskC first, got %v (%v)", hitKeys(hits), err)
	}
	for _, c := range []struct {
		text, term string
		want       float64
	}{{"rename taskc taskidle", "taskc", 1}, {"merged the branch", "merg", 1}, {"taskcontext", "taskc", 0.5}, {"wrapper", "app", 0.2}, {"認証を実装", "認証", 1},
		// English doubles a stem's last consonant before an ending: the
		// same word ("tag" in "tagged"), not a longer one (tagline).
		{"not tagged yet", "tag", 1}, {"mapping table", "map", 1}, {"a tagline", "tag", 0.5}, {"taggy", "tag", 0.5},
		// A short form covers the words it shortens, not another word
		// that starts with it.
		{"add authentication", "auth", 1}, {"auths", "auth", 1}, {"update the author list", "auth", 0.2}, {"perfect", "perf", 0.2}} {
		if got := Occurrences(c.text, c.term); got != c.want {
			t.Errorf("Occurrences(%q, %q) = %v, want %v", c.text, c.term, got, c.want)
		}
	}
}

// TestSearchContextAbbreviation: asked "auth", a commit about
// authentication ranks above a newer one about the author list, which
// holds "auth" only as the start of another word.
func TestSearchContextAbbreviation(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Ctx: "os", Key: "aaaaaaa", Title: "add authentication to the API", Body: "files: api.go (+40 -3)", TS: ctxTestNow.Add(-30 * time.Hour)},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "os", Key: "bbbbbbb", Title: "sort the author list", Body: "files: AUTHORS (+4 -4)", TS: ctxTestNow.Add(-1 * time.Hour)},
	)
	hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{"auth"}})
	if err != nil || len(hits) != 2 || hits[0].Key != "aaaaaaa" {
		t.Fatalf("want the authentication commit first, got %v (%v)", hitKeys(hits), err)
	}
}

// TestSearchContextConcepts: forms of one concept count once, so an event
// covering two concepts beats one naming a single concept in two
// languages.
func TestSearchContextConcepts(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Ctx: "w", Key: "bilingual", Title: "認証 auth cleanup", TS: ctxTestNow.Add(-time.Hour)},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "w", Key: "both", Title: "auth token refresh", TS: ctxTestNow.Add(-time.Hour)},
	)
	hits, err := db.SearchContext(context.Background(), ContextSearch{Concepts: []ContextConcept{
		{Forms: []string{"認証", "auth"}, Weights: []float64{1, 0.9}}, {Forms: []string{"token"}}}})
	if err != nil || len(hits) != 2 || hits[0].Key != "both" || hits[0].Matched != 2 || hits[1].Matched != 1 {
		t.Fatalf("want the event covering both concepts first, got %v (%v)", hitKeys(hits), err)
	}
}

// TestContextSpanMovesWithEveryChange: a new event raises the span's top,
// history backfilled below the oldest (Earlier) lowers its bottom, so a
// reader comparing spans sees both kinds of change.
func TestContextSpanMovesWithEveryChange(t *testing.T) {
	db := openContextDB(t)
	ctx := context.Background()
	span := func() [2]int64 {
		lo, hi, err := db.ContextSpan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return [2]int64{lo, hi}
	}
	if s := span(); s != [2]int64{} {
		t.Fatalf("empty mirror span = %v", s)
	}
	insertEvents(t, db, ContextEvent{Source: "note", Kind: "note", Title: "first"})
	first := span()
	insertEvents(t, db, ContextEvent{Source: "git", Kind: "commit", Title: "old commit", Earlier: true})
	if s := span(); s[0] >= first[0] || s[1] != first[1] {
		t.Fatalf("after a backfilled event span = %v, want a lower bottom than %v", s, first)
	}
	insertEvents(t, db, ContextEvent{Source: "note", Kind: "note", Title: "second"})
	if s := span(); s[1] <= first[1] {
		t.Fatalf("after a new event span = %v, want a higher top than %v", s, first)
	}
}

// TestContextTitles: the titles of a span of ids, lowest first, at most
// the limit.
func TestContextTitles(t *testing.T) {
	db := openContextDB(t)
	ids := insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Ctx: "a/b", Key: "1", Title: "one", TS: ctxTestNow},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "a/b", Key: "2", Title: "two", TS: ctxTestNow},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "a/b", Key: "3", Title: "three", TS: ctxTestNow})
	got, err := db.ContextTitles(context.Background(), ids[1], ids[2], 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != ids[1] || got[0].Title != "two" {
		t.Fatalf("titles %+v, want only two", got)
	}
}

// TestTimelessSearchWeighsAgeLess: asked whether a thing exists, the old
// commit that brought it outranks a newer one that only touches it; asked
// otherwise, the newer one leads.
func TestTimelessSearchWeighsAgeLess(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Ctx: "a/b", Key: "old", Title: "Support checkstyle xml output",
			TS: ctxTestNow.Add(-6 * 24 * time.Hour)},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "a/b", Key: "new", Title: "Tidy the checkstyle formatter",
			Body: "files: src/Formatter/CheckStyle.hs; writes xml output", TS: ctxTestNow.Add(-time.Hour)})
	for _, timeless := range []bool{false, true} {
		hits, err := db.SearchContext(context.Background(), ContextSearch{Concepts: []ContextConcept{
			{Forms: []string{"checkstyle"}}, {Forms: []string{"xml"}}, {Forms: []string{"output"}}}, Timeless: timeless, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{false: "new", true: "old"}[timeless]
		if len(hits) != 2 || hits[0].Key != want {
			var got []string
			for _, h := range hits {
				got = append(got, fmt.Sprintf("%s %.3f", h.Key, h.Score))
			}
			t.Errorf("timeless %v: hits %q, want %s first", timeless, got, want)
		}
	}
}

// TestTranslationCountsFullyInTheOtherLanguage: a Japanese question about
// English history (held-out set 9: 複数選択が変わったときに発火するイベント)
// reached the English commit only through translations, each counted at
// 0.9, while Japanese commits of another repository matched its own words
// at 1 and ranked first. An English title can only name the translation:
// it now scores as it does for the same question asked in English. A
// Japanese title matched by the English form keeps the discount.
func TestTranslationCountsFullyInTheOtherLanguage(t *testing.T) {
	english := openContextDB(t)
	insertEvents(t, english,
		ContextEvent{Source: "git", Kind: "commit", Ctx: "w", Key: "one", Title: "Fix the select box", TS: ctxTestNow.Add(-time.Hour)},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "w", Key: "two", Title: "Select events by name", TS: ctxTestNow.Add(-2 * time.Hour)})
	// One concept named in the other language is no better evidence than
	// the same word in the question's: the discount stays.
	var scores []float64
	for _, c := range [][]ContextConcept{
		{{Forms: []string{"選択", "select"}, Weights: []float64{1, 0.9}}, {Forms: []string{"ドロップダウン"}}},
		{{Forms: []string{"select"}}, {Forms: []string{"ドロップダウン"}}},
	} {
		hits, err := english.SearchContext(context.Background(), ContextSearch{Concepts: c})
		i := slices.IndexFunc(hits, func(h ContextHit) bool { return h.Key == "one" })
		if err != nil || len(hits) != 2 || i < 0 {
			t.Fatalf("hits %v, %v", hitKeys(hits), err)
		}
		scores = append(scores, hits[i].Score)
	}
	if scores[0] >= scores[1] {
		t.Errorf("an English title naming one translated word scores %.4f, as much as for the English question (%.4f)", scores[0], scores[1])
	}
	db := openContextDB(t)
	insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Ctx: "w", Key: "en", Title: "Add multi event triggered on selection changes", TS: ctxTestNow.Add(-time.Hour)},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "w", Key: "other", Title: "Fix the select box", TS: ctxTestNow.Add(-2 * time.Hour)},
		ContextEvent{Source: "git", Kind: "commit", Ctx: "w", Key: "mixed", Title: "event の選択を整理", TS: ctxTestNow.Add(-3 * time.Hour)},
	)
	score := func(concepts []ContextConcept, key string) float64 {
		hits, err := db.SearchContext(context.Background(), ContextSearch{Concepts: concepts})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Key == key {
				return h.Score
			}
		}
		t.Fatalf("%s not found in %v", key, hitKeys(hits))
		return 0
	}
	ja := []ContextConcept{{Forms: []string{"選択", "select"}, Weights: []float64{1, 0.9}}, {Forms: []string{"イベント", "event"}, Weights: []float64{1, 0.9}}}
	en := []ContextConcept{{Forms: []string{"select"}}, {Forms: []string{"event"}}}
	if a, b := score(ja, "en"), score(en, "en"); math.Abs(a-b) > 1e-9 {
		t.Errorf("the English commit scores %.4f for the Japanese question, %.4f for the English one", a, b)
	}
	mixedEN := []ContextConcept{{Forms: []string{"選択"}}, {Forms: []string{"event"}}}
	mixedJA := []ContextConcept{{Forms: []string{"選択"}}, {Forms: []string{"イベント", "event"}, Weights: []float64{1, 0.9}}}
	if a, b := score(mixedJA, "mixed"), score(mixedEN, "mixed"); a >= b {
		t.Errorf("a Japanese title matched by a translation scores %.4f, as much as by the word itself (%.4f)", a, b)
	}
}

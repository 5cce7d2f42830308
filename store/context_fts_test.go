package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The trigram index holds rowids only (detail=none), so a row holding
// every trigram of a term but not the term itself must not be returned.
func TestSearchContextChecksTheWholeTerm(t *testing.T) {
	db := openContextDB(t)
	insertEvents(t, db,
		ContextEvent{Source: "note", Kind: "note", Key: "scrambled", Title: "uth aut", Body: "its trigrams, apart"},
		ContextEvent{Source: "note", Kind: "note", Key: "whole", Title: "OAuth flow", Body: "nothing else"},
		ContextEvent{Source: "note", Kind: "note", Key: "phrase", Title: "notes", Body: "Rotate the Refresh Token daily"},
		ContextEvent{Source: "note", Kind: "note", Key: "words", Title: "token", Body: "refresh later"},
		ContextEvent{Source: "note", Kind: "note", Key: "quoted", Title: `they say "hi" twice`},
	)
	for _, c := range []struct {
		terms []string
		want  []string
	}{
		{[]string{"auth"}, []string{"whole"}},           // "scrambled" holds aut and uth only apart
		{[]string{"refresh token"}, []string{"phrase"}}, // both words, but only one row has them together
		{[]string{"flow"}, []string{"whole"}},
		{[]string{"oauth flow"}, []string{"whole"}},
		{[]string{`SAY "HI"`}, []string{"quoted"}},
	} {
		hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: c.terms})
		if err != nil {
			t.Fatal(err)
		}
		got := hitKeys(hits)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("search %q = %v, want %v", c.terms, got, c.want)
		}
	}
	// A long term asks the index for a spread of its trigrams; the row
	// check still needs the whole term.
	long := strings.Repeat("abcdefghij", 8)
	insertEvents(t, db,
		ContextEvent{Source: "note", Kind: "note", Key: "long", Body: "x " + long + " y"},
		ContextEvent{Source: "note", Kind: "note", Key: "short-of-it", Body: long[:70]},
	)
	hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{long}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitKeys(hits); !slices.Equal(got, []string{"long"}) {
		t.Errorf("search for an 80-character term = %v, want [long]", got)
	}
	if n := strings.Count(trigramMatch(long), " AND "); n+1 > maxTermTrigrams+1 {
		t.Errorf("match for an 80-character term asks for %d trigrams, want at most %d", n+1, maxTermTrigrams+1)
	}
}

// A database whose context index was built before migration 0101 (trigram
// index with positions) is migrated on Open: the index is rebuilt with
// rowids only and every old event is still found.
func TestMigrateContextIndexToRowids(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aoi.db")
	raw, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := raw.Exec(q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	mustExec(`CREATE TABLE schema_migrations(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
	for _, m := range ms {
		if m.version > 100 && m.version < 200 {
			continue // the context index as it was before 0101
		}
		mustExec(m.sql)
		mustExec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, '')`, m.version, m.name)
	}
	old := []ContextEvent{
		{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "a1b2c3d", Title: "auth: add JWT signing", Body: "files: auth/jwt.go"},
		{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "b2c3d4e", Title: "認証: リフレッシュトークンを実装", Body: "files: auth/refresh.go"},
		{Source: "note", Kind: "note", Key: "n1", Title: "blocked on the DB schema review", Body: "uth aut"},
	}
	for _, ev := range old {
		res, err := raw.Exec(`INSERT INTO context_events(source, kind, ctx, key, title, body, ts, meta) VALUES (?, ?, ?, ?, ?, ?, ?, '{}')`,
			ev.Source, ev.Kind, ev.Ctx, ev.Key, ev.Title, ev.Body, formatTime(ctxTestNow.Add(-time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		mustExec(`INSERT INTO context_short(rowid, grams) VALUES (?, ?)`, id, contextShortGrams(ev.Title+" "+ev.Key+" "+ev.Body))
	}
	var before string
	if err := raw.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'context_fts'`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(before, "detail=none") {
		t.Fatalf("the old layout already has detail=none: %s", before)
	}
	raw.Close()

	var said []string
	db, err := Open(path, WithClock(func() time.Time { return ctxTestNow }), WithProgress(func(s string) { said = append(said, s) }))
	if err != nil {
		t.Fatal(err)
	}
	if len(said) != 2 || !strings.Contains(said[0], "rebuilding the context index") || !strings.Contains(said[1], "done in") {
		t.Fatalf("progress while upgrading = %q, want the rebuild announced and its end", said)
	}
	var after string
	if err := db.rd.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'context_fts'`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(after, "detail=none") {
		t.Fatalf("after Open the context index is still %s", after)
	}
	for _, c := range []struct{ term, want string }{
		{"jwt signing", "a1b2c3d"}, {"リフレッシュ", "b2c3d4e"}, {"認証", "b2c3d4e"}, {"schema review", "n1"}, {"db", "n1"},
	} {
		hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{c.term}})
		if err != nil {
			t.Fatal(err)
		}
		if got := hitKeys(hits); !slices.Equal(got, []string{c.want}) {
			t.Errorf("after the migration, search %q = %v, want [%s]", c.term, got, c.want)
		}
	}
	// New events are indexed by InsertContextEvent, pruned ones unindexed
	// by the recreated delete trigger.
	insertEvents(t, db, ContextEvent{Source: "note", Kind: "note", Key: "new", Title: "auth after the upgrade"})
	if _, err := db.PruneContext(context.Background(), ctxTestNow.Add(-30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{"auth"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitKeys(hits); !slices.Equal(got, []string{"new"}) {
		t.Errorf("after inserting one event and pruning the old ones, search auth = %v, want [new]", got)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err = sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO context_fts(context_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("the migrated index does not match its events: %v", err)
	}
}

// A group commit's events go into the trigram index as one segment: no
// statement of the insert may open a savepoint (an INSERT firing a
// trigger does), since FTS5 writes out a segment at every savepoint and
// merging those was most of the cost of ingest.
func TestContextEventsOfOneWriteMakeOneSegment(t *testing.T) {
	db := openContextDB(t)
	var evs []ContextEvent
	for i := range 40 {
		evs = append(evs, ContextEvent{Source: "note", Kind: "note", Key: fmt.Sprintf("k%d", i),
			Title: fmt.Sprintf("event %d about 認証 and db", i), Body: "token refresh rotation"})
	}
	insertEvents(t, db, evs...)
	for _, table := range []string{"context_fts", "context_short"} {
		var segs int
		if err := db.rd.QueryRow(`SELECT count(DISTINCT segid) FROM ` + table + `_idx`).Scan(&segs); err != nil {
			t.Fatal(err)
		}
		if segs != 1 {
			t.Errorf("%s has %d segments after one write of 40 events, want 1", table, segs)
		}
	}
	hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{"event 17 about"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitKeys(hits); !slices.Equal(got, []string{"k17"}) {
		t.Errorf("search \"event 17 about\" = %v, want [k17]", got)
	}
}

func TestTrigramMatchCoversTheTerm(t *testing.T) {
	for _, c := range []struct{ term, want string }{
		{"abc", `"abc"`},
		{"auth", `("aut" AND "uth")`},
		{"billing", `("bil" AND "lin" AND "ing")`},
		{"abcabc", `"abc"`},
		{"refresh token", `("ref" AND "res" AND "h t" AND "oke" AND "ken")`},
		{`say "hi"`, `("say" AND " ""h" AND "hi""")`},
	} {
		if got := trigramMatch(c.term); got != c.want {
			t.Errorf("trigramMatch(%q) = %s, want %s", c.term, got, c.want)
		}
	}
}

// TestFreshDatabaseSaysNothing: creating a database runs every migration,
// slow ones included, on empty tables; that is not worth a word.
func TestFreshDatabaseSaysNothing(t *testing.T) {
	var said []string
	db, err := Open(filepath.Join(t.TempDir(), "aoi.db"), WithProgress(func(s string) { said = append(said, s) }))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if len(said) != 0 {
		t.Fatalf("a fresh database said %q", said)
	}
}

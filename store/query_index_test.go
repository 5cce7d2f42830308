package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// storeQuestions stores n questions, one write each (as the peer server
// does), received at the given time, and returns their ids in order.
func storeQuestions(t testing.TB, db *DB, n int, state string, at time.Time) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("q-%06d", questionsMade.Add(1))
		q := QueryRecord{ID: ids[i], From: "pm", Text: "how is auth going?", State: state, ReceivedAt: at}
		if state == "answered" {
			q.Answer, q.AnsweredAt = []byte(`{"summary":"done"}`), &at
		}
		if err := db.Write(context.Background(), func(tx *Tx) error { return tx.InsertQuery(q) }); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

var questionsMade atomic.Int64

// queryMark reads the id index's mark.
func queryMark(t testing.TB, db *DB) int64 {
	t.Helper()
	var through int64
	if err := db.rd.QueryRow(queryIndexMarkSQL).Scan(&through); err != nil {
		t.Fatal(err)
	}
	return through
}

// checkFound looks every id up and checks it finds its own row.
func checkFound(t *testing.T, db *DB, ids []string) {
	t.Helper()
	for _, id := range ids {
		q, ok, err := db.Query(context.Background(), id)
		if err != nil || !ok || q.ID != id {
			t.Fatalf("Query(%s) = %q, %v, %v; want the question", id, q.ID, ok, err)
		}
	}
}

// TestQueryByIDAcrossTheIndexMark finds, reads and changes questions by
// id on both sides of the id index's mark: fresh, after a reopen, after
// the newest question is deleted (its rowid given again), after a prune
// and after a compaction.
func TestQueryByIDAcrossTheIndexMark(t *testing.T) {
	db, path := openTestDB(t)
	ctx := context.Background()
	old := time.Now().Add(-48 * time.Hour).UTC()
	answered := storeQuestions(t, db, 300, "answered", old)
	waiting := storeQuestions(t, db, 1000, "escalated", time.Now().UTC())
	all := append(append([]string{}, answered...), waiting...)
	mark := queryMark(t, db)
	if mark < queryIndexRows || mark >= int64(len(all)) {
		t.Fatalf("mark after %d questions = %d: want a pass behind, and a tail after it", len(all), mark)
	}
	checkFound(t, db, all)

	// Changed by id, before the mark and after it.
	for _, id := range []string{waiting[0], waiting[len(waiting)-1]} {
		at := time.Now().UTC()
		err := db.Write(ctx, func(tx *Tx) error {
			if err := tx.SetQueryDecision(id, "ESCALATE", 0.4, []byte(`{"summary":"draft"}`), []string{"acme/webapp"}); err != nil {
				return err
			}
			if err := tx.UpdateQuery(id, "answered", []byte(`{"summary":"sent"}`), &at); err != nil {
				return err
			}
			return tx.ReopenQuery(id, "escalated")
		})
		if err != nil {
			t.Fatalf("changing %s: %v", id, err)
		}
		q, _, _ := db.Query(ctx, id)
		if q.State != "escalated" || q.Decision != "ESCALATE" || len(q.DraftSources) != 1 {
			t.Fatalf("%s after its changes: %+v", id, q)
		}
	}
	err := db.Write(ctx, func(tx *Tx) error { return tx.UpdateQuery("q-unknown", "answered", nil, nil) })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("UpdateQuery of an unknown id: %v, want ErrNotFound", err)
	}

	// A reopened store counts the questions waiting for the index.
	db.Close()
	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	checkFound(t, db, all)
	more := storeQuestions(t, db, queryIndexRows, "escalated", time.Now().UTC())
	if got := queryMark(t, db); got < int64(len(all)) {
		t.Fatalf("mark after %d more questions = %d: the tail left before the reopen was not indexed", len(more), got)
	}
	all = append(all, more...)

	// The newest question deleted: its rowid is given to the next one,
	// which the lookup must still find.
	newest := all[len(all)-1]
	if err := db.Write(ctx, (*Tx).indexQuestions); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.Run(`DELETE FROM queries WHERE id = ?`, newest) }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.Query(ctx, newest); ok {
		t.Fatalf("deleted question %s still found", newest)
	}
	again := storeQuestions(t, db, 1, "escalated", time.Now().Add(time.Second).UTC())
	all = append(all[:len(all)-1], again...)
	checkFound(t, db, all)

	// Pruned questions leave the index.
	if n, _, err := db.PruneReceived(ctx, time.Now().Add(-24*time.Hour)); err != nil || n != int64(len(answered)) {
		t.Fatalf("PruneReceived = %d, %v; want the %d answered", n, err, len(answered))
	}
	var left int
	if err := db.rd.QueryRow(`SELECT count(*) FROM query_ids WHERE id IN (SELECT value FROM json_each(?))`, jsonList(answered)).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d pruned questions still in the id index (%v)", left, err)
	}
	all = all[len(answered):]
	checkFound(t, db, all)

	if err := db.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := queryMark(t, db), int64(0); got <= want {
		t.Fatalf("mark after Compact = %d", got)
	}
	checkFound(t, db, all)
}

func jsonList(ids []string) string {
	return `["` + strings.Join(ids, `","`) + `"]`
}

// TestQueryIDLookupUsesTheIndex holds the lookup's plan: the id index by
// its key and the tail by rowid, never a walk of the whole table.
func TestQueryIDLookupUsesTheIndex(t *testing.T) {
	db, _ := openTestDB(t)
	text := queryPlan(t, db, `SELECT `+queryColumns+` FROM queries WHERE `+queryByID, idArgs("q-1")...)
	for _, want := range []string{"SEARCH query_ids USING PRIMARY KEY (id=?)", "SEARCH queries USING INTEGER PRIMARY KEY (rowid>?)", "SEARCH queries USING INTEGER PRIMARY KEY (rowid=?)"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "SCAN queries") {
		t.Errorf("plan walks the whole table:\n%s", text)
	}
}

// TestQueryIDMigrationKeepsRowsAndOrder upgrades a database from before
// 0510, its ids a PRIMARY KEY: every question keeps its rowid (arrival
// order), is found by id, and the old key's index is gone.
func TestQueryIDMigrationKeepsRowsAndOrder(t *testing.T) {
	db, path := openTestDB(t)
	db.Close()
	db = reopenAfter(t, path,
		`DROP TRIGGER queries_ad`, `DROP TRIGGER queries_au_state`, `DROP TABLE query_ids`, `DROP TABLE open_queries`,
		`DROP TABLE queries_indexed`, `DROP TABLE queries`,
		`CREATE TABLE queries(id TEXT PRIMARY KEY, request_id TEXT NOT NULL DEFAULT '', from_agent TEXT NOT NULL,
			text TEXT NOT NULL, context_scope TEXT NOT NULL DEFAULT '[]', priority TEXT NOT NULL DEFAULT 'normal',
			state TEXT NOT NULL, decision TEXT NOT NULL DEFAULT '', confidence REAL NOT NULL DEFAULT 0, draft TEXT,
			answer TEXT, received_at TEXT NOT NULL, answered_at TEXT, draft_sources TEXT)`,
		`CREATE INDEX queries_open ON queries(state) WHERE state = 'buffered' OR state = 'escalated' OR state = 'awaiting'`,
		// Rowids with gaps, in an order unlike the ids'.
		`INSERT INTO queries(rowid, id, from_agent, text, state, received_at) VALUES
			(3, 'q-c', 'pm', 'one', 'escalated', '2026-01-01T00:00:00Z'),
			(7, 'q-a', 'pm', 'two', 'answered', '2026-01-01T00:00:01Z'),
			(9, 'q-b', 'qa', 'three', 'buffered', '2026-01-01T00:00:02Z')`,
		`DELETE FROM schema_migrations WHERE version IN (510, 520)`)
	checkFound(t, db, []string{"q-a", "q-b", "q-c"})
	var order string
	if err := db.rd.QueryRow(`SELECT group_concat(rowid || id, ',') FROM (SELECT rowid, id FROM queries ORDER BY rowid)`).Scan(&order); err != nil || order != "3q-c,7q-a,9q-b" {
		t.Fatalf("rows after the migration: %q (%v), want 3q-c,7q-a,9q-b", order, err)
	}
	if mark := queryMark(t, db); mark != 9 {
		t.Fatalf("mark after the migration = %d, want 9", mark)
	}
	var autoindex int
	if err := db.rd.QueryRow(`SELECT count(*) FROM sqlite_master WHERE tbl_name = 'queries' AND name LIKE 'sqlite_autoindex%'`).Scan(&autoindex); err != nil || autoindex != 0 {
		t.Fatalf("the id's old index is still there (%d, %v)", autoindex, err)
	}
	checkOpenQueries(t, db, "pm", "qa")
}

// openByScan lists the ids of the questions in state by a walk of the
// whole table, newest first: what the indexes must agree with.
func openByScan(t testing.TB, db *DB, state string) []string {
	return column[string](t, db, `SELECT id FROM queries WHERE state = ? ORDER BY rowid DESC`, state)
}

// column is the one column query reads, row by row.
func column[T any](t testing.TB, db *DB, query string, args ...any) []T {
	t.Helper()
	rows, err := db.rd.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkOpenQueries compares every listing and count of open questions
// (by state, by limit, by sender, as the focus flush would take them)
// with a walk of the whole table.
func checkOpenQueries(t *testing.T, db *DB, senders ...string) {
	t.Helper()
	ctx := context.Background()
	for _, state := range []string{"buffered", "escalated", "awaiting"} {
		want := openByScan(t, db, state)
		for _, limit := range []int{1, 7, 1000} {
			got, err := db.Queries(ctx, state, limit)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(got))
			for i, q := range got {
				ids[i] = q.ID
				if q.State != state {
					t.Fatalf("Queries(%s) listed %s in state %s", state, q.ID, q.State)
				}
			}
			if w := want[:min(limit, len(want))]; strings.Join(ids, ",") != strings.Join(w, ",") {
				i := 0
				for i < min(len(ids), len(w)) && ids[i] == w[i] {
					i++
				}
				t.Fatalf("Queries(%s, %d) listed %d questions, want %d; they part at #%d", state, limit, len(ids), len(w), i)
			}
		}
		if n, err := db.CountQueries(ctx, state); err != nil || n != len(want) {
			t.Fatalf("CountQueries(%s) = %d, %v; want %d", state, n, err, len(want))
		}
	}
	for _, from := range senders {
		var want int
		if err := db.rd.QueryRow(`SELECT count(*) FROM queries WHERE state IN ('buffered', 'escalated', 'awaiting') AND from_agent = ?`, from).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if n, err := db.OpenQueriesFrom(ctx, from); err != nil || n != want {
			t.Fatalf("OpenQueriesFrom(%s) = %d, %v; want %d", from, n, err, want)
		}
	}
}

// setState moves a question to state through UpdateQuery.
func setState(t *testing.T, db *DB, id, state string) {
	t.Helper()
	if err := db.Write(context.Background(), func(tx *Tx) error { return tx.UpdateQuery(id, state, nil, nil) }); err != nil {
		t.Fatal(err)
	}
}

// TestOpenQuestionsAcrossTheIndexMark lists and counts open questions
// while they change state on both sides of the mark, after the focus
// flush, a reopen, a deletion, a prune and a compaction.
func TestOpenQuestionsAcrossTheIndexMark(t *testing.T) {
	db, path := openTestDB(t)
	ctx := context.Background()
	now := time.Now().UTC()
	buffered := storeQuestions(t, db, 400, "buffered", now)
	escalated := storeQuestions(t, db, 500, "escalated", now)
	awaiting := storeQuestions(t, db, 300, "awaiting", now)
	mark := queryMark(t, db)
	if mark < queryIndexRows || mark >= 1200 {
		t.Fatalf("mark = %d: want a pass behind and a tail after it", mark)
	}
	checkOpenQueries(t, db, "pm")

	// State changes before the mark and after it, into and out of the open
	// states.
	for _, id := range []string{buffered[3], escalated[450], awaiting[299]} {
		setState(t, db, id, "answered")
	}
	setState(t, db, buffered[5], "escalated")
	setState(t, db, awaiting[250], "buffered")
	if err := db.Write(ctx, func(tx *Tx) error { return tx.ReopenQuery(buffered[3], "awaiting") }); err != nil {
		t.Fatal(err)
	}
	checkOpenQueries(t, db, "pm")

	// The focus flush takes every buffered question, on both sides.
	var flushed []QueryRecord
	err := db.Write(ctx, func(tx *Tx) error {
		var err error
		flushed, err = tx.EscalateBuffered()
		return err
	})
	if err != nil || len(flushed) != 399 {
		t.Fatalf("EscalateBuffered took %d, %v; want the 399 buffered", len(flushed), err)
	}
	if flushed[0].ID != buffered[0] || flushed[len(flushed)-1].ID != awaiting[250] {
		t.Fatalf("EscalateBuffered's order: %s … %s, want arrival order", flushed[0].ID, flushed[len(flushed)-1].ID)
	}
	checkOpenQueries(t, db, "pm")

	db.Close()
	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	more := storeQuestions(t, db, queryIndexRows, "awaiting", now)
	checkOpenQueries(t, db, "pm")
	if err := db.Write(ctx, func(tx *Tx) error {
		return tx.Run(`DELETE FROM queries WHERE id IN (?, ?)`, escalated[0], more[len(more)-1])
	}); err != nil {
		t.Fatal(err)
	}
	storeQuestions(t, db, 3, "buffered", now)
	checkOpenQueries(t, db, "pm")

	if err := db.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	checkOpenQueries(t, db, "pm")
	var stale int
	if err := db.rd.QueryRow(`SELECT count(*) FROM open_queries o JOIN queries q ON q.rowid = o.qrow WHERE q.state != o.state`).Scan(&stale); err != nil || stale != 0 {
		t.Fatalf("%d open_queries entries disagree with their question's state (%v)", stale, err)
	}
}

// TestOpenQuestionsPlanUsesTheIndex holds the plans of a listing by open
// state (the index newest first, stopping at the limit) and of the
// per-sender count: never a walk of the whole table.
func TestOpenQuestionsPlanUsesTheIndex(t *testing.T) {
	db, _ := openTestDB(t)
	for _, q := range []struct {
		sql  string
		args []any
		want []string
	}{
		{`SELECT ` + queryColumnsOf("q") + ` FROM open_queries o CROSS JOIN queries q ON q.rowid = o.qrow
			WHERE o.state = ? AND o.qrow <= ? AND q.state = ? ORDER BY o.qrow DESC LIMIT ?`, []any{"escalated", 10, "escalated", 5},
			[]string{"SEARCH o USING PRIMARY KEY (state=? AND qrow<?)", "SEARCH q USING INTEGER PRIMARY KEY (rowid=?)"}},
		{`SELECT count(*) FROM (` + openRows + `)`, openRowsArgs("buffered"),
			[]string{"SEARCH open_queries USING PRIMARY KEY (state=? AND qrow<?)", "SEARCH queries USING INTEGER PRIMARY KEY (rowid>?)"}},
	} {
		text := queryPlan(t, db, q.sql, q.args...)
		for _, w := range q.want {
			if !strings.Contains(text, w) {
				t.Errorf("plan lacks %q:\n%s", w, text)
			}
		}
		if strings.Contains(text, "SCAN queries") || strings.Contains(text, "TEMP B-TREE") {
			t.Errorf("plan walks or sorts the table:\n%s", text)
		}
	}
}

package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// appendAgents appends n audit rows in writes of perWrite rows, the
// agents taking turns (peer-0, peer-1, peer-2), odd rows aoi.notify.
func appendAgents(t testing.TB, db *DB, n, perWrite int) {
	t.Helper()
	for done := 0; done < n; {
		err := db.Write(context.Background(), func(tx *Tx) error {
			for i := done; i < min(n, done+perWrite); i++ {
				method := "aoi.query"
				if i%2 == 1 {
					method = "aoi.notify"
				}
				if _, err := tx.AppendAudit(fmt.Sprintf("peer-%d", i%3), method, "ok", map[string]any{"i": i}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		done += perWrite
	}
}

// auditByScan is what AuditList by agent must return: the log walked
// newest first with the agent as one more condition.
func auditByScan(t testing.TB, db *DB, q AuditQuery) []int64 {
	t.Helper()
	where, args := auditWhere(q, "")
	where = append(where, "agent = ?")
	return column[int64](t, db, `SELECT seq FROM audit_log`+whereClause(where)+` ORDER BY seq DESC LIMIT ?`,
		append(append(args, q.Agent), clampLimit(q.Limit, 100, 1000))...)
}

func listedSeqs(t testing.TB, db *DB, q AuditQuery) []int64 {
	t.Helper()
	recs, err := db.AuditList(context.Background(), q)
	if err != nil {
		t.Fatalf("AuditList(%+v): %v", q, err)
	}
	seqs := make([]int64, len(recs))
	for i, r := range recs {
		if r.Agent != q.Agent {
			t.Fatalf("AuditList(%+v) listed row %d of %s", q, r.Seq, r.Agent)
		}
		seqs[i] = r.Seq
	}
	return seqs
}

func markOf(t testing.TB, db *DB) int64 {
	t.Helper()
	through, err := agentIndexMark(db.rd.Query)
	if err != nil {
		t.Fatal(err)
	}
	return through
}

// checkListingsByAgent compares AuditList by agent with a walk of the log
// for every agent and a spread of limits, pages and filters, so that
// listings end in the unindexed tail, cross the mark, and start below it.
func checkListingsByAgent(t *testing.T, db *DB, agents []string) {
	t.Helper()
	head, err := db.AuditHeadSeq(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mark := markOf(t, db)
	for _, agent := range agents {
		for _, q := range []AuditQuery{
			{Agent: agent},
			{Agent: agent, Limit: 10},
			{Agent: agent, Limit: 1000},
			{Agent: agent, BeforeSeq: mark + 2, Limit: 5},
			{Agent: agent, BeforeSeq: mark - 300, Limit: 50},
			{Agent: agent, BeforeSeq: head / 3},
			{Agent: agent, Method: "aoi.notify", Limit: 400},
			{Agent: agent, Text: `"i":1`, Limit: 1000},
			{Agent: agent, Result: "denied"},
		} {
			if got, want := listedSeqs(t, db, q), auditByScan(t, db, q); !slices.Equal(got, want) {
				t.Fatalf("AuditList(%+v) (mark %d, head %d) = %d rows %v…, want %d rows %v…",
					q, mark, head, len(got), got[:min(5, len(got))], len(want), want[:min(5, len(want))])
			}
		}
	}
}

// TestAuditByAgentAcrossTheIndexMark: rows up to the agent index's mark
// are listed through the index, rows after it by a walk of the tail, and
// the listing by agent equals a walk of the whole log however it is cut:
// fresh, after a reopen, after a pruning and after forgetting an agent.
func TestAuditByAgentAcrossTheIndexMark(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, WithClock(clock.Now))
	appendAgents(t, db, 1300, 100)
	// A pass runs before the first write that finds agentIndexRows (512)
	// rows waiting: at heads 600 and 1200.
	if mark := markOf(t, db); mark != 1200 {
		t.Fatalf("agent index mark = %d after 1,300 rows in writes of 100, want 1200", mark)
	}
	var entries int
	if err := db.rd.QueryRow(`SELECT count(*) FROM audit_agent_seqs`).Scan(&entries); err != nil || entries != 1200 {
		t.Fatalf("the agent index holds %d entries (%v), want 1200", entries, err)
	}
	checkListingsByAgent(t, db, []string{"peer-0", "peer-1", "peer-2", "nobody"})

	db.Close()
	db, err := Open(path, WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	appendAgents(t, db, 500, 50) // the next pass: the first write to find 512 rows waiting, at head 1750
	if mark := markOf(t, db); mark != 1750 {
		t.Fatalf("after a reopen and 500 rows the mark is %d, want 1750 (the writer reads it back)", mark)
	}
	checkListingsByAgent(t, db, []string{"peer-0", "peer-1", "peer-2"})

	// Pruning removes the index's entries with the rows.
	recs, err := db.AuditList(context.Background(), AuditQuery{BeforeSeq: 1001, Limit: 1})
	if err != nil || len(recs) != 1 {
		t.Fatalf("row 1000: %v, %v", recs, err)
	}
	if _, err := db.PruneAudit(context.Background(), recs[0].Time); err != nil {
		t.Fatal(err)
	}
	var stale int
	if err := db.rd.QueryRow(`SELECT count(*) FROM audit_agent_seqs WHERE seq < 1000`).Scan(&stale); err != nil || stale != 0 {
		t.Fatalf("%d index entries of pruned rows remain (%v)", stale, err)
	}
	checkListingsByAgent(t, db, []string{"peer-0", "peer-1", "peer-2", systemAgent})

	// Forgetting an agent renames its rows in the index too.
	if _, err := db.ForgetAgent(context.Background(), "peer-1", "owner"); err != nil {
		t.Fatal(err)
	}
	if got := listedSeqs(t, db, AuditQuery{Agent: "peer-1"}); len(got) != 0 {
		t.Fatalf("after forgetting peer-1, %d rows are still listed by its name", len(got))
	}
	checkListingsByAgent(t, db, []string{Forgotten, "peer-0", "peer-2"})
	if v := mustVerify(t, db); !v.OK {
		t.Fatalf("verify: %+v", v)
	}
}

// TestAgentIndexPlanWalksTheIndexNewestFirst: the listing below the mark
// is driven by the index's key, newest first, with no sort of the
// agent's rows (which would read every one of them for a page of 100).
func TestAgentIndexPlanWalksTheIndexNewestFirst(t *testing.T) {
	db, _ := openTestDB(t)
	where, _ := auditWhere(AuditQuery{Method: "aoi.query", Text: "x"}, "a.")
	where = append([]string{"s.agent = ?", "s.seq <= ?", "a.agent = ?"}, where...)
	text := queryPlan(t, db, `SELECT `+auditColumnsOf("a")+` FROM audit_agent_seqs s CROSS JOIN audit_log a ON a.seq = s.seq`+
		whereClause(where)+` ORDER BY s.seq DESC LIMIT ?`, "p", 1, "p", "aoi.query", "%x%", "%x%", "%x%", "%x%", 100)
	plan := strings.Split(text, "; ")
	if len(plan) != 2 || !strings.Contains(plan[0], "SEARCH s USING PRIMARY KEY (agent=? AND seq<?)") ||
		!strings.Contains(plan[1], "SEARCH a USING INTEGER PRIMARY KEY (rowid=?)") || strings.Contains(text, "TEMP B-TREE") {
		t.Fatalf("plan = %s; want the index searched by agent and seq, then each row by its seq, no sort", text)
	}
}

// reopenAfter runs stmts on the closed database at path, as an older aoi
// left it, and opens it again (the migrations run); the test closes it.
func reopenAfter(t *testing.T, path string, stmts ...string) *DB {
	t.Helper()
	raw := rawDB(t, path)
	for _, stmt := range stmts {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	raw.Close()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestAgentIndexMigrationIndexesTheOldLog: a database from before the
// agent index (audit_log_agent, no audit_agent_seqs) gets every row
// indexed on opening, and listings by agent stay whole.
func TestAgentIndexMigrationIndexesTheOldLog(t *testing.T) {
	db, path := openTestDB(t)
	appendAgents(t, db, 300, 300)
	db.Close()
	db = reopenAfter(t, path,
		`DROP TABLE audit_agent_seqs`, `DROP TABLE audit_agent_seqs_through`,
		`CREATE INDEX audit_log_agent ON audit_log(agent, seq)`,
		`DELETE FROM schema_migrations WHERE version = 500`)
	if mark := markOf(t, db); mark != 300 {
		t.Fatalf("mark after the migration = %d, want 300 (the whole log)", mark)
	}
	var old int
	if err := db.rd.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'audit_log_agent'`).Scan(&old); err != nil || old != 0 {
		t.Fatalf("audit_log_agent still exists (%d, %v)", old, err)
	}
	checkListingsByAgent(t, db, []string{"peer-0", "peer-1", "peer-2"})
}

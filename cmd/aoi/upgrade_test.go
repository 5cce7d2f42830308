package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeSaysItUpgradesTheDatabase: an aoi.db written before migration
// 0101 (the context index's rebuild, the one slow upgrade) is upgraded when
// `aoi serve` starts, and the process says so on its output before it
// serves, then says how long it took. The old database is built from the
// migration files themselves, as an earlier aoi left it.
func TestServeSaysItUpgradesTheDatabase(t *testing.T) {
	bin := buildAOI(t)
	dir := filepath.Join(shortDir(t), "eng")
	initAgent(t, bin, dir, "eng-suzuki")
	writeDatabaseBefore(t, filepath.Join(dir, "aoi.db"), 101)

	p := startServeProc(t, bin, dir)
	p.waitServing(t, dir)
	out := p.out.String()
	begin := strings.Index(out, "upgrading the database")
	end := strings.Index(out, "upgrading the database: done in")
	if begin < 0 || end <= begin || !strings.Contains(out[begin:end], "rebuilding the context index") {
		t.Fatalf("serve's output should announce the upgrade and its end:\n%s", out)
	}
}

// writeDatabaseBefore creates path as an aoi that knew the migrations in
// ../../store/migrations numbered below version left it.
func writeDatabaseBefore(t *testing.T, path string, version int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "store", "migrations", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("migration files: %v (%d found)", err, len(files))
	}
	sort.Strings(files)
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
	for _, f := range files {
		name := filepath.Base(f)
		num, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			t.Fatalf("migration %s: %v", name, err)
		}
		if v >= version {
			break
		}
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exec(string(body))
		exec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
			v, name, time.Now().UTC().Format(time.RFC3339Nano))
	}
}

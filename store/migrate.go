package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one embedded schema change, numbered by its filename prefix.
type migration struct {
	version int
	name    string
	sql     string
	// progress is what the migration does, from a "-- progress: " line
	// in it: said (WithProgress) before and after applying it to a
	// database that already held data, because it may take a while.
	progress string
}

const progressMarker = "-- progress: "

// progressLine returns the text of sql's "-- progress: " line, if any.
func progressLine(sql string) string {
	for _, line := range strings.Split(sql, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), progressMarker); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// loadMigrations reads the embedded migrations in version order and rejects
// a malformed name or a duplicated number (two owners picked the same one).
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: reading embedded migrations: %w", err)
	}
	var ms []migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("store: migration %q is not named NNNN_name.sql", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("store: migrations %q and %q share version %d; renumber one", prev, name, v)
		}
		seen[v] = name
		body, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, fmt.Errorf("store: reading migration %s: %w", name, err)
		}
		ms = append(ms, migration{version: v, name: name, sql: string(body), progress: progressLine(string(body))})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// migrate applies every embedded migration not yet recorded in
// schema_migrations, each in its own IMMEDIATE transaction (so two processes
// opening the same file at once cannot both apply one).
func (db *DB) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	conn, err := db.wr.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open database %s: %w", db.path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations(
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("open database %s: creating schema_migrations: %w", db.path, err)
	}
	if err := db.checkNotNewer(ctx, conn, ms); err != nil {
		return err
	}
	var applied int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&applied); err != nil {
		return fmt.Errorf("open database %s: reading schema_migrations: %w", db.path, err)
	}
	say := func(string) {}
	if applied > 0 && db.opts.progress != nil { // an existing database: slow steps are worth a word
		say = db.opts.progress
	}
	for _, m := range ms {
		if err := db.applyMigration(ctx, conn, m, say); err != nil {
			return err
		}
	}
	return nil
}

// checkNotNewer refuses a database that a newer aoi has migrated further
// than this binary knows: running on it could corrupt data it does not
// understand.
func (db *DB) checkNotNewer(ctx context.Context, conn sqlConn, ms []migration) error {
	var newest int
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("open database %s: reading schema_migrations: %w", db.path, err)
	}
	known := 0
	if len(ms) > 0 {
		known = ms[len(ms)-1].version
	}
	if newest > known {
		return fmt.Errorf("database %s has schema version %d but this aoi knows only up to %d: it was written by a newer aoi; upgrade aoi (or use another data dir)", db.path, newest, known)
	}
	return nil
}

func (db *DB) applyMigration(ctx context.Context, conn sqlConn, m migration, say func(string)) (err error) {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("open database %s: %w", db.path, err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return fmt.Errorf("open database %s: %w", db.path, err)
	}
	if n == 0 {
		began := time.Now()
		if m.progress != "" {
			say(fmt.Sprintf("upgrading the database %s: %s…", db.path, m.progress))
		}
		if _, err := conn.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("database %s: migration %s failed: %w", db.path, m.name, err)
		}
		if m.progress != "" {
			say(fmt.Sprintf("upgrading the database: done in %s", time.Since(began).Round(100*time.Millisecond)))
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, formatTime(db.clock())); err != nil {
			return fmt.Errorf("database %s: recording migration %s: %w", db.path, m.name, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("database %s: committing migration %s: %w", db.path, m.name, err)
	}
	return nil
}

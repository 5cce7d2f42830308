// Package store is aoi's SQLite database: one file in the data dir, opened in
// WAL mode, with embedded migrations, a read-only connection pool for reads
// and a single writer goroutine that group-commits every write.
//
// # Adding an aggregate (how store/tasks.go, store/context_index.go, … plug in)
//
// Every aggregate lives in package store, in its own files, and follows the
// same three rules.
//
// Schema: one or more store/migrations/NNNN_name.sql files in your number
// range (0001–0099 store core, 0100–0199 context index, 0200–0299 tasks and
// approvals, 0300–0399 operations). They are embedded and applied in filename
// order, each in its own transaction, and never edited once released: change
// a schema by adding a migration.
//
// Writes are methods on *Tx, called by others inside DB.Write:
//
//	func (tx *Tx) InsertTask(t TaskRecord) error {
//		return tx.Run(`INSERT INTO tasks(id, state, created_at) VALUES (?, ?, ?)`,
//			t.ID, t.State, formatTime(t.CreatedAt))
//	}
//
//	err := db.Write(ctx, func(tx *store.Tx) error {
//		if err := tx.InsertTask(t); err != nil {
//			return err
//		}
//		_, err := tx.AppendAudit(peer, "aoi.task.execute", "ok", detail)
//		return err
//	})
//
// DB.Write hands the function to the writer goroutine; it runs in the
// current group-commit transaction and its caller is answered after the
// COMMIT. If another function in the batch fails, the transaction is redone
// with a SAVEPOINT per function, so a function may run more than once: keep
// its effects to tx (and assign, not append, what it hands back). Inside a
// write method use tx.Run (or tx.Exec for its result), tx.QueryRow and
// tx.Query only (statements are cached per connection, so plain SQL
// strings are cheap; close any rows before returning), never BEGIN, COMMIT
// or ROLLBACK yourself, never block on the network or call DB.Write (the
// writer is single-threaded: it would wait on itself), and take the time from
// tx.Now() so the injected clock applies. Return an error to undo just your
// function's changes.
//
// Reads are methods on *DB that use db.rd, the read-only pool
// (db.rd.QueryContext(ctx, …)); they see everything committed.
//
// Times are stored as TEXT with formatTime (fixed-width RFC 3339 UTC with
// nanoseconds, so they sort and compare as strings) and read back with
// parseTime. JSON columns are TEXT holding compact JSON. All SQL is
// parameterised. Store types never import other aoi packages.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
)

// DB is an open aoi database. It is safe for concurrent use.
type DB struct {
	path  string
	opts  options
	rd    *sql.DB // read-only pool (mode=ro, query_only)
	wr    *sql.DB // exactly one connection, used only by the writer goroutine
	cp    *sql.DB // one query_only connection for WAL checkpoints (checkpoint.go)
	clock func() time.Time

	mu     sync.RWMutex // guards closed against sends on reqs
	closed bool
	reqs   chan *writeReq
	done   chan struct{} // closed when the writer goroutine has exited

	batches, writes atomic.Int64 // group commits run, functions they carried
	walTruncates    atomic.Int64 // WAL truncations forced by the size limit
	walCaughtUp     atomic.Bool  // the checkpointer finished a pass: the writer may copy the rest
	walRestarts     atomic.Int64 // writer checkpoints that left nothing uncopied
	walFrame        int64        // bytes per WAL frame (checkpointer only)

	auditKey atomic.Pointer[AuditKey] // signs and checks audit seals (audit_seal.go)

	cpKick chan struct{} // nudges the checkpointer (cap 1)
	cpStop chan struct{} // closed by Close after the writer has drained
	cpDone chan struct{} // closed when the checkpointer has exited
}

// Option configures Open.
type Option func(*options)

type options struct {
	clock        func() time.Time
	syncFull     bool
	busyTimeout  time.Duration
	maxBatch     int
	readConns    int
	skipMigrates bool
	walLimit     int64         // bytes; see WithWALLimit
	progress     func(string)  // see WithProgress
	searchBudget time.Duration // see WithSearchBudget
}

// WithClock sets the clock used for every timestamp the store writes
// (audit rows, first_seen/last_seen, …). Tests inject a fixed clock.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.clock = now }
}

// WithSynchronousFull makes every commit fsync the WAL, so an acknowledged
// write also survives a power loss or kernel crash (at some cost in
// throughput). Without it a commit survives any process crash, including
// kill -9, but the last transactions may be lost if the machine loses power.
func WithSynchronousFull() Option {
	return func(o *options) { o.syncFull = true }
}

// WithBusyTimeout sets how long a connection waits for a lock held by another
// process before failing with "database is locked" (default 5 s).
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) { o.busyTimeout = d }
}

// WithMaxBatch caps how many queued writes one group commit takes (default 256).
func WithMaxBatch(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxBatch = n
		}
	}
}

// WithWALLimit sets the WAL size above which the writer itself runs a
// TRUNCATE checkpoint between group commits (default 64 MiB). Passive
// checkpoints alone never finish under constant writes, so without this
// bound the WAL grows without limit (9 GB in a sustained 1M-event ingest).
func WithWALLimit(bytes int64) Option {
	return func(o *options) {
		if bytes > 0 {
			o.walLimit = bytes
		}
	}
}

// WithProgress receives a line before and after each slow schema upgrade
// (a migration that rebuilds an index, say) of a database that already
// holds data, so a person waiting on Open knows why.
func WithProgress(say func(string)) Option {
	return func(o *options) { o.progress = say }
}

// Open opens (creating if needed) the database at path, applies the embedded
// migrations and starts the writer goroutine. The file is created with mode
// 0600 and its directory with 0700.
func Open(path string, opts ...Option) (*DB, error) {
	o := options{clock: time.Now, busyTimeout: 5 * time.Second, maxBatch: 256, readConns: max(4, runtime.GOMAXPROCS(0)), walLimit: defaultWALLimit}
	for _, opt := range opts {
		opt(&o)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %q: %w", path, err)
	}
	if err := createFile(abs); err != nil {
		return nil, err
	}
	db := &DB{
		path: abs, opts: o, clock: o.clock,
		reqs: make(chan *writeReq, o.maxBatch), done: make(chan struct{}),
		cpKick: make(chan struct{}, 1), cpStop: make(chan struct{}), cpDone: make(chan struct{}),
	}
	if err := claimFile(db); err != nil {
		return nil, err
	}
	if err := db.openPools(); err != nil {
		releaseFile(db)
		return nil, err
	}
	if err := db.migrate(context.Background()); err != nil {
		db.closeFile()
		return nil, err
	}
	head, err := db.loadAuditHead(context.Background())
	if err != nil {
		db.closeFile()
		return nil, err
	}
	removeStaleSHM(abs)
	go db.writer(head)
	go db.checkpointer(db.cpStop)
	return db, nil
}

// removeStaleSHM deletes the -shm file an aoi before the unix-excl VFS
// left beside the database: this one keeps the WAL index in memory, and
// holds the file's lock by now (it has read and migrated the file), so no
// process reads that file any more. Failing to remove it harms nothing.
func removeStaleSHM(abs string) {
	_ = os.Remove(abs + "-shm")
}

// createFile makes the parent directory (0700) and an empty database file
// (0600) so SQLite never creates them with the process umask. SQLite gives
// the -wal file the same permissions as the database file (the unix-excl VFS
// keeps the WAL index in memory: there is no -shm file).
func createFile(abs string) error {
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return fmt.Errorf("create data directory %s: %w (check its permissions or choose another --data-dir)", filepath.Dir(abs), err)
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open database %s: %w (check the file's permissions)", abs, err)
	}
	return f.Close()
}

// openPools opens the single write connection and the read-only pool.
//
// synchronous=NORMAL in WAL mode writes every commit to the WAL file before
// COMMIT returns and fsyncs only at checkpoints: a committed transaction is in
// the OS page cache, so it survives the process crashing or being killed
// (kill -9) at any moment; only a power loss or kernel crash can lose the
// newest commits. WithSynchronousFull closes that gap with an fsync per
// commit (per group commit, so the cost is shared by the whole batch).
func (db *DB) openPools() error {
	sync := "NORMAL"
	if db.opts.syncFull {
		sync = "FULL"
	}
	uri := "file:" + escapeURIPath(db.path) + "?vfs=unix-excl"
	if err := db.formatNewFile(uri); err != nil {
		return err
	}
	busy := db.opts.busyTimeout.Milliseconds()
	wdsn := fmt.Sprintf("%s&_journal_mode=WAL&_busy_timeout=%d&_foreign_keys=1&_synchronous=%s&_stmt_cache_size=128", uri, busy, sync)
	wr, err := sql.Open("sqlite3", wdsn)
	if err != nil {
		return fmt.Errorf("open database %s: %w", db.path, err)
	}
	wr.SetMaxOpenConns(1)
	wr.SetMaxIdleConns(1)
	wr.SetConnMaxLifetime(0)
	wr.SetConnMaxIdleTime(0)
	if err := wr.Ping(); err != nil {
		wr.Close()
		return fmt.Errorf("open database %s: %w (%s)", db.path, err, openHint(err))
	}
	rdsn := fmt.Sprintf("%s&mode=ro&_busy_timeout=%d&_foreign_keys=1&_query_only=1&_stmt_cache_size=64", uri, busy)
	rd, err := sql.Open("sqlite3", rdsn)
	if err != nil {
		wr.Close()
		return fmt.Errorf("open database %s for reading: %w", db.path, err)
	}
	rd.SetMaxOpenConns(db.opts.readConns)
	rd.SetMaxIdleConns(db.opts.readConns)
	db.wr, db.rd = wr, rd
	if err := db.openCheckpointer(uri); err != nil {
		db.closePools()
		return err
	}
	return nil
}

// pageSize is the page size of a new database file. Every commit writes
// each page it changed whole to the WAL, and aoi.query's changes are a few
// hundred bytes on each of about seven pages (the rightmost leaves of its
// tables and indexes): at 4 KiB a page the WAL took 10 KiB a request and
// the disk's writeback and syncs idled the cores. 2 KiB pages halve that
// (aoi bench on a disk: about 5% more requests a second); 1 KiB gained
// nothing more and pushes more of the context index's rows into overflow
// pages. An existing file keeps its page size.
const pageSize = 2048

// formatNewFile gives a new (empty) database file its page size, which
// must be set before the first page is written: the pools' own
// connections switch to WAL on connecting, and that writes page 1.
func (db *DB) formatNewFile(uri string) error {
	if fi, err := os.Stat(db.path); err != nil || fi.Size() > 0 {
		return nil // not new; a real problem surfaces when the pools open it
	}
	c, err := sql.Open("sqlite3", uri)
	if err != nil {
		return fmt.Errorf("open database %s: %w", db.path, err)
	}
	defer c.Close()
	if _, err := c.Exec(fmt.Sprintf("PRAGMA page_size = %d; PRAGMA journal_mode = WAL", pageSize)); err != nil {
		return fmt.Errorf("create database %s: %w (%s)", db.path, err, openHint(err))
	}
	return nil
}

// openHint says what a failure to open the file most likely means.
func openHint(err error) string {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked) {
		return "another process has it open: aoi keeps its database to itself while it runs, so stop the other aoi using this data dir, or run the command through it"
	}
	return "is it a SQLite file? is the disk full?"
}

// escapeURIPath escapes the characters that would end or corrupt the path
// part of an SQLite URI filename.
func escapeURIPath(p string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
}

func (db *DB) closePools() error {
	var errs []error
	for _, p := range []*sql.DB{db.rd, db.cp, db.wr} {
		if p != nil {
			errs = append(errs, p.Close())
		}
	}
	return errors.Join(errs...)
}

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// Now returns the store clock's current time.
func (db *DB) Now() time.Time { return db.clock() }

// Close stops accepting writes, waits for every queued write to commit and
// closes the database. It is safe to call more than once.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		<-db.done
		return nil
	}
	db.closed = true
	close(db.reqs)
	db.mu.Unlock()
	<-db.done
	close(db.cpStop)
	<-db.cpDone
	return db.closeFile()
}

// closeFile closes the connections and lets the file be opened again.
func (db *DB) closeFile() error {
	err := db.closePools()
	releaseFile(db)
	return err
}

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("store: database is closed (the agent is shutting down)")

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"time"
)

// writeReq is one caller's function waiting for the writer.
type writeReq struct {
	ctx  context.Context
	fn   func(*Tx) error
	err  error
	done chan error
}

// Tx is the writer's view of the current group-commit transaction. A *Tx is
// only valid inside the function passed to DB.Write; keep no reference to it.
type Tx struct {
	db   *DB
	conn *sql.Conn
	head auditHead // audit chain head, including this transaction's appends
	// dataVersion is SQLite's data_version as last seen: it changes only
	// when another connection (another process) commits to the file.
	dataVersion int64
}

// maxExtend bounds how long a batch keeps taking late arrivals before it
// commits, so the first caller in it never waits long for the others.
const maxExtend = 2 * time.Millisecond

// writerCtx is used for every statement the writer runs: a caller's context
// must not interrupt a statement that shares the transaction with others.
var writerCtx = context.Background()

// Write runs fn in the single writer goroutine, inside its own SAVEPOINT of
// the next group commit, and returns after that transaction has committed:
// a nil error means fn's changes are durable. If fn returns an error (or
// panics), only its own changes are rolled back and the error is returned.
// If ctx is done before fn starts, fn does not run and ctx's error is
// returned. fn must not call Write (the writer would wait on itself).
func (db *DB) Write(ctx context.Context, fn func(tx *Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	db.mu.RLock()
	if db.closed {
		db.mu.RUnlock()
		return ErrClosed
	}
	select {
	case db.reqs <- r:
	case <-ctx.Done():
		db.mu.RUnlock()
		return ctx.Err()
	}
	db.mu.RUnlock()
	// Wait even if ctx ends now: fn may already be running, and the caller
	// must learn whether it committed.
	return <-r.done
}

// writer owns the write connection. It takes everything queued (up to
// maxBatch), runs it in one transaction and commits once.
func (db *DB) writer(head auditHead) {
	defer close(db.done)
	conn, err := db.wr.Conn(writerCtx)
	if err != nil {
		for r := range db.reqs {
			r.done <- fmt.Errorf("store: the write connection could not be opened: %w", err)
		}
		return
	}
	defer conn.Close()
	// Checkpoints run in their own goroutine (checkpoint.go), never inside
	// a COMMIT that callers are waiting for. journal_size_limit trims the
	// WAL file after a checkpoint lets it restart.
	_, _ = conn.ExecContext(writerCtx, "PRAGMA wal_autocheckpoint=0")
	_, _ = conn.ExecContext(writerCtx, "PRAGMA journal_size_limit=67108864")
	tx := &Tx{db: db, conn: conn, head: head}
	batch := make([]*writeReq, 0, db.opts.maxBatch)
	for first := range db.reqs {
		batch = tx.runBatch(db.collect(append(batch[:0], first)))
		db.writes.Add(int64(len(batch)))
		n := db.batches.Add(1)
		if n%checkpointBatches == 0 {
			db.kickCheckpoint()
		}
		if n%walCheckBatches == 0 {
			db.boundWAL(conn)
		}
		clear(batch)
	}
}

// collect appends whatever else is already queued, without waiting.
func (db *DB) collect(batch []*writeReq) []*writeReq {
	for len(batch) < db.opts.maxBatch {
		select {
		case r, ok := <-db.reqs:
			if !ok {
				return batch
			}
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

// runBatch runs one group commit and answers every caller in it. While the
// transaction is open it keeps taking writes that arrived meanwhile (up to
// maxBatch): running a function is cheap next to a COMMIT, so this grows
// the batch without adding latency. It returns the batch it ran.
func (tx *Tx) runBatch(batch []*writeReq) []*writeReq {
	start := tx.head
	if _, err := tx.Exec("BEGIN IMMEDIATE"); err != nil {
		tx.replyAll(batch, fmt.Errorf("store: could not start a write transaction: %w", err))
		return batch
	}
	if err := tx.refreshHead(); err != nil {
		tx.rollback(start)
		tx.replyAll(batch, err)
		return batch
	}
	start = tx.head
	began := time.Now()
	broken := tx.runFirst(batch)
	for broken == nil && len(batch) < tx.db.opts.maxBatch && time.Since(began) < maxExtend {
		n := len(batch)
		runtime.Gosched() // let callers just answered queue their next write
		if batch = tx.db.collect(batch); len(batch) == n {
			break
		}
		broken = tx.runEach(batch[n:])
	}
	if broken != nil {
		tx.rollback(start)
		for _, r := range batch {
			if r.err == nil {
				r.err = broken
			}
		}
		tx.reply(batch)
		return batch
	}
	if _, err := tx.Exec("COMMIT"); err != nil {
		tx.rollback(start)
		tx.replyAll(batch, fmt.Errorf("store: commit failed, nothing in this batch was saved: %w", err))
		return batch
	}
	tx.reply(batch)
	return batch
}

// refreshHead reloads the cached audit head when another connection has
// committed since this one last looked (say a second process opened the same
// file), so the chain never forks. It runs under BEGIN IMMEDIATE, so nobody
// else can write until this batch commits.
func (tx *Tx) refreshHead() error {
	var v int64
	if err := tx.QueryRow("PRAGMA data_version").Scan(&v); err != nil {
		return fmt.Errorf("store: reading data_version: %w", err)
	}
	if v == tx.dataVersion {
		return nil
	}
	h := auditHead{hash: GenesisHash}
	err := tx.QueryRow(`SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1`).Scan(&h.seq, &h.hash)
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("store: reloading the audit chain head: %w", err)
	}
	tx.head, tx.dataVersion = h, v
	return nil
}

// runFirst runs the functions the batch started with. A function alone in
// its batch runs without a savepoint (the transaction isolates it); its
// failure is returned as the batch's, which rolls back just that function.
func (tx *Tx) runFirst(batch []*writeReq) error {
	if len(batch) > 1 {
		return tx.runEach(batch)
	}
	r := batch[0]
	if r.err = r.ctx.Err(); r.err == nil {
		r.err = tx.call(r.fn)
	}
	return r.err
}

// runEach runs every function in its own savepoint. It returns an error only
// when the transaction itself can no longer be trusted.
func (tx *Tx) runEach(batch []*writeReq) error {
	for _, r := range batch {
		if r.err = r.ctx.Err(); r.err != nil {
			continue
		}
		saved := tx.head
		if _, err := tx.Exec("SAVEPOINT w"); err != nil {
			return fmt.Errorf("store: savepoint failed: %w", err)
		}
		if r.err = tx.call(r.fn); r.err != nil {
			tx.head = saved
			if _, err := tx.Exec("ROLLBACK TO w"); err != nil {
				return fmt.Errorf("store: could not undo a failed write: %w", err)
			}
		}
		if _, err := tx.Exec("RELEASE w"); err != nil {
			return fmt.Errorf("store: savepoint release failed: %w", err)
		}
	}
	return nil
}

// call runs fn, turning a panic into an error so one bad function cannot
// stop the writer.
func (tx *Tx) call(fn func(*Tx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: write function panicked: %v", p)
		}
	}()
	return fn(tx)
}

// rollback abandons the open transaction and restores the audit head.
func (tx *Tx) rollback(start auditHead) {
	tx.head = start
	// An error here means SQLite already rolled back (e.g. after a failed
	// COMMIT); either way no transaction is open afterwards.
	_, _ = tx.Exec("ROLLBACK")
}

func (tx *Tx) replyAll(batch []*writeReq, err error) {
	for _, r := range batch {
		r.err = err
	}
	tx.reply(batch)
}

func (tx *Tx) reply(batch []*writeReq) {
	for _, r := range batch {
		r.done <- r.err
	}
}

// Exec runs a statement in the current transaction (the escape hatch for
// aggregates defined in other files of this package).
func (tx *Tx) Exec(query string, args ...any) (sql.Result, error) {
	return tx.conn.ExecContext(writerCtx, query, args...)
}

// QueryRow runs a query that returns at most one row in the current
// transaction; it sees this transaction's uncommitted changes.
func (tx *Tx) QueryRow(query string, args ...any) *sql.Row {
	return tx.conn.QueryRowContext(writerCtx, query, args...)
}

// Query runs a query in the current transaction. Close the rows before
// returning from the write function.
func (tx *Tx) Query(query string, args ...any) (*sql.Rows, error) {
	return tx.conn.QueryContext(writerCtx, query, args...)
}

// Now returns the store clock's current time.
func (tx *Tx) Now() time.Time { return tx.db.clock() }

// isNoRows reports whether err is sql.ErrNoRows.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// WriteStats reports how many group commits the writer has run and how many
// write functions they carried (writes/batches is the mean batch size).
func (db *DB) WriteStats() (batches, writes int64) {
	return db.batches.Load(), db.writes.Load()
}

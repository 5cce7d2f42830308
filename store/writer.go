package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/internal/fold"
)

// writeReq is one caller's function waiting for the writer.
type writeReq struct {
	ctx  context.Context
	fn   func(*Tx) error
	err  error
	ran  bool // fn has run in the current transaction (and may run again)
	pass bool // the writer's own pass (firstInBatch), not a caller's write
	done chan error
}

// Tx is the writer's view of the current group-commit transaction. A *Tx is
// only valid inside the function passed to DB.Write; keep no reference to it.
type Tx struct {
	db   *DB
	conn *sql.Conn
	head auditHead // audit chain head, including this transaction's appends
	// start is the audit head when the current transaction began, restored
	// when it rolls back.
	start auditHead
	// safe is set once a function of the current batch has failed: from
	// then on every function runs in its own savepoint.
	safe bool
	ctl  ctlStmts
	// stmts holds the statements Exec and QueryRow prepared, by their
	// text. The driver's own cache (_stmt_cache_size) already spares the
	// compile; holding the statement here also spares its per-call
	// lookup, lock and reset (about 4% of the instructions of a one-row
	// audit write with its commit, measured with callgrind).
	stmts map[string]cachedStmt
	args  []driver.NamedValue // execRaw's, reused
	// agentsIndexed is the audit head at the agent index's last pass
	// (audit_agents.go).
	agentsIndexed int64
	// queriesUnindexed counts the questions stored since the question
	// indexes' last pass (query_index.go).
	queriesUnindexed int64
}

// cachedStmt is a prepared statement. A plain write (plainWrite) is held
// as the driver's own statement and run without database/sql (execRaw,
// runRaw); any other statement as an *sql.Stmt.
type cachedStmt struct {
	st  *sql.Stmt
	raw driver.StmtExecContext
	// fused is raw again, as the driver's query interface: through it the
	// driver binds every argument and steps in one call into C, where its
	// Exec makes a call per argument (runRaw).
	fused driver.StmtQueryContext
}

// maxCachedStmts bounds the statement cache; statements built at run time
// (IN lists) beyond it are prepared and closed per call as before.
const maxCachedStmts = 128

// stmt returns the cached prepared statement for query, preparing it on
// first use. Both fields are nil when the caller should run query
// unprepared: the cache is full, or query may hold several statements (a
// prepared statement runs only the first; the driver's Exec runs them all).
func (tx *Tx) stmt(query string) (cachedStmt, error) {
	if c, ok := tx.stmts[query]; ok {
		return c, nil
	}
	if len(tx.stmts) >= maxCachedStmts || strings.Contains(query, ";") {
		return cachedStmt{}, nil
	}
	var c cachedStmt
	var err error
	if plainWrite(query) {
		c.raw, err = tx.prepareRaw(query)
		c.fused, _ = c.raw.(driver.StmtQueryContext)
	} else {
		c.st, err = tx.conn.PrepareContext(writerCtx, query)
	}
	if err != nil {
		return cachedStmt{}, err
	}
	if tx.stmts == nil {
		tx.stmts = make(map[string]cachedStmt)
	}
	tx.stmts[query] = c
	return c, nil
}

// prepareRaw prepares query on the driver's connection itself. Running a
// write through database/sql costs a lock, an argument slice and a result
// wrapper per call (about a tenth of the writer's CPU on aoi bench); the
// writer's connection is never shared (it is the writer goroutine's alone
// from Open to Close, and the statements are closed before it), so using
// the driver's statement after Raw returns races with nothing.
func (tx *Tx) prepareRaw(query string) (driver.StmtExecContext, error) {
	var st driver.Stmt
	err := tx.conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("store: the SQLite driver's connection (%T) cannot prepare with a context", dc)
		}
		var err error
		st, err = pc.PrepareContext(writerCtx, query)
		return err
	})
	if err != nil {
		return nil, err
	}
	ex, ok := st.(driver.StmtExecContext)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("store: the SQLite driver's statement (%T) cannot execute with a context", st)
	}
	return ex, nil
}

// execRaw runs a driver statement with args converted as database/sql
// would (driver.DefaultParameterConverter: the SQLite driver checks no
// values of its own). The argument slice is the writer's, reused.
func (tx *Tx) execRaw(st driver.StmtExecContext, args []any) (sql.Result, error) {
	nv, err := tx.driverArgs(args)
	if err != nil {
		return nil, err
	}
	res, err := st.ExecContext(writerCtx, nv)
	tx.releaseArgs(nv)
	return res, err
}

// runRaw runs a plain write through the driver's query interface, which
// binds the arguments and steps in one call into C; the driver's Exec
// makes one call per argument besides (3% of aoi.query's CPU went to the
// 26 calls of its two inserts). The statement yields no row, so the first
// step has run it to the end; closing the rows resets it.
func (tx *Tx) runRaw(st driver.StmtQueryContext, args []any) error {
	nv, err := tx.driverArgs(args)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(writerCtx, nv)
	tx.releaseArgs(nv)
	if err != nil {
		return err
	}
	return rows.Close()
}

// driverArgs converts args into the writer's reused argument slice.
func (tx *Tx) driverArgs(args []any) ([]driver.NamedValue, error) {
	nv := tx.args[:0]
	for i, a := range args {
		v, err := driverValue(a)
		if err != nil {
			tx.releaseArgs(nv)
			return nil, fmt.Errorf("store: argument %d: %w", i+1, err)
		}
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	return nv, nil
}

// releaseArgs hands the slice back, holding no caller's values until the
// next call.
func (tx *Tx) releaseArgs(nv []driver.NamedValue) {
	clear(nv)
	tx.args = nv[:0]
}

// driverValue is a value as the driver takes it; the common kinds pass as
// they are, without the converter's reflection.
func driverValue(a any) (driver.Value, error) {
	switch a.(type) {
	case nil, string, int64, float64, bool, []byte, time.Time:
		return a, nil
	case int:
		return int64(a.(int)), nil
	}
	return driver.DefaultParameterConverter.ConvertValue(a)
}

// plainWrite reports whether query is an INSERT, UPDATE, DELETE or
// REPLACE without RETURNING: a statement that yields no rows. The driver's
// Exec steps a statement once and leaves it as it stops, so a cached
// statement that stopped on a row (a PRAGMA, RETURNING) would stay open,
// holding its read of the database past the COMMIT; Exec runs every other
// statement unprepared, and the driver finalizes it.
func plainWrite(query string) bool {
	q := strings.TrimSpace(query)
	for _, verb := range []string{"INSERT", "UPDATE", "DELETE", "REPLACE"} {
		if len(q) >= len(verb) && strings.EqualFold(q[:len(verb)], verb) {
			return !fold.ContainsASCII(q, "returning")
		}
	}
	return false
}

// closeStmts closes every cached statement (the writer is stopping).
func (tx *Tx) closeStmts() {
	for q, c := range tx.stmts {
		if c.raw != nil {
			c.raw.(driver.Stmt).Close()
		} else {
			c.st.Close()
		}
		delete(tx.stmts, q)
	}
}

// ctlStmts are the transaction-control statements the writer runs for every
// batch, prepared once (as the driver's own, like the cached writes). They
// take no arguments, so without preparing them the driver would parse each
// one afresh (sqlite3_exec) every time.
type ctlStmts struct {
	begin, commit, rollback, savepoint, release, rollbackTo driver.StmtExecContext
}

func (c *ctlStmts) prepare(tx *Tx) error {
	for _, s := range []struct {
		st  *driver.StmtExecContext
		sql string
	}{
		{&c.begin, "BEGIN IMMEDIATE"}, {&c.commit, "COMMIT"}, {&c.rollback, "ROLLBACK"},
		{&c.savepoint, "SAVEPOINT w"}, {&c.release, "RELEASE w"}, {&c.rollbackTo, "ROLLBACK TO w"},
	} {
		st, err := tx.prepareRaw(s.sql)
		if err != nil {
			c.close()
			return fmt.Errorf("store: preparing %s: %w", s.sql, err)
		}
		*s.st = st
	}
	return nil
}

func (c *ctlStmts) close() {
	for _, st := range []driver.StmtExecContext{c.begin, c.commit, c.rollback, c.savepoint, c.release, c.rollbackTo} {
		if st != nil {
			st.(driver.Stmt).Close()
		}
	}
}

// run executes one control statement.
func run(st driver.StmtExecContext) error {
	_, err := st.ExecContext(writerCtx, nil)
	return err
}

// maxExtend bounds how long a batch keeps taking late arrivals before it
// commits, so the first caller in it never waits long for the others.
const maxExtend = 2 * time.Millisecond

// writerCtx is used for every statement the writer runs: a caller's context
// must not interrupt a statement that shares the transaction with others.
var writerCtx = context.Background()

// Write runs fn in the single writer goroutine, as part of the next group
// commit, and returns after that transaction has committed: a nil error
// means fn's changes are durable. If fn returns an error (or panics), only
// its own changes are rolled back and the error is returned. If ctx is done
// before fn starts, fn does not run and ctx's error is returned. fn must not
// call Write (the writer would wait on itself).
//
// A batch runs without savepoints until a function in it fails; then the
// whole transaction is rolled back and the functions that had succeeded run
// again, each in its own savepoint. So fn may run more than once: keep its
// effects to tx, and assign (not append to) any result it hands back to the
// caller. The value it reports is that of its last run, the one committed.
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
	fail := func(err error) {
		for r := range db.reqs {
			r.done <- fmt.Errorf("store: the write connection could not be opened: %w", err)
		}
	}
	conn, err := db.wr.Conn(writerCtx)
	if err != nil {
		fail(err)
		return
	}
	defer conn.Close()
	// Checkpoints run in their own goroutine (checkpoint.go), never inside
	// a COMMIT that callers are waiting for. journal_size_limit trims the
	// WAL file after a checkpoint lets it restart.
	_, _ = conn.ExecContext(writerCtx, "PRAGMA wal_autocheckpoint=0")
	_, _ = conn.ExecContext(writerCtx, "PRAGMA journal_size_limit=67108864")
	tx := &Tx{db: db, conn: conn, head: head}
	if err := tx.ctl.prepare(tx); err != nil {
		fail(err)
		return
	}
	defer tx.ctl.close()
	defer tx.closeStmts()
	tx.loadAgentIndexMark()
	tx.loadQueryIndexBacklog()
	batch := make([]*writeReq, 0, db.opts.maxBatch)
	walOver := false // the last WAL check found it over the limit
	sinceCheck := 0  // writes since the last WAL check
	for first := range db.reqs {
		batch = tx.runBatch(db.collect(tx.withQueryIndexes(tx.withAgentIndex(append(batch[:0], first)))))
		db.writes.Add(int64(callersIn(batch)))
		n := db.batches.Add(1)
		if n%checkpointBatches == 0 {
			db.kickCheckpoint()
		}
		db.finishCheckpoint(conn)
		// Large batches (many callers queued) grow the WAL fast, so the
		// size is checked by writes as well as by commits.
		if sinceCheck += len(batch); walOver || n%walCheckBatches == 0 || sinceCheck >= walCheckWrites {
			walOver, sinceCheck = db.boundWAL(conn), 0
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
	if err := tx.begin(); err != nil {
		tx.replyAll(batch, err)
		return batch
	}
	tx.safe = false
	began := time.Now()
	broken := tx.runFrom(batch, 0)
	for broken == nil && len(batch) < tx.db.opts.maxBatch && time.Since(began) < maxExtend {
		n := len(batch)
		runtime.Gosched() // let callers just answered queue their next write
		if batch = tx.db.collect(batch); len(batch) == n {
			break
		}
		broken = tx.runFrom(batch, n)
	}
	if broken != nil {
		tx.rollback()
		for _, r := range batch {
			if r.err == nil {
				r.err = broken
			}
		}
		tx.reply(batch)
		return batch
	}
	if err := run(tx.ctl.commit); err != nil {
		tx.rollback()
		tx.replyAll(batch, fmt.Errorf("store: commit failed, nothing in this batch was saved: %w", err))
		return batch
	}
	tx.reply(batch)
	return batch
}

// begin opens the write transaction. The cached audit head needs no
// refresh: this DB is the file's one writer (owner.go).
func (tx *Tx) begin() error {
	tx.start = tx.head
	if err := run(tx.ctl.begin); err != nil {
		return fmt.Errorf("store: could not start a write transaction: %w", err)
	}
	return nil
}

// runFrom runs batch[from:]. Until a function fails they run back to back
// with no savepoint (one cgo round trip and one statement journal less per
// request). When one fails, its partial changes cannot be undone alone, so
// the whole transaction rolls back and restarts in safe mode: the functions
// that had succeeded run again, each in its own savepoint, as does every
// function after. The failed function keeps its error and does not run
// again. It returns an error only when the transaction itself can no
// longer be trusted.
func (tx *Tx) runFrom(batch []*writeReq, from int) error {
	for i := from; i < len(batch); i++ {
		r := batch[i]
		if r.err = r.ctx.Err(); r.err != nil {
			continue
		}
		r.ran = true
		if tx.safe {
			if err := tx.runSaved(r); err != nil {
				return err
			}
			continue
		}
		if r.err = tx.call(r.fn); r.err == nil {
			continue
		}
		if err := tx.restartSafe(batch[:i]); err != nil {
			return err
		}
	}
	return nil
}

// restartSafe rolls the transaction back, begins a new one and re-runs,
// each in its own savepoint, the functions in done that had succeeded.
func (tx *Tx) restartSafe(done []*writeReq) error {
	tx.rollback()
	if err := tx.begin(); err != nil {
		return err
	}
	tx.safe = true
	for _, r := range done {
		if !r.ran || r.err != nil {
			continue
		}
		// Its caller is waiting for this run's outcome: ctx no longer applies.
		if err := tx.runSaved(r); err != nil {
			return err
		}
	}
	return nil
}

// runSaved runs one function in its own savepoint, so its failure undoes
// only its own changes. It returns an error only when the transaction
// itself can no longer be trusted.
func (tx *Tx) runSaved(r *writeReq) error {
	saved := tx.head
	if err := run(tx.ctl.savepoint); err != nil {
		return fmt.Errorf("store: savepoint failed: %w", err)
	}
	if r.err = tx.call(r.fn); r.err != nil {
		tx.head = saved
		if err := run(tx.ctl.rollbackTo); err != nil {
			return fmt.Errorf("store: could not undo a failed write: %w", err)
		}
	}
	if err := run(tx.ctl.release); err != nil {
		return fmt.Errorf("store: savepoint release failed: %w", err)
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
func (tx *Tx) rollback() {
	tx.head = tx.start
	// An error here means SQLite already rolled back (e.g. after a failed
	// COMMIT); either way no transaction is open afterwards.
	_ = run(tx.ctl.rollback)
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
	c, ok := tx.stmts[query]
	if !ok && plainWrite(query) {
		var err error
		if c, err = tx.stmt(query); err != nil {
			return nil, err
		}
	}
	if c.raw != nil {
		return tx.execRaw(c.raw, args)
	}
	return tx.conn.ExecContext(writerCtx, query, args...)
}

// Run is Exec for a statement whose result the caller does not need: a
// plain write takes one call into SQLite instead of one per argument.
func (tx *Tx) Run(query string, args ...any) error {
	c, ok := tx.stmts[query]
	if !ok && plainWrite(query) {
		var err error
		if c, err = tx.stmt(query); err != nil {
			return err
		}
	}
	if c.fused != nil {
		return tx.runRaw(c.fused, args)
	}
	_, err := tx.Exec(query, args...)
	return err
}

// QueryRow runs a query that returns at most one row in the current
// transaction; it sees this transaction's uncommitted changes.
func (tx *Tx) QueryRow(query string, args ...any) *sql.Row {
	if c, err := tx.stmt(query); err == nil && c.st != nil {
		return c.st.QueryRowContext(writerCtx, args...)
	}
	// Not cached, or it failed to prepare: the unprepared call reports
	// the same error through Scan.
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
// callers' writes they carried (writes/batches is the mean batch size; the
// writer's own index passes ride along uncounted).
func (db *DB) WriteStats() (batches, writes int64) {
	return db.batches.Load(), db.writes.Load()
}

// callersIn is how many of batch's writes came from callers.
func callersIn(batch []*writeReq) int {
	n := 0
	for _, r := range batch {
		if !r.pass {
			n++
		}
	}
	return n
}

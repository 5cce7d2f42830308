package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"
)

// WAL checkpoints run off the write path. SQLite's automatic checkpoint would
// run inside the writer's COMMIT every ~1000 pages and fsync twice while
// every queued caller waits; instead the writer turns it off and a
// checkpointer goroutine, on its own connection (query_only: it never
// changes rows, it only copies committed WAL frames into the database file),
// runs a PASSIVE checkpoint — which never blocks the writer — whenever the
// writer reports enough commits, and at least every checkpointEvery.
//
// A passive checkpoint alone never lets the WAL start over under constant
// writes: SQLite rewinds the WAL only when a write transaction begins with
// every frame already copied, and commits keep landing while the
// checkpointer copies. So after a pass over a WAL holding half its
// limit, the writer copies, between two group commits, the frames
// committed meanwhile (finishCheckpoint). The next commit then writes from
// the start of the WAL file again, over blocks the file already has: the
// WAL stays near half its limit, appends do not allocate, and the
// limit itself (boundWAL) is left for readers that pin old snapshots.
// Measured with `aoi bench`, this took the WAL truncations of a 10 s run
// from 9–10 (each a stall of every writer) to none.

const (
	checkpointEvery   = 2 * time.Second
	checkpointBatches = 200 // group commits between checkpoint nudges
	walCheckBatches   = 16  // group commits between WAL size checks (a stat each)
	walCheckWrites    = 128 // or write functions, whichever comes first
	defaultWALLimit   = 64 << 20
)

// openCheckpointer opens the checkpoint connection.
func (db *DB) openCheckpointer(uri string) error {
	dsn := fmt.Sprintf("%s&_busy_timeout=%d&_query_only=1", uri, db.opts.busyTimeout.Milliseconds())
	cp, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return fmt.Errorf("open database %s for checkpoints: %w", db.path, err)
	}
	cp.SetMaxOpenConns(1)
	db.cp = cp
	return nil
}

// checkpointer runs until stop is closed, then makes a final checkpoint
// that also truncates the WAL file.
func (db *DB) checkpointer(stop <-chan struct{}) {
	defer close(db.cpDone)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			db.checkpoint("TRUNCATE")
			return
		case <-db.cpKick:
		case <-tick.C:
		}
		db.checkpoint("PASSIVE")
	}
}

// checkpoint copies committed WAL frames into the database file. Failure
// is harmless (the frames stay in the WAL and the next attempt retries).
// A pass that copied everything it found, in a WAL holding at least
// 1/walRestartShare of the limit, lets the writer finish the job
// (finishCheckpoint). The amount is the WAL's content, not its file size:
// a WAL that starts over keeps its file, so the file stays large.
func (db *DB) checkpoint(mode string) {
	var busy, frames, copied int
	err := db.cp.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &copied)
	if err != nil || busy != 0 || frames == 0 {
		return
	}
	if int64(frames)*db.frameBytes() >= db.opts.walLimit/walRestartShare {
		db.walCaughtUp.Store(true)
	}
}

// walRestartShare: the writer finishes a checkpointer pass once the WAL
// holds 1/walRestartShare of its limit (32 MiB by default). Half rather
// than a quarter: each finish stalls every writer for two fsyncs, and in
// three alternating quiet rounds of aoi bench half gave 5–14% more
// aoi.query throughput and a lower p99 (4.6–4.9 against 4.7–5.1 ms).
const walRestartShare = 2

// frameBytes is the size of one WAL frame: a page and its 24-byte header.
// Only the checkpointer goroutine calls it.
func (db *DB) frameBytes() int64 {
	if db.walFrame == 0 {
		var page int64 = 4096
		_ = db.cp.QueryRowContext(context.Background(), "PRAGMA page_size").Scan(&page)
		db.walFrame = page + 24
	}
	return db.walFrame
}

// finishCheckpoint runs in the writer between group commits (no
// transaction open, nobody else can append) after a checkpointer pass
// over a WAL worth starting over (see checkpoint): it copies the frames
// committed since that pass began, usually a few hundred, so that the next
// write transaction starts the WAL over. It costs the writer two fsyncs
// (2.5–4 ms measured), which is why it waits for the WAL to be worth
// restarting rather than following every pass. A reader still on an old
// snapshot may keep some frames uncopied; a later pass retries.
func (db *DB) finishCheckpoint(conn *sql.Conn) {
	if !db.walCaughtUp.Swap(false) {
		return
	}
	var busy, frames, copied int
	err := conn.QueryRowContext(writerCtx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	if err == nil && busy == 0 && frames == copied {
		db.walRestarts.Add(1)
	}
}

// WALRestarts reports how many times the writer finished a checkpoint with
// every frame copied, letting the WAL start over from its beginning.
func (db *DB) WALRestarts() int64 { return db.walRestarts.Load() }

// kickCheckpoint asks the checkpointer to run soon, without waiting.
func (db *DB) kickCheckpoint() {
	select {
	case db.cpKick <- struct{}{}:
	default:
	}
}

// boundWAL keeps the WAL file under the configured limit. It runs in the
// writer between group commits (no transaction open, nobody else can
// write): a TRUNCATE checkpoint copies every frame into the database,
// waiting (busy timeout) for readers still on old snapshots, then empties
// the WAL. Writers pause for that one checkpoint — a bounded, rare cost
// next to a WAL that grows by gigabytes while passive checkpoints lose the
// race against constant writes.
//
// It reports whether the WAL is still over the limit: a reader that kept
// its snapshot past the busy timeout makes the checkpoint give up, and then
// the writer tries again after its next group commit rather than letting
// the WAL grow for another walCheckBatches commits.
func (db *DB) boundWAL(conn *sql.Conn) bool {
	fi, err := os.Stat(db.path + "-wal")
	if err != nil || fi.Size() <= db.opts.walLimit {
		return false
	}
	var busy, frames, done int
	err = conn.QueryRowContext(writerCtx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &done)
	if err != nil || busy != 0 {
		return true
	}
	db.walTruncates.Add(1)
	return false
}

// WALTruncates reports how many times the writer had to truncate the WAL
// because it outgrew the limit (see WithWALLimit).
func (db *DB) WALTruncates() int64 { return db.walTruncates.Load() }

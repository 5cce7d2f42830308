package logging

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// DefaultFlushEvery is how long an info or debug line may wait in memory
// before it reaches the log file.
const DefaultFlushEvery = 100 * time.Millisecond

// maxBuffered is how many bytes of lines wait at most before a write.
const maxBuffered = 64 << 10

// lineBuffer gathers log lines and writes them to the file in one write per
// flush interval, when maxBuffered bytes wait, or at once for a warning or
// an error (flushOnWarn). Every handled call logs a line, and a write
// system call under the file's lock per line sat on every request's path;
// now a busy second costs ten writes. A crash (kill -9) loses at most the
// last interval's info and debug lines: aoi.log is for reading what
// happened, and the audit log, committed before each reply, is the record.
type lineBuffer struct {
	mu      sync.Mutex
	w       io.WriteCloser
	every   time.Duration
	buf     []byte
	timer   *time.Timer
	pending bool // the timer is set to flush buf
	closed  bool
}

func newLineBuffer(w io.WriteCloser, every time.Duration) *lineBuffer {
	b := &lineBuffer{w: w, every: every}
	b.timer = time.AfterFunc(time.Hour, b.Flush)
	b.timer.Stop()
	return b
}

// Write keeps p (one JSON line: slog writes a record in one call) for the
// next flush. After Close it writes straight through.
func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= maxBuffered {
		return len(p), b.flushLocked()
	}
	if !b.pending {
		b.pending = true
		b.timer.Reset(b.every)
	}
	return len(p), nil
}

// Flush writes every waiting line now.
func (b *lineBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.flushLocked()
}

func (b *lineBuffer) flushLocked() error {
	b.pending = false
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*maxBuffered {
		b.buf = nil // a burst of long lines: do not keep its memory
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Close writes what waits and closes the file.
func (b *lineBuffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.timer.Stop()
	err := b.flushLocked()
	b.closed = true
	if cerr := b.w.Close(); err == nil {
		err = cerr
	}
	return err
}

// flushOnWarn writes a warning or an error, and every line before it, to
// the file before Handle returns: those are the lines someone reads after
// a failure. A record of plain attributes is written by line, as next
// would write it (line.go).
type flushOnWarn struct {
	next slog.Handler
	buf  *lineBuffer
	line *lineWriter // nil: every record goes to next
}

func (h flushOnWarn) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h flushOnWarn) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if line, ok := h.line.line(r); ok {
		_, err = h.buf.Write(line)
	} else {
		err = h.next.Handle(ctx, r)
	}
	if r.Level >= slog.LevelWarn {
		h.buf.Flush()
	}
	return err
}

func (h flushOnWarn) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushOnWarn{next: h.next.WithAttrs(attrs), buf: h.buf, line: h.line.with(attrs)}
}

func (h flushOnWarn) WithGroup(name string) slog.Handler {
	return flushOnWarn{next: h.next.WithGroup(name), buf: h.buf} // groups take the full path
}

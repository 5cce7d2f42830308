// Package logging builds aoi's log: JSON lines in the data dir (the
// terminal belongs to the TUI), rotated by size, with the field names of
// seed 002 §7.2 (timestamp, level, message, component, agent_from,
// agent_to, query_id, latency_ms) and secrets redacted before they are
// written.
package logging

import (
	"io"
	"log/slog"
	"strings"
	"time"

	"gopkg.in/natefinch/lumberjack.v2"
)

// Options configure Open.
type Options struct {
	Path       string       // the log file; rotated copies sit next to it
	Level      slog.Leveler // e.g. a *slog.LevelVar the caller changes on reload
	MaxSizeMB  int          // rotate when the file reaches this size (default 20)
	MaxBackups int          // rotated files kept (default 3)
	// FlushEvery is how long info and debug lines may wait in memory
	// before they are written (default DefaultFlushEvery); warnings and
	// errors are written at once, with every line before them.
	FlushEvery time.Duration
}

// Open returns a logger writing JSON lines to a size-rotated file, and the
// file to close when done (closing writes the lines still waiting). Files
// are created with mode 0600.
func Open(o Options) (*slog.Logger, io.Closer) {
	if o.MaxSizeMB <= 0 {
		o.MaxSizeMB = 20
	}
	if o.MaxBackups <= 0 {
		o.MaxBackups = 3
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = DefaultFlushEvery
	}
	w := newLineBuffer(&lumberjack.Logger{Filename: o.Path, MaxSize: o.MaxSizeMB, MaxBackups: o.MaxBackups}, o.FlushEvery)
	return slog.New(flushOnWarn{next: NewHandler(w, o.Level), buf: w, line: &lineWriter{}}), w
}

// NewHandler is the JSON handler aoi logs through: seed field names and
// secret redaction.
func NewHandler(w io.Writer, level slog.Leveler) slog.Handler {
	return Redacting(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: seedNames}))
}

// seedNames renames slog's built-in keys to seed 002's and lower-cases
// the level ("info", not "INFO").
func seedNames(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		a.Key = "timestamp"
	case slog.MessageKey:
		a.Key = "message"
	case slog.LevelKey:
		if l, ok := a.Value.Any().(slog.Level); ok {
			a.Value = slog.StringValue(strings.ToLower(l.String()))
		}
	}
	return a
}

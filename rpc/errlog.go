package rpc

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// The HTTP server's error log (failed TLS handshakes above all: a caller
// without a certificate, a connection closed to make room) writes at most
// errorLogBurst lines of one kind per errorLogWindow; when the window
// ends, one line counts the rest. A flood of connections once wrote 449
// "TLS handshake error" lines in 6 s, rotating the log's history out.
const (
	errorLogBurst   = 3
	errorLogWindow  = time.Minute
	maxErrorKinds   = 64        // kinds tracked at once; more share otherErrorKind
	otherErrorKind  = "(other)" // the kind of lines over maxErrorKinds
	maxErrorKindLen = 120       // a kind is cut to this many bytes
)

// errorLog is the io.Writer under an http.Server's ErrorLog: each line
// goes to logger at warn level unless errorLogBurst lines of its kind were
// written in the current window.
type errorLog struct {
	logger *slog.Logger
	window time.Duration
	burst  int

	mu    sync.Mutex
	kinds map[string]*errorKind
}

type errorKind struct {
	since      time.Time // start of the window
	written    int       // lines written in the window
	suppressed int       // lines not written in the window
	counting   bool      // a timer writes the count when the window ends
}

func newErrorLog(logger *slog.Logger) *errorLog {
	return &errorLog{logger: logger, window: errorLogWindow, burst: errorLogBurst, kinds: map[string]*errorKind{}}
}

// Write takes one line from a log.Logger.
func (e *errorLog) Write(p []byte) (int, error) {
	msg := strings.TrimRight(string(p), "\n")
	now := time.Now()
	e.mu.Lock()
	kind, k := e.kindOf(errorKindOf(msg), now)
	write := k.written < e.burst || vitalError(msg)
	if write {
		k.written++
	} else {
		k.suppressed++
		if !k.counting {
			k.counting = true
			time.AfterFunc(k.since.Add(e.window).Sub(now), func() { e.count(kind, k) })
		}
	}
	e.mu.Unlock()
	if write {
		e.logger.Log(context.Background(), slog.LevelWarn, msg)
	}
	return len(p), nil
}

// vitalError reports whether a line tells of the server itself failing
// (a handler's panic, accepting no more connections): never summarised.
func vitalError(msg string) bool {
	return strings.Contains(msg, "panic") || strings.Contains(msg, "Accept error")
}

// kindOf is the current window of kind, started at now if there is none
// (under otherErrorKind when maxErrorKinds are tracked). The caller holds
// mu.
func (e *errorLog) kindOf(kind string, now time.Time) (string, *errorKind) {
	k := e.kinds[kind]
	if k != nil && !k.counting && now.Sub(k.since) >= e.window {
		delete(e.kinds, kind) // its window is over and had nothing to count
		k = nil
	}
	if k != nil {
		return kind, k
	}
	if len(e.kinds) >= maxErrorKinds {
		for name, old := range e.kinds {
			if !old.counting && now.Sub(old.since) >= e.window {
				delete(e.kinds, name)
			}
		}
		if len(e.kinds) >= maxErrorKinds {
			kind = otherErrorKind
			if k = e.kinds[kind]; k != nil {
				return kind, k
			}
		}
	}
	k = &errorKind{since: now}
	e.kinds[kind] = k
	return kind, k
}

// count ends k's window: one line says how many lines of kind were not
// written.
func (e *errorLog) count(kind string, k *errorKind) {
	e.mu.Lock()
	n := k.suppressed
	if e.kinds[kind] == k {
		delete(e.kinds, kind)
	}
	e.mu.Unlock()
	if n > 0 {
		e.logger.Log(context.Background(), slog.LevelWarn,
			fmt.Sprintf("%s: %d more such lines in the last %v were not logged", kind, n, e.window),
			"kind", kind, "suppressed", n)
	}
}

// errorKindOf names the kind of a line of net/http's error log, without
// the addresses and numbers that differ from line to line:
// "http: TLS handshake error from 1.2.3.4:5678: read tcp …: connection
// reset by peer" is "http: TLS handshake error: connection reset by peer";
// "http: Accept error: …" is "http: Accept error".
func errorKindOf(msg string) string {
	line, _, _ := strings.Cut(msg, "\n") // a panic's stack follows its line
	var kind string
	if head, rest, ok := strings.Cut(line, " from "); ok {
		kind = head
		if _, reason, ok := strings.Cut(rest, ": "); ok { // after the address
			if i := strings.LastIndex(reason, ": "); i >= 0 {
				reason = reason[i+2:]
			}
			kind += ": " + reason
		}
	} else {
		kind = line
		if rest, ok := strings.CutPrefix(line, "http: "); ok {
			head, _, _ := strings.Cut(rest, ": ")
			kind = "http: " + head
		}
	}
	// What a client sent (an ALPN name, a header) shows in parentheses,
	// brackets or quotes: it is no part of the kind, or each new name
	// would be a kind of its own and a stranger could fill the table.
	if i := strings.IndexAny(kind, "([\""); i >= 0 {
		kind = kind[:i]
	}
	words := strings.Fields(kind)
	kept := words[:0]
	for _, w := range words {
		if !strings.ContainsAny(w, "0123456789") {
			kept = append(kept, w)
		}
	}
	kind = strings.Join(kept, " ")
	if len(kind) > maxErrorKindLen {
		kind = strings.ToValidUTF8(kind[:maxErrorKindLen], "")
	}
	return kind
}

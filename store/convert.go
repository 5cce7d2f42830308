package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/internal/jsonwrite"
)

// sqlConn is what *sql.Conn, *sql.DB and *sql.Tx have in common.
type sqlConn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// timeLayout is how every store table except audit_log keeps a time: UTC,
// fixed width, nanoseconds, so TEXT comparison and ORDER BY are chronological.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// formatTime renders t for a TEXT column; the zero time is the empty string.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return t.Format(timeLayout)
	}
	// Written digit by digit: Format reads the layout anew on every call,
	// and every question stores a time or two.
	var b [len(timeLayout)]byte
	digits := func(at, n, width int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + n%10)
			n /= 10
		}
	}
	year, month, day := t.Date()
	hour, minute, second := t.Clock()
	digits(0, year, 4)
	b[4] = '-'
	digits(5, int(month), 2)
	b[7] = '-'
	digits(8, day, 2)
	b[10] = 'T'
	digits(11, hour, 2)
	b[13] = ':'
	digits(14, minute, 2)
	b[16] = ':'
	digits(17, second, 2)
	b[19] = '.'
	digits(20, t.Nanosecond(), 9)
	b[29] = 'Z'
	return string(b[:])
}

// formatTimePtr renders an optional time (nil → NULL).
func formatTimePtr(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return formatTime(*t)
}

// parseTime reads a time written by formatTime (or any RFC 3339 time); the
// empty string is the zero time.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: bad timestamp %q in the database: %w", s, err)
	}
	return t.UTC(), nil
}

// parseTimePtr reads an optional time column.
func parseTimePtr(s sql.NullString) (*time.Time, error) {
	if !s.Valid || s.String == "" {
		return nil, nil
	}
	t, err := parseTime(s.String)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// rawJSON turns a JSON column value back into a RawMessage (NULL or "" → nil).
func rawJSON(s sql.NullString) json.RawMessage {
	if !s.Valid || s.String == "" {
		return nil
	}
	return json.RawMessage(s.String)
}

// jsonArg renders raw JSON for a TEXT column (empty → NULL), refusing text
// that is not JSON so a bad value never lands in the database.
func jsonArg(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("store: refusing to store invalid JSON (%d bytes)", len(raw))
	}
	return string(raw), nil
}

// stringsJSON renders a string list as a JSON array ("[]" for none).
func stringsJSON(list []string) string {
	if len(list) == 0 {
		return "[]"
	}
	size := 2
	for _, s := range list {
		if strings.ContainsAny(s, "<>&") || !utf8.ValidString(s) {
			b, _ := json.Marshal(list) // a []string always marshals
			return string(b)
		}
		size += len(s) + 3
	}
	// What json.Marshal writes for strings it need not HTML-escape, without
	// its reflection: every question stores its scope and sources.
	return string(jsonwrite.AppendStrings(make([]byte, 0, size), list))
}

// parseStrings reads a JSON string array column.
func parseStrings(s sql.NullString) ([]string, error) {
	if !s.Valid || s.String == "" || s.String == "[]" {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal([]byte(s.String), &out); err != nil {
		return nil, fmt.Errorf("store: bad JSON list %q in the database: %w", s.String, err)
	}
	return out, nil
}

// clampLimit bounds a caller's limit: non-positive → def, above max → max.
func clampLimit(limit, def, max int) int {
	switch {
	case limit <= 0:
		return def
	case limit > max:
		return max
	}
	return limit
}

// ErrNotFound is returned (wrapped) by updates aimed at a row that does not
// exist; test with errors.Is.
var ErrNotFound = errors.New("not found")

// mustAffect turns "no row changed" into ErrNotFound naming the row.
func mustAffect(res sql.Result, kind, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: updating %s %s: %w", kind, id, err)
	}
	if n == 0 {
		return fmt.Errorf("%s %s: %w", kind, id, ErrNotFound)
	}
	return nil
}

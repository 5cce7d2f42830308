package logging

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/internal/jsonwrite"
)

// lineWriter writes a record of plain attributes (strings redaction
// leaves alone, integers, booleans, durations) exactly as the redacting
// JSON handler below it would, without slog's machinery: every handled
// call logs a line, and its copy through the redacting handler, slog's
// handler state and a ReplaceAttr call per attribute took about 3% of a
// request's CPU. Any other record takes the full path.
type lineWriter struct {
	prefix []byte // the attributes added with With, rendered
}

// with is the writer for a handler given attrs, or nil when one of them
// is not plain (then every record takes the full path).
func (w *lineWriter) with(attrs []slog.Attr) *lineWriter {
	if w == nil {
		return nil
	}
	prefix := slices.Clip(w.prefix)
	for _, a := range attrs {
		var ok bool
		if prefix, ok = appendPlainAttr(prefix, a); !ok {
			return nil
		}
	}
	return &lineWriter{prefix: prefix}
}

// line renders r as one JSON line, or reports false when r is not plain.
func (w *lineWriter) line(r slog.Record) ([]byte, bool) {
	if w == nil {
		return nil, false
	}
	if y := r.Time.Year(); r.Time.IsZero() || y < 0 || y >= 10000 || !plainString(r.Message) {
		return nil, false
	}
	b := make([]byte, 0, 320)
	b = append(b, `{"timestamp":"`...)
	b = r.Time.Round(0).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = jsonwrite.AppendString(b, levelName(r.Level))
	b = jsonwrite.AppendString(append(b, `,"message":`...), r.Message)
	b = append(b, w.prefix...)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		b, ok = appendPlainAttr(b, a)
		return ok
	})
	if !ok {
		return nil, false
	}
	return append(b, '}', '\n'), true
}

// levelName is strings.ToLower(l.String()), without the copy for the
// four levels every line has.
func levelName(l slog.Level) string {
	switch l {
	case slog.LevelDebug:
		return "debug"
	case slog.LevelInfo:
		return "info"
	case slog.LevelWarn:
		return "warn"
	case slog.LevelError:
		return "error"
	}
	return strings.ToLower(l.String())
}

// appendPlainAttr appends `,"key":value` for a plain attribute, or reports
// false. Keys the handler renames (seedNames) or redacts are not plain.
func appendPlainAttr(b []byte, a slog.Attr) ([]byte, bool) {
	switch a.Key {
	case "", slog.TimeKey, slog.MessageKey, slog.LevelKey, slog.SourceKey:
		return b, false
	}
	if IsSecretKey(a.Key) || !plainString(a.Key) {
		return b, false
	}
	b = append(jsonwrite.AppendString(append(b, ','), a.Key), ':')
	switch v := a.Value; v.Kind() {
	case slog.KindString:
		if !plainString(v.String()) {
			return b, false
		}
		b = jsonwrite.AppendString(b, v.String())
	case slog.KindInt64:
		b = strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		b = strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindBool:
		b = strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		b = strconv.AppendInt(b, int64(v.Duration()), 10)
	default:
		return b, false
	}
	return b, true
}

// plainString reports whether redaction leaves s as it is and s holds no
// control character (which the JSON handler escapes its own way). Short
// ASCII text, nearly every value, is decided by one scan and the value
// prefilter, as redactString decides it.
func plainString(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return false
		}
		ascii = ascii && s[i] < utf8.RuneSelf
	}
	if ascii && len(s) <= maxLogString {
		return !namesSecretValue(s)
	}
	return redactString(s) == s
}

package logging

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// nopCloser is a bytes.Buffer a lineBuffer can close.
type nopCloser struct{ *bytes.Buffer }

func (nopCloser) Close() error { return nil }

// TestLineWriterWritesWhatTheHandlerWrites: every record, through Open's
// handler chain (which writes a plain record itself), comes out byte for
// byte as the redacting JSON handler alone writes it, With attributes,
// levels, Japanese, secrets, controls and groups included.
func TestLineWriterWritesWhatTheHandlerWrites(t *testing.T) {
	at := time.Date(2026, 12, 3, 4, 5, 6, 7000, time.FixedZone("JST", 9*3600))
	records := []struct {
		level slog.Level
		msg   string
		attrs []slog.Attr
	}{
		{slog.LevelInfo, "request handled", []slog.Attr{slog.String("component", "rpc"), slog.String("method", "aoi.query"),
			slog.String("code", "ok"), slog.String("query_id", `"42"`), slog.Int64("latency_ms", 3)}},
		{slog.LevelWarn, "認証は完了 <b>&</b>", []slog.Attr{slog.Bool("ok", true), slog.Uint64("n", 7), slog.Duration("took", 1500*time.Microsecond)}},
		{slog.LevelDebug + 2, "level between", nil},
		{slog.LevelDebug, "debug line", nil},
		{slog.LevelInfo, "secret key", []slog.Attr{slog.String("token", "t-999")}},
		{slog.LevelInfo, "secret value", []slog.Attr{slog.String("note", "Bearer abc.def-ghi")}},
		{slog.LevelInfo, "control", []slog.Attr{slog.String("note", "a\bb\fc\nd")}},
		{slog.LevelInfo, "hidden", []slog.Attr{slog.String("note", "csi \u009b31m \u202eevil")}},
		{slog.LevelInfo, "long", []slog.Attr{slog.String("note", strings.Repeat("x", maxLogString+10))}},
		{slog.LevelInfo, "renamed keys", []slog.Attr{slog.String("msg", "m"), slog.String("level", "l"), slog.String("time", "t")}},
		{slog.LevelInfo, "other kinds", []slog.Attr{slog.Float64("f", 0.5), slog.Time("at", at), slog.Any("err", errors.New("boom")),
			slog.Group("g", slog.String("k", "v"))}},
		{slog.LevelError, "bad \xff byte", []slog.Attr{slog.String("k\u2028", "v\u2029")}},
	}
	for _, with := range [][]any{nil, {"agent", "eng-suzuki"}, {"agent", "eng", "api_key", "k-1"}} {
		var fast, slow bytes.Buffer
		buf := newLineBuffer(nopCloser{&fast}, time.Hour)
		logger := slog.New(flushOnWarn{next: NewHandler(buf, slog.LevelDebug), buf: buf, line: &lineWriter{}})
		plain := slog.New(NewHandler(&slow, slog.LevelDebug))
		if with != nil {
			logger, plain = logger.With(with...), plain.With(with...)
		}
		for _, rec := range records {
			r := slog.NewRecord(at, rec.level, rec.msg, 0)
			r.AddAttrs(rec.attrs...)
			_ = logger.Handler().Handle(context.Background(), r)
			_ = plain.Handler().Handle(context.Background(), r)
		}
		buf.Flush()
		got, want := strings.Split(fast.String(), "\n"), strings.Split(slow.String(), "\n")
		if len(got) != len(want) {
			t.Fatalf("with %v: %d lines, want %d", with, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("with %v, line %d:\n got %s\nwant %s", with, i, got[i], want[i])
			}
		}
	}
	if _, ok := (&lineWriter{}).line(slog.NewRecord(at, slog.LevelInfo, "request handled", 0)); !ok {
		t.Error("a plain record takes the full path")
	}
}

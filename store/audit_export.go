package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// Export formats for ExportAudit.
const (
	// ExportJSON is one JSON array of row objects, one row per line.
	ExportJSON = "json"
	// ExportJSONLines is one row object per line, no enclosing array.
	ExportJSONLines = "jsonl"
	// ExportCSV is RFC 4180 CSV with a header row; detail is its JSON text.
	ExportCSV = "csv"
)

// exportRow is a row as exported: every column exactly as stored (ts is the
// string the hash covers), so an auditor can verify an export offline.
type exportRow struct {
	Seq      int64           `json:"seq"`
	TS       string          `json:"ts"`
	Agent    string          `json:"agent"`
	Method   string          `json:"method"`
	Result   string          `json:"result"`
	Detail   json.RawMessage `json:"detail"`
	PrevHash string          `json:"prev_hash"`
	Hash     string          `json:"hash"`
}

// ExportAudit writes the whole audit log, oldest first, to w in format
// ("json", "jsonl" or "csv"), streaming rows from the database. Columns are
// written exactly as stored, so the export can be re-verified with the
// scheme documented in audit_hash.go.
func (db *DB) ExportAudit(ctx context.Context, w io.Writer, format string) error {
	var exp rowWriter
	bw := bufio.NewWriter(w)
	switch format {
	case ExportJSON:
		exp = &jsonExporter{w: bw, array: true}
	case ExportJSONLines:
		exp = &jsonExporter{w: bw}
	case ExportCSV:
		exp = &csvExporter{w: csv.NewWriter(bw)}
	default:
		return fmt.Errorf("unknown audit export format %q: use json, jsonl or csv", format)
	}
	if err := db.streamAudit(ctx, exp); err != nil {
		return err
	}
	return bw.Flush()
}

type rowWriter interface {
	begin() error
	row(r exportRow) error
	end() error
}

func (db *DB) streamAudit(ctx context.Context, exp rowWriter) error {
	rows, err := db.rd.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log ORDER BY seq`)
	if err != nil {
		return fmt.Errorf("store: reading the audit log: %w", err)
	}
	defer rows.Close()
	if err := exp.begin(); err != nil {
		return err
	}
	for rows.Next() {
		var r exportRow
		var detail string
		if err := rows.Scan(&r.Seq, &r.TS, &r.Agent, &r.Method, &r.Result, &detail, &r.PrevHash, &r.Hash); err != nil {
			return fmt.Errorf("store: reading an audit row: %w", err)
		}
		r.Detail = exportDetail(detail)
		if err := exp.row(r); err != nil {
			return fmt.Errorf("store: writing the audit export: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: reading the audit log: %w", err)
	}
	return exp.end()
}

// exportDetail keeps a valid detail as is; a tampered, non-JSON detail is
// exported as a JSON string so the export stays well-formed (and the hash
// check on it fails, as it should).
func exportDetail(detail string) json.RawMessage {
	if json.Valid([]byte(detail)) {
		return json.RawMessage(detail)
	}
	b, _ := json.Marshal(detail)
	return b
}

// jsonExporter writes rows with HTML escaping off, so each detail appears
// byte for byte as stored (the bytes the hash covers).
type jsonExporter struct {
	w     *bufio.Writer
	array bool
	n     int
	buf   bytes.Buffer
}

func (e *jsonExporter) begin() error {
	if e.array {
		_, err := e.w.WriteString("[\n")
		return err
	}
	return nil
}

func (e *jsonExporter) row(r exportRow) error {
	e.buf.Reset()
	enc := json.NewEncoder(&e.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	b := bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))
	if e.array && e.n > 0 {
		e.w.WriteString(",\n")
	}
	e.n++
	e.w.Write(b)
	if !e.array {
		return e.w.WriteByte('\n')
	}
	return nil
}

func (e *jsonExporter) end() error {
	if !e.array {
		return nil
	}
	if e.n > 0 {
		e.w.WriteString("\n")
	}
	_, err := e.w.WriteString("]\n")
	return err
}

type csvExporter struct{ w *csv.Writer }

func (e *csvExporter) begin() error {
	return e.w.Write([]string{"seq", "ts", "agent", "method", "result", "detail", "prev_hash", "hash"})
}

func (e *csvExporter) row(r exportRow) error {
	return e.w.Write([]string{strconv.FormatInt(r.Seq, 10), r.TS, r.Agent, r.Method, r.Result, string(r.Detail), r.PrevHash, r.Hash})
}

func (e *csvExporter) end() error {
	e.w.Flush()
	return e.w.Error()
}

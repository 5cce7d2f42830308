package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// maxExportRows bounds the rows exported per table.
const maxExportRows = 100000

// AgentExport is everything the database holds that names one agent: for
// each table, the rows in which the id appears (as a whole name) in any
// text column, column → value. JSON columns are included as JSON.
type AgentExport struct {
	AgentID   string                      `json:"agent_id"`
	Tables    map[string][]map[string]any `json:"tables"`
	Truncated []string                    `json:"truncated,omitempty"` // tables cut at maxExportRows
}

// ExportAgent collects every row that names agentID: registry entries,
// queries and asks, messages, outbox entries, tasks and approvals, context
// events and audit rows (by agent or detail).
func (db *DB) ExportAgent(ctx context.Context, agentID string) (AgentExport, error) {
	out := AgentExport{AgentID: agentID, Tables: map[string][]map[string]any{}}
	query := func(q string, args ...any) (*sql.Rows, error) { return db.rd.QueryContext(ctx, q, args...) }
	tables, err := dataTables(query)
	if err != nil {
		return out, err
	}
	for _, t := range tables {
		rows, truncated, err := exportTable(query, t, agentID)
		if err != nil {
			return out, err
		}
		if len(rows) > 0 {
			out.Tables[t.name] = rows
		}
		if truncated {
			out.Truncated = append(out.Truncated, t.name)
		}
	}
	return out, nil
}

// exportTable returns t's rows that name id.
func exportTable(query queryFunc, t dataTable, id string) ([]map[string]any, bool, error) {
	where, args := t.mentionFilter(id)
	rows, err := query(`SELECT * FROM `+quoteIdent(t.name)+` WHERE `+where, args...)
	if err != nil {
		return nil, false, fmt.Errorf("store: exporting %s: %w", t.name, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, false, err
	}
	text := map[string]bool{}
	for _, c := range t.textCols {
		text[c] = true
	}
	var out []map[string]any
	for rows.Next() {
		if len(out) == maxExportRows {
			return out, true, nil
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, false, fmt.Errorf("store: exporting %s: %w", t.name, err)
		}
		row, named := agentRow(cols, vals, text, id)
		if named {
			out = append(out, row)
		}
	}
	return out, false, rows.Err()
}

// agentRow turns scanned values into column → value, JSON columns as
// JSON, and reports whether a text column names id.
func agentRow(cols []string, vals []any, text map[string]bool, id string) (map[string]any, bool) {
	row := make(map[string]any, len(cols))
	named := false
	for i, c := range cols {
		v := vals[i]
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		if s, ok := v.(string); ok {
			if text[c] && mentions(s, id) {
				named = true
			}
			if t := strings.TrimSpace(s); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
				v = json.RawMessage(t)
			}
		}
		row[c] = v
	}
	return row, named
}

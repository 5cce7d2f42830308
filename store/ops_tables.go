package store

import (
	"database/sql"
	"fmt"
	"strings"
)

// queryFunc runs a read: the read pool (export) or the writer's
// transaction (forget).
type queryFunc func(query string, args ...any) (*sql.Rows, error)

// dataTable is a table that holds what people and peers said, with the
// columns that can hold text.
type dataTable struct {
	name     string
	textCols []string
}

// bookkeepingTables never hold anything said by or about an agent, or are
// handled on their own (the audit chain's own records).
var bookkeepingTables = map[string]bool{
	"schema_migrations": true, "audit_checkpoints": true, "audit_redactions": true,
	"audit_agent_seqs": true, "audit_agent_seqs_through": true, // audit_log's agent index (forget keeps it in step)
	"query_ids": true, "open_queries": true, "queries_indexed": true, // the questions' indexes (triggers keep them in step)
}

// dataTables lists the ordinary tables and their text columns from the
// schema itself, so a table added by a later migration is covered by
// export and forget without changes here. Full-text index tables (virtual
// tables and their shadow tables) are skipped: they follow their content
// tables through triggers.
func dataTables(query queryFunc) ([]dataTable, error) {
	rows, err := query(`SELECT name, type, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: reading the schema: %w", err)
	}
	var names, virtual []string
	for rows.Next() {
		var name, typ, ddl string
		if err := rows.Scan(&name, &typ, &ddl); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: reading the schema: %w", err)
		}
		if strings.HasPrefix(strings.ToUpper(ddl), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, name)
			continue
		}
		names = append(names, name)
	}
	rows.Close()
	var out []dataTable
	for _, name := range names {
		if skipTable(name, virtual) {
			continue
		}
		cols, err := textColumns(query, name)
		if err != nil {
			return nil, err
		}
		if len(cols) > 0 {
			out = append(out, dataTable{name: name, textCols: cols})
		}
	}
	return out, nil
}

func skipTable(name string, virtual []string) bool {
	if bookkeepingTables[name] || strings.HasPrefix(name, "sqlite_") {
		return true
	}
	for _, v := range virtual {
		if strings.HasPrefix(name, v+"_") {
			return true
		}
	}
	return false
}

// textColumns lists a table's columns declared TEXT (or untyped).
func textColumns(query queryFunc, table string) ([]string, error) {
	rows, err := query(`SELECT name, type FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, fmt.Errorf("store: reading the columns of %s: %w", table, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, fmt.Errorf("store: reading the columns of %s: %w", table, err)
		}
		if t := strings.ToUpper(typ); t == "" || strings.Contains(t, "TEXT") || strings.Contains(t, "CHAR") {
			cols = append(cols, name)
		}
	}
	return cols, rows.Err()
}

// quoteIdent quotes a schema identifier (names come from sqlite_master,
// never from input, but quoting keeps odd names safe).
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// mentionFilter is a WHERE clause that pre-selects rows whose text columns
// contain id in any case; Go then keeps only whole-name matches.
func (t dataTable) mentionFilter(id string) (string, []any) {
	conds := make([]string, len(t.textCols))
	args := make([]any, len(t.textCols))
	for i, c := range t.textCols {
		conds[i] = "instr(lower(" + quoteIdent(c) + "), ?) > 0"
		args[i] = lowerASCII(id)
	}
	return strings.Join(conds, " OR "), args
}

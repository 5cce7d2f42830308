package store

import (
	"context"
	"fmt"
)

// AddPromptLine appends line to the prompt history, unless it repeats the
// newest line, and drops the oldest lines beyond keep.
func (tx *Tx) AddPromptLine(line string, keep int) error {
	var last string
	err := tx.QueryRow(`SELECT line FROM prompt_history ORDER BY seq DESC LIMIT 1`).Scan(&last)
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("store: reading the prompt history: %w", err)
	}
	if err == nil && last == line {
		return nil
	}
	res, err := tx.Exec(`INSERT INTO prompt_history(line, at) VALUES (?, ?)`, line, formatTime(tx.Now()))
	if err != nil {
		return fmt.Errorf("store: saving a prompt line: %w", err)
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("store: saving a prompt line: %w", err)
	}
	if err := tx.Run(`DELETE FROM prompt_history WHERE seq <= ?`, seq-int64(keep)); err != nil {
		return fmt.Errorf("store: trimming the prompt history: %w", err)
	}
	return nil
}

// PromptHistory returns the newest limit prompt lines, oldest first (the
// order the prompt bar walks them in).
func (db *DB) PromptHistory(ctx context.Context, limit int) ([]string, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT line FROM
		(SELECT seq, line FROM prompt_history ORDER BY seq DESC LIMIT ?) ORDER BY seq`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: reading the prompt history: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, fmt.Errorf("store: reading the prompt history: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

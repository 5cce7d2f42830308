package store

import (
	"context"
	"fmt"
)

// SetSetting stores a small piece of state under key (focus override,
// source cursors, …), replacing any earlier value.
func (tx *Tx) SetSetting(key, value string) error {
	if err := tx.Run(`INSERT INTO settings(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("store: saving setting %s: %w", key, err)
	}
	return nil
}

// DeleteSetting removes a setting.
func (tx *Tx) DeleteSetting(key string) error {
	if err := tx.Run(`DELETE FROM settings WHERE key = ?`, key); err != nil {
		return fmt.Errorf("store: deleting setting %s: %w", key, err)
	}
	return nil
}

// Setting returns the value stored under key.
func (db *DB) Setting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := db.rd.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if isNoRows(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: reading setting %s: %w", key, err)
	}
	return v, true, nil
}

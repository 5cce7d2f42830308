package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestPromptHistoryKeepsTheNewestLinesInOrder: lines come back oldest
// first, a repeat of the newest line is not stored twice, and only the
// newest keep lines stay, in the file as well as in what is read back.
func TestPromptHistoryKeepsTheNewestLinesInOrder(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	add := func(line string) { write(t, db, func(tx *Tx) error { return tx.AddPromptLine(line, 3) }) }
	add(":focus on")
	add("@pm-tanaka how is it going?")
	add("@pm-tanaka how is it going?")
	add(":focus on")
	got, err := db.PromptHistory(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{":focus on", "@pm-tanaka how is it going?", ":focus on"}
	if !slices.Equal(got, want) {
		t.Fatalf("history = %q, want %q", got, want)
	}
	for i := range 5 {
		add(fmt.Sprintf(":note %d", i))
	}
	got, _ = db.PromptHistory(ctx, 10)
	if want := []string{":note 2", ":note 3", ":note 4"}; !slices.Equal(got, want) {
		t.Fatalf("after more lines, history = %q, want %q", got, want)
	}
	var rows int
	if err := db.rd.QueryRowContext(ctx, `SELECT count(*) FROM prompt_history`).Scan(&rows); err != nil || rows != 3 {
		t.Fatalf("prompt_history holds %d rows (err %v), want 3: old lines must go", rows, err)
	}
	if got, _ := db.PromptHistory(ctx, 2); !slices.Equal(got, []string{":note 3", ":note 4"}) {
		t.Fatalf("limit 2 = %q, want the newest two, oldest first", got)
	}
}

package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSearchBudgetOption: the search ranks what its index walks found
// inside the time bound; WithSearchBudget replaces that bound. A bound
// already spent still lets the first walk run (a busy machine must not
// turn a question with answers into one without), then stops the rest; a
// generous one lets every walk run.
func TestSearchBudgetOption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aoi.db")
	db, err := Open(path, WithClock(func() time.Time { return ctxTestNow }), WithSearchBudget(time.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	insertEvents(t, db, fixtureEvents()...)
	q := ContextSearch{Terms: []string{"JWT", "invoice"}}
	hits, err := db.SearchContext(context.Background(), q)
	if err != nil || len(hits) != 1 || hits[0].Key != "a1b2c3d" {
		t.Fatalf("with a spent budget: hits %+v, err %v; want a1b2c3d only (the first walk)", hits, err)
	}
	db.Close()
	db, err = Open(path, WithClock(func() time.Time { return ctxTestNow }), WithSearchBudget(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hits, err = db.SearchContext(context.Background(), q)
	if keys := hitKeys(hits); err != nil || len(keys) != 2 || !slices.Contains(keys, "a1b2c3d") || !slices.Contains(keys, "d4e5f6a") {
		t.Fatalf("with a generous budget: keys %v, err %v; want a1b2c3d and d4e5f6a", keys, err)
	}
}

package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestSearchBudgetOption: the search ranks what its index walks found
// inside the time bound; WithSearchBudget replaces that bound. A bound
// already spent finds nothing (and is no error); the default finds the
// event.
func TestSearchBudgetOption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aoi.db")
	db, err := Open(path, WithClock(func() time.Time { return ctxTestNow }), WithSearchBudget(time.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	insertEvents(t, db, fixtureEvents()...)
	hits, err := db.SearchContext(context.Background(), ContextSearch{Terms: []string{"JWT"}})
	if err != nil || len(hits) != 0 {
		t.Fatalf("with a spent budget: %d hits, err %v; want none and no error", len(hits), err)
	}
	db.Close()
	db, err = Open(path, WithClock(func() time.Time { return ctxTestNow }), WithSearchBudget(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hits, err = db.SearchContext(context.Background(), ContextSearch{Terms: []string{"JWT"}})
	if err != nil || len(hits) != 1 || hits[0].Key != "a1b2c3d" {
		t.Fatalf("with a generous budget: hits %+v, err %v; want a1b2c3d", hits, err)
	}
}

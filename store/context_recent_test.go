package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestPreferNewerLetsTheNewestMatchLead: for "what changed lately", the
// newest of the matches leads even when an older one scored a little
// higher and all of them are long past the recency rank already applies.
func TestPreferNewerLetsTheNewestMatchLead(t *testing.T) {
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	hits := []ContextHit{
		{Key: "old", Score: 1.2, TS: base},
		{Key: "middle", Score: 1.0, TS: base.Add(200 * 24 * time.Hour)},
		{Key: "newest", Score: 1.0, TS: base.Add(400 * 24 * time.Hour)},
	}
	preferNewer(hits)
	if hits[0].Key != "newest" || hits[2].Key != "old" {
		t.Fatalf("order %s, %s, %s; want newest first and old last", hits[0].Key, hits[1].Key, hits[2].Key)
	}
}

// TestPreferNewerByPlaceNotTime: in a history of years, the newest match
// leads one of last week that scored a little higher: newness counts by
// the hit's place among the matches, not by how far apart in time they
// are (by time, a week in five years tells them apart by 0.4%).
func TestPreferNewerByPlaceNotTime(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	hits := []ContextHit{{Key: "five years ago", Score: 1.0, TS: now.AddDate(-5, 0, 0)}}
	for i := 1; i <= 8; i++ { // matches from the years between
		hits = append(hits, ContextHit{Key: "between", Score: 0.5, TS: now.AddDate(-i/2, -i, 0)})
	}
	hits = append(hits,
		ContextHit{Key: "last week", Score: 1.05, TS: now.AddDate(0, 0, -7)},
		ContextHit{Key: "today", Score: 1.0, TS: now})
	preferNewer(hits)
	if hits[0].Key != "today" || hits[1].Key != "last week" {
		t.Fatalf("order %s, %s; want today, then last week", hits[0].Key, hits[1].Key)
	}
}

// TestBackfilledHistoryIsWalkedLast: a repository's newest commits are
// indexed first and its older history after them (backfill). Stored as
// Earlier, the history takes ids below the newest commits', so a search,
// which walks the index newest id first and keeps the first matches it
// finds, still finds the newest work when a word matches far more events
// than it keeps. The ingest counter counts both, and an id is never
// handed out twice.
func TestBackfilledHistoryIsWalkedLast(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	now := time.Now().UTC()
	commit := func(i int, earlier bool) ContextEvent {
		return ContextEvent{Source: "git", Kind: "commit", Ctx: "acme/cli", Key: fmt.Sprintf("%040d", i),
			Title: fmt.Sprintf("completion: tweak %d", i), TS: now.Add(-time.Duration(i) * time.Hour), Earlier: earlier}
	}
	var newestID, lowestID int64
	err := db.Write(ctx, func(tx *Tx) error {
		for i := 19; i >= 0; i-- { // the first poll: the newest 20, oldest first
			id, err := tx.InsertContextEvent(commit(i, false))
			if err != nil {
				return err
			}
			newestID = id
		}
		for i := 20; i < 20+3*candidatesPerTerm; i++ { // the backfill, newest first
			id, err := tx.InsertContextEvent(commit(i, true))
			if err != nil {
				return err
			}
			lowestID = id
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lowestID >= 1 || newestID != 20 {
		t.Fatalf("ids: newest commit %d, oldest backfilled %d; want 20 and below 1", newestID, lowestID)
	}
	hits, err := db.SearchContext(ctx, ContextSearch{Concepts: []ContextConcept{{Forms: []string{"complet"}}}, Recent: true, Limit: 5})
	if err != nil || len(hits) == 0 || hits[0].Key != fmt.Sprintf("%040d", 0) {
		t.Fatalf("newest match = %+v, %v; want the newest commit", hits, err)
	}
	st, err := db.OpsStats(ctx)
	if err != nil || st.ContextEvents != 20+3*candidatesPerTerm || st.ContextIngested != st.ContextEvents {
		t.Fatalf("stats: %d events, %d ingested (%v); want both %d", st.ContextEvents, st.ContextIngested, err, 20+3*candidatesPerTerm)
	}
	// The oldest event goes (retention); the next backfilled one still
	// gets a new id, and the counter still counts every event ingested.
	err = db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`DELETE FROM context_events WHERE id = ?`, lowestID); err != nil {
			return err
		}
		id, err := tx.InsertContextEvent(commit(1000, true))
		if err == nil && id != lowestID-1 {
			t.Errorf("after deleting id %d the next earlier id is %d, want %d", lowestID, id, lowestID-1)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := db.OpsStats(ctx); st.ContextIngested != 20+3*candidatesPerTerm+1 {
		t.Fatalf("ingested %d, want %d", st.ContextIngested, 20+3*candidatesPerTerm+1)
	}
}

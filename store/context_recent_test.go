package store

import (
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

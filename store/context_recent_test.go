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

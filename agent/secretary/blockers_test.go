package secretary

import (
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/store"
)

// TestBlockersFromWordsRankedByNow: phrases that say work is held up, in
// English and Japanese, make commits and notes blockers; uncommitted
// FIXMEs come before recent words, which come before stale FIXMEs.
func TestBlockersFromWordsRankedByNow(t *testing.T) {
	now := time.Now()
	for _, text := range []string{"ACPI shutdown: waiting for QEMU 7.2", "xhci blocked on the datasheet",
		"実機検証はSATAケーブル到着待ち", "Ruby 3.4 でブロックされている", "waiting on Kota for the fix"} {
		if !saysBlocked(text) {
			t.Errorf("%q not taken as a blocker", text)
		}
	}
	for _, text := range []string{"unblock the release", "add a waiting room page"} {
		if saysBlocked(text) {
			t.Errorf("%q taken as a blocker", text)
		}
	}
	items := []blocker{}
	for _, e := range []store.ContextEvent{
		{Kind: "marker", Title: "FIXME(a.go:1): stale", Meta: `{"marker":"FIXME"}`, TS: now},
		{Kind: "commit", Title: "deploy waiting for the 2FA reset", TS: now.Add(-48 * time.Hour)},
		{Kind: "marker", Title: "FIXME(b.go:2): fresh", Meta: `{"marker":"FIXME","uncommitted":true}`, TS: now},
		{Kind: "commit", Title: "old: blocked on the vendor", TS: now.Add(-60 * 24 * time.Hour)},
	} {
		if b, ok := asBlocker(e, now); ok {
			items = append(items, b)
		}
	}
	got := dedupeBlockers(items)
	want := []string{"FIXME(b.go:2): fresh", "deploy waiting for the 2FA reset", "FIXME(a.go:1): stale"}
	if len(got) != len(want) {
		t.Fatalf("blockers = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("blockers = %q, want %q", got, want)
		}
	}
}

// TestBlockerInCommitMessage: a commit whose subject says what was done
// and whose message says what still holds it up is a blocker that reads
// subject: that line; a line in the added code is not.
func TestBlockerInCommitMessage(t *testing.T) {
	now := time.Now()
	e := store.ContextEvent{Kind: "commit", Title: "Release script for 3.2.6", TS: now.Add(-6 * time.Hour),
		Body: "Waiting for the npm 2FA reset before publishing; everything else is ready.\nfiles: tools/release.sh (+4 -0)\nadded:\necho done\n"}
	b, ok := asBlocker(e, now)
	if !ok || b.text != "Release script for 3.2.6: Waiting for the npm 2FA reset before publishing; everything else is ready." {
		t.Fatalf("blocker = %q, %v", b.text, ok)
	}
	e.Body = "files: a.js (+1 -0)\nadded:\n// blocked on nothing, this is code\n"
	if _, ok := asBlocker(e, now); ok {
		t.Fatal("a line of added code made the commit a blocker")
	}
}

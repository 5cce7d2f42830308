package secretary

import (
	"context"
	"slices"
	"testing"

	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestSnapshotFoldsReportedEvents: what the assistant reports through MCP
// reaches the snapshot — a test run as a recent test (each test a runner's
// output names, with its outcome and time), an edited file as an
// active file, and the newest progress summary as focus_summary (not the
// last commit's title).
func TestSnapshotFoldsReportedEvents(t *testing.T) {
	t.Parallel()
	m := newMirror(t)
	ctx := context.Background()
	pct := 40
	for _, ev := range []Event{
		ReportEvent("", "test.run", "", "TestLoginFlow ok: 12 passed, 0 failed", nil, nil),
		ReportEvent("", "test.run", "", "TestLogoutFlow\n--- FAIL: TestLogoutFlow (0.01s)", nil, nil),
		ReportEvent("", "test.run", "", "--- PASS: TestRefresh (1.25s)\n--- SKIP: TestSlow (0.00s)\nFAILED tests/test_api.py::test_login - 401", nil, nil),
		ReportEvent("", "file.edited", "internal/session/store.go", "added expiry", nil, nil),
		ReportEvent("", "progress", "", "wiring the session store into logout", &pct, nil),
	} {
		if _, err := m.s.Ingest(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := m.s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []wire.TestOutcome{{Name: "TestLogoutFlow", Status: "failed", DurationMS: 10}, {Name: "TestLoginFlow ok: 12 passed, 0 failed", Status: "passed"},
		{Name: "TestRefresh", Status: "passed", DurationMS: 1250}, {Name: "TestSlow", Status: "skipped"}, {Name: "tests/test_api.py::test_login", Status: "failed"}}
	for _, w := range want {
		if !slices.Contains(snap.RecentTests, w) {
			t.Errorf("recent tests %+v lack %+v", snap.RecentTests, w)
		}
	}
	if !slices.Contains(snap.ActiveFiles, "internal/session/store.go") {
		t.Errorf("active files %v lack the edited file", snap.ActiveFiles)
	}
	if snap.FocusSummary != "wiring the session store into logout" || snap.Metadata["progress_summary"] != snap.FocusSummary {
		t.Errorf("focus_summary %q, metadata %v: want the newest progress summary", snap.FocusSummary, snap.Metadata)
	}
	if snap.Progress == nil || *snap.Progress != 40 {
		t.Errorf("progress = %v, want 40", deref(snap.Progress))
	}
}

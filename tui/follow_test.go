package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// A list whose newest rows come first follows them while the selection is
// on the top row, and keeps the owner's row otherwise, saying how many
// rows arrived above it. Without this, new rows scrolled out of view above
// the selection with nothing to say they were there.

// addQueries adds n escalated queries newer than any in the fixture.
func addQueries(svc *testService, n, from int) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	for i := from; i < from+n; i++ {
		svc.queries = append(svc.queries, agent.Query{ID: fmt.Sprintf("new-%d", i), From: "pm-tanaka",
			Text: fmt.Sprintf("new question %d", i), State: agent.QueryEscalated,
			ReceivedAt: fixedNow.Add(time.Duration(i) * time.Second)})
	}
}

func TestQueriesFollowNewRows(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	addQueries(svc, 30, 1)
	pump(t, m, m.fetchCmds(dQueries)[0])
	q := m.queries
	if got := q.rows[q.list.cursor].ID; got != "new-30" || q.list.offset != 0 {
		t.Fatalf("selection on the top row: now on %s (offset %d); want the newest, new-30, in view", got, q.list.offset)
	}
	if frame := screen(m); !strings.Contains(frame, "new question 30") || strings.Contains(frame, "↑") {
		t.Errorf("the newest question is not shown, or a marker is:\n%s", frame)
	}

	press(t, m, "down", "down", "down")
	reading := q.rows[q.list.cursor].ID
	addQueries(svc, 30, 31)
	pump(t, m, m.fetchCmds(dQueries)[0])
	if got := q.rows[q.list.cursor].ID; got != reading {
		t.Errorf("the owner's row %s was left for %s", reading, got)
	}
	if frame := screen(m); !strings.Contains(frame, "Queries · 62 need you · ↑ 30 new (home/g)") {
		t.Errorf("the title does not say 30 rows arrived above:\n%s", frame)
	}
	press(t, m, "g")
	if frame := screen(m); strings.Contains(frame, "↑") || !strings.Contains(frame, "new question 60") {
		t.Errorf("g does not show the new rows and drop the marker:\n%s", frame)
	}
}

func TestAuditFollowsTheLogLive(t *testing.T) {
	svc := fixtureService()
	svc.audit = auditRows(1) // a fresh agent
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusAudit)
	appendAudit := func(n int) {
		svc.mu.Lock()
		svc.audit = auditRows(n)
		svc.mu.Unlock()
		for _, c := range m.fetchCmds(dAudit) {
			pump(t, m, c)
		}
	}
	appendAudit(10)
	if got := m.audit.at(m.audit.list.cursor).Seq; got != 10 || m.audit.list.offset != 0 {
		t.Fatalf("selection on the newest row: now on #%d (offset %d); want #10 at the top", got, m.audit.list.offset)
	}

	press(t, m, "down", "down")
	appendAudit(40)
	if got := m.audit.at(m.audit.list.cursor).Seq; got != 8 {
		t.Errorf("the owner's row #8 was left for #%d", got)
	}
	if frame := screen(m); !strings.Contains(frame, "Audit · newest first · ↑ 30 new (home/g)") {
		t.Errorf("the title does not say 30 rows arrived above:\n%s", frame)
	}
}

// TestAuditPagesOnAfterNewRows: after rows were written above, paging down
// from the newest page goes on from its last row, leaving none out.
func TestAuditPagesOnAfterNewRows(t *testing.T) {
	svc := bigService(1000, 0)
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusAudit)
	press(t, m, "down")
	svc.mu.Lock()
	svc.audit = auditRows(1050)
	svc.mu.Unlock()
	for _, c := range m.fetchCmds(dAudit) {
		pump(t, m, c)
	}
	press(t, m, "G")
	if m.audit.n() <= auditPageSize {
		t.Fatalf("G near the end of the newest page did not load the next (%d rows)", m.audit.n())
	}
	for i := 1; i < m.audit.n(); i++ {
		if a, b := m.audit.at(i-1).Seq, m.audit.at(i).Seq; b != a-1 {
			t.Fatalf("row %d is #%d after #%d: rows were left out", i, b, a)
		}
	}
}

func TestReselect(t *testing.T) {
	for _, c := range []struct {
		name        string
		cursor      int
		old, now    []string
		cursorAfter int
		unseenAfter int
	}{
		{"top follows", 0, []string{"c", "b", "a"}, []string{"e", "d", "c", "b", "a"}, 0, 0},
		{"row kept, arrivals counted", 2, []string{"c", "b", "a"}, []string{"e", "d", "c", "b", "a"}, 4, 2},
		{"moved rows are not new", 2, []string{"c", "b", "a"}, []string{"b", "c", "d", "a"}, 3, 1},
		{"row gone keeps the place", 1, []string{"c", "b", "a"}, []string{"d", "c", "a"}, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := listState{cursor: c.cursor, height: 2}
			l.reselect(c.old, c.now)
			if l.cursor != c.cursorAfter || l.unseen != c.unseenAfter {
				t.Errorf("cursor %d, unseen %d; want %d, %d", l.cursor, l.unseen, c.cursorAfter, c.unseenAfter)
			}
		})
	}
}

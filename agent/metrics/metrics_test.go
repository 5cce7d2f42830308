package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func scrape(t *testing.T, m *Metrics) (string, int) {
	t.Helper()
	srv := httptest.NewServer(m.Handler()) // loopback
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp.StatusCode
}

func TestSeriesFromCallsAndSnapshot(t *testing.T) {
	m := New(func(context.Context) (Snapshot, error) {
		return Snapshot{Approvals: map[string]int{"pending": 2}, ApprovalsDecided: map[string]int{"approved": 5, "expired": 1},
			Tasks: map[string]int{"in_progress": 1}, OutboxDepth: 3, OutboxOldestAge: 90 * time.Second, PeersOnline: 4,
			ContextEvents: 10, ContextIngested: 12}, nil
	})
	m.ObserveCall("aoi.query", "ok", 3*time.Millisecond)
	m.ObserveCall("aoi.query", "PERMISSION_DENIED", time.Millisecond)
	m.ACLDecision("deny")
	m.RateLimited()
	body, status := scrape(t, m)
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, body)
	}
	for _, want := range []string{
		`aoi_rpc_requests_total{code="PERMISSION_DENIED",method="aoi.query"} 1`,
		`aoi_rpc_request_duration_seconds_count{method="aoi.query"} 2`,
		`aoi_acl_decisions_total{decision="deny"} 1`,
		`aoi_rate_limited_total 1`,
		`aoi_approvals{state="pending"} 2`,
		`aoi_approvals_decided_total{decision="approved"} 5`,
		`aoi_approvals_decided_total{decision="rejected"} 0`,
		`aoi_outbox_oldest_age_seconds 90`,
		`aoi_peers_online 4`,
		`aoi_context_ingested_total 12`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
	if len(fams) < 10 {
		t.Errorf("only %d families", len(fams))
	}
}

func TestBrokenStoreFailsOnlyItsSeries(t *testing.T) {
	m := New(func(context.Context) (Snapshot, error) { return Snapshot{}, errors.New("database is locked") })
	m.RateLimited()
	body, status := scrape(t, m)
	if status != http.StatusOK || !strings.Contains(body, "aoi_rate_limited_total 1") || strings.Contains(body, "aoi_outbox_depth") {
		t.Fatalf("status %d:\n%s", status, body)
	}
}

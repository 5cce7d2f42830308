package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// metricsAgents: eng serves /metrics on a loopback port, holds acme/webapp
// (a real git repo) with a forbidden folder and a task that needs approval;
// pm may read and execute there.
func metricsAgents(t *testing.T) (eng, pm *testAgent) {
	repo := gitRepo(t)
	eng = newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Metrics.ListenAddr = "127.0.0.1:0"
		c.Limits.RatePerSec, c.Limits.Burst = 1, 40
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
			{ID: "no-secrets", AgentID: "*", ScopeType: "folder", ScopePattern: "acme/webapp/secrets/**", Permission: "none"},
		}}
		c.Tasks = map[string]config.TaskType{"branch": {
			Command: []string{"git", "rev-parse", "--abbrev-ref", "HEAD"}, Context: "acme/webapp",
			Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: true},
		}}
	})
	pm = newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	if _, err := pm.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "metrics endpoint", func() bool { return eng.MetricsAddr() != "" })
	return eng, pm
}

// scrape fetches and parses a's /metrics with the Prometheus text parser,
// with the bearer token from a's data dir.
func scrape(t *testing.T, a *testAgent) map[string]*dto.MetricFamily {
	t.Helper()
	token, err := os.ReadFile(agent.MetricsTokenPath(a.Dir))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := getMetrics(a.MetricsAddr(), "Bearer "+string(token))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// value returns the sample of fam whose labels include want (counter,
// gauge, or a histogram's count), and whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	fam := fams[name]
	if fam == nil {
		return 0, false
	}
	for _, m := range fam.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && labels[k] == v
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

func TestMetricsAfterQueriesDenialsApprovalsAndRateLimits(t *testing.T) {
	eng, pm := metricsAgents(t)
	ctx := context.Background()
	for range 2 {
		if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "auth progress?", ContextScope: []string{"acme/webapp"}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "keys?", ContextScope: []string{"acme/webapp/secrets/prod.env"}})
	asRPC(t, err, rpc.CodePermissionDenied)

	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"})
	if err != nil {
		t.Fatal(err)
	}
	pending := onePending(t, eng)
	before := scrape(t, eng)
	if v, _ := value(before, "aoi_approvals", map[string]string{"state": "pending"}); v != 1 {
		t.Fatalf("aoi_approvals{state=pending} = %v before approving, want 1", v)
	}
	if err := eng.Approve(ctx, agent.ApproveRequest{ID: pending.ID}); err != nil {
		t.Fatal(err)
	}
	waitMessage(t, pm, ticket.RequestID)
	limited := floodPings(t, pm, eng)

	fams := scrape(t, eng)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"aoi_rpc_requests_total", map[string]string{"method": wire.MethodQuery, "code": "ok"}, 2},
		{"aoi_rpc_requests_total", map[string]string{"method": wire.MethodQuery, "code": "PERMISSION_DENIED"}, 1},
		{"aoi_rpc_requests_total", map[string]string{"method": wire.MethodTaskExecute, "code": "ok"}, 1},
		{"aoi_rpc_request_duration_seconds", map[string]string{"method": wire.MethodQuery}, 3},
		{"aoi_acl_decisions_total", map[string]string{"decision": "allow"}, 3},
		{"aoi_acl_decisions_total", map[string]string{"decision": "deny"}, 1},
		{"aoi_rate_limited_total", nil, float64(limited)},
		{"aoi_approvals", map[string]string{"state": "pending"}, 0},
		{"aoi_approvals_decided_total", map[string]string{"decision": "approved"}, 1},
		{"aoi_approvals_decided_total", map[string]string{"decision": "rejected"}, 0},
		{"aoi_tasks", map[string]string{"state": agent.TaskCompleted}, 1},
		{"aoi_peers_online", nil, 1},
		{"aoi_outbox_depth", nil, 0},
	} {
		got, found := value(fams, c.name, c.labels)
		if !found || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, got, found, c.want)
		}
	}
	for _, name := range []string{"aoi_outbox_oldest_age_seconds", "aoi_context_events", "aoi_context_ingested_total", "go_goroutines"} {
		if _, found := value(fams, name, nil); !found {
			t.Errorf("series %s missing", name)
		}
	}
	checkRequestLog(t, eng)
	if fams["aoi_rpc_requests_total"].GetType() != dto.MetricType_COUNTER || fams["aoi_rpc_request_duration_seconds"].GetType() != dto.MetricType_HISTOGRAM {
		t.Error("metric types are wrong")
	}
}

// floodPings sends pings from pm until eng's rate limiter refuses some
// (rate 1/s, burst 40), and returns how many were refused.
func floodPings(t *testing.T, from, to *testAgent) int {
	t.Helper()
	client := rawClient(t, from, to)
	limited := 0
	for i := 0; i < 100 && limited < 3; i++ {
		err := client.Call(context.Background(), wire.MethodPing, wire.PingParams{From: from.ID, AOIVersion: wire.ProtocolVersion}, new(json.RawMessage))
		var re *rpc.Error
		if errors.As(err, &re) && re.Code == rpc.CodeRateLimit {
			limited++
		} else if err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
	}
	if limited == 0 {
		t.Fatal("100 pings at a 1/s limit were never refused")
	}
	return limited
}

// checkRequestLog finds seed 002 §7.2's line for a query in eng's log
// file. Info lines reach the file within logging.DefaultFlushEvery, so it
// waits for the line.
func checkRequestLog(t *testing.T, eng *testAgent) {
	t.Helper()
	var b []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if b, err = os.ReadFile(filepath.Join(eng.Dir, "aoi.log")); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"method":"`+wire.MethodQuery+`"`)) {
			break
		}
	}
	for _, raw := range bytes.Split(b, []byte("\n")) {
		var line map[string]any
		if json.Unmarshal(raw, &line) != nil || line["method"] != wire.MethodQuery {
			continue
		}
		if line["component"] != "rpc" || line["agent_from"] != "pm-tanaka" || line["agent_to"] != "eng-suzuki" ||
			line["query_id"] == "" || line["latency_ms"] == nil || line["level"] == nil || line["timestamp"] == nil {
			t.Fatalf("request log line lacks seed fields: %s", raw)
		}
		return
	}
	t.Fatalf("no aoi.query line in the log:\n%s", b)
}

package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// A trusted-but-hostile peer calling as fast as its rate limit lets it
// grew the audit log (and the database) without bound: every call is a
// row. limits.daily_calls_per_peer bounds its calls a UTC day (read again
// on reload); past it
// each call is refused as rate limited, saying when calls are taken
// again, and the refusals are one counted row, so the log stops growing
// and its chain still verifies. Another peer is not affected.
func TestPeerPastItsDailyCallsIsRefusedAndStopsGrowingTheAuditLog(t *testing.T) {
	const budget = 20
	eng, hostile := budgetedPair(t, budget)
	other := newTestAgent(t, "pm-sato", "pm", nil)
	pair(eng, other)
	ctx := context.Background()
	client := rawClient(t, hostile, eng)
	ping := func(c *rpc.Client) error {
		var res wire.PingResult
		return c.Call(ctx, wire.MethodPing, wire.PingParams{From: "pm-tanaka"}, &res)
	}
	rowsBefore := auditRowCount(t, eng, "pm-tanaka")
	for i := range budget {
		if err := ping(client); err != nil {
			t.Fatalf("call %d of %d: %v", i+1, budget, err)
		}
	}
	// Each refusal is held up to a second (a peer ignoring Retry-After
	// gets one a wait): a few show the log stays put.
	const refused = 4
	for i := range refused {
		err := ping(client)
		re := asRPC(t, err, rpc.CodeRateLimit)
		if reason := re.Error(); !strings.Contains(reason, "20 calls today") || !strings.Contains(reason, "00:00 UTC") {
			t.Fatalf("refusal %d says %q; want the day's budget and when it ends", i, reason)
		}
	}
	grown := auditRowCount(t, eng, "pm-tanaka") - rowsBefore
	if grown != budget+1 {
		t.Errorf("the audit log grew %d rows for %d calls and %d refusals; want %d (the calls, then one row for the refusals)", grown, budget, refused, budget+1)
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Errorf("audit verify = %+v, %v", v, err)
	}
	var res wire.PingResult
	if err := rawClient(t, other, eng).Call(ctx, wire.MethodPing, wire.PingParams{From: "pm-sato"}, &res); err != nil {
		t.Errorf("another peer is refused too: %v", err)
	}
	// A reload that raises the budget lets the peer in again today.
	eng.EditConfig(func(c *config.Config) { c.Limits.DailyCallsPerPeer = budget + 10 })
	if _, err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ping(client); err != nil {
		t.Errorf("after the reload raised the budget: %v", err)
	}
}

func auditRowCount(t *testing.T, a *testAgent, peer string) int {
	t.Helper()
	rows, err := a.Audit(context.Background(), agent.AuditFilter{Agent: peer, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// The budget was kept in memory only: a restart gave every peer a whole
// day's calls again, so a peer past its budget had only to wait for the
// owner's next restart (or an upgrade). At start the peer server now
// counts each peer's calls of today from the audit log (the database file
// the restarted agent opens) and goes on from there.
func TestDailyCallBudgetSurvivesARestart(t *testing.T) {
	const budget = 12
	eng, hostile := budgetedPair(t, budget)
	ctx := context.Background()
	ping := func(c *rpc.Client) error {
		var res wire.PingResult
		return c.Call(ctx, wire.MethodPing, wire.PingParams{From: "pm-tanaka"}, &res)
	}
	client := rawClient(t, hostile, eng)
	const before = 8
	for i := range before {
		if err := ping(client); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	eng.Restart(nil)
	client = rawClient(t, hostile, eng)
	for i := before; i < budget; i++ {
		if err := ping(client); err != nil {
			t.Fatalf("call %d of %d, after the restart: %v", i+1, budget, err)
		}
	}
	re := asRPC(t, ping(client), rpc.CodeRateLimit)
	if !strings.Contains(re.Error(), "12 calls today") {
		t.Fatalf("the call past the budget after a restart: %v; want the day's budget spent", re)
	}
	// Refusals do not count as calls: a second restart still lets none in,
	// and no more than none.
	eng.Restart(nil)
	asRPC(t, ping(rawClient(t, hostile, eng)), rpc.CodeRateLimit)
}

// The budget counted only requests whose method was read: a peer sending
// bodies that are not JSON, JSON-RPC of another version, or GETs was
// refused with a row each in the audit log and never ran out of calls,
// so it grew the log as if there were no budget (the attack pass: after
// 22 such requests in a budget of 10, its ping still got in). Every
// request of an admitted peer is a call of its day now, and what a
// restart counts again.
func TestDailyCallBudgetCountsMalformedRequests(t *testing.T) {
	const budget = 10
	eng, hostile := budgetedPair(t, budget)
	ctx := context.Background()
	hc := pmTransport(t, hostile).HTTPClient(eng.Fingerprint())
	url := "https://" + eng.Addr() + "/aoi/v1/rpc"
	rowsBefore := auditRowCount(t, eng, "pm-tanaka")
	// Six of them, then a restart: four calls are left of the day.
	bad := []string{`{`, `{"jsonrpc":"1.0","id":1,"method":"aoi.ping"}`, `[]`}
	for i := range 6 {
		post(t, hc, url, bad[i%len(bad)])
	}
	eng.Restart(nil)
	hc = pmTransport(t, hostile).HTTPClient(eng.Fingerprint())
	url = "https://" + eng.Addr() + "/aoi/v1/rpc"
	for i := range 4 {
		post(t, hc, url, bad[i%len(bad)])
	}
	// Past the budget, neither these nor a GET nor a ping adds a row each.
	for i := range 6 {
		post(t, hc, url, bad[i%len(bad)])
		resp, err := hc.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	var res wire.PingResult
	err := rawClient(t, hostile, eng).Call(ctx, wire.MethodPing, wire.PingParams{From: "pm-tanaka"}, &res)
	if re := asRPC(t, err, rpc.CodeRateLimit); !strings.Contains(re.Error(), "10 calls today") {
		t.Fatalf("a ping after %d malformed requests: %v; want the day's budget spent", budget, re)
	}
	if grown := auditRowCount(t, eng, "pm-tanaka") - rowsBefore; grown > budget+2 {
		t.Errorf("the audit log grew %d rows for %d malformed requests in a budget of %d", grown, 22, budget)
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Errorf("audit verify = %+v, %v", v, err)
	}
}

// budgetedPair is eng-suzuki allowing each peer budget calls a day (at a
// rate that never limits them), paired with pm-tanaka.
func budgetedPair(t *testing.T, budget int) (eng, pm *agenttest.Agent) {
	t.Helper()
	eng = newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Limits.DailyCallsPerPeer = budget
		c.Limits.RatePerSec, c.Limits.Burst = 1000, 1000
	})
	pm = newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	return eng, pm
}

package tailnete2e

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"github.com/aoi-protocol/aoi/rpc/tailnet/tailnettest"
)

// TestUnboundNodeHasADailyBudget: a tailnet node that has not announced
// an agent id is let through to the handlers (its announce must be read),
// and each of its calls is an audit row, but the daily budget counted only
// callers with an agent id: such a node, calling as fast as its rate let
// it, grew the audit log without the budget's bound (the attack pass: 16
// refused pings in a budget of 10, 16 rows). Its calls are counted under
// its node now, and past the budget refused as one counted row.
func TestUnboundNodeHasADailyBudget(t *testing.T) {
	const budget = 10
	tn := tailnettest.Start(t)
	eng := newNode(t, tn, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Limits.DailyCallsPerPeer = budget
		c.Limits.RatePerSec, c.Limits.Burst = 1000, 1000
	})
	mallory := tn.NewNode(t, tailnet.Hostname("mallory"))
	tailnettest.AwaitMesh(t, eng.tr, mallory)
	ctx := context.Background()
	st, err := eng.tr.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := mallory.EndpointURL(net.JoinHostPort(st.Addresses[0], strconv.Itoa(eng.tr.Port())))
	client := rpc.NewClient(url, mallory.HTTPClient(""), rpc.ClientOptions{Timeout: 10 * time.Second, MaxAttempts: 1})
	count := func() int {
		rows, err := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	before := count()
	const calls = budget + 6
	limited := 0
	for range calls {
		err := client.Call(ctx, wire.MethodPing, wire.PingParams{From: "mallory"}, nil)
		var re *rpc.Error
		if errors.As(err, &re) && re.Code == rpc.CodeRateLimit {
			limited++
		}
	}
	if limited < calls-budget {
		t.Errorf("%d of %d calls from an unbound node refused for the day's budget of %d; want %d", limited, calls, budget, calls-budget)
	}
	if grown := count() - before; grown > budget+1 {
		t.Errorf("the audit log grew %d rows for %d calls of an unbound node (budget %d)", grown, calls, budget)
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Errorf("audit verify = %+v, %v", v, err)
	}
}

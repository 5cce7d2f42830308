package agent_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestStrangersDoNotFloodTheAudit: pings from 200 unpinned certificates,
// a fresh one each time (the attack run's case), all refused; the audit log
// gains a counted summary per source, not a row per request, and the chain
// still verifies.
func TestStrangersDoNotFloodTheAudit(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	before, err := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	const pings = 200
	refused := 0
	for i := 0; i < pings; i++ {
		id, _, err := rpc.LoadOrCreateIdentity(filepath.Join(t.TempDir(), strconv.Itoa(i)), "stranger")
		if err != nil {
			t.Fatal(err)
		}
		tr := rpc.NewDirectTransport(id, "127.0.0.1:0")
		c := rpc.NewClient("https://"+eng.Addr()+rpc.Path, tr.HTTPClient(eng.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
		if err := c.Call(ctx, wire.MethodPing, map[string]any{}, nil); err != nil {
			refused++
		}
		tr.Close()
	}
	if refused != pings {
		t.Fatalf("%d of %d stranger pings refused", refused, pings)
	}
	after, err := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if added := len(after) - len(before); added > 3 {
		t.Fatalf("%d pings from strangers added %d audit rows, want a counted summary", pings, added)
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit chain: %+v %v", v, err)
	}
}

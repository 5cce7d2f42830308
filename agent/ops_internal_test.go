package agent

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// stepClock is a clock the test moves by hand.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *stepClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestPruneByConfigUsesEachRetentionPeriod(t *testing.T) {
	dir := t.TempDir()
	res, err := Init(InitOptions{DataDir: dir, AgentID: "eng-suzuki", Role: "engineer", ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := config.Load(res.ConfigPath)
	cfg.Retention.AuditDays, cfg.Retention.TasksDays = 365, 30
	if err := config.Write(res.ConfigPath, cfg); err != nil {
		t.Fatal(err)
	}
	clock := &stepClock{t: time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)}
	c, err := Open(context.Background(), Options{DataDir: dir, ConfigPath: res.ConfigPath, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	err = c.db.Write(ctx, func(tx *store.Tx) error {
		if err := tx.InsertTask(store.TaskRecord{ID: "t-old", Requester: "pm", TaskType: "x", State: TaskCompleted}); err != nil {
			return err
		}
		_, err := tx.AppendAudit("pm", "aoi.query", "ok", nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	clock.add(40 * 24 * time.Hour) // past tasks_days, within audit_days
	rep, err := c.ops.PruneByConfig(ctx)
	if err != nil || rep.Tasks != 1 || rep.AuditRows != 0 {
		t.Fatalf("after 40 days: %+v, %v; want the task pruned and the audit rows kept", rep, err)
	}
	clock.add(400 * 24 * time.Hour)
	if rep, err = c.ops.PruneByConfig(ctx); err != nil || rep.AuditRows == 0 {
		t.Fatalf("after 440 days: %+v, %v; want old audit rows pruned", rep, err)
	}
	if v, err := c.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("verify = %+v, %v", v, err)
	}
}

package agent

import (
	"context"
	"strconv"
	"time"
)

// auditWatchEvery is how often the core looks for new audit rows to tell
// front ends about (the Audit pane follows the log live).
const auditWatchEvery = time.Second

// auditWatchLoop publishes EventAudit when committed audit rows were added.
// It polls the head of the chain instead of hooking the store's writer:
// rows are appended from many transactions, an event must only follow a
// commit, and one indexed read a second keeps the writer's hot path free.
func (c *Core) auditWatchLoop(ctx context.Context) {
	last, _ := c.db.AuditHeadSeq(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.clock.After(auditWatchEvery):
		}
		head, err := c.db.AuditHeadSeq(ctx)
		if err != nil || head == last {
			continue
		}
		c.events.Publish(EventAudit, strconv.FormatInt(head, 10), "", strconv.FormatInt(head-last, 10)+" new audit rows")
		last = head
	}
}

package agent

import (
	"context"
	"fmt"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/mcpbridge"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// openTasks builds the task engine, recovers what a crash left behind and
// runs its loop while the core serves.
func (c *Core) openTasks(ctx context.Context, cfg *config.Config) error {
	c.tasks = &task.Engine{
		Store:   c.db,
		Runner:  task.NewRunner(cfg.Limits.MaxConcurrentTasks, task.RunnerOptions{}),
		DataDir: c.dataDir,
		Config:  c.config,
		Notify:  c.notifyRequester,
		Redact:  c.redactOut,
		Publish: c.publishTaskEvent,
		Log:     c.log.With("component", "tasks"),
		Clock:   c.clock,
	}
	c.tasks.FolderDenies = c.folderDenies
	c.tasks.Kept = c.keptFrom
	c.tasks.Trusted = c.stillTrusted
	if err := c.openWorkAI(cfg); err != nil {
		return err
	}
	if err := c.tasks.Recover(ctx); err != nil {
		return fmt.Errorf("recover tasks after restart: %w", err)
	}
	// A peer taken out of peers[] while aoi was stopped.
	if err := c.cancelUntrusted(ctx); err != nil {
		return err
	}
	c.ext.onStart(func(ctx context.Context) {
		c.tasks.Start(ctx)
		<-ctx.Done()
		c.tasks.Stop()
	})
	return nil
}

// folderDenies is the task engine's second look at a path parameter where
// it really leads in the task's directory: a rule that names that place,
// or a folder under it, and keeps the requester (with the role the owner
// gave it) out is why the run stops. default_permission is left to the
// check at the request, which saw everything the caller presented
// (tailnet user and tags too).
func (c *Core) folderDenies(requester, scope string) string {
	d, at := c.policy.Load().CheckBeneath(c.requesterSubject(requester), acl.Execute, scope)
	if d.Allowed || d.RuleID == "" {
		return ""
	}
	// The requester reads why its task failed: the rule's id is not
	// for it (acl.Decision.Told).
	if at != scope {
		return "it holds " + at + ": " + d.Told
	}
	return d.Told
}

// keptFrom returns whether a folder rule keeps requester from a place
// itself (Check, where folderDenies also looks under it).
func (c *Core) keptFrom(requester string) func(place string) bool {
	p, s := c.policy.Load(), c.requesterSubject(requester)
	return func(place string) bool { return !p.Check(s, acl.Execute, place).Allowed }
}

// requesterSubject is a task requester as the ACL sees them, with the
// role the owner gave them.
func (c *Core) requesterSubject(requester string) acl.Subject {
	role := ""
	if rec, ok, err := c.db.Peer(context.Background(), requester); err == nil && ok {
		role = rec.Role
	}
	return acl.Subject{AgentID: requester, Role: role}
}

// stillTrusted reports whether agentID is a pinned peer now: the task
// engine cancels, instead of approving, a request from one the owner has
// stopped trusting since it asked.
func (c *Core) stillTrusted(agentID string) bool {
	rec, ok, err := c.db.Peer(context.Background(), agentID)
	return err == nil && ok && rec.Trust == peers.Pinned
}

// cancelUntrusted cancels the waiting requests of peers the owner no
// longer trusts, declines their questions still waiting and drops what
// waits in the outbox for them (either would go to whoever is trusted
// under the id next), and says so in the log.
func (c *Core) cancelUntrusted(ctx context.Context) error {
	n, err := c.tasks.CancelUntrusted(ctx)
	if err != nil {
		return fmt.Errorf("cancel the requests of peers no longer trusted: %w", err)
	}
	asked, err := c.inbox.DropWhere(ctx, func(from string) bool { return !c.stillTrusted(from) },
		func(from string) string { return from + " is no longer trusted here" })
	if err != nil {
		return fmt.Errorf("decline the questions of peers no longer trusted: %w", err)
	}
	// What waits to be sent to them goes too: trusted again under
	// another certificate, the id would receive it.
	to, err := c.db.OutboxRecipients(ctx)
	if err != nil {
		return err
	}
	for _, id := range to {
		if c.stillTrusted(id) {
			continue
		}
		dropped, err := c.dropOutboxFor(ctx, id)
		if err != nil {
			return fmt.Errorf("drop what waited to be sent to %s: %w", id, err)
		}
		asked += dropped
	}
	if n += asked; n > 0 {
		c.log.Info("requests of peers no longer trusted canceled", "component", "tasks", "count", n)
	}
	return nil
}

// openWorkAI connects mcp_tool tasks to the work AI's MCP server named in
// the config. Only tools that a configured task names may be called: a peer
// picks a task type, never a tool or a server.
func (c *Core) openWorkAI(cfg *config.Config) error {
	ep := cfg.Secretary.WorkAI.MCPEndpoint
	if ep == "" {
		return nil
	}
	// The server runs tools with a peer's parameters, as the owner: marked,
	// it and what it starts are refused on the control socket like a
	// task's command (task.StartedByTask).
	br, err := mcpbridge.New(ep, mcpbridge.Options{Logger: c.log.With("component", "mcp"), AllowTool: c.taskNamesTool,
		Env: []string{task.TaskServerMark}})
	if err != nil {
		return fmt.Errorf("secretary.work_ai.mcp_endpoint: %w", err)
	}
	c.ext.onClose(func() { br.Close() })
	c.tasks.MCP = func(ctx context.Context, tool string, args map[string]any, p map[string]string) (string, bool, error) {
		r, err := br.RunTool(ctx, tool, args, p)
		return r.Text, r.IsError, err
	}
	return nil
}

// taskNamesTool reports whether a configured task runs the MCP tool.
func (c *Core) taskNamesTool(name string) bool {
	for _, tt := range c.config().Tasks {
		if tt.MCPTool == name {
			return true
		}
	}
	return false
}

// notifyRequester queues a task result for its requester in the outbox.
func (c *Core) notifyRequester(ctx context.Context, requester, event, relatedID string, data any) error {
	err := c.db.Write(ctx, func(tx *store.Tx) error { return c.enqueueNotify(tx, requester, event, relatedID, data) })
	if err == nil {
		c.outbox.Wake()
		c.mirrorTaskResult(ctx, data)
	}
	return err
}

// publishTaskEvent forwards engine events; a new approval rings the owner.
func (c *Core) publishTaskEvent(kind, id, agentID, summary string) {
	c.events.Publish(kind, id, agentID, summary)
	if kind == EventApprovalRequested {
		c.events.Publish(EventAttention, id, agentID, summary)
	}
}

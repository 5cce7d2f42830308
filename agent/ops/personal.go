package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// agentIDPattern is config's agent id rule (config/aoi.schema.json).
var agentIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// AgentExport is everything this agent stores about one other agent.
type AgentExport struct {
	AgentID    string                      `json:"agent_id"`
	ExportedBy string                      `json:"exported_by"`
	ExportedAt string                      `json:"exported_at"`
	Tables     map[string][]map[string]any `json:"tables"`
	Truncated  []string                    `json:"truncated,omitempty"`
}

// ForgetReport says what Forget removed, and what it could not.
type ForgetReport struct {
	AgentID       string           `json:"agent_id"`
	Deleted       map[string]int64 `json:"deleted"`
	Scrubbed      map[string]int64 `json:"scrubbed"`
	AuditRedacted int64            `json:"audit_redacted"`
	AuditEventSeq int64            `json:"audit_event_seq"`
	Warnings      []string         `json:"warnings,omitempty"`
}

// Export returns, as JSON, every stored row that names agentID: its
// registry entry, queries from it and asks to it, messages, outbox entries,
// tasks and approvals it requested, context events and audit rows.
func (o *Ops) Export(ctx context.Context, agentID string) (json.RawMessage, error) {
	if err := checkSubject(agentID, ""); err != nil {
		return nil, err
	}
	exp, err := o.DB.ExportAgent(ctx, agentID)
	if err != nil {
		return nil, err
	}
	out := AgentExport{AgentID: agentID, ExportedBy: o.Self(), ExportedAt: o.Now().UTC().Format("2006-01-02T15:04:05Z"),
		Tables: exp.Tables, Truncated: exp.Truncated}
	err = o.DB.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit("owner", "ctl.export", "ok", map[string]any{"tables": len(exp.Tables)})
		return err
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// Forget deletes everything stored about agentID. Audit rows that name it
// are redacted in place (the chain still verifies, see store/ops_redact.go)
// and an agent.forgotten row records the deletion. The database file is
// then compacted so no deleted copy remains on disk.
func (o *Ops) Forget(ctx context.Context, agentID string) (ForgetReport, error) {
	if err := checkSubject(agentID, o.Self()); err != nil {
		return ForgetReport{}, err
	}
	sr, err := o.DB.ForgetAgent(ctx, agentID, "owner")
	if err != nil {
		return ForgetReport{}, err
	}
	rep := ForgetReport{AgentID: agentID, Deleted: sr.Deleted, Scrubbed: sr.Scrubbed,
		AuditRedacted: sr.AuditRedacted, AuditEventSeq: sr.AnchorSeq}
	o.RemoveTaskDirs(sr.TaskIDs)
	if o.Forgotten != nil {
		o.Forgotten(agentID)
	}
	if err := o.DB.Compact(ctx); err != nil {
		rep.Warnings = append(rep.Warnings, "the database was not compacted, so deleted bytes may remain in free pages until the next forget: "+err.Error())
	}
	rep.Warnings = append(rep.Warnings, o.configMentions(agentID)...)
	rep.Warnings = append(rep.Warnings, "log files in "+o.DataDir+" written before now may still name "+agentID+"; they rotate away (logging.max_backups) or can be deleted")
	if o.Publish != nil {
		o.Publish(events.PeerChanged, agentID, "", "forgotten")
	}
	o.Log.Info("agent forgotten", "component", "privacy", "audit_redacted", rep.AuditRedacted)
	return rep, nil
}

// checkSubject refuses ids that are not agent ids, and names aoi itself
// uses in the audit log.
func checkSubject(agentID, self string) error {
	switch {
	case !agentIDPattern.MatchString(agentID):
		return errs.Invalid("%q is not an agent id (lower-case letters, digits, '.', '_' or '-'); check the spelling with `aoi peers`", agentID)
	case agentID == "owner" || agentID == "system":
		return errs.Invalid("%q names aoi's own records in the audit log, not an agent", agentID)
	case self != "" && agentID == self:
		return errs.Invalid("%s is this agent; to remove all of its data, stop aoi and delete its data dir", agentID)
	}
	return nil
}

// configMentions warns where the config still names a forgotten agent,
// which would bring it back at the next start.
func (o *Ops) configMentions(agentID string) []string {
	cfg := o.Config()
	var w []string
	if slices.ContainsFunc(cfg.Peers, func(p config.Peer) bool { return p.AgentID == agentID }) {
		w = append(w, fmt.Sprintf("%s is still in peers[] of %s; remove it there or it is pinned again at the next start", agentID, o.ConfigPath))
	}
	for _, r := range cfg.ACL.Rules {
		if r.AgentID == agentID {
			w = append(w, fmt.Sprintf("ACL rule %q in %s still names %s", r.ID, o.ConfigPath, agentID))
		}
	}
	return w
}

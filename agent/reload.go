package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// EventConfigReloaded is published after a reload; Summary is the report.
const EventConfigReloaded = "config.reloaded"

// Reload re-reads the config file and applies it. A file that does not
// validate is refused with the validation error and the running config
// stays in force; the refusal is audited (result "error", with the reason)
// like a reload that took effect.
func (c *Core) Reload(ctx context.Context) (ReloadReport, error) {
	c.reloadMu.Lock()
	defer c.reloadMu.Unlock()
	rep, applied, err := c.reload(ctx)
	if err != nil && !applied {
		c.log.Warn("config not reloaded", "component", "core", "path", c.cfgPath, "error", err)
		if aerr := c.db.Write(ctx, func(tx *store.Tx) error {
			_, werr := tx.AppendAudit("owner", "ctl.reload", "error", map[string]any{"path": c.cfgPath, "error": err.Error()})
			return werr
		}); aerr != nil {
			c.log.Error("audit of a refused reload failed", "component", "core", "error", aerr)
		}
	}
	if c.opts.OnReload != nil {
		c.opts.OnReload(rep, err)
	}
	return rep, err
}

// reload is Reload under reloadMu; applied says whether the new config
// took effect (an error after that is the audit write's).
func (c *Core) reload(ctx context.Context) (rep ReloadReport, applied bool, err error) {
	rep = ReloadReport{Path: c.cfgPath, Changes: []string{}}
	if err := checkOwnership(c.dataDir, c.cfgPath); err != nil {
		return rep, false, fmt.Errorf("config not reloaded, the running one stays: %w", err)
	}
	cfg, err := config.Load(c.cfgPath)
	if err != nil {
		return rep, false, fmt.Errorf("config not reloaded, the running one stays: %w", err)
	}
	old := c.config()
	if cfg.Agent.ID != old.Agent.ID {
		return rep, false, fmt.Errorf("config not reloaded: agent.id changed from %s to %s; restart aoi to change identity", old.Agent.ID, cfg.Agent.ID)
	}
	rep.Changes, rep.Restart = configChanges(old, cfg)
	replaced, err := c.peers.Seed(ctx, cfg)
	if err != nil {
		return rep, false, fmt.Errorf("config not reloaded, the running one stays: %w", err)
	}
	c.applyConfig(cfg)
	c.ext.reload(cfg)
	if err := c.cancelUntrusted(ctx); err != nil {
		c.log.Warn("reload: the requests of peers no longer trusted stay listed", "component", "core", "err", err)
	}
	for _, id := range replaced {
		if err := c.endOldCertificate(ctx, id); err != nil {
			c.log.Warn("reload: what was asked under a replaced certificate stays", "component", "core", "agent", id, "err", err)
		}
	}
	c.log.Info("config reloaded", "component", "core", "path", c.cfgPath, "changes", rep.Changes, "restart", rep.Restart)
	err = c.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit("owner", "ctl.reload", "ok", map[string]any{"path": c.cfgPath, "changes": rep.Changes, "restart": rep.Restart})
		return err
	})
	c.events.Publish(EventConfigReloaded, "", "", rep.String())
	if len(rep.Changes) > 0 {
		c.announceSoon() // task types and contexts peers may use
	}
	return rep, true, err
}

// restartOnly are config paths read once at start.
var restartOnly = []string{
	"network.listen_addr", "network.tailscale", "network.max_body_bytes",
	"metrics.listen_addr", "secretary.work_ai.mcp_endpoint",
	"limits.max_concurrent_tasks", "logging.max_size_mb", "logging.max_backups",
}

// configChanges lists what differs between two configs: collections as
// counts and names, other settings as "path old → new".
func configChanges(old, cfg *config.Config) (changes, restart []string) {
	changes = append([]string{}, collectionChanges(old, cfg)...)
	if !reflect.DeepEqual(old.Secretary.Redaction, cfg.Secretary.Redaction) { // the redactor is built once
		restart = append(restart, fmt.Sprintf("redaction: %d patterns → %d", len(old.Secretary.Redaction.Patterns), len(cfg.Secretary.Redaction.Patterns)))
	}
	a, b := flatten(old), flatten(cfg)
	for _, path := range sortedUnion(a, b) {
		if reflect.DeepEqual(a[path], b[path]) {
			continue
		}
		line := path + " changed"
		if !secretPath(path) {
			line = fmt.Sprintf("%s %s → %s", path, shown(a[path]), shown(b[path]))
		}
		if slices.ContainsFunc(restartOnly, func(p string) bool { return path == p || strings.HasPrefix(path, p+".") }) {
			restart = append(restart, line)
			continue
		}
		changes = append(changes, line)
	}
	return changes, restart
}

// collectionChanges summarises the lists and maps a person edits by entry.
func collectionChanges(old, cfg *config.Config) []string {
	var out []string
	if !reflect.DeepEqual(old.ACL.Rules, cfg.ACL.Rules) {
		out = append(out, aclChange(old.ACL.Rules, cfg.ACL.Rules))
	}
	out = appendDiff(out, "tasks", slices.Sorted(maps.Keys(old.Tasks)), slices.Sorted(maps.Keys(cfg.Tasks)), func(k string) bool {
		return reflect.DeepEqual(old.Tasks[k], cfg.Tasks[k])
	})
	ctxID := func(x config.Context) string { return x.Identifier }
	out = appendDiff(out, "contexts", ids(old.Contexts, ctxID), ids(cfg.Contexts, ctxID), nil)
	peerID := func(p config.Peer) string { return p.AgentID }
	out = appendDiff(out, "peers", ids(old.Peers, peerID), ids(cfg.Peers, peerID), func(k string) bool {
		return peerNamed(old.Peers, k) == peerNamed(cfg.Peers, k) // a new fingerprint or role is a change
	})
	if !reflect.DeepEqual(old.UI.Keys, cfg.UI.Keys) {
		out = append(out, "ui.keys changed")
	}
	return out
}

// aclChange summarises an edit of the ACL rules: how many there are, and
// by id which were added (+), removed (-) and changed (~), and whether the
// order changed, since the first rule that matches decides: "acl: 3 rules
// → 3 (reordered)".
func aclChange(old, cur []config.Rule) string {
	ruleID := func(r config.Rule) string { return cmp.Or(r.ID, `""`) }
	a, b := ids(old, ruleID), ids(cur, ruleID)
	var parts []string
	if d := appendDiff(nil, "", a, b, func(k string) bool {
		return reflect.DeepEqual(old[slices.Index(a, k)], cur[slices.Index(b, k)])
	}); len(d) > 0 {
		parts = append(parts, strings.TrimPrefix(d[0], ": "))
	}
	kept := func(xs, other []string) []string {
		return slices.DeleteFunc(slices.Clone(xs), func(k string) bool { return !slices.Contains(other, k) })
	}
	if !slices.Equal(kept(a, b), kept(b, a)) {
		parts = append(parts, "reordered")
	}
	s := fmt.Sprintf("acl: %s → %d", plural(len(old), "rule"), len(cur))
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// plural is "1 rule" or "3 rules".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// peerNamed is the config's entry for agentID (zero when none).
func peerNamed(peers []config.Peer, agentID string) config.Peer {
	for _, p := range peers {
		if p.AgentID == agentID {
			return p
		}
	}
	return config.Peer{}
}

// appendDiff adds "name: +added -removed ~changed" when the sets differ.
// same reports whether an entry present in both is unchanged (nil: always).
func appendDiff(out []string, name string, old, cur []string, same func(string) bool) []string {
	var parts []string
	for _, k := range cur {
		switch {
		case !slices.Contains(old, k):
			parts = append(parts, "+"+k)
		case same != nil && !same(k):
			parts = append(parts, "~"+k)
		}
	}
	for _, k := range old {
		if !slices.Contains(cur, k) {
			parts = append(parts, "-"+k)
		}
	}
	if len(parts) == 0 {
		return out
	}
	return append(out, name+": "+strings.Join(parts, " "))
}

func ids[T any](xs []T, id func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, id(x))
	}
	return out
}

// summarised are the config paths collectionChanges reports.
var summarised = []string{"acl.rules", "tasks", "contexts", "peers", "secretary.redaction", "ui.keys"}

// flatten maps each scalar setting's dotted JSON path to its value,
// leaving out the summarised collections.
func flatten(cfg *config.Config) map[string]any {
	raw, _ := json.Marshal(cfg)
	var tree map[string]any
	_ = json.Unmarshal(raw, &tree)
	out := map[string]any{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if slices.Contains(summarised, prefix) {
			return
		}
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				walk(strings.TrimPrefix(prefix+"."+k, "."), x)
			}
			return
		}
		out[prefix] = v
	}
	walk("", tree)
	return out
}

func sortedUnion(a, b map[string]any) []string {
	all := maps.Clone(a)
	maps.Copy(all, b)
	return slices.Sorted(maps.Keys(all))
}

// secretPath reports whether a setting holds a credential, whose values
// the report must not show.
func secretPath(path string) bool {
	last := path[strings.LastIndex(path, ".")+1:]
	return slices.ContainsFunc([]string{"key", "token", "secret", "password"}, func(s string) bool {
		return strings.Contains(last, s)
	})
}

// shown renders a value for the report.
func shown(v any) string {
	if v == nil {
		return "(unset)"
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

package agent

import (
	"strings"

	"github.com/aoi-protocol/aoi/agent/secretary"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/config"
)

// resolveScope rewrites each context_scope entry that names a path inside a
// context with a local checkout to where that path really leads, symlinks
// resolved, so the ACL judges the real file: a committed symlink
// src/link → secrets/ is checked as secrets/, and one that leaves the
// checkout is refused. The second result is the entry that escaped ("" if
// none).
func resolveScope(cfg *config.Config, scope []string) ([]string, string) {
	out := make([]string, len(scope))
	for i, entry := range scope {
		out[i] = entry
		for _, ctx := range cfg.Contexts {
			rest, ok := strings.CutPrefix(entry, ctx.Identifier+"/")
			if !ok || ctx.LocalPath == "" || rest == "" {
				continue
			}
			rel, err := task.ResolveInside(secretary.ExpandHome(ctx.LocalPath), rest)
			if err != nil {
				return nil, entry
			}
			out[i] = ctx.Identifier + "/" + rel
			break
		}
	}
	return out, ""
}

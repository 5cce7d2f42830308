package aoi_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection keeps the package boundaries of docs/architecture.md:
// the core never imports the interface, the store none of ours, and only the
// tailnet transport and the binary link tsnet.
func TestImportDirection(t *testing.T) {
	const mod = "github.com/aoi-protocol/aoi/"
	forbidden := map[string][]string{
		mod + "store":  {mod, "charm.land/", "tailscale.com/"},
		mod + "rpc":    {mod + "agent", mod + "store", mod + "tui", "charm.land/", "tailscale.com/"},
		mod + "agent":  {mod + "tui", "charm.land/", "tailscale.com/"},
		mod + "config": {mod + "agent", mod + "store", mod + "rpc", mod + "tui"},
		mod + "tui":    {mod + "store", mod + "rpc", "tailscale.com/"},
		mod + "keymap": {mod + "agent", mod + "store", mod + "rpc"},
		mod + "themes": {mod + "agent", mod + "store", mod + "rpc"},
	}
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		for root, bad := range forbidden {
			if pkg != root && !strings.HasPrefix(pkg, root+"/") {
				continue
			}
			if pkg == mod+"rpc/tailnet" || strings.HasPrefix(pkg, mod+"rpc/tailnet/") {
				continue // the tsnet transport is the one rpc package allowed to link tailscale
			}
			for _, d := range deps {
				for _, b := range bad {
					if strings.HasPrefix(d, b) && !strings.HasPrefix(d, root) {
						t.Errorf("%s imports %s: breaks the package direction in docs/architecture.md", pkg, d)
					}
				}
			}
		}
	}
}

package aoi_test

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const mod = "github.com/aoi-protocol/aoi/"

// goPackage is the part of `go list -json` this test reads.
type goPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// TestImportDirection keeps the package boundaries of docs/architecture.md.
// Our own packages are checked on direct imports (tui may import agent,
// which itself uses store); heavy third-party code is checked on the whole
// dependency graph, so the core never links the interface and only the
// tailnet transport and the binary link tsnet.
func TestImportDirection(t *testing.T) {
	direct := map[string][]string{
		"store":  {mod},
		"rpc":    {mod + "agent", mod + "store", mod + "tui", mod + "config"},
		"agent":  {mod + "tui", mod + "keymap", mod + "themes"},
		"config": {mod},
		"tui":    {mod + "store", mod + "rpc", mod + "config"},
		"keymap": {mod},
		"themes": {mod},
		// internal/backoff and its siblings are leaves every layer may use.
		"internal": {mod},
	}
	transitive := map[string][]string{
		"store": {"charm.land/", "tailscale.com/"},
		"rpc":   {"charm.land/", "tailscale.com/"},
		"agent": {"charm.land/", "tailscale.com/"},
		"tui":   {"tailscale.com/"},
	}
	for _, p := range listPackages(t) {
		if strings.HasPrefix(p.ImportPath, mod+"rpc/tailnet") || strings.HasPrefix(p.ImportPath, mod+"cmd/") ||
			strings.HasPrefix(p.ImportPath, mod+"agent/tailnete2e") {
			continue // the tsnet transport, its core e2e test and the binary may link everything
		}
		root := topLevel(p.ImportPath)
		bad := append(violations(p.ImportPath, withoutLeaves(p.Imports), direct[root]), violations(p.ImportPath, p.Deps, transitive[root])...)
		for _, d := range bad {
			t.Errorf("%s imports %s: breaks the package direction in docs/architecture.md", p.ImportPath, d)
		}
	}
}

// TestViolationsCatchesABadImport keeps the checker honest.
func TestViolationsCatchesABadImport(t *testing.T) {
	imports := []string{"database/sql", mod + "agent/wire", mod + "store/internal", mod + "internal/fold"}
	got := violations(mod+"store", withoutLeaves(imports), []string{mod})
	if len(got) != 1 || got[0] != mod+"agent/wire" {
		t.Fatalf("violations = %v, want only agent/wire", got)
	}
	if got := violations(mod+"internal/fold", []string{mod + "store"}, []string{mod}); len(got) != 1 {
		t.Fatalf("a leaf importing store was not caught: %v", got)
	}
}

// withoutLeaves drops the internal/... packages from imports: they import
// none of ours (their own rule above), so every layer may use them.
func withoutLeaves(imports []string) []string {
	var out []string
	for _, d := range imports {
		if !strings.HasPrefix(d, mod+"internal/") {
			out = append(out, d)
		}
	}
	return out
}

// violations lists the imports of pkg that start with a forbidden prefix,
// ignoring pkg's own sub-packages.
func violations(pkg string, imports, forbidden []string) []string {
	var out []string
	for _, d := range imports {
		if d == pkg || strings.HasPrefix(d, pkg+"/") {
			continue
		}
		for _, bad := range forbidden {
			if strings.HasPrefix(d, bad) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// topLevel is the first path element under the module ("agent" for
// github.com/aoi-protocol/aoi/agent/acl).
func topLevel(pkg string) string {
	rest := strings.TrimPrefix(pkg, mod)
	first, _, _ := strings.Cut(rest, "/")
	return first
}

func listPackages(t *testing.T) []goPackage {
	statSources(t)
	cmd := exec.Command("go", "list", "-tags", "sqlite_fts5", "-json=ImportPath,Imports,Deps", "./...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// statSources stats every Go file of the module from this process. go test
// caches a passing result until a file the test itself opened or statted
// changes; the files `go list` reads in its own process do not count. The
// test binary does not change when another package's imports do, so
// without this a broken import direction passed from the cache (tui had
// imported rpc for a while, unseen).
func statSources(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, ".go"):
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

package acl

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps acl on config and agent/wire only, so the core, the
// server and tests can all use it without cycles.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/aoi-protocol/aoi/config":     true,
		"github.com/aoi-protocol/aoi/agent/wire": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/aoi-protocol/aoi") && !allowed[p] {
				t.Errorf("%s imports %s; acl may import only config and agent/wire", f, p)
			}
		}
	}
}

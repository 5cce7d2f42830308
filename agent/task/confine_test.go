package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/config"
)

// TestPathParamsStayInside: the attack run's `path` values — an absolute
// /etc/ssh and a symlink inside the repository pointing outside it — are
// refused; ordinary paths, existing or not, pass.
func TestPathParamsStayInside(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src", "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "src", "link_to_secrets")); err != nil {
		t.Fatal(err)
	}
	tt := config.TaskType{Command: []string{"ls", "{{path}}"}, Params: map[string]config.Param{"path": {Type: config.ParamTypePath}}}

	if _, _, err := Resolve("list", tt, map[string]any{"path": "/etc/ssh"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("absolute path: %v", err)
	}
	for _, ok := range []string{"src/auth", "src/auth/new_file.go", "."} {
		if err := confineParams("list", tt, map[string]string{"path": ok}, root); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"src/link_to_secrets/", "src/link_to_secrets/id_rsa"} {
		err := confineParams("list", tt, map[string]string{"path": bad}, root)
		if err == nil || !strings.Contains(err.Error(), "outside the task's directory") {
			t.Errorf("%s: %v, want it refused as leaving the directory", bad, err)
		}
	}
	// A plain (untyped) param is not a path: no symlink check applies.
	plain := config.TaskType{Command: []string{"echo", "{{x}}"}, Params: map[string]config.Param{"x": {}}}
	if err := confineParams("echo", plain, map[string]string{"x": "src/link_to_secrets"}, root); err != nil {
		t.Errorf("untyped param checked as a path: %v", err)
	}
}

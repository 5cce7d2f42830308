package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckLocalPaths: a context whose local_path is a typo is named, with
// the directory beside it that was meant; an existing directory, a file
// context and a context without a path pass.
func TestCheckLocalPaths(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "webapp")
	if err := os.Mkdir(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(notes, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Config{Contexts: []Context{
		{Type: "repository", Identifier: "acme/webapp", LocalPath: repo},
		{Type: "repository", Identifier: "acme/typo", LocalPath: filepath.Join(dir, "wbeapp")},
		{Type: "file", Identifier: "notes", LocalPath: notes},
		{Type: "folder", Identifier: "acme/notes", LocalPath: notes},
		{Type: "issue", Identifier: "ACME-1"},
	}}
	errs := CheckLocalPaths(c)
	if len(errs) != 2 {
		t.Fatalf("CheckLocalPaths = %v; want the typo and the folder that is a file", errs)
	}
	if errs[0].Path != "/contexts/1/local_path" || !strings.Contains(errs[0].Problem, "does not exist") || errs[0].Fix != "did you mean "+repo+"?" {
		t.Errorf("the typo: %+v", errs[0])
	}
	if errs[1].Path != "/contexts/3/local_path" || !strings.Contains(errs[1].Problem, "not a directory") {
		t.Errorf("the folder that is a file: %+v", errs[1])
	}
}

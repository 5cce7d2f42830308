package eval

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestIndexCodeVersion: the version changes with the code that builds an
// index (committed, uncommitted or a new file) and not with the code that
// only answers from it.
func TestIndexCodeVersion(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(path, text string) {
		t.Helper()
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("go.mod", "module example.com/aoi\n")
	write("store/writer.go", "package store\n")
	write("agent/secretary/ingest.go", "package secretary\n")
	write("agent/secretary/query.go", "package secretary\n")
	write("README.md", "# aoi\n")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	version := func() string {
		t.Helper()
		v, err := IndexCodeVersion(context.Background(), filepath.Join(dir, "agent"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := version()
	write("agent/secretary/query.go", "package secretary\n\n// ranking changed\n")
	write("README.md", "# aoi\n\nfigures\n")
	if v := version(); v != v0 {
		t.Errorf("answering code changed the version: %s, was %s", v, v0)
	}
	write("agent/secretary/ingest.go", "package secretary\n\n// indexing changed\n")
	v1 := version()
	if v1 == v0 {
		t.Error("an uncommitted change to ingest.go left the version as it was")
	}
	git("commit", "-q", "-am", "change")
	if v := version(); v != v1 {
		t.Errorf("committing the same files changed the version: %s, was %s", v, v1)
	}
	write("store/schema.go", "package store\n")
	if v := version(); v == v1 {
		t.Error("a new file in store left the version as it was")
	}
	if _, err := IndexCodeVersion(context.Background(), t.TempDir()); err == nil {
		t.Error("outside a git checkout the version is known")
	}
}

// TestKeptIndexIsReusedOnlyForItsKey: a kept index is reused for the same
// repositories, seed and index code, and not once any of them changed or
// its record or database is gone.
func TestKeptIndexIsReusedOnlyForItsKey(t *testing.T) {
	work := t.TempDir()
	c := &Corpus{Repos: []RepoSpec{{Name: "a", URL: "https://example.com/a", SHA: "0123456789abcdef0123456789abcdef01234567", Context: "x/a"}}}
	key, err := indexKey(c, 1, "v1")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
	if err := keepIndex(work, key, now); err != nil {
		t.Fatal(err)
	}
	if _, ok := reusableIndex(work, key); ok {
		t.Error("reused a kept record without its database")
	}
	if err := os.WriteFile(filepath.Join(work, "aoi.db"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := reusableIndex(work, key); !ok || !got.Equal(now) {
		t.Errorf("reusableIndex = %v, %v; want %v, true", got, ok, now)
	}
	other := func(c *Corpus, seed uint64, code string) string {
		k, err := indexKey(c, seed, code)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	moved := &Corpus{Repos: []RepoSpec{c.Repos[0]}}
	moved.Repos[0].SHA = "fedcba9876543210fedcba9876543210fedcba98"
	for name, k := range map[string]string{"seed": other(c, 2, "v1"), "code": other(c, 1, "v2"), "repository": other(moved, 1, "v1")} {
		if _, ok := reusableIndex(work, k); ok {
			t.Errorf("reused the kept index after its %s changed", name)
		}
	}
	if err := forgetIndex(work); err != nil {
		t.Fatal(err)
	}
	if _, ok := reusableIndex(work, key); ok {
		t.Error("reused an index whose record was removed")
	}
}

package task

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestScanPathsChecksEachFolderOnce(t *testing.T) {
	list := "docs/a.md\x00docs/b.md\x00\nsecrets/deep/plan.txt\x00"
	var asked []string
	found, err := scanPaths(strings.NewReader(list), func(rel string) bool {
		asked = append(asked, rel)
		return rel == "secrets"
	}, 100)
	if err != nil || !found {
		t.Fatalf("scanPaths = %v, %v; want found", found, err)
	}
	want := "docs/a.md docs docs/b.md secrets/deep/plan.txt secrets/deep secrets"
	if got := strings.Join(asked, " "); got != want {
		t.Errorf("asked %q\nwant  %q", got, want)
	}
}

func TestScanPathsStopsPastItsLimit(t *testing.T) {
	list := "a\x00b\x00c\x00d\x00"
	found, err := scanPaths(strings.NewReader(list), func(string) bool { return false }, 3)
	if !errors.Is(err, errHistoryTooLarge) || found {
		t.Fatalf("scanPaths = %v, %v; want errHistoryTooLarge", found, err)
	}
}

// A folder removed from the checkout is still in the history git can read.
func TestHistoryHoldsADeletedFolder(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.Mkdir(filepath.Join(dir, "secrets"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "secrets", "plan.txt"), "launch")
	writeFile(t, filepath.Join(dir, "README.md"), "hello")
	run("add", ".")
	run("commit", "-q", "-m", "one")
	run("rm", "-q", "-r", "secrets")
	run("commit", "-q", "-m", "two")
	ctx := context.Background()
	if holds, err := historyHolds(ctx, dir, func(rel string) bool { return rel == "secrets" }); err != nil || !holds {
		t.Errorf("kept from secrets: historyHolds = %v, %v; want true", holds, err)
	}
	if holds, err := historyHolds(ctx, dir, func(rel string) bool { return rel == "private" }); err != nil || holds {
		t.Errorf("kept from private: historyHolds = %v, %v; want false", holds, err)
	}
	// What cannot be read is taken to hold a kept place.
	if holds, err := historyHolds(ctx, t.TempDir(), func(string) bool { return false }); err == nil || !holds {
		t.Errorf("not a repository: historyHolds = %v, %v; want true and an error", holds, err)
	}
}

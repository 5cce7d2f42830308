package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnershipRefusesAnotherUsersDataDir: a data dir another user owns
// is refused, naming both uids (a data dir under /tmp made first by
// someone else). The check runs as a user other than the one who made the
// directory, which needs no chown.
func TestOwnershipRefusesAnotherUsersDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "eng")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	me := os.Getuid()
	if err := checkOwnershipAs(me, dir, filepath.Join(dir, "config.json")); err != nil {
		t.Fatalf("our own data dir refused: %v", err)
	}
	other := me + 1
	err := checkOwnershipAs(other, dir, filepath.Join(dir, "config.json"))
	want := fmt.Sprintf("belongs to another user (uid %d, you are uid %d)", me, other)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("another user's data dir: %v, want %q", err, want)
	}
}

// TestRelativeDataDirIsMadeAbsolute: `--data-dir eng` is resolved once, at
// open: task worktrees derived from it must not land inside the task's
// repository, where git worktree add runs.
func TestRelativeDataDirIsMadeAbsolute(t *testing.T) {
	base := t.TempDir()
	t.Chdir(base)
	if _, err := Init(InitOptions{DataDir: "eng", AgentID: "eng-rel", Role: "engineer", ListenAddr: "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	c, err := Open(t.Context(), Options{DataDir: "eng"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if want := filepath.Join(base, "eng"); c.dataDir != want {
		t.Fatalf("data dir %q, want %q", c.dataDir, want)
	}
}

// TestCleanStopSealsTheAuditLog: closing the core seals the audit log
// with the identity key, so the next start verifies every row by
// signature.
func TestCleanStopSealsTheAuditLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "eng")
	if _, err := Init(InitOptions{DataDir: dir, AgentID: "eng-seal", Role: "engineer", ListenAddr: "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	c, err := Open(t.Context(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Note(t.Context(), NoteRequest{Text: "spike on caching"}); err != nil {
		t.Fatal(err)
	}
	if v, err := c.VerifyAudit(t.Context()); err != nil || !v.OK || v.SealedThrough != 0 {
		t.Fatalf("before the stop: %+v, %v; want intact and not sealed", v, err)
	}
	c.Close()
	c, err = Open(t.Context(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v, err := c.VerifyAudit(t.Context())
	if err != nil || !v.OK || v.SealedThrough == 0 || v.Unsealed != 0 {
		t.Fatalf("after a clean stop: %+v, %v; want every row sealed", v, err)
	}
}

// TestReloadChecksOwnership: a config made writable by anybody while aoi
// runs is refused at the reload, as at start; the running config stays.
func TestReloadChecksOwnership(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "eng")
	res, err := Init(InitOptions{DataDir: dir, AgentID: "eng-own", Role: "engineer", ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(t.Context(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Group write is how a file copied into place looks with per-user
	// groups (umask 002): let through.
	if err := os.Chmod(res.ConfigPath, 0o664); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reload(t.Context()); err != nil {
		t.Fatalf("reload of a group-writable config: %v", err)
	}
	if err := os.Chmod(res.ConfigPath, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err = c.Reload(t.Context())
	if err == nil || !strings.Contains(err.Error(), "can be changed by other users (mode 0666)") {
		t.Fatalf("reload of a world-writable config: %v", err)
	}
}

// TestOwnershipRefusesAFolderOthersCanRearrange: a data dir inside a
// folder anybody may write (without /tmp's sticky bit) is refused with the
// chmod that fixes it; with the sticky bit it is fine.
func TestOwnershipRefusesAFolderOthersCanRearrange(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	dir := filepath.Join(shared, "eng")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	err := checkOwnershipAs(os.Getuid(), dir, filepath.Join(dir, "config.json"))
	if err == nil || !strings.Contains(err.Error(), "the folder "+shared+", which holds the data dir") || !strings.Contains(err.Error(), "chmod o-w "+shared) {
		t.Fatalf("a data dir in a folder anybody may write: %v", err)
	}
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := checkOwnershipAs(os.Getuid(), dir, filepath.Join(dir, "config.json")); err != nil {
		t.Fatalf("a data dir in a sticky folder (as under /tmp): %v", err)
	}
}

// TestOwnershipFollowsTheWayThere: the re-check's bypasses — a link to a
// good data dir placed in a folder anybody may write (who can swap the
// link chooses where it leads), and a data dir not made yet inside such a
// folder — are refused too.
func TestOwnershipFollowsTheWayThere(t *testing.T) {
	base := t.TempDir()
	good := filepath.Join(base, "good")
	shared := filepath.Join(base, "shared")
	for _, d := range []string{good, shared} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(shared, "eng")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{link, filepath.Join(shared, "not-yet")} {
		err := checkOwnershipAs(os.Getuid(), dir, filepath.Join(dir, "config.json"))
		if err == nil || !strings.Contains(err.Error(), "chmod o-w "+shared) {
			t.Errorf("data dir %s: %v; want it refused for %s", dir, err, shared)
		}
	}
	if err := checkOwnershipAs(os.Getuid(), good, filepath.Join(good, "config.json")); err != nil {
		t.Errorf("the good data dir itself: %v", err)
	}
}

// TestOwnershipRefusesAnotherUsersLink: a link in a sticky folder (as
// under /tmp) that leads to a good data dir is refused when another user
// owns it, since they can repoint it; one of your own is fine. As root the
// test hands the link to uid 4242; otherwise it judges your link as uid
// 4242 would (root's links are trusted, so that view needs a non-root
// owner).
func TestOwnershipRefusesAnotherUsersLink(t *testing.T) {
	base := t.TempDir()
	good, sticky := filepath.Join(base, "good"), filepath.Join(base, "tmp")
	for _, d := range []string{good, sticky} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sticky, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(sticky, "aoi")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	me := os.Getuid()
	if err := checkOwnershipAs(me, link, filepath.Join(link, "config.json")); err != nil {
		t.Fatalf("a data dir through a link of your own: %v", err)
	}
	judge, owner := me, me
	if me == 0 {
		if err := os.Lchown(link, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		owner = 4242
	} else {
		judge = 4242
	}
	err := checkLinks(judge, filepath.Join(link, "config.json"), "config")
	if err == nil || !strings.Contains(err.Error(), "passes through the link "+link) || !strings.Contains(err.Error(), fmt.Sprintf("another user (uid %d", owner)) {
		t.Fatalf("a config through another user's link: %v", err)
	}
	if me == 0 {
		err = checkOwnershipAs(me, link, filepath.Join(link, "config.json"))
		if err == nil || !strings.Contains(err.Error(), "the way to the data dir "+link+" passes through the link") {
			t.Fatalf("a data dir through uid 4242's link: %v", err)
		}
	}
}

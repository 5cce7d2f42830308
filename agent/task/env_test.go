package task

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTaskEnvStopsGitAtTheWorktree: a worktree whose history was left out
// (no .git) inside a folder that is itself a repository, as a data dir
// under a home kept in git would be: git run with the task's environment
// finds no repository, where without it git would find the outer one.
func TestTaskEnvStopsGitAtTheWorktree(t *testing.T) {
	outer := t.TempDir()
	if out, err := exec.Command("git", "-C", outer, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	worktree := filepath.Join(outer, "worktrees", "t1")
	if err := os.MkdirAll(worktree, 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(env []string) error {
		cmd := exec.Command("git", "rev-parse", "--show-toplevel")
		cmd.Dir, cmd.Env = worktree, env
		return cmd.Run()
	}
	if err := run(append(BaseEnv(), "AOI_TASK_ID=t1")); err != nil {
		t.Fatalf("without the ceiling git should find the outer repository: %v", err)
	}
	if err := run(taskEnv("t1", worktree)); err == nil {
		t.Fatal("with the task's environment git found the repository above the worktree")
	}
}

// A task owns its scratch home and may leave it in any shape: folders it
// made unreadable (chmod 0) are still removed, and a home it replaced with
// a link to the owner's own folder is removed as the link only: the
// owner's folder and its files stay, their modes untouched.
func TestRemoveScratchHomeNeitherStopsAtModesNorFollowsLinks(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	locked := filepath.Join(home, ".cache", "locked", "deeper")
	if err := os.MkdirAll(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(locked, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{locked, filepath.Dir(locked)} {
		if err := os.Chmod(dir, 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = removeScratchHome(home) })
	if err := removeScratchHome(home); err != nil {
		t.Fatalf("removing a home with unreadable folders: %v", err)
	}
	if _, err := os.Lstat(home); !os.IsNotExist(err) {
		t.Fatalf("the scratch home is still there: %v", err)
	}

	owners := filepath.Join(base, "owners")
	private := filepath.Join(owners, "private")
	if err := os.MkdirAll(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(private, 0o700) })
	if err := os.WriteFile(filepath.Join(owners, ".bashrc"), []byte("owner's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(owners, home); err != nil {
		t.Fatal(err)
	}
	if err := removeScratchHome(home); err != nil {
		t.Fatalf("removing a home the task made a link: %v", err)
	}
	if _, err := os.Lstat(home); !os.IsNotExist(err) {
		t.Errorf("the link is still there: %v", err)
	}
	if body, err := os.ReadFile(filepath.Join(owners, ".bashrc")); err != nil || string(body) != "owner's\n" {
		t.Errorf("the owner's file behind the link: %q, %v", body, err)
	}
	if info, err := os.Stat(private); err != nil || info.Mode().Perm() != 0o500 {
		t.Errorf("the owner's folder behind the link: %v, %v; want it kept, mode 0500", info, err)
	}
}

// A scratch home starts with copies of the owner's git config: one a
// dotfile manager linked into place is copied too, a FIFO put in its place
// is left out without waiting, and what the task writes to its copy stays
// in the scratch home.
func TestScratchHomeCopiesTheOwnersGitConfig(t *testing.T) {
	owner := t.TempDir()
	t.Setenv("HOME", owner)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	dotfiles := filepath.Join(owner, "dotfiles")
	if err := os.MkdirAll(filepath.Join(owner, ".config", "go"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dotfiles, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dotfiles, "gitconfig"), []byte("[user]\n\tname = Owner\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dotfiles, "gitconfig"), filepath.Join(owner, ".gitconfig")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(owner, ".config", "go", "env"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "home")
	done := make(chan []string, 1)
	go func() {
		env, err := withScratchHome([]string{"PATH=/usr/bin:/bin", "HOME=" + owner}, home, filepath.Join(filepath.Dir(home), "caches"))
		if err != nil {
			t.Error(err)
		}
		done <- env
	}()
	var env []string
	select {
	case env = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("making the scratch home blocked (on the FIFO in place of go's env file)")
	}
	want := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	for k, v := range want {
		if !slices.Contains(env, k+"="+v) {
			t.Errorf("env %q lacks %s=%s", env, k, v)
		}
	}
	cmd := exec.Command("git", "config", "--global", "user.name")
	cmd.Env = env
	if got, err := cmd.Output(); err != nil || string(got) != "Owner\n" {
		t.Errorf("git in the scratch home reads user.name %q (%v); want the owner's copy", got, err)
	}
	cmd = exec.Command("git", "config", "--global", "user.name", "Peer")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config --global in the scratch home: %v\n%s", err, out)
	}
	if body, _ := os.ReadFile(filepath.Join(dotfiles, "gitconfig")); string(body) != "[user]\n\tname = Owner\n" {
		t.Errorf("the owner's git config behind the link changed: %q", body)
	}
}

// A scratch home names the owner's toolchain managers' folders (rustup's
// toolchains) where the owner has them, so `cargo test` still finds its
// toolchain; a manager the owner does not use is not named. Cargo's home
// (its registry, its bin on the owner's PATH) and Go's caches are the
// requester's, whatever the environment named, and cargo's gets a fresh
// copy of the owner's settings.
func TestScratchHomeKeepsTheOwnersToolchainsButNotTheirCaches(t *testing.T) {
	owner := t.TempDir()
	t.Setenv("HOME", owner)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("CARGO_HOME", "")
	for _, dir := range []string{".rustup", ".cargo"} {
		if err := os.MkdirAll(filepath.Join(owner, dir), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(owner, ".cargo", "config.toml"), []byte("[net]\noffline = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "home")
	caches := filepath.Join(t.TempDir(), "pm-tanaka")
	planted := filepath.Join(caches, "cargo", "config.toml")
	if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planted, []byte("[build]\nrustc-wrapper = \"/tmp/x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env, err := withScratchHome([]string{"PATH=/usr/bin:/bin", "HOME=" + owner, "CARGO_HOME=/opt/cargo",
		"GOCACHE=/owner/go-build", "GOPATH=/owner/go"}, home, caches)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"RUSTUP_HOME=" + filepath.Join(owner, ".rustup"), "CARGO_HOME=" + filepath.Join(caches, "cargo"),
		"GOCACHE=" + filepath.Join(caches, "go-build"), "GOPATH=" + filepath.Join(caches, "go"),
		"GOMODCACHE=" + filepath.Join(caches, "go", "pkg", "mod"), "GOBIN=" + filepath.Join(caches, "go", "bin")}
	for _, kv := range want {
		if !slices.Contains(env, kv) {
			t.Errorf("env %q lacks %s", env, kv)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "PYENV_ROOT=") || strings.HasPrefix(kv, "ASDF_DATA_DIR=") {
			t.Errorf("env names %s, a folder the owner does not have", kv)
		}
		if strings.Contains(kv, "/owner/") || strings.Contains(kv, "/opt/cargo") {
			t.Errorf("env keeps %s, the owner's cache", kv)
		}
	}
	if body, _ := os.ReadFile(planted); string(body) != "[net]\noffline = true\n" {
		t.Errorf("the peer's cargo config reads %q; want a fresh copy of the owner's", body)
	}
}

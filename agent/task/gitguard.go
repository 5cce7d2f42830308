package task

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A task's command runs as the owner, and a worktree shares its
// repository's .git: `git config core.fsmonitor …` in a peer's test script
// (or a plain write to .git/config or .git/hooks) would plant a command that
// the owner's next git command runs. gitGuard keeps a copy of the files git
// takes commands from before the task runs, puts back every one the task
// changed once it has ended, and names them so the task fails.

// maxGuardedBytes bounds what a guard keeps in memory: a hooks folder
// larger than this is compared by what fits and the rest by size and mode.
const maxGuardedBytes = 4 << 20

// guardedFile is one file as it was before the task.
type guardedFile struct {
	label  string // what the task's error calls it (no owner paths)
	exists bool
	mode   fs.FileMode
	body   []byte
	link   string // a symlink's target
	// dir is where the file's folder really was (realDir): a task that replaces the folder, or one above it,
	// by a link must not have the restore write or delete through it.
	dir string
}

// gitGuard keeps, for the tasks running now, what each guarded file and
// hooks folder was before the first of them started; the engine holds one.
// A baseline is shared: a task starting after another planted a hook
// must not take the planted state for the owner's and put it back at its
// own end.
type gitGuard struct {
	mu      sync.Mutex
	files   map[string]*keptFile
	folders map[string]*keptFolder
}

type keptFile struct {
	guardedFile
	users int
}

// keptFolder is a hooks folder: the entries it held (each also a kept
// file) and whose names a task must not add to.
type keptFolder struct {
	label   string
	real    string // where it really was (realDir)
	entries []string
	users   int
}

// gitLease is one task's hold on the guard: the files and folders its
// restore checks.
type gitLease struct {
	g       *gitGuard
	files   []string
	folders []string
}

// acquire records, for a task about to run, the git configuration it
// could plant commands in: the repository's config and config.worktree,
// its hooks folder (and the one core.hooksPath names), and the owner's
// global git config files. repo may be "" (a task with no repository:
// only the global files). What another running task already holds keeps
// its older baseline.
func (g *gitGuard) acquire(ctx context.Context, repo string) *gitLease {
	files, folders := globalGitConfigs(), map[string]string{}
	if common := repoGitDir(ctx, repo); common != "" {
		files[filepath.Join(common, "config")] = "the repository's .git/config"
		files[filepath.Join(common, "config.worktree")] = "the repository's .git/config.worktree"
		folders[filepath.Join(common, "hooks")] = "the repository's .git/hooks"
		if hooks := gitPath(ctx, repo, "--git-path", "hooks"); hooks != "" && folders[hooks] == "" {
			folders[hooks] = "the repository's hooks folder (core.hooksPath)"
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.files == nil {
		g.files, g.folders = map[string]*keptFile{}, map[string]*keptFolder{}
	}
	lease := &gitLease{g: g}
	for path, label := range files {
		g.hold(path, label)
		lease.files = append(lease.files, path)
	}
	for dir, label := range folders {
		g.holdFolder(dir, label)
		lease.folders = append(lease.folders, dir)
	}
	return lease
}

// hold counts one more user of path's baseline, reading it first if no
// task holds it yet.
func (g *gitGuard) hold(path, label string) {
	if k := g.files[path]; k != nil {
		k.users++
		return
	}
	g.files[path] = &keptFile{guardedFile: readGuarded(path, label, g.budget()), users: 1}
}

// holdFolder holds a folder and every entry it had when first held (a
// missing folder must stay missing, or at least empty).
func (g *gitGuard) holdFolder(dir, label string) {
	f := g.folders[dir]
	if f == nil {
		f = &keptFolder{label: label, real: realDir(dir)}
		entries, _ := os.ReadDir(dir)
		for _, ent := range entries {
			f.entries = append(f.entries, filepath.Join(dir, ent.Name()))
		}
		g.folders[dir] = f
	}
	f.users++
	for _, path := range f.entries {
		g.hold(path, f.label+"/"+quotedName(filepath.Base(path)))
	}
}

// release drops one user of path's baseline.
func (g *gitGuard) release(path string) {
	if k := g.files[path]; k != nil {
		if k.users--; k.users <= 0 {
			delete(g.files, path)
		}
	}
}

// budget is how many bytes the guard may still keep.
func (g *gitGuard) budget() int {
	left := maxGuardedBytes
	for _, f := range g.files {
		left -= len(f.body)
	}
	return max(left, 0)
}

// repoGitDir is the git directory repo's worktrees share, or "" for none.
func repoGitDir(ctx context.Context, repo string) string {
	if repo == "" {
		return ""
	}
	return gitPath(ctx, repo, "--git-common-dir")
}

// gitPath asks git for one of repo's paths, made absolute. It runs without
// git()'s core.hooksPath override, which would name /dev/null as the hooks
// folder; rev-parse runs no hooks.
func gitPath(ctx context.Context, repo string, args ...string) string {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo, "rev-parse"}, args...)...)
	cmd.Env = gitEnv()
	out, err := cmd.Output()
	p := strings.TrimSpace(string(out))
	if err != nil || p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(repo, p)
	}
	return filepath.Clean(p)
}

// globalGitConfigs are the owner's own git config files, by path.
func globalGitConfigs() map[string]string {
	out := map[string]string{}
	home, err := os.UserHomeDir()
	if err == nil {
		out[filepath.Join(home, ".gitconfig")] = "your ~/.gitconfig"
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		out[filepath.Join(xdg, "git", "config")] = "your git config (~/.config/git/config)"
	}
	return out
}

func readGuarded(path, label string, budget int) guardedFile {
	f := guardedFile{label: label, dir: realDir(filepath.Dir(path))}
	info, err := os.Lstat(path)
	if err != nil {
		return f
	}
	f.exists, f.mode = true, info.Mode()
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		f.link, _ = os.Readlink(path)
	case info.Mode().IsRegular() && info.Size() <= int64(budget):
		f.body, _ = os.ReadFile(path)
	}
	return f
}

// restore puts back every file of the lease that changed since its
// baseline, removes what was added to its folders, releases the lease,
// and returns what changed (labels, sorted) and whatever could not be put
// back. It is called once, when the task has ended.
func (l *gitLease) restore() (changed []string, err error) {
	g := l.g
	g.mu.Lock()
	defer g.mu.Unlock()
	var errs []error
	check := func(path string) {
		was := g.files[path].guardedFile
		if !differs(path, was) {
			return
		}
		changed = append(changed, was.label)
		if e := putBack(path, was); e != nil {
			errs = append(errs, e)
		}
	}
	for _, path := range l.files {
		check(path)
		g.release(path)
	}
	for _, dir := range l.folders {
		f := g.folders[dir]
		for _, path := range f.entries {
			check(path)
			g.release(path)
		}
		var entries []os.DirEntry
		if realDir(dir) == f.real {
			entries, _ = os.ReadDir(dir)
		} else {
			// Listing a link the task put there would delete whatever
			// it leads to.
			changed = append(changed, f.label)
			errs = append(errs, fmt.Errorf("%s was moved or replaced; check it by hand", dir))
		}
		for _, ent := range entries {
			path := filepath.Join(dir, ent.Name())
			if slices.Contains(f.entries, path) {
				continue
			}
			changed = append(changed, f.label+"/"+quotedName(ent.Name()))
			if e := os.RemoveAll(path); e != nil {
				errs = append(errs, e)
			}
		}
		if f.users--; f.users <= 0 {
			delete(g.folders, dir)
		}
	}
	slices.Sort(changed)
	if len(errs) > 0 {
		return changed, fmt.Errorf("could not put back: %v", errs)
	}
	return changed, nil
}

// differs reports whether path is no longer what was kept. A file too big
// to keep is judged by its size and mode only.
func differs(path string, was guardedFile) bool {
	now := readGuarded(path, was.label, maxGuardedBytes)
	switch {
	case now.exists != was.exists:
		return true
	case !now.exists:
		return false
	case now.mode != was.mode || now.link != was.link:
		return true
	case was.body == nil && now.body != nil:
		info, err := os.Lstat(path)
		return err != nil || was.mode.IsRegular() && info.Size() != int64(len(now.body))
	}
	return !bytes.Equal(now.body, was.body)
}

// putBack makes path what it was: gone when it did not exist, its link or
// its content (through a temporary file renamed over it) otherwise.
func putBack(path string, was guardedFile) error {
	if realDir(filepath.Dir(path)) != was.dir {
		return fmt.Errorf("the folder of %s was moved or replaced; check it by hand", path)
	}
	if !was.exists {
		return os.RemoveAll(path)
	}
	if was.link != "" {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
		return os.Symlink(was.link, path)
	}
	if was.body == nil && was.mode.IsRegular() {
		return fmt.Errorf("%s changed and was too large to keep a copy of", path)
	}
	if !was.mode.IsRegular() {
		return nil // a folder or device where a file is expected: left alone
	}
	// A fresh name nobody could have linked elsewhere in advance.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".aoi-restore-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(was.body)
	err = errors.Join(err, tmp.Chmod(was.mode.Perm()), tmp.Close())
	if err == nil {
		err = os.RemoveAll(path)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// realDir is where dir really is: its nearest existing folder with links
// resolved, and the names below it that do not exist yet. A folder the
// task makes where there was none keeps the answer; a link it puts there,
// or above, changes it.
func realDir(dir string) string {
	var missing []string
	for range 64 {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, missing...)...)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		missing = append([]string{filepath.Base(dir)}, missing...)
		dir = parent
	}
	return ""
}

// plainName is a file name shown as it is; any other is quoted, since the
// task chose it and the owner's terminal shows it.
var plainName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

func quotedName(name string) string {
	if plainName.MatchString(name) {
		return name
	}
	if len(name) > 100 {
		name = name[:100]
	}
	return strconv.QuoteToASCII(name)
}

// maxNamedChanges is how many changed files a task's error names.
const maxNamedChanges = 10

// describeChanges names the changed files, the first maxNamedChanges of
// them.
func describeChanges(changed []string) string {
	if len(changed) <= maxNamedChanges {
		return strings.Join(changed, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(changed[:maxNamedChanges], ", "), len(changed)-maxNamedChanges)
}

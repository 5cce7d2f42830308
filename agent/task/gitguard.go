package task

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
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
}

// gitGuard holds the guarded files (by path) and the folders whose entries
// must not change (hooks: a new file there is a new hook).
type gitGuard struct {
	files   map[string]guardedFile
	folders map[string]string // path → label
}

// guardGit records the git configuration a task could plant commands in:
// the repository's config and config.worktree, its hooks folder (and the
// one core.hooksPath names), and the owner's global git config files. repo
// may be "" (a task with no repository: only the global files).
func guardGit(ctx context.Context, repo string) *gitGuard {
	g := &gitGuard{files: map[string]guardedFile{}, folders: map[string]string{}}
	for path, label := range globalGitConfigs() {
		g.keep(path, label)
	}
	if repo == "" {
		return g
	}
	common := gitPath(ctx, repo, "--git-common-dir")
	if common == "" {
		return g
	}
	g.keep(filepath.Join(common, "config"), "the repository's .git/config")
	g.keep(filepath.Join(common, "config.worktree"), "the repository's .git/config.worktree")
	g.keepFolder(filepath.Join(common, "hooks"), "the repository's .git/hooks")
	if hooks := gitPath(ctx, repo, "--git-path", "hooks"); hooks != "" {
		g.keepFolder(hooks, "the repository's hooks folder (core.hooksPath)")
	}
	return g
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

func (g *gitGuard) keep(path, label string) {
	if _, dup := g.files[path]; dup {
		return
	}
	g.files[path] = readGuarded(path, label, g.budget())
}

// keepFolder keeps every entry of a folder (a missing folder must stay
// missing, or at least empty).
func (g *gitGuard) keepFolder(dir, label string) {
	if _, dup := g.folders[dir]; dup {
		return
	}
	g.folders[dir] = label
	entries, _ := os.ReadDir(dir)
	for _, ent := range entries {
		g.keep(filepath.Join(dir, ent.Name()), label+"/"+quotedName(ent.Name()))
	}
}

// budget is how many bytes a guard may still keep.
func (g *gitGuard) budget() int {
	left := maxGuardedBytes
	for _, f := range g.files {
		left -= len(f.body)
	}
	return max(left, 0)
}

func readGuarded(path, label string, budget int) guardedFile {
	f := guardedFile{label: label}
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

// restore puts back every guarded file the task changed, removes what it
// added to a guarded folder, and returns what changed (labels, sorted) and
// whatever could not be put back.
func (g *gitGuard) restore() (changed []string, err error) {
	var errs []error
	for path, was := range g.files {
		if !differs(path, was) {
			continue
		}
		changed = append(changed, was.label)
		if e := putBack(path, was); e != nil {
			errs = append(errs, e)
		}
	}
	for dir, label := range g.folders {
		entries, _ := os.ReadDir(dir)
		for _, ent := range entries {
			path := filepath.Join(dir, ent.Name())
			if _, kept := g.files[path]; kept {
				continue
			}
			changed = append(changed, label+"/"+quotedName(ent.Name()))
			if e := os.RemoveAll(path); e != nil {
				errs = append(errs, e)
			}
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
	tmp := path + ".aoi-restore"
	if err := os.WriteFile(tmp, was.body, was.mode.Perm()); err != nil {
		return err
	}
	if err := os.Chmod(tmp, was.mode.Perm()); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.RemoveAll(path); err != nil && !os.IsNotExist(err) {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
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

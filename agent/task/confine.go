package task

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// confinePath resolves p, relative to root, with every symlink followed,
// and fails when the result leaves root: a `path` parameter naming
// src/link_to_secrets/ (a symlink to the owner's home) must not let a
// colleague's task read outside the worktree.
func confinePath(root, p string) error {
	_, err := ResolveInside(root, p)
	return err
}

// ResolveInside resolves p, relative to root, with every symlink followed,
// and returns it relative to root's real path; it fails when the result
// leaves root. A path that does not exist yet is resolved through its
// deepest existing parent. The ACL uses it too, so a path inside a
// context is judged by where it really leads.
func ResolveInside(root, p string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("the directory cannot be resolved: %w", err)
	}
	full := filepath.Join(realRoot, p)
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(full)
		if err == nil {
			full = filepath.Join(real, rest)
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(full)
		if parent == full {
			return "", fmt.Errorf("cannot be resolved")
		}
		rest = filepath.Join(filepath.Base(full), rest)
		full = parent
	}
	rel, err := filepath.Rel(realRoot, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(os.PathSeparator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("leads outside the task's directory (symlinks resolved); ask for a path inside the repository")
	}
	return filepath.ToSlash(rel), nil
}

// confineParams checks every `type: path` parameter against the task's
// directory once it exists.
func confineParams(name string, tt config.TaskType, resolved map[string]string, dir string) error {
	for k, decl := range tt.Params {
		v := resolved[k]
		if decl.Type != config.ParamTypePath || v == "" {
			continue
		}
		if err := confinePath(dir, v); err != nil {
			return &ParamError{TaskType: name, Param: k, Reason: err.Error()}
		}
	}
	return nil
}

// folderRules checks every `type: path` parameter, resolved inside dir
// where the task runs, against the folder rules (Engine.FolderDenies).
func (e *Engine) folderRules(t store.TaskRecord, tt config.TaskType, resolved map[string]string, dir string) error {
	if e.FolderDenies == nil || tt.Context == "" {
		return nil
	}
	for k, decl := range tt.Params {
		if decl.Type != config.ParamTypePath {
			continue
		}
		// Left empty, the parameter's argument drops out and the command
		// works from the top of the worktree: the whole context.
		place, rel := tt.Context, "."
		if v := resolved[k]; v != "" {
			var err error
			if rel, err = ResolveInside(dir, v); err != nil {
				return &ParamError{TaskType: t.TaskType, Param: k, Reason: err.Error()}
			}
			if rel != "." && rel != "" {
				place += "/" + rel
			}
		}
		if why := e.FolderDenies(t.Requester, place); why != "" {
			return &ParamError{TaskType: t.TaskType, Param: k, Reason: "leads to " + place + ": " + why}
		}
		// A folder's links are followed by a command that walks it
		// (grep -R, cp -rL): each must stay in the worktree and out of
		// folders the requester is kept from.
		if err := e.linksInside(t, tt, dir, rel); err != nil {
			return &ParamError{TaskType: t.TaskType, Param: k, Reason: err.Error()}
		}
	}
	return nil
}

// leaveOut makes the task's directory hold only what the requester may
// reach. A command that walks the whole tree (grep -rn PATTERN ., go test
// ./..., make) reads every folder in it, whatever its parameters name, so
// a folder rule that keeps the requester from part of the context must
// hold for the tree itself. A worktree (or scratch folder) is the task's
// own (ownTree): the places kept from the requester are removed from it
// before the command runs, and so is every committed link that leads out
// of it or into such a place (grep -R follows links). The owner's
// checkout (isolation "none") cannot be trimmed, so the task does not run
// there for a requester kept from part of it; nor does one with no
// context (it could touch any) or an MCP tool's (the coding assistant
// reads the owner's checkout). History would hold the removed places
// still (git log -p, git show HEAD:secrets/plan.txt), so when a place was
// removed, or when the repository's history holds one (a folder deleted
// since, or kept on another branch), the worktree loses its .git too. A
// rule for a folder the repository never held leaves git working: most
// rules are written ahead of such folders.
func (e *Engine) leaveOut(ctx context.Context, t store.TaskRecord, tt config.TaskType, dir string, ownTree bool) error {
	if e.FolderDenies == nil || e.Kept == nil {
		return nil
	}
	kept := e.keptAnywhere(t.Requester, tt)
	if kept && (!ownTree || tt.Context == "") {
		return fmt.Errorf("%s runs %s, which holds folders %s may not read; "+
			"the owner can give it a context and \"isolation\": \"worktree\", which leaves them out", t.TaskType, runsWhere(tt), t.Requester)
	}
	if !ownTree {
		return nil
	}
	if kept && tt.Context != "" {
		removed, err := e.trimTree(t, tt, dir)
		if err != nil {
			return err
		}
		if !removed && !e.historyKeeps(ctx, t, tt, dir) {
			return nil
		}
		return e.hideHistory(t, dir)
	}
	return e.dropOutwardLinks(ctx, t, dir)
}

// dropOutwardLinks removes from the task's own tree the committed links
// that lead out of it. Git lists them (mode 120000), so a repository of
// any size is checked without walking it.
func (e *Engine) dropOutwardLinks(ctx context.Context, t store.TaskRecord, dir string) error {
	if !IsGitRepo(dir) {
		return nil // a scratch folder aoi made: nothing committed in it
	}
	out, err := git(ctx, dir, "ls-files", "-s", "-z")
	if err != nil {
		return fmt.Errorf("could not list the worktree's links: %w", err)
	}
	realRoot, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	for _, entry := range strings.Split(out, "\x00") {
		meta, rel, ok := strings.Cut(entry, "\t")
		if !ok || !strings.HasPrefix(meta, "120000 ") {
			continue
		}
		if _, err := ResolveInside(realRoot, rel); err == nil {
			continue
		}
		if err := e.leaveOutEntry(t, filepath.Join(realRoot, filepath.FromSlash(rel)), rel, "a link leading out of the worktree"); err != nil {
			return err
		}
	}
	return nil
}

// hideHistory removes the task's tree's link to its repository (a
// worktree's .git file), so git run there sees no history: the places
// trimTree removed are in every commit. The owner's repository keeps its
// worktree entry and the task's branch until RemoveWorktree, which falls
// back to deleting the folder and pruning. The command's environment stops
// git from looking above the tree (taskEnv), so it does not find another
// repository instead.
func (e *Engine) hideHistory(t store.TaskRecord, dir string) error {
	gitLink := filepath.Join(dir, ".git")
	if _, err := os.Lstat(gitLink); err != nil {
		return nil // a scratch folder aoi made: no history in it
	}
	return e.leaveOutEntry(t, gitLink, ".git", "the repository's history (it holds the places left out)")
}

// historyKeeps reports whether the history the worktree dir can reach
// holds a place the requester is kept from; when it cannot tell, it says
// so in the log and answers yes.
func (e *Engine) historyKeeps(ctx context.Context, t store.TaskRecord, tt config.TaskType, dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		return false // a scratch folder aoi made: no history in it
	}
	isKept := e.Kept(t.Requester)
	holds, err := historyHolds(ctx, dir, func(rel string) bool { return isKept(tt.Context + "/" + rel) })
	if err != nil {
		e.log().Warn("task: could not check the worktree's history against the folder rules; leaving it out", "task", t.ID, "err", err)
	}
	return holds
}

// leaveOutEntry removes one entry of the task's own tree, saying why.
func (e *Engine) leaveOutEntry(t store.TaskRecord, path, rel, why string) error {
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("could not leave %s out of the worktree: %w", why, err)
	}
	e.log().Info("task: left "+why+" out of the worktree", "task", t.ID, "requester", t.Requester, "path", filepath.ToSlash(rel))
	return nil
}

// keptAnywhere reports whether a folder rule keeps requester from anything
// the task could reach: in its context, or in any context for a task with
// none.
func (e *Engine) keptAnywhere(requester string, tt config.TaskType) bool {
	if tt.Context != "" {
		return e.FolderDenies(requester, tt.Context) != ""
	}
	for _, c := range e.Config().Contexts {
		if e.FolderDenies(requester, c.Identifier) != "" {
			return true
		}
	}
	return false
}

// runsWhere names where a task that cannot be trimmed runs.
func runsWhere(tt config.TaskType) string {
	switch {
	case tt.MCPTool != "":
		return "through the coding assistant, in your checkout"
	case tt.Context == "":
		return "with no context (it could reach any)"
	}
	return "in the owner's own checkout"
}

// trimTree removes from the task's own tree the places the requester is
// kept from, the links leading there and the links leading out of it, and
// reports whether it removed such a place. It walks the tree (at most
// maxLinkWalk entries: past that the task fails, as a path parameter
// naming so large a folder does).
func (e *Engine) trimTree(t store.TaskRecord, tt config.TaskType, dir string) (removed bool, err error) {
	realRoot, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false, err
	}
	isKept := e.Kept(t.Requester)
	place := func(rel string) string { return tt.Context + "/" + filepath.ToSlash(rel) }
	seen := 0
	err = filepath.WalkDir(realRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the command cannot read it either
		}
		rel, _ := filepath.Rel(realRoot, p)
		switch {
		case rel == ".":
			return nil
		case rel == ".git":
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if seen++; seen > maxLinkWalk {
			return fmt.Errorf("the worktree holds more than %d entries to check against the folder rules", maxLinkWalk)
		}
		why := ""
		switch {
		case isKept(place(rel)):
			why, removed = "a place the requester may not read", true
		case d.Type()&fs.ModeSymlink != 0:
			target, err := ResolveInside(realRoot, rel)
			switch {
			case err != nil:
				why = "a link leading out of the worktree"
			case isKept(place(target)):
				why = "a link into a place the requester may not read"
			}
		}
		if why == "" {
			return nil
		}
		if err := e.leaveOutEntry(t, p, rel, why); err != nil {
			return err
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	return removed, err
}

// maxLinkWalk bounds the entries linksInside looks at under one path.
const maxLinkWalk = 50000

// linksInside walks the folder rel names in the worktree dir (nothing to
// do for a file) and fails at the first symlink that leads outside the
// worktree or into a place the folder rules keep the requester from.
func (e *Engine) linksInside(t store.TaskRecord, tt config.TaskType, dir, rel string) error {
	realRoot, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	start := filepath.Join(realRoot, filepath.FromSlash(rel))
	if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
		return nil
	}
	seen := 0
	return filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the command cannot read it either
		}
		if seen++; seen > maxLinkWalk {
			return fmt.Errorf("holds more than %d entries to check for links; name a smaller folder", maxLinkWalk)
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		linkRel, _ := filepath.Rel(realRoot, p)
		target, err := ResolveInside(realRoot, linkRel)
		if err != nil {
			return fmt.Errorf("holds %s, a link that %v", filepath.ToSlash(linkRel), err)
		}
		place := tt.Context
		if target != "." {
			place += "/" + target
		}
		if why := e.FolderDenies(t.Requester, place); why != "" {
			return fmt.Errorf("holds %s, a link to %s: %s", filepath.ToSlash(linkRel), place, why)
		}
		return nil
	})
}

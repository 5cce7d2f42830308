package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// branchState is the repository's current branch (or detached HEAD).
func branchState(ctx context.Context, repo Repo) (State, error) {
	st := State{Ctx: repo.Ctx, Kind: "branch"}
	out, _, err := runGit(ctx, repo.Path, 1<<10, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil {
		return st, nil // empty repository: no branch yet
	}
	br := strings.TrimSpace(string(out))
	st.Events = []Event{{Key: br, Title: "on branch " + br, Meta: map[string]any{"branch": br}}}
	return st, nil
}

// worktreeState summarises uncommitted changes: which files, +/- lines.
func worktreeState(ctx context.Context, repo Repo) (State, error) {
	st := State{Ctx: repo.Ctx, Kind: "worktree"}
	out, _, err := runGit(ctx, repo.Path, 1<<20, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=none")
	if err != nil {
		return st, err
	}
	var modified, untracked []string
	from := map[string]string{} // a renamed file's original path
	entries := strings.Split(string(out), "\x00")
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if len(e) < 4 {
			continue
		}
		code, path := e[:2], e[3:]
		if (code[0] == 'R' || code[0] == 'C') && i+1 < len(entries) {
			i++ // the original path follows
			from[path] = entries[i]
		}
		if code == "??" {
			untracked = append(untracked, path)
		} else {
			modified = append(modified, path)
		}
	}
	if len(modified)+len(untracked) == 0 {
		return st, nil
	}
	stats := map[string][2]int{}
	if num, _, err := runGit(ctx, repo.Path, 1<<20, "diff", "HEAD", "--numstat", "--no-ext-diff", "--ignore-submodules=none"); err == nil {
		for _, line := range strings.Split(string(num), "\n") {
			f := strings.SplitN(line, "\t", 3)
			if len(f) == 3 {
				a, _ := strconv.Atoi(f[0])
				d, _ := strconv.Atoi(f[1])
				stats[f[2]] = [2]int{a, d}
			}
		}
	}
	var files []FileStat
	var parts []string
	for _, p := range modified {
		s := stats[p]
		files = append(files, FileStat{Path: p, From: from[p], Added: s[0], Deleted: s[1]})
		if len(parts) < MaxFilesListed {
			parts = append(parts, fmt.Sprintf("%s (+%d -%d)", p, s[0], s[1]))
		}
	}
	for _, p := range untracked {
		files = append(files, FileStat{Path: p})
		if len(parts) < MaxFilesListed {
			parts = append(parts, p+" (new)")
		}
	}
	meta := map[string]any{}
	listFiles(meta, files) // as for a commit (commit.event)
	title := fmt.Sprintf("uncommitted: %d modified, %d untracked", len(modified), len(untracked))
	st.Events = []Event{{Title: title, Body: strings.Join(parts, ", "), Meta: meta}}
	return st, nil
}

// markerRE finds TODO/FIXME/XXX markers and what follows them (not a
// value: "_timeout=XXX").
var markerRE = regexp.MustCompile(`(?:^|[^=\w])(TODO|FIXME|XXX)\b(?:\([^)]*\))?:?\s*(.*)`)

// xxxColonRE is XXX used as a marker anywhere in a line: "XXX:", "XXX(bob):".
var xxxColonRE = regexp.MustCompile(`\bXXX(?:\([^)]*\))?:`)

// xxxMarker reports whether the XXX on line marks work to do rather than
// stand for a value in documentation ("XXX can be \"immediate\""): it
// opens the comment, or is followed by a colon.
func xxxMarker(line string) bool {
	return strings.HasPrefix(commentPrefixRE.ReplaceAllString(line, ""), "XXX") || xxxColonRE.MatchString(line)
}

// markerState lists TODO/FIXME/XXX markers (file:line) in the files changed
// by the recent commits and the uncommitted changes.
func markerState(ctx context.Context, repo Repo) (State, error) {
	st := State{Ctx: repo.Ctx, Kind: "marker"}
	files, err := recentFiles(ctx, repo)
	if err != nil || len(files) == 0 {
		return st, err
	}
	args := append([]string{"grep", "-n", "-I", "--null", "--no-color", "-E", `\b(TODO|FIXME|XXX)\b`, "--"}, files...)
	out, _, err := runGit(ctx, repo.Path, 1<<20, args...)
	if err != nil {
		return st, nil // git grep exits 1 when nothing matches
	}
	// Markers the uncommitted diff adds come first (and are flagged): they
	// are what the owner is working on now; the cap cuts stale ones.
	added := addedLines(ctx, repo)
	var fresh, stale []Event
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\x00", 3)
		if len(f) != 3 {
			continue
		}
		m := markerRE.FindStringSubmatch(f[2])
		if m == nil {
			continue
		}
		if m[1] == "XXX" && !xxxMarker(f[2]) {
			continue
		}
		text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m[2]), "*/"))
		n, _ := strconv.Atoi(f[1])
		if text == "" {
			text = continuation(repo, f[0], n)
		}
		ref := f[0] + ":" + f[1]
		ev := Event{
			Key:   ref,
			Title: fmt.Sprintf("%s(%s): %s", m[1], ref, clipBytes(text, 200)),
			Body:  clipBytes(strings.TrimSpace(f[2]+" "+text), 300),
			Meta:  map[string]any{"marker": m[1], "file": f[0], "line": f[1]},
		}
		if added[f[0]][n] {
			ev.Meta["uncommitted"] = true
			fresh = append(fresh, ev)
		} else {
			stale = append(stale, ev)
		}
	}
	st.Events = append(fresh, stale...)
	if len(st.Events) > maxMarkers {
		st.Events = st.Events[:maxMarkers]
	}
	return st, nil
}

// recentFiles lists existing files touched by the last commits or changed
// in the working tree, at most maxMarkerFiles.
func recentFiles(ctx context.Context, repo Repo) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	add := func(p string) {
		p = strings.TrimSpace(p)
		if p == "" || seen[p] || len(files) >= maxMarkerFiles {
			return
		}
		seen[p] = true
		if fi, err := os.Stat(filepath.Join(repo.Path, p)); err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<20 {
			files = append(files, p)
		}
	}
	if out, _, err := runGit(ctx, repo.Path, 1<<20, "diff", "HEAD", "--name-only"); err == nil {
		for _, p := range strings.Split(string(out), "\n") {
			add(p)
		}
	}
	out, _, err := runGit(ctx, repo.Path, 1<<20, "log", "-n", markerLookback, "--name-only", "--format=")
	if err != nil {
		return files, nil // no commits yet
	}
	for _, p := range strings.Split(string(out), "\n") {
		add(p)
	}
	return files, nil
}

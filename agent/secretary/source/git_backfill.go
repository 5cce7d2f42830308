package source

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// The first poll of a repository indexes its newest commits at once, so a
// question can be answered within seconds; the rest of the branch's history
// inside the retention window follows in the background, a batch per poll,
// walking back from the head the first poll saw. The walk's position lives in
// a cursor, so a restart resumes it.
const (
	backfillBatch = 300    // older commits indexed per poll
	backfillDone  = "done" // cursor value once the walk reached the window's start
)

// CursorBackfill names the cursor of ctxID's history walk: "<sha> <n>" (the
// head the walk starts from and how many commits of it are indexed) or "done".
func CursorBackfill(ctxID string) string { return "git:" + ctxID + ":backfill" }

// BackfillProgress is how far a repository's history walk has come.
type BackfillProgress struct {
	Indexed int  // commits of the walk indexed so far
	Done    bool // the walk reached the start of the retention window
}

// ParseBackfill reads a backfill cursor value.
func ParseBackfill(v string) (start string, p BackfillProgress, ok bool) {
	if v == backfillDone {
		return "", BackfillProgress{Done: true}, true
	}
	sha, n, found := strings.Cut(v, " ")
	count, err := strconv.Atoi(n)
	if !found || err != nil || count < 0 || len(sha) < 7 {
		return "", BackfillProgress{}, false
	}
	return sha, BackfillProgress{Indexed: count}, true
}

func backfillCursor(start string, indexed int) string {
	return start + " " + strconv.Itoa(indexed)
}

// backfillCommits adds the next batch of older commits to b.
func (g Git) backfillCommits(ctx context.Context, repo Repo, cur Cursors, b *Batch) error {
	v, ok, err := cur.ContextCursor(ctx, CursorBackfill(repo.Ctx))
	if err != nil {
		return err
	}
	if _, set := b.Cursors[CursorBackfill(repo.Ctx)]; set {
		return nil // the head poll just started the walk (see pollCommits)
	}
	start, p, valid := ParseBackfill(v)
	if !ok || !valid {
		// An index made before history walks existed: its first poll
		// indexed the newest maxInitialCommits from an earlier head.
		last, has, err := cur.ContextCursor(ctx, CursorHead(repo.Ctx))
		if err != nil || !has {
			return err
		}
		start, p = last, BackfillProgress{Indexed: maxInitialCommits}
	}
	if p.Done {
		return nil
	}
	if !commitExists(ctx, repo.Path, start) { // history rewritten: nothing to walk
		b.Cursors[CursorBackfill(repo.Ctx)] = backfillDone
		return nil
	}
	args := append(logArgs(), fmt.Sprintf("--skip=%d", p.Indexed), fmt.Sprintf("--max-count=%d", backfillBatch))
	if !g.Since.IsZero() {
		args = append(args, fmt.Sprintf("--since=@%d", g.Since.Unix()))
	}
	out, capped, err := runGit(ctx, repo.Path, g.logCap(), append(args, start)...)
	if err != nil {
		return err
	}
	commits := parseLog(string(out), capped)
	// Newest first, each below the last: ids keep following history, so a
	// search walking the newest ids first meets this older work last.
	for _, c := range commits {
		e := c.event(repo.Ctx)
		e.Earlier = true
		b.Events = append(b.Events, e)
	}
	if len(commits) == 0 {
		b.Cursors[CursorBackfill(repo.Ctx)] = backfillDone
		return nil
	}
	b.Cursors[CursorBackfill(repo.Ctx)] = backfillCursor(start, p.Indexed+len(commits))
	return nil
}

// logArgs is `git log` with patches: merges show their diff against the
// first parent (plain -p prints none for them), so a merged feature's
// files are indexed with the merge.
func logArgs() []string {
	// --raw names every file, binary and mode-only ones too; the prefixes
	// are fixed whatever the owner's diff.srcPrefix/dstPrefix say; a
	// submodule moved is listed whatever .gitmodules' ignore or the
	// owner's diff.ignoreSubmodules say (runGit also sets log.showRoot, so
	// the first commit lists its files).
	return []string{"log", "--no-color", "--no-ext-diff", "--raw", "-p", "--unified=0", "--src-prefix=a/", "--dst-prefix=b/",
		"--ignore-submodules=none", "--diff-merges=first-parent", "--format=" + logFormat}
}

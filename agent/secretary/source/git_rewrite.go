package source

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// maxRemovedCommits bounds the commits one poll takes out of the mirror;
// past it the rest of a huge rewrite stays (still findable, no longer in
// a branch).
const maxRemovedCommits = 20000

// dropRewritten takes out of the mirror the commits of the indexed tips
// that no branch, tag, remote branch or HEAD reaches any more: an amend, a
// rebase, a reset, a force-pushed rewrite, a branch deleted unmerged.
// Answers would point at commits nobody can look up, next to the rewritten
// copies the range indexes. The tips they hung from are forgotten, so a
// return to them (a reset back) indexes them again.
func dropRewritten(ctx context.Context, repo Repo, cur Cursors, head string, b *Batch) error {
	tipsV, ok, err := latest(ctx, cur, b, cursorTips(repo.Ctx))
	if err != nil || !ok {
		return err
	}
	tips, err := existing(ctx, repo.Path, strings.Fields(tipsV))
	if err != nil || len(tips) == 0 {
		return err
	}
	args := append([]string{"rev-list", fmt.Sprintf("--max-count=%d", maxRemovedCommits)}, tips...)
	out, _, err := runGit(ctx, repo.Path, maxRemovedCommits*65, append(args, "--not", "--all")...)
	if err != nil {
		// A ref git cannot read (one naming a missing object) fails --all:
		// the repository is still indexed, its rewritten commits stay.
		return nil
	}
	gone := strings.Fields(string(out))
	if len(gone) == 0 {
		return nil
	}
	kept, err := tipsAfterRewrite(ctx, repo, cur, b, tips, gone, head)
	if err != nil || len(kept) == 0 {
		// Nothing left to bound the range being paged: wait until it is
		// done and its end joins the tips.
		return err
	}
	for _, sha := range gone {
		b.Removed = append(b.Removed, Event{Kind: "commit", Ctx: repo.Ctx, Key: sha})
	}
	b.Cursors[cursorTips(repo.Ctx)] = strings.Join(kept, " ")
	return endWalkInGoneHistory(ctx, repo, cur, b, gone)
}

// endWalkInGoneHistory ends a history walk that starts at a commit the
// rewrite took away: it would go on indexing what no branch holds, while
// the range indexes the history that replaced it.
func endWalkInGoneHistory(ctx context.Context, repo Repo, cur Cursors, b *Batch, gone []string) error {
	v, _, err := latest(ctx, cur, b, CursorBackfill(repo.Ctx))
	if err != nil {
		return err
	}
	if start, p, ok := ParseBackfill(v); ok && !p.Done && slices.Contains(gone, start) {
		b.Cursors[CursorBackfill(repo.Ctx)] = backfillDone
	}
	return nil
}

// tipsAfterRewrite is tips without the gone ones; HEAD joins them when all
// of its commits are indexed (no range is being paged and the head cursor
// is HEAD), since a reset leaves none of the others reaching it.
func tipsAfterRewrite(ctx context.Context, repo Repo, cur Cursors, b *Batch, tips, gone []string, head string) ([]string, error) {
	isGone := map[string]bool{}
	for _, sha := range gone {
		isGone[sha] = true
	}
	var kept []string
	for _, tip := range tips {
		if !isGone[tip] {
			kept = append(kept, tip)
		}
	}
	last, _, err := latest(ctx, cur, b, CursorHead(repo.Ctx))
	if err != nil {
		return nil, err
	}
	paging, _, err := latest(ctx, cur, b, cursorRange(repo.Ctx))
	if err != nil {
		return nil, err
	}
	if _, ok := parseRange(paging); ok || last != head {
		return kept, nil
	}
	return independentTips(ctx, repo.Path, append([]string{head}, kept...))
}

// latest is the cursor's value as this poll leaves it: set in b, or stored.
func latest(ctx context.Context, cur Cursors, b *Batch, name string) (string, bool, error) {
	if v, ok := b.Cursors[name]; ok {
		return v, true, nil
	}
	return cur.ContextCursor(ctx, name)
}

// HeldCommits lists the commits the mirror holds of a context, newest
// first (store.DB does; a Cursors that cannot is fine, and dropLost then
// removes nothing).
type HeldCommits interface {
	ContextKeys(ctx context.Context, source, ctxID, kind string, limit int) ([]string, error)
}

// dropLost takes out of the mirror, when the source has lost its place
// (every tip it knew is gone: history rewritten and collected, or the
// checkout cloned anew), the commits it holds that the repository no
// longer has or that no branch, tag, remote branch or HEAD reaches.
// Without a tip there is nothing to ask git about but the commits
// themselves.
func dropLost(ctx context.Context, repo Repo, cur Cursors, b *Batch) error {
	hc, ok := cur.(HeldCommits)
	if !ok {
		return nil
	}
	held, err := hc.ContextKeys(ctx, "git", repo.Ctx, "commit", maxRemovedCommits)
	if err != nil {
		return err
	}
	for chunk := range slices.Chunk(held, 1000) { // a command line of 41 KB
		gone, err := goneOf(ctx, repo.Path, chunk)
		if err != nil {
			return err
		}
		for _, sha := range gone {
			b.Removed = append(b.Removed, Event{Kind: "commit", Ctx: repo.Ctx, Key: sha})
		}
	}
	return nil
}

// goneOf is the commits of shas the repository does not have, and those it
// has that no ref reaches.
func goneOf(ctx context.Context, dir string, shas []string) ([]string, error) {
	have, err := existing(ctx, dir, shas)
	if err != nil {
		return nil, err
	}
	had := map[string]bool{}
	for _, sha := range have {
		had[sha] = true
	}
	var gone []string
	for _, sha := range shas {
		if !had[sha] {
			gone = append(gone, sha)
		}
	}
	if len(have) == 0 {
		return gone, nil
	}
	// Lists their unreachable ancestors too: removing one the mirror does
	// not hold removes nothing.
	args := append([]string{"rev-list"}, have...)
	out, _, err := runGit(ctx, dir, maxRemovedCommits*65, append(args, "--not", "--all")...)
	if err != nil {
		return gone, nil // a ref git cannot read: see dropRewritten
	}
	return append(gone, strings.Fields(string(out))...), nil
}

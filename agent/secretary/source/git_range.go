package source

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// A later poll indexes the commits reachable from HEAD that the mirror
// does not hold yet: those not reachable from a tip already indexed (the
// heads of the branches the owner had checked out). One push may hold more
// of them than a poll reads (a big merge, a rebase, a vendored import: over
// maxPollCommits, or over maxLogBytes of patches), so the range is paged,
// its oldest commits first, one page per poll; the tips take in the
// range's end only once all of the range is indexed. The page's position
// is a cursor stored with the page's events, so a restart resumes the
// range: no commit indexed twice, none skipped.

// maxTips bounds the tips kept; past it the oldest is forgotten, and a
// return to its branch reads that branch's commits again (the secretary
// stores none of them twice).
const maxTips = 32

// cursorRange names the cursor of ctxID's range of new commits being
// paged: "<to> <n> <tip>…" (the commits reachable from to and from none of
// the tips, of which the oldest n are indexed), or "" when none is.
func cursorRange(ctxID string) string { return "git:" + ctxID + ":range" }

// cursorTips names the cursor holding ctxID's indexed tips, space-separated:
// commits whose history the mirror holds (back to where the history walk
// has come), none reachable from another.
func cursorTips(ctxID string) string { return "git:" + ctxID + ":tips" }

// commitRange is the commits reachable from to and from none of tips, of
// which the oldest done (in git log's order) are indexed.
type commitRange struct {
	to   string
	done int
	tips []string
}

func (r commitRange) String() string {
	return strings.Join(append([]string{r.to, strconv.Itoa(r.done)}, r.tips...), " ")
}

func parseRange(v string) (commitRange, bool) {
	f := strings.Fields(v)
	if len(f) < 3 {
		return commitRange{}, false
	}
	done, err := strconv.Atoi(f[1])
	if err != nil || done < 0 {
		return commitRange{}, false
	}
	return commitRange{to: f[0], done: done, tips: f[2:]}, true
}

// revs is the range as git revision arguments: to ^tip….
func (r commitRange) revs() []string {
	revs := []string{r.to}
	for _, tip := range r.tips {
		revs = append(revs, "^"+tip)
	}
	return revs
}

// indexedTips reads the tips whose commits still exist; an index made
// before tips were kept has its head cursor, last, as its only one.
func indexedTips(ctx context.Context, repo Repo, cur Cursors, last string) ([]string, error) {
	v, ok, err := cur.ContextCursor(ctx, cursorTips(repo.Ctx))
	if err != nil {
		return nil, err
	}
	tips := strings.Fields(v)
	if !ok {
		tips = []string{last}
	}
	// A tip rewritten away and collected (a force-push, a gc) bounds
	// nothing any more.
	return existing(ctx, repo.Path, tips)
}

// pagedRange is the range being paged, if there is one and its end still
// exists. One whose end is gone (history rewritten and collected while it
// was paged) is given up: HEAD's range holds what is left of it.
func pagedRange(ctx context.Context, repo Repo, cur Cursors) (commitRange, bool, error) {
	v, _, err := cur.ContextCursor(ctx, cursorRange(repo.Ctx))
	if err != nil {
		return commitRange{}, false, err
	}
	r, ok := parseRange(v)
	if !ok || !commitExists(ctx, repo.Path, r.to) {
		return commitRange{}, false, nil
	}
	r.tips, err = existing(ctx, repo.Path, r.tips)
	return r, err == nil && len(r.tips) > 0, err
}

// existing keeps the commits of shas the repository holds, in their order.
func existing(ctx context.Context, dir string, shas []string) ([]string, error) {
	if len(shas) == 0 {
		return nil, nil
	}
	out, _, err := runGit(ctx, dir, 64<<10, append([]string{"rev-list", "--no-walk", "--ignore-missing"}, shas...)...)
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, s := range strings.Fields(string(out)) {
		found[s] = true
	}
	var kept []string
	for _, s := range shas {
		if found[s] {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// pollRange adds the next page of r, oldest commits first, and moves the
// cursors past it: the range cursor to the page's end, or, once the range
// is done, the head cursor to its end and the tips to take it in.
func (g Git) pollRange(ctx context.Context, repo Repo, r commitRange, b *Batch) error {
	total, err := rangeCount(ctx, repo.Path, r)
	if err != nil {
		return err
	}
	if left := total - r.done; left > 0 {
		n, err := g.pollPage(ctx, repo, r, min(g.pageCap(), left), left, b)
		if err != nil {
			return err
		}
		r.done += n
	}
	if r.done < total {
		b.Cursors[cursorRange(repo.Ctx)] = r.String()
		return nil
	}
	tips, err := independentTips(ctx, repo.Path, append([]string{r.to}, r.tips...))
	if err != nil {
		return err
	}
	b.Cursors[CursorHead(repo.Ctx)] = r.to
	b.Cursors[cursorTips(repo.Ctx)] = strings.Join(tips, " ")
	b.Cursors[cursorRange(repo.Ctx)] = ""
	return nil
}

// pollPage adds the oldest page of r's left commits not indexed yet and
// returns how many it added.
func (g Git) pollPage(ctx context.Context, repo Repo, r commitRange, page, left int, b *Batch) (int, error) {
	// --skip and --max-count pick from git log's newest-first order, then
	// --reverse lists the pick oldest first: the page is the oldest
	// commits not indexed yet, and a cut at the byte cap drops its newest
	// (parseLog), which the next page starts with. No --since: the
	// retention window moves between pages, and the range's oldest
	// commits, indexed first, would leave the count, shifting every skip.
	args := append(logArgs(), "--reverse", fmt.Sprintf("--skip=%d", left-page), fmt.Sprintf("--max-count=%d", page))
	out, capped, err := runGit(ctx, repo.Path, g.logCap(), append(args, r.revs()...)...)
	if err != nil {
		return 0, err
	}
	commits := parseLog(string(out), capped)
	if len(commits) == 0 {
		// Moving on would skip the page, staying would stall every later
		// commit; either silently is worse than a poll error.
		return 0, fmt.Errorf("git log %s in %s: no readable commit in a page of %d", strings.Join(r.revs(), " "), repo.Path, page)
	}
	for _, c := range commits {
		b.Events = append(b.Events, c.event(repo.Ctx))
	}
	return len(commits), nil
}

// rangeCount is how many commits r holds.
func rangeCount(ctx context.Context, dir string, r commitRange) (int, error) {
	out, _, err := runGit(ctx, dir, 1<<10, append([]string{"rev-list", "--count"}, r.revs()...)...)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// independentTips keeps the tips none of the others reaches (the rest add
// nothing to what they exclude), in their order, at most maxTips.
func independentTips(ctx context.Context, dir string, tips []string) ([]string, error) {
	out, _, err := runGit(ctx, dir, 64<<10, append([]string{"merge-base", "--independent"}, tips...)...)
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, s := range strings.Fields(string(out)) {
		keep[s] = true
	}
	var kept []string
	for _, tip := range tips {
		if keep[tip] && len(kept) < maxTips {
			kept = append(kept, tip)
			delete(keep, tip) // once
		}
	}
	return kept, nil
}

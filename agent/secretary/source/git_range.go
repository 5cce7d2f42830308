package source

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// A later poll indexes the commits between the head cursor and HEAD. One
// push may hold more of them than a poll reads (a big merge, a rebase, a
// vendored import: over maxPollCommits, or over maxLogBytes of patches),
// so the range is paged, its oldest commits first, one page per poll; the
// head cursor moves to the range's end only once all of the range is
// indexed. Moved at once, it dropped the older commits of such a push for
// good. The page's position is a cursor stored with the page's events, so
// a restart resumes the range: no commit indexed twice, none skipped.

// CursorRange names the cursor of ctxID's range of new commits being
// paged: "<from> <to> <n>" (the range from..to, of which the oldest n are
// indexed), or "" when none is.
func CursorRange(ctxID string) string { return "git:" + ctxID + ":range" }

// commitRange is the commits reachable from to and not from from, of which
// the oldest done (in git log's order) are indexed.
type commitRange struct {
	from, to string
	done     int
}

func (r commitRange) String() string {
	return r.from + " " + r.to + " " + strconv.Itoa(r.done)
}

func parseRange(v string) (commitRange, bool) {
	f := strings.Fields(v)
	if len(f) != 3 {
		return commitRange{}, false
	}
	done, err := strconv.Atoi(f[2])
	if err != nil || done < 0 {
		return commitRange{}, false
	}
	return commitRange{from: f[0], to: f[1], done: done}, true
}

// pendingRange is the range the poll goes on with: the one being paged,
// if it starts at the head cursor last and its end still exists, else
// last..head. ok is false when there is nothing new.
func pendingRange(ctx context.Context, repo Repo, cur Cursors, last, head string) (r commitRange, ok bool, err error) {
	v, _, err := cur.ContextCursor(ctx, CursorRange(repo.Ctx))
	if err != nil {
		return r, false, err
	}
	if r, ok := parseRange(v); ok && r.from == last && commitExists(ctx, repo.Path, r.to) {
		return r, true, nil
	}
	// A range whose end is gone (history rewritten and collected while it
	// was paged) is given up: last..head holds what is left of it.
	return commitRange{from: last, to: head}, last != head, nil
}

// pollRange adds the next page of r, oldest commits first, and moves the
// cursors past it: the range cursor to the page's end, or, once the range
// is done, the head cursor to its end.
func (g Git) pollRange(ctx context.Context, repo Repo, r commitRange, b *Batch) error {
	total, err := rangeCount(ctx, repo.Path, r)
	if err != nil {
		return err
	}
	left := total - r.done
	if left > 0 {
		page := min(g.pageCap(), left)
		// --skip and --max-count pick from git log's newest-first order,
		// then --reverse lists the pick oldest first: the page is the
		// oldest `page` commits not indexed yet, and a cut at the byte cap
		// drops its newest (parseLog), which the next page starts with.
		args := append(logArgs(), "--reverse", fmt.Sprintf("--skip=%d", left-page), fmt.Sprintf("--max-count=%d", page), r.from+".."+r.to)
		out, capped, err := runGit(ctx, repo.Path, g.logCap(), args...)
		if err != nil {
			return err
		}
		commits := parseLog(string(out), capped)
		if len(commits) == 0 {
			// Moving on would skip the page, staying would stall every
			// later commit; either silently is worse than a poll error.
			return fmt.Errorf("git log %s..%s in %s: no readable commit in a page of %d", r.from, r.to, repo.Path, page)
		}
		for _, c := range commits {
			b.Events = append(b.Events, c.event(repo.Ctx))
		}
		r.done += len(commits)
	}
	if r.done < total {
		b.Cursors[CursorRange(repo.Ctx)] = r.String()
		return nil
	}
	b.Cursors[CursorHead(repo.Ctx)] = r.to
	b.Cursors[CursorRange(repo.Ctx)] = ""
	return nil
}

// rangeCount is how many commits r holds.
func rangeCount(ctx context.Context, dir string, r commitRange) (int, error) {
	out, _, err := runGit(ctx, dir, 1<<10, "rev-list", "--count", r.from+".."+r.to)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

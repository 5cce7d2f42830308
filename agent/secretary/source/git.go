package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Repo is a configured context with a local git checkout.
type Repo struct {
	Ctx  string // context identifier, e.g. acme/webapp
	Path string // local_path
}

// Bounds on what one git poll reads.
const (
	maxInitialCommits = 200      // first poll of a repository: its newest commits
	maxPollCommits    = 500      // later polls
	maxLogBytes       = 16 << 20 // `git log -p` output per poll
	maxMarkerFiles    = 200
	maxMarkers        = 200
	markerLookback    = "30" // commits whose files are scanned for markers
)

// Git polls git repositories.
type Git struct {
	// Since is the start of the retention window: the history walk
	// (git_backfill.go) indexes no commit older than this. Zero: no limit.
	Since time.Time
	// TestOutputs are globs of test output files (test_outputs); empty:
	// the name heuristic over the changed files (git_testfiles.go).
	TestOutputs []string

	// logBytes and pageCommits bound what one poll reads of new commits
	// (zero: maxLogBytes and maxPollCommits); tests set them small.
	logBytes, pageCommits int
}

func (g Git) logCap() int  { return setOr(g.logBytes, maxLogBytes) }
func (g Git) pageCap() int { return setOr(g.pageCommits, maxPollCommits) }

// setOr is a bound a test set (above zero), else its default.
func setOr(set, def int) int {
	if set > 0 {
		return set
	}
	return def
}

// CursorHead names the cursor holding the last indexed commit of ctxID.
func CursorHead(ctxID string) string { return "git:" + ctxID + ":head" }

func cursorState(ctxID, kind string) string { return "git:" + ctxID + ":state:" + kind }

// Poll returns what changed in repo since the stored cursors: new commits,
// the indexed ones no ref reaches any more (Removed), and the branch,
// uncommitted changes and markers when they differ from what was stored.
func (g Git) Poll(ctx context.Context, repo Repo, cur Cursors) (Batch, error) {
	b := Batch{Source: "git", Cursors: map[string]string{}}
	if err := atTopLevel(ctx, repo); err != nil {
		return b, err
	}
	head, err := headSHA(ctx, repo.Path)
	if err != nil {
		return b, err
	}
	if head != "" {
		if err := g.pollCommits(ctx, repo, cur, head, &b); err != nil {
			return b, err
		}
		// Before the history walk: a walk starting in history that was
		// rewritten away ends here, indexing none of it.
		if err := dropRewritten(ctx, repo, cur, head, &b); err != nil {
			return b, err
		}
		if err := g.backfillCommits(ctx, repo, cur, &b); err != nil {
			return b, err
		}
	}
	testFiles := func(ctx context.Context, r Repo) (State, error) { return testFileState(ctx, r, g.TestOutputs) }
	states := []func(context.Context, Repo) (State, error){branchState, worktreeState, markerState, testFiles, tagState}
	for _, fn := range states {
		st, err := fn(ctx, repo)
		if err != nil {
			return b, err
		}
		changed, err := addIfChanged(ctx, cur, st, &b)
		if err != nil {
			return b, err
		}
		if changed && st.Kind == "marker" {
			// Blamed only when the markers change: dates follow from
			// the lines, and a blame on every poll would cost seconds
			// in a long history.
			dateMarkers(ctx, repo, st.Events)
		}
	}
	return b, nil
}

// atTopLevel refuses a local_path inside a larger repository: git's log
// and status cover the whole repository, and every path in them would be
// judged as if under this context (a context at mono/web let a peer read
// mono/payroll's commits as acme/monoweb/payroll/…, the attack run's
// re-check). The context must name the repository's top.
func atTopLevel(ctx context.Context, repo Repo) error {
	out, _, err := runGit(ctx, repo.Path, 4<<10, "rev-parse", "--show-prefix")
	if err != nil {
		return nil // no repository (yet): headSHA says so
	}
	if prefix := strings.TrimSpace(string(out)); prefix != "" {
		top, _, _ := runGit(ctx, repo.Path, 4<<10, "rev-parse", "--show-toplevel")
		return fmt.Errorf("context %s: local_path %s is the folder %s of the git repository at %s, whose history holds the rest too; "+
			"set local_path to the repository's top (and narrow with folder ACL rules) or make the folder a repository of its own",
			repo.Ctx, repo.Path, strings.TrimSuffix(prefix, "/"), strings.TrimSpace(string(top)))
	}
	return nil
}

func headSHA(ctx context.Context, dir string) (string, error) {
	out, _, err := runGit(ctx, dir, 1<<10, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		// An empty repository has no HEAD yet: nothing to index.
		if _, _, e2 := runGit(ctx, dir, 1<<10, "rev-parse", "--git-dir"); e2 == nil {
			return "", nil
		}
		return "", fmt.Errorf("%s (%s) is not a readable git repository: %w", dir, "context local_path", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// pollCommits adds the commits after the head cursor, a page at a time
// (git_range.go), or the newest ones on the first poll.
func (g Git) pollCommits(ctx context.Context, repo Repo, cur Cursors, head string, b *Batch) error {
	last, ok, err := cur.ContextCursor(ctx, CursorHead(repo.Ctx))
	if err != nil {
		return err
	}
	if !ok {
		return g.pollFirst(ctx, repo, head, b)
	}
	r, paging, err := pagedRange(ctx, repo, cur)
	if err != nil || !paging && last == head {
		return err
	}
	tips, err := indexedTips(ctx, repo, cur, last)
	if err != nil {
		return err
	}
	if len(tips) == 0 {
		if err := dropLost(ctx, repo, cur, b); err != nil {
			return err
		}
		return g.pollFirst(ctx, repo, head, b)
	}
	if !paging {
		r = commitRange{to: head, tips: tips}
	}
	return g.pollRange(ctx, repo, r, b)
}

// pollFirst adds the newest commits of a repository not indexed yet (or
// whose indexed tips are all gone) and starts the history walk from head.
func (g Git) pollFirst(ctx context.Context, repo Repo, head string, b *Batch) error {
	args := append(logArgs(), fmt.Sprintf("--max-count=%d", maxInitialCommits), head)
	out, capped, err := runGit(ctx, repo.Path, g.logCap(), args...)
	if err != nil {
		return err
	}
	commits := parseLog(string(out), capped)
	// git log lists newest first; store oldest first so ids follow history.
	for i := len(commits) - 1; i >= 0; i-- {
		b.Events = append(b.Events, commits[i].event(repo.Ctx))
	}
	b.Cursors[CursorHead(repo.Ctx)] = head
	b.Cursors[cursorTips(repo.Ctx)] = head
	// The rest of the history follows from this head (git_backfill.go),
	// unless this poll already read all of it.
	b.Cursors[CursorBackfill(repo.Ctx)] = backfillCursor(head, len(commits))
	if len(commits) < maxInitialCommits && !capped {
		b.Cursors[CursorBackfill(repo.Ctx)] = backfillDone
	}
	return nil
}

func commitExists(ctx context.Context, dir, sha string) bool {
	_, _, err := runGit(ctx, dir, 1<<10, "cat-file", "-e", sha+"^{commit}")
	return err == nil
}

// addIfChanged adds st to the batch when its digest differs from the stored
// one, and reports whether it did.
func addIfChanged(ctx context.Context, cur Cursors, st State, b *Batch) (bool, error) {
	// State events carry no timestamp (the store stamps them when they
	// change), so equal state always has an equal digest.
	raw, err := json.Marshal(st.Events)
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(raw)
	digest := hex.EncodeToString(sum[:12])
	name := cursorState(st.Ctx, st.Kind)
	prev, _, err := cur.ContextCursor(ctx, name)
	if err != nil {
		return false, err
	}
	if prev == digest {
		return false, nil
	}
	b.States = append(b.States, st)
	b.Cursors[name] = digest
	return true, nil
}

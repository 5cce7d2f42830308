package eval

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// History is squeezed into the last historySpan before now (keeping commit
// order), ending headAge ago: the public repositories are years old, and
// the secretary keeps retention_days (default 30) of work.
const (
	historySpan = 26 * 24 * time.Hour
	headAge     = 3 * time.Hour
)

// Planted is one repository ready to index.
type Planted struct {
	Spec RepoSpec
	Dir  string            // work tree
	SHAs map[string]string // pinned-history SHA → rewritten SHA
}

// sourceFor says where to clone a repository from: a local copy under
// reposDir when there is one, else its public URL.
func sourceFor(spec RepoSpec, reposDir string) string {
	if reposDir == "" {
		return spec.URL
	}
	owner, name := ownerName(spec.URL)
	for _, c := range []string{
		filepath.Join(reposDir, owner+"+"+name, "repo"),
		filepath.Join(reposDir, owner+"+"+name),
		filepath.Join(reposDir, owner, name),
		filepath.Join(reposDir, name),
		filepath.Join(reposDir, name+".git"),
	} {
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return c
		}
	}
	return spec.URL
}

func ownerName(url string) (owner, name string) {
	parts := strings.Split(strings.TrimSuffix(strings.TrimSuffix(url, "/"), ".git"), "/")
	if len(parts) < 2 {
		return "", url
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// prepare clones spec at its pinned commit into work/<name>, moves its
// history into the retention window and plants what spec.Plant says.
func prepare(ctx context.Context, spec RepoSpec, work, reposDir string, now time.Time, sec Secrets) (*Planted, error) {
	src := filepath.Join(work, spec.Name+".src.git")
	dst := filepath.Join(work, spec.Name)
	from := sourceFor(spec, reposDir)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dst); err != nil {
		return nil, err
	}
	os.RemoveAll(src)
	if _, err := git(ctx, work, "clone", "--bare", "--quiet", from, src); err != nil {
		return nil, fmt.Errorf("clone %s from %s (set AOI_EVAL_REPOS_DIR to a folder of local copies when offline): %w", spec.Name, from, err)
	}
	defer os.RemoveAll(src)
	if _, err := git(ctx, src, "cat-file", "-e", spec.SHA+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%s has no commit %s: the pinned commit must be in its history: %w", from, spec.SHA, err)
	}
	shas, err := rewriteHistory(ctx, src, dst, spec.SHA, now.Add(-headAge))
	if err != nil {
		return nil, fmt.Errorf("rewrite %s: %w", spec.Name, err)
	}
	p := &Planted{Spec: spec, Dir: dst, SHAs: shas}
	if err := plant(ctx, dst, spec.Plant, now, sec); err != nil {
		return nil, fmt.Errorf("plant %s: %w", spec.Name, err)
	}
	return p, nil
}

// rewriteHistory copies the history of sha (branch main) and the tags it
// contains from src into a new repository dst with every date moved into
// [head-historySpan, head], keeping their order; it returns the SHA map.
func rewriteHistory(ctx context.Context, src, dst, sha string, head time.Time) (map[string]string, error) {
	if _, err := git(ctx, src, "update-ref", "refs/heads/aoi-eval-main", sha); err != nil {
		return nil, err
	}
	out, err := git(ctx, src, "for-each-ref", "--merged", sha, "--format=%(refname)", "refs/tags")
	if err != nil {
		return nil, err
	}
	refs := append([]string{"refs/heads/aoi-eval-main"}, strings.Fields(out)...)
	stamps, err := git(ctx, src, "log", "--format=%at%n%ct", sha)
	if err != nil {
		return nil, err
	}
	dm := newDateMap(strings.Fields(stamps), head)
	missing, err := missingBlobs(ctx, src, sha)
	if err != nil {
		return nil, err
	}
	if _, err := git(ctx, filepath.Dir(dst), "init", "--quiet", "-b", "main", dst); err != nil {
		return nil, err
	}
	// The stream names blobs by hash (--no-data): dst borrows src's objects
	// until the repack below copies them in.
	srcObjects, err := git(ctx, src, "rev-parse", "--path-format=absolute", "--git-path", "objects")
	if err != nil {
		return nil, err
	}
	alternates := filepath.Join(dst, ".git", "objects", "info", "alternates")
	if err := os.WriteFile(alternates, []byte(strings.TrimSpace(srcObjects)+"\n"), 0o644); err != nil {
		return nil, err
	}
	srcMarks, dstMarks := dst+".src-marks", dst+".dst-marks"
	defer os.Remove(srcMarks)
	defer os.Remove(dstMarks)
	exp := exec.CommandContext(ctx, "git", append([]string{"-C", src, "fast-export", "--no-data", "--reencode=yes", "--signed-tags=strip",
		"--export-marks=" + srcMarks}, refs...)...)
	imp := exec.CommandContext(ctx, "git", "-C", dst, "fast-import", "--quiet", "--export-marks="+dstMarks)
	expOut, err := exp.StdoutPipe()
	if err != nil {
		return nil, err
	}
	impIn, err := imp.StdinPipe()
	if err != nil {
		return nil, err
	}
	var expErr, impErr bytes.Buffer
	exp.Stderr, imp.Stderr = &expErr, &impErr
	if err := exp.Start(); err != nil {
		return nil, err
	}
	if err := imp.Start(); err != nil {
		return nil, err
	}
	ferr := filterStream(expOut, impIn, dm, missing)
	impIn.Close()
	e1, e2 := exp.Wait(), imp.Wait()
	if err := errors.Join(ferr, e1, e2); err != nil {
		return nil, fmt.Errorf("%w: %s %s", err, expErr.String(), impErr.String())
	}
	// Name the branch main, drop the temporary name, check it out.
	for _, args := range [][]string{
		{"update-ref", "refs/heads/main", "refs/heads/aoi-eval-main"},
		{"update-ref", "-d", "refs/heads/aoi-eval-main"},
		{"repack", "-a", "-d", "-q"},
	} {
		if _, err := git(ctx, dst, args...); err != nil {
			return nil, err
		}
	}
	if err := os.Remove(alternates); err != nil {
		return nil, err
	}
	if _, err := git(ctx, dst, "checkout", "--quiet", "--force", "main"); err != nil {
		return nil, err
	}
	return joinMarks(srcMarks, dstMarks)
}

// dateMap moves timestamps into the window by rank: the k-th oldest of n
// distinct timestamps lands at head - span·(n-1-k)/(n-1).
type dateMap struct {
	sorted []int64
	head   time.Time
}

func newDateMap(stamps []string, head time.Time) dateMap {
	seen := map[int64]bool{}
	var ts []int64
	for _, s := range stamps {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && !seen[v] {
			seen[v] = true
			ts = append(ts, v)
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	return dateMap{sorted: ts, head: head}
}

func (d dateMap) at(unix int64) int64 {
	n := len(d.sorted)
	if n < 2 {
		return d.head.Unix()
	}
	k := sort.Search(n, func(i int) bool { return d.sorted[i] >= unix })
	frac := float64(k) / float64(n-1)
	if frac > 1 {
		frac = 1
	}
	return d.head.Add(-time.Duration((1 - frac) * float64(historySpan))).Unix()
}

// missingBlobs lists the objects of sha's history that the copy lacks (a
// snapshot may leave out its largest files); they are left out of the
// rewritten history.
func missingBlobs(ctx context.Context, src, sha string) (map[string]bool, error) {
	out, err := git(ctx, src, "rev-list", "--objects", "--missing=print", sha)
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "?"); ok {
			m[strings.TrimSpace(rest)] = true
		}
	}
	return m, nil
}

// filterStream copies a fast-export stream, moving the dates of author,
// committer and tagger lines and dropping files whose blob is missing;
// data blocks pass through untouched.
func filterStream(r io.Reader, w io.Writer, dm dateMap, missing map[string]bool) error {
	br := bufio.NewReaderSize(r, 1<<20)
	bw := bufio.NewWriterSize(w, 1<<20)
	for {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if err == io.EOF {
				return bw.Flush()
			}
			return err
		}
		switch {
		case strings.HasPrefix(line, "data "):
			n, perr := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "data ")))
			if perr != nil {
				return fmt.Errorf("fast-export stream: unexpected %q", strings.TrimSpace(line))
			}
			bw.WriteString(line)
			if _, err := io.CopyN(bw, br, int64(n)); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(line, "author "), strings.HasPrefix(line, "committer "), strings.HasPrefix(line, "tagger "):
			line = moveDate(line, dm)
		case strings.HasPrefix(line, "M "):
			if f := strings.SplitN(line, " ", 4); len(f) == 4 && missing[f[2]] {
				continue
			}
		}
		bw.WriteString(line)
	}
}

// moveDate rewrites "who <email> 1234567890 +0900\n".
func moveDate(line string, dm dateMap) string {
	i := strings.LastIndex(line, "> ")
	if i < 0 {
		return line
	}
	f := strings.Fields(line[i+2:])
	if len(f) != 2 {
		return line
	}
	ts, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return line
	}
	return fmt.Sprintf("%s> %d %s\n", line[:i], dm.at(ts), f[1])
}

// joinMarks maps old object names to new ones through the marks both
// sides of the fast-export/fast-import pipe wrote.
func joinMarks(srcMarks, dstMarks string) (map[string]string, error) {
	read := func(p string) (map[string]string, error) {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		m := map[string]string{}
		for _, l := range strings.Split(string(raw), "\n") {
			if mark, sha, ok := strings.Cut(l, " "); ok {
				m[mark] = sha
			}
		}
		return m, nil
	}
	a, err := read(srcMarks)
	if err != nil {
		return nil, err
	}
	b, err := read(dstMarks)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(a))
	for mark, old := range a {
		if nw, ok := b[mark]; ok {
			out[old] = nw
		}
	}
	return out, nil
}

// git runs git in dir with a fixed identity and no user config.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitEnv(ctx, dir, nil, args...)
}

func gitEnv(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Aoi Eval", "GIT_AUTHOR_EMAIL=owner@example.com", "GIT_COMMITTER_NAME=Aoi Eval", "GIT_COMMITTER_EMAIL=owner@example.com")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

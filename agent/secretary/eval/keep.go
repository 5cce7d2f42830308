package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// indexCode names, as git pathspecs, the source an index is built by: the
// store, the config, the redactor and the secretary's polling and
// ingesting, with the planting recipe. The files excluded only read the
// index (searching, ranking, answering, scoring); a change to them leaves a
// kept index valid. A file both sides use stays in: access.go (ingest
// cleans paths with it). A new file counts as index code until it is
// excluded here, so the default is to rebuild.
var indexCode = []string{
	"go.mod", "go.sum", "store", "config", "agent/redact", "agent/secretary",
	":(exclude)*_test.go",
	":(exclude)store/context_search.go",
	":(exclude)agent/secretary/testdata",
	":(exclude)agent/secretary/glossary",
	":(exclude)agent/secretary/interrupt",
	":(exclude)agent/secretary/answer.go",
	":(exclude)agent/secretary/authors.go",
	":(exclude)agent/secretary/blockers.go",
	":(exclude)agent/secretary/decide.go",
	":(exclude)agent/secretary/evidence.go",
	":(exclude)agent/secretary/llm.go",
	":(exclude)agent/secretary/llm_expand.go",
	":(exclude)agent/secretary/loanword.go",
	":(exclude)agent/secretary/progress.go",
	":(exclude)agent/secretary/progress_items.go",
	":(exclude)agent/secretary/query.go",
	":(exclude)agent/secretary/release.go",
	":(exclude)agent/secretary/succession.go",
	":(exclude)agent/secretary/summary.go",
	":(exclude)agent/secretary/eval/corpus/questions.json",
	":(exclude)agent/secretary/eval/keep.go",
	":(exclude)agent/secretary/eval/report.go",
	":(exclude)agent/secretary/eval/score.go",
}

// IndexCodeVersion fingerprints the index code (indexCode) of the aoi
// checkout holding dir: the content of its files as they are on disk,
// committed or not, untracked ones included. It fails outside a git
// checkout; then no index is reused.
func IndexCodeVersion(ctx context.Context, dir string) (string, error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return out, nil
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	dir = strings.TrimSpace(string(top))
	files, err := git(append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"}, indexCode...)...)
	if err != nil {
		return "", err
	}
	names := strings.Split(string(files), "\x00")
	slices.Sort(names)
	h := sha256.New()
	for _, name := range slices.Compact(names) {
		if name == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// keptIndex is what a kept index was built from (work/index.json).
type keptIndex struct {
	Key string    `json:"key"` // indexKey of the build
	Now time.Time `json:"now"` // the hour the histories were dated from
}

const keptIndexFile = "index.json"

// indexKey names what an index holds: the repositories with their planting
// recipes, the seed of the planted secrets and the index code's version.
func indexKey(c *Corpus, seed uint64, codeVersion string) (string, error) {
	repos, err := json.Marshal(c.Repos)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "seed %d\ncode %s\n", seed, codeVersion)
	h.Write(repos)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// reusableIndex returns the hour a kept index in work was dated from when
// it was built for key and is still there; ok is false otherwise.
func reusableIndex(work, key string) (now time.Time, ok bool) {
	raw, err := os.ReadFile(filepath.Join(work, keptIndexFile))
	if err != nil {
		return time.Time{}, false
	}
	var k keptIndex
	if json.Unmarshal(raw, &k) != nil || k.Key != key || k.Now.IsZero() {
		return time.Time{}, false
	}
	if _, err := os.Stat(filepath.Join(work, "aoi.db")); err != nil {
		return time.Time{}, false
	}
	return k.Now, true
}

// keepIndex records that the index in work was built for key.
func keepIndex(work, key string, now time.Time) error {
	raw, err := json.Marshal(keptIndex{Key: key, Now: now})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(work, keptIndexFile), raw, 0o644)
}

// forgetIndex removes the record of a kept index, before the index is
// rebuilt: one that is cut short is not reused.
func forgetIndex(work string) error {
	if err := os.Remove(filepath.Join(work, keptIndexFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

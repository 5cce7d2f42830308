// Package eval measures how well the secretary answers colleagues'
// questions: it rebuilds a few public repositories at pinned commits,
// plants blockers and fake secrets in them, indexes them exactly as aoi
// does (real store, real config, real git source) and asks a fixed set of
// English and Japanese questions through Secretary.Answer. It reports how
// often a right file or commit is among the first refs, how many planted
// blockers are listed, whether any secret leaks, and how confidence relates
// to the default auto_respond_threshold. It is deterministic (no LLM) and
// kept out of `make test`: run it with `make eval`.
package eval

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed corpus/*.json
var corpusFS embed.FS

// RepoSpec is one evaluation repository, pinned at a commit, with what is
// planted in it.
type RepoSpec struct {
	Name    string `json:"name"`    // short name used by questions
	URL     string `json:"url"`     // public clone URL
	SHA     string `json:"sha"`     // pinned commit
	Context string `json:"context"` // context identifier in the eval config
	Plant   Plant  `json:"plant"`
}

// Plant is what is added on top of the pinned history: commits, stale
// FIXMEs, an uncommitted diff, test output files and owner notes. Texts may
// hold secret placeholders ({{AWS_ACCESS_KEY}}, {{AWS_SECRET_KEY}},
// {{GITHUB_TOKEN}}, {{PEM_KEY}}) replaced by freshly generated fake secrets.
type Plant struct {
	StaleFixmes StaleFixmes   `json:"stale_fixmes"`
	Commits     []PlantCommit `json:"commits"`
	Uncommitted []FileEdit    `json:"uncommitted"`
	TestOutputs []FileEdit    `json:"test_outputs"` // written untracked under the work tree
	Notes       []PlantNote   `json:"notes"`
}

// StaleFixmes spreads Count old FIXME comments over Files in one commit
// AgeHours old, so the planted fresh ones must be told apart from them.
type StaleFixmes struct {
	Count    int      `json:"count"`
	Files    []string `json:"files"`
	AgeHours float64  `json:"age_hours"`
}

// PlantCommit is a commit made on top of the pinned history.
type PlantCommit struct {
	Message  string     `json:"message"`
	AgeHours float64    `json:"age_hours"`
	Edits    []FileEdit `json:"edits"`
}

// FileEdit appends to (or creates) a file of the work tree.
type FileEdit struct {
	Path   string `json:"path"`
	Append string `json:"append"`
}

// PlantNote is an owner note (as `aoi note` stores it), AgeHours old.
type PlantNote struct {
	Text     string  `json:"text"`
	AgeHours float64 `json:"age_hours"`
}

// Question kinds.
const (
	KindTopic    = "topic"    // right answer: a ground-truth file or commit in the top 3 refs
	KindBlocker  = "blocker"  // right answer: the planted blocker listed
	KindOffTopic = "offtopic" // right answer: confidence below the threshold
)

// Question is one colleague's question with its ground truth.
type Question struct {
	ID       string   `json:"id"`
	Repo     string   `json:"repo"`
	Lang     string   `json:"lang"` // en | ja
	Kind     string   `json:"kind"`
	Text     string   `json:"text"`
	Files    []string `json:"files,omitempty"`    // repository-relative; a trailing "/" matches anything below
	Commits  []string `json:"commits,omitempty"`  // pinned-history SHAs (full or ≥ 7 hex digits)
	Blockers []string `json:"blockers,omitempty"` // distinctive text of the planted blocker(s)
}

// Corpus is the repositories and questions.
type Corpus struct {
	Repos     []RepoSpec
	Questions []Question
}

// LoadCorpus reads the built-in corpus (corpus/repos.json and
// corpus/questions.json) and checks it is consistent.
func LoadCorpus() (*Corpus, error) { return loadCorpus(corpusFS) }

// LoadCorpusDir reads another corpus (a held-out set) from dir, laid out
// like the built-in one: dir/corpus/repos.json and dir/corpus/questions.json,
// or the two files directly in dir.
func LoadCorpusDir(dir string) (*Corpus, error) {
	if _, err := os.Stat(filepath.Join(dir, "corpus", "repos.json")); err == nil {
		return loadCorpus(os.DirFS(dir))
	}
	return loadCorpus(prefixFS{os.DirFS(dir)})
}

// prefixFS serves dir/x as corpus/x.
type prefixFS struct{ fs.FS }

func (p prefixFS) Open(name string) (fs.File, error) {
	rest, ok := strings.CutPrefix(name, "corpus/")
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return p.FS.Open(rest)
}

func loadCorpus(fsys fs.FS) (*Corpus, error) {
	var c Corpus
	if err := readJSON(fsys, "corpus/repos.json", &c.Repos); err != nil {
		return nil, err
	}
	if err := readJSON(fsys, "corpus/questions.json", &c.Questions); err != nil {
		return nil, err
	}
	return &c, c.check()
}

func readJSON(fsys fs.FS, name string, v any) error {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("eval corpus: %w", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("eval corpus %s: %w", name, err)
	}
	return nil
}

// check rejects a question naming an unknown repository, a duplicate id, a
// bad kind or language, or a question without the ground truth its kind needs.
func (c *Corpus) check() error {
	repos := map[string]bool{}
	for _, r := range c.Repos {
		repos[r.Name] = true
	}
	ids := map[string]bool{}
	for _, q := range c.Questions {
		switch {
		case ids[q.ID]:
			return fmt.Errorf("eval corpus: question id %q is used twice", q.ID)
		case !repos[q.Repo]:
			return fmt.Errorf("eval corpus: question %s names unknown repo %q", q.ID, q.Repo)
		case q.Lang != "en" && q.Lang != "ja":
			return fmt.Errorf("eval corpus: question %s has language %q (want en or ja)", q.ID, q.Lang)
		case q.Kind == KindTopic && len(q.Files)+len(q.Commits) == 0:
			return fmt.Errorf("eval corpus: topic question %s has no ground-truth file or commit", q.ID)
		case q.Kind == KindBlocker && len(q.Blockers) == 0:
			return fmt.Errorf("eval corpus: blocker question %s has no ground-truth blocker", q.ID)
		case q.Kind != KindTopic && q.Kind != KindBlocker && q.Kind != KindOffTopic:
			return fmt.Errorf("eval corpus: question %s has kind %q", q.ID, q.Kind)
		}
		ids[q.ID] = true
	}
	return nil
}

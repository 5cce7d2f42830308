package secretary

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/store"
)

// authorHits is how many of the best commits a "who" answer draws its
// names from: enough to see who did most of the work, few enough that a
// weak match further down does not add a name.
const authorHits = 10

// maxAuthors bounds the names one answer lists.
const maxAuthors = 3

// authorCount is one author of the answer's commits.
type authorCount struct {
	name    string
	commits int
	latest  time.Time
}

// authors names who made the answer's best-matching commits (git's author
// name; the index keeps no e-mail addresses), of those changing the files
// the question names if any do: most commits first, or the newest first
// when the question asks for the latest ("who touched args.go last?").
func authors(hits []store.ContextHit, files []string, newestFirst bool) []authorCount {
	// A question naming a file asks who changed that file: when any
	// commit does, only those count.
	onFiles := slices.ContainsFunc(hits, func(h store.ContextHit) bool { return h.Kind == "commit" && touchesFile(h, files) })
	byName := map[string]*authorCount{}
	var out []*authorCount
	seen := 0
	for _, h := range hits {
		if seen == authorHits {
			break
		}
		if h.Kind != "commit" || (onFiles && !touchesFile(h, files)) {
			continue
		}
		seen++
		name := strings.TrimSpace(parseMeta(h.Meta).Author)
		if name == "" {
			continue
		}
		a := byName[name]
		if a == nil {
			a = &authorCount{name: name}
			byName[name] = a
			out = append(out, a)
		}
		a.commits++
		if h.TS.After(a.latest) {
			a.latest = h.TS
		}
	}
	slices.SortStableFunc(out, func(x, y *authorCount) int {
		if !newestFirst && x.commits != y.commits {
			return y.commits - x.commits
		}
		return y.latest.Compare(x.latest)
	})
	res := make([]authorCount, 0, min(len(out), maxAuthors))
	for _, a := range out[:min(len(out), maxAuthors)] {
		res = append(res, *a)
	}
	return res
}

// authorItems words the authors for the summary: "Ana Ruiz (3 commits,
// latest 2 days ago)" / "Ana Ruiz（3件、最新は2日前）".
func authorItems(list []authorCount, t templates, now time.Time) []string {
	items := make([]string, 0, len(list))
	for _, a := range list {
		items = append(items, t.author(a.name, a.commits, t.ago(now.Sub(a.latest))))
	}
	return items
}

func authorEN(name string, commits int, ago string) string {
	if commits == 1 {
		return fmt.Sprintf("%s (1 commit, %s)", name, ago)
	}
	return fmt.Sprintf("%s (%d commits, latest %s)", name, commits, ago)
}

func authorJA(name string, commits int, ago string) string {
	if commits == 1 {
		return fmt.Sprintf("%s（1件、%s）", name, ago)
	}
	return fmt.Sprintf("%s（%d件、最新は%s）", name, commits, ago)
}

package secretary

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// evidence groups search hits by file, commit, task and note.
type evidence struct {
	files    map[string]*fileEvidence
	commits  []wire.ContextRef
	scores   []float64 // commits[i]'s own match score
	ctxs     []string  // commits[i]'s context
	tasks    []wire.ContextRef
	notes    []wire.ContextRef
	contexts []string // contexts the hits come from, best first
}

type fileEvidence struct {
	path   string
	ctx    string // the context of its best evidence
	lo, hi int
	score  float64 // accumulated over every hit (orders files among themselves)
	best   float64 // the strongest single piece of evidence (ranks against commits)
	named  bool    // the path contains a term of the question
	// bestCommit is the commit that gave best ("" when best came from
	// elsewhere): when that commit is listed, it stands for the file.
	bestCommit string
	summary    string
	order      int
}

// fileFirst puts the hits that touch a file the question names first
// ("what changed in doc/man_docs.go?"): the name's words also match
// commits that only mention them. Their scores rise above every other
// hit's, so the references rank them first too; within each group the
// ranking stays as it was.
func fileFirst(hits []store.ContextHit, files []string) []store.ContextHit {
	if len(files) == 0 {
		return hits
	}
	top := 0.0
	for _, h := range hits {
		top = max(top, h.Score)
	}
	for i := range hits {
		if touchesFile(hits[i], files) {
			hits[i].Score += top
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits
}

// touchesFile reports whether a hit changes or is in one of files (a path
// as the question wrote it: whole, or its last elements).
func touchesFile(h store.ContextHit, files []string) bool {
	paths := eventFiles(store.ContextEvent{Kind: h.Kind, Key: h.Key, Meta: h.Meta})
	if f := fileOfMarker(store.ContextEvent{Kind: h.Kind, Key: h.Key}); f != "" {
		paths = append(paths, f)
	}
	for _, p := range paths {
		for _, f := range files {
			f = cleanRel(f)
			if p == f || strings.HasSuffix(p, "/"+f) {
				return true
			}
		}
	}
	return false
}

// nearLines is how far from the evidence's lines a marker may sit and
// still be about that work.
const nearLines = 20

// near reports whether line is by the evidence's lines of the file, or the
// file's path names the topic. A nil file is near nothing.
func (f *fileEvidence) near(line int) bool {
	if f == nil {
		return false
	}
	return f.named || (f.lo > 0 && line >= f.lo-nearLines && line <= f.hi+nearLines)
}

// groupEvidence folds hits (best first) into per-file, per-commit,
// per-task and per-note evidence.
func groupEvidence(hits []store.ContextHit, pq parsedQuery) *evidence {
	ev := &evidence{files: map[string]*fileEvidence{}}
	seenCtx, seenCommit := map[string]bool{}, map[string]bool{}
	work := branchCommits(hits)
	hits = workBeforeMerge(hits, work)
	for _, h := range hits {
		if h.Ctx != "" && !seenCtx[h.Ctx] {
			seenCtx[h.Ctx] = true
			ev.contexts = append(ev.contexts, h.Ctx)
		}
		m := parseMeta(h.Meta)
		summary := clipRunes(h.Title, 120)
		switch h.Kind {
		case "commit":
			// A pull request's merge and the commit it merged say the
			// same thing; the commit, which is the work, is listed once,
			// where the better of the two ranks.
			listed := h
			if w, ok := work[mergedTopic(h)]; ok {
				listed = w
			}
			if !seenCommit[listed.Key] && len(listed.Key) >= 7 {
				seenCommit[listed.Key] = true
				ev.commits = append(ev.commits, wire.ContextRef{Type: "commit", Ref: listed.Key[:7], Summary: clipRunes(listed.Title, 120)})
				ev.scores = append(ev.scores, h.Score)
				ev.ctxs = append(ev.ctxs, listed.Ctx)
			}
			for _, f := range m.Files {
				if f.Path == "" {
					continue
				}
				before := 0.0
				if fe := ev.files[f.Path]; fe != nil {
					before = fe.best
				}
				ev.addFile(h.Ctx, f.Path, f.Lines, h.Score, summary, pq)
				// Credited to the commit listed for this hit (a merge's
				// files to the commit it merged), which then stands for
				// the file in the references.
				if fe := ev.files[f.Path]; fe.best > before && len(listed.Key) >= 7 {
					fe.bestCommit = listed.Key[:7]
				}
			}
		case "marker":
			file, line, _ := strings.Cut(h.Key, ":")
			ev.addFile(h.Ctx, file, line+"-"+line, h.Score, summary, pq)
		case KindTask:
			ev.tasks = append(ev.tasks, wire.ContextRef{Type: "task", Ref: h.Key, Summary: summary})
		case KindNote:
			ev.notes = append(ev.notes, wire.ContextRef{Type: "note", Ref: h.TS.UTC().Format("2006-01-02T15:04Z"), Summary: clipRunes(h.Snippet, 120)})
		default:
			for _, f := range eventFiles(store.ContextEvent{Kind: h.Kind, Key: h.Key, Meta: h.Meta}) {
				ev.addFile(h.Ctx, f, "", h.Score, summary, pq)
			}
		}
	}
	return ev
}

// branchCommits indexes the hits' commits that did not land a pull
// request by their subject, for mergedTopic to find the commit a pull
// request's merge brought in.
func branchCommits(hits []store.ContextHit) map[string]store.ContextHit {
	work := map[string]store.ContextHit{}
	for _, h := range hits {
		if h.Kind != "commit" || mergedTopic(h) != "" || isMergeTitle(h.Title) {
			continue
		}
		if t := normTopic(h.Title); t != "" {
			if _, dup := work[t]; !dup {
				work[t] = h
			}
		}
	}
	return work
}

// broughtInWindow is how long before a merge a commit of the branch it
// merged may have been made.
const broughtInWindow = 60 * 24 * time.Hour

// workBeforeMerge moves a commit a merge brought in ahead of the merge
// when both match and the merge ranks first: the commit says what was
// done, the merge only that it landed. A commit counts as brought in when
// it is older than the merge (by at most broughtInWindow), in the same
// context, and every file it changed is among the files the merge brought
// (its diff against the first parent). The two swap places and scores, so
// the references list the work first. A merge whose pull request title
// names a commit of the hits (mergedTopic) is left to that commit's
// listing. The hits are copied, not changed.
func workBeforeMerge(hits []store.ContextHit, work map[string]store.ContextHit) []store.ContextHit {
	var out []store.ContextHit
	moved := map[int]bool{}
	for i, m := range hits {
		if m.Kind != "commit" || !isMergeTitle(m.Title) || moved[i] {
			continue
		}
		if _, ok := work[mergedTopic(m)]; ok {
			continue
		}
		mf := commitFiles(m)
		if len(mf) == 0 {
			continue
		}
		for j := i + 1; j < len(hits); j++ {
			c := hits[j]
			if c.Kind != "commit" || isMergeTitle(c.Title) || c.Ctx != m.Ctx || moved[j] || c.TS.After(m.TS) || m.TS.Sub(c.TS) > broughtInWindow {
				continue
			}
			cf := commitFiles(c)
			if len(cf) == 0 || slices.ContainsFunc(cf, func(f string) bool { return !slices.Contains(mf, f) }) {
				continue
			}
			if out == nil {
				out = slices.Clone(hits)
			}
			out[i], out[j] = c, m
			out[i].Score, out[j].Score = m.Score, c.Score
			moved[i], moved[j] = true, true
			break
		}
	}
	if out == nil {
		return hits
	}
	return out
}

// mergedWorkRefs is how many of the best hits are looked at for a pull
// request's merge whose work did not match.
const mergedWorkRefs = 10

// mergedWork finds, for a pull request's merge among the best hits whose
// title (the pull request's, mergedTopic) names no commit of the hits,
// the commit of that title it brought in, and adds it after the hits, so
// the references list the work where the merge ranks (groupEvidence). A
// merge can match where its work does not: history written in Japanese
// merges branches named in English ("add-quote-shortcut" for 引用ツイートを
// … ショートカットを追加), so an English question finds the merge only.
func (s *Secretary) mergedWork(ctx context.Context, hits []store.ContextHit, ac *accessCheck) ([]store.ContextHit, error) {
	work := branchCommits(hits)
	var added []store.ContextHit
	for i, m := range hits {
		if i == mergedWorkRefs {
			break
		}
		if m.Kind != "commit" || !strings.HasPrefix(m.Title, "Merge pull request ") {
			continue
		}
		t := mergedTopic(m)
		if _, ok := work[t]; ok || t == "" {
			continue
		}
		found, err := s.db.SearchContext(ctx, store.ContextSearch{Terms: []string{t}, Contexts: []string{m.Ctx}, Kinds: []string{"commit"},
			Limit: 5, Allow: ac.allow})
		if err != nil {
			return nil, err
		}
		for _, c := range found {
			if normTopic(c.Title) == t && !isMergeTitle(c.Title) && !c.TS.After(m.TS) && m.TS.Sub(c.TS) <= broughtInWindow {
				c.Score = 0
				work[t] = c
				added = append(added, c)
				break
			}
		}
	}
	if added == nil {
		return hits, nil
	}
	return append(slices.Clone(hits), added...), nil
}

// commitFiles are the files a commit hit changed.
func commitFiles(h store.ContextHit) []string {
	var out []string
	for _, f := range parseMeta(h.Meta).Files {
		if f.Path != "" {
			out = append(out, f.Path)
		}
	}
	return out
}

// prNumber is the "(#123)" GitHub appends to the subject of a pull
// request it merges or squashes.
var prNumber = regexp.MustCompile(`\s*\(#\d+\)\s*$`)

// mergedTopic is what a commit that landed a pull request brought in: the
// pull request's title, which is the first line of the message after
// "Merge pull request #N from …", or the subject without its "(#N)". It
// is "" for any other commit, and for a merge that says nothing more.
func mergedTopic(h store.ContextHit) string {
	if loc := prNumber.FindStringIndex(h.Title); loc != nil {
		return normTopic(h.Title[:loc[0]])
	}
	if !strings.HasPrefix(h.Title, "Merge pull request ") {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(h.Body), "\n")
	if strings.HasPrefix(first, "files:") { // no message body: the file list follows
		return ""
	}
	return normTopic(first)
}

// isMergeTitle: git's own merge subjects, which name no work.
func isMergeTitle(title string) bool {
	return strings.HasPrefix(title, "Merge pull request ") || strings.HasPrefix(title, "Merge branch ") ||
		strings.HasPrefix(title, "Merge remote-tracking branch ")
}

// mergeSubjectRE matches git's merge subjects: "Merge pull request #839
// from owner/branch", "Merge branch 'x' into main", "Merge branches 'a'
// and 'b'", "Merge remote-tracking branch 'origin/x'", "Merge tag 'v1'",
// "Merge commit 'abc'".
var mergeSubjectRE = regexp.MustCompile(`^Merge (?:pull request #\d+ from (\S+)|(?:remote-tracking )?branch(?:es)? |tag |commit )`)

// mergeNameRE finds the names a merge subject quotes, and the branch it
// merges into.
var mergeNameRE = regexp.MustCompile(`'([^']+)'|\binto (\S+)$`)

// scoredTitle is the part of an event's title a search match counts on: a
// merge commit's subject without git's boilerplate, whose words ("Merge",
// "pull request", "branch", "into") would match any question about
// merging and rank the merge above the commit that did the work; the
// names of the branches (owner/fix-merge-order) stay.
func scoredTitle(kind, title string) string {
	if kind != "commit" {
		return title
	}
	m := mergeSubjectRE.FindStringSubmatch(title)
	if m == nil {
		return title
	}
	if m[1] != "" {
		return m[1]
	}
	var names []string
	for _, n := range mergeNameRE.FindAllStringSubmatch(title[len(m[0]):], -1) {
		names = append(names, n[1]+n[2])
	}
	return strings.Join(names, " ")
}

// normTopic compares commit subjects: case and spacing aside.
func normTopic(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// addFile merges one piece of evidence about a file.
func (ev *evidence) addFile(ctx, p, lines string, score float64, summary string, pq parsedQuery) {
	if p == "" {
		return
	}
	f := ev.files[p]
	if f == nil {
		f = &fileEvidence{path: p, ctx: ctx, summary: summary, order: len(ev.files)}
		ev.files[p] = f
	}
	// A path naming the topic does not raise the file above the commit
	// that touched it (make eval: top-3 84% with the file's score doubled,
	// 90% without); it only keeps the file from dropping below other
	// evidence when that commit is listed (refs).
	f.named = f.named || pathNames(p, pq)
	f.score += score
	f.best = max(f.best, score)
	// The line range comes from the best evidence about the file (hits
	// arrive best first): a union over its whole history would soon span
	// the entire file.
	if a, b, ok := strings.Cut(lines, "-"); ok && f.lo == 0 {
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil && lo > 0 && hi >= lo {
			f.lo, f.hi = lo, hi
		}
	}
}

// pathNames reports whether a path names one of the question's words (or
// their stems) as a word of its own: "editor" names editor/main.jsx, "app"
// does not name wrapper.js, and a two-letter term names nothing. A
// translation names a path only when the word has one (デプロイ →
// deploy.yml; 認証 → auth, authenticat is one word in two forms): of a
// word translated several ways (表示 → display, show, render) each is a
// guess at what the asker meant, and a guess naming a file (show.inc.php)
// is no sign the question is about it.
func pathNames(p string, pq parsedQuery) bool {
	low := strings.ToLower(p)
	for i, g := range pq.Concepts {
		for _, t := range namingForms(g, pq.Weights[i]) {
			if utf8.RuneCountInString(t) >= 3 && store.Occurrences(low, t) >= 1 {
				return true
			}
		}
	}
	return false
}

// namingForms are the forms of a concept that may name a path: the words
// as asked, and the translations when they are forms of one word.
func namingForms(forms []string, weights []float64) []string {
	var asked, translated []string
	for j, t := range forms {
		switch weights[j] {
		case weightWord:
			asked = append(asked, t)
		case weightTranslation:
			translated = append(translated, t)
		}
	}
	if oneWord(translated) {
		return append(asked, translated...)
	}
	return asked
}

// oneWord reports whether words are forms of one word: each starts with
// the shortest of them (auth, authenticat).
func oneWord(words []string) bool {
	if len(words) == 0 {
		return false
	}
	short := slices.MinFunc(words, func(a, b string) int { return len(a) - len(b) })
	for _, w := range words {
		if !strings.HasPrefix(w, short) {
			return false
		}
	}
	return true
}

// files returns the file evidence, strongest first.
func (ev *evidence) rankedFiles() []*fileEvidence {
	out := make([]*fileEvidence, 0, len(ev.files))
	for _, f := range ev.files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].order < out[j].order
	})
	return out
}

// refs lists the context references of the answer, best evidence first:
// commits and files ranked together by how well they match the question,
// then tasks and notes. A file whose best evidence is a commit already
// listed ranks below other evidence unless its path names the topic (one
// such file per commit): the commit stands for it, and the file adds only
// its line range.
func (ev *evidence) refs() []wire.ContextRef {
	all := ev.rankedRefs()
	out := make([]wire.ContextRef, 0, len(all))
	for _, r := range all {
		out = append(out, r.ref)
	}
	return out
}

// rankedRef is a reference of the answer with the context it comes from
// ("" for tasks and notes).
type rankedRef struct {
	ref   wire.ContextRef
	ctx   string
	score float64
	order int // ties: commits (the evidence itself) before files
}

// bestRefs are the first n commits and files the answer cites, best first
// (tasks and notes, which have no context, are left out).
func (ev *evidence) bestRefs(n int) []rankedRef {
	var out []rankedRef
	for _, r := range ev.rankedRefs() {
		if len(out) == n {
			break
		}
		if r.ctx != "" {
			out = append(out, r)
		}
	}
	return out
}

// refContexts are the contexts of the first n commits and files the answer
// cites, best first.
func (ev *evidence) refContexts(n int) []string {
	var out []string
	for _, r := range ev.bestRefs(n) {
		if !slices.Contains(out, r.ctx) {
			out = append(out, r.ctx)
		}
	}
	return out
}

// bestSummaries are what the answer's first n commits and files say (their
// summaries). Notes are left out: a note it cites may be the one asked
// about.
func (ev *evidence) bestSummaries(n int) []string {
	var out []string
	for _, r := range ev.bestRefs(n) {
		out = append(out, r.ref.Summary)
	}
	return out
}

// citedFiles are the files the answer cites, as context:path.
func (ev *evidence) citedFiles() map[string]bool {
	out := map[string]bool{}
	for _, r := range ev.rankedRefs() {
		if r.ref.Type == "file" {
			p, _, _ := strings.Cut(r.ref.Ref, ":")
			out[r.ctx+":"+p] = true
		}
	}
	return out
}

// rankedRefs is refs with each reference's context.
func (ev *evidence) rankedRefs() []rankedRef {
	type ranked = rankedRef
	var all []ranked
	listed := map[string]bool{}
	for i, c := range capRefs(ev.commits, maxCommitRefs) {
		all = append(all, ranked{ref: c, ctx: ev.ctxs[i], score: ev.scores[i], order: i})
		listed[c.Ref] = true
	}
	// A file ranks by its strongest single piece of evidence: summing
	// every commit that touched it lets busy files (a Makefile, a
	// terminal.cpp) outrank the commit that answers the question
	// (measured with make eval: top-3 50% summed, 65% by the best). Which
	// files are listed is decided by that strongest evidence plus a
	// quarter of the rest: a file one well-matching merge added keeps its
	// place against files many weak hits touched, and a file most of the
	// topic's commits touched keeps its place too.
	type candidate struct {
		ranked
		pick float64
	}
	var files []candidate
	// A listed commit's files keep one place at most before the next
	// commit: the one its path names best. The Nushell commit's fish,
	// zsh and installation files (each named by one word of "fish の
	// 補完ファイルのインストール先は変わった?") took the places before
	// the fix the question meant.
	kept := map[string]bool{}
	for _, f := range ev.rankedFiles() {
		score := f.best
		if listed[f.bestCommit] && (!f.named || kept[f.bestCommit]) {
			score /= 2 // the commit above already stands for it
		} else if listed[f.bestCommit] {
			kept[f.bestCommit] = true
		}
		files = append(files, candidate{ranked: ranked{ref: wire.ContextRef{Type: "file", Ref: f.ref(), Summary: f.summary}, ctx: f.ctx, score: score,
			order: maxCommitRefs + 1 + len(files)}, pick: f.best + (f.score-f.best)/4})
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].pick > files[j].pick })
	for _, f := range files[:min(len(files), maxFileRefs)] {
		all = append(all, f.ranked)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].order < all[j].order
	})
	for _, r := range capRefs(ev.tasks, 2) {
		all = append(all, ranked{ref: r})
	}
	for _, r := range capRefs(ev.notes, 2) {
		all = append(all, ranked{ref: r})
	}
	return all
}

// ref is the file with its line range when known.
func (f *fileEvidence) ref() string {
	switch {
	case f.lo > 0 && f.hi > f.lo:
		return fmt.Sprintf("%s:%d-%d", f.path, f.lo, f.hi)
	case f.lo > 0:
		return fmt.Sprintf("%s:%d", f.path, f.lo)
	}
	return f.path
}

func capRefs(r []wire.ContextRef, n int) []wire.ContextRef {
	if len(r) > n {
		return r[:n]
	}
	return r
}

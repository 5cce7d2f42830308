package secretary

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/aoi-protocol/aoi/agent/secretary/interrupt"
	"github.com/aoi-protocol/aoi/store"
)

var (
	// versionRE is a release a question may name: v3.0.0, 1.4.0, 3.2.5.
	versionRE = regexp.MustCompile(`^v?\d+(\.\d+)+$`)
	// sinceRE says the question wants what came after a release rather
	// than what went into it.
	// "v0.10.0 を出したあと", "リリース後に" ask what came after, as 以降
	// does; 後 alone is too common (今後, 最後).
	sinceRE = regexp.MustCompile(`(?i)\bsince\b|\bafter\b|以降|以来|から|[たの]\s*(?:あと|後)|リリース後`)
)

// releaseWords name a release itself: with a version they ask what went
// into it.
var releaseWords = setOf(`release releases tag tags version versions changelog リリース タグ バージョン`)

// otherTopics counts the question's concepts that are neither a version
// nor a word for a release: "Did the thumbnail migration for v0.13.0 break
// anything?" asks about the migration (three), which a listing of what
// went into v0.13.0 does not answer; "what went into 1.4.0?" (none) and
// "what fixes landed since v2?" (one) ask for the listing.
func otherTopics(pq parsedQuery) int {
	n := 0
	for _, g := range pq.Concepts {
		w := strings.TrimPrefix(g[0], "v")
		if !releaseWords[g[0]] && !slices.ContainsFunc(pq.Versions, func(v string) bool { return strings.TrimPrefix(v, "v") == w }) {
			n++
		}
	}
	return n
}

// maxReleaseCommits bounds the commits listed for a release question.
const maxReleaseCommits = 40

// releaseEvidence answers a question naming a tagged release from the
// index: "since v1.0" lists the commits after the tag's commit, oldest
// first (what landed, in the order it landed); "in 1.4.0" lists those
// between the previous tag and this one, newest first. ok is false when
// the question names no version, or none that is a tag of the contexts.
func (s *Secretary) releaseEvidence(ctx context.Context, pq parsedQuery, contexts []string, ac *accessCheck) ([]store.ContextHit, bool, error) {
	if len(pq.Versions) == 0 && !pq.LatestRelease || otherTopics(pq) >= 2 {
		return nil, false, nil
	}
	tags, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"tag"}, Contexts: contexts, Limit: 1000})
	if err != nil {
		return nil, false, err
	}
	versions := pq.Versions
	if len(versions) == 0 {
		// "what's the latest release?": the newest tag the asker may see
		// answers as if named (the second walk's question got a word
		// search for "tag").
		newest, found := newestTag(tags, ac)
		if !found {
			return nil, false, nil
		}
		versions = []string{newest.name}
	}
	tag, prev, ok := findTag(tags, versions, ac)
	if !ok {
		return nil, false, nil
	}
	ac.cite(tag.ctx) // the tags the answer names: the context's own events
	f := store.ContextRecent{Kinds: []string{"commit"}, Contexts: []string{tag.ctx}, Limit: maxReleaseCommits}
	if pq.Since {
		f.Since, f.Oldest = tag.date.Add(time.Second), true
	} else {
		f.Until = tag.date
		if !prev.date.IsZero() {
			f.Since = prev.date.Add(time.Second)
		}
	}
	commits, err := s.db.RecentContext(ctx, f)
	if err != nil {
		return nil, false, err
	}
	commits = slices.DeleteFunc(commits, func(e store.ContextEvent) bool { return !ac.allow(e) })
	// What a release brought first, then its upkeep: "what changed since
	// v1.2?" is answered by the features and fixes, not by the first
	// three commits after the tag (a held-out set got "Fix some clippy
	// warnings" and a merge where --exact and stdin input had landed).
	order := make(map[int64]int, len(commits)) // upkeepOf reads each commit's files
	for _, e := range commits {
		order[e.ID] = upkeepOf(e)
	}
	slices.SortStableFunc(commits, func(a, b store.ContextEvent) int { return order[a.ID] - order[b.ID] })
	var hits []store.ContextHit
	for _, e := range commits {
		// The listing's order is the answer's: scores fall with the rank.
		hits = append(hits, store.ContextHit{ID: e.ID, Source: e.Source, Kind: e.Kind, Ctx: e.Ctx, Key: e.Key, Title: e.Title,
			Body: e.Body, Meta: e.Meta, TS: e.TS, Snippet: clipRunes(e.Title, snippetCap), Matched: 1, Score: 1 / float64(1+len(hits))})
	}
	return hits, true, nil
}

// upkeepRE is a commit subject that keeps the project going rather than
// changing what it does: dependency bumps, CI, formatting, lint, typos,
// version bumps and changelog updates, merges (the commits a merge
// brought are listed themselves).
var upkeepRE = regexp.MustCompile(`(?i)^(?:build\(deps[^)]*\)|chore|ci|style|docs?)\b|\bbump(?:s|ed)?\b|\bdependabot\b|\bupdate (?:rust crate|dependenc|deps)|` +
	`\b(?:clippy|rustfmt|gofmt|lint|typos?|formatting|readme|ci)\b|\bchangelog\b|^merge (?:branch|remote-tracking|pull request)|^v?\d+\.\d+(?:\.\d+)?$|` +
	`依存(?:関係)?の?(?:更新|アップデート)|誤字|typo修正|変更履歴|リリース日|リリースノート|` +
	// A fix of what the commit before left out ("漏れを修正", "洩れ").
	`^(?:修正)?[漏洩]れ(?:を|の)?(?:修正|対応)?(?:する)?$|` +
	// Mending a build the commit before broke: the work it repairs is
	// what landed ("fix build", "ビルド通らなくなっていたの修正").
	`\bfix(?:e[sd])?\s+(?:the\s+)?build\b|\bbuild\s+fix|ビルドが?通らな|ビルドエラー(?:を|の)?修正`)

// notableRE is a commit subject that adds or fixes something.
var notableRE = regexp.MustCompile(`(?i)^(?:feat|fix|perf)\b|\b(?:adds?|added|supports?|supported|implements?|implemented|introduces?|new)\b|` +
	`追加|対応|実装|サポート|修正|導入|新設`)

// testsOnlyRE is a commit subject that adds tests, not what they test:
// "Add test for out of range float64" and "Add some boring tests for
// lex.go" led a held-out listing of a release, ahead of TOML 1.1 enabled
// by default, and "entry: add coverage for error field values" another.
var testsOnlyRE = regexp.MustCompile(`(?i)^(?:[\w./-]+(?:\([^)]*\))?!?:\s+)?(?:add(?:s|ed)?|more|improve[sd]?|extend(?:s|ed)?)\s+(?:\w+\s+){0,2}(?:tests?|coverage)(?:\s+(?:for|of|to|on|in|and)\b|\s*\(|\s*$)|` +
	`^tests?(?:\([^)]*\))?:|\btest coverage\b|テスト(?:を|の)?(?:追加|拡充)`)

// upkeepOf is upkeep for a commit: one that changes only media (images,
// recordings, fonts) is upkeep, whatever its subject says (a held-out
// "what changed in 0.9.0?" listed "fix: gifs" and "fix: remove gifs",
// which re-rendered the examples, ahead of the features).
func upkeepOf(e store.ContextEvent) int {
	if onlyMedia(e.Meta) {
		return 2
	}
	return upkeep(e.Title)
}

// mediaRE is a file nobody runs: an image, a recording, a font.
var mediaRE = regexp.MustCompile(`(?i)\.(?:gif|png|jpe?g|svg|webp|ico|mp4|webm|mov|ttf|otf|woff2?)$`)

// onlyMedia reports whether a commit's files, all of them listed, are media.
func onlyMedia(meta string) bool {
	m := parseMeta(meta)
	if len(m.Files) == 0 || m.FilesMore > 0 {
		return false
	}
	for _, f := range m.Files {
		if !mediaRE.MatchString(f.Path) {
			return false
		}
	}
	return true
}

// upkeep orders a release's commits by their subjects: 0 for one that
// adds or fixes something, 2 for upkeep, 1 for the rest (refactors, new
// tests).
func upkeep(title string) int {
	switch line := firstLine(title); {
	case upkeepRE.MatchString(line):
		return 2
	case testsOnlyRE.MatchString(line):
		return 1
	case notableRE.MatchString(line):
		return 0
	}
	return 1
}

type tagInfo struct {
	ctx, name string
	date      time.Time
}

// visibleTags are the tags of events the asker may see, with their dates.
func visibleTags(events []store.ContextEvent, ac *accessCheck) []tagInfo {
	var all []tagInfo
	for _, e := range events {
		var m struct {
			Date time.Time `json:"date"`
		}
		if jsonUnmarshal(e.Meta, &m) != nil || m.Date.IsZero() || !ac.allow(e) {
			continue
		}
		all = append(all, tagInfo{ctx: e.Ctx, name: e.Key, date: m.Date})
	}
	return all
}

// newestTag is the most recent tag the asker may see.
func newestTag(events []store.ContextEvent, ac *accessCheck) (tagInfo, bool) {
	var newest tagInfo
	for _, t := range visibleTags(events, ac) {
		if t.date.After(newest.date) {
			newest = t
		}
	}
	return newest, !newest.date.IsZero()
}

// findTag finds the tag a question names and the tag before it in the
// same context (by date).
func findTag(events []store.ContextEvent, versions []string, ac *accessCheck) (tag, prev tagInfo, ok bool) {
	all := visibleTags(events, ac)
	// The tag named as written first ("v0.16.0" is hexyl's, not another
	// repository's "0.16.0"), then one of the same version. When several
	// repositories have it (v0.5.0 of a project released last week and of
	// one released years ago), the newest release: the one a colleague
	// asks about (tags are stamped when seen, so the listing's order says
	// nothing of which is newer).
	// Last, a version written short: "since v1.34" is v1.34.0, "the 1.6
	// release" 1.6.0 (a held-out set got another repository's commits
	// that mentioned 1.6, at 0.82).
	for _, same := range []func(name, v string) bool{
		func(name, v string) bool { return strings.EqualFold(name, v) },
		func(name, v string) bool { return versionOf(name) == versionOf(v) },
		func(name, v string) bool { return withoutZeros(versionOf(name)) == withoutZeros(versionOf(v)) },
	} {
		for _, v := range versions {
			for _, t := range all {
				if same(t.name, v) && (!ok || t.date.After(tag.date)) {
					tag, ok = t, true
				}
			}
			if ok {
				break
			}
		}
		if ok {
			break
		}
	}
	if !ok {
		return tag, prev, false
	}
	// A release's previous one is the release before it, not its own
	// pre-releases: "what went into 2025.2?" listed the commits after
	// 2025.2.0.dev3 only.
	final := !preRelease(tag.name)
	for _, t := range all {
		if t.ctx == tag.ctx && t.date.Before(tag.date) && t.date.After(prev.date) && !(final && preRelease(t.name)) {
			prev = t
		}
	}
	return tag, prev, true
}

// preRelease reports whether a tag names a pre-release: its version holds
// a letter (1.0.0-rc1, 2025.2.0.dev3, v2.0.0beta1).
func preRelease(name string) bool {
	return strings.IndexFunc(versionOf(name), unicode.IsLetter) >= 0
}

// versionOf is a tag or version without what precedes its first digit
// (v1.0, release-1.0 → 1.0).
func versionOf(s string) string {
	i := strings.IndexAny(s, "0123456789")
	if i < 0 {
		return strings.ToLower(s)
	}
	return s[i:]
}

// withoutZeros is a version without its trailing zero parts (1.34.0 →
// 1.34, 2.0.0 → 2), so that one written short matches its tag.
func withoutZeros(v string) string {
	for strings.HasSuffix(v, ".0") {
		v = strings.TrimSuffix(v, ".0")
	}
	return v
}

// releaseConfidence: the tag was found and the commits are the answer, so
// only their age counts.
func (s *Secretary) releaseConfidence(hits []store.ContextHit) float64 {
	if len(hits) == 0 {
		return interrupt.Confidence(true, 0, 0.5)
	}
	newest := latestTS(hits, false)
	return interrupt.Confidence(true, s.now().Sub(newest), 1)
}

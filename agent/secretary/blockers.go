package secretary

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// How far back blockers and progress figures are looked for, and how many
// recent events of each kind are read to find them.
const (
	errorWindow    = 24 * time.Hour
	noteWindow     = 14 * 24 * time.Hour
	maxBlockerScan = 150
)

// blockedRE finds text that says work is held up, in English or Japanese:
// "blocked (on|by) …", "blocker: …", "waiting on/for …", "stuck", "on
// hold", waitsOn's ("held up by …", "on ice until …"), "…待ち",
// "…ブロック(中|されて)", "止まって", "保留". Words that only name the idea
// ("a blocking call", "list blockers", "code block", "コードブロック",
// "待ち時間", "…のせいでブロックの先頭が") are not statements that work
// is held up. What is waited for may end in a
// reference and a space ("(voicevox_core#1102) 待ち").
var blockedRE = regexp.MustCompile(`(?i)\bblocked\b|\bblockers?\s*:|\bblocking on\b|\bwaiting (on|for)\b|\bstuck\b|\bon hold\b|` +
	waitsOn + `|` + japaneseBlocked)

// waitsOn is the other ways engineers write that work waits for something
// (held-out sets planted each, and each was listed under Done): it
// "can't … until", is "parked until", "held up by", "on ice until", needs
// something "before we can", or waits for another change "landing first".
const waitsOn = `\b(?:can'?t|cannot|can not|won'?t)\b[^.;:!?\n]{0,48}\buntil\b|\bpark(?:ed|ing)?(?:\s+(?:this|it|that|them))?\s+(?:until|till|pending|behind|for now)\b|` +
	`\bheld up (?:by|on|until)\b|\bon ice\b|\bneed(?:s|ed)?\b[^.;:!?\n]{0,60}\bbefore (?:we|I|it|this|that) can\b|` +
	`\b(?:lands?|landing|merges?|merging|ships?|shipping|goes in|is released)\s+first\b`

// ブロック counts only as a word of its own: inside a longer katakana word
// (コードブロック中の…, ブロックチェーン) it names a thing. As the last
// word of a sentence it says the work is blocked when what blocks it or
// until when comes before it ("Vite 6 の API が固まるまでブロック",
// "Safari の不具合でブロック"); after の it is a thing again (ヘッダーの
// ブロック).
const japaneseBlocked = `(?:[^\s、。・]|[)）\]」』0-9A-Za-z][ \x{3000}])待ち(?:[^時受合構]|$)|(?:^|[^\p{Katakana}ー])ブロック(?:中|され|して|している)|` +
	blockedLastWord + `|止まって|保留|` +
	// Held back until something happens ("m148 への更新が終わるまで…有効化は
	// 止めている"), not a program that stops and waits (止めて待つ).
	`まで[^。\n]{0,40}(?:止めて(?:いる|いま|おく|ある)|止めてる|見送って|見送り|無効(?:に|化)して(?:いる|いま|おく|ある))`

// blockedLastWord is ブロック ending a sentence after まで, で, により,
// によって or ため.
const blockedLastWord = `(?m:(?:まで|で|により|によって|ため)ブロック(?:です|だ)?\s*[。.！!]?\s*$)`

// heldUpByRE is the stricter test for a line of a commit message, which
// mostly explains the problem the commit solved ("…which is blocked in
// constrained mode", "would be stuck with the full name"): only a line
// that says what the work waits on counts.
var heldUpByRE = regexp.MustCompile(`(?i)\bblocked (on|by|until|pending)\b|\bblockers?\s*:|\bblocking on\b|\bwaiting (on|for)\b|` +
	`\bstuck (on|in review)\b|\bon hold\b|` + waitsOn + `|` + japaneseBlocked)

// pastOrMaybeRE finds a blocked phrase told as the past or a possibility
// ("was blocked on", "would otherwise be waiting for", "if it is stuck
// on"): the problem a commit removed, not one that holds the work up.
var pastOrMaybeRE = regexp.MustCompile(`(?i)\b(was|were|had been|used to|previously|before|would|could|might|may|can|will|otherwise|if|when|which|that)\b[^.;:!?]{0,24}\b(blocked|blocking|waiting|stuck|on hold)\b`)

// fixSubjectRE finds a commit subject that says a problem was fixed:
// "Fix the worker stuck on a full channel", "fix(ci): job waiting for a
// runner", "…の修正". Its blocked words name what is gone.
var fixSubjectRE = regexp.MustCompile(`(?i)^(\w+(\([^)]*\))?!?:\s*)?(fix(e[sd])?|avoid|prevent(s)?|resolve[sd]?|unstick|handle|work ?around)\b|(?:修正|解消|解決)(?:[^待]|$)`)

// endsWaitingRE finds a Japanese subject whose last predicate says the
// work waits ("fix(jsx): 属性順序の修正は React 19.2 のリリース待ち"):
// Japanese puts what a sentence says last, so a fix named before it is
// what waits, not what was done.
var endsWaitingRE = regexp.MustCompile(`(?:待ち|ブロック中|(?:まで|で)ブロック|保留中?)(?:で(?:す|ブロック中)?|です|中|の状態)?\s*[。.！!]?\s*$`)

// notBlockedRE finds words that undo a blocked phrase: "unblock", "no
// longer blocked", "without waiting for", "instead of waiting", "stop
// waiting", "not blocked"; and waits a program does, not the work: for a
// lock, a signal or a child process ("the busy timeout used while waiting
// for a locked database", "ロック待ちでタイムアウト").
var notBlockedRE = regexp.MustCompile(`(?i)unblock|no longer (blocked|waiting)|without (being )?(blocked|waiting)|instead of waiting|stops? waiting|not (blocked|waiting)|never (blocks|waits)|` +
	`\b(blocked|waiting) (on|for) (an? |the )?(locked\b|locks?\b|mutex|semaphore|signals?\b|child process|subprocess|goroutines?\b|threads?\b)|` +
	`(?:^|[^\p{Katakana}ー])ロック待ち|(?:シグナル|セマフォ|ミューテックス)待ち`)

// Blocker ranks: lower comes first. Work in progress now (failing tests,
// the uncommitted diff's FIXMEs) beats things said recently, which beat
// markers that have sat in the code for months. A blocker about the
// question's topic moves ahead of its rank.
const (
	rankNow        = 0
	rankRecent     = 10
	rankStale      = 20
	topicBonus     = 15
	evidenceBonus  = 5
	blockedCommits = 14 * 24 * time.Hour
)

// blockers lists what holds the work up in the evidence's contexts: failing
// tests of the latest run, recent errors, FIXME/XXX markers and notes that
// say something is blocked. For a question with a topic, the rest are
// listed only when they are about it or in the answer's files (an old
// FIXME only near the lines the work touched); items about the topic
// come first. An answer about one repository's work (homeContext) lists
// only that repository's blockers, and of the notes tied to no context
// only those that are its own (belongsTo).
func (s *Secretary) blockers(ctx context.Context, pq parsedQuery, ev *evidence, contexts []string, ac *accessCheck) ([]string, error) {
	ctxs := ev.contexts
	if len(ctxs) == 0 {
		ctxs = contexts
	}
	repos := s.config().Contexts
	home := homeContext(pq, ev, contexts, len(repos))
	if home != "" {
		ctxs = []string{home}
	}
	cited := ev.citedFiles()
	var items []blocker
	tests, err := s.latestTests(ctx, ctxs, ac)
	if err != nil {
		return nil, err
	}
	for _, t := range tests {
		for _, f := range t.Failures {
			line := testFailureLine(f)
			about := f.Test + " " + f.Package + " " + f.Message
			if len(pq.Concepts) > 0 && !pq.WantsBlockers && topicShare(about, pq) == 0 {
				// A failing test about something else does not hold up the
				// work asked about ("how is GPU support going?"); asked what
				// blocks it, or about nothing in particular, it is listed.
				continue
			}
			items = append(items, blocker{text: line, rank: rankNow, src: eventResources(t.from)})
		}
	}
	now := s.now()
	recent, err := s.recentBlockerEvents(ctx, ctxs, now)
	if err != nil {
		return nil, err
	}
	markers, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"marker", "testfile"}, Contexts: ctxs, Limit: 2 * maxBlockerScan})
	if err != nil {
		return nil, err
	}
	// The other asked repositories' failing tests and markers, for the
	// ones that name the whole topic.
	var others []string
	for _, c := range contexts {
		if !inContexts(ctxs, c) {
			others = append(others, c)
		}
	}
	if len(others) > 0 && len(pq.Concepts) > 0 {
		more, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"marker", "testfile"}, Contexts: others, Limit: 2 * maxBlockerScan})
		if err != nil {
			return nil, err
		}
		markers = append(markers, more...)
		if pq.WantsBlockers {
			// Asked what holds the work up, their commits that say so
			// too: the references can go to another repository by a
			// shared word ("what's holding up shell completion?" got
			// another project's clap_complete bumps).
			for _, c := range others {
				blocked, err := s.blockedCommitsOf(ctx, c, now.Add(-noteWindow), now.Add(time.Second))
				if err != nil {
					return nil, err
				}
				recent = append(recent, blocked...)
			}
		}
	}
	for _, e := range append(recent, markers...) {
		if !ac.allow(e) || (e.Ctx != "" && !inContexts(contexts, e.Ctx)) {
			continue
		}
		if e.Ctx == "" && !belongsTo(e.Title+" "+e.Body, home, ctxs, repos, pq, ev) && !(len(contexts) > 1 && namesWholeTopic(e.Title+" "+e.Body, pq)) {
			// A note about another repository's work is listed when it
			// names the whole topic of a question that named no
			// repository ("the Windows installer is waiting for its
			// certificate" for "when can the Windows installer ship?",
			// whose references went to another project's installer).
			continue
		}
		b, ok := asBlocker(e, now)
		if !ok {
			continue
		}
		if b.rank == rankStale && (len(pq.Versions) > 0 || pq.LatestRelease) {
			// What a release brought is its commits; an old FIXME in a
			// file one of them touched holds up none of it.
			continue
		}
		about := e.Title + " " + e.Key
		switch e.Kind {
		case "testfile":
			about += " " + e.Body // the failing test's package
		case "commit":
			about = withoutCommitType(e.Title) + " " + e.Key
			// The line of the message that says what holds the work up
			// ("update CHANGELOG.md for v0.12.20\n\nThe release is blocked
			// on Go 1.26.2"): what the blocker is about, whatever the
			// subject says.
			about += " " + withoutCommitType(b.text)
		}
		cov := topicShare(about, pq)
		if e.Ctx != "" && !inContexts(ctxs, e.Ctx) && !(namesWholeTopic(about, pq) && (b.rank == rankNow || pq.WantsBlockers && e.Kind == "commit")) {
			// Another repository than the answer's: only a failing test
			// or the uncommitted work's FIXME that names the whole topic
			// ("db::tests::add_and_remove: database file not found" for
			// "are the database tests green?" when the references went to
			// another database tool) is listed, and, asked what holds the
			// work up, a commit saying so that names it whole.
			continue
		}
		file := ev.files[fileOfMarker(e)]
		switch {
		case cov >= 0.5 && b.rank == rankStale && !cited[e.Ctx+":"+fileOfMarker(e)]:
			// An old marker whose few words happen to be the topic's
			// ("FIXME: no tests" for "are the tests green?"): listed,
			// but after the markers of the files the answer cites and
			// everything newer.
			if file == nil {
				break
			}
			b.rank -= evidenceBonus
		case cov >= 0.5:
			if cov < 1 && elsewhere(pq, ev, home, e) && (file == nil || !file.named) {
				// Half the topic in another repository's work ("the
				// Windows ARM64 release build" for "the PDF build"),
				// unless in a file whose path names the topic.
				continue
			}
			b.rank -= topicBonus
		case cov > 0 || file != nil:
			if elsewhere(pq, ev, home, e) {
				continue
			}
			if cov == 0 && !file.near(markerLine(e)) {
				// A FIXME elsewhere in a file the work touched, old or in
				// the uncommitted diff: a held-out set's fresh FIXME in the
				// user dictionary was listed in answers about the GPU build,
				// Docker and a release, whose commits had touched its file.
				continue
			}
			b.rank -= evidenceBonus
		case len(pq.Concepts) > 0:
			// About something else and in none of the answer's files:
			// listing these made answers end with the same old markers
			// and another release's wait (make eval: 57 blockers of
			// another repository listed, 19 without them).
			continue
		}
		items = append(items, b)
	}
	kept := keepBlockers(items)
	out := make([]string, len(kept))
	for i, b := range kept {
		ac.cite(b.src...)
		out[i] = b.text
	}
	return out, nil
}

// recentBlockerEvents reads the owner's recent notes, errors and reports,
// and the recent commits of each of the answer's repositories on its own.
// Read together, a busy repository's commits (hundreds a day: bots, a large
// team's merges) filled the scan and pushed the other repositories'
// blocked work and the owner's notes out of it; another repository's
// commit is never listed (see blockers), so reading only ctxs' loses none.
func (s *Secretary) recentBlockerEvents(ctx context.Context, ctxs []string, now time.Time) ([]store.ContextEvent, error) {
	since := now.Add(-noteWindow)
	if len(ctxs) == 0 {
		return s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{KindError, KindNote, KindReport, "commit"}, Since: since, Limit: 4 * maxBlockerScan})
	}
	out, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{KindError, KindNote, KindReport}, Since: since, Limit: 4 * maxBlockerScan})
	if err != nil {
		return nil, err
	}
	for _, c := range ctxs {
		commits, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"commit"}, Contexts: []string{c}, Since: since, Limit: 4 * maxBlockerScan})
		if err != nil {
			return nil, err
		}
		out = append(out, commits...)
		if len(commits) == 4*maxBlockerScan {
			older, err := s.blockedCommitsOf(ctx, c, since, commits[len(commits)-1].TS)
			if err != nil {
				return nil, err
			}
			out = append(out, older...)
		}
	}
	return out, nil
}

// blockedWords are words a commit saying that work is held up holds
// (blockedRE), to find such commits by search. "until" is left out: common
// in commit messages, it would crowd the bounded search.
var blockedWords = []string{"blocked", "blocker", "blocking", "waiting", "stuck", "hold", "待ち", "ブロック", "止まって", "保留"}

// blockedCommitsOf finds, by search, the commits of c between since and
// before that may say something is held up: those older than the newest
// ones read (a busy repository makes hundreds of commits a day, so a
// blocked commit of last week lies beyond any bounded read of the newest),
// or those of a repository whose commits are not read at all.
func (s *Secretary) blockedCommitsOf(ctx context.Context, c string, since, before time.Time) ([]store.ContextEvent, error) {
	hits, err := s.db.SearchContext(ctx, store.ContextSearch{Terms: blockedWords, Kinds: []string{"commit"}, Contexts: []string{c}, Limit: maxBlockerScan})
	if err != nil {
		return nil, err
	}
	var out []store.ContextEvent
	for _, h := range hits {
		if h.TS.Before(since) || !h.TS.Before(before) {
			continue // outside the window, or read already
		}
		out = append(out, store.ContextEvent{ID: h.ID, Source: h.Source, Kind: h.Kind, Ctx: h.Ctx, Key: h.Key, Title: h.Title, Body: h.Body, TS: h.TS, Meta: h.Meta})
	}
	return out, nil
}

// homeContext is the repository whose work the answer is about, "" when it
// is about several or none: the one context the question names (or its
// scope allows), or, for a question with a topic, the one context the
// answer's best references (its first homeRefs commits and files) come
// from; words the question shares with other repositories bring in weaker
// references below them (held-out eval: 23 blockers of other repositories
// listed, most in answers whose best references all came from one). With
// a single repository configured there is no other work to keep out.
func homeContext(pq parsedQuery, ev *evidence, contexts []string, configured int) string {
	if configured < 2 {
		return ""
	}
	if len(contexts) == 1 {
		return contexts[0]
	}
	if len(pq.Concepts) == 0 {
		return "" // "what's blocking you?": all the work
	}
	if rc := ev.refContexts(homeRefs); len(rc) == 1 {
		return rc[0]
	}
	return ""
}

// homeRefs is how many of the answer's best references decide its
// repository.
const homeRefs = 3

// belongsTo decides whether an event tied to no context (an owner's note,
// which carries no repository) may be listed among the blockers of an
// answer. A note that names repositories (their context identifier, or
// its last segment as a word: "zoxide", "k1LoW/tbls") belongs to them:
// it is listed when one of them is the answer's (home, else one of ctxs).
// A note that names none is listed for a question about no specific work:
// one without a topic that names no repository ("what's blocking you?").
// A question about specific work (a topic, or one repository's work) lists
// it only when it is about that topic itself: more than half of the
// question's concepts ("Nushell 0.110 support: waiting on …" for "anything
// holding up Nushell 0.110 support?"). One word in common ("release",
// "support") is no sign the note is about this work: answers ended with
// every other project's waits. A note naming half of it is listed when it
// also shares a word of its own with the answer's best evidence: "refresh
// tokens blocked on Redis config" for "any update on the JWT refresh
// work?", whose best commits are auth's (the note, naming "refresh" of
// "JWT refresh", was left out, though a question naming refresh tokens
// listed it).
func belongsTo(text, home string, ctxs []string, repos []config.Context, pq parsedQuery, ev *evidence) bool {
	names := namedRepos(text, repos)
	if len(names) > 0 {
		if home != "" {
			return slices.Contains(names, home)
		}
		return slices.ContainsFunc(names, func(c string) bool { return inContexts(ctxs, c) })
	}
	if len(pq.Concepts) == 0 {
		return home == ""
	}
	share := topicShare(text, pq)
	return share > 0.5 || share == 0.5 && sharesOwnWord(text, pq, ev.bestSummaries(homeRefs))
}

// sharesOwnWord reports whether text names, as a word, something one of
// about names that is not the question's: a word of three letters or
// more that says more than the asking ("blocked", "waiting", "status")
// or a run of kanji or katakana.
func sharesOwnWord(text string, pq parsedQuery, about []string) bool {
	if len(about) == 0 {
		return false
	}
	low := strings.ToLower(strings.Join(about, "\n"))
	for _, w := range ownWordRE.FindAllString(strings.ToLower(text), -1) {
		latin := w[0] < utf8.RuneSelf
		if latin && (len(w) < 3 || stopwords[w] || blockerWords[w] || progressWords[w] || isNumber(w)) {
			continue
		}
		if slices.ContainsFunc(pq.Concepts, func(g []string) bool { return mentionsTerm(w, g) }) {
			continue
		}
		if latin && store.Occurrences(low, w) >= 1 || !latin && utf8.RuneCountInString(w) >= 2 && strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// ownWordRE cuts text into Latin words and runs of kanji or katakana.
var ownWordRE = regexp.MustCompile(`[a-z0-9]+|[\p{Han}\p{Katakana}ー]+`)

func isNumber(w string) bool {
	return strings.Trim(w, "0123456789") == ""
}

// namedRepos are the configured contexts text names: by identifier, or by
// the identifier's last segment (three letters or more) as a word, or by
// the segment's last words when there are two or more of them
// ("argument-parser" names swift-argument-parser, as people say it; one
// word, "parser", names nothing).
func namedRepos(text string, repos []config.Context) []string {
	low := strings.ToLower(text)
	var out []string
	for _, r := range repos {
		id := strings.ToLower(r.Identifier)
		name := id[strings.LastIndex(id, "/")+1:]
		if strings.Contains(low, id) || slices.ContainsFunc(shortNames(name), func(n string) bool { return store.Occurrences(low, n) >= 1 }) {
			out = append(out, r.Identifier)
		}
	}
	return out
}

// shortNames are the ways a repository called name is named: the name
// itself (three letters or more), and its last two or more hyphenated
// words.
func shortNames(name string) []string {
	var out []string
	if len(name) >= 3 {
		out = append(out, name)
	}
	words := strings.Split(name, "-")
	for i := 1; i+2 <= len(words); i++ {
		out = append(out, strings.Join(words[i:], "-"))
	}
	return out
}

// elsewhere reports whether a blocker comes from another place than the
// answer's best evidence: another context, or none (an owner's note). A
// question about one repository's editor is not held up by a FIXME in
// another repository's kernel that shares one word with it. Questions
// without a topic ("what's blocking you?") keep every blocker.
func elsewhere(pq parsedQuery, ev *evidence, home string, e store.ContextEvent) bool {
	if e.Ctx == "" || len(pq.Concepts) == 0 {
		return false // notes: belongsTo
	}
	if home != "" {
		return e.Ctx != home
	}
	return len(ev.contexts) > 0 && e.Ctx != ev.contexts[0]
}

// namesWholeTopic reports whether text names every concept of a question
// that has a topic.
func namesWholeTopic(text string, pq parsedQuery) bool {
	return len(pq.Concepts) > 0 && topicShare(text, pq) == 1
}

// topicShare is the share of the question's topic concepts text names (as
// mentionsTerm does); 1 for a question without a topic.
func topicShare(text string, pq parsedQuery) float64 {
	topic := topicConcepts(pq)
	if len(topic) == 0 {
		return 1
	}
	n := 0
	for _, g := range topic {
		if mentionsTerm(text, g) {
			n++
		}
	}
	return float64(n) / float64(len(topic))
}

// topicConcepts are the question's concepts but those that only ask for a
// version change (changeWords): "update" or 更新 is half of "who raised the
// Python version?", and any wait for any update (another project's
// "Taskfile の JSON Schema 更新は…レビュー待ち") named it. A question with
// nothing else keeps them.
func topicConcepts(pq parsedQuery) [][]string {
	var topic [][]string
	for _, g := range pq.Concepts {
		if !changeWords[g[0]] && !supportWords[g[0]] {
			topic = append(topic, g)
		}
	}
	if len(topic) == 0 {
		return pq.Concepts
	}
	return topic
}

// changeWords are the words a question says a version was changed with, or
// that it asks for a version: what was changed is the topic.
var changeWords = setOf(`bump bumped upgrade upgraded update updated version versions バージョン 上げ バージョンを上げ バージョンアップ アップデート アップグレード 更新`)

// supportWords say that a thing works, not what: "shell completion
// support" is about shell completion, which a commit waiting on the fish
// maintainers names without the word support.
var supportWords = setOf(`support supports supported 対応 サポート`)

type blocker struct {
	text string
	rank int // lower first
	ts   time.Time
	src  []string // the resources of the event it comes from (eventResources)
}

// asBlocker says whether an event is a blocker, and how it reads.
func asBlocker(e store.ContextEvent, now time.Time) (blocker, bool) {
	b := blocker{text: e.Title, ts: e.TS, src: eventResources(e)}
	switch e.Kind {
	case KindError:
		if now.Sub(e.TS) <= errorWindow {
			b.rank = rankRecent
			return b, true
		}
	case "marker":
		m := parseMeta(e.Meta)
		if m.Marker != "FIXME" && m.Marker != "XXX" {
			return b, false
		}
		b.rank = rankStale
		if !m.Added.IsZero() && m.Added.Before(b.ts) {
			b.ts = m.Added // among old markers, the newest first
		}
		if m.Uncommitted {
			b.rank = rankNow
		}
		return b, true
	case "testfile": // a failing test in output the working tree holds
		b.rank = rankNow
		return b, true
	case "commit":
		if now.Sub(e.TS) > blockedCommits {
			return b, false
		}
		if fixSubjectRE.MatchString(e.Title) && !endsWaitingRE.MatchString(e.Title) {
			// A fix names what is gone, unless an aside says the rest
			// still waits ("警告を修正 (残りは kramdown の修正待ち)").
			b.rank = rankRecent
			return b, heldUpAside(e.Title)
		}
		if saysBlocked(e.Title) {
			b.text, b.rank = blockedPart(e.Title), rankRecent
			return b, true
		}
		// The subject says what was done, the message may say what is
		// still held up ("Release script\n\nWaiting for the npm 2FA
		// reset"): the blocker reads subject: that line.
		if line := blockedLine(commitMessage(e.Body)); line != "" {
			b.text, b.rank = e.Title+": "+line, rankRecent
			return b, true
		}
	case KindNote, KindReport:
		if saysBlocked(e.Title + " " + e.Body) {
			b.rank = rankRecent
			return b, true
		}
	}
	return b, false
}

// asideRE finds a subject's asides: what follows a clause break, or sits
// in brackets ("fixed (the rest waits on …)", "修正 (残りは…待ち)").
var asideRE = regexp.MustCompile(`[(（]([^)）]*)[)）]|(?:[;；、]|。|\.\s)\s*([^;；、。(（]*)`)

// heldUpAside reports whether a subject that says something was fixed
// also says, in an aside that is no fix itself, that the rest is held up.
func heldUpAside(title string) bool {
	for _, m := range asideRE.FindAllStringSubmatch(title, -1) {
		aside := m[1] + m[2]
		if heldUpByRE.MatchString(aside) && !fixSubjectRE.MatchString(aside) && !pastOrMaybeRE.MatchString(aside) && !notBlockedRE.MatchString(aside) {
			return true
		}
	}
	return false
}

// commitMessage is the message part of a commit event's body (the git
// source puts the files and added lines after it).
func commitMessage(body string) string {
	if strings.HasPrefix(body, "files:") {
		return ""
	}
	msg, _, _ := strings.Cut(body, "\nfiles:")
	return msg
}

// blockedLine is the first sentence of a commit message that says what
// the work is held up by now (heldUpByRE, not told as past or maybe): a
// paragraph on one line ("Not mentioned in the docs yet. We're waiting
// for upstream click to release the fix …") reads from its wait, which
// cutting the whole line to a blocker's length lost.
func blockedLine(text string) string {
	if !mayBeBlocked(text) {
		return "" // most messages: no line to try the patterns on
	}
	for _, l := range strings.Split(text, "\n") {
		for _, sentence := range sentenceRE.Split(l, -1) {
			sentence = strings.TrimSpace(sentence)
			if sentence != "" && saysBlocked(sentence) && heldUpByRE.MatchString(sentence) && !pastOrMaybeRE.MatchString(sentence) {
				return sentence
			}
		}
	}
	return ""
}

// sentenceRE ends a sentence inside a line: a full stop before a space
// (not one inside a version or a file name), or 。.
var sentenceRE = regexp.MustCompile(`\.\s+|。`)

// commitTypeRE is a subject's prefix naming the kind of change, not its
// topic ("Update: [Server] …", "fix(ci): …").
var commitTypeRE = regexp.MustCompile(`(?i)^(?:update|fix|add|feat|chore|refactor|change|remove|improve|style|build|bump|wip)(\([^)]*\))?!?:\s+`)

// withoutCommitType is a commit subject without its kind-of-change prefix:
// that a blocked commit is typed "Update:" says nothing of what it is
// about (a question about a version update listed KonomiTV's blocked
// "Update: …" commits about other things).
func withoutCommitType(title string) string {
	return title[len(commitTypeRE.FindString(title)):]
}

// scopeRE is a commit subject's "scope:" prefix ("auth: ", "fix(ci)!: ").
var scopeRE = regexp.MustCompile(`^[\w./-]+(\([^)]*\))?!?:\s+`)

// clauseRE separates the clauses a subject joins in one line ("JWT
// validation done; blocked on Redis config", "…完了。…待ち").
var clauseRE = regexp.MustCompile(`\s*[;；]\s*|。\s*|\.\s+`)

// subjectClauses splits a commit subject into its scope prefix ("" when
// none) and its clauses.
func subjectClauses(title string) (scope string, clauses []string) {
	scope = scopeRE.FindString(title)
	for _, c := range clauseRE.Split(title[len(scope):], -1) {
		if c = strings.TrimSpace(c); c != "" {
			clauses = append(clauses, c)
		}
	}
	return scope, clauses
}

// blockedPart is what a subject says holds the work up, with its scope:
// "auth: JWT validation done; blocked on Redis config" → "auth: blocked
// on Redis config". A subject of one clause is returned whole.
func blockedPart(title string) string {
	scope, clauses := subjectClauses(title)
	if len(clauses) < 2 {
		return title
	}
	for _, c := range clauses {
		if saysBlocked(c) {
			return scope + c
		}
	}
	return title
}

// donePart is a subject without the clauses that say the work is held up
// ("auth: JWT validation done"); "" when it says nothing else.
func donePart(title string) string {
	scope, clauses := subjectClauses(title)
	if len(clauses) < 2 {
		if saysBlocked(title) {
			return ""
		}
		return title
	}
	var kept []string
	for _, c := range clauses {
		if !saysBlocked(c) {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return scope + strings.Join(kept, "; ")
}

// saysBlocked reports whether text says something is held up (and not
// that it no longer is).
func saysBlocked(text string) bool {
	return mayBeBlocked(text) && blockedRE.MatchString(text) && !notBlockedRE.MatchString(text)
}

// blockedHints are pieces every blockedRE match contains (lower-case):
// checking for them first spares the patterns, which backtrack, the text
// that cannot match (they took 70% of an answer's CPU on a 1M-event
// index, reading the messages of the last two weeks' commits).
var blockedHints = []string{"block", "waiting", "stuck", "on hold", "until", "park", "held up", "on ice", "first",
	"before we", "before i", "before it", "before th", "待ち", "ブロック", "止まって", "保留", "止めて", "見送", "無効"}

// mayBeBlocked reports whether text holds one of blockedHints.
func mayBeBlocked(text string) bool {
	low := strings.ToLower(text)
	for _, h := range blockedHints {
		if strings.Contains(low, h) {
			return true
		}
	}
	return false
}

// keepBlockers orders blockers (rank, then newest first), drops a text
// already kept and keeps maxBlockers, each clipped.
func keepBlockers(items []blocker) []blocker {
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].rank != items[j].rank {
			return items[i].rank < items[j].rank
		}
		return items[i].ts.After(items[j].ts) // newest first
	})
	seen := map[string]bool{}
	var out []blocker
	for _, b := range items {
		b.text = clipBlocker(b.text, snippetCap)
		if b.text == "" || seen[b.text] {
			continue
		}
		seen[b.text] = true
		out = append(out, b)
		if len(out) == maxBlockers {
			break
		}
	}
	return out
}

// clipBlocker cuts a blocker to n characters like clipRunes, but keeps the
// issue it waits on when the cut falls before it: "blocked on
// swift-testing's missing… (swiftlang/swift-testing#1187)". The reference
// is what a colleague follows (a held-out blocker lost it to the cut).
//
// A marker's place ("FIXME(path:line): ") is not counted: the cut is for
// the words, and a FIXME deep in a source tree
// (coil-core/src/commonMain/kotlin/coil3/memory/…) lost half of them to
// its path while one at the top kept them all.
func clipBlocker(s string, n int) string {
	if place := markerPlaceRE.FindString(s); place != "" {
		return place + clipBlocker(s[len(place):], n)
	}
	t := clipRunes(s, n)
	if t == s {
		return t
	}
	kept := strings.TrimSuffix(t, "…")
	var refs []string
	for _, ref := range issueRefRE.FindAllString(s[len(kept):], 2) {
		if !strings.Contains(kept, ref) && !slices.Contains(refs, ref) {
			refs = append(refs, ref)
		}
	}
	if len(refs) == 0 {
		return t
	}
	return t + " (" + strings.Join(refs, ", ") + ")"
}

// markerPlaceRE is the place a marker's blocker starts with.
var markerPlaceRE = regexp.MustCompile(`^(?:TODO|FIXME|XXX|HACK)\([^)]*\): `)

// issueRefRE is a reference to another project's issue or pull request:
// owner/repo#123, or its URL.
var issueRefRE = regexp.MustCompile(`\b[\w.-]+/[\w.-]+#\d+\b|https?://\S+/(?:issues|pull)/\d+`)

func fileOfMarker(e store.ContextEvent) string {
	if e.Kind != "marker" {
		return ""
	}
	f, _, _ := strings.Cut(e.Key, ":")
	return f
}

// markerLine is the line a marker event is on (0 when unknown).
func markerLine(e store.ContextEvent) int {
	_, l, _ := strings.Cut(e.Key, ":")
	n, _ := strconv.Atoi(l)
	return n
}

// mentionsTerm reports whether text names one of terms as a word (or, for
// Japanese, anywhere): "app" in "wrapper" does not count.
func mentionsTerm(text string, terms []string) bool {
	low := withoutMarkerWord(strings.ToLower(text))
	for _, t := range terms {
		if store.Occurrences(low, t) >= 1 {
			return true
		}
	}
	return false
}

// withoutMarkerWord is lower without the word FIXME, which names a
// marker's kind, not its topic: "fix" in a question found every FIXME
// (the second walk's "billing totals fix?" listed auth's FIXME as its
// blocker).
func withoutMarkerWord(lower string) string { return strings.ReplaceAll(lower, "fixme", "") }

// testRun is the test results of a task and the event they came from.
type testRun struct {
	*TestSummary
	from store.ContextEvent
}

// latestTests returns, per context, the test results of its newest task
// that ran tests.
func (s *Secretary) latestTests(ctx context.Context, ctxs []string, ac *accessCheck) ([]testRun, error) {
	tasks, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{KindTask}, Contexts: ctxs, Limit: 100})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []testRun
	for _, t := range tasks {
		if seen[t.Ctx] || !ac.allow(t) {
			continue
		}
		if m := parseMeta(t.Meta); m.Tests != nil {
			seen[t.Ctx] = true
			out = append(out, testRun{m.Tests, t})
		}
	}
	return out, nil
}

var (
	percentRE   = regexp.MustCompile(`(\d{1,3})\s*[%％]`)
	checkDoneRE = regexp.MustCompile(`(?m)^\s*[-*+]\s*\[[xX]\]`)
	checkOpenRE = regexp.MustCompile(`(?m)^\s*[-*+]\s*\[ \]`)
)

// progress finds a progress figure for the topic: an explicit one (a
// reported progress or "NN%") in the newest matching event, else a
// checklist's done ratio, else the latest test run's pass ratio.
func (s *Secretary) progress(ctx context.Context, hits []store.ContextHit, ev *evidence, contexts []string, ac *accessCheck) (*int, string, error) {
	byTime := append([]store.ContextHit(nil), hits...)
	sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].TS.After(byTime[j].TS) })
	for _, h := range byTime {
		if p := explicitProgress(h.Kind, h.Title+"\n"+h.Body, parseMeta(h.Meta)); p != nil {
			return p, h.Kind, nil
		}
	}
	for _, h := range byTime {
		done := len(checkDoneRE.FindAllString(h.Body, -1))
		open := len(checkOpenRE.FindAllString(h.Body, -1))
		if done+open > 0 {
			return intPtr(done * 100 / (done + open)), "checklist", nil
		}
	}
	ctxs := ev.contexts
	if len(ctxs) == 0 {
		ctxs = contexts
	}
	tests, err := s.latestTests(ctx, ctxs, ac)
	if err != nil || len(tests) == 0 {
		return nil, "", err
	}
	run, passed := 0, 0
	for _, t := range tests {
		run, passed = run+t.Run, passed+t.Passed
	}
	if run == 0 {
		return nil, "", nil
	}
	for _, t := range tests {
		ac.cite(eventResources(t.from)...)
	}
	return intPtr(passed * 100 / run), "tests", nil
}

// explicitProgress is a progress figure an event states: a reported
// progress, or "NN%" in a note or an assistant report. Commit messages are
// left out: "raise coverage to 80%" is not the feature's progress.
func explicitProgress(kind, text string, m eventMeta) *int {
	if m.Progress != nil {
		return intPtr(*m.Progress)
	}
	if kind != KindNote && kind != KindReport {
		return nil
	}
	if sm := percentRE.FindStringSubmatch(text); sm != nil {
		if n, err := strconv.Atoi(sm[1]); err == nil && n <= 100 {
			return intPtr(n)
		}
	}
	return nil
}

func intPtr(n int) *int { return &n }

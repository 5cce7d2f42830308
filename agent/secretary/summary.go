package secretary

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// answerFacts is what a summariser may use: nothing but evidence that has
// already passed the ACL.
type answerFacts struct {
	q            parsedQuery
	hits         []store.ContextHit
	ev           *evidence
	blockers     []string
	progress     *int
	progressFrom string
	inProgress   []string // what is being worked on now (uncommitted changes, notes)
	now          time.Time
}

// maxSummaryRunes caps the summary sent to the asker.
const maxSummaryRunes = 700

// summarise writes the answer's summary: the LLM one when configured and
// working, else the extractive one. Metadata says which.
func (s *Secretary) summarise(ctx context.Context, question string, f answerFacts) (string, map[string]any) {
	extractive := extractiveSummary(f)
	// as_of is the moment the summary's "2 min ago" counts from: a draft
	// released later says so (inbox.datedSummary).
	meta := map[string]any{"summariser": "extractive", wire.MetaAsOf: f.now.UTC().Format(time.RFC3339)}
	llm := s.config().Secretary.LLM
	if !llm.Enabled || llm.Endpoint == "" || len(f.hits) == 0 {
		return extractive, meta
	}
	text, err := chatSummary(ctx, llm, question, extractive, f)
	if err != nil {
		s.log.Warn("LLM summariser failed; using the extractive summary", "err", err)
		return extractive, meta
	}
	meta["summariser"] = "llm"
	return clipRunes(text, maxSummaryRunes), meta
}

// extractiveSummary is deterministic and offline: what matched and where,
// then what is done, what is in progress and what blocks, each said once,
// in the question's language.
func extractiveSummary(f answerFacts) string {
	topic := topicOf(f.q.Words)
	if len(f.hits) == 0 {
		return nothingFound(topic, f.q.Japanese)
	}
	// "latest" dates the work the answer rests on, its best matches: a
	// weak match further down (a word in passing) would make old work
	// look fresh.
	lead := f.hits[:min(len(f.hits), leadHits)]
	latest := latestTS(lead, false)
	if latest.IsZero() {
		latest = latestTS(lead, true)
	}
	t := templatesEN
	if f.q.Japanese {
		t = templatesJA
	}
	if topic == "" {
		topic = t.recentWork
	}
	var b strings.Builder
	where := slices.DeleteFunc(slices.Clone(f.ev.contexts), func(c string) bool { return c == "" }) // notes have none
	b.WriteString(t.head(topic, len(f.hits), strings.Join(where, ", "), t.latest(f.now, latest)))
	if f.q.WantsWho {
		b.WriteString(t.section(t.who, authorItems(authors(f.hits, f.q.Files, f.q.WantsRecent), t, f.now)))
	}
	progress := unique(append(unfinishedItems(f), f.inProgress...))
	progress = progress[:min(len(progress), maxInProgress)]
	if f.progress != nil {
		progress = append(append([]string(nil), progress...), t.percent(*f.progress))
	}
	blockers := f.blockers[:min(3, len(f.blockers))]
	b.WriteString(t.section(t.done, doneItems(f)))
	b.WriteString(t.section(t.doing, progress))
	b.WriteString(t.section(t.blocked, blockers))
	return clipRunes(b.String(), maxSummaryRunes)
}

// nothingFound is the summary when no work matched. A question made only
// of words that name nothing ("is it?", "それは？") has no topic to quote:
// `No recorded work matches ""` read as if aoi had looked for something,
// so it says what was missing instead.
func nothingFound(topic string, japanese bool) string {
	switch {
	case topic == "" && japanese:
		return "質問に探す対象（機能、ファイル、チケットなど）が含まれていません。何についての質問か、名前を挙げて聞き直してください。"
	case topic == "":
		return "The question names nothing to look for (a feature, a file, a ticket); ask again naming what it is about."
	case japanese:
		return fmt.Sprintf("「%s」に該当する作業記録はありません。", topic)
	}
	return fmt.Sprintf("No recorded work matches %q.", topic)
}

// maxTopicWords bounds the words the summary's first line names: a long
// question's every word there reads as a bag of keywords.
const maxTopicWords = 4

// topicOf is what the summary says it matched: the question's words, the
// first few of a long one.
func topicOf(words []string) string {
	if len(words) > maxTopicWords {
		return strings.Join(words[:maxTopicWords], " ") + " …"
	}
	return strings.Join(words, " ")
}

// unfinishedRE matches a title that says its work is not finished: a
// share under 100% ("refresh tokens (75%)", "75% done", "75 % there") or
// WIP. A share that is not the work's ("raise coverage to 80%") is not.
var unfinishedRE = regexp.MustCompile(`(?i)\(\s*[0-9]{1,2}\s?[%％][^)]*\)|(?:^|[^0-9])[0-9]{1,2}\s?[%％]\s*(?:done|complete|completed|finished|there|完了|済)|\bwip\b`)

// unfinishedItems are the titles of the best-matching commits whose title
// says the work is unfinished ("Refresh tokens: initial implementation
// (75% done)"): in progress, with the share they give. Only the lead
// matches count; an old WIP further down is history, not what is going on.
func unfinishedItems(f answerFacts) []string {
	var out []string
	for _, h := range f.hits[:min(len(f.hits), leadHits)] {
		title := clipRunes(h.Title, 100)
		if h.Kind == "commit" && unfinishedRE.MatchString(title) && !isBlocker(f.blockers, h.Title) && !slices.Contains(out, title) {
			out = append(out, title)
		}
	}
	return out
}

// doneItems are the titles of the best-matching recorded work (commits,
// finished tasks), leaving out anything the answer lists as a blocker and
// work whose title or message says it is unfinished or held up.
func doneItems(f answerFacts) []string {
	var out []string
	for _, h := range f.hits {
		if len(out) == 3 {
			break
		}
		if h.Kind != "commit" && h.Kind != KindTask {
			continue
		}
		if isBlocker(f.blockers, h.Title) || blockedLine(commitMessage(h.Body)) != "" {
			continue // "auth: token refresh finished" whose message says "still blocked on …"
		}
		// "X done; blocked on Y" lists X as done (Y is a blocker).
		title := clipRunes(donePart(h.Title), 80)
		if title == "" || unfinishedRE.MatchString(title) || slices.Contains(out, title) {
			continue
		}
		out = append(out, title)
	}
	return out
}

// isBlocker reports whether title is, or opens, one of the blockers.
func isBlocker(blockers []string, title string) bool {
	full := clipRunes(title, snippetCap)
	return slices.ContainsFunc(blockers, func(b string) bool { return b == full || strings.HasPrefix(b, title+": ") })
}

// templates are the summary's wording in one language.
type templates struct {
	recentWork           string
	done, doing, blocked string
	who                  string
	none                 string
	sep, end             string
	head                 func(topic string, n int, where, ago string) string
	percent              func(int) string
	ago                  func(time.Duration) string
	// at dates the latest match on the clock as well: the answer is read
	// later than it is written ("latest just now" read an hour on).
	at     func(ago string, when time.Time, recent bool) string
	author func(name string, commits int, ago string) string
}

// latest is when the newest match was, as long ago and on the clock (the
// answering agent's time zone); the day alone for a match two days old.
func (t templates) latest(now, when time.Time) string {
	d := now.Sub(when)
	return t.at(t.ago(d), when.In(time.Local), d < 20*time.Hour)
}

var templatesEN = templates{
	recentWork: "recent work",
	done:       "Done", doing: "In progress", blocked: "Blocked by", who: "By",
	none: "nothing recorded", sep: "; ", end: ".",
	head: func(topic string, n int, where, ago string) string {
		events := "events"
		if n == 1 {
			events = "event"
		}
		if where == "" { // notes belong to no context
			return fmt.Sprintf("%s: %d matching %s, latest %s.", topic, n, events, ago)
		}
		return fmt.Sprintf("%s: %d matching %s in %s, latest %s.", topic, n, events, where, ago)
	},
	percent: func(p int) string { return fmt.Sprintf("about %d%% done", p) },
	ago:     agoEN,
	at: func(ago string, when time.Time, recent bool) string {
		if recent {
			return ago + " (" + when.Format("15:04 MST") + ")"
		}
		return ago + " (" + when.Format("Jan 2") + ")"
	},
	author: authorEN,
}

var templatesJA = templates{
	recentWork: "最近の作業",
	done:       "完了", doing: "進行中", blocked: "ブロック要因", who: "担当",
	none: "なし", sep: " / ", end: "。",
	head: func(topic string, n int, where, ago string) string {
		if where == "" {
			return fmt.Sprintf("「%s」の記録が%d件（最新は%s）。", topic, n, ago)
		}
		return fmt.Sprintf("「%s」の記録が%d件（%s、最新は%s）。", topic, n, where, ago)
	},
	percent: func(p int) string { return fmt.Sprintf("進捗 約%d%%", p) },
	ago:     agoJA,
	at: func(ago string, when time.Time, recent bool) string {
		if recent {
			return ago + "、" + when.Format("15:04 MST")
		}
		return ago + "、" + when.Format("1月2日")
	},
	author: authorJA,
}

// section is one part of the summary: "Done: a; b." / "完了: a / b。".
func (t templates) section(label string, items []string) string {
	text := t.none
	if len(items) > 0 {
		text = strings.Join(items, t.sep)
	}
	// An item that ends a sentence itself ("…from infra.") takes no
	// second full stop ("infra.." or "infra.。").
	text = strings.TrimRight(text, ".。")
	if t.end == "." {
		return " " + label + ": " + text + t.end
	}
	return label + ": " + text + t.end
}

// leadHits is how many of the best matches date an answer.
const leadHits = 5

// latestTS is the newest hit's time, counting state snapshots only when
// withState is set (their time is when they were last seen).
func latestTS(hits []store.ContextHit, withState bool) time.Time {
	var t time.Time
	for _, h := range hits {
		if h.TS.After(t) && (withState || !isStateKind(h.Kind)) {
			t = h.TS
		}
	}
	return t
}

func agoEN(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days ago", int(d.Hours()/24))
	}
}

func agoJA(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "たった今"
	case d < time.Hour:
		return fmt.Sprintf("%d分前", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d時間前", int(d.Hours()))
	default:
		return fmt.Sprintf("%d日前", int(d.Hours()/24))
	}
}

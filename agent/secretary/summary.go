package secretary

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

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
	now          time.Time
}

// maxSummaryRunes caps the summary sent to the asker.
const maxSummaryRunes = 700

// summarise writes the answer's summary: the LLM one when configured and
// working, else the extractive one. Metadata says which.
func (s *Secretary) summarise(ctx context.Context, question string, f answerFacts) (string, map[string]any) {
	extractive := extractiveSummary(f)
	meta := map[string]any{"summariser": "extractive"}
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

// extractiveSummary is deterministic and offline: how much matched and
// where, the best-ranked events, progress and blockers.
func extractiveSummary(f answerFacts) string {
	topic := strings.Join(f.q.Words, " ")
	if len(f.hits) == 0 {
		if f.q.Japanese {
			return fmt.Sprintf("「%s」に該当する作業記録はありません。", topic)
		}
		return fmt.Sprintf("No recorded work matches %q.", topic)
	}
	latest := latestTS(f.hits, false)
	if latest.IsZero() {
		latest = latestTS(f.hits, true)
	}
	where := strings.Join(f.ev.contexts, ", ")
	var titles []string
	for _, h := range f.hits {
		if len(titles) == 3 {
			break
		}
		// Markers show up as blockers and branches say little; an event
		// already listed as a blocker is not repeated among the titles.
		if !isStateKind(h.Kind) && !slices.Contains(f.blockers, clipRunes(h.Title, snippetCap)) {
			titles = append(titles, clipRunes(h.Title, 80))
		}
	}
	var b strings.Builder
	if f.q.Japanese {
		fmt.Fprintf(&b, "「%s」の記録が%d件（%s、最新は%s）。主な内容: %s。", topic, len(f.hits), where, agoJA(f.now.Sub(latest)), strings.Join(titles, " / "))
		if f.progress != nil {
			fmt.Fprintf(&b, "進捗 %d%%。", *f.progress)
		}
		if len(f.blockers) > 0 {
			fmt.Fprintf(&b, "ブロック要因 %d件: %s。", len(f.blockers), strings.Join(f.blockers[:min(2, len(f.blockers))], " / "))
		}
	} else {
		if topic == "" {
			topic = "recent work"
		}
		fmt.Fprintf(&b, "%s: %d matching events in %s, latest %s. Recent: %s.", topic, len(f.hits), where, agoEN(f.now.Sub(latest)), strings.Join(titles, "; "))
		if f.progress != nil {
			fmt.Fprintf(&b, " Progress %d%%.", *f.progress)
		}
		if len(f.blockers) > 0 {
			fmt.Fprintf(&b, " Blockers (%d): %s.", len(f.blockers), strings.Join(f.blockers[:min(2, len(f.blockers))], "; "))
		}
	}
	return clipRunes(b.String(), maxSummaryRunes)
}

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

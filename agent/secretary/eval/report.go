package eval

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Report is a run's outcome: per-question results and figures per
// language and overall.
type Report struct {
	Measured  string             `json:"measured_commit,omitempty"` // the aoi commit under test, when known
	Repos     []RepoInfo         `json:"repos"`
	Threshold float64            `json:"auto_respond_threshold"`
	Events    int64              `json:"indexed_events"`
	Seed      uint64             `json:"seed"`
	Figures   map[string]Figures `json:"figures"` // "en", "ja", "all", and "repo:<name>"
	// Calibration: topic questions by confidence band, and how many of
	// each band had a right ref in the top 3 (confidence should track it).
	Calibration []Band   `json:"calibration"`
	Results     []Result `json:"results"`
}

// RepoInfo names an evaluated repository and its pinned commit.
type RepoInfo struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	SHA  string `json:"sha"`
}

// Band is a confidence range [Lo, Hi) and how right its answers were.
type Band struct {
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	Answers int     `json:"answers"`
	Right   int     `json:"right"`
}

// Figures are the headline numbers of a set of questions.
type Figures struct {
	Questions       int     `json:"questions"`
	Topic           int     `json:"topic_questions"`
	Top3            int     `json:"top3_hits"`
	Any             int     `json:"any_rank_hits"`
	BlockersPlanted int     `json:"blockers_planted"`
	BlockersFound   int     `json:"blockers_found"`
	OnTopic         int     `json:"on_topic_questions"`
	AutoAnswered    int     `json:"auto_answered"` // on-topic with confidence ≥ threshold
	AutoRight       int     `json:"auto_answered_right"`
	OffTopic        int     `json:"offtopic_questions"`
	OffTopicAuto    int     `json:"offtopic_over_threshold"`
	Leaks           int     `json:"answers_leaking"`
	Repeats         int     `json:"answers_repeating_a_blocker"`
	Foreign         int     `json:"foreign_blockers"` // blockers listed that another repository's work planted
	P50Millis       float64 `json:"p50_ms"`
	MaxMillis       float64 `json:"max_ms"`
}

func (r *Report) summarise() {
	r.Figures = map[string]Figures{"en": {}, "ja": {}, "all": {}}
	for _, ri := range r.Repos {
		r.Figures["repo:"+ri.Name] = Figures{}
	}
	ms := map[string][]float64{}
	r.Calibration = []Band{{Lo: 0, Hi: 0.5}, {Lo: 0.5, Hi: 0.8}, {Lo: 0.8, Hi: 1.01}}
	for _, x := range r.Results {
		for i := range r.Calibration {
			b := &r.Calibration[i]
			if x.Kind == KindTopic && x.Confidence >= b.Lo && x.Confidence < b.Hi {
				b.Answers++
				if x.Top3() {
					b.Right++
				}
			}
		}
		for _, k := range []string{x.Lang, "all", "repo:" + x.Repo} {
			f := r.Figures[k]
			f.add(x, r.Threshold)
			r.Figures[k] = f
			ms[k] = append(ms[k], x.Millis)
		}
	}
	for k, v := range ms {
		sort.Float64s(v)
		f := r.Figures[k]
		f.P50Millis, f.MaxMillis = v[len(v)/2], v[len(v)-1]
		r.Figures[k] = f
	}
}

func (f *Figures) add(x Result, threshold float64) {
	f.Questions++
	auto := x.Confidence >= threshold
	if len(x.Leaks) > 0 {
		f.Leaks++
	}
	if x.Repeats > 0 {
		f.Repeats++
	}
	f.Foreign += x.Foreign
	switch x.Kind {
	case KindOffTopic:
		f.OffTopic++
		if auto {
			f.OffTopicAuto++
		}
		return
	case KindTopic:
		f.Topic++
		if x.Top3() {
			f.Top3++
		}
		if x.Rank > 0 {
			f.Any++
		}
		if auto && x.Top3() {
			f.AutoRight++
		}
	case KindBlocker:
		f.BlockersPlanted += x.BlockersOf
		f.BlockersFound += x.Blockers
		if auto && x.Blockers == x.BlockersOf {
			f.AutoRight++
		}
	}
	f.OnTopic++
	if auto {
		f.AutoAnswered++
	}
}

func pct(n, d int) string {
	if d == 0 {
		return "   -  "
	}
	return fmt.Sprintf("%5.1f%%", 100*float64(n)/float64(d))
}

// WriteTable prints the figures per language, then (verbose) every miss.
func (r *Report) WriteTable(w io.Writer, verbose bool) {
	for _, ri := range r.Repos {
		fmt.Fprintf(w, "repo %-12s %s @ %.12s\n", ri.Name, ri.URL, ri.SHA)
	}
	fmt.Fprintf(w, "aoi %s; indexed events: %d; auto_respond_threshold: %.2f; seed %d\n\n", r.Measured, r.Events, r.Threshold, r.Seed)
	fmt.Fprintf(w, "%-18s %4s  %-15s %-15s %-15s %-15s %-12s %-15s %5s %8s\n",
		"set", "qs", "top-3", "any rank", "blockers", "auto-answer", "auto right", "off-topic≥thr", "leaks", "p50/max")
	keys := []string{"en", "ja", "all"}
	for _, ri := range r.Repos {
		keys = append(keys, "repo:"+ri.Name)
	}
	for _, k := range keys {
		f := r.Figures[k]
		fmt.Fprintf(w, "%-18s %4d  %-15s %-15s %-15s %-15s %-12s %-15s %5d %4.0f/%.0fms\n", k, f.Questions,
			frac(f.Top3, f.Topic), frac(f.Any, f.Topic), frac(f.BlockersFound, f.BlockersPlanted),
			frac(f.AutoAnswered, f.OnTopic), pct(f.AutoRight, f.AutoAnswered), frac(f.OffTopicAuto, f.OffTopic), f.Leaks, f.P50Millis, f.MaxMillis)
	}
	if f := r.Figures["all"]; f.Repeats > 0 {
		fmt.Fprintf(w, "\n%d answer(s) state a blocker twice in the summary\n", f.Repeats)
	}
	if f := r.Figures["all"]; f.Foreign > 0 {
		fmt.Fprintf(w, "\n%d blocker(s) listed in answers about another repository than the one they hold up\n", f.Foreign)
	}
	fmt.Fprint(w, "\ncalibration (topic questions): ")
	for _, b := range r.Calibration {
		fmt.Fprintf(w, "conf [%.1f,%.1f) %s right   ", b.Lo, min(b.Hi, 1), frac(b.Right, b.Answers))
	}
	fmt.Fprintln(w)
	if !verbose {
		return
	}
	fmt.Fprintln(w, "\nmisses:")
	for _, x := range r.Results {
		miss := (x.Kind == KindTopic && !x.Top3()) || (x.Kind == KindBlocker && x.Blockers < x.BlockersOf) ||
			(x.Kind == KindOffTopic && x.Confidence >= r.Threshold) || len(x.Leaks) > 0
		if !miss {
			continue
		}
		fmt.Fprintf(w, "- %s [%s %s] %q conf %.2f rank %d\n    refs: %s\n", x.ID, x.Kind, x.Lang, x.Question, x.Confidence, x.Rank, strings.Join(head(x.Refs, 6), "  "))
		if x.Kind == KindBlocker {
			fmt.Fprintf(w, "    blockers: %s\n", strings.Join(x.Listed, " | "))
		}
		if len(x.Leaks) > 0 {
			fmt.Fprintf(w, "    LEAK: %s\n", strings.Join(x.Leaks, ", "))
		}
	}
}

func frac(n, d int) string { return fmt.Sprintf("%d/%d %s", n, d, strings.TrimSpace(pct(n, d))) }

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

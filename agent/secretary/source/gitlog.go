package source

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// logFormat separates commits with RS and fields with US; the patch follows
// the last US.
const logFormat = "%x1e%H%x1f%an%x1f%aI%x1f%B%x1f"

// Bounds on one commit event.
const (
	maxExcerpt      = 2 << 10 // added lines kept for search
	maxFilesListed  = 40
	maxMessageBytes = 4 << 10
)

// FileStat is one file a commit touched.
type FileStat struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Lines   string `json:"lines,omitempty"` // "start-end" of the added lines, new side
}

type commit struct {
	SHA, Author, Message string
	When                 time.Time
	Files                []FileStat
	Excerpt              string
}

// parseLog splits `git log -p --unified=0 --format=logFormat` output. When
// the output was capped, the last (partial) commit is dropped.
func parseLog(out string, capped bool) []commit {
	recs := strings.Split(out, "\x1e")
	if capped && len(recs) > 0 {
		recs = recs[:len(recs)-1]
	}
	var cs []commit
	for _, rec := range recs {
		f := strings.SplitN(rec, "\x1f", 5)
		if len(f) < 5 || len(f[0]) < 7 {
			continue
		}
		when, _ := time.Parse(time.RFC3339, f[2])
		c := commit{SHA: f[0], Author: f[1], When: when, Message: strings.TrimSpace(f[3])}
		c.Files, c.Excerpt = parsePatch(f[4])
		cs = append(cs, c)
	}
	return cs
}

// fileAcc accumulates one file of a patch.
type fileAcc struct {
	stat     FileStat
	lo, hi   int
	oldPath  string
	inHeader bool
}

// parsePatch reads a --unified=0 patch: per-file +/- counts, the new-side
// line range of the additions, and an excerpt of added lines.
func parsePatch(p string) ([]FileStat, string) {
	var (
		files   []*fileAcc
		cur     *fileAcc
		excerpt strings.Builder
	)
	for _, line := range strings.Split(p, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur = &fileAcc{inHeader: true}
			files = append(files, cur)
		case cur == nil:
		case cur.inHeader && strings.HasPrefix(line, "--- "):
			cur.oldPath = strings.TrimPrefix(strings.TrimPrefix(line, "--- "), "a/")
		case cur.inHeader && strings.HasPrefix(line, "+++ "):
			path := strings.TrimPrefix(line, "+++ ")
			if path == "/dev/null" {
				path = cur.oldPath
			}
			cur.stat.Path = strings.TrimPrefix(path, "b/")
		case strings.HasPrefix(line, "@@"):
			cur.inHeader = false
			cur.hunk(line)
		case cur.inHeader:
			if rest, ok := strings.CutPrefix(line, "rename to "); ok {
				cur.stat.Path = rest
			}
		case strings.HasPrefix(line, "+"):
			cur.stat.Added++
			if excerpt.Len() < maxExcerpt {
				excerpt.WriteString(line[1:])
				excerpt.WriteByte('\n')
			}
		case strings.HasPrefix(line, "-"):
			cur.stat.Deleted++
		}
	}
	out := make([]FileStat, 0, len(files))
	for _, f := range files {
		if f.stat.Path == "" {
			continue
		}
		if f.hi >= f.lo && f.lo > 0 {
			f.stat.Lines = fmt.Sprintf("%d-%d", f.lo, f.hi)
		}
		out = append(out, f.stat)
	}
	return out, excerpt.String()
}

// hunk widens the file's added-line range from "@@ -a,b +c,d @@".
func (f *fileAcc) hunk(line string) {
	fields := strings.Fields(line)
	if len(fields) < 3 || !strings.HasPrefix(fields[2], "+") {
		return
	}
	startS, countS, hasCount := strings.Cut(fields[2][1:], ",")
	start, err := strconv.Atoi(startS)
	if err != nil {
		return
	}
	count := 1
	if hasCount {
		if count, err = strconv.Atoi(countS); err != nil {
			return
		}
	}
	if count == 0 {
		return
	}
	end := start + count - 1
	if f.lo == 0 || start < f.lo {
		f.lo = start
	}
	f.hi = max(f.hi, end)
}

// event turns a commit into a context event: the subject as title; the
// message, the files with their stats and an excerpt of added lines as body.
func (c commit) event(ctxID string) Event {
	subject, rest, _ := strings.Cut(c.Message, "\n")
	var body strings.Builder
	if rest = strings.TrimSpace(rest); rest != "" {
		body.WriteString(clipBytes(rest, maxMessageBytes))
		body.WriteString("\n")
	}
	body.WriteString("files:")
	for i, f := range c.Files {
		if i == maxFilesListed {
			fmt.Fprintf(&body, " … and %d more", len(c.Files)-i)
			break
		}
		fmt.Fprintf(&body, " %s (+%d -%d)", f.Path, f.Added, f.Deleted)
	}
	if c.Excerpt != "" {
		body.WriteString("\nadded:\n") // store.CodeMark
		body.WriteString(c.Excerpt)
	}
	files := c.Files
	if len(files) > maxFilesListed {
		files = files[:maxFilesListed]
	}
	return Event{
		Kind: "commit", Ctx: ctxID, Key: c.SHA, Title: subject, Body: body.String(), TS: c.When,
		Meta: map[string]any{"author": c.Author, "sha": c.SHA, "files": files},
	}
}

// clipBytes cuts s to at most n bytes on a character boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

package source

import (
	"encoding/json"
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
	maxExcerpt = 2 << 10 // added lines kept for search
	// maxExcerptLine bounds one added line: what the store keeps of an
	// event's body (store.maxContextBody).
	maxExcerptLine = 32 << 10
	// MaxFilesListed is how many of a commit's files its event keeps.
	MaxFilesListed  = 40
	maxMessageBytes = 4 << 10
	// maxListedFileBytes bounds the JSON of the files an event's meta
	// lists: the store refuses a meta over 8 KB, and forty long paths
	// (deep component folders, renames that name both places) pass it, so
	// one such commit would stop its whole batch from being stored.
	maxListedFileBytes = 6 << 10
)

// FileStat is one file a commit touched.
type FileStat struct {
	Path string `json:"path"`
	// From is where a renamed or copied file came from: the ACL judges
	// both places (a file moved out of a denied folder shows its text).
	From    string `json:"from,omitempty"`
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

// parseLog splits `git log --raw -p --unified=0 --format=logFormat` output. When
// the output was capped, the last (partial) commit is dropped: the next batch
// starts at it and reads it whole. Unless it is the only commit read: then
// its patch alone is larger than the cap, no batch would ever read it whole,
// and dropping it would end the history walk there (a large merge or a
// vendored dependency would hide every older commit). It is kept with what
// the cap let through: its message, the files its raw lines name, the patch
// up to its last whole line.
func parseLog(out string, capped bool) []commit {
	recs := logRecords(out)
	if capped && len(recs) > 0 {
		partial := recs[len(recs)-1]
		recs = recs[:len(recs)-1]
		if strings.TrimSpace(strings.Join(recs, "")) == "" {
			recs = append(recs, upToLastLine(partial))
		}
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

// logRecords splits git log output into one record per commit. A record
// starts with the commit's full SHA and a field separator; a separator
// byte inside a patch (a file git shows as text that holds control bytes)
// starts none and stays in the record it belongs to. Split on the byte
// alone, such files made commits of binary junk, stamped now, and the
// history walk skipped as many real commits as it had counted junk ones.
func logRecords(out string) []string {
	parts := strings.Split(out, "\x1e")
	recs := parts[:1]
	for _, p := range parts[1:] {
		if startsWithSHA(p) {
			recs = append(recs, p)
		} else {
			recs[len(recs)-1] += "\x1e" + p
		}
	}
	return recs
}

// startsWithSHA reports whether s begins with a full hex object name and
// the field separator after it.
func startsWithSHA(s string) bool {
	sha, _, ok := strings.Cut(s, "\x1f")
	if !ok || (len(sha) != 40 && len(sha) != 64) {
		return false
	}
	for _, c := range sha {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// upToLastLine cuts s after its last newline: a capped output's last line
// may stop mid-path.
func upToLastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}

// fileAcc accumulates one file of a patch.
type fileAcc struct {
	stat     FileStat
	lo, hi   int
	oldPath  string
	inHeader bool
}

// parsePatch reads a commit's --raw lines and its --unified=0 patch: every
// file the commit touched (from the raw lines, which name binary, empty and
// mode-only changes the patch gives no path for, and both sides of a
// rename), with per-file +/- counts, the new-side line range of the
// additions, and an excerpt of added lines.
func parsePatch(p string) ([]FileStat, string) {
	var (
		raw     []FileStat
		files   []*fileAcc
		cur     *fileAcc
		excerpt strings.Builder
	)
	for _, line := range strings.Split(p, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, ":"):
			if f, ok := rawFile(line); ok {
				raw = append(raw, f)
			}
		case strings.HasPrefix(line, "diff --git "):
			cur = &fileAcc{inHeader: true}
			files = append(files, cur)
		case cur == nil:
		case cur.inHeader && strings.HasPrefix(line, "--- "):
			cur.oldPath = strings.TrimPrefix(patchPath(strings.TrimPrefix(line, "--- ")), "a/")
		case cur.inHeader && strings.HasPrefix(line, "+++ "):
			path := patchPath(strings.TrimPrefix(line, "+++ "))
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
				// One added line can be megabytes (a minified
				// stylesheet, a source map): the redactor read all of
				// it for every such commit, and the store keeps the
				// body's first 32 KB only. Cut there, the line leaves
				// what is stored as it was.
				excerpt.WriteString(clipBytes(line[1:], maxExcerptLine))
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
	return withRawFiles(raw, out), excerpt.String()
}

// withRawFiles lists every file of raw, in its order, with the counts the
// patch gave it; a patch file raw lacks (no --raw in the output) follows.
func withRawFiles(raw, patched []FileStat) []FileStat {
	if len(raw) == 0 {
		return patched
	}
	byPath := make(map[string]FileStat, len(patched))
	for _, f := range patched {
		byPath[f.Path] = f
	}
	out := make([]FileStat, 0, len(raw))
	for _, f := range raw {
		if st, ok := byPath[f.Path]; ok {
			st.From = f.From
			f = st
			delete(byPath, f.Path)
		}
		out = append(out, f)
	}
	for _, f := range patched {
		if _, left := byPath[f.Path]; left {
			out = append(out, f)
		}
	}
	return out
}

// rawFile reads one --raw line, ":100644 100644 abc def R100\told\tnew":
// the file's path and, for a rename or copy, where it came from.
func rawFile(line string) (FileStat, bool) {
	meta, paths, ok := strings.Cut(line, "\t")
	fields := strings.Fields(meta)
	if !ok || len(fields) < 5 {
		return FileStat{}, false
	}
	names := strings.Split(paths, "\t")
	for i := range names {
		names[i] = unquotePath(names[i])
	}
	switch status := fields[4]; {
	case (status[0] == 'R' || status[0] == 'C') && len(names) == 2:
		return FileStat{Path: names[1], From: names[0]}, true
	case len(names) == 1 && names[0] != "":
		return FileStat{Path: names[0]}, true
	}
	return FileStat{}, false
}

// patchPath is the name on a ---/+++ line: git ends one holding a space
// with a tab, and quotes one holding a tab, a newline, a quote or a
// backslash C-style ("b/docs/tab\tname.txt").
func patchPath(s string) string {
	return unquotePath(strings.TrimSuffix(s, "\t"))
}

// unquotePath undoes git's C-style quoting of a path; one that is not
// quoted, or does not unquote, is as written.
func unquotePath(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
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
		if i == MaxFilesListed {
			fmt.Fprintf(&body, " … and %d more", len(c.Files)-i)
			break
		}
		fmt.Fprintf(&body, " %s (+%d -%d)", f.Path, f.Added, f.Deleted)
	}
	if c.Excerpt != "" {
		body.WriteString("\nadded:\n") // store.CodeMark
		body.WriteString(c.Excerpt)
	}
	meta := map[string]any{"author": c.Author, "sha": c.SHA}
	listFiles(meta, c.Files)
	return Event{Kind: "commit", Ctx: ctxID, Key: c.SHA, Title: subject, Body: body.String(), TS: c.When, Meta: meta}
}

// listFiles puts the files that fit (MaxFilesListed of them, their JSON
// within maxListedFileBytes) in meta "files" and counts the rest in
// "files_more": the ACL lets see an event whose list was cut only those
// who may read all of its context.
func listFiles(meta map[string]any, files []FileStat) {
	n, size := 0, 0
	for n < len(files) && n < MaxFilesListed {
		b, _ := json.Marshal(files[n])
		if size += len(b) + 1; size > maxListedFileBytes {
			break
		}
		n++
	}
	meta["files"] = files[:n]
	if n < len(files) {
		meta["files_more"] = len(files) - n
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

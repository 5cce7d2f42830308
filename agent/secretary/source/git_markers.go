package source

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// addedLines maps each file of the uncommitted diff (against HEAD) to the
// line numbers its working copy adds, so a marker written since the last
// commit can be told from the dozens that have sat in the code for months.
func addedLines(ctx context.Context, repo Repo) map[string]map[int]bool {
	out, _, err := runGit(ctx, repo.Path, 4<<20, "diff", "HEAD", "--unified=0", "--no-color", "--no-ext-diff")
	if err != nil {
		return nil
	}
	added := map[string]map[int]bool{}
	var file string
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "+++ b/"):
			file = strings.TrimPrefix(line, "+++ b/")
		case strings.HasPrefix(line, "+++ "):
			file = "" // deleted file
		case strings.HasPrefix(line, "@@") && file != "":
			start, count, ok := newSideRange(line)
			if !ok {
				continue
			}
			if added[file] == nil {
				added[file] = map[int]bool{}
			}
			for n := start; n < start+count; n++ {
				added[file][n] = true
			}
		}
	}
	return added
}

var hunkRE = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// newSideRange reads the new-side start and length of a hunk header.
func newSideRange(header string) (start, count int, ok bool) {
	m := hunkRE.FindStringSubmatch(header)
	if m == nil {
		return 0, 0, false
	}
	start, _ = strconv.Atoi(m[1])
	count = 1
	if m[2] != "" {
		count, _ = strconv.Atoi(m[2])
	}
	return start, count, true
}

// commentPrefixRE strips what opens a comment line in common languages.
var commentPrefixRE = regexp.MustCompile(`^\s*(//+|#+|--|;+|\*+|/\*+|<!--|%+)\s*`)

// continuation is the text of the comment line after a marker that says
// nothing on its own line ("// FIXME:" then the explanation below it).
func continuation(repo Repo, file string, line int) string {
	f, err := os.Open(filepath.Join(repo.Path, file))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n == line+1 {
			text := sc.Text()
			if !commentPrefixRE.MatchString(text) {
				return "" // code, not the marker's explanation
			}
			return strings.TrimSpace(strings.TrimSuffix(commentPrefixRE.ReplaceAllString(text, ""), "*/"))
		}
	}
	return ""
}

// dateMarkers sets each committed marker's "added" meta to when the
// commit that wrote its line was authored (git blame), so a FIXME that
// has sat in the code for months is not taken for today's: the store
// stamps state events when they change, and a new commit touching the
// file changes them all. One blame per file, for the marked lines only.
func dateMarkers(ctx context.Context, repo Repo, evs []Event) {
	lines := map[string][]int{} // file → indexes into evs
	var files []string
	for i, e := range evs {
		f, _ := e.Meta["file"].(string)
		if f == "" || e.Meta["uncommitted"] == true {
			continue
		}
		if lines[f] == nil {
			files = append(files, f)
		}
		lines[f] = append(lines[f], i)
	}
	if len(files) > maxBlamedFiles {
		files = files[:maxBlamedFiles] // the rest stay stamped when seen
	}
	for _, f := range files {
		args := []string{"blame", "--line-porcelain"}
		for _, i := range lines[f] {
			n, _ := evs[i].Meta["line"].(string)
			args = append(args, "-L", n+","+n)
		}
		out, _, err := runGit(ctx, repo.Path, 1<<20, append(args, "--", f)...)
		if err != nil {
			continue // the file is gone or not committed: stamped when seen
		}
		added := blameTimes(string(out))
		for _, i := range lines[f] {
			text, _ := evs[i].Meta["line"].(string)
			n, _ := strconv.Atoi(text)
			if t, ok := added[n]; ok {
				evs[i].Meta["added"] = t.UTC().Format(time.RFC3339)
			}
		}
	}
}

// maxBlamedFiles bounds the blames of one change of the markers: in a
// long history one can take a second.
const maxBlamedFiles = 100

// zeroSHA is what git blame names a line the working tree changed.
const zeroSHA = "0000000000000000000000000000000000000000"

// blameTimes reads `git blame --line-porcelain` output: the author time of
// each final line number, lines not yet committed left out.
func blameTimes(out string) map[int]time.Time {
	times := map[int]time.Time{}
	line, committed := 0, false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && len(f[0]) == 40 && !strings.HasPrefix(l, "\t"):
			line, _ = strconv.Atoi(f[2])
			committed = f[0] != zeroSHA
		case len(f) == 2 && f[0] == "author-time" && committed && line > 0:
			if sec, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				times[line] = time.Unix(sec, 0)
			}
		}
	}
	return times
}

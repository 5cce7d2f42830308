package source

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

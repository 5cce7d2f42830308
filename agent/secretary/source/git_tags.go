package source

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// maxTags bounds the tags read per repository (newest first).
const maxTags = 300

// tagFormat: name, tag object, dereferenced commit, author dates of the
// object and of the commit it points to, and the subject.
const tagFormat = "%(refname:short)%1f%(objectname)%1f%(*objectname)%1f%(authordate:iso-strict)%1f%(*authordate:iso-strict)%1f%(contents:subject)"

// tagState lists the repository's tags (releases), so "what landed since
// v1.0?" can be answered from the index: each tag is a state event whose
// meta holds the commit it points to and that commit's date (commits are
// indexed by their author date too). Like the other state it is stamped
// when seen, so an old release is never pruned while the tag exists.
func tagState(ctx context.Context, repo Repo) (State, error) {
	st := State{Ctx: repo.Ctx, Kind: "tag"}
	out, _, err := runGit(ctx, repo.Path, 1<<20, "for-each-ref", "--sort=-creatordate", "--count="+strconv.Itoa(maxTags), "--format="+tagFormat, "refs/tags")
	if err != nil {
		return st, nil // no tags readable: nothing to list
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\x1f")
		if len(f) < 6 || f[0] == "" {
			continue
		}
		sha, date := f[1], f[3]
		if f[2] != "" { // an annotated tag: the commit it points to
			sha, date = f[2], f[4]
		}
		when, err := time.Parse(time.RFC3339, date)
		if err != nil || len(sha) < 7 {
			continue // a tag of something other than a commit
		}
		title := "tag " + f[0]
		if subj := strings.TrimSpace(f[5]); subj != "" && f[2] != "" {
			title += ": " + clipBytes(subj, 200)
		}
		st.Events = append(st.Events, Event{Key: f[0], Title: title,
			Meta: map[string]any{"tag": f[0], "sha": sha, "date": when.UTC().Format(time.RFC3339)}})
		if len(st.Events) == maxTags {
			break
		}
	}
	return st, nil
}

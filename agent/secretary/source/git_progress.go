package source

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// HistoryCount is how many commits the history walk of repo covers in
// all: those reachable from start (the head the walk began at, HEAD when
// empty) and not older than since (zero: no bound).
func HistoryCount(ctx context.Context, repo Repo, start string, since time.Time) (int, error) {
	if start == "" {
		start = "HEAD"
	}
	args := []string{"rev-list", "--count"}
	if !since.IsZero() {
		args = append(args, fmt.Sprintf("--since=@%d", since.Unix()))
	}
	out, _, err := runGit(ctx, repo.Path, 1<<10, append(args, start)...)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

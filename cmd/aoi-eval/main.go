// Command aoi-eval runs the secretary's answer-quality evaluation
// (agent/secretary/eval) and prints a table or, with --json, the report.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"

	"github.com/aoi-protocol/aoi/agent/secretary/eval"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "aoi-eval:", err)
		os.Exit(1)
	}
}

func run() error {
	asJSON := flag.Bool("json", false, "print the full report as JSON")
	verbose := flag.Bool("v", false, "list every missed question with its refs")
	work := flag.String("work", "", "keep clones and index in this folder (default: a temporary one)")
	seed := flag.Uint64("seed", 1, "seed of the planted fake secrets")
	only := flag.String("only", "", "comma-separated question ids to ask")
	corpus := flag.String("corpus", "", "read repos.json and questions.json from this folder instead of the built-in corpus")
	reuse := flag.Bool("reuse-index", false, "with -work: keep the index for the next run, and reuse a kept one built from the same repositories, seed and index code (else rebuild it)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	load := eval.LoadCorpus
	if *corpus != "" {
		load = func() (*eval.Corpus, error) { return eval.LoadCorpusDir(*corpus) }
	}
	c, err := load()
	if err != nil {
		return err
	}
	o := eval.Options{Work: *work, ReposDir: os.Getenv("AOI_EVAL_REPOS_DIR"), Seed: *seed, Log: os.Stderr}
	if *reuse {
		if *work == "" {
			return fmt.Errorf("-reuse-index needs -work: the folder the index is kept in")
		}
		v, err := eval.IndexCodeVersion(ctx, ".")
		if err != nil {
			return fmt.Errorf("-reuse-index: the index code's version is unknown (run inside aoi's checkout): %w", err)
		}
		o.ReuseIndex, o.IndexCode = true, v
	}
	if *only != "" {
		o.Only = strings.Split(*only, ",")
	}
	rep, err := eval.Run(ctx, c, o)
	if err != nil {
		return err
	}
	rep.Measured = measuredCommit(ctx)
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.WriteTable(os.Stdout, *verbose)
	return nil
}

// measuredCommit names the aoi commit being evaluated (the checkout this
// runs in), with "+dirty" when it has uncommitted changes; "" outside git.
func measuredCommit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty=+dirty", "--abbrev=12").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

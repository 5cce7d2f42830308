package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent/bench"
)

// benchCmd measures aoi.query between two in-process agents on loopback
// next to a bare net/http JSON echo over the same mutual TLS, in one run.
func (a *app) benchCmd() *cobra.Command {
	opts := bench.Options{Concurrency: 8, Duration: 10 * time.Second, Rounds: bench.DefaultRounds}
	var scale bench.ScaleOptions
	var cpuProfile string
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure aoi.query throughput and latency against a bare JSON echo (loopback only)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if scale.Agents != 0 {
				if opts.Dir != "" {
					return usagef(cmd, "--dir applies to the peer-path bench only; leave it out with --scale")
				}
				return a.benchScale(cmd, scale)
			}
			if opts.Rounds < 1 || opts.Concurrency < 1 {
				return usagef(cmd, "--rounds and --concurrency take a whole number of 1 or more (got --rounds %d, --concurrency %d)", opts.Rounds, opts.Concurrency)
			}
			if opts.Dir != "" {
				if fi, err := os.Stat(opts.Dir); err != nil || !fi.IsDir() {
					return usagef(cmd, "--dir takes an existing folder to make the agents' scratch folder in (got %q); create it first, or leave --dir out to use the system's temp folder", opts.Dir)
				}
			}
			opts.Progress = func(s string) { fmt.Fprintln(a.stderr, s) }
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return fmt.Errorf("bench: could not create the CPU profile file: %w", err)
				}
				defer f.Close()
				opts.CPUProfile = f
			}
			rep, err := bench.Run(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return a.emit(rep, func(w io.Writer) { printBench(w, rep) })
		},
	}
	cmd.Flags().IntVar(&opts.Concurrency, "concurrency", opts.Concurrency, "concurrent callers")
	cmd.Flags().DurationVar(&opts.Duration, "duration", opts.Duration, "how long each phase runs, over all its rounds")
	cmd.Flags().IntVar(&opts.Rounds, "rounds", opts.Rounds, "turns the echo and aoi.query take, one after the other (each turn lasts duration/rounds)")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "folder to make the agents' scratch folder in, removed after (default: the system's temp folder, $TMPDIR); the report names its filesystem")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the aoi.query phase to this file (read it with go tool pprof); the phases then run in one round")
	scaleFlags(cmd, &scale)
	return cmd
}

func printBench(w io.Writer, r bench.Report) {
	fmt.Fprintf(w, "%-10s %10s %8s %10s %10s %10s %10s\n", "PHASE", "REQ/S", "ERRORS", "P50", "P95", "P99", "CPU/REQ")
	for _, res := range []bench.Result{r.Echo, r.Query} {
		fmt.Fprintf(w, "%-10s %10.0f %8d %10s %10s %10s %10s\n", res.Name, res.Throughput, res.Errors,
			res.P50.Round(time.Microsecond), res.P95.Round(time.Microsecond), res.P99.Round(time.Microsecond),
			res.CPUPerRequest.Round(time.Microsecond))
	}
	ratio := fmt.Sprintf("%.2f", r.Ratio)
	if !r.RatioValid {
		ratio += " (INVALID)"
	}
	fmt.Fprintf(w, "ratio aoi.query / echo: %s   peak RSS: %.1f MiB   (concurrency %d, %s per phase)\n",
		ratio, float64(r.PeakRSSKiB)/1024, r.Concurrency, r.Duration)
	if len(r.RoundRatios) > 1 {
		rounds := make([]string, len(r.RoundRatios))
		for i, v := range r.RoundRatios {
			rounds[i] = fmt.Sprintf("%.2f", v)
		}
		fmt.Fprintf(w, "ratio by round: %s\n", strings.Join(rounds, " "))
	}
	fmt.Fprintf(w, "writes per group commit (aoi.query): %.1f\n", r.Query.WritesPerCommit)
	fmt.Fprintf(w, "machine: %s\n", r.Machine.Verdict())
}

package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent/bench"
)

// scaleFlags add the discovery simulation's flags to `aoi bench`.
func scaleFlags(cmd *cobra.Command, o *bench.ScaleOptions) {
	f := cmd.Flags()
	f.IntVar(&o.Agents, "scale", 0, "simulate discovery among N agents instead (e.g. --scale 1000)")
	f.DurationVar(&o.Interval, "scale-interval", time.Minute, "with --scale: network.discovery_interval_sec of every agent")
	f.DurationVar(&o.StartSpread, "scale-start", time.Minute, "with --scale: the window over which the agents come up")
	f.IntVar(&o.Minutes, "scale-minutes", 5, "with --scale: simulated minutes of steady state measured")
	f.BoolVar(&o.EachWay, "each-way", false, "with --scale: every round announces to every peer, even one met in the last half interval (for comparison)")
	f.BoolVar(&o.SeedReplies, "seed-replies", false, "with --scale: replies list the whole registry, as seed 000 does (for comparison)")
}

// benchScale runs the discovery simulation and prints what it found.
func (a *app) benchScale(cmd *cobra.Command, o bench.ScaleOptions) error {
	if o.Agents < 2 || o.Agents > 5000 {
		return fmt.Errorf("--scale %d: the simulation needs between 2 and 5000 agents (it keeps an N×N table)", o.Agents)
	}
	if o.Interval <= 0 || o.StartSpread <= 0 || o.Minutes <= 0 {
		return fmt.Errorf("--scale-interval, --scale-start and --scale-minutes must be positive")
	}
	fmt.Fprintf(a.stderr, "simulating discovery among %d agents (announce latency measured on two real cores)…\n", o.Agents)
	rep, err := bench.Simulate(cmd.Context(), o)
	if err != nil {
		return err
	}
	return a.emit(rep, func(w io.Writer) { printScale(w, rep) })
}

func printScale(w io.Writer, r bench.ScaleReport) {
	replies := "self_only"
	if r.SeedReplies {
		replies = "whole registry (seed)"
	}
	rounds := "skip peers met in the last half interval"
	if r.EachWay {
		rounds = "announce to every peer (each way)"
	}
	fmt.Fprintf(w, "agents %d, discovery every %s, started over %s\nrounds: %s; replies: %s\n", r.Agents, r.Interval, r.StartSpread, rounds, replies)
	fmt.Fprintf(w, "announce round trip (real, loopback):  %s\n", r.Latency.Round(time.Microsecond))
	fmt.Fprintf(w, "registries converged after:            %s\n", r.ConvergedAfter.Round(time.Millisecond))
	fmt.Fprintf(w, "a newcomer's first round:              %s\n", r.JoinAfter.Round(time.Millisecond))
	fmt.Fprintf(w, "per agent per minute:                  %.0f announces, %.1f KiB\n", r.AnnouncesPerMin, r.BytesPerMin/1024)
	fmt.Fprintf(w, "one registry of %d peers:              %.1f KiB heap, %.1f KiB SQLite\n", r.Agents-1,
		float64(r.RegistryHeapBytes)/1024, float64(r.RegistryDBBytes)/1024)
	fmt.Fprintf(w, "audit rows from discovery, per agent:  %.0f a day, %.1f MiB a day\n", r.AuditRowsPerDay, r.AuditBytesPerDay/(1<<20))
	fmt.Fprintf(w, "simulation took %s\n", r.Wall.Round(time.Millisecond))
}

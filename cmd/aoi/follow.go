package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aoi-protocol/aoi/agent"
)

// follow prints the core's events that keep selects until ctx ends
// (Ctrl-C), one line each, or one JSON object per line with --json.
func (a *app) follow(ctx context.Context, svc agent.Service, keep func(agent.Event) bool) error {
	events, err := svc.Events(ctx, agent.EventsRequest{})
	if err != nil {
		return err
	}
	if !a.jsonOut {
		fmt.Fprintln(a.stderr, "watching for changes; Ctrl-C to stop")
	}
	enc := json.NewEncoder(a.stdout)
	for ev := range events {
		if !keep(ev) {
			continue
		}
		if a.jsonOut {
			if err := enc.Encode(ev); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(a.stdout, "%s  %-18s %-20s %-24s %s\n", ev.Time.Local().Format("15:04:05"),
			cell(ev.Kind, 0), dash(cell(ev.Agent, 20)), dash(cell(ev.ID, 0)), cell(ev.Summary, 80))
	}
	return nil
}

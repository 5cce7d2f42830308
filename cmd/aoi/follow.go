package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aoi-protocol/aoi/agent"
)

// follow prints the core's events that keep selects until ctx ends
// (Ctrl-C), one line each, or one JSON object per line with --json.
func (a *app) follow(ctx context.Context, svc watcher, keep func(agent.Event) bool) error {
	events, err := svc.Events(ctx, agent.EventsRequest{})
	if err != nil {
		return err
	}
	if !a.jsonOut {
		fmt.Fprintln(a.stderr, "watching for changes; Ctrl-C to stop")
	}
	enc := json.NewEncoder(safeJSONWriter{a.stdout})
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
		if text := messageLine(ctx, svc, ev); text != "" {
			fmt.Fprintf(a.stdout, "          ↳ %s\n", text)
		}
	}
	return nil
}

// messageLine is what a received message says (the answer, why a task
// failed or was rejected), for the line under its event: the event itself
// names only its kind, and a person watching for an answer wants to read
// it without running aoi inbox again.
func messageLine(ctx context.Context, svc agent.MessagingService, ev agent.Event) string {
	if ev.Kind != agent.EventMessageReceived {
		return ""
	}
	seq, err := strconv.ParseInt(ev.ID, 10, 64)
	if err != nil || seq <= 0 {
		return ""
	}
	msgs, err := svc.Messages(ctx, agent.MessagesRequest{AfterSeq: seq - 1, Limit: 1})
	if err != nil || len(msgs) == 0 || msgs[0].Seq != seq {
		return ""
	}
	return messageSummary(msgs[0], 160)
}

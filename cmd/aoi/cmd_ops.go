package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
)

// withOps runs f against the aoi serving the data dir or, when none runs,
// against the core opened in this process for the duration of f (nothing
// listens; the database is only ever written by one process at a time).
func (a *app) withOps(ctx context.Context, f func(agent.OpsService) error) error {
	return callOrOpen(ctx, a, f)
}

func (a *app) pruneCmd() *cobra.Command {
	var olderThan string
	cmd := &cobra.Command{
		Use:   "prune --older-than 30d",
		Short: "Remove old audit rows, context events, finished tasks and sent messages",
		Long: "prune removes audit rows, context events, finished tasks (with their output) and\n" +
			"delivered or expired outgoing messages older than --older-than. The audit chain keeps\n" +
			"a checkpoint, so `aoi audit verify` still passes. With retention.auto_prune the\n" +
			"agent does this daily with the configured retention periods.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			age, err := parseAge(olderThan)
			if err != nil {
				return usagef(cmd, "--older-than %q: %v", olderThan, err)
			}
			return a.withOps(cmd.Context(), func(svc agent.OpsService) error {
				rep, err := svc.Prune(cmd.Context(), agent.PruneRequest{OlderThan: age})
				if err != nil {
					return err
				}
				return a.emit(rep, func(w io.Writer) {
					fmt.Fprintf(w, "pruned records older than %s:\n  audit rows:      %d (a checkpoint keeps the chain verifiable)\n  context events:  %d\n  finished tasks:  %d\n  sent messages:   %d\n  questions:       %d (answered or declined)\n  read messages:   %d\n  message tasks:   %d (no message names them)\n",
						olderThan, rep.AuditRows, rep.ContextEvents, rep.Tasks, rep.OutboxRows, rep.Queries, rep.Messages, rep.CoordTasks)
				})
			})
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "age of the records to remove: 30d, 12h, 90m")
	cmd.MarkFlagRequired("older-than")
	return cmd
}

// parseAge reads a retention period: Nd (days) or a Go duration.
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return 0, errors.New("write days as a whole number, e.g. 30d")
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, errors.New("use days (30d) or hours/minutes (12h, 90m)")
		}
	}
	if d <= 0 {
		return 0, errors.New("the age must be positive")
	}
	return d, nil
}

func (a *app) exportCmd() *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "export --agent ID",
		Short: "Print, as JSON, everything stored about one agent (data access request)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withOps(cmd.Context(), func(svc agent.OpsService) error {
				raw, err := svc.Export(cmd.Context(), agent.AgentRequest{AgentID: id})
				if err != nil {
					return err
				}
				var buf bytes.Buffer
				if err := json.Indent(&buf, raw, "", "  "); err != nil {
					return err
				}
				buf.WriteByte('\n')
				// A peer's words are in it: escaped as every --json output is.
				_, err = buf.WriteTo(safeJSONWriter{a.stdout})
				return err
			})
		},
	}
	cmd.Flags().StringVar(&id, "agent", "", "the agent id, e.g. pm-tanaka")
	cmd.MarkFlagRequired("agent")
	return cmd
}

func (a *app) forgetCmd() *cobra.Command {
	var id string
	var yes bool
	cmd := &cobra.Command{
		Use:   "forget --agent ID [--yes]",
		Short: "Delete everything stored about one agent (erasure request)",
		Long: "forget deletes the agent's registry entry, queries, messages, tasks and approvals,\n" +
			"replaces its name wherever other records mention it, and redacts the audit rows that\n" +
			"name it in a way `aoi audit verify` still accepts. An agent.forgotten audit row records\n" +
			"the deletion. Without --yes it only shows what would be deleted.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withOps(cmd.Context(), func(svc agent.OpsService) error {
				if !yes {
					return a.previewForget(cmd, svc, id)
				}
				rep, err := svc.Forget(cmd.Context(), agent.AgentRequest{AgentID: id})
				if err != nil {
					return err
				}
				return a.emit(rep, func(w io.Writer) { printForget(w, rep) })
			})
		},
	}
	cmd.Flags().StringVar(&id, "agent", "", "the agent id, e.g. pm-tanaka")
	cmd.Flags().BoolVar(&yes, "yes", false, "really delete (without it, forget only shows what it would delete)")
	cmd.MarkFlagRequired("agent")
	return cmd
}

// previewForget shows the rows forget would touch and asks for --yes.
func (a *app) previewForget(cmd *cobra.Command, svc agent.OpsService, id string) error {
	raw, err := svc.Export(cmd.Context(), agent.AgentRequest{AgentID: id})
	if err != nil {
		return err
	}
	var exp agent.AgentExport
	if err := json.Unmarshal(raw, &exp); err != nil {
		return err
	}
	stored := 0
	for _, rows := range exp.Tables {
		stored += len(rows)
	}
	if stored == 0 {
		fmt.Fprintf(a.stdout, "nothing is stored about %s; check the id with `aoi peers` or `aoi audit --agent ID`\n", id)
		return nil
	}
	fmt.Fprintf(a.stdout, "stored about %s:\n", id)
	for _, t := range sortedKeys(exp.Tables) {
		fmt.Fprintf(a.stdout, "  %-16s %d %s\n", t, len(exp.Tables[t]), plural(len(exp.Tables[t]), "row", "rows"))
	}
	// A preview is what forget without --yes is for: it succeeds.
	fmt.Fprintf(a.stdout, "nothing was deleted; run `aoi forget --agent %s --yes` to forget %s\n", id, id)
	return nil
}

func printForget(w io.Writer, rep agent.ForgetReport) {
	fmt.Fprintf(w, "forgot %s:\n", rep.AgentID)
	for _, t := range sortedKeys(rep.Deleted) {
		fmt.Fprintf(w, "  deleted   %-16s %d rows\n", t, rep.Deleted[t])
	}
	for _, t := range sortedKeys(rep.Scrubbed) {
		fmt.Fprintf(w, "  renamed   %-16s %d rows\n", t, rep.Scrubbed[t])
	}
	fmt.Fprintf(w, "  redacted  audit_log        %d rows (recorded as audit row %d; the chain still verifies)\n", rep.AuditRedacted, rep.AuditEventSeq)
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "note: %s\n", warn)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
)

// outboxCmd lists what waits to be delivered to peers and withdraws an
// entry (the walk's QA watched a refused message retried every minute for
// a day, with no way to take it back).
func (a *app) outboxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "outbox",
		Short: "List what waits to be delivered to peers (questions, answers, messages, task results)",
		Example: `  aoi outbox
  aoi outbox drop m-0195f3a1c2d4`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return call(a, func(svc agent.OutboxService) error {
				es, err := svc.Outbox(cmd.Context())
				if err != nil {
					return err
				}
				return a.emit(es, func(w io.Writer) { printOutbox(w, es) })
			})
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "drop ID",
		Short: "Withdraw something waiting to be delivered: it is never sent",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return call(a, func(svc agent.OutboxService) error {
				if err := svc.DropOutbox(cmd.Context(), agent.OutboxDropRequest{ID: argv[0]}); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "withdrew %s: it will not be sent\n", cell(argv[0], 0))
				return nil
			})
		},
	})
	return cmd
}

func printOutbox(w io.Writer, es []agent.OutboxEntry) {
	if len(es) == 0 {
		fmt.Fprintln(w, "nothing waits to be delivered")
		return
	}
	rows := make([][]string, 0, len(es))
	for _, e := range es {
		why := e.LastError
		if e.Refused {
			why = "refused: " + why
		}
		rows = append(rows, []string{cell(e.ID, 0), cell(e.To, 20), e.What, strconv.Itoa(e.Attempts), when(e.NextAttemptAt), when(e.ExpiresAt), cell(dash(why), 60)})
	}
	table(w, []string{"ID", "TO", "WHAT", "TRIES", "NEXT TRY", "EXPIRES", "LAST ERROR"}, rows)
	fmt.Fprintln(w, "withdraw one with: aoi outbox drop ID")
}

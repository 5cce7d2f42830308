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
  aoi outbox retry m-0195f3a1c2d4
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
	cmd.AddCommand(a.outboxRetryCmd())
	return cmd
}

// outboxRetryCmd tries one waiting entry now: after a colleague says "I'm
// back", its owner should not wait out a back-off of up to ten minutes.
// It exits 1 when the peer still did not take it.
func (a *app) outboxRetryCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "retry ID",
		Short: "Try to deliver one waiting entry now instead of at its next try",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return call(a, func(svc agent.OutboxService) error {
				res, err := svc.RetryOutbox(cmd.Context(), agent.OutboxRetryRequest{ID: argv[0]})
				if err != nil {
					return err
				}
				if err := a.emit(res, func(w io.Writer) { printRetry(w, res) }); err != nil {
					return err
				}
				if !res.Delivered {
					return &exitError{code: exitFailure}
				}
				return nil
			})
		},
	}
}

// printRetry says how a try went: delivered, given up (expired), or why
// it still waits and when the next try is.
func printRetry(w io.Writer, res agent.OutboxRetryResult) {
	e := res.Entry
	what := fmt.Sprintf("the %s %s to %s", e.What, cell(e.ID, 0), cell(e.To, 0))
	switch {
	case res.Delivered:
		fmt.Fprintf(w, "delivered %s\n", what)
	case res.Expired:
		fmt.Fprintf(w, "%s expired before %s took it: it was given up, not sent\n", what, cell(e.To, 0))
	case res.Withheld:
		fmt.Fprintf(w, "%s was kept back, not sent: %s\n", what, cell(res.Error, 200))
	default:
		fmt.Fprintf(w, "%s still waits: %s; next try %s (`aoi outbox drop %s` withdraws it)\n",
			what, cell(dash(res.Error), 200), when(res.NextAttemptAt), cell(e.ID, 0))
	}
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
	fmt.Fprintln(w, "try one now with: aoi outbox retry ID · withdraw one with: aoi outbox drop ID")
}

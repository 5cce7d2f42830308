package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
)

func (a *app) approvalsCmd() *cobra.Command {
	var f agent.ApprovalFilter
	var watch bool
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List task requests waiting for your approval (and recent decisions)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.State != "" && !slices.Contains(approvalStates, f.State) {
				return usagef(cmd, "--state %q is not an approval's state; use one of %s", cell(f.State, 20), strings.Join(approvalStates, ", "))
			}
			if f.Limit <= 0 {
				return usagef(cmd, "--limit must be positive")
			}
			return call(a, func(svc approvalWatcher) error {
				ctx := cmd.Context()
				as, err := svc.Approvals(ctx, f)
				if err != nil {
					return err
				}
				if err := a.emit(as, func(w io.Writer) { printApprovals(w, as) }); err != nil || !watch {
					return err
				}
				return a.follow(ctx, svc, approvalEvent)
			})
		},
	}
	cmd.Flags().StringVar(&f.State, "state", "", "only approvals in this state ("+strings.Join(approvalStates, ", ")+")")
	cmd.Flags().IntVar(&f.Limit, "limit", 50, "how many to show")
	cmd.Flags().BoolVar(&watch, "watch", false, "keep running and print approval requests and decisions as they happen")
	return cmd
}

// approvalStates are the states an approval is in, as --state takes them:
// `aoi approvals --state bogus` said "no approvals", as if none waited.
var approvalStates = []string{agent.TaskPending, agent.TaskApproved, agent.TaskRejected, agent.TaskExpired, agent.TaskCanceled}

// approvalEvent selects the events `aoi approvals --watch` prints.
func approvalEvent(ev agent.Event) bool {
	switch ev.Kind {
	case agent.EventApprovalRequested, agent.EventApprovalDecided, agent.EventApprovalExpired, agent.EventTaskState:
		return true
	}
	return false
}

func printApprovals(w io.Writer, as []agent.Approval) {
	if len(as) == 0 {
		fmt.Fprintln(w, "no approvals")
		return
	}
	rows := make([][]string, 0, len(as))
	pending := 0
	var loose []string // pending types that run without Landlock
	for _, ap := range as {
		expires := "-" // an approved or rejected request no longer expires
		switch ap.State {
		case "pending":
			pending++
			expires = when(ap.ExpiresAt)
			if ap.Plan != nil && ap.Plan.Unconfined && ap.Plan.Problem == "" {
				loose = append(loose, cell(ap.ID, 0))
			}
		case "expired":
			expires = when(ap.ExpiresAt)
		}
		params := formatParams(ap.Params)
		if ap.Plan != nil && ap.Plan.Ref != "" {
			params = strings.TrimSpace("ref=" + refText(ap.Plan) + " " + params) // what the worktree is made of
		}
		rows = append(rows, []string{
			cell(ap.ID, 0), cell(ap.Requester, 20), cell(ap.TaskType, 20), dash(cell(params, 40)),
			dash(cell(ap.MatchedRule, 20)), cell(ap.State, 9), expires,
		})
	}
	table(w, []string{"ID", "REQUESTER", "TASK", "PARAMS", "RULE", "STATE", "EXPIRES"}, rows)
	if pending > 0 {
		fmt.Fprintf(w, "\n%d pending: `aoi approve ID` or `aoi reject ID --reason TEXT`\n", pending)
	}
	if len(loose) > 0 {
		fmt.Fprintf(w, "UNCONFINED (tasks.NAME.unconfined: no Landlock, the command writes anywhere you can): %s\n", strings.Join(loose, ", "))
	}
}

func (a *app) approveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "approve APPROVAL_ID",
		Short: "Approve a task request; the task starts",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return call(a, func(svc agent.ApprovalService) error {
				id := approvalOf(cmd.Context(), svc, argv[0])
				if err := svc.Approve(cmd.Context(), agent.ApproveRequest{ID: id}); err != nil {
					return err
				}
				return a.done("approved %s", id)
			})
		},
	}
}

func (a *app) rejectCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "reject APPROVAL_ID --reason TEXT",
		Short: "Reject a task request, telling the requester why (they get APPROVAL_DENIED)",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			// As in the interface: the requester reads the reason.
			if strings.TrimSpace(reason) == "" {
				return usagef(cmd, "--reason is required: say why, the requester sees it")
			}
			return call(a, func(svc agent.ApprovalService) error {
				id := approvalOf(cmd.Context(), svc, argv[0])
				if err := svc.Reject(cmd.Context(), agent.RejectRequest{ID: id, Reason: strings.TrimSpace(reason)}); err != nil {
					return err
				}
				return a.done("rejected %s", id)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (sent to the requester)")
	return cmd
}

// approvalOf takes a task's id for the approval it waits for: the
// requester knows a request by the task id `aoi task` gave it, and may
// pass that on. Any other id is returned as it is.
func approvalOf(ctx context.Context, svc agent.ApprovalService, id string) string {
	pending, err := svc.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending})
	if err != nil {
		return id
	}
	for _, ap := range pending {
		if ap.TaskID == id {
			return ap.ID
		}
	}
	return id
}

// refText is a requested ref with the commit it named when asked, the one
// that runs: "pm/feature@f82d8cc3a1b2".
func refText(p *agent.TaskPlan) string {
	if p.RefCommit == "" {
		return p.Ref
	}
	return p.Ref + "@" + p.RefCommit[:min(12, len(p.RefCommit))]
}

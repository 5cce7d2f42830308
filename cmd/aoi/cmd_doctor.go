package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
)

func (a *app) doctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the config, data dir, socket, certificate, clocks, tailnet and database",
		Long: "doctor checks that aoi can run well here and says what to fix: the config, the data\n" +
			"dir's permissions, the control socket, the certificate's expiry and, through the\n" +
			"running agent, database integrity, the audit chain, the tailnet and clock skew with\n" +
			"each peer. It exits 1 when something is wrong.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := a.doctorChecks(cmd.Context())
			failed := false
			for _, c := range checks {
				failed = failed || c.Status == agent.CheckFail
			}
			err := a.emit(checks, func(w io.Writer) { printChecks(w, checks) })
			if err == nil && failed {
				return &exitError{code: exitFailure}
			}
			return err
		},
	}
}

// doctorChecks runs the local checks, then the running core's (or, with no
// core running, a read-only integrity check of the database file).
func (a *app) doctorChecks(ctx context.Context) []agent.DoctorCheck {
	dir := a.dataDir()
	checks := agent.LocalChecks(dir, a.corePath(dir), time.Now())
	sock := agent.SocketPath(dir)
	c, err := a.service()
	if err != nil {
		fix := "start it: `aoi serve --data-dir " + dir + "` (or `aoi service install` to run it as a service)"
		if _, serr := os.Stat(sock); serr == nil {
			fix = sock + " is left over from an aoi that stopped; " + fix + " replaces it"
		}
		checks = append(checks, agent.DoctorCheck{Name: "socket", Status: agent.CheckWarn,
			Detail: "no aoi is running for " + dir, Fix: fix}, agent.OfflineIntegrity(ctx, dir))
		return checks
	}
	defer c.Close()
	checks = append(checks, agent.DoctorCheck{Name: "socket", Status: agent.CheckOK, Detail: "aoi answers on " + sock})
	rep, err := c.Doctor(ctx)
	if err != nil {
		return append(checks, agent.DoctorCheck{Name: "agent checks", Status: agent.CheckFail, Detail: err.Error(),
			Fix: "see the log in " + dir})
	}
	return append(checks, rep.Checks...)
}

// printChecks writes one ✓/✗/! line per check, with the fix under it.
func printChecks(w io.Writer, checks []agent.DoctorCheck) {
	marks := map[string]string{agent.CheckOK: "✓", agent.CheckWarn: "!", agent.CheckFail: "✗"}
	for _, c := range checks {
		fmt.Fprintf(w, "%s %s: %s\n", marks[c.Status], c.Name, c.Detail)
		if c.Fix != "" && c.Status != agent.CheckOK {
			fmt.Fprintf(w, "    fix: %s\n", c.Fix)
		}
	}
}

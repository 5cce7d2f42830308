package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
)

func (a *app) reloadCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reload",
		Short: "Re-read the config of the running aoi and say what changed",
		Long: "reload makes the aoi running for the data dir re-read its config file (like\n" +
			"`kill -HUP` on `aoi serve` or `systemctl reload`). ACL rules, limits, the\n" +
			"interrupt controller, tasks, peers and the log level apply at once; a file\n" +
			"that does not validate is refused and the running config stays in force.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return call(a, func(svc agent.AdminService) error {
				rep, err := svc.Reload(cmd.Context())
				if err != nil {
					return err
				}
				return a.emit(rep, func(w io.Writer) { io.WriteString(w, rep.String()+"\n") })
			})
		},
	}
}

// reloadLine is what `aoi serve` prints after each reload.
func reloadLine(rep agent.ReloadReport, err error) string {
	if err != nil {
		return "aoi: " + describe(err)
	}
	return "aoi: " + rep.String()
}

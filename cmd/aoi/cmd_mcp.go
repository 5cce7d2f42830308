package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/agent/mcpserver"
)

// mcpCmd is `aoi mcp`: the stdio MCP server a coding assistant launches.
// stdout carries the protocol only; every complaint goes to stderr.
func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "MCP server (stdio) for your coding assistant: claude mcp add aoi -- aoi mcp",
		Long: "aoi mcp speaks the Model Context Protocol on stdin/stdout and forwards to the aoi\n" +
			"running for the data dir (start it with `aoi serve` or `aoi`). Tools: aoi_discover,\n" +
			"aoi_query, aoi_check_messages, aoi_reply, aoi_report_event, aoi_update_progress,\n" +
			"aoi_task_status; resource " + mcpserver.SnapshotURI + ".",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := a.dataDir()
			svc, err := ctlclient.Dial(dir)
			var nd *ctlclient.NoDaemonError
			if errors.As(err, &nd) {
				fmt.Fprintf(a.stderr, "aoi mcp: no aoi is running for %s; start one with `aoi serve` or `aoi`\n", dir)
				return &exitError{code: exitFailure}
			}
			if err != nil {
				return err
			}
			defer svc.Close()
			logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			return mcpserver.Serve(cmd.Context(), svc, cmd.InOrStdin(), a.stdout,
				mcpserver.Options{Version: currentVersion().Version, Logger: logger})
		},
	}
}

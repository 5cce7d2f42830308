package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

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
			// Open, not Dial: the session must start even when aoi is not
			// running yet, so the assistant hears how to start it (every
			// tool call says so) instead of "connection closed".
			dir := a.dataDir()
			svc := ctlclient.Open(dir)
			defer svc.Close()
			probe, cancel := context.WithTimeout(cmd.Context(), 2*time.Second)
			_, err := svc.Status(probe)
			cancel()
			if err != nil {
				fmt.Fprintf(a.stderr, "aoi mcp: %v; serving MCP anyway, tools will say so until it is up\n", err)
			}
			logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			return mcpserver.Serve(cmd.Context(), svc, cmd.InOrStdin(), a.stdout,
				mcpserver.Options{Version: currentVersion().Version, Logger: logger})
		},
	}
}

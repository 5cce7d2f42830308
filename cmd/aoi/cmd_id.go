package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// identityInfo is `aoi id`'s output: what a peer needs to pin this agent.
type identityInfo struct {
	AgentID     string `json:"agent_id"`
	Fingerprint string `json:"fingerprint"`
	Listen      string `json:"listen_addr"`
	// TrustCommand is what a colleague runs to trust this agent, on one
	// line so that it copies whole.
	TrustCommand string `json:"trust_command"`
	role         string
}

// idCmd prints this agent's id and certificate fingerprint. It reads the
// config and the certificate only (never the database), so it works with
// or without a running core.
func (a *app) idCmd() *cobra.Command {
	var fpOnly bool
	cmd := &cobra.Command{
		Use:   "id",
		Short: "Print this agent's id and certificate fingerprint (what peers pin)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, err := a.identity()
			if err != nil {
				return err
			}
			if fpOnly {
				_, err := fmt.Fprintln(a.stdout, info.Fingerprint)
				return err
			}
			chosen := false // the port the running aoi took for a :0 in the config
			if anyPort(info.Listen) {
				chosen = a.listeningNow(cmd.Context(), &info)
			}
			return a.emit(info, func(w io.Writer) {
				fmt.Fprintf(w, "agent:       %s\nfingerprint: %s\nlisten:      %s\n", info.AgentID, rpc.GroupFingerprint(info.Fingerprint), info.Listen)
				if anyPort(info.Listen) {
					fmt.Fprintf(w, "\n%s\n", anyPortNote(info.AgentID, info.Fingerprint, info.Listen, info.role))
					return
				}
				fmt.Fprintf(w, "\ncolleagues trust you with (one line%s):\n%s\n", reachNote(info.Listen), info.TrustCommand)
				if chosen {
					fmt.Fprintln(w, "(the config asks for any free port: aoi took this one at start, and takes another when it restarts)")
				}
			})
		},
	}
	cmd.Flags().BoolVar(&fpOnly, "fingerprint", false, "print only the fingerprint")
	return cmd
}

// listeningNow replaces info's listen address, whose port is 0, with the
// address the running aoi took, and reports whether it could: a trust
// command with the real port is one a colleague can use, while aoi runs.
func (a *app) listeningNow(ctx context.Context, info *identityInfo) bool {
	c, err := ctlclient.Dial(a.dataDir())
	if err != nil {
		return false
	}
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil || st.Endpoint() == "" || anyPort(st.Endpoint()) {
		return false
	}
	info.Listen = st.Endpoint()
	info.TrustCommand = trustCommand(info.AgentID, info.Fingerprint, info.Listen, info.role)
	return true
}

func (a *app) identity() (identityInfo, error) {
	path := a.configFlag
	if path == "" {
		path = config.Locate(a.dataDir())
	}
	cfg, err := config.Load(path)
	if err != nil {
		return identityInfo{}, err
	}
	id, err := rpc.LoadIdentity(filepath.Join(a.dataDir(), "tls"))
	if err != nil {
		return identityInfo{}, fmt.Errorf("no identity in %s (%v); create one with `aoi init`", a.dataDir(), err)
	}
	info := identityInfo{AgentID: cfg.Agent.ID, Fingerprint: id.Fingerprint, Listen: cfg.Network.ListenAddr, role: cfg.Agent.Role}
	info.TrustCommand = trustCommand(info.AgentID, info.Fingerprint, info.Listen, info.role)
	return info, nil
}

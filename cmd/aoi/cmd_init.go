package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

func (a *app) initCmd() *cobra.Command {
	var opts agent.InitOptions
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create this agent's identity (TLS certificate) and a working config",
		Example: `  aoi init --id eng-suzuki --role engineer --data-dir /tmp/eng
  aoi init --id pm-tanaka --role pm --listen 127.0.0.1:8444 --data-dir /tmp/pm`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.DataDir, opts.ConfigPath = a.dataDir(), a.configFlag
			moved := a.initDefaults(cmd, &opts)
			res, err := agent.Init(opts)
			if err != nil {
				return initFlagError(cmd, err, opts.AgentID)
			}
			running := false
			if c, err := ctlclient.Dial(res.DataDir); err == nil {
				c.Close()
				running = true
			}
			if cmd.Flags().Changed("listen") && res.CreatedConfig && !running && portInUse(res.ListenAddr) {
				fmt.Fprintf(a.stderr, "warning: %s is in use now (another aoi on this machine, or another program): `aoi serve` cannot listen there until it is free; "+
					"`aoi init --force --listen HOST:PORT` picks another port (the identity stays)\n", res.ListenAddr)
			}
			return a.emit(res, func(w io.Writer) {
				printInit(w, opts.AgentID, res)
				if moved && res.CreatedConfig {
					fmt.Fprintf(w, "(%s was in use, another aoi on this machine?: this agent listens on %s)\n", config.DefaultListenAddr, res.ListenAddr)
				}
				if running && res.CreatedConfig {
					fmt.Fprintln(w, "An aoi is running for this data dir: `aoi reload` applies the new config (a new listen address needs a restart).")
				}
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.AgentID, "id", "", "agent id, e.g. eng-suzuki (default: your user name)")
	f.StringVar(&opts.Role, "role", "", "role peers' ACL rules match on (engineer, pm, …; default: from the id's first word, pm-… is pm, else engineer)")
	f.StringVar(&opts.Owner, "owner", "", "the person this agent works for (default: your user name)")
	f.StringVar(&opts.ListenAddr, "listen", "", "peer server address HOST:PORT (default: the first free port from 127.0.0.1:8443)")
	f.BoolVar(&opts.Force, "force", false, "overwrite an existing config (the identity is always kept)")
	return cmd
}

// initDefaults fills what the flags left out: with --force over a config
// that loads, the agent's id, role, owner and listen address stay as they
// were (a fresh config is for the rest; the walk's second agent lost its
// port to the first's); otherwise the login name, and the first free port
// from 8443 (moved reports one other than 8443).
func (a *app) initDefaults(cmd *cobra.Command, opts *agent.InitOptions) (moved bool) {
	set := cmd.Flags().Changed
	path := opts.ConfigPath
	if path == "" {
		path = filepath.Join(opts.DataDir, "config.json")
	}
	if old, err := config.Load(path); err == nil && opts.Force {
		for _, f := range []struct {
			flag string
			dst  *string
			keep string
		}{
			{"id", &opts.AgentID, old.Agent.ID}, {"role", &opts.Role, old.Agent.Role},
			{"owner", &opts.Owner, old.Agent.Owner}, {"listen", &opts.ListenAddr, old.Network.ListenAddr},
		} {
			if !set(f.flag) && f.keep != "" {
				*f.dst = f.keep
			}
		}
	}
	if opts.AgentID == "" {
		opts.AgentID = defaultAgentID()
	}
	if opts.Role == "" {
		opts.Role = roleFromID(opts.AgentID)
	}
	if opts.Owner == "" {
		opts.Owner = currentUser()
	}
	if opts.ListenAddr == "" {
		opts.ListenAddr, moved = freeListenAddr(config.DefaultListenAddr, 20)
	}
	return moved
}

// idRoles are the roles an agent id's first word names (pm-tanaka is a
// PM's agent): the role a new agent gets when none is given.
var idRoles = map[string]string{"pm": "pm", "eng": "engineer", "dev": "engineer", "qa": "qa", "design": "designer", "ops": "ops", "sre": "sre"}

// roleFromID is the role an agent id's first word names, or engineer.
func roleFromID(id string) string {
	first, _, _ := strings.Cut(strings.ToLower(id), "-")
	if r, ok := idRoles[first]; ok {
		return r
	}
	return "engineer"
}

// initFlags names the flag behind each config value aoi init sets.
var initFlags = map[string]string{"/agent/id": "--id", "/agent/role": "--role", "/agent/owner": "--owner", "/network/listen_addr": "--listen"}

// initFlagError words a config the flags would make invalid as a usage
// error naming the flag ("--id: "X_3" is not valid — …"); other errors
// pass through.
func initFlagError(cmd *cobra.Command, err error, id string) error {
	var errs config.Errors
	if !errors.As(err, &errs) {
		return err
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		e := *e
		if flag := initFlags[e.Path]; flag != "" {
			e.Path = flag
		}
		lines[i] = e.Error()
		if lower := strings.ToLower(id); e.Path == "--id" && lower != id && wire.ValidAgentID(lower) {
			// Only its capitals are wrong: say the id that would do.
			lines[i] += "; ids are lower-case: --id " + lower
		}
	}
	return usagef(cmd, "%s", strings.Join(lines, "\n"))
}

func printInit(w io.Writer, id string, r agent.InitResult) {
	if r.CreatedIdentity {
		fmt.Fprintf(w, "identity:    created in %s\n", r.DataDir)
	} else {
		fmt.Fprintf(w, "identity:    kept the existing one in %s\n", r.DataDir)
	}
	fmt.Fprintf(w, "fingerprint: %s\n", agent.GroupFingerprint(r.Fingerprint))
	if r.CreatedConfig {
		fmt.Fprintf(w, "config:      written to %s\n", r.ConfigPath)
		if r.BackupPath != "" {
			fmt.Fprintf(w, "             (the one it replaced is kept as %s)\n", r.BackupPath)
		}
	} else {
		fmt.Fprintf(w, "config:      kept %s (--force overwrites it)\n", r.ConfigPath)
	}
	if anyPort(r.ListenAddr) {
		fmt.Fprintf(w, "\n%s\n", anyPortNote(id, r.Fingerprint, r.ListenAddr, r.Role))
	} else {
		fmt.Fprintf(w, "\nPeers pin this agent with `%s`%s.\n", trustCommand(id, r.Fingerprint, r.ListenAddr, r.Role), reachNote(r.ListenAddr))
	}
	fmt.Fprintf(w, "Start the agent with `aoi serve --data-dir %s` (headless) or `aoi --data-dir %s`.\n", r.DataDir, r.DataDir)
}

// trustCommand is what a colleague runs to pin this agent: with the
// endpoint their agent calls (without it the peer never comes online) and
// the role their ACL rules should match (theirs to change).
func trustCommand(id, fingerprint, listen, role string) string {
	cmd := "aoi peers trust " + id + " " + fingerprint
	if listen != "" {
		cmd += " --endpoint " + listen
	}
	if role != "" {
		cmd += " --role " + role
	}
	return cmd
}

// anyPort reports whether a listen address asks for any free port (port
// 0): the port is then only known once aoi listens, and changes at every
// start.
func anyPort(listen string) bool {
	_, port, err := net.SplitHostPort(listen)
	return err == nil && port == "0"
}

// anyPortNote is what aoi init and aoi id say instead of a trust command
// for an address with port 0: an endpoint ending in :0 reaches no one
// (the walk's init printed `--endpoint 127.0.0.1:0`), so it says where
// the real port is read and how to fix one.
func anyPortNote(id, fingerprint, listen, role string) string {
	host, _, _ := net.SplitHostPort(listen)
	return fmt.Sprintf("The port is chosen when aoi starts (--listen %s asks for any free one, another at every start): "+
		"`aoi serve` prints it, and `aoi status` shows it as listening; peers pin this agent with `%s`, PORT being that port.\n"+
		"For an endpoint peers can keep, fix the port: `aoi init --force --listen %s` (the identity stays).",
		listen, trustCommand(id, fingerprint, net.JoinHostPort(host, "PORT"), role), net.JoinHostPort(host, "8444"))
}

// currentUser is the login name, or "" when it cannot be found.
func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// defaultAgentID derives an agent id from the user name: lower case
// letters, digits and dashes.
func defaultAgentID() string {
	var b strings.Builder
	for _, r := range strings.ToLower(currentUser()) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	id := strings.Trim(b.String(), "-")
	if id == "" {
		return "aoi-agent"
	}
	return id
}

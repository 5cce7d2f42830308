package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/tui"
)

// serveFlags are `aoi serve`'s overrides of the config, and what it does
// that the interface's in-process core does not.
type serveFlags struct {
	listen  string
	metrics string
	// onReload prints each reload's outcome, whatever asked for it.
	onReload func(agent.ReloadReport, error)
}

func (a *app) serveCmd() *cobra.Command {
	sf := serveFlags{onReload: func(rep agent.ReloadReport, err error) { fmt.Fprintln(a.stderr, reloadLine(rep, err)) }}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the agent core without the interface (for systemd, launchd, CI)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, err := net.SplitHostPort(sf.listen); sf.listen != "" && err != nil {
				return usagef(cmd, "--listen %q: want HOST:PORT, e.g. 127.0.0.1:8443", sf.listen)
			}
			if err := config.CheckMetricsAddr(sf.metrics); sf.metrics != "" && err != nil {
				return usagef(cmd, "--metrics: %v; e.g. 127.0.0.1:9464", err)
			}
			ctx := cmd.Context()
			// From here on SIGHUP reloads the config instead of killing.
			startReload, stopReload := reloadOnHangup(ctx)
			defer stopReload()
			dir := a.dataDir()
			if err := a.refuseSecondDaemon(dir); err != nil {
				return err
			}
			if err := refuseNoIdentity(dir); err != nil {
				return err
			}
			core, err := a.openCore(ctx, dir, sf)
			if err != nil {
				return err
			}
			defer core.Close()
			startReload(core)
			if err := a.serveAndSayWhere(ctx, core, dir); err != nil && !errors.Is(err, context.Canceled) {
				return portTakenFix(err, a.corePath(dir), sf.listen)
			}
			// Closed by the deferred Close: the audit log is sealed there.
			fmt.Fprintln(a.stderr, "aoi serve: stopping; the audit log is sealed and the database closed on the way out")
			return nil
		},
	}
	cmd.Flags().StringVar(&sf.listen, "listen", "", "peer server address HOST:PORT (overrides network.listen_addr)")
	cmd.Flags().StringVar(&sf.metrics, "metrics", "", "serve Prometheus metrics on this local address, e.g. 127.0.0.1:9464")
	return cmd
}

// serveAndSayWhere runs the core and, once its peer server listens, says
// on stderr where its files are and where colleagues reach this agent, so
// the owner can tell them. Nothing is said before: "aoi serving for …"
// above a port already in use read as serving.
func (a *app) serveAndSayWhere(ctx context.Context, core *agent.Core, dir string) error {
	serving, stop := context.WithCancel(ctx)
	said := make(chan struct{})
	go func() {
		defer close(said)
		if st, ok := waitListening(serving, core); ok {
			fmt.Fprintf(a.stderr, "aoi serving for %s (control socket %s, log %s); Ctrl-C stops it, SIGHUP reloads the config\n",
				dir, agent.SocketPath(dir), filepath.Join(dir, "aoi.log"))
			fmt.Fprintln(a.stderr, servingLine(st))
			if addr := core.MetricsListenAddr(); addr != "" {
				fmt.Fprintln(a.stderr, metricsLine(addr, dir))
			}
		}
	}()
	err := core.Serve(ctx)
	stop()
	<-said // nothing is written after serve returns
	return err
}

// metricsLine says how to scrape /metrics: it asks for the bearer token
// the data dir keeps.
func metricsLine(addr, dir string) string {
	tok := agent.MetricsTokenPath(dir)
	return fmt.Sprintf("aoi: metrics on http://%s/metrics need the bearer token in %s, e.g. "+
		"curl -H \"Authorization: Bearer $(cat %s)\" http://%s/metrics (Prometheus: authorization.credentials_file)", addr, tok, tok, addr)
}

// portTakenFix adds to a listen error for a port already in use where the
// address is set, and how to take another for one run: the error said
// "change network.listen_addr" without the file, and the README's
// walk-through collides with an aoi the owner already runs on 8443.
func portTakenFix(err error, configPath, listenFlag string) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	if listenFlag != "" {
		return fmt.Errorf("%w — here the address came from --listen %s: give another port there", err, listenFlag)
	}
	return fmt.Errorf("%w — in %s, or run `aoi serve --listen 127.0.0.1:PORT` to take another port this once", err, configPath)
}

// waitListening waits until the core's peer server has its address and
// returns the core's status; ok is false when ctx ends first (Serve failed
// or stopped).
func waitListening(ctx context.Context, core *agent.Core) (st agent.Status, ok bool) {
	select {
	case <-ctx.Done():
		return st, false
	case <-core.Listening():
	}
	// A status that fails on a count still has who and where.
	st, _ = core.Status(ctx)
	return st, st.ListenAddr != ""
}

// servingLine says where colleagues reach this agent and how they pin it:
// in tailnet mode its tailnet address and node name, else its listen
// address and certificate fingerprint (what `aoi peers trust` takes).
func servingLine(st agent.Status) string {
	where, pin := st.Endpoint(), "fingerprint "+agent.GroupFingerprint(st.Fingerprint)
	if st.Transport == "tailnet" {
		pin = "tailnet identity"
		if st.Tailnet != nil {
			pin = "tailnet node " + st.Tailnet.NodeName
		}
	}
	return fmt.Sprintf("aoi: serving %s on %s (%s)%s", st.AgentID, where, pin, reachNote(where))
}

// reachNote warns when an address is not one a colleague on another
// machine can use as it is.
func reachNote(addr string) string {
	switch agent.ReachOf(addr) {
	case agent.ReachThisMachine:
		return "; this machine only: set network.listen_addr for colleagues elsewhere"
	case agent.ReachEveryInterface:
		return "; every interface: give colleagues this machine's address"
	}
	return ""
}

// refuseNoIdentity fails when dir holds no identity: aoi init makes one,
// and a serve that made it instead would give a mistyped --data-dir (with
// --config naming a good config) a certificate no colleague pinned.
func refuseNoIdentity(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "tls", rpc.CertFile)); err != nil {
		return fmt.Errorf("no agent is set up in %s (no identity there): check the --data-dir, or create one with `aoi init --data-dir %s`", dir, dir)
	}
	return nil
}

// refuseSecondDaemon fails when an aoi already answers for dir.
func (a *app) refuseSecondDaemon(dir string) error {
	c, err := ctlclient.Dial(dir)
	if err != nil {
		return nil
	}
	c.Close()
	return fmt.Errorf("an aoi is already running for data dir %s; use it (`aoi` attaches the interface, `aoi status`), or stop it first", dir)
}

// openCore loads the config and opens the core with the transport it asks for.
func (a *app) openCore(ctx context.Context, dir string, sf serveFlags) (*agent.Core, error) {
	cfg, err := config.Load(a.corePath(dir))
	if err != nil {
		return nil, err
	}
	opts := agent.Options{DataDir: dir, ConfigPath: a.configFlag,
		Progress: func(s string) { fmt.Fprintln(a.stderr, "aoi: "+s) }}
	applyServeFlags(&opts, sf)
	if opts.Transport, err = tailnetTransport(cfg, dir, sf.listen); err != nil {
		return nil, err
	}
	core, err := agent.Open(ctx, opts)
	if err != nil && opts.Transport != nil {
		opts.Transport.Close()
	}
	return core, err
}

// corePath is the config file the core loads for dir.
func (a *app) corePath(dir string) string {
	if a.configFlag != "" {
		return a.configFlag
	}
	return config.Locate(dir)
}

// ensureInit creates an identity and a default config on first run, and
// says where: on stderr (seen after the interface closes) and in what it
// returns, which the interface shows in its first-run dialog. It returns
// nil when the config already existed.
func (a *app) ensureInit(dir string) (*tui.FirstRun, error) {
	if _, err := os.Stat(a.corePath(dir)); err == nil {
		return nil, nil
	}
	listen, moved := freeListenAddr(config.DefaultListenAddr, 20)
	res, err := agent.Init(agent.InitOptions{DataDir: dir, ConfigPath: a.configFlag,
		AgentID: defaultAgentID(), Role: roleFromID(defaultAgentID()), Owner: currentUser(), ListenAddr: listen})
	if err != nil {
		return nil, fmt.Errorf("first run: %w", err)
	}
	fmt.Fprintf(a.stderr, "first run: created agent %s (fingerprint %s)\n  config: %s\n  data:   %s\n"+
		"The agent id comes from your login name; change agent.id in the config (before colleagues trust you) for another.\n"+
		"Edit the config to add peers and contexts; `aoi init --help` shows the options.\n",
		defaultAgentID(), agent.GroupFingerprint(res.Fingerprint), res.ConfigPath, res.DataDir)
	if moved {
		fmt.Fprintf(a.stderr, "%s was in use (another aoi on this machine?): listening on %s (network.listen_addr)\n", config.DefaultListenAddr, listen)
	}
	first := &tui.FirstRun{AgentID: defaultAgentID(), Role: res.Role, Fingerprint: res.Fingerprint,
		ConfigPath: res.ConfigPath, DataDir: res.DataDir}
	if moved {
		first.MovedFrom = config.DefaultListenAddr
	}
	return first, nil
}

// freeListenAddr is addr when nothing listens there, else the first free
// port after it on the same host (up to tries more), so a second agent
// set up on one machine does not fail its first start on the first's port.
// moved reports a port other than addr's; with none free, addr is kept
// and the start says the port is taken.
func freeListenAddr(addr string, tries int) (free string, moved bool) {
	host, portText, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil {
		return addr, false
	}
	for p := port; p <= port+tries && p < 65536; p++ {
		cand := net.JoinHostPort(host, strconv.Itoa(p))
		if ln, err := net.Listen("tcp", cand); err == nil {
			ln.Close()
			return cand, p != port
		}
	}
	return addr, false
}

// portInUse reports whether something listens on addr now: an aoi init
// given a taken --listen wrote a config its serve then failed on, with
// nothing said until then (the fifth walk's ports were another agent's).
func portInUse(addr string) bool {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Is(err, syscall.EADDRINUSE)
	}
	ln.Close()
	return false
}

// applyServeFlags passes `aoi serve`'s overrides to the core.
func applyServeFlags(opts *agent.Options, sf serveFlags) {
	opts.MetricsAddr, opts.ListenAddr, opts.OnReload = sf.metrics, sf.listen, sf.onReload
}

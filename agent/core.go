// Package agent is aoi's core: the secretary behind the peer server. It
// wires the capability packages (peers, peerapi, inbox, asking, outbox, task,
// ops, events, messaging, secretary) together, serves the ctl.* table, and
// implements Service for every front end.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/asking"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/messaging"
	"github.com/aoi-protocol/aoi/agent/ops"
	"github.com/aoi-protocol/aoi/agent/outbox"
	"github.com/aoi-protocol/aoi/agent/peerapi"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/redact"
	"github.com/aoi-protocol/aoi/agent/secretary"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// Options configure Open.
type Options struct {
	DataDir    string        // resolved data dir (config.DataDir(flag))
	ConfigPath string        // "" → config.Locate(DataDir)
	Logger     *slog.Logger  // nil → JSON log file in the data dir
	Transport  rpc.Transport // nil → direct mutual TLS from the config
	// Clock is what the background loops wait on (the outbox, the
	// heartbeat, the audit watch, the task engine's and the secretary's
	// loops, automatic pruning) and, when Now is nil, the time every part
	// reads. nil is the wall clock; tests pass a backoff.Fake and advance
	// it instead of sleeping.
	Clock backoff.Clock
	// Now replaces the time the core reads (tests; default Clock.Now).
	Now func() time.Time
	// MetricsAddr serves Prometheus /metrics there ("" → metrics.listen_addr).
	MetricsAddr string
	// ListenAddr is where the direct transport's peer server listens
	// ("" → network.listen_addr); aoi serve --listen sets it.
	ListenAddr string
	// OnReload, when set, hears every reload's outcome, whatever asked for
	// it (SIGHUP, aoi reload, :reload): aoi serve prints it on stderr.
	OnReload func(ReloadReport, error)
	// Progress, when set, hears about slow one-time work while Open runs
	// (a database upgrade that rebuilds an index); it is logged as well.
	Progress func(string)
}

// Core is a running aoi agent. Create it with Open, run it with Serve.
type Core struct {
	opts    Options
	dataDir string
	cfgPath string
	now     func() time.Time
	clock   backoff.Clock
	log     *slog.Logger
	logFile *os.File
	// announceNow is kicked when what peers know of this agent changed
	// (focus by hand, a reload), so they hear of it at once (announceChanges).
	announceNow chan struct{}

	cfg    atomic.Pointer[config.Config]
	policy atomic.Pointer[acl.Policy]

	db           *store.DB
	identity     *rpc.Identity // direct mode only
	transport    rpc.Transport
	peerSrv      *rpc.Server
	ctlSrv       *rpc.Server
	events       *events.Broker
	outbox       *outbox.Outbox
	ops          *ops.Ops
	inbox        *inbox.Inbox
	asker        *asking.Asker
	peers        *peers.Registry
	tasks        *task.Engine
	peerAPI      *peerapi.API
	msgs         *messaging.Messenger
	sec          *secretary.Secretary
	redactor     *redact.Redactor
	redactorErr  error
	redactorOnce sync.Once
	ext          extensions

	startedAt  time.Time
	listenAddr atomic.Value // string
	// redraftSpan is the mirror's event-id span at the last redraft round.
	redraftSpan atomic.Pointer[[2]int64]
	listening   chan struct{} // closed once the peer listener and the control socket listen
	listenOnce  sync.Once
	obs         observability // metrics (metrics_wiring.go)

	closeOnce sync.Once
	reloadMu  sync.Mutex // one reload at a time (SIGHUP, ctl.reload)
}

// Open loads the config, opens the store and the identity, and builds the
// servers. Nothing listens until Serve.
func Open(ctx context.Context, opts Options) (*Core, error) {
	if opts.DataDir == "" {
		opts.DataDir = config.DataDir("")
	}
	// Absolute from here on: task worktrees and files derived from it
	// must not land relative to a task's repository (git worktree add
	// runs there).
	if abs, err := filepath.Abs(opts.DataDir); err == nil {
		opts.DataDir = abs
	}
	if opts.Clock == nil {
		opts.Clock = backoff.Real
	}
	if opts.Now == nil {
		opts.Now = opts.Clock.Now
	}
	cfgPath := opts.ConfigPath
	if cfgPath == "" {
		cfgPath = config.Locate(opts.DataDir)
	}
	if err := checkOwnership(opts.DataDir, cfgPath); err != nil {
		return nil, err
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir %s: %w", opts.DataDir, err)
	}
	c := &Core{opts: opts, dataDir: opts.DataDir, cfgPath: cfgPath, now: opts.Now, clock: opts.Clock,
		startedAt: opts.Now(), listening: make(chan struct{}), announceNow: make(chan struct{}, 1)}
	if err := c.openLog(cfg); err != nil {
		return nil, err
	}
	c.applyConfig(cfg)
	c.events = events.New(c.now)
	if err := c.openParts(ctx, cfg); err != nil {
		c.Close()
		return nil, err
	}
	c.warnLooseDataDir()
	return c, nil
}

// warnLooseDataDir says, at start, what aoi doctor's data-dir check
// would fail on (other users can reach the database and keys): an owner
// running only `aoi serve` should hear of it too.
func (c *Core) warnLooseDataDir() {
	chk := checkDataDir(c.dataDir)
	if chk.Status != CheckFail {
		return
	}
	msg := "warning: data dir " + chk.Detail + ": " + chk.Fix
	c.log.Warn(msg, "component", "core")
	if c.opts.Progress != nil {
		c.opts.Progress(msg)
	}
}

// sayProgress logs slow one-time work and passes it to Options.Progress.
func (c *Core) sayProgress(s string) {
	c.log.Info(s, "component", "store")
	if c.opts.Progress != nil {
		c.opts.Progress(s)
	}
}

// openParts opens the store, the identity and the transport, and registers
// the handlers.
func (c *Core) openParts(ctx context.Context, cfg *config.Config) error {
	db, err := store.Open(filepath.Join(c.dataDir, "aoi.db"), store.WithClock(c.now), store.WithProgress(c.sayProgress))
	if err != nil {
		return err
	}
	c.db = db
	c.transport = c.opts.Transport
	if c.transport == nil {
		id, _, err := rpc.LoadOrCreateIdentity(filepath.Join(c.dataDir, "tls"), cfg.Agent.ID)
		if err != nil {
			return fmt.Errorf("load identity: %w", err)
		}
		c.identity = id
		if k := auditKeyOf(id); k != nil {
			db.SetAuditKey(k)
		}
		addr := cfg.Network.ListenAddr
		if c.opts.ListenAddr != "" {
			addr = c.opts.ListenAddr
		}
		direct := rpc.NewDirectTransport(id, addr)
		direct.SetPinned(c.pinnedFingerprint)
		c.transport = direct
	}
	c.peers = c.newRegistry()
	c.outbox = c.newOutbox()
	c.ops = c.newOps()
	c.inbox = c.newInbox()
	c.asker = c.newAsker()
	replaced, err := c.peers.Seed(ctx, cfg)
	if err != nil {
		return err
	}
	c.buildServers(cfg)
	c.seedDailyCalls(ctx)
	if err := c.openExtensions(ctx, cfg); err != nil {
		return err
	}
	// A fingerprint changed in peers[] while aoi was stopped: what the
	// old certificate asked ends, as at reload (the task engine is open).
	for _, id := range replaced {
		if err := c.endOldCertificate(ctx, id); err != nil {
			return err
		}
	}
	c.peerAPI = c.newPeerAPI() // after the extensions: it uses the task engine
	c.msgs = c.newMessenger()  // after the peer API: it uses CheckFrom
	c.registerPeerHandlers(c.peerSrv)
	return nil
}

// buildServers creates the peer server and the control server.
func (c *Core) buildServers(cfg *config.Config) {
	c.peerSrv = rpc.NewServer(rpc.Options{
		MaxBodyBytes:        cfg.Network.MaxBodyBytes,
		Identify:            c.transport.Identify,
		Authenticate:        c.authenticateEdge,
		SanitizeBody:        c.redactBody,
		RatePerSec:          cfg.Limits.RatePerSec,
		Burst:               cfg.Limits.Burst,
		BodyBytesPerSec:     cfg.Limits.BodyBytesPerSec,
		DailyCallsPerCaller: cfg.Limits.DailyCallsLimit(),
		Audit:               c.auditCall,
		Observe:             c.observeCall,
		Logger:              c.log,
	})
	c.ctlSrv = rpc.NewServer(rpc.Options{
		MaxBodyBytes: 8 << 20,
		Identify:     c.identifyLocal,
		Logger:       c.log,
	})
	RegisterControl(c.ctlSrv, c)
	c.wireOps()
}

// Serve listens on the transport and the control socket and runs the
// background loops until ctx is done.
func (c *Core) Serve(ctx context.Context) error {
	// The redactor is built before the first peer's body needs it: the
	// peer server charges a caller for the time its body's redaction took
	// (rpc Server.sanitize), and building it is none of the caller's doing.
	_, _ = c.redactorFor()
	ln, err := c.transport.Listen(ctx)
	if err != nil {
		return err
	}
	c.listenAddr.Store(ln.Addr().String())
	if a, ok := c.transport.(interface{ SetAnnounce(id, endpoint string) }); ok {
		a.SetAnnounce(c.selfID(), c.advertisedEndpoint()) // who we are, for peers that have not pinned us yet
	}
	sock, err := rpc.ListenUnix(SocketPath(c.dataDir))
	if err != nil {
		ln.Close()
		return err
	}
	// Both listen now: a connection waits in the backlog until its server runs.
	c.listenOnce.Do(func() { close(c.listening) })
	c.log.Info("aoi serving", "component", "core", "listen", ln.Addr().String(), "socket", sock.Addr().String())
	peerHTTP := rpc.NewHTTPServer(c.peerSrv, c.log) // errors to the log file, never the TUI's terminal
	peerHTTP.BaseContext = func(net.Listener) context.Context { return ctx }
	ctlHTTP := rpc.NewHTTPServer(c.ctlSrv, c.log)
	ctlHTTP.ConnContext = rpc.UnixConnContext
	// Long polls (ctl.events) end with ctx, so shutdown does not wait
	// for them.
	ctlHTTP.BaseContext = func(net.Listener) context.Context { return ctx }

	var wg sync.WaitGroup
	errc := make(chan error, 2)
	serve := func(s *http.Server, l net.Listener) {
		defer wg.Done()
		if err := s.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}
	wg.Add(2)
	go serve(peerHTTP, ln)
	go serve(ctlHTTP, sock)
	loopsDone := c.startLoops(ctx)

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	peerHTTP.Shutdown(shutdownCtx)
	ctlHTTP.Shutdown(shutdownCtx)
	wg.Wait()
	<-loopsDone
	// The socket file went with its listener, before the instance lock
	// was released: removing it here could delete a successor's socket.
	return serveErr
}

// startLoops runs the outbox, heartbeat, focus-end and extension loops; the returned
// channel closes when all of them have stopped.
func (c *Core) startLoops(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	var wg sync.WaitGroup
	run := func(f func(context.Context)) {
		wg.Add(1)
		go func() { defer wg.Done(); f(ctx) }()
	}
	run(c.outbox.Run)
	run(c.peers.Heartbeat)
	run(c.serveMetrics)
	run(c.ops.AutoPrune)
	run(c.auditWatchLoop)
	run(c.sealLoop)
	run(func(ctx context.Context) { c.inbox.WatchFocusEnd(ctx, c.clock) })
	run(c.announceChanges)
	run(c.redraftLoop)
	c.ext.start(ctx, run)
	go func() { wg.Wait(); close(done) }()
	return done
}

// Close releases the store, the transport and the log file.
func (c *Core) Close() error {
	c.closeOnce.Do(func() {
		c.ext.close()
		if c.transport != nil {
			c.transport.Close()
		}
		if c.db != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			c.seal(ctx) // a clean stop leaves the log sealed to its last row
			cancel()
			c.db.Close()
		}
		if c.logFile != nil {
			c.logFile.Close()
		}
	})
	return nil
}

// config returns the current configuration (swapped on reload).
func (c *Core) config() *config.Config { return c.cfg.Load() }

// selfID is this agent's id.
func (c *Core) selfID() string { return c.config().Agent.ID }

// applyConfig installs a (re)loaded config: ACL policy and limits.
func (c *Core) applyConfig(cfg *config.Config) {
	c.cfg.Store(cfg)
	c.policy.Store(acl.New(cfg.ACL, cfg.Contexts, c.now))
	if c.peerSrv != nil {
		c.peerSrv.SetRateLimit(cfg.Limits.RatePerSec, cfg.Limits.Burst)
		c.peerSrv.SetBodyBytesLimit(cfg.Limits.BodyBytesPerSec)
		c.peerSrv.SetDailyCallsLimit(cfg.Limits.DailyCallsLimit())
	}
}

// Addr is the peer server's listen address once Serve has started.
func (c *Core) Addr() string {
	s, _ := c.listenAddr.Load().(string)
	return s
}

// Listening is closed once the peer server and the control socket both
// listen (Addr is set). A caller that must know the address, or talk to
// the socket, waits on it with its own deadline (it stays open when Serve
// fails before listening).
func (c *Core) Listening() <-chan struct{} { return c.listening }

// HeartbeatRounds reports how many discovery rounds the heartbeat has
// finished; the first runs as Serve starts.
func (c *Core) HeartbeatRounds() int64 { return c.peers.HeartbeatRounds() }

// Fingerprint is this agent's certificate fingerprint (direct mode).
func (c *Core) Fingerprint() string {
	if c.identity == nil {
		return ""
	}
	return c.identity.Fingerprint
}

// DB exposes the store to in-process extensions and tests.
func (c *Core) DB() *store.DB { return c.db }

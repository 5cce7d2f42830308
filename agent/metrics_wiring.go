package agent

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/aoi-protocol/aoi/agent/metrics"
	"github.com/aoi-protocol/aoi/agent/peerapi"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// observability is the core's metrics state.
type observability struct {
	metrics *metrics.Metrics
	addr    atomic.Value // string: where /metrics listens, once it does
}

// wireOps installs what running aoi for real needs on the servers: the
// ops control methods (prune, export, forget). Metrics see every peer call
// through the peer server's Observe hook (observeCall).
func (c *Core) wireOps() {
	c.obs.metrics = metrics.New(c.metricsSnapshot)
	registerOpsControl(c.ctlSrv, c)
}

// observeCall is the peer server's Observe hook, called once for every
// call after its audit record: it counts and times the call, counts the
// ACL decision the handler recorded, and writes the request log line.
func (c *Core) observeCall(ctx context.Context, o rpc.Observation) {
	code := "ok"
	if o.Err != nil {
		code = codeName(o.Err.Code)
		if o.Err.Code == rpc.CodeRateLimit {
			c.obs.metrics.RateLimited()
		}
	}
	switch {
	case o.ACL == rpc.ACLDenied:
		c.obs.metrics.ACLDecision("deny")
	case o.ACL == rpc.ACLAllowed && o.Err == nil:
		// An allowed call that failed later says nothing more about the ACL.
		c.obs.metrics.ACLDecision("allow")
	}
	method := methodLabel(o.Method)
	c.obs.metrics.ObserveCall(method, code, o.Duration)
	if o.Suppressed {
		// Folded into a counted audit row: counted above (a counter costs
		// nothing), but not logged one line each.
		return
	}
	c.logCall(ctx, method, o.Caller, o.ID, code, o.Duration)
}

// logCall writes seed 002 §7.2's request line. Heartbeats and discovery
// log at debug level so they do not drown the rest.
func (c *Core) logCall(ctx context.Context, method string, caller rpc.Caller, id json.RawMessage, code string, d time.Duration) {
	level := slog.LevelInfo
	if method == wire.MethodPing || method == wire.MethodDiscover {
		level = slog.LevelDebug
	}
	if code != "ok" && level < slog.LevelWarn {
		level = slog.LevelWarn
	}
	// The record is built here, not by Logger.LogAttrs, which walks the
	// stack for a source position on every call: this line is written
	// for every request, and the log records no source.
	h := c.log.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	r := slog.NewRecord(time.Now(), level, "request handled", 0)
	r.AddAttrs(slog.String("component", "rpc"), slog.String("method", method),
		slog.String("code", code), slog.String("agent_from", peerapi.CallerName(caller)), slog.String("agent_to", c.selfID()),
		slog.String("query_id", peerapi.IDString(id)), slog.Int64("latency_ms", d.Milliseconds()))
	_ = h.Handle(ctx, r)
}

// methodLabel bounds the method label to the protocol's methods, so a
// caller cannot create series by inventing method names.
func methodLabel(m string) string {
	switch m {
	case wire.MethodDiscover, wire.MethodPing, wire.MethodQuery, wire.MethodNotify,
		wire.MethodTaskExecute, wire.MethodTaskStatus, wire.MethodTaskCancel:
		return m
	case "":
		return "none" // the request could not be read
	}
	return "other"
}

// metricsSnapshot reads the gauges' values for one scrape.
func (c *Core) metricsSnapshot(ctx context.Context) (metrics.Snapshot, error) {
	st, err := c.db.OpsStats(ctx)
	if err != nil {
		return metrics.Snapshot{}, err
	}
	s := metrics.Snapshot{Approvals: st.Approvals, ApprovalsDecided: st.Approvals, Tasks: st.Tasks,
		OutboxDepth: st.OutboxDepth, ContextEvents: st.ContextEvents, ContextIngested: st.ContextIngested}
	if _, ok := s.Approvals[TaskPending]; !ok {
		s.Approvals[TaskPending] = 0 // the series people alert on exists from the start
	}
	if !st.OutboxOldest.IsZero() {
		s.OutboxOldestAge = max(c.now().Sub(st.OutboxOldest), 0)
	}
	peers, err := c.Peers(ctx)
	if err != nil {
		return s, err
	}
	for _, p := range peers {
		if p.Trust == TrustPinned && p.Status != PeerOffline && !p.RefusesUs {
			s.PeersOnline++
		}
	}
	return s, nil
}

// MetricsListenAddr is where /metrics should listen: the option, else the
// config ("" = off).
func (c *Core) MetricsListenAddr() string {
	if c.opts.MetricsAddr != "" {
		return c.opts.MetricsAddr
	}
	return c.config().Metrics.ListenAddr
}

// serveMetrics serves /metrics until ctx is done, when an address is set.
func (c *Core) serveMetrics(ctx context.Context) {
	addr := c.MetricsListenAddr()
	if addr == "" {
		return
	}
	if err := config.CheckMetricsAddr(addr); err != nil {
		c.log.Error("metrics endpoint not started; check metrics.listen_addr / --metrics", "component", "metrics", "addr", addr, "err", err)
		return
	}
	token, err := loadOrCreateMetricsToken(MetricsTokenPath(c.dataDir))
	if err != nil {
		c.log.Error("metrics endpoint not started: no bearer token", "component", "metrics", "err", err)
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		c.log.Error("metrics endpoint not started; check metrics.listen_addr / --metrics", "component", "metrics", "addr", addr, "err", err)
		return
	}
	c.obs.addr.Store(ln.Addr().String())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", requireBearer(token, c.obs.metrics.Handler()))
	srv := rpc.NewHTTPServer(mux, c.log)
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	c.log.Info("metrics endpoint serving", "component", "metrics", "addr", ln.Addr().String())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		c.log.Error("metrics endpoint stopped", "component", "metrics", "err", err)
	}
}

// MetricsAddr is the address /metrics listens on once Serve has started it
// ("" when metrics are off).
func (c *Core) MetricsAddr() string {
	s, _ := c.obs.addr.Load().(string)
	return s
}

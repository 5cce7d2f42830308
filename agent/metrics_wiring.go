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
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

// observability is the core's metrics state.
type observability struct {
	metrics *metrics.Metrics
	addr    atomic.Value // string: where /metrics listens, once it does
}

// wireOps installs what running aoi for real needs on the servers: metrics
// on the peer methods and the ops control methods (prune, export, forget).
func (c *Core) wireOps() {
	c.obs.metrics = metrics.New(c.metricsSnapshot)
	c.instrumentPeerHandlers(c.peerSrv)
	registerOpsControl(c.ctlSrv, c)
}

// meteredAudit is the peer server's audit hook: it counts the call, then
// writes the audit row. The server calls it for every call whose handler
// did not audit itself (refusals before dispatch, discover, ping, …).
func (c *Core) meteredAudit(ctx context.Context, rec rpc.CallRecord) error {
	code := "ok"
	if rec.Err != nil {
		code = codeName(rec.Err.Code)
		if rec.Err.Code == rpc.CodeRateLimit {
			c.obs.metrics.RateLimited()
		}
	}
	c.obs.metrics.ObserveCall(methodLabel(rec.Method), code, rec.Duration)
	c.logCall(ctx, methodLabel(rec.Method), rec.Caller, rec.ID, code, rec.Duration)
	return c.auditCall(ctx, rec)
}

// instrumentPeerHandlers wraps the aoi.* handlers so calls that audit
// themselves (and so skip the audit hook) are counted too, and ACL
// decisions are seen. It re-registers the handlers registerPeerHandlers
// installed.
func (c *Core) instrumentPeerHandlers(s *rpc.Server) {
	for name, h := range map[string]rpc.Handler{
		wire.MethodDiscover: c.handleDiscover, wire.MethodPing: c.handlePing,
		wire.MethodQuery: c.handleQuery, wire.MethodNotify: c.handleNotify,
		wire.MethodTaskExecute: c.handleTaskExecute, wire.MethodTaskStatus: c.handleTaskStatus,
		wire.MethodTaskCancel: c.handleTaskCancel,
	} {
		s.Handle(name, c.metered(name, h))
	}
}

// metered counts a handler's call when the handler audited it itself, and
// the ACL decision of methods that check scope.
func (c *Core) metered(method string, h rpc.Handler) rpc.Handler {
	return func(ctx context.Context, call *rpc.Call) (any, error) {
		begin := time.Now()
		res, err := h(ctx, call)
		if method == wire.MethodQuery || method == wire.MethodTaskExecute {
			c.observeACL(err)
		}
		if call.Audited() { // else meteredAudit counts it, with the full duration
			d, code := time.Since(begin), errCode(err)
			c.obs.metrics.ObserveCall(method, code, d)
			c.logCall(ctx, method, call.Caller, call.ID, code, d)
		}
		return res, err
	}
}

// observeACL counts the access decision a scope-checking handler's result
// shows: success means the ACL allowed it; a PERMISSION_DENIED naming the
// required permission is the ACL's denial. Other failures say nothing
// about the ACL and are not counted.
func (c *Core) observeACL(err error) {
	if err == nil {
		c.obs.metrics.ACLDecision("allow")
		return
	}
	var re *rpc.Error
	if errors.As(err, &re) && re.Code == rpc.CodePermissionDenied {
		if d, ok := re.Data.(map[string]any); ok && d["required_permission"] != nil {
			c.obs.metrics.ACLDecision("deny")
		}
	}
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
	c.log.Log(ctx, level, "request handled", "component", "rpc", "method", method, "code", code,
		"agent_from", callerName(caller), "agent_to", c.selfID(), "query_id", idString(id), "latency_ms", d.Milliseconds())
}

// errCode is a handler result's code label.
func errCode(err error) string {
	if err == nil {
		return "ok"
	}
	var re *rpc.Error
	if errors.As(err, &re) {
		return codeName(re.Code)
	}
	return codeName(rpc.CodeInternalError)
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
		if p.Trust == TrustPinned && p.Status != PeerOffline {
			s.PeersOnline++
		}
	}
	return s, nil
}

// metricsListenAddr is where /metrics should listen: the option, else the
// config ("" = off).
func (c *Core) metricsListenAddr() string {
	if c.opts.MetricsAddr != "" {
		return c.opts.MetricsAddr
	}
	return c.config().Metrics.ListenAddr
}

// serveMetrics serves /metrics until ctx is done, when an address is set.
func (c *Core) serveMetrics(ctx context.Context) {
	addr := c.metricsListenAddr()
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		c.log.Error("metrics endpoint not started; check metrics.listen_addr / --metrics", "component", "metrics", "addr", addr, "err", err)
		return
	}
	c.obs.addr.Store(ln.Addr().String())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", c.obs.metrics.Handler())
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

// MetricsHandler serves this core's metrics (for embedding in another mux).
func (c *Core) MetricsHandler() http.Handler { return c.obs.metrics.Handler() }

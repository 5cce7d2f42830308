// Package metrics holds aoi's Prometheus collectors: request latency and
// results by method, ACL decisions and rate-limit refusals, counted as calls
// happen, and gauges of approvals, tasks, the outbox, peers and the context
// index, read from the store when Prometheus scrapes. It uses its own
// registry, never the global default one.
package metrics

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Snapshot is the state read on each scrape.
type Snapshot struct {
	Approvals        map[string]int // approvals by state
	ApprovalsDecided map[string]int // stored approvals by decision (approved, rejected, expired)
	Tasks            map[string]int // tasks by state
	OutboxDepth      int
	OutboxOldestAge  time.Duration // age of the oldest pending outbox entry (0: none)
	PeersOnline      int
	ContextEvents    int64 // events in the context index
	ContextIngested  int64 // events ever ingested
}

// Source reads a Snapshot; it is called once per scrape.
type Source func(ctx context.Context) (Snapshot, error)

// scrapeTimeout bounds how long one scrape may spend reading the store.
const scrapeTimeout = 5 * time.Second

// latencyBuckets span a local answer (1 ms) to a slow peer or task (10 s).
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Metrics is one agent's set of collectors.
type Metrics struct {
	reg         *prometheus.Registry
	duration    *prometheus.HistogramVec
	requests    *prometheus.CounterVec
	acl         *prometheus.CounterVec
	rateLimited prometheus.Counter
}

// New registers aoi's collectors, the Go runtime's and the process's on a
// fresh registry; src feeds the gauges on each scrape.
func New(src Source) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "aoi_rpc_request_duration_seconds", Help: "Time to handle a peer's JSON-RPC call, by method.",
			Buckets: latencyBuckets,
		}, []string{"method"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "aoi_rpc_requests_total", Help: "Peer JSON-RPC calls by method and result code (ok or the AOI error name).",
		}, []string{"method", "code"}),
		acl: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "aoi_acl_decisions_total", Help: "Access-control decisions on peer requests (allow or deny).",
		}, []string{"decision"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "aoi_rate_limited_total", Help: "Peer calls refused by the rate limiter.",
		}),
	}
	m.reg.MustRegister(m.duration, m.requests, m.acl, m.rateLimited, newStoreCollector(src),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveCall records one handled call: its method, result code and how
// long it took.
func (m *Metrics) ObserveCall(method, code string, d time.Duration) {
	m.duration.WithLabelValues(method).Observe(d.Seconds())
	m.requests.WithLabelValues(method, code).Inc()
}

// ACLDecision counts an access-control decision ("allow" or "deny").
func (m *Metrics) ACLDecision(decision string) { m.acl.WithLabelValues(decision).Inc() }

// RateLimited counts a call the rate limiter refused.
func (m *Metrics) RateLimited() { m.rateLimited.Inc() }

// Gatherer exposes the registry (tests, other exporters).
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Handler serves the registry in the Prometheus text format. A store that
// cannot be read fails only its own series, not the whole scrape.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

package metrics

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// storeCollector reads a Snapshot on each scrape, so the gauges cost
// nothing between scrapes and need no polling loop.
type storeCollector struct {
	src              Source
	approvals        *prometheus.Desc
	approvalsDecided *prometheus.Desc
	tasks            *prometheus.Desc
	outboxDepth      *prometheus.Desc
	outboxOldest     *prometheus.Desc
	peersOnline      *prometheus.Desc
	contextEvents    *prometheus.Desc
	contextIngested  *prometheus.Desc
}

func newStoreCollector(src Source) *storeCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &storeCollector{
		src:              src,
		approvals:        d("aoi_approvals", "Approvals by state (pending ones wait for the owner).", "state"),
		approvalsDecided: d("aoi_approvals_decided_total", "Approvals decided, by decision (approved, rejected, expired), as stored.", "decision"),
		tasks:            d("aoi_tasks", "Tasks run for peers, by state.", "state"),
		outboxDepth:      d("aoi_outbox_depth", "Outgoing messages waiting for delivery."),
		outboxOldest:     d("aoi_outbox_oldest_age_seconds", "Age of the oldest undelivered outgoing message (0 when none)."),
		peersOnline:      d("aoi_peers_online", "Trusted peers currently online."),
		contextEvents:    d("aoi_context_events", "Events in the context index."),
		contextIngested:  d("aoi_context_ingested_total", "Events ingested into the context index."),
	}
}

// decisions are the final approval states counted as decisions.
var decisions = []string{"approved", "rejected", "expired"}

// Describe implements prometheus.Collector.
func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.approvals, c.approvalsDecided, c.tasks, c.outboxDepth, c.outboxOldest,
		c.peersOnline, c.contextEvents, c.contextIngested} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	s, err := c.src(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.approvals, fmt.Errorf("reading the store: %w", err))
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	for state, n := range s.Approvals {
		gauge(c.approvals, float64(n), state)
	}
	for _, dec := range decisions {
		counter(c.approvalsDecided, float64(s.ApprovalsDecided[dec]), dec)
	}
	for state, n := range s.Tasks {
		gauge(c.tasks, float64(n), state)
	}
	gauge(c.outboxDepth, float64(s.OutboxDepth))
	gauge(c.outboxOldest, s.OutboxOldestAge.Seconds())
	gauge(c.peersOnline, float64(s.PeersOnline))
	gauge(c.contextEvents, float64(s.ContextEvents))
	counter(c.contextIngested, float64(s.ContextIngested))
}

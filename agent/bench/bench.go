// Package bench measures aoi.query end to end: two real cores on loopback
// (mutual TLS, ACL, rate limiting, durable hash-chained audit) against a bare
// net/http JSON echo over the same kind of TLS connection, in the same run, so
// the ratio shows what aoi's stack costs on this machine. Both phases send
// the same request, and they take turns (Options.Rounds), so a machine that
// speeds up or slows down during the run weighs on both alike.
package bench

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/rss"
	"github.com/aoi-protocol/aoi/rpc"
)

// DefaultRounds is how many turns each phase takes unless told otherwise.
const DefaultRounds = 5

// Options configure a run.
type Options struct {
	Concurrency int
	Duration    time.Duration // per phase, over all its rounds
	// Rounds is how many turns each phase takes (DefaultRounds): echo, then
	// aoi.query, Rounds times, each turn Duration/Rounds long. A machine's
	// speed drifts by 10–20% from one quiet minute to the next; taking turns
	// spreads that drift over both phases instead of giving it to one.
	Rounds int
	// Dir is where the agents' scratch folder is made (removed after;
	// Dir itself stays): the system's temp folder when empty.
	Dir string
	// Progress, when set, receives a line at the start and one per round.
	Progress func(string)
	// CPUProfile, when set, receives a CPU profile (pprof format) of the
	// aoi.query phase: both agents run in this process, so it shows the
	// whole peer path, client and server. A profile covers one stretch of
	// time, so with it each phase runs in one round.
	CPUProfile io.Writer
}

// Result is one measured phase.
type Result struct {
	Name       string        `json:"name"`
	Requests   int64         `json:"requests"`
	Errors     int64         `json:"errors"`
	Throughput float64       `json:"throughput_rps"`
	P50        time.Duration `json:"p50_ns"`
	P95        time.Duration `json:"p95_ns"`
	P99        time.Duration `json:"p99_ns"`
	// WritesPerCommit is the receiving store's mean group-commit size over
	// the phase (aoi.query only): how many requests' writes shared one
	// COMMIT, the writer's main cost.
	WritesPerCommit float64 `json:"writes_per_commit,omitempty"`
	// CPUPerRequest is the process's CPU time (both agents and the
	// callers: everything runs in this process) over the phase, divided
	// by its requests. It varies less from run to run than throughput, so
	// it shows whether a change made the path cheaper.
	CPUPerRequest time.Duration `json:"cpu_per_request_ns"`
}

// Report is what `aoi bench` prints.
type Report struct {
	Concurrency int    `json:"concurrency"`
	Duration    string `json:"duration"`
	Echo        Result `json:"echo"`
	Query       Result `json:"aoi_query"`
	// Ratio is query throughput / echo throughput; RatioValid is false when
	// the machine was busy (see Machine), and then the ratio is no figure.
	Ratio      float64 `json:"ratio"`
	RatioValid bool    `json:"ratio_valid"`
	// RoundRatios is each round's ratio, in order: their spread shows how
	// much the machine drifted during the run.
	RoundRatios []float64 `json:"round_ratios"`
	PeakRSSKiB  int64     `json:"peak_rss_kib"`
	Machine     Machine   `json:"machine"`
}

// Run measures the echo and aoi.query, taking turns, and reports both.
func Run(ctx context.Context, opts Options) (Report, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.Duration <= 0 {
		opts.Duration = 10 * time.Second
	}
	if opts.Rounds <= 0 {
		opts.Rounds = DefaultRounds
	}
	if opts.CPUProfile != nil {
		opts.Rounds = 1
	}
	say := opts.Progress
	if say == nil {
		say = func(string) {}
	}
	rep := Report{Concurrency: opts.Concurrency, Duration: opts.Duration.String()}
	rep.Machine = Machine{Cores: numCores(), GOMAXPROCS: runtime.GOMAXPROCS(0), LoadBefore: loadAverage(),
		DataFS: filesystem(cmp.Or(opts.Dir, os.TempDir()))}
	eng, pm, cleanup, err := startPair(ctx, opts.Dir)
	if err != nil {
		return rep, err
	}
	defer cleanup()
	say(fmt.Sprintf("the agents' data: %s (%s), removed after", eng.scratch, cmp.Or(rep.Machine.DataFS, "filesystem unknown")))
	echoURL, stopEcho, err := startEcho(pm.identity)
	if err != nil {
		return rep, err
	}
	defer stopEcho()
	// The echo gets the very request aoi.query gets, so the two phases
	// differ only in what serves it.
	params := benchQuery()
	echoClient := rpc.NewClient(echoURL, pm.transport.HTTPClient(pm.identity.Fingerprint), rpc.ClientOptions{MaxAttempts: 1})
	client := rpc.NewClient("https://"+eng.Addr()+"/aoi/v1/rpc", pm.transport.HTTPClient(eng.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
	call := func(c *rpc.Client) func(context.Context) error {
		return func(ctx context.Context) error {
			var res json.RawMessage
			return c.Call(ctx, wire.MethodQuery, params, &res)
		}
	}
	slice := opts.Duration / time.Duration(opts.Rounds)
	say(fmt.Sprintf("echo (bare net/http JSON echo over mutual TLS) and aoi.query (pm-bench → eng-bench with ACL, rate limit and audit) take %d turns of %s each, %d workers", opts.Rounds, slice, opts.Concurrency))
	var echo, query sample
	batches0, writes0 := eng.DB().WriteStats()
	for round := range opts.Rounds {
		e := drive(ctx, opts.Concurrency, slice, call(echoClient))
		if opts.CPUProfile != nil {
			if err := pprof.StartCPUProfile(opts.CPUProfile); err != nil {
				return rep, fmt.Errorf("bench: could not start the CPU profile: %w", err)
			}
		}
		q := drive(ctx, opts.Concurrency, slice, call(client))
		if opts.CPUProfile != nil {
			pprof.StopCPUProfile()
		}
		if e.throughput() > 0 {
			r := q.throughput() / e.throughput()
			rep.RoundRatios = append(rep.RoundRatios, r)
			say(fmt.Sprintf("round %d/%d: echo %.0f req/s, aoi.query %.0f req/s, ratio %.2f", round+1, opts.Rounds, e.throughput(), q.throughput(), r))
		}
		echo.add(e)
		query.add(q)
	}
	rep.Echo, rep.Query = echo.result("echo"), query.result("aoi.query")
	if batches, writes := eng.DB().WriteStats(); batches > batches0 {
		rep.Query.WritesPerCommit = float64(writes-writes0) / float64(batches-batches0)
	}
	if rep.Echo.Throughput > 0 {
		rep.Ratio = rep.Query.Throughput / rep.Echo.Throughput
	}
	rep.PeakRSSKiB = rss.PeakKiB()
	rep.Machine.LoadAfter = loadAverage()
	rep.RatioValid = rep.Ratio > 0 && rep.Machine.Quiet()
	return rep, nil
}

// benchQuery is the question every call asks.
func benchQuery() wire.QueryParams {
	return wire.QueryParams{From: "pm-bench", To: "eng-bench", Query: "認証機能の進捗は？ how is auth going?", ContextScope: []string{"acme/webapp"}}
}

// sample is what one or more turns of a phase measured.
type sample struct {
	latencies []time.Duration
	errors    int64
	elapsed   time.Duration
	cpu       time.Duration
}

func (s *sample) add(o sample) {
	s.latencies = append(s.latencies, o.latencies...)
	s.errors += o.errors
	s.elapsed += o.elapsed
	s.cpu += o.cpu
}

func (s sample) throughput() float64 {
	if s.elapsed <= 0 {
		return 0
	}
	return float64(len(s.latencies)) / s.elapsed.Seconds()
}

// result summarises the sample.
func (s sample) result(name string) Result {
	all := slices.Clone(s.latencies)
	slices.Sort(all)
	r := Result{Name: name, Requests: int64(len(all)), Errors: s.errors, Throughput: s.throughput()}
	r.P50, r.P95, r.P99 = pct(all, 0.50), pct(all, 0.95), pct(all, 0.99)
	if len(all) > 0 {
		r.CPUPerRequest = s.cpu / time.Duration(len(all))
	}
	return r
}

// drive runs fn from n workers for d and collects latencies.
func drive(ctx context.Context, n int, d time.Duration, fn func(context.Context) error) sample {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var errs atomic.Int64
	lat := make([][]time.Duration, n)
	var wg sync.WaitGroup
	start, cpu0 := time.Now(), processCPU()
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				t0 := time.Now()
				if err := fn(ctx); err != nil {
					if ctx.Err() == nil {
						errs.Add(1)
					}
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	return sample{latencies: slices.Concat(lat...), errors: errs.Load(), elapsed: time.Since(start), cpu: processCPU() - cpu0}
}

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

// benchAgent is a core started for the run.
type benchAgent struct {
	*agent.Core
	identity  *rpc.Identity
	transport *rpc.DirectTransport
	scratch   string // the pair's scratch folder (set on eng by startPair)
}

// startPair starts eng-bench (holding acme/webapp, PMs may read it) and
// pm-bench, pinned to each other on 127.0.0.1, with their data in a new
// folder in parent (the system's temp folder when empty), removed by
// cleanup.
func startPair(ctx context.Context, parent string) (eng, pm *benchAgent, cleanup func(), err error) {
	dir, err := os.MkdirTemp(parent, "aoi-bench-")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("bench: could not make the agents' scratch folder: %w", err)
	}
	var stops []func()
	cleanup = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
		os.RemoveAll(dir)
	}
	eng, stop, err := startAgent(ctx, filepath.Join(dir, "eng"), "eng-bench", "engineer")
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	eng.scratch = dir
	stops = append(stops, stop)
	pm, stop, err = startAgent(ctx, filepath.Join(dir, "pm"), "pm-bench", "pm")
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	stops = append(stops, stop)
	if err := pin(ctx, eng, pm); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	return eng, pm, cleanup, nil
}

// listenTimeout bounds how long an agent may take to start listening
// (BenchmarkQueryCalls gives it longer: under valgrind it starts slowly).
var listenTimeout = 5 * time.Second

// startAgent initialises and serves one core.
func startAgent(ctx context.Context, dir, id, role string) (*benchAgent, func(), error) {
	res, err := agent.Init(agent.InitOptions{DataDir: dir, AgentID: id, Role: role, ListenAddr: "127.0.0.1:0"})
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(res.ConfigPath)
	if err != nil {
		return nil, nil, err
	}
	cfg.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
	cfg.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "pm-read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"}}}
	cfg.Limits.RatePerSec, cfg.Limits.Burst = 100000, 100000 // measured, never hit
	cfg.Limits.BodyBytesPerSec = 1e9
	cfg.Limits.DailyCallsPerPeer = -1 // a bench run makes hundreds of thousands of calls
	cfg.Network.DiscoveryIntervalSec = 3600
	// Every bench question waits for an owner who never answers: past
	// the per-peer limit the rest would be refused as busy, which is no
	// measure of the path.
	cfg.Network.MaxOpenQuestionsPerPeer = -1
	cfg.Secretary.ContextMirroring.Enabled = false // the core path; the secretary has its own benchmarks
	if err := config.Write(res.ConfigPath, cfg); err != nil {
		return nil, nil, err
	}
	core, err := agent.Open(ctx, agent.Options{DataDir: dir, ConfigPath: res.ConfigPath})
	if err != nil {
		return nil, nil, err
	}
	id2, _, err := rpc.LoadOrCreateIdentity(filepath.Join(dir, "tls"), id)
	if err != nil {
		core.Close()
		return nil, nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- core.Serve(sctx) }()
	select {
	case <-core.Listening():
	case err := <-done:
		cancel()
		core.Close()
		return nil, nil, fmt.Errorf("%s stopped before it listened: %w", id, err)
	case <-time.After(listenTimeout):
		cancel()
		core.Close()
		return nil, nil, fmt.Errorf("%s did not start listening within %s", id, listenTimeout)
	}
	stop := func() { cancel(); <-done; core.Close() }
	return &benchAgent{Core: core, identity: id2, transport: rpc.NewDirectTransport(id2, "")}, stop, nil
}

// pin makes the two agents trust each other and announce.
func pin(ctx context.Context, a, b *benchAgent) error {
	if err := a.Trust(ctx, agent.TrustRequest{AgentID: "pm-bench", Fingerprint: b.identity.Fingerprint, Endpoint: b.Addr(), Role: "pm"}); err != nil {
		return err
	}
	if err := b.Trust(ctx, agent.TrustRequest{AgentID: "eng-bench", Fingerprint: a.identity.Fingerprint, Endpoint: a.Addr()}); err != nil {
		return err
	}
	_, err := b.Discover(ctx)
	return err
}

// startEcho serves a JSON-RPC-shaped echo with plain net/http over the same
// mutual TLS settings aoi uses.
func startEcho(id *rpc.Identity) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	tlsLn := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{id.Certificate},
		MinVersion: tls.VersionTLS13, ClientAuth: tls.RequireAnyClientCert})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": req.Params})
	})}
	go srv.Serve(tlsLn)
	return "https://" + ln.Addr().String() + "/", func() { srv.Close() }, nil
}

package bench

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// ScaleOptions configure the discovery simulation (`aoi bench --scale N`).
type ScaleOptions struct {
	Agents int // agents on the tailnet
	// Interval is network.discovery_interval_sec: every agent announces
	// itself to every agent it can find once per interval.
	Interval time.Duration
	// StartSpread is the window over which the agents come up.
	StartSpread time.Duration
	// Minutes of steady state measured after the registries converged
	// (at least two intervals).
	Minutes int
	// Latency is one announce's round trip. Zero measures it: a real
	// self_only announce between two real cores on loopback (mutual TLS,
	// ACL, audit), the median of 200.
	Latency time.Duration
	// SeedReplies makes every announce reply list the callee's whole
	// registry, as seed 000 does (aoi asks for self_only).
	SeedReplies bool
	// EachWay makes every round announce to every peer, even one met in
	// the last half interval (aoi before it skipped those; for comparison).
	EachWay bool
	Seed    uint64
	Dir     string // scratch dir for the real parts (removed after)
}

// ScaleReport is what the simulation found.
type ScaleReport struct {
	Agents      int    `json:"agents"`
	Interval    string `json:"interval"`
	StartSpread string `json:"start_spread"`
	SeedReplies bool   `json:"seed_replies"`
	EachWay     bool   `json:"each_way"`
	// Latency is the announce round trip the simulation used.
	Latency time.Duration `json:"announce_latency_ns"`
	// ConvergedAfter is simulated time from the first agent starting until
	// every registry lists every other agent.
	ConvergedAfter time.Duration `json:"converged_after_ns"`
	// JoinAfter is how long a newcomer's first round takes on a converged
	// tailnet: afterwards it knows every agent and every agent knows it.
	JoinAfter time.Duration `json:"join_after_ns"`
	// Traffic per agent per minute at steady state, both directions:
	// announces sent plus received, and their JSON-RPC bytes.
	AnnouncesPerMin float64 `json:"announces_per_agent_per_min"`
	BytesPerMin     float64 `json:"bytes_per_agent_per_min"`
	// One agent's registry of Agents-1 peers: Go heap for the entries
	// as discovery carries them, and a real SQLite store on disk.
	RegistryHeapBytes int64 `json:"registry_heap_bytes"`
	RegistryDBBytes   int64 `json:"registry_db_bytes"`
	// Every received announce is a call, and every call is audited: the
	// rows and SQLite bytes discovery adds to one agent's audit log a day.
	AuditRowsPerDay  float64       `json:"audit_rows_per_agent_per_day"`
	AuditBytesPerDay float64       `json:"audit_bytes_per_agent_per_day"`
	Wall             time.Duration `json:"wall_ns"`
}

// Simulate runs the discovery rounds of Options.Agents agents on a virtual
// clock. The agents are light stand-ins for cores: each keeps the registry
// the real one keeps (what announces tell it), follows the round of
// agent/peers/discovery.go (find the tailnet's agents, announce to each, at most
// maxAnnouncing at once, record the callee; the callee records the caller)
// and counts the bytes of the real wire messages. The registry's memory
// and disk size are measured on real structures.
func Simulate(ctx context.Context, opts ScaleOptions) (ScaleReport, error) {
	opts = opts.withDefaults()
	start := time.Now()
	rep := ScaleReport{Agents: opts.Agents, Interval: opts.Interval.String(), StartSpread: opts.StartSpread.String(),
		SeedReplies: opts.SeedReplies, EachWay: opts.EachWay, Latency: opts.Latency}
	if rep.Latency == 0 {
		lat, err := announceLatency(ctx, opts.Dir)
		if err != nil {
			return rep, fmt.Errorf("measuring an announce: %w", err)
		}
		rep.Latency = lat
	}
	sizes := newWireSizes(opts.Agents)
	sim := newSimulation(opts, rep.Latency, sizes)
	rep.ConvergedAfter = sim.runUntilConverged()
	// Measure whole rounds: at least two intervals, however few minutes.
	window := max(time.Duration(opts.Minutes)*time.Minute, 2*opts.Interval)
	sent, recvd, bytes := sim.steadyState(window)
	perMin := float64(opts.Agents) * window.Minutes()
	rep.AnnouncesPerMin = float64(sent+recvd) / perMin
	rep.BytesPerMin = float64(bytes) / perMin
	rep.JoinAfter = roundDuration(opts.Agents-1, rep.Latency)
	rep.AuditRowsPerDay = float64(recvd) / perMin * 24 * 60
	rowBytes, err := auditRowBytes(ctx, opts.Dir)
	if err != nil {
		return rep, err
	}
	rep.AuditBytesPerDay = rep.AuditRowsPerDay * rowBytes
	if rep.RegistryHeapBytes, err = registryHeap(opts.Agents - 1); err != nil {
		return rep, err
	}
	if rep.RegistryDBBytes, err = registryDisk(ctx, opts.Dir, opts.Agents-1); err != nil {
		return rep, err
	}
	rep.Wall = time.Since(start)
	return rep, nil
}

func (o ScaleOptions) withDefaults() ScaleOptions {
	if o.Agents < 2 {
		o.Agents = 1000
	}
	if o.Interval <= 0 {
		o.Interval = time.Minute
	}
	if o.StartSpread <= 0 {
		o.StartSpread = time.Minute
	}
	if o.Minutes <= 0 {
		o.Minutes = 5
	}
	return o
}

// maxAnnouncing mirrors agent/peers/discovery.go: announces of one round in flight.
const maxAnnouncing = 16

// roundDuration is how long announcing to n peers takes, maxAnnouncing at
// a time.
func roundDuration(n int, latency time.Duration) time.Duration {
	return time.Duration((n+maxAnnouncing-1)/maxAnnouncing) * latency
}

// wireSizes are the JSON-RPC byte counts of the real discovery messages.
type wireSizes struct {
	request   int // an announce request
	replyBase int // a reply with no entries
	entry     int // one registry entry in a reply
}

func newWireSizes(n int) wireSizes {
	entry := sampleEntry(n)
	params := wire.DiscoverParams{AgentID: entry.Identity.ID, Capabilities: entry.Identity.Capabilities, Announce: true,
		SelfOnly: true, Role: entry.Identity.Role, Owner: entry.Identity.Owner, Endpoint: entry.Endpoint, AOIVersion: wire.ProtocolVersion}
	req := mustLen(map[string]any{"jsonrpc": "2.0", "id": "discover-0123456789abcdef", "method": wire.MethodDiscover, "params": params})
	empty := mustLen(map[string]any{"jsonrpc": "2.0", "id": "discover-0123456789abcdef",
		"result": wire.DiscoverResult{Agents: []wire.RegistryEntry{}, AOIVersion: wire.ProtocolVersion}})
	return wireSizes{request: req, replyBase: empty, entry: mustLen(entry) + 1} // +1: the comma
}

// sampleEntry is one agent as discovery describes it: a tailnet address,
// two contexts, two task types.
func sampleEntry(n int) wire.RegistryEntry {
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	return wire.RegistryEntry{Endpoint: "100.101.102.103:8443", Status: "online", Identity: wire.Identity{
		ID: fmt.Sprintf("eng-%06d", n), Role: "engineer", Owner: "someone", TailscaleNodeID: fmt.Sprintf("n%012dCNTRL", n),
		RegisteredAt: now, LastSeenAt: now,
		Capabilities: wire.Capabilities{Actions: []string{"query.send", "query.respond", "context.read", "task.execute"},
			Contexts:  []wire.ContextReference{{Type: "repository", Identifier: "acme/webapp"}, {Type: "repository", Identifier: "acme/api"}},
			TaskTypes: []string{"run_tests", "lint"}},
	}}
}

func mustLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the wire types always encode
	}
	return len(b)
}

// simulation is the event loop on a virtual clock.
type simulation struct {
	opts    ScaleOptions
	latency time.Duration
	sizes   wireSizes
	now     time.Duration
	events  eventQueue
	started []bool
	// exchanged[i][j] is when i and j last exchanged announces, in
	// virtual milliseconds plus one (0: never, so neither lists the other).
	// Exchanges are symmetric: the callee records the caller and the
	// caller records the callee's self entry from the reply.
	exchanged [][]int32
	known     []int // how many agents each registry lists
	complete  int   // agents whose registry lists every other agent
	sent      []int64
	recvd     []int64
	bytes     int64
}

func newSimulation(opts ScaleOptions, latency time.Duration, sizes wireSizes) *simulation {
	s := &simulation{opts: opts, latency: latency, sizes: sizes, started: make([]bool, opts.Agents),
		exchanged: make([][]int32, opts.Agents), known: make([]int, opts.Agents),
		sent: make([]int64, opts.Agents), recvd: make([]int64, opts.Agents)}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	for i := range opts.Agents {
		s.exchanged[i] = make([]int32, opts.Agents)
		heap.Push(&s.events, event{at: time.Duration(rng.Int64N(int64(opts.StartSpread))), agent: i})
	}
	return s
}

// runUntilConverged runs rounds until every registry is complete and
// returns the simulated time that took.
func (s *simulation) runUntilConverged() time.Duration {
	for s.complete < s.opts.Agents && s.events.Len() > 0 {
		s.step()
	}
	return s.now
}

// steadyState runs the given simulated time and returns what it cost.
func (s *simulation) steadyState(window time.Duration) (sent, recvd, bytes int64) {
	s0, r0, b0 := sum(s.sent), sum(s.recvd), s.bytes
	until := s.now + window
	for s.events.Len() > 0 && s.events[0].at < until {
		s.step()
	}
	return sum(s.sent) - s0, sum(s.recvd) - r0, s.bytes - b0
}

// step runs the next agent's heartbeat round as agent/peers/discovery.go does: it
// announces to every agent the tailnet lists (every started one) except
// those it exchanged announces with in the last half interval, then waits
// an interval.
func (s *simulation) step() {
	ev := heap.Pop(&s.events).(event)
	s.now = ev.at
	i := ev.agent
	s.started[i] = true
	now := int32(s.now/time.Millisecond) + 1
	fresh := int32(s.opts.Interval / 2 / time.Millisecond)
	peers := 0
	for j := range s.opts.Agents {
		if j == i || !s.started[j] {
			continue
		}
		if last := s.exchanged[i][j]; !s.opts.EachWay && last != 0 && now-last < fresh {
			continue
		}
		peers++
		s.sent[i]++
		s.recvd[j]++
		reply := 1
		if s.opts.SeedReplies {
			reply = s.known[j] + 1
		}
		s.bytes += int64(s.sizes.request + s.sizes.replyBase + reply*s.sizes.entry)
		s.exchange(i, j, now)
	}
	next := ev.at + roundDuration(peers, s.latency) + s.opts.Interval
	heap.Push(&s.events, event{at: next, agent: i})
}

func (s *simulation) exchange(i, j int, now int32) {
	if s.exchanged[i][j] == 0 {
		s.learned(i)
		s.learned(j)
	}
	s.exchanged[i][j], s.exchanged[j][i] = now, now
}

func (s *simulation) learned(who int) {
	s.known[who]++
	if s.known[who] == s.opts.Agents-1 {
		s.complete++
	}
}

func sum(xs []int64) int64 {
	var t int64
	for _, x := range xs {
		t += x
	}
	return t
}

type event struct {
	at    time.Duration
	agent int
}

// eventQueue is a min-heap of events by time.
type eventQueue []event

func (q eventQueue) Len() int           { return len(q) }
func (q eventQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q eventQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)        { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	ev := old[len(old)-1]
	*q = old[:len(old)-1]
	return ev
}

// registryHeap measures the Go heap held by n registry entries as
// discovery carries them (what a front end's peer list holds). Small
// registries are measured at 2,000 entries and scaled down: the heap moves
// by more than a few entries' worth between two readings.
func registryHeap(n int) (int64, error) {
	sample := max(n, 2000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	reg := make(map[string]wire.RegistryEntry, sample)
	for i := range sample {
		e := sampleEntry(i)
		reg[e.Identity.ID] = e
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(reg)
	total := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if total <= 0 {
		return 0, fmt.Errorf("the heap shrank while measuring the registry (%d bytes); run again on a quiet process", total)
	}
	return total * int64(n) / int64(sample), nil
}

// auditRowBytes is the SQLite size of one audited announce: the growth of
// a real store's files over 2,000 rows shaped like the core's call rows.
func auditRowBytes(ctx context.Context, dir string) (float64, error) {
	const rows = 2000
	var base int64
	size, err := withStore(ctx, dir, func(db *store.DB, path string) error {
		if err := db.Write(ctx, func(tx *store.Tx) error {
			_, err := tx.AppendAudit("eng-000001", wire.MethodDiscover, "ok", map[string]any{"id": "discover-0123456789abcdef", "latency_ms": 0})
			return err
		}); err != nil {
			return err
		}
		base = filesSize(path)
		for lo := 0; lo < rows; lo += 200 {
			err := db.Write(ctx, func(tx *store.Tx) error {
				for i := lo; i < lo+200; i++ {
					caller := fmt.Sprintf("eng-%06d", i)
					if _, err := tx.AppendAudit(caller, wire.MethodDiscover, "ok", map[string]any{"id": fmt.Sprintf("discover-%016x", i), "latency_ms": 0}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return float64(size-base) / rows, nil
}

// withStore opens a real store in a scratch dir, runs fill, closes it (the
// WAL is checkpointed into the file) and returns the size of its files.
func withStore(ctx context.Context, dir string, fill func(db *store.DB, path string) error) (int64, error) {
	tmp, err := os.MkdirTemp(dir, "aoi-scale-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "aoi.db")
	db, err := store.Open(path)
	if err != nil {
		return 0, err
	}
	if err := fill(db, path); err != nil {
		db.Close()
		return 0, err
	}
	if err := db.Close(); err != nil {
		return 0, err
	}
	return filesSize(path), nil
}

func filesSize(path string) int64 {
	var total int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			total += fi.Size()
		}
	}
	return total
}

// registryDisk stores n peers in a real SQLite store and returns the size
// of its files.
func registryDisk(ctx context.Context, dir string, n int) (int64, error) {
	now := time.Now()
	return withStore(ctx, dir, func(db *store.DB, _ string) error {
		for lo := 0; lo < n; lo += 200 { // a batch per transaction, as announces land in group commits
			err := db.Write(ctx, func(tx *store.Tx) error {
				for i := lo; i < min(n, lo+200); i++ {
					e := sampleEntry(i)
					if err := tx.UpsertPeer(store.PeerRecord{AgentID: e.Identity.ID, Role: e.Identity.Role, Owner: e.Identity.Owner,
						Endpoint: e.Endpoint, NodeID: e.Identity.TailscaleNodeID, Trust: "pinned", Status: e.Status,
						Contexts: []string{"acme/webapp", "acme/api"}, TaskTypes: e.Identity.Capabilities.TaskTypes,
						FirstSeen: now, LastSeen: now}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// announceLatency measures the median round trip of a real self_only
// announce between two real cores on loopback.
func announceLatency(ctx context.Context, dir string) (time.Duration, error) {
	eng, pm, cleanup, err := startPair(ctx, dir)
	if err != nil {
		return 0, err
	}
	defer cleanup()
	client := rpc.NewClient("https://"+eng.Addr()+"/aoi/v1/rpc", pm.transport.HTTPClient(eng.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
	params := wire.DiscoverParams{AgentID: "pm-bench", Announce: true, SelfOnly: true, Role: "pm", AOIVersion: wire.ProtocolVersion}
	lat := make([]time.Duration, 0, 200)
	for range 200 {
		t0 := time.Now()
		var res wire.DiscoverResult
		if err := client.Call(ctx, wire.MethodDiscover, params, &res); err != nil {
			return 0, err
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	return lat[len(lat)/2], nil
}

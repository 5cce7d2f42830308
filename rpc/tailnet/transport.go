// Package tailnet is aoi's tailnet-mode transport: the agent joins a Tailscale
// tailnet as its own tsnet node, serves the peer API on the tailnet only, dials
// peers through the tailnet, and knows every caller by the tailnet's WhoIs
// answer. It is the only package besides cmd/aoi that links tsnet, so the rest
// of aoi builds and tests without it.
package tailnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/rpc"
	"tailscale.com/ipn"
	"tailscale.com/ipn/store/mem"
	"tailscale.com/tsnet"
	"tailscale.com/types/logger"
)

// DefaultPort is the tailnet TCP port the peer API listens on.
const DefaultPort = 8443

// DefaultUpTimeout bounds how long Listen waits for the node to join.
const DefaultUpTimeout = 60 * time.Second

// Config says how to join the tailnet.
type Config struct {
	// Dir holds the node's state (keys, tailscaled.state) inside aoi's data
	// dir, so a restart rejoins as the same node without a new auth key.
	Dir string
	// Hostname is the node name to ask for: aoi-<agent-id>.
	Hostname string
	// AuthKey joins a new node; unused once Dir (or Store) holds a node.
	AuthKey string
	// ControlURL is the coordination server (Headscale etc.); "" means
	// Tailscale's.
	ControlURL string
	// Tags are ACL tags to ask for (e.g. "tag:aoi"); the control server
	// decides whether the node gets them. Usually they come from the auth
	// key instead.
	Tags []string
	// Ephemeral nodes are removed by the control server soon after they go
	// offline. An in-memory Store requires Ephemeral.
	Ephemeral bool
	// Port is the tailnet TCP port to serve on (DefaultPort if 0). Peers are
	// assumed to use the same port.
	Port int
	// UpTimeout bounds joining the tailnet (DefaultUpTimeout if 0).
	UpTimeout time.Duration
	// Logf receives tsnet's logs (aoi's log file). Nil discards them; they
	// never go to stdout/stderr or to Tailscale's log service.
	Logf func(format string, args ...any)
	// PinnedNodes are node names (short or full) from the config's
	// peers[].tailnet_node that FindPeers probes even when they are not
	// named like aoi nodes.
	PinnedNodes []string
	// Store overrides the state store (tests: new(mem.Store)); nil keeps
	// state in Dir.
	Store ipn.StateStore
}

// Transport is a tsnet node used as an rpc.Transport.
type Transport struct {
	cfg Config
	srv *tsnet.Server

	mu      sync.Mutex
	started bool // srv.Start was called, so srv.Close is safe
	closed  bool
}

var _ rpc.Transport = (*Transport)(nil)

// New prepares a node; nothing touches the network until Listen or a dial.
func New(cfg Config) (*Transport, error) {
	if cfg.Hostname == "" {
		return nil, errors.New("tailnet: no hostname; set the node name (aoi-<agent-id>)")
	}
	if cfg.Dir == "" {
		return nil, errors.New("tailnet: no state dir; set a directory inside the aoi data dir")
	}
	if _, isMem := cfg.Store.(*mem.Store); isMem && !cfg.Ephemeral {
		return nil, errors.New("tailnet: an in-memory state store only works for ephemeral nodes; set Ephemeral or keep state in Dir")
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	if cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("tailnet: port %d is out of range; use 1-65535", cfg.Port)
	}
	if cfg.UpTimeout <= 0 {
		cfg.UpTimeout = DefaultUpTimeout
	}
	logf := logger.Logf(logger.Discard)
	if cfg.Logf != nil {
		logf = cfg.Logf
	}
	disableLogUpload()
	srv := &tsnet.Server{
		Dir:           cfg.Dir,
		Hostname:      cfg.Hostname,
		AuthKey:       cfg.AuthKey,
		ControlURL:    cfg.ControlURL,
		Ephemeral:     cfg.Ephemeral,
		Store:         cfg.Store,
		AdvertiseTags: cfg.Tags,
		Logf:          logf,
		// UserLogf defaults to log.Printf (stderr), which would draw over
		// the TUI; the auth URL it prints is reported by Listen's error.
		UserLogf: logf,
	}
	return &Transport{cfg: cfg, srv: srv}, nil
}

// Port is the tailnet TCP port this node serves on.
func (t *Transport) Port() int { return t.cfg.Port }

// Listen joins the tailnet (see Up) and listens on the tailnet only: the
// listener lives in tsnet's userspace network stack, not on the host's
// interfaces. No TLS and no Funnel: WireGuard already encrypts and
// authenticates every packet.
func (t *Transport) Listen(ctx context.Context) (net.Listener, error) {
	if err := t.Up(ctx); err != nil {
		return nil, err
	}
	ln, err := t.srv.Listen("tcp", ":"+strconv.Itoa(t.cfg.Port))
	if err != nil {
		return nil, fmt.Errorf("tailnet: listen on tailnet port %d: %w; pick another network.tailscale port", t.cfg.Port, err)
	}
	return ln, nil
}

// Identify asks the local node who owns the request's remote address. A
// caller the node does not know (not a tailnet peer) is refused. A tagged
// node belongs to its tags, not to a person, so its UserLogin is empty.
func (t *Transport) Identify(r *http.Request) (rpc.Caller, error) {
	lc, err := t.localClient()
	if err != nil {
		return rpc.Caller{}, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	who, err := lc.WhoIs(ctx, r.RemoteAddr)
	if err != nil {
		return rpc.Caller{}, fmt.Errorf("tailnet: caller %s is not a known tailnet node: %w", r.RemoteAddr, err)
	}
	if who.Node == nil {
		return rpc.Caller{}, fmt.Errorf("tailnet: caller %s has no tailnet node", r.RemoteAddr)
	}
	c := rpc.Caller{
		Kind:     rpc.CallerTailnet,
		Addr:     r.RemoteAddr,
		NodeID:   string(who.Node.StableID),
		NodeName: strings.TrimSuffix(who.Node.Name, "."),
		Tags:     append([]string(nil), who.Node.Tags...),
	}
	if who.UserProfile != nil && len(c.Tags) == 0 {
		c.UserLogin = who.UserProfile.LoginName
	}
	return c, nil
}

// HTTPClient returns a client whose connections go through the tailnet.
// expectFingerprint is ignored: WireGuard authenticates the peer node.
func (t *Transport) HTTPClient(expectFingerprint string) *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := t.start(); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		return t.srv.Dial(ctx, network, addr)
	}
	return &http.Client{
		Timeout: 60 * time.Second,
		Transport: &http.Transport{
			DialContext:           dial,
			ResponseHeaderTimeout: 30 * time.Second,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   4,
		},
	}
}

// Close stops the node. Ephemeral nodes then disappear from the tailnet.
func (t *Transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	if !t.started {
		return nil
	}
	return t.srv.Close()
}

// start starts the tsnet node once; it is safe to call again.
func (t *Transport) start() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errors.New("tailnet: transport is closed")
	}
	t.started = true
	if err := t.srv.Start(); err != nil {
		return fmt.Errorf("tailnet: start node %s (state in %s): %w", t.cfg.Hostname, t.cfg.Dir, err)
	}
	return nil
}

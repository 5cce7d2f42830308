// Package mcpbridge is aoi's MCP client: it connects to the work AI's MCP
// server named in config (secretary.work_ai.mcp_endpoint), over stdio or
// streamable HTTP, to run mcp_tool tasks and read the server's resources as
// context. The tool and the server always come from the owner's config,
// never from a peer: the bridge connects only to the endpoint it was built
// with, and Options.AllowTool can refuse any tool the config does not name.
package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/aoi-protocol/aoi/internal/backoff"
)

// Options tune a Bridge. Zero values take the defaults.
type Options struct {
	Logger *slog.Logger
	// CallTimeout bounds one tool call or read unless the caller's context
	// ends sooner (default 2 minutes).
	CallTimeout time.Duration
	// ClientName and ClientVersion are sent in the initialize handshake
	// (default "aoi", "dev").
	ClientName    string
	ClientVersion string
	// MinBackoff and MaxBackoff bound the wait between reconnection
	// attempts after the server died or could not be reached (default 1s
	// and 1 minute; the wait doubles with each failed attempt).
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// AllowTool, when set, is asked before every call; a tool it refuses is
	// never sent. The core passes a check against the configured task types.
	AllowTool func(name string) bool
	// Env is added to a stdio server's environment, over the owner's and
	// the endpoint's (the core marks the server as serving peers' tasks).
	Env []string
	// Clock decides when a reconnection is due (default: the wall clock;
	// tests move a fake one instead of sleeping through the back-off).
	Clock backoff.Clock
}

func (o *Options) defaults() {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 2 * time.Minute
	}
	if o.ClientName == "" {
		o.ClientName = "aoi"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(time.Minute, o.MinBackoff)
	}
	if o.Clock == nil {
		o.Clock = backoff.Real
	}
}

// ErrClosed is returned by calls on a closed Bridge.
var ErrClosed = errors.New("the MCP bridge is closed")

// Bridge is a connection to one MCP server that reconnects by itself. It is
// safe for concurrent use. It connects on first use.
type Bridge struct {
	ep   endpoint
	opts Options
	life context.Context // the stdio server process lives as long as this
	stop context.CancelFunc

	connMu sync.Mutex // one connection attempt at a time
	mu     sync.Mutex // guards the fields below
	cli    *client.Client
	fails  int // connection attempts failed in a row
	retry  time.Time
	last   error // why the last connection ended or failed
	closed bool
}

// New returns a Bridge to endpoint ("stdio:<command> [args…]" or an
// http(s):// streamable-HTTP URL). It does not connect yet: a work AI that
// is not running when aoi starts is not an error until a task needs it.
func New(endpoint string, opts Options) (*Bridge, error) {
	ep, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	opts.defaults()
	life, stop := context.WithCancel(context.Background())
	return &Bridge{ep: ep, opts: opts, life: life, stop: stop}, nil
}

// Endpoint names the server without arguments or credentials.
func (b *Bridge) Endpoint() string { return b.ep.String() }

// Connect connects now if not connected (tools, reads and calls do it on
// demand); it reports why the server cannot be reached.
func (b *Bridge) Connect(ctx context.Context) error {
	_, err := b.conn(ctx)
	return err
}

// Close disconnects and stops a stdio server. Calls after Close fail with
// ErrClosed.
func (b *Bridge) Close() error {
	b.mu.Lock()
	b.closed = true
	c := b.cli
	b.cli = nil
	b.mu.Unlock()
	var err error
	if c != nil {
		err = c.Close()
	}
	b.stop()
	return err
}

// conn returns the live client, connecting when there is none and the
// back-off allows it.
func (b *Bridge) conn(ctx context.Context) (*client.Client, error) {
	if c, err := b.current(); c != nil || err != nil {
		return c, err
	}
	b.connMu.Lock()
	defer b.connMu.Unlock()
	if c, err := b.current(); c != nil || err != nil { // someone else connected
		return c, err
	}
	b.mu.Lock()
	if wait := b.retry.Sub(b.opts.Clock.Now()); wait > 0 {
		err := &UnavailableError{Endpoint: b.ep.String(), RetryIn: wait, Err: b.last}
		b.mu.Unlock()
		return nil, err
	}
	b.mu.Unlock()

	c, err := b.dial(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.fails++
		b.last = err
		b.retry = b.opts.Clock.Now().Add(b.backoff(b.fails))
		b.opts.Logger.Warn("mcp bridge: cannot connect", "endpoint", b.ep.String(), "attempt", b.fails, "err", err)
		return nil, &UnavailableError{Endpoint: b.ep.String(), Err: err}
	}
	if b.closed {
		c.Close()
		return nil, ErrClosed
	}
	if b.fails > 0 || b.last != nil {
		b.opts.Logger.Info("mcp bridge: reconnected", "endpoint", b.ep.String())
	}
	b.cli, b.fails, b.last = c, 0, nil
	return c, nil
}

// current returns the live client, or ErrClosed, or neither.
func (b *Bridge) current() (*client.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	return b.cli, nil
}

// backoff is the wait after n failed attempts: MinBackoff doubled n-1
// times, capped at MaxBackoff.
func (b *Bridge) backoff(n int) time.Duration {
	return backoff.Policy{Base: b.opts.MinBackoff, Max: b.opts.MaxBackoff}.Delay(n - 1)
}

// lost forgets a client whose connection broke and closes it; the next
// call reconnects after MinBackoff.
func (b *Bridge) lost(c *client.Client, err error) {
	b.mu.Lock()
	if b.cli == c {
		b.cli = nil
		b.last = err
		b.retry = b.opts.Clock.Now().Add(b.opts.MinBackoff)
		b.opts.Logger.Warn("mcp bridge: connection lost", "endpoint", b.ep.String(), "err", err)
	}
	b.mu.Unlock()
	go c.Close() // reaps a dead stdio server; may wait for it to exit
}

// dial starts the transport and performs the MCP handshake.
func (b *Bridge) dial(ctx context.Context) (*client.Client, error) {
	var t transport.Interface
	switch b.ep.kind {
	case kindStdio:
		t = transport.NewStdioWithOptions(b.ep.argv[0], nil, b.ep.argv[1:],
			transport.WithCommandFunc(b.command), transport.WithCommandLogger(b.opts.Logger))
	default:
		h, err := transport.NewStreamableHTTP(b.ep.url, transport.WithHTTPTimeout(b.opts.CallTimeout),
			transport.WithHTTPLogger(b.opts.Logger))
		if err != nil {
			return nil, err
		}
		t = h
	}
	c := client.NewClient(t)
	if err := c.Start(b.life); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: b.opts.ClientName, Version: b.opts.ClientVersion}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("MCP handshake failed: %w", err)
	}
	return c, nil
}

// command builds the stdio server's process: no shell, its own process
// group (so stopping it stops its children), the owner's environment with
// Options.Env, and killed when the bridge closes.
func (b *Bridge) command(_ context.Context, name string, env, args []string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(b.life, name, args...)
	cmd.Env = append(append(os.Environ(), env...), b.opts.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd, nil
}

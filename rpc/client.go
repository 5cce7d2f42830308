package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/internal/jsondepth"
	"github.com/aoi-protocol/aoi/internal/jsonwrite"
)

// Client defaults.
const (
	DefaultCallTimeout      = 30 * time.Second
	DefaultMaxAttempts      = 3
	DefaultBaseBackoff      = 200 * time.Millisecond
	DefaultMaxBackoff       = 5 * time.Second
	DefaultMaxResponseBytes = 16 << 20
)

// ClientOptions configure a Client; zero fields take the defaults.
type ClientOptions struct {
	// Timeout bounds a whole call, retries and back-off included (30 s).
	Timeout time.Duration
	// MaxAttempts is the most tries per call, the first included (3).
	MaxAttempts int
	// BaseBackoff is the wait before the second try, doubled each time
	// (200 ms) up to MaxBackoff (5 s), with jitter.
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	// Peer names who is at the URL (an agent id) in error messages.
	Peer string
	// MaxResponseBytes bounds a response body (16 MiB).
	MaxResponseBytes int64
	// Clock is what retries wait on (default: the wall clock; tests).
	Clock backoff.Clock
}

// Client calls one JSON-RPC endpoint. It retries, with exponential back-off
// and jitter, only failures that are safe and likely to pass: no response
// (connection refused or reset, timeouts), HTTP 502/503/504 and the
// RATE_LIMIT and AGENT_BUSY errors. A retried request keeps its id, so a
// server that remembers ids can drop a duplicate.
type Client struct {
	url    string
	hc     *http.Client
	opts   ClientOptions
	nextID atomic.Uint64
}

// NewClient returns a client for url (e.g. https://host:8443/aoi/v1/rpc)
// that sends through hc (nil: a plain HTTP client).
func NewClient(url string, hc *http.Client, opts ClientOptions) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultCallTimeout
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.BaseBackoff <= 0 {
		opts.BaseBackoff = DefaultBaseBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Clock == nil {
		opts.Clock = backoff.Real
	}
	c := &Client{url: url, hc: hc, opts: opts}
	c.nextID.Store(firstID())
	return c
}

// firstID is where a client's ids start: random, so two clients of the
// same caller (one made after a restart, or after the peer's address
// changed) do not send the same id. The peer answers a repeated id with
// the same params from its replay cache for minutes: a ping would get an
// old clock reading, a question an old answer. Below 2^52, ids stay exact
// JSON numbers however long the client lives.
// (The replay cache is per caller, so ids need not be secret.)
func firstID() uint64 { return rand.Uint64N(1 << 52) }

// URL returns the endpoint the client calls.
func (c *Client) URL() string { return c.url }

// Call invokes method with params (nil, or anything encoding to a JSON
// object or array) and decodes the result into result (nil to discard).
// A JSON-RPC error is returned as *Error; a transport failure as
// *TransportError.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := strconv.AppendUint(nil, c.nextID.Add(1), 10)
	return c.call(ctx, id, method, params, result)
}

// CallWithID is Call with an id chosen by the caller (sent as a JSON
// string), e.g. a durable outbox id that the receiver can deduplicate on.
func (c *Client) CallWithID(ctx context.Context, id string, method string, params, result any) error {
	raw, err := json.Marshal(id)
	if err != nil {
		return err
	}
	return c.call(ctx, raw, method, params, result)
}

// Notify sends a notification: no id, no result. It succeeds once the
// peer has accepted the request (HTTP 2xx).
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	body, err := encodeRequest(nil, method, params)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, method, body, nil)
	return err
}

func (c *Client) call(ctx context.Context, id json.RawMessage, method string, params, result any) error {
	body, err := encodeRequest(id, method, params)
	if err != nil {
		return err
	}
	resp, err := c.do(ctx, method, body, id)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if raw, ok := result.(*json.RawMessage); ok {
		// Decoding the response checked the whole body, and gave the
		// result bytes of its own: json.Unmarshal would check and copy
		// them again.
		*raw = resp.Result
		return nil
	}
	if err := json.Unmarshal(resp.Result, result); err != nil {
		return fmt.Errorf("decoding the result of %s from %s: %w", method, c.who(), err)
	}
	return nil
}

// encodeRequest builds a request object; id nil makes a notification.
// The envelope is written by hand: its id is always this client's own
// encoding (a number, or a string json.Marshal wrote), and params come
// from json.Marshal, valid and compact, which encoding the envelope with
// json.Marshal would scan and copy again (about 2 µs a call).
func encodeRequest(id json.RawMessage, method string, params any) ([]byte, error) {
	var p []byte
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("encoding params of %s: %w", method, err)
		}
		if len(p) == 0 || (p[0] != '{' && p[0] != '[') {
			return nil, fmt.Errorf("params of %s must encode to a JSON object or array, got %.20s", method, p)
		}
	}
	b := make([]byte, 0, len(`{"jsonrpc":"2.0","method":,"params":,"id":}`)+len(method)+8+len(p)+len(id))
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = jsonwrite.AppendString(b, method)
	if p != nil {
		b = append(b, `,"params":`...)
		b = append(b, p...)
	}
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	return append(b, '}'), nil
}

// wireResponse is a response object as received.
type wireResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
	ID     json.RawMessage `json:"id"`
}

// do sends body, retrying what is retryable, within the call timeout.
// id nil means a notification.
func (c *Client) do(ctx context.Context, method string, body []byte, id json.RawMessage) (*wireResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		resp, err := c.once(ctx, method, body, id)
		if err == nil {
			return resp, nil
		}
		var te *TransportError
		if errors.As(err, &te) {
			te.Attempts = attempt
		}
		if attempt >= c.opts.MaxAttempts || !IsRetryable(err) {
			return nil, err
		}
		wait := c.backoff(attempt, err)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, err
		}
		if backoff.Sleep(ctx, c.opts.Clock, wait) != nil {
			return nil, err
		}
	}
}

// backoff is base·2^(attempt-1) capped, with equal jitter; a peer's
// retry-after hint wins when it is longer.
func (c *Client) backoff(attempt int, err error) time.Duration {
	d := backoff.Jitter(backoff.Policy{Base: c.opts.BaseBackoff, Max: c.opts.MaxBackoff}.Delay(attempt - 1))
	if ra := retryAfterOf(err); ra > d {
		d = ra + rand.N(ra/10+1)
	}
	return d
}

// once makes one HTTP exchange.
func (c *Client) once(ctx context.Context, method string, body []byte, id json.RawMessage) (*wireResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("calling %s on %s: %w", method, c.who(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportErr(ctx, method, 0, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxResponseBytes+1))
	if err != nil {
		return nil, c.transportErr(ctx, method, 0, fmt.Errorf("reading the response: %w", err))
	}
	if int64(len(data)) > c.opts.MaxResponseBytes {
		return nil, c.newTransportErr(method, resp.StatusCode, fmt.Errorf("response larger than %d bytes", c.opts.MaxResponseBytes), false)
	}
	if d := jsondepth.Of(data); d > jsondepth.Max {
		// The answer would be stored and passed on (the inbox, the
		// assistant's MCP client, which fails on deep nesting).
		return nil, c.newTransportErr(method, resp.StatusCode, fmt.Errorf("the response nests %d levels deep, over the limit of %d", d, jsondepth.Max), false)
	}
	return c.interpret(method, resp, data, id)
}

// interpret turns an HTTP response into a result or an error.
func (c *Client) interpret(method string, resp *http.Response, data []byte, id json.RawMessage) (*wireResponse, error) {
	var wr wireResponse
	isRPC := len(data) > 0 && json.Unmarshal(data, &wr) == nil && (wr.Error != nil || wr.Result != nil)
	switch {
	case isRPC && wr.Error != nil:
		return nil, withRetryAfterHeader(wr.Error, resp.Header)
	case id == nil && resp.StatusCode/100 == 2:
		return &wr, nil
	case isRPC && id != nil && resp.StatusCode == http.StatusOK:
		if !bytes.Equal(wr.ID, id) {
			return nil, c.newTransportErr(method, resp.StatusCode, fmt.Errorf("the response carries id %s, not the request's %s", wr.ID, id), false)
		}
		return &wr, nil
	}
	te := c.newTransportErr(method, resp.StatusCode, statusError(resp.StatusCode, data), retryableStatus(resp.StatusCode))
	te.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
	return nil, te
}

// withRetryAfterHeader fills data.retry_after_ms from the Retry-After
// header of a rate-limited response that lacks it.
func withRetryAfterHeader(e *Error, h http.Header) *Error {
	if e.Code != CodeRateLimit && e.Code != CodeAgentBusy || e.RetryAfter() > 0 {
		return e
	}
	if d := parseRetryAfter(h.Get("Retry-After")); d > 0 {
		m, ok := e.Data.(map[string]any)
		if !ok {
			m = map[string]any{}
		}
		m["retry_after_ms"] = float64(d.Milliseconds())
		e.Data = m
	}
	return e
}

func parseRetryAfter(v string) time.Duration {
	secs, err := strconv.Atoi(v)
	if err != nil || secs <= 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}

func statusError(status int, body []byte) error {
	if status == http.StatusNoContent {
		return errors.New("the peer sent no response to a call that expects one")
	}
	snippet := bytes.TrimSpace(body)
	if len(snippet) > 200 {
		snippet = snippet[:200]
	}
	if len(snippet) == 0 {
		return fmt.Errorf("HTTP %d %s", status, http.StatusText(status))
	}
	return fmt.Errorf("HTTP %d %s: %s", status, http.StatusText(status), snippet)
}

func (c *Client) who() string {
	if c.opts.Peer != "" {
		return "peer " + c.opts.Peer + " (" + c.url + ")"
	}
	return c.url
}

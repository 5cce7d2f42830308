package rpc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"
)

// TransportError is a call that got no JSON-RPC answer: the connection
// failed, the TLS handshake failed, or the peer answered with an HTTP
// error instead of a response object.
type TransportError struct {
	Peer     string // agent id when known
	URL      string
	Method   string
	Status   int // HTTP status when the peer answered, else 0
	Attempts int
	Err      error

	retryable  bool
	retryAfter time.Duration
}

// Error says which peer failed, how, and what to check.
func (e *TransportError) Error() string {
	who := e.URL
	if e.Peer != "" {
		who = "peer " + e.Peer + " (" + e.URL + ")"
	}
	msg := fmt.Sprintf("calling %s on %s: %v", e.Method, who, e.Err)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return msg + "; " + e.Advice()
}

// Unwrap returns the underlying error.
func (e *TransportError) Unwrap() error { return e.Err }

// Host is the host:port the call went to, or the URL when it has none.
func (e *TransportError) Host() string {
	if u, err := url.Parse(e.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return e.URL
}

// Retryable reports whether trying again may succeed.
func (e *TransportError) Retryable() bool { return e.retryable }

// Advice is what a person should check, without the call and the network
// error Error names first.
func (e *TransportError) Advice() string {
	var cve *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	switch {
	case errors.Is(e.Err, context.DeadlineExceeded):
		return "the call ran out of time: the peer may be slow, overloaded or unreachable"
	case errors.Is(e.Err, context.Canceled):
		return "the call was cancelled"
	case e.URL == ControlURL && (errors.Is(e.Err, syscall.ECONNREFUSED) || errors.Is(e.Err, syscall.ENOENT)):
		return "no aoi is running for this data dir (its control socket does not answer): start one with `aoi serve` (or `aoi`)"
	case errors.Is(e.Err, syscall.ECONNREFUSED):
		return "nothing is listening there: check that `aoi serve` is running on the peer and that its endpoint (host:port) is right"
	case isTimeout(e.Err):
		return "the peer did not answer in time: check that it is reachable (network, firewall) and not overloaded"
	case errors.As(e.Err, &cve), errors.As(e.Err, &ua), isTLSAlert(e.Err):
		return "the TLS handshake failed: check the pinned fingerprints on both sides (`aoi peers`, `aoi peers trust`)"
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return "the peer refused us: it must pin our certificate fingerprint (`aoi peers trust` on the peer)"
	case e.Status >= 500:
		return "the peer is failing or unavailable: try again later or check its log"
	case e.Status/100 == 2:
		return "the peer answered with something aoi does not take (a misbehaving or incompatible peer)"
	case e.Status != 0:
		return "the peer refused the request: check that both sides run compatible aoi versions"
	case e.retryable:
		return "the connection dropped: the peer may have restarted"
	}
	return "check the peer's endpoint and the network"
}

func isTLSAlert(err error) bool {
	var ae tls.AlertError
	var re tls.RecordHeaderError
	return errors.As(err, &ae) || errors.As(err, &re)
}

func (c *Client) newTransportErr(method string, status int, err error, retryable bool) *TransportError {
	return &TransportError{Peer: c.opts.Peer, URL: c.url, Method: method, Status: status, Err: err, retryable: retryable}
}

// transportErr classifies a failure to get any response.
func (c *Client) transportErr(ctx context.Context, method string, status int, err error) *TransportError {
	if ctx.Err() != nil {
		return c.newTransportErr(method, status, err, false)
	}
	return c.newTransportErr(method, status, err, retryableNetErr(err))
}

// IsRetryable reports whether err is worth retrying after a pause: no
// response (refused, reset, timeout), HTTP 429/502/503/504, or the
// RATE_LIMIT and AGENT_BUSY errors. Other JSON-RPC errors and HTTP 4xx are
// not: sending the same request again would fail the same way.
func IsRetryable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Code == CodeRateLimit || e.Code == CodeAgentBusy
	}
	var te *TransportError
	if errors.As(err, &te) {
		return te.retryable
	}
	return err != nil && retryableNetErr(err)
}

func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryableNetErr reports failures that happen before a response arrives
// and may pass on another try.
func retryableNetErr(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) && !isTimeout(err) {
		return false
	}
	var op *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case isTimeout(err):
		return true
	case errors.As(err, &op) && op.Op == "dial":
		return true
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// retryAfterOf returns the peer's hint of when to retry (0 if none).
func retryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter()
	}
	var te *TransportError
	if errors.As(err, &te) {
		return te.retryAfter
	}
	return 0
}

package rpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// bodyTimeout bounds how long a client may take to send a request body.
const bodyTimeout = 30 * time.Second

// ServeHTTP serves POST /aoi/v1/rpc: identify → authenticate → body
// limit → rate limit → dispatch → audit.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	countServed(r)
	// A request refused for its path, method or content type is answered
	// before its body is read, and the connection is closed so net/http
	// does not drain an unread body after the reply.
	wrong := wrongRoute(r)
	if wrong != nil {
		closeAfterReply(w)
	}
	// Who is calling is known from the connection (TLS certificate,
	// tailnet WhoIs) before a byte of the body is read: a caller that is
	// not let in is refused without reading it.
	caller, ref := s.identify(r)
	if ref == nil {
		caller, ref = s.authenticate(r.Context(), caller)
	}
	if ref != nil {
		closeAfterReply(w)
		writeOutcome(w, s.refuseWhole(r.Context(), caller, ref.err, ref.status))
		return
	}
	if wrong != nil {
		// A known caller's malformed request is a call too: audited and
		// counted against its rate like any other.
		if wrong.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", http.MethodPost)
		}
		writeOutcome(w, s.refuseWhole(r.Context(), caller, wrong.err, wrong.status))
		return
	}
	if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		MarkProven(c, caller.Key()) // a caller let in uses it: a full listener keeps it
	}
	// The body must arrive within bodyTimeout; the deadline is lifted for
	// the handler, which may take long (a synchronous query, a long poll).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
	body, tooBig, err := s.readBody(w, r)
	if err != nil || tooBig {
		closeAfterReply(w) // part of the body is still unread
	}
	if err != nil {
		// A known caller's broken body (a bad chunk, one cut off at the
		// deadline) is refused like any bad call: audited, rate-limited.
		writeOutcome(w, s.refuseWhole(r.Context(), caller, InvalidRequest("reading the request body failed: %v", err), http.StatusBadRequest))
		return
	}
	_ = rc.SetReadDeadline(time.Time{})
	if tooBig {
		writeOutcome(w, s.refuseWhole(r.Context(), caller, s.tooLarge(), http.StatusRequestEntityTooLarge))
		return
	}
	// Over its budget of bytes, a body is refused before it is redacted,
	// decoded or dispatched: what the caller sent costs nothing more.
	if ok, wait := s.bodyBytes.allowN(limitKey(caller), len(body), time.Now()); !ok {
		wait = max(wait, time.Millisecond)
		out := s.refuseWhole(r.Context(), caller, BodyBytesLimited(wait, s.bodyBytesPerSec()), http.StatusTooManyRequests)
		out.retryAfter = max(out.retryAfter, wait)
		holdRefusal(r.Context(), out)
		writeOutcome(w, out)
		return
	}
	out := s.serveAuthenticated(r.Context(), body, caller)
	holdRefusal(r.Context(), out)
	writeOutcome(w, out)
}

// maxRefusalHold bounds how long a rate-limited caller's refusal is held.
const maxRefusalHold = time.Second

// holdRefusal holds a refusal for being over a rate until the caller
// could have been let in (at most maxRefusalHold): its connection sends
// nothing more meanwhile. Answered at once, a peer that ignored
// Retry-After had about 4,300 refusals a second served on one connection,
// 64% of a core (the attack pass); held, a connection gets at most one
// refusal per wait, and the connections a source may open are capped. A
// caller that waits as told loses nothing.
func holdRefusal(ctx context.Context, out outcome) {
	if out.retryAfter <= 0 {
		return
	}
	t := time.NewTimer(min(out.retryAfter, maxRefusalHold))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// wrongRoute is why a request is not a JSON-RPC call aoi serves (another
// path, another method, a body that is not JSON), or nil.
func wrongRoute(r *http.Request) *refusal {
	switch {
	case r.URL.Path != Path:
		return &refusal{err: InvalidRequest("not found: aoi serves JSON-RPC at POST %s", Path), status: http.StatusNotFound}
	case r.Method != http.MethodPost:
		return &refusal{err: InvalidRequest("method %s not allowed: send JSON-RPC with POST %s", r.Method, Path), status: http.StatusMethodNotAllowed}
	case !isJSON(r.Header.Get("Content-Type")):
		return &refusal{err: InvalidRequest("Content-Type must be application/json, got %q; send the JSON-RPC body with Content-Type: application/json", r.Header.Get("Content-Type")),
			status: http.StatusUnsupportedMediaType}
	}
	return nil
}

// closeAfterReply closes the connection once a refusal is written, without
// reading what is left of the body. net/http would otherwise drain up to
// 256 KiB of a declared body, with no deadline, before closing: a caller
// that declares a body and never sends it would hold the connection (and
// one of its source's slots) for as long as it liked.
func closeAfterReply(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// identify runs Options.Identify; failure refuses the request (401).
func (s *Server) identify(r *http.Request) (Caller, *refusal) {
	fallback := Caller{Addr: r.RemoteAddr}
	if s.opts.Identify == nil {
		return fallback, &refusal{err: PermissionDenied("this server has no way to identify callers, so it refuses every request", nil), status: http.StatusUnauthorized}
	}
	c, err := s.opts.Identify(r)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = PermissionDenied("the caller could not be identified: "+err.Error(), nil)
		}
		return fallback, &refusal{err: e, status: http.StatusUnauthorized}
	}
	if c.Addr == "" {
		c.Addr = r.RemoteAddr
	}
	return c.withKey(), nil
}

// bodyPrealloc is the largest body read into one allocation of its
// declared length (every question is smaller); a larger one grows as its
// bytes arrive.
const bodyPrealloc = 64 << 10

// readBody reads at most MaxBodyBytes; tooBig reports a longer body.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, tooBig bool, err error) {
	limit := s.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return nil, true, nil
	}
	if r.ContentLength >= 0 && r.ContentLength <= bodyPrealloc {
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, body)
		return body, false, err
	}
	if r.ContentLength > 0 {
		// Read as it arrives, not allocated whole on the caller's word:
		// connections that declared 1 MiB and sent a byte held 1 MiB each
		// for the 30 s a body may take.
		var b bytes.Buffer
		b.Grow(bodyPrealloc)
		_, err = io.CopyN(&b, r.Body, r.ContentLength)
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return b.Bytes(), false, err
	}
	body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, true, nil
	}
	return body, false, err
}

// isJSON accepts application/json with optional parameters.
func isJSON(ct string) bool {
	if ct == "application/json" {
		return true
	}
	if !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return false
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

func writeOutcome(w http.ResponseWriter, out outcome) {
	h := w.Header()
	if out.retryAfter > 0 {
		secs := int64((out.retryAfter + time.Second - 1) / time.Second)
		h.Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	if len(out.body) == 0 {
		w.WriteHeader(out.status)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out.body)))
	w.WriteHeader(out.status)
	_, _ = w.Write(out.body)
}

// NewHTTPServer returns an http.Server for h with timeouts suited to the
// peer server and the control socket. It sets no ReadTimeout, because
// net/http would cancel a handler's context when that deadline passes
// mid-call; Server.ServeHTTP bounds the body read itself. Connection-level
// errors (failed TLS handshakes, e.g. a caller without a certificate) go
// to logger at warn level when it is not nil, at most errorLogBurst lines
// of a kind a minute, then one line counting the rest.
func NewHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		// "OPTIONS *" would otherwise be answered by net/http itself,
		// unauthenticated and unaudited: the handler refuses it as any
		// other request that is no call.
		DisableGeneralOptionsHandler: true,
	}
	if logger != nil {
		srv.ErrorLog = log.New(newErrorLog(logger), "", 0)
	}
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	if s, ok := h.(*Server); ok {
		s.watchUnserved(srv)
	}
	return srv
}

// connKey carries a request's connection in its context (MarkProven).
type connKey struct{}

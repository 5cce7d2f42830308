package rpc

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
)

// net/http answers some requests itself, before any handler runs: a
// malformed request line or header (400), a header over MaxHeaderBytes
// (431), an HTTP version it does not speak (505); and it closes a
// connection whose request was cut off. A known peer could send those
// and leave no trace. watchUnserved counts, per connection, the requests
// net/http began to read and those that reached ServeHTTP; when a
// connection closes with fewer served than begun, the difference is
// refused like any request that was no call: audited for a known caller,
// counted for a stranger, and rate-limited.

// connRequests counts one connection's requests.
type connRequests struct{ begun, served atomic.Int32 }

// connRequestsKey carries a connection's counts in its requests' context.
type connRequestsKey struct{}

// watchUnserved installs the counting hooks on srv, which serves s.
func (s *Server) watchUnserved(srv *http.Server) {
	var conns sync.Map // net.Conn → *connRequests
	connContext := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if connContext != nil {
			ctx = connContext(ctx, c)
		}
		cr := &connRequests{}
		conns.Store(c, cr)
		return context.WithValue(ctx, connRequestsKey{}, cr)
	}
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		v, ok := conns.Load(c)
		if !ok {
			return
		}
		cr := v.(*connRequests)
		switch st {
		case http.StateActive: // net/http read a request's first bytes
			cr.begun.Add(1)
		case http.StateClosed, http.StateHijacked:
			conns.Delete(c)
			if st == http.StateClosed && cr.begun.Load() > cr.served.Load() {
				s.refuseUnserved(c)
			}
		}
	}
}

// countServed notes that a request reached ServeHTTP.
func countServed(r *http.Request) {
	if cr, ok := r.Context().Value(connRequestsKey{}).(*connRequests); ok {
		cr.served.Add(1)
	}
}

// refuseUnserved records a request net/http refused or a client cut off
// on c, which is closed: nothing can be answered, only recorded. The
// caller is identified from the connection as a request on it would be.
func (s *Server) refuseUnserved(c net.Conn) {
	ctx := context.WithValue(context.Background(), connKey{}, c)
	r := (&http.Request{Method: http.MethodPost, URL: &url.URL{Path: Path}, Header: http.Header{}, RemoteAddr: c.RemoteAddr().String()}).WithContext(ctx)
	if tc, ok := c.(*tls.Conn); ok {
		cs := tc.ConnectionState()
		r.TLS = &cs
	}
	caller, ref := s.identify(r)
	if ref == nil {
		caller, ref = s.authenticate(ctx, caller)
	}
	if ref != nil {
		s.refuseWhole(ctx, caller, ref.err, ref.status)
		return
	}
	s.refuseWhole(ctx, caller, InvalidRequest("an HTTP request that never reached aoi: net/http refused it (a malformed request line or header, a header over 64 KiB, an unknown HTTP version) or the client cut it off; send JSON-RPC with POST %s over HTTP/1.1 or HTTP/2", Path), http.StatusBadRequest)
}

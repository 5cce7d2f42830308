package rpc

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkServeRPC measures one request through the whole server stack
// without HTTP: decode, authenticate, rate limit, dispatch, audit, encode.
func BenchmarkServeRPC(b *testing.B) {
	s := specServer(b, Options{
		RatePerSec:   1e9,
		Burst:        1e9,
		Authenticate: func(ctx context.Context, c Caller) (Caller, error) { c.AgentID = "pm-tanaka"; return c, nil },
		Audit:        func(ctx context.Context, rec CallRecord) error { return nil },
	})
	body := []byte(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":1}`)
	caller := Caller{Kind: CallerTLS, Fingerprint: "ab12", Addr: "127.0.0.1:1"}
	b.ReportAllocs()
	for b.Loop() {
		if _, status := s.ServeRPC(context.Background(), body, caller); status != http.StatusOK {
			b.Fatalf("status %d", status)
		}
	}
}

// BenchmarkHTTPRoundTrip measures client → server calls over real mutual
// TLS on loopback, at 8 concurrent callers, next to a bare net/http JSON
// echo on the same kind of connection for comparison.
func BenchmarkHTTPRoundTrip(b *testing.B) {
	server, client := newIdentity(b, "eng-suzuki"), newIdentity(b, "pm-tanaka")
	ct := NewDirectTransport(client, "127.0.0.1:0")
	defer ct.Close()
	hc := ct.HTTPClient(server.Fingerprint)

	b.Run("rpc", func(b *testing.B) {
		peer := startMTLSPeer(b, server, Options{RatePerSec: 1e9, Burst: 1e9})
		c := NewClient(peer.url, hc, ClientOptions{})
		params := map[string]int{"minuend": 42, "subtrahend": 23}
		parallel8(b, func() error {
			var got float64
			return c.Call(context.Background(), "subtract", params, &got)
		})
	})
	b.Run("bare-echo", func(b *testing.B) {
		url := startBareEcho(b, server)
		body := []byte(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":1}`)
		parallel8(b, func() error {
			resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return err
		})
	})
}

// parallel8 runs fn from 8 goroutines (the concurrency).
func parallel8(b *testing.B, fn func() error) {
	b.ReportAllocs()
	b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := fn(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// startBareEcho serves a plain net/http JSON echo over the same mTLS
// listener the peer server uses, as the baseline.
func startBareEcho(b *testing.B, id *Identity) string {
	b.Helper()
	tr := NewDirectTransport(id, "127.0.0.1:0")
	ln, err := tr.Listen(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	srv := NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}), slog.New(slog.DiscardHandler))
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "https://" + tr.Addr() + Path
}

// BenchmarkServeRPCNewCalls is BenchmarkServeRPC with a new id on every
// call, so each one is remembered in the replay cache (and, past its
// bounds, evicts an older one) rather than answered from it.
func BenchmarkServeRPCNewCalls(b *testing.B) {
	s := specServer(b, Options{
		RatePerSec:   1e9,
		Burst:        1e9,
		Authenticate: func(ctx context.Context, c Caller) (Caller, error) { c.AgentID = "pm-tanaka"; return c, nil },
		Audit:        func(ctx context.Context, rec CallRecord) error { return nil },
	})
	caller := Caller{Kind: CallerTLS, Fingerprint: "ab12", Addr: "127.0.0.1:1"}
	body := make([]byte, 0, 128)
	b.ReportAllocs()
	id := 0
	for b.Loop() {
		id++
		body = append(body[:0], `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":`...)
		body = strconv.AppendInt(body, int64(id), 10)
		body = append(body, '}')
		if _, status := s.ServeRPC(context.Background(), body, caller); status != http.StatusOK {
			b.Fatalf("status %d", status)
		}
	}
}

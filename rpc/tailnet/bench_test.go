package tailnet_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"github.com/aoi-protocol/aoi/rpc/tailnet/tailnettest"
)

// BenchmarkRoundTrip compares one JSON-RPC call over the in-process tailnet
// with the same call over plain TCP on loopback (the transport cost only;
// aoi bench measures aoi.query end to end).
func BenchmarkRoundTrip(b *testing.B) {
	tn := tailnettest.Start(b)
	client, server := tn.NewNode(b, "aoi-bench-a"), tn.NewNode(b, "aoi-bench-b")

	b.Run("tailnet", func(b *testing.B) {
		ln, err := server.Listen(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		st, err := server.Status(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		serve(b, ln, server.Identify)
		benchCalls(b, client.HTTPClient(""), client.PeerURL(tailnet.Peer{Addrs: st.Addresses}))
	})
	b.Run("loopback-tcp", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		serve(b, ln, func(r *http.Request) (rpc.Caller, error) {
			return rpc.Caller{Kind: rpc.CallerLocal, Addr: r.RemoteAddr}, nil
		})
		benchCalls(b, &http.Client{Timeout: 10 * time.Second}, "http://"+ln.Addr().String()+rpc.Path)
	})
}

func serve(b *testing.B, ln net.Listener, identify func(*http.Request) (rpc.Caller, error)) {
	srv := rpc.NewServer(rpc.Options{Identify: identify})
	srv.Handle("test.echo", func(_ context.Context, call *rpc.Call) (any, error) { return call.Params, nil })
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
}

// benchCalls makes b.N sequential calls and reports the p99 latency.
func benchCalls(b *testing.B, c *http.Client, url string) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"q":"what is alice working on?"}}`)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		resp, err := c.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n == 0 {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

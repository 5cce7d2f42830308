package rpc_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/aoi-protocol/aoi/rpc"
)

// Example wires a peer server and a client over direct mutual TLS on
// loopback, the way the agent does: identities, a transport, a server
// that maps pinned fingerprints to agents, and a pinned client.
func Example() {
	dir, _ := os.MkdirTemp("", "aoi-example")
	defer os.RemoveAll(dir)
	eng, _, err := rpc.LoadOrCreateIdentity(filepath.Join(dir, "eng"), "eng-suzuki")
	if err != nil {
		log.Fatal(err)
	}
	pm, _, err := rpc.LoadOrCreateIdentity(filepath.Join(dir, "pm"), "pm-tanaka")
	if err != nil {
		log.Fatal(err)
	}
	pinned := map[string]string{pm.Fingerprint: "pm-tanaka"} // from config / `aoi peers trust`

	tr := rpc.NewDirectTransport(eng, "127.0.0.1:0")
	srv := rpc.NewServer(rpc.Options{
		Identify: tr.Identify,
		Authenticate: func(ctx context.Context, c rpc.Caller) (rpc.Caller, error) {
			agent, ok := pinned[c.Fingerprint]
			if !ok {
				return c, rpc.PermissionDenied("certificate "+rpc.FormatFingerprint(c.Fingerprint)+" is not pinned; pin it with `aoi peers trust`", nil)
			}
			c.AgentID = agent
			return c, nil
		},
		RatePerSec: 5,
		Burst:      20,
		Audit: func(ctx context.Context, rec rpc.CallRecord) error {
			return nil // the agent appends rec to the hash-chained audit log here
		},
	})
	srv.Handle("aoi.ping", func(ctx context.Context, call *rpc.Call) (any, error) {
		return map[string]string{"status": "online", "caller": call.Caller.AgentID}, nil
	})
	ln, err := tr.Listen(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	hs := rpc.NewHTTPServer(srv, nil)
	go hs.Serve(ln)
	defer hs.Close()

	client := rpc.NewClient("https://"+tr.Addr()+rpc.Path, rpc.NewDirectTransport(pm, "").HTTPClient(eng.Fingerprint), rpc.ClientOptions{Peer: "eng-suzuki"})
	var pong map[string]string
	if err := client.Call(context.Background(), "aoi.ping", map[string]string{"from": "pm-tanaka"}, &pong); err != nil {
		log.Fatal(err)
	}
	fmt.Println(pong["status"], pong["caller"])
	// Output: online pm-tanaka
}

package rpc

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestNeverHandshakingFloodDoesNotLockOutPeers: the attack run's case —
// one address opens raw TCP connections faster than the per-source cap
// ages (64 slots, 2 s), never sending a ClientHello, so every slot stays
// young; a pinned peer calling from that same address (127.0.0.1 here, as
// behind one NAT), on a new connection for every request, still gets its
// answers. Before the fix almost every one of its connections was closed
// on accept.
func TestNeverHandshakingFloodDoesNotLockOutPeers(t *testing.T) {
	server, friend := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka")
	peer := startMTLSPeer(t, server, Options{Authenticate: func(ctx context.Context, c Caller) (Caller, error) {
		c.AgentID = "pm-tanaka"
		return c, nil
	}})
	addr := peer.tr.Addr()

	// The flood: about 125 connections a second (the attack run needed
	// 35–50), at most 500 of them and 10 s, each kept open and silent.
	const maxFlood = 500
	var opened atomic.Int32
	var flooding atomic.Bool
	flooding.Store(true)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer flooding.Store(false)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		tick := time.NewTicker(8 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(10 * time.Second)
		for len(conns) < maxFlood {
			select {
			case <-stop:
				return
			case <-deadline:
				return
			case <-tick.C:
			}
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				continue
			}
			conns = append(conns, c)
			opened.Add(1)
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	// Wait until the flood has filled the per-source cap, and then some.
	for end := time.Now().Add(10 * time.Second); opened.Load() < DefaultMaxConnsPerSource+16; {
		if time.Now().After(end) || !flooding.Load() {
			t.Fatalf("the flood opened only %d connections", opened.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}

	// The peer: a real mutual-TLS client, a new connection per request.
	rt := NewDirectTransport(friend, "").newRoundTripper(server.Fingerprint)
	rt.DisableKeepAlives = true
	defer rt.CloseIdleConnections()
	client := &http.Client{Transport: rt, Timeout: 5 * time.Second}
	call := func() error {
		resp, err := client.Post(peer.url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"whoami","id":1}`))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"result"`) {
			return fmt.Errorf("%s: %s", resp.Status, b)
		}
		return nil
	}
	const calls = 20
	var during, ok int
	var lastErr error
	for range calls {
		if !flooding.Load() {
			break
		}
		during++
		if err := call(); err != nil {
			lastErr = err
		} else {
			ok++
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !flooding.Load() && during < calls/2 {
		t.Fatalf("the flood ended (%d connections) before %d calls were made; only %d were", opened.Load(), calls/2, during)
	}
	t.Logf("%d of %d calls made during the flood (%d connections) succeeded; last error: %v", ok, during, opened.Load(), lastErr)
	if ok < during*3/4 {
		t.Fatalf("only %d of %d calls from a pinned peer got through a flood of never-handshaking connections from its address (last error: %v)", ok, during, lastErr)
	}
}

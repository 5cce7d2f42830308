package rpc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/internal/backoff"
)

// The client's retries wait on its clock: with a fake one the test moves
// time past each back-off instead of sleeping, and no retry goes out
// before its wait has passed.
func TestClientRetriesWaitOnItsClock(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(flaky(2, http.StatusServiceUnavailable, specServer(t, Options{}), &hits))
	defer ts.Close()
	clk := backoff.NewFake(time.Now())
	c := NewClient(ts.URL+Path, ts.Client(), ClientOptions{BaseBackoff: time.Hour, MaxBackoff: 2 * time.Hour, Clock: clk, Timeout: 24 * time.Hour})
	done := make(chan error, 1)
	var got float64
	go func() { done <- c.Call(context.Background(), "subtract", []int{42, 23}, &got) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for retry := 1; retry <= 2; retry++ {
		if clk.Waiting(ctx) == 0 {
			t.Fatalf("retry %d: the client never waited on its clock", retry)
		}
		if n := hits.Load(); n != int32(retry) {
			t.Fatalf("before back-off %d passed: %d attempts, want %d", retry, n, retry)
		}
		clk.Advance(2 * time.Hour) // past any jittered wait
	}
	select {
	case err := <-done:
		if err != nil || got != 19 || hits.Load() != 3 {
			t.Fatalf("result %v, %v after %d attempts, want 19 after 3", got, err, hits.Load())
		}
	case <-ctx.Done():
		t.Fatal("the call did not finish after its back-offs passed")
	}
}

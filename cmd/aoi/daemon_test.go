package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
)

// TestAttachedClientFollowsDaemonRestart: a front end attached to a real
// `aoi serve` learns at once that the daemon died (kill -9), finds it again
// when it is restarted on the stale socket, and keeps receiving events.
func TestAttachedClientFollowsDaemonRestart(t *testing.T) {
	t.Parallel()
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-suzuki")
	first := startServeProc(t, bin, dir)
	first.waitServing(t, dir)

	c, err := ctlclient.Dial(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, _ := c.Events(ctx, agent.EventsRequest{})
	expectFocusEvent(t, dir, events)

	first.signal(t, syscall.SIGKILL)
	if !first.exited(10 * time.Second) {
		t.Fatal("aoi serve survived SIGKILL")
	}
	nextEvent(t, events, 5*time.Second, agent.EventCoreDisconnected)
	if _, err := os.Stat(agent.SocketPath(dir)); err != nil {
		t.Fatalf("kill -9 should leave the socket file behind for this test to mean anything: %v", err)
	}

	second := startServeProc(t, bin, dir)
	second.waitServing(t, dir)
	nextEvent(t, events, 15*time.Second, agent.EventCoreReconnected)
	expectFocusEvent(t, dir, events)
}

// TestStaleSocketAfterKillNine: the interface started after a daemon was
// killed with SIGKILL starts its own core on the stale socket instead of
// failing or attaching to nothing.
func TestStaleSocketAfterKillNine(t *testing.T) {
	t.Parallel()
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-suzuki")
	daemon := startServeProc(t, bin, dir)
	daemon.waitServing(t, dir)
	daemon.signal(t, syscall.SIGKILL)
	if !daemon.exited(10 * time.Second) {
		t.Fatal("aoi serve survived SIGKILL")
	}
	if _, err := ctlclient.Dial(dir); err == nil {
		t.Fatal("a killed daemon still answers")
	}

	ui := startInterface(t, bin, dir)
	st := ui.waitServing(t, dir)
	ui.waitFor(t, 30*time.Second, "first frame", func() bool { return ui.screenHas("eng-suzuki") })
	if st.StartedAt.IsZero() {
		t.Fatalf("status = %+v", st)
	}
	ui.signal(t, syscall.SIGTERM)
	if !ui.exited(exitBound) {
		t.Fatal("the interface did not stop on SIGTERM")
	}
	released(t, dir, st.ListenAddr)
}

// nextEvent waits up to d for the next event and checks its kind.
func nextEvent(t *testing.T, events <-chan agent.Event, d time.Duration, kind string) {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal(errors.New("event stream closed"))
		}
		if ev.Kind != kind || ev.Seq != 0 {
			t.Fatalf("event %+v, want %s (Seq 0)", ev, kind)
		}
	case <-time.After(d):
		t.Fatalf("no %s within %v", kind, d)
	}
}

// TestInterfaceRefusesADaemonThatDoesNotAnswer: something accepts on the
// control socket but never answers (an orphan stuck shutting down). The
// interface says so within its attach timeout instead of attaching to it.
func TestInterfaceRefusesADaemonThatDoesNotAnswer(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	ln, err := net.Listen("unix", agent.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accept and hold every connection, answer nothing
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	r := runAOI(t, "--data-dir", dir)
	if r.code != exitFailure || !strings.Contains(r.stderr, "did not answer") ||
		!strings.Contains(r.stderr, fmt.Sprintf("(pid %d)", os.Getpid())) {
		t.Fatalf("exit %d, stderr %q; want a refusal naming the silent aoi", r.code, r.stderr)
	}
}

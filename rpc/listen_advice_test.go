package rpc

import (
	"context"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestListenAdviceFitsTheError: a port in use asks whether another aoi
// holds it; an address this machine does not have, or a privileged port,
// gets its own advice instead of the port-in-use guess.
func TestListenAdviceFitsTheError(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, err = NewDirectTransport(newIdentity(t, "eng-a"), taken.Addr().String()).Listen(context.Background())
	if err == nil || !strings.Contains(err.Error(), "already using that port") {
		t.Errorf("listening on a taken port: %v, want the port-in-use advice", err)
	}
	notHere := &net.OpError{Op: "listen", Net: "tcp", Err: os.NewSyscallError("bind", syscall.EADDRNOTAVAIL)}
	if got := listenAdvice(notHere); !strings.Contains(got, "not one of this machine's") {
		t.Errorf("advice for %v = %q", notHere, got)
	}
	if got := listenAdvice(&net.AddrError{Err: "invalid port", Addr: "127.0.0.1:99999"}); strings.Contains(got, "already using") {
		t.Errorf("an invalid port is advised as a taken one: %q", got)
	}
}

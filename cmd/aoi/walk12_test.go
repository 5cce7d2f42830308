package main

import (
	"net"
	"os/exec"
	"strings"
	"testing"
)

// TestInitWithAnyPortSaysWhereThePortIsRead: `aoi init --listen
// 127.0.0.1:0` printed a trust command with `--endpoint 127.0.0.1:0`,
// an endpoint no peer can call (the twelfth walk). It now says that the
// port is chosen at start, where to read it, and how to fix one; and
// `aoi status` of the running agent shows the port it took.
func TestInitWithAnyPortSaysWhereThePortIsRead(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	out, err := exec.Command(bin, "init", "--id", "eng-suzuki", "--listen", "127.0.0.1:0", "--data-dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("aoi init: %v\n%s", err, out)
	}
	id := cli(t, bin, dir, "id")
	for name, got := range map[string]string{"aoi init": string(out), "aoi id": id} {
		if strings.Contains(got, "--endpoint 127.0.0.1:0") {
			t.Errorf("%s prints an endpoint with port 0:\n%s", name, got)
		}
		for _, want := range []string{"chosen when aoi starts", "`aoi status` shows it", "--endpoint 127.0.0.1:PORT", "aoi init --force --listen 127.0.0.1:8444"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, got)
			}
		}
	}

	startServeProc(t, bin, dir).waitServing(t, dir)
	listening := rowOf(cli(t, bin, dir, "status"), "listening")
	fields := strings.Fields(listening)
	if len(fields) < 2 {
		t.Fatalf("aoi status has no listening line: %q", listening)
	}
	if _, port, err := net.SplitHostPort(fields[len(fields)-1]); err != nil || port == "0" {
		t.Errorf("aoi status says %q; want the port aoi took, not 0", listening)
	}
}

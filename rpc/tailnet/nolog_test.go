package tailnet_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"github.com/aoi-protocol/aoi/rpc/tailnet/tailnettest"
	"tailscale.com/envknob"
	"tailscale.com/logtail"
	"tailscale.com/types/logid"
)

// logtailUploads writes log lines through a logtail.Logger (what tsnet
// builds outside tests) aimed at a local log catcher and returns how many
// uploads reached it.
func logtailUploads(t *testing.T) int64 {
	var hits atomic.Int64
	catcher := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body)
	}))
	defer catcher.Close()
	id, err := logid.NewPrivateID()
	if err != nil {
		t.Fatal(err)
	}
	lg := logtail.NewLogger(logtail.Config{
		Collection:   "aoi-test.log.tailscale.io",
		PrivateID:    id,
		BaseURL:      catcher.URL,
		HTTPC:        catcher.Client(),
		Stderr:       io.Discard,
		FlushDelayFn: func() time.Duration { return 0 },
	}, func(string, ...any) {})
	for i := range 10 {
		lg.Logf("secret-free test line %d", i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lg.Shutdown(ctx) // flushes what is buffered
	return hits.Load()
}

// TestNoLogUpload: once a transport exists, tsnet's log uploader sends
// nothing. The control run in a child process (no transport made) shows the
// same logger does upload, so the check can fail.
func TestNoLogUpload(t *testing.T) {
	if os.Getenv("AOI_LOGTAIL_CONTROL") == "1" {
		fmt.Printf("uploads=%d\n", logtailUploads(t))
		return
	}
	out, err := controlRun(t)
	if err != nil {
		t.Fatalf("control run: %v\n%s", err, out)
	}
	if n := uploadsIn(t, out); n == 0 {
		t.Fatalf("control run without a transport uploaded nothing; the check below proves nothing\n%s", out)
	}

	if _, err := tailnet.New(tailnet.Config{Dir: t.TempDir(), Hostname: "aoi-quiet"}); err != nil {
		t.Fatal(err)
	}
	if !envknob.NoLogsNoSupport() {
		t.Error("TS_NO_LOGS_NO_SUPPORT is off after New; the logtail transport and Hostinfo would not opt out")
	}
	if n := logtailUploads(t); n != 0 {
		t.Errorf("logtail uploaded %d times after New; want 0", n)
	}
}

func controlRun(t *testing.T) (string, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoLogUpload$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AOI_LOGTAIL_CONTROL=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func uploadsIn(t *testing.T, out string) int64 {
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "uploads="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no uploads= line in the control run:\n%s", out)
	return 0
}

// testNoLogsHostinfo: the control server learns that the node opted out of
// log uploads.
func testNoLogsHostinfo(t *testing.T, tn *tailnettest.Tailnet, n *tailnet.Transport) {
	st, err := n.Status(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range tn.Control.AllNodes() {
		if string(node.StableID) != st.NodeID {
			continue
		}
		if !node.Hostinfo.NoLogsNoSupport() {
			t.Errorf("node %s told control it uploads logs (Hostinfo.NoLogsNoSupport false)", st.NodeName)
		}
		return
	}
	t.Fatalf("node %s not found at the control server", st.NodeID)
}

package agent_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestMalformedHTTPFromAPeerIsAudited: a pinned peer's request that
// net/http refuses itself (here an unknown HTTP version, 505) never
// reaches aoi's handler; it is still written to the audit log under the
// peer's name, identified by its certificate.
func TestMalformedHTTPFromAPeerIsAudited(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	id, _, err := rpc.LoadOrCreateIdentity(filepath.Join(pm.Dir, "tls"), pm.ID)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", eng.Addr(), &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{id.Certificate},
		InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}) // a test: the server's pin is not what is checked
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "POST /aoi/v1/rpc HTTP/9.9\r\nHost: aoi\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	conn.Close()
	if resp.StatusCode != http.StatusHTTPVersionNotSupported {
		t.Fatalf("status %d, want 505 from net/http", resp.StatusCode)
	}
	ctx := context.Background()
	eventually(t, 5*time.Second, "an audit row for pm-tanaka's malformed request", func() bool {
		rows, err := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka"})
		return err == nil && len(rows) > 0 && strings.Contains(string(rows[0].Detail), "never reached aoi")
	})
}

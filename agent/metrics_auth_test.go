package agent_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/config"
)

// getMetrics asks addr for /metrics with the Authorization header auth
// ("" sends none).
func getMetrics(addr, auth string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return http.DefaultClient.Do(req)
}

// /metrics answered whoever reached its address: another user on the
// machine (or anyone on the network, bound wider) read who calls whom
// and how often. It now asks for the bearer token aoi keeps in its data
// dir, readable by the owner alone.
func TestMetricsAskForTheBearerToken(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) { c.Metrics.ListenAddr = "127.0.0.1:0" })
	eventually(t, 5*time.Second, "metrics endpoint", func() bool { return eng.MetricsAddr() != "" })
	path := agent.MetricsTokenPath(eng.Dir)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no token file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, fi.Mode().Perm())
	}
	token, err := os.ReadFile(path)
	if err != nil || len(token) < 16 {
		t.Fatalf("token %q: %v", token, err)
	}
	for name, auth := range map[string]string{
		"none":          "",
		"wrong token":   "Bearer " + strings.Repeat("A", len(token)),
		"token as user": "Basic " + string(token),
		"token prefix":  "Bearer " + string(token[:len(token)-1]),
	} {
		resp, err := getMetrics(eng.MetricsAddr(), auth)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), "aoi_") {
			t.Errorf("%s: %s\n%s\nwant 401 and no metrics", name, resp.Status, body)
		}
	}
	resp, err := getMetrics(eng.MetricsAddr(), "bearer "+string(token))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the scheme in lower case: %s, want 200 (HTTP schemes ignore case)", resp.Status)
	}
	if _, found := value(scrape(t, eng), "aoi_peers_online", nil); !found {
		t.Error("with the token, /metrics lacks aoi_peers_online")
	}
}

// A token file others may read is not used: whoever reads it scrapes.
func TestMetricsRefuseATokenOthersCanRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(agent.MetricsTokenPath(dir), []byte("shared-token"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(agent.MetricsTokenPath(dir), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := agenttest.Start(t, "eng-suzuki", agenttest.Options{Role: "engineer", Dir: dir,
		Edit: func(c *config.Config) { c.Metrics.ListenAddr = "127.0.0.1:0" }})
	eventually(t, 10*time.Second, "the log's refusal of the token file", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "aoi.log"))
		return strings.Contains(string(b), "chmod 600")
	})
	if addr := eng.MetricsAddr(); addr != "" {
		t.Fatalf("/metrics serves on %s with a token file others can read", addr)
	}
}

package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// engConfig gives the engineer one repository with a forbidden folder and
// lets PMs read the rest.
func engConfig(c *config.Config) {
	c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
	c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "pm-read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"},
		{ID: "no-secrets", AgentID: "*", ScopeType: "folder", ScopePattern: "acme/webapp/secrets/**", Permission: "none"},
	}}
}

// threeAgents starts eng, pm and qa on loopback, all pinned to each other
// and announced.
func threeAgents(t *testing.T) (eng, pm, qa *testAgent) {
	eng = newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	pm = newTestAgent(t, "pm-tanaka", "pm", nil)
	qa = newTestAgent(t, "qa-sato", "qa", nil)
	pair(eng, pm)
	pair(eng, qa)
	pair(pm, qa)
	ctx := context.Background()
	for _, a := range []*testAgent{eng, pm, qa} {
		if _, err := a.Discover(ctx); err != nil {
			t.Fatalf("%s discover: %v", a.ID, err)
		}
	}
	return eng, pm, qa
}

func TestThreeAgentsEndToEnd(t *testing.T) {
	eng, pm, qa := threeAgents(t)
	ctx := context.Background()

	t.Run("discover", func(t *testing.T) {
		peers, err := pm.Peers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]agent.Peer{}
		for _, p := range peers {
			got[p.AgentID] = p
		}
		if p := got["eng-suzuki"]; p.Status != agent.PeerOnline || p.Role != "engineer" || len(p.Contexts) != 1 {
			t.Fatalf("pm sees eng as %+v, want online engineer with one context", p)
		}
		if p := got["qa-sato"]; p.Status != agent.PeerOnline || p.Role != "qa" {
			t.Fatalf("pm sees qa as %+v", p)
		}
	})

	t.Run("query answered by the owner arrives as notify", func(t *testing.T) {
		res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "認証機能の進捗とブロック要因は？", ContextScope: []string{"acme/webapp"}})
		if err != nil {
			t.Fatal(err)
		}
		var qr wire.QueryResult
		if err := json.Unmarshal(res.Result, &qr); err != nil {
			t.Fatal(err)
		}
		if qr.Completed {
			t.Fatalf("without a secretary the query must wait for the owner, got %+v", qr)
		}
		qid, _ := qr.Metadata["query_id"].(string)
		inbox, err := eng.Queries(ctx, agent.QueryFilter{})
		if err != nil || len(inbox) == 0 || inbox[0].ID != qid || inbox[0].From != "pm-tanaka" {
			t.Fatalf("eng inbox = %+v, %v; want query %s from pm-tanaka", inbox, err, qid)
		}
		if inbox[0].AskerID != res.QueryID {
			t.Errorf("the received question's asker id = %q, want the id the asker knows it by, %q", inbox[0].AskerID, res.QueryID)
		}
		if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: qid, Text: "JWT done, refresh tokens 75%, blocked on Redis config"}); err != nil {
			t.Fatal(err)
		}
		msg := waitMessage(t, pm, res.QueryID)
		if msg.Event != wire.EventQueryCompleted || !strings.Contains(string(msg.Data), "Redis config") {
			t.Fatalf("pm got %+v", msg)
		}
		if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: qid, Text: "again"}); err == nil {
			t.Fatal("answering an answered query twice must fail")
		}
	})

	t.Run("acl checks every scope entry", func(t *testing.T) {
		_, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "keys?", ContextScope: []string{"acme/webapp", "acme/webapp/secrets/prod.env"}})
		rpcErr := asRPC(t, err, rpc.CodePermissionDenied)
		if !strings.Contains(rpcErr.Error(), "secrets") {
			t.Fatalf("denial should name the forbidden entry: %v", rpcErr)
		}
		_, err = qa.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "status?", ContextScope: []string{"acme/webapp"}})
		asRPC(t, err, rpc.CodePermissionDenied) // qa has no rule: default none
	})

	t.Run("impersonation refused and audited", func(t *testing.T) {
		client := rawClient(t, qa, eng)
		err := client.Call(ctx, wire.MethodQuery, wire.QueryParams{From: "pm-tanaka", To: "eng-suzuki", Query: "hi", ContextScope: []string{}}, new(json.RawMessage))
		asRPC(t, err, rpc.CodePermissionDenied)
		rows, err := eng.Audit(ctx, agent.AuditFilter{Agent: "qa-sato", Method: wire.MethodQuery})
		if err != nil || len(rows) == 0 || !strings.Contains(string(rows[0].Detail), "impersonation") {
			t.Fatalf("audit rows = %+v, %v; want an impersonation row", rows, err)
		}
	})

	t.Run("unpinned certificate refused and offered for trust", func(t *testing.T) {
		stranger, _, err := rpc.LoadOrCreateIdentity(filepath.Join(t.TempDir(), "tls"), "stranger")
		if err != nil {
			t.Fatal(err)
		}
		tr := rpc.NewDirectTransport(stranger, "127.0.0.1:0")
		client := rpc.NewClient("https://"+eng.Addr()+"/aoi/v1/rpc", tr.HTTPClient(eng.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
		err = client.Call(ctx, wire.MethodPing, wire.PingParams{From: "stranger"}, new(json.RawMessage))
		asRPC(t, err, rpc.CodePermissionDenied)
		peers, _ := eng.Peers(ctx)
		found := false
		for _, p := range peers {
			found = found || (p.Trust == agent.TrustPending && p.Fingerprint == stranger.Fingerprint)
		}
		if !found {
			t.Fatalf("eng should list the stranger as a pending trust request: %+v", peers)
		}
	})

	t.Run("audit chain verifies", func(t *testing.T) {
		v, err := eng.VerifyAudit(ctx)
		if err != nil || !v.OK || v.Entries < 5 {
			t.Fatalf("verify = %+v, %v", v, err)
		}
	})
}

func TestRateLimitHitAndRecovered(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Limits.RatePerSec, c.Limits.Burst = 5, 3
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	client := rawClient(t, pm, eng)
	var limited error
	for i := 0; i < 10 && limited == nil; i++ {
		err := client.Call(ctx, wire.MethodPing, wire.PingParams{From: "pm-tanaka"}, new(json.RawMessage))
		var e *rpc.Error
		if errors.As(err, &e) && e.Code == rpc.CodeRateLimit {
			limited = e
		}
	}
	if limited == nil {
		t.Fatal("10 pings at burst 3 were never rate limited")
	}
	if ra := limited.(*rpc.Error).RetryAfter(); ra <= 0 || ra > time.Second {
		t.Fatalf("retry-after hint = %v, want (0, 1s]", ra)
	}
	// Honouring the hint, the caller gets through again within a second.
	wait := limited.(*rpc.Error).RetryAfter()
	for deadline := time.Now().Add(time.Second); ; {
		time.Sleep(wait + 20*time.Millisecond)
		err := client.Call(ctx, wire.MethodPing, wire.PingParams{From: "pm-tanaka"}, new(json.RawMessage))
		if err == nil {
			break
		}
		var e *rpc.Error
		if !errors.As(err, &e) || e.Code != rpc.CodeRateLimit || time.Now().After(deadline) {
			t.Fatalf("after honouring retry-after hints for 1s the call should pass: %v", err)
		}
		wait = e.RetryAfter()
	}
}

func TestBodyLimitBatchAndNotification(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) { c.Network.MaxBodyBytes = 64 << 10 })
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	hc := pmTransport(t, pm).HTTPClient(eng.Fingerprint())
	url := "https://" + eng.Addr() + "/aoi/v1/rpc"

	big := `{"jsonrpc":"2.0","id":1,"method":"aoi.ping","params":{"from":"pm-tanaka","pad":"` + strings.Repeat("x", 70<<10) + `"}}`
	status, body := post(t, hc, url, big)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "-32600") {
		t.Fatalf("oversized body: %d %s", status, body)
	}

	batch := `[{"jsonrpc":"2.0","id":"a","method":"aoi.ping","params":{"from":"pm-tanaka","aoi_version":"1.0"}},` +
		`{"jsonrpc":"2.0","method":"aoi.ping","params":{"from":"pm-tanaka"}},` +
		`{"jsonrpc":"2.0","id":2,"method":"aoi.nope"}]`
	status, body = post(t, hc, url, batch)
	var resps []map[string]any
	if err := json.Unmarshal([]byte(body), &resps); err != nil || status != 200 || len(resps) != 2 {
		t.Fatalf("batch: %d %s (%v); want two responses, the notification omitted", status, body, err)
	}
	if resps[0]["id"] != "a" || resps[1]["error"].(map[string]any)["code"].(float64) != -32601 {
		t.Fatalf("batch responses = %v", resps)
	}

	status, body = post(t, hc, url, `{"jsonrpc":"2.0","method":"aoi.ping","params":{"from":"pm-tanaka"}}`)
	if status != http.StatusNoContent || body != "" {
		t.Fatalf("notification: %d %q, want 204 and no body", status, body)
	}
}

func TestOutboxDeliversExactlyOnceAfterPeerReturns(t *testing.T) {
	clk := backoff.NewFake(time.Now()) // eng's outbox waits its back-off on this clock
	eng := agenttest.Start(t, "eng-suzuki", agenttest.Options{Role: "engineer", Clock: clk})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "progress?"})
	if err != nil {
		t.Fatal(err)
	}
	qs, _ := eng.Queries(ctx, agent.QueryFilter{})
	pmAddr := pm.Addr()
	pm.Stop() // the PM goes offline
	evctx, stopEvents := context.WithCancel(ctx)
	defer stopEvents()
	events, err := eng.Events(evctx, agent.EventsRequest{AfterSeq: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: qs[0].ID, Text: "75%"}); err != nil {
		t.Fatalf("answering while the asker is offline must queue, not fail: %v", err)
	}
	// The owner is told it waits (the walk's interface said only "answer
	// sent"), once, at the first failed try.
	waits := 0
	timeout := time.After(10 * time.Second)
	for waits == 0 {
		select {
		case ev := <-events:
			if ev.Kind == agent.EventAttention && strings.Contains(ev.Summary, "the answer to pm-tanaka waits: pm-tanaka is unreachable") {
				waits++
			}
		case <-timeout:
			t.Fatal("no notice that the answer waits")
		}
	}
	// The query says so too, until the answer goes.
	undelivered := func() bool {
		qs, err := eng.Queries(ctx, agent.QueryFilter{})
		if err != nil || len(qs) != 1 {
			t.Fatalf("queries %v, %v", qs, err)
		}
		return qs[0].Undelivered
	}
	if !undelivered() {
		t.Fatal("the answered query does not say its answer waits")
	}
	pending := func() []store.OutboxRecord {
		recs, err := eng.DB().OutboxForAgent(ctx, "pm-tanaka")
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	// advanceUntil moves eng's clock 50 ms (the first back-off) at a time
	// until cond holds: a retry happens only when its back-off has passed
	// on the clock.
	advanceUntil := func(what string, cond func() bool) {
		t.Helper()
		eventually(t, 10*time.Second, what, func() bool {
			if cond() {
				return true
			}
			clk.Advance(50 * time.Millisecond)
			return false
		})
	}
	// Several failed attempts at the 50–200 ms back-off.
	advanceUntil("three failed delivery attempts", func() bool { r := pending(); return len(r) == 1 && r[0].Attempts >= 3 })
	entry := pending()[0]
	if entry.LastError == "" || !entry.NextAttemptAt.After(clk.Now()) {
		t.Fatalf("a failed attempt must record why and wait its back-off: %+v (clock %v)", entry, clk.Now())
	}
	eng.Restart(nil) // the outbox survives a restart of the sender too
	pm.Restart(func(c *config.Config) { c.Network.ListenAddr = pmAddr })
	var msg agent.Message
	advanceUntil("the answer delivered after the PM came back", func() bool {
		msgs, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.RelatedID == res.QueryID {
				msg = m
				return true
			}
		}
		return false
	})
	if !strings.Contains(string(msg.Data), "75%") {
		t.Fatalf("message = %s", msg.Data)
	}
	// The PM holds the message once it has stored it, a moment before its
	// answer reaches eng and eng marks the entry delivered.
	eventually(t, 10*time.Second, "the query no longer says its answer waits once it was delivered", func() bool { return !undelivered() })
	// Delivered once: the entry is marked delivered, so no later round
	// sends it again, and the PM holds one message.
	got, ok, err := eng.DB().Outbox(ctx, entry.ID)
	if err != nil || !ok || got.State != store.OutboxDelivered {
		t.Fatalf("outbox entry after delivery: %+v, %v, %v; want delivered", got, ok, err)
	}
	clk.Advance(time.Hour)
	all, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
	if err != nil || len(all) != 1 {
		t.Fatalf("pm has %d messages (%v), want exactly one", len(all), err)
	}
}

// waitMessage waits until a's inbox has the answer to request id.
func waitMessage(t *testing.T, a *testAgent, requestID string) agent.Message {
	t.Helper()
	var found agent.Message
	eventually(t, 10*time.Second, "answer to "+requestID, func() bool {
		msgs, err := a.Messages(context.Background(), agent.MessagesRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.RelatedID == requestID {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// asRPC asserts err is a JSON-RPC error with the code.
func asRPC(t *testing.T, err error, code int) *rpc.Error {
	t.Helper()
	var e *rpc.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("err = %v, want JSON-RPC code %d", err, code)
	}
	return e
}

// pmTransport is a direct transport with the agent's own certificate, the
// way its core dials.
func pmTransport(t *testing.T, from *testAgent) *rpc.DirectTransport {
	id, _, err := rpc.LoadOrCreateIdentity(filepath.Join(from.Dir, "tls"), from.ID)
	if err != nil {
		t.Fatal(err)
	}
	return rpc.NewDirectTransport(id, "127.0.0.1:0")
}

// rawClient calls to's peer server with from's certificate, bypassing from's
// core (to send what a misbehaving peer would).
func rawClient(t *testing.T, from, to *testAgent) *rpc.Client {
	return rpc.NewClient("https://"+to.Addr()+"/aoi/v1/rpc", pmTransport(t, from).HTTPClient(to.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
}

func post(t *testing.T, hc *http.Client, url, body string) (int, string) {
	t.Helper()
	resp, err := hc.Post(url, "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestBadConfigStartsNothing: a config error is reported with its JSON path
// and no database, socket or listener is created.
func TestBadConfigStartsNothing(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.json")
	bad := `{"version":"1.0","agent":{"id":"eng-x","role":"engineer"},"acl":{"default_permission":"reed","rules":[]}}`
	if err := os.WriteFile(cfgPath, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := agent.Open(context.Background(), agent.Options{DataDir: filepath.Join(dir, "data"), ConfigPath: cfgPath})
	if err == nil || !strings.Contains(err.Error(), "/acl/default_permission") {
		t.Fatalf("err = %v, want one naming /acl/default_permission", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Fatalf("a bad config must not create the data dir (stat: %v)", err)
	}
}

// TestBodyBytesBudgetAndReload: a peer that sends more request bytes a
// second than limits.body_bytes_per_sec is refused with RATE_LIMIT before
// its body is redacted; a reload that raises the budget lets it in.
func TestBodyBytesBudgetAndReload(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Network.MaxBodyBytes, c.Limits.BodyBytesPerSec = 8<<10, 100
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	hc := pmTransport(t, pm).HTTPClient(eng.Fingerprint())
	url := "https://" + eng.Addr() + "/aoi/v1/rpc"
	ping := func(id int) (int, string) {
		return post(t, hc, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"aoi.ping","params":{"from":"pm-tanaka","pad":"%s"}}`, id, strings.Repeat("x", 5<<10)))
	}
	if status, body := ping(1); status != http.StatusOK {
		t.Fatalf("first 5 KiB ping: %d %s", status, body)
	}
	status, body := ping(2)
	if status != http.StatusTooManyRequests || !strings.Contains(body, "request bytes a second") {
		t.Fatalf("second 5 KiB ping within the second: %d %s, want 429 over the byte budget", status, body)
	}
	eng.EditConfig(func(c *config.Config) { c.Limits.BodyBytesPerSec = 1 << 20 })
	if _, err := eng.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the raised rate refills the bucket
	if status, body := ping(3); status != http.StatusOK {
		t.Fatalf("after the reload raised the budget: %d %s", status, body)
	}
}

package tailnete2e

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"github.com/aoi-protocol/aoi/rpc/tailnet/tailnettest"
)

func TestMain(m *testing.M) { tailnettest.Main(m) }

// engConfig gives the engineer one repository PMs may read.
func engConfig(c *config.Config) {
	c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
	c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
		{ID: "pm-read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"},
	}}
	// Roles come from the owner (design §4): pm-tanaka is a pm because the
	// config says so, whatever its node announces.
	c.Peers = append(c.Peers, config.Peer{AgentID: "pm-tanaka", Role: "pm"})
}

func TestThreeCoresOnATailnet(t *testing.T) {
	tn := tailnettest.Start(t)
	eng := newNode(t, tn, "eng-suzuki", "engineer", engConfig)
	pm := newNode(t, tn, "pm-tanaka", "pm", nil)
	qa := newNode(t, tn, "qa-sato", "qa", nil)
	tailnettest.AwaitMesh(t, eng.tr, pm.tr, qa.tr)
	ctx := context.Background()

	t.Run("discovery finds every agent by itself", func(t *testing.T) {
		for _, n := range []*node{eng, pm, qa} {
			if _, err := n.Discover(ctx); err != nil {
				t.Fatalf("%s discover: %v", n.ID, err)
			}
		}
		for _, n := range []*node{eng, pm, qa} {
			assertSees(t, n, eng, pm, qa)
		}
	})

	t.Run("query and answer flow over the tailnet", func(t *testing.T) {
		res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "認証機能の進捗は？", ContextScope: []string{"acme/webapp"}})
		if err != nil {
			t.Fatal(err)
		}
		var qr wire.QueryResult
		if err := json.Unmarshal(res.Result, &qr); err != nil {
			t.Fatal(err)
		}
		qid, _ := qr.Metadata["query_id"].(string)
		inbox, err := eng.Queries(ctx, agent.QueryFilter{})
		if err != nil || len(inbox) == 0 || inbox[0].ID != qid || inbox[0].From != "pm-tanaka" {
			t.Fatalf("eng inbox = %+v, %v; want query %s from pm-tanaka", inbox, err, qid)
		}
		if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: qid, Text: "JWT done, blocked on Redis config"}); err != nil {
			t.Fatal(err)
		}
		msg := waitMessage(t, pm, res.QueryID)
		if msg.Event != wire.EventQueryCompleted || !strings.Contains(string(msg.Data), "Redis config") {
			t.Fatalf("pm got %+v", msg)
		}
		rows, err := eng.Audit(ctx, agent.AuditFilter{Method: wire.MethodQuery})
		if err != nil || len(rows) == 0 || rows[0].Agent != "pm-tanaka" {
			t.Fatalf("eng's audit rows for aoi.query = %+v, %v; want one naming pm-tanaka", rows, err)
		}
	})

	t.Run("another node announcing as pm-tanaka is refused", func(t *testing.T) {
		mallory := tn.NewNode(t, tailnet.Hostname("mallory"))
		tailnettest.AwaitMesh(t, eng.tr, mallory)
		st, err := eng.tr.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		url := mallory.EndpointURL(net.JoinHostPort(st.Addresses[0], strconv.Itoa(eng.tr.Port())))
		client := rpc.NewClient(url, mallory.HTTPClient(""), rpc.ClientOptions{Timeout: 10 * time.Second})
		params := wire.DiscoverParams{AgentID: "pm-tanaka", Role: "pm", Announce: true, Endpoint: "x:" + strconv.Itoa(mallory.Port()), AOIVersion: wire.ProtocolVersion}
		err = client.Call(ctx, wire.MethodDiscover, params, nil)
		var rpcErr *rpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != rpc.CodePermissionDenied {
			t.Fatalf("impersonating announce: %v, want PERMISSION_DENIED", err)
		}
		rows, err := eng.Audit(ctx, agent.AuditFilter{Result: "PERMISSION_DENIED"})
		if err != nil || len(rows) == 0 || !strings.Contains(string(rows[0].Detail), "impersonation") {
			t.Fatalf("eng audit = %+v, %v; want an impersonation refusal", rows, err)
		}
		assertSees(t, eng, eng, pm, qa) // pm-tanaka is still pm's node
	})
}

// assertSees checks that n's registry has every other agent online, bound to
// its own tailnet node.
func assertSees(t *testing.T, n *node, all ...*node) {
	t.Helper()
	peers, err := n.Peers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]agent.Peer{}
	for _, p := range peers {
		got[p.AgentID] = p
	}
	for _, o := range all {
		if o == n {
			continue
		}
		p := got[o.ID]
		if p.Status != agent.PeerOnline || p.Trust != agent.TrustPinned {
			t.Errorf("%s sees %s as %+v, want online and pinned", n.ID, o.ID, p)
		}
		st, err := o.tr.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p.Endpoint, st.Addresses[0]+":") {
			t.Errorf("%s has %s at %q, want its tailnet address %s", n.ID, o.ID, p.Endpoint, st.Addresses[0])
		}
	}
}

// waitMessage waits until n's inbox has the answer to requestID.
func waitMessage(t *testing.T, n *node, requestID string) agent.Message {
	t.Helper()
	var found agent.Message
	eventually(t, 15*time.Second, "answer to "+requestID, func() bool {
		msgs, err := n.Messages(context.Background(), agent.MessagesRequest{Limit: 100})
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

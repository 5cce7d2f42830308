package tailnet_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"github.com/aoi-protocol/aoi/rpc/tailnet/tailnettest"
	"tailscale.com/tstest/integration/testcontrol"
)

func testBadAuthKey(t *testing.T, tn *tailnettest.Tailnet) {
	ctl := tn.NewControl(t, func(s *testcontrol.Server) { s.RequireAuthKey = "tskey-good" })
	err := joinErr(t, tn, ctl.HTTPTestServer.URL, "tskey-bad")
	if !errors.Is(err, tailnet.ErrAuthKey) || !strings.Contains(err.Error(), "TS_AUTHKEY") {
		t.Fatalf("Up with a bad key: %v; want ErrAuthKey saying to set TS_AUTHKEY", err)
	}
	t.Logf("bad key: %v", err)
	if err := joinErr(t, tn, ctl.HTTPTestServer.URL, "tskey-good"); err != nil {
		t.Fatalf("Up with the right key: %v", err)
	}
}

func testNeedsApproval(t *testing.T, tn *tailnettest.Tailnet) {
	ctl := tn.NewControl(t, func(s *testcontrol.Server) { s.RequireMachineAuth = true })
	err := joinErr(t, tn, ctl.HTTPTestServer.URL, "tskey-any")
	if !errors.Is(err, tailnet.ErrNeedsApproval) || !strings.Contains(err.Error(), "admin") {
		t.Fatalf("Up on a tailnet that needs approval: %v; want ErrNeedsApproval", err)
	}
	t.Logf("needs approval: %v", err)
}

func testNeedsLogin(t *testing.T, tn *tailnettest.Tailnet) {
	ctl := tn.NewControl(t, func(s *testcontrol.Server) { s.RequireAuth = true })
	err := joinErr(t, tn, ctl.HTTPTestServer.URL, "")
	if !errors.Is(err, tailnet.ErrNeedsLogin) || !strings.Contains(err.Error(), ctl.HTTPTestServer.URL+"/auth/") {
		t.Fatalf("Up without a key on a tailnet that needs login: %v; want ErrNeedsLogin with the auth URL", err)
	}
	t.Logf("needs login: %v", err)
}

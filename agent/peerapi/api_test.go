package peerapi

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

func newAPI(t *testing.T) *API {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "aoi.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := &config.Config{}
	cfg.Agent.ID = "eng-suzuki"
	return &API{DB: db, Config: func() *config.Config { return cfg }, Log: slog.New(slog.DiscardHandler)}
}

// The route table serves every aoi.* method but aoi.message, which the
// core adds.
func TestRoutesServeThePeerMethods(t *testing.T) {
	var got []string
	for m := range newAPI(t).Routes() {
		got = append(got, m)
	}
	slices.Sort(got)
	want := []string{wire.MethodDiscover, wire.MethodNotify, wire.MethodPing, wire.MethodQuery,
		wire.MethodTaskCancel, wire.MethodTaskExecute, wire.MethodTaskStatus}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("routes = %v, want %v", got, want)
	}
}

// A request whose from is not the authenticated caller is refused as
// ErrDenied and audited as an impersonation; one addressed to another
// agent is ErrUnknownPeer; the caller speaking for itself passes.
func TestCheckFromRefusesImpersonationAndAuditsIt(t *testing.T) {
	a := newAPI(t)
	ctx := context.Background()
	call := &rpc.Call{Method: wire.MethodPing, Caller: rpc.Caller{AgentID: "pm-tanaka"}}
	err := a.CheckFrom(ctx, call, "lead-sato", "")
	var de *errs.Error
	if !errors.Is(err, errs.ErrDenied) || !errors.As(err, &de) || de.Data["claimed_from"] != "lead-sato" ||
		!strings.Contains(err.Error(), `authenticated as "pm-tanaka"`) {
		t.Fatalf("impersonation: %v, want ErrDenied naming both", err)
	}
	if !call.Audited() {
		t.Fatal("the refusal was not marked audited")
	}
	rows, err := a.DB.AuditList(ctx, store.AuditQuery{Limit: 10})
	if err != nil || len(rows) != 1 || rows[0].Agent != "pm-tanaka" || rows[0].Method != wire.MethodPing ||
		rows[0].Result != "PERMISSION_DENIED" || !strings.Contains(string(rows[0].Detail), `"impersonation"`) {
		t.Fatalf("audit rows = %+v, %v", rows, err)
	}
	if err := a.CheckFrom(ctx, call, "pm-tanaka", "eng-other"); !errors.Is(err, errs.ErrUnknownPeer) || errs.Agent(err) != "eng-other" {
		t.Fatalf("addressed to another agent: %v, want ErrUnknownPeer", err)
	}
	if err := a.CheckFrom(ctx, call, "pm-tanaka", "eng-suzuki"); err != nil {
		t.Fatalf("the caller speaking for itself: %v", err)
	}
}

// TestSyncTaskWaitIsBounded: a synchronous aoi.task.execute waits the
// timeout it asks for, 30 s when it asks none, and never more than 300 s,
// whatever it asks (a day would hold a connection and a handler open).
func TestSyncTaskWaitIsBounded(t *testing.T) {
	for asked, want := range map[int]int{0: 30, -5: 30, 10: 10, 300: 300, 301: 300, 86400: 300} {
		if got := syncWaitSec(asked); got != want {
			t.Errorf("syncWaitSec(%d) = %d, want %d", asked, got, want)
		}
	}
}

// TestPathParamScopesTakeTheValueGiven: a path parameter given as a JSON
// number is judged as that value, not as the default the task would not
// use (the re-check's dir:2024 was checked as docs); empty or "." is the
// whole context.
func TestPathParamScopesTakeTheValueGiven(t *testing.T) {
	tt := config.TaskType{Context: "acme/webapp", Params: map[string]config.Param{"dir": {Type: config.ParamTypePath, Default: "docs"}}}
	for _, c := range []struct {
		given any
		want  string
	}{{float64(2024), "acme/webapp/2024"}, {"src", "acme/webapp/src"}, {nil, "acme/webapp/docs"}, {".", "acme/webapp"}} {
		params := map[string]any{}
		if c.given != nil {
			params["dir"] = c.given
		}
		if got := pathParamScopes(tt, params); len(got) != 1 || got[0] != c.want {
			t.Errorf("dir=%v: scopes %q, want %s", c.given, got, c.want)
		}
	}
}

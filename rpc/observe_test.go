package rpc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// observations collects what the observe hook sees.
type observations struct {
	mu  sync.Mutex
	obs []Observation
}

func (o *observations) hook(ctx context.Context, ob Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.obs = append(o.obs, ob)
}

func (o *observations) all() []Observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Observation(nil), o.obs...)
}

// Every call is observed once, whether the server or the handler audits
// it, with its code and the handler's ACL decision as a typed outcome.
func TestObserveEveryCall(t *testing.T) {
	audit, seen := &auditLog{}, &observations{}
	s := specServer(t, Options{Audit: audit.hook, Observe: seen.hook})
	s.Handle("self_audited", func(ctx context.Context, c *Call) (any, error) {
		c.MarkAudited()
		c.RecordACL(true)
		return "ok", nil
	})
	s.Handle("guarded", func(ctx context.Context, c *Call) (any, error) {
		c.RecordACL(false)
		return nil, PermissionDenied("not for you", nil)
	})
	s.Handle("broken", func(ctx context.Context, c *Call) (any, error) { return nil, errors.New("boom") })
	body := `[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1},
		{"jsonrpc":"2.0","method":"update","params":[1]},
		{"jsonrpc":"2.0","method":"nope","id":2},
		{"jsonrpc":"2.0","method":"self_audited","id":3},
		{"jsonrpc":"2.0","method":"guarded","id":4},
		{"jsonrpc":"2.0","method":"broken","id":5}]`
	s.ServeRPC(context.Background(), []byte(body), Caller{Kind: "test", AgentID: "pm"})
	obs := seen.all()
	want := []struct {
		method string
		code   int
		acl    ACLOutcome
	}{
		{"sum", 0, ACLNone}, {"update", 0, ACLNone}, {"nope", CodeMethodNotFound, ACLNone},
		{"self_audited", 0, ACLAllowed}, {"guarded", CodePermissionDenied, ACLDenied},
		{"broken", CodeInternalError, ACLNone},
	}
	if len(obs) != len(want) {
		t.Fatalf("observed %d calls, want %d: %+v", len(obs), len(want), obs)
	}
	for i, w := range want {
		o := obs[i]
		if o.Method != w.method || o.Code() != w.code || o.ACL != w.acl || o.Caller.AgentID != "pm" || o.Suppressed {
			t.Errorf("observation %d = %+v (code %d), want %+v", i, o, o.Code(), w)
		}
	}
	if !obs[1].Notification || string(obs[0].ID) != "1" || obs[0].Duration <= 0 {
		t.Errorf("notification flag, id or duration missing: %+v", obs[:2])
	}
	if n := len(audit.all()); n != 5 {
		t.Errorf("audited %d calls, want 5 (the self-audited one is the handler's)", n)
	}
}

// Refusals before dispatch are observed too; a stranger's refusal that the
// audit log folds into a counted row is observed as Suppressed.
func TestObserveRefusals(t *testing.T) {
	audit, seen := &auditLog{}, &observations{}
	s := specServer(t, Options{
		Identify: func(r *http.Request) (Caller, error) {
			return Caller{Kind: "test", Fingerprint: r.Header.Get("X-Test-Who"), Addr: "127.0.0.1:9"}, nil
		},
		Authenticate: func(ctx context.Context, c Caller) (Caller, error) {
			return c, PermissionDenied("not pinned", nil)
		},
		Audit: audit.hook, Observe: seen.hook,
	})
	ts := httptest.NewServer(s)
	defer ts.Close()
	for _, who := range []string{"a", "b"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+Path, strings.NewReader(`{"jsonrpc":"2.0","method":"sum","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Test-Who", who)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	obs := seen.all()
	if len(obs) != 2 || obs[0].Code() != CodePermissionDenied || obs[0].Method != "" || obs[0].Suppressed || !obs[1].Suppressed {
		t.Fatalf("want two refusals observed, the second suppressed: %+v", obs)
	}
	if n := len(audit.all()); n != 1 {
		t.Fatalf("audited %d refusals, want 1", n)
	}
}

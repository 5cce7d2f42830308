package agent_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/rpc"
)

// olderInbox is ctl.inbox as an aoi built before a filter's newer options
// answered it: it reads the options it knows, and answers a page with no
// word of the others. echo, when set, is the filter it says it applied.
func olderInbox(echo map[string]any) rpc.Handler {
	return func(_ context.Context, call *rpc.Call) (any, error) {
		var known struct {
			AfterSeq int64  `json:"last_id"`
			ThreadID string `json:"thread_id"`
			Limit    int    `json:"limit"`
		}
		if err := call.Bind(&known); err != nil {
			return nil, err
		}
		page := map[string]any{"messages": []any{map[string]any{"seq": 1, "from": "pm-tanaka", "event": "note", "type": "note"}}, "last_id": 1, "more": false}
		if echo != nil {
			page["applied"] = echo
		}
		return page, nil
	}
}

// TestInboxFromAnOlderAgentSaysWhatItIgnored: a newer CLI or `aoi mcp`
// asking a running aoi started before --after m-… and include_sent
// existed got the conversation from its start, without the messages it
// sent, and showed it as if it were right (the thirteenth walk). The
// control client now tells from the answer which options the running aoi
// did not apply and says so, over a real control socket.
func TestInboxFromAnOlderAgentSaysWhatItIgnored(t *testing.T) {
	conversation := agent.InboxFilter{ThreadID: "m-1", WithSent: true, AfterMessage: "m-2", Limit: 2}
	for _, tc := range []struct {
		name string
		echo map[string]any // nil: the aoi echoes nothing
		f    agent.InboxFilter
		want []string // nil: no error
	}{
		{"no echo, newer options", nil, conversation, []string{"with_sent", "after_message_id"}},
		{"no echo, options it knew", nil, agent.InboxFilter{ThreadID: "m-1", AfterSeq: 3}, nil},
		{"echo without after_message_id", map[string]any{"thread_id": "m-1", "with_sent": true, "limit": 2}, conversation, []string{"after_message_id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			srv := rpc.NewServer(rpc.Options{Identify: rpc.UnixIdentify})
			srv.Handle(agent.CtlInbox, olderInbox(tc.echo))
			serveSocket(t, dir, srv)
			_, err := dial(t, dir).Inbox(context.Background(), tc.f)
			var old *agent.OlderAgentError
			switch {
			case tc.want == nil && err != nil:
				t.Errorf("Inbox(%+v) from an older aoi: %v, want the page", tc.f, err)
			case tc.want != nil && (!errors.As(err, &old) || !reflect.DeepEqual(old.Options, tc.want)):
				t.Errorf("Inbox(%+v) from an older aoi: %v, want an OlderAgentError naming %v", tc.f, err, tc.want)
			}
		})
	}
}

// TestInboxFromThisAgentAppliesEveryOption: the control table of this
// aoi echoes the filter it read, so a conversation's page comes back
// whole, without the echo.
func TestInboxFromThisAgentAppliesEveryOption(t *testing.T) {
	dir := t.TempDir()
	serveControl(t, dir, newServiceDouble())
	page, err := dial(t, dir).Inbox(context.Background(), agent.InboxFilter{ThreadID: "m-1", WithSent: true, AfterMessage: "m-2", Limit: 2})
	if err != nil || page.Applied != nil {
		t.Errorf("Inbox from this aoi = %+v, %v; want the page, without the echo", page, err)
	}
}

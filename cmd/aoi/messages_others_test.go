package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestConversationSaysWhoWasLeftOut: a thread's or a task's page names,
// on a last line, the peers whose messages naming it were left out (they
// take no part in the conversation), with or without the sent messages,
// and on an empty page too.
func TestConversationSaysWhoWasLeftOut(t *testing.T) {
	page := agent.InboxPage{Messages: []agent.Message{{Seq: 1, From: "bob", Type: "note"}},
		Others: map[string]int{"mallory": 1, "eve": 3}}
	for _, c := range []struct {
		f     agent.InboxFilter
		print func(*bytes.Buffer, agent.InboxPage, agent.InboxFilter)
		want  []string
	}{
		{agent.InboxFilter{ThreadID: "m-1", WithSent: true}, func(b *bytes.Buffer, p agent.InboxPage, f agent.InboxFilter) { printConversation(b, p, f) },
			[]string{"not shown: 3 messages in thread m-1 from eve, which takes no part in the conversation", "not shown: 1 message in thread m-1 from mallory"}},
		{agent.InboxFilter{TaskID: "T-1"}, func(b *bytes.Buffer, p agent.InboxPage, f agent.InboxFilter) { printMessages(b, p, f) },
			[]string{"not shown: 1 message about task T-1 from mallory", "`aoi messages` lists every message received"}},
	} {
		for _, p := range []agent.InboxPage{page, {Others: page.Others}} {
			var b bytes.Buffer
			c.print(&b, p, c.f)
			for _, want := range c.want {
				if !strings.Contains(b.String(), want) {
					t.Errorf("%+v with %d messages printed:\n%s\nwant %q", c.f, len(p.Messages), b.String(), want)
				}
			}
			if strings.Index(b.String(), "eve") > strings.Index(b.String(), "mallory") {
				t.Errorf("the peers left out are not in order:\n%s", b.String())
			}
		}
	}
	var b bytes.Buffer
	printConversation(&b, agent.InboxPage{Messages: page.Messages}, agent.InboxFilter{ThreadID: "m-1", WithSent: true})
	if strings.Contains(b.String(), "not shown") {
		t.Errorf("a page that left nobody out says so:\n%s", b.String())
	}
}

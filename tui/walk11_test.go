package tui

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestMessageDetailPointsAtTheConversation: a typed message in a thread
// another message started (a reply, a task's messages) ends with the
// command that shows the whole conversation, what the owner sent in it
// included, since its "reply to: m-…" says nothing of what it answers; a
// message that starts its own thread gets no such line. At 80 columns the
// commands are whole on their own lines.
func TestMessageDetailPointsAtTheConversation(t *testing.T) {
	svc := fixtureService()
	svc.messages[2].MessageID = "m-01a23ac7989b"
	m := newLoaded(t, svc, 80, 30, true)
	m.setFocus(focusMessages)
	press(t, m, "enter")
	d, ok := m.topDialog().(*detailDialog)
	if !ok {
		t.Fatalf("enter opened %T", m.topDialog())
	}
	frame := screen(m)
	for _, want := range []string{":reply 3 TEXT here", "aoi send pm-tanaka progress TEXT --task T-1 --reply-to 3", "aoi messages --thread th-1"} {
		if !strings.Contains(d.body, want) || !strings.Contains(frame, want) {
			t.Errorf("the detail of a message in thread th-1 does not show %q whole on a line:\n%s", want, frame)
		}
	}
	press(t, m, "esc")

	svc = fixtureService()
	svc.messages[2].MessageID, svc.messages[2].ThreadID = "m-01a23ac7989b", "m-01a23ac7989b"
	m = newLoaded(t, svc, 80, 30, true)
	m.setFocus(focusMessages)
	press(t, m, "enter")
	if d, ok := m.topDialog().(*detailDialog); !ok || strings.Contains(d.body, "--thread") {
		t.Errorf("a message that starts its own thread points at a conversation:\n%v", m.topDialog())
	}
}

// TestTypedReplySaysWhatItAnswers: a typed message that replies to one the
// owner sent reads "· re “…”" in its row, as an answer to an asked
// question does, and its detail names it as "your message" (it showed
// only "reply to: m-…").
func TestTypedReplySaysWhatItAnswers(t *testing.T) {
	svc := fixtureService()
	svc.messages[2] = agent.Message{Seq: 3, From: "pm-tanaka", Event: "answer", Type: "answer", ThreadID: "m-q1", ReplyTo: "m-q1",
		MessageID: "m-a1", Question: "認証トークンの修正はどのブランチ？", Data: json.RawMessage(`{"message":"main です"}`), ReceivedAt: fixedNow}
	m := newLoaded(t, svc, 80, 30, true)
	m.setFocus(focusMessages)
	frame := screen(m)
	if !strings.Contains(frame, "main です · re “認証トークン") {
		t.Errorf("the reply's row does not say what it answers:\n%s", frame)
	}
	press(t, m, "enter")
	d, ok := m.topDialog().(*detailDialog)
	if !ok || !strings.Contains(d.body, "your message: 認証トークンの修正はどのブランチ？") {
		t.Errorf("the reply's detail does not name the message it answers:\n%v", m.topDialog())
	}
}

// TestReplyFromThePrompt: `:reply ID text` answers a received message
// from the interface: to its sender, as the reply its type calls for, in
// its task and thread, and says what became of it. A seq the pane does not
// hold, or a notification, is refused saying why.
func TestReplyFromThePrompt(t *testing.T) {
	svc := fixtureService()
	svc.messages[2].MessageID = "m-01a23ac7989b"
	m := newLoaded(t, svc, 80, 30, true)
	press(t, m, ":")
	typeText(t, m, "reply 3 started; PR by Friday")
	press(t, m, "enter")
	want := `send pm-tanaka progress task=T-1 reply_to=m-01a23ac7989b {"message":"started; PR by Friday"}`
	if calls := svc.Calls(); !slices.Contains(calls, want) {
		t.Errorf(":reply 3 made the calls %q; want %q", calls, want)
	}
	if frame := screen(m); !strings.Contains(frame, "progress m-sent1 to pm-tanaka: delivered") {
		t.Errorf("the reply does not say it was delivered:\n%s", frame)
	}
	for _, c := range []struct{ line, want string }{
		{"reply 9 hello", "no message 9 in the Messages pane"},
		{"reply 2 thanks", "not a message to reply to"},
		{"reply 3", "write :reply ID text"},
	} {
		press(t, m, ":")
		typeText(t, m, c.line)
		press(t, m, "enter")
		if frame := screen(m); !strings.Contains(frame, c.want) {
			t.Errorf(":%s does not say %q:\n%s", c.line, c.want, frame)
		}
		press(t, m, "esc") // the bar keeps a line it cannot run
	}
}

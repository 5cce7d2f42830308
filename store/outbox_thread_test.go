package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestSentMessageToIsPerPeer: a message answers one this agent sent only
// when that one went to the same peer, by id, thread or task; a thread shared
// with one colleague lets no other colleague in, and a notification's
// outbox entry is not a message.
func TestSentMessageToIsPerPeer(t *testing.T) {
	t.Parallel()
	db, _ := openTestDB(t)
	ctx := context.Background()
	err := db.Write(ctx, func(tx *Tx) error {
		return enqueueAll(tx,
			OutboxRecord{ID: "m-1", To: "eng-suzuki", Method: "aoi.message", Params: json.RawMessage(`{"id":"m-1","thread_id":"th-release","task_id":"T-7"}`)},
			OutboxRecord{ID: "n-1", To: "eng-kato", Method: "aoi.notify", Params: json.RawMessage(`{"thread_id":"th-notify"}`)})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		peer, msgID, thread, task string
		want                      bool
	}{
		{"eng-suzuki", "m-1", "", "", true},
		{"eng-suzuki", "", "th-release", "", true},
		{"eng-suzuki", "", "", "T-7", true},
		{"eng-suzuki", "m-2", "th-other", "T-8", false},
		{"eng-kato", "m-1", "th-release", "T-7", false},
		{"eng-kato", "", "th-notify", "", false},
		{"eng-suzuki", "", "", "", false},
	} {
		got, err := db.SentMessageTo(ctx, c.peer, c.msgID, c.thread, c.task)
		if err != nil || got != c.want {
			t.Errorf("SentMessageTo(%s, %q, %q, %q) = %v (%v), want %v", c.peer, c.msgID, c.thread, c.task, got, err, c.want)
		}
	}
	for _, c := range []struct {
		thread, task string
		want         int
	}{{"th-release", "", 1}, {"", "T-7", 1}, {"th-release", "T-7", 1}, {"th-release", "T-8", 0}, {"th-notify", "", 0}, {"", "", 0}} {
		sent, err := db.SentMessages(ctx, c.thread, c.task)
		if err != nil || len(sent) != c.want || (c.want == 1 && sent[0].ID != "m-1") {
			t.Errorf("SentMessages(%q, %q) = %+v (%v), want %d (m-1)", c.thread, c.task, sent, err, c.want)
		}
	}
}

// TestTaskThreadIsTheLatestWithThatPeer: the thread a message about a
// task joins is the latest one about it exchanged with the same peer,
// received or sent; another peer's thread about a task of the same name,
// or a notification, is not it.
func TestTaskThreadIsTheLatestWithThatPeer(t *testing.T) {
	t.Parallel()
	db, _ := openTestDB(t)
	ctx := context.Background()
	at := func(m int) time.Time { return time.Date(2026, 12, 3, 9, m, 0, 0, time.UTC) }
	err := db.Write(ctx, func(tx *Tx) error {
		for _, r := range []MessageRecord{
			{MsgID: "m-a", From: "pm-tanaka", Event: "task_assign", Type: "task_assign", TaskID: "T-1", ThreadID: "th-assign", ReceivedAt: at(1)},
			{MsgID: "m-b", From: "pm-kato", Event: "task_assign", Type: "task_assign", TaskID: "T-1", ThreadID: "th-kato", ReceivedAt: at(5)},
		} {
			if _, _, err := tx.InsertMessage(r); err != nil {
				return err
			}
		}
		return enqueueAll(tx,
			OutboxRecord{ID: "m-c", To: "pm-tanaka", Method: "aoi.message", CreatedAt: at(3), Params: json.RawMessage(`{"id":"m-c","thread_id":"th-question","task_id":"T-1"}`)},
			OutboxRecord{ID: "n-1", To: "pm-tanaka", Method: "aoi.notify", CreatedAt: at(4), Params: json.RawMessage(`{"thread_id":"th-notify","task_id":"T-1"}`)})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		peer, task, want string
		found            bool
	}{
		{"pm-tanaka", "T-1", "th-question", true}, // sent at 9:03, after the assign received at 9:01
		{"pm-kato", "T-1", "th-kato", true},
		{"pm-tanaka", "T-2", "", false},
		{"eng-sato", "T-1", "", false},
		{"pm-tanaka", "", "", false},
	} {
		got, found, err := db.TaskThread(ctx, c.peer, c.task)
		if err != nil || got != c.want || found != c.found {
			t.Errorf("TaskThread(%s, %q) = %q, %v (%v), want %q, %v", c.peer, c.task, got, found, err, c.want, c.found)
		}
	}
}

// enqueueAll queues each record in the outbox.
func enqueueAll(tx *Tx, records ...OutboxRecord) error {
	for _, r := range records {
		if err := tx.EnqueueOutbox(r); err != nil {
			return err
		}
	}
	return nil
}

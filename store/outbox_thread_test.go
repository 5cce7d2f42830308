package store

import (
	"context"
	"encoding/json"
	"testing"
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
		for _, r := range []OutboxRecord{
			{ID: "m-1", To: "eng-suzuki", Method: "aoi.message", Params: json.RawMessage(`{"id":"m-1","thread_id":"th-release","task_id":"T-7"}`)},
			{ID: "n-1", To: "eng-kato", Method: "aoi.notify", Params: json.RawMessage(`{"thread_id":"th-notify"}`)},
		} {
			if err := tx.EnqueueOutbox(r); err != nil {
				return err
			}
		}
		return nil
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

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// TestFilterMessages: typed filters match only aoi.message rows, a page
// says whether more match, and the assistant's seen mark drives unread.
func TestFilterMessages(t *testing.T) {
	t.Parallel()
	db, _ := openTestDB(t)
	ctx := context.Background()
	err := db.Write(ctx, func(tx *Tx) error {
		if _, _, err := tx.InsertMessage(MessageRecord{MsgID: "n-1", From: "pm", Event: "query.completed", Data: json.RawMessage(`{}`)}); err != nil {
			return err
		}
		for i := range 5 {
			typ := "progress"
			if i == 4 {
				typ = "review_request"
			}
			if _, _, err := tx.InsertMessage(MessageRecord{MsgID: fmt.Sprintf("m-%d", i), From: "worker", Event: typ, Type: typ,
				TaskID: "T-1", ThreadID: "th-1", Data: json.RawMessage(`{}`)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all, more, err := db.FilterMessages(ctx, MessageFilter{Limit: 10})
	if err != nil || len(all) != 6 || more {
		t.Fatalf("unfiltered = %d rows, more %v (%v); want notify and typed, 6, no more", len(all), more, err)
	}
	page, more, err := db.FilterMessages(ctx, MessageFilter{TaskID: "T-1", Type: "progress", Limit: 3})
	if err != nil || len(page) != 3 || !more || page[0].Type != "progress" || page[0].Seq >= page[2].Seq {
		t.Fatalf("first progress page = %+v, more %v (%v); want 3 in order and more", page, more, err)
	}
	rest, more, err := db.FilterMessages(ctx, MessageFilter{TaskID: "T-1", Type: "progress", AfterSeq: page[2].Seq, Limit: 3})
	if err != nil || len(rest) != 1 || more {
		t.Fatalf("second page = %+v, more %v (%v); want the last progress and no more", rest, more, err)
	}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.MarkAssistantSeen([]int64{page[0].Seq, page[1].Seq}) }); err != nil {
		t.Fatal(err)
	}
	unread, _, err := db.FilterMessages(ctx, MessageFilter{ThreadID: "th-1", UnreadOnly: true, Limit: 10})
	if err != nil || len(unread) != 3 {
		t.Fatalf("unread in thread = %d (%v), want 3", len(unread), err)
	}
}

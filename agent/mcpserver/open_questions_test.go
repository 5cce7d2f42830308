package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/mcpserver"
)

// manyAnswered is a Service double holding 8 open questions older than 60
// answered ones, listed newest first like the core does. Only Inbox
// and Queries are implemented (the tool needs nothing else).
type manyAnswered struct {
	mcpserver.Service
	qs []agent.Query
}

func (m *manyAnswered) Inbox(context.Context, agent.InboxFilter) (agent.InboxPage, error) {
	return agent.InboxPage{}, nil
}

func (m *manyAnswered) Queries(_ context.Context, f agent.QueryFilter) ([]agent.Query, error) {
	var out []agent.Query
	for i := len(m.qs) - 1; i >= 0 && (f.Limit == 0 || len(out) < f.Limit); i-- {
		if f.State == "" || m.qs[i].State == f.State {
			out = append(out, m.qs[i])
		}
	}
	return out, nil
}

// TestCheckMessagesKeepsOlderOpenQuestions: open questions older than 50
// newer answered ones are still listed, oldest first.
func TestCheckMessagesKeepsOlderOpenQuestions(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	svc := &manyAnswered{}
	for i := range 68 {
		st := agent.QueryAnswered
		if i < 8 {
			st = []string{agent.QueryEscalated, agent.QueryBuffered, agent.QueryAwaiting}[i%3]
		}
		svc.qs = append(svc.qs, agent.Query{ID: fmt.Sprintf("q-%02d", i), From: "pm", Text: "?", State: st, ReceivedAt: base.Add(time.Duration(i) * time.Minute)})
	}
	c := inProcess(t, svc)
	text, isErr := call(t, c, mcpserver.ToolCheckMessages, map[string]any{})
	if isErr {
		t.Fatal(text)
	}
	var out struct {
		Open []struct {
			ID string `json:"query_id"`
		} `json:"open_questions"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Open) != 8 || out.Open[0].ID != "q-00" || out.Open[7].ID != "q-07" {
		t.Fatalf("open questions = %+v, want q-00 … q-07 in order", out.Open)
	}
}

package peerapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// InboxFullError is returned from a write that stored one message too many
// of a peer nobody has seen yet; the write rolls back.
type InboxFullError struct {
	Unseen, Limit int
}

func (e *InboxFullError) Error() string {
	return fmt.Sprintf("%d unseen messages already, the limit is %d", e.Unseen, e.Limit)
}

// InboxRoom bounds what one peer may leave in the assistant's inbox: a
// messages rule lets it store a message five times a second, and messages
// nobody has seen are never pruned (the attack pass: about 7 GB a day).
// Call it in the write, after the message is inserted, so a retry of one
// already stored is still acknowledged; its error rolls the insert back.
func (a *API) InboxRoom(tx *store.Tx, from string) error {
	limit := a.Config().Network.UnreadMessagesLimit()
	if limit == 0 {
		return nil
	}
	n, err := tx.UnseenMessagesFrom(from)
	if err != nil || n <= limit {
		return err
	}
	return &InboxFullError{Unseen: n - 1, Limit: limit}
}

// RefuseInboxFull turns an InboxFullError into the busy refusal the peer
// is sent, audited; aoi's outbox sends the message again later. Any
// other error is returned as it is.
func (a *API) RefuseInboxFull(ctx context.Context, call *rpc.Call, err error) error {
	var full *InboxFullError
	if !errors.As(err, &full) {
		return err
	}
	a.auditRefused(ctx, call, "AGENT_BUSY", "unread_messages", map[string]any{"unread": full.Unseen, "limit": full.Limit})
	return rpc.AgentBusy(fmt.Sprintf("%d of your messages wait unread in %s's inbox; send more once they are read (aoi's outbox sends it again later)",
		full.Unseen, a.Config().Agent.ID), 0)
}

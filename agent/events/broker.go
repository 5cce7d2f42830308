// Package events is the core's event broker: every change a front end
// should see (a query arrived, a task moved, a peer went offline) is
// published here as a numbered Event, and each front end reads the stream
// from its own cursor.
package events

import (
	"context"
	"sync"
	"time"
)

// Event is a change in the core. It carries ids and a one-line summary;
// front ends fetch details through agent.Service. Seq increases by one per
// event.
type Event struct {
	Seq     int64     `json:"seq"`
	Kind    string    `json:"kind"`
	Time    time.Time `json:"time"`
	ID      string    `json:"id,omitempty"`    // query, approval, task or message id
	Agent   string    `json:"agent,omitempty"` // the peer concerned
	Summary string    `json:"summary,omitempty"`
}

// Kinds of event. A front end switches on them; agent re-exports each as
// Event<Kind> (agent.EventQueryReceived = events.QueryReceived).
const (
	QueryReceived     = "query.received"
	QueryUpdated      = "query.updated"
	MessageReceived   = "message.received"
	MessagesRead      = "messages.read"      // the owner read up to ID (a seq)
	MessagesReadSome  = "messages.read_some" // the owner read the seqs ID lists, comma-separated, alone
	ApprovalRequested = "approval.requested"
	ApprovalDecided   = "approval.decided"
	ApprovalExpired   = "approval.expired"
	TaskState         = "task.state"
	TaskHeartbeat     = "task.heartbeat" // lossy
	PeerChanged       = "peer.changed"
	TrustRequested    = "trust.requested"
	Audit             = "audit.appended" // lossy
	FocusChanged      = "focus.changed"
	Attention         = "attention"  // something needs the owner: ring the bell
	CoordTask         = "coord.task" // a coordination task moved (ID = task id)
	AskSent           = "ask.sent"   // this agent asked a peer something (ID = request id)
	// OutboxChanged: what waits to be delivered to peers changed (an entry
	// queued, first failed, refused, delivered, expired or withdrawn; ID =
	// the entry, Summary = which).
	OutboxChanged = "outbox.changed"

	// A control-socket client (ctlclient) reports losing and regaining
	// the core on its event stream. These carry Seq 0: the core never
	// numbers them, and resuming by Seq ignores them.
	CoreDisconnected = "core.disconnected"
	CoreReconnected  = "core.reconnected"
)

// ringSize bounds how far back a front end can resume the event stream.
const ringSize = 4096

// Broker fans core events out to subscribers. Events are numbered and kept in
// a ring, and each subscriber reads the ring from its own cursor, so a
// publisher never blocks on a slow front end; a front end that falls more
// than ringSize behind skips ahead (it refetches state anyway).
type Broker struct {
	now func() time.Time

	mu sync.Mutex
	// changed is closed by the next publish, for whoever waits on it; it
	// is made when someone asks (Since), not on every publish: a question
	// publishes twice, and most publishes have no one waiting.
	changed chan struct{}
	seq     int64
	ring    [ringSize]Event
}

// New returns a broker that stamps events with now.
func New(now func() time.Time) *Broker {
	return &Broker{now: now}
}

// Publish records an event and wakes every subscriber.
func (b *Broker) Publish(kind, id, agent, summary string) Event {
	b.mu.Lock()
	b.seq++
	ev := Event{Seq: b.seq, Kind: kind, Time: b.now(), ID: id, Agent: agent, Summary: summary}
	b.ring[b.seq%ringSize] = ev
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	b.mu.Unlock()
	return ev
}

// LastSeq is the sequence number of the newest event.
func (b *Broker) LastSeq() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

// Since returns the events after seq still in the ring, and a channel that is
// closed when a newer event arrives.
func (b *Broker) Since(seq int64) ([]Event, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if oldest := b.seq - ringSize + 1; seq < oldest-1 {
		seq = oldest - 1
	}
	var out []Event
	for s := seq + 1; s <= b.seq; s++ {
		out = append(out, b.ring[s%ringSize])
	}
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return out, b.changed
}

// Subscribe streams events after afterSeq (0: only new ones) until ctx ends.
func (b *Broker) Subscribe(ctx context.Context, afterSeq int64) <-chan Event {
	if afterSeq <= 0 {
		afterSeq = b.LastSeq()
	}
	return b.SubscribeAfter(ctx, afterSeq)
}

// SubscribeAfter streams the events after afterSeq still in the ring, then
// every new one, until ctx ends; 0 means from the first event.
func (b *Broker) SubscribeAfter(ctx context.Context, afterSeq int64) <-chan Event {
	out := make(chan Event, 64)
	go func() {
		defer close(out)
		cursor := afterSeq
		for {
			events, changed := b.Since(cursor)
			for _, ev := range events {
				select {
				case out <- ev:
					cursor = ev.Seq
				case <-ctx.Done():
					return
				}
			}
			if len(events) > 0 {
				continue
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

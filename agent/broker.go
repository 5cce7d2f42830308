package agent

import (
	"context"
	"sync"
	"time"
)

// ringSize bounds how far back a front end can resume the event stream.
const ringSize = 4096

// broker fans core events out to subscribers. Events are numbered and kept in
// a ring, and each subscriber reads the ring from its own cursor, so a
// publisher never blocks on a slow front end; a front end that falls more
// than ringSize behind skips ahead (it refetches state anyway).
type broker struct {
	now func() time.Time

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every publish
	seq     int64
	ring    [ringSize]Event
}

func newBroker(now func() time.Time) *broker {
	return &broker{now: now, changed: make(chan struct{})}
}

// publish records an event and wakes every subscriber.
func (b *broker) publish(kind, id, agent, summary string) Event {
	b.mu.Lock()
	b.seq++
	ev := Event{Seq: b.seq, Kind: kind, Time: b.now(), ID: id, Agent: agent, Summary: summary}
	b.ring[b.seq%ringSize] = ev
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
	return ev
}

// lastSeq is the sequence number of the newest event.
func (b *broker) lastSeq() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

// since returns the events after seq still in the ring, and a channel that is
// closed when a newer event arrives.
func (b *broker) since(seq int64) ([]Event, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if oldest := b.seq - ringSize + 1; seq < oldest-1 {
		seq = oldest - 1
	}
	var out []Event
	for s := seq + 1; s <= b.seq; s++ {
		out = append(out, b.ring[s%ringSize])
	}
	return out, b.changed
}

// subscribe streams events after afterSeq (0: only new ones) until ctx ends.
func (b *broker) subscribe(ctx context.Context, afterSeq int64) <-chan Event {
	if afterSeq <= 0 {
		afterSeq = b.lastSeq()
	}
	out := make(chan Event, 64)
	go func() {
		defer close(out)
		cursor := afterSeq
		for {
			events, changed := b.since(cursor)
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

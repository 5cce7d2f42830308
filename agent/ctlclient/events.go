package ctlclient

import (
	"context"
	"errors"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// Long-poll tuning.
const (
	pollWait       = 20 * time.Second // below agent.MaxEventWait
	minBackoff     = 100 * time.Millisecond
	maxBackoff     = 5 * time.Second
	eventsChanSize = 64
)

// Events implements agent.Service with a ctl.events long-poll loop. It
// resumes from the last sequence number it delivered, keeps trying with
// back-off while the daemon is away (a restart), and closes the channel
// when ctx ends. Losing the daemon and finding it again are delivered as
// agent.EventCoreDisconnected and agent.EventCoreReconnected (Seq 0), so a
// front end can say so at once.
//
// With AfterSeq 0 ("only new events") it first asks the daemon for its
// newest sequence number, so the stream starts at the moment Events
// returns: a front end that loads its data after subscribing misses
// nothing in between (the daemon would otherwise take "new" to mean new
// at its first long poll, a moment later). From then on every poll names
// its cursor as exact, so a daemon that had published nothing (newest
// number 0) still sends what came in between.
func (c *Client) Events(ctx context.Context, req agent.EventsRequest) (<-chan agent.Event, error) {
	cursor, exact := req.AfterSeq, req.AfterSeq > 0 || req.Exact
	if !exact {
		if res, err := c.poll(ctx, 0, 0, false); err == nil && res.LastSeq != nil {
			cursor, exact = *res.LastSeq, true
			if len(res.Events) > 0 { // published during that poll: the loop delivers them
				cursor = res.Events[0].Seq - 1
			}
		}
	}
	out := make(chan agent.Event, eventsChanSize)
	go c.pollLoop(ctx, cursor, exact, out)
	return out, nil
}

// pollLoop delivers events after cursor until ctx ends. exact says the
// cursor is a sequence number the daemon gave (0 included), not "only new
// ones".
func (c *Client) pollLoop(ctx context.Context, cursor int64, exact bool, out chan<- agent.Event) {
	defer close(out)
	backoff := minBackoff
	knowsLast := false // the daemon reports last_seq
	connected := true  // Dial found the daemon
	link := func(kind, summary string) bool {
		select {
		case out <- agent.Event{Kind: kind, Time: time.Now(), Summary: summary}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for ctx.Err() == nil {
		wait := pollWait
		if !connected {
			// Looking for a daemon that went away: a short poll, so
			// finding it again is reported at once, not after a long
			// poll on a restarted core that has nothing new to say.
			wait = 0
		}
		res, err := c.poll(ctx, cursor, wait, exact)
		var gone *NoDaemonError
		if err != nil && connected && errors.As(err, &gone) && ctx.Err() == nil {
			connected = false
			if !link(agent.EventCoreDisconnected, "lost the aoi for "+c.dataDir+"; retrying") {
				return
			}
		}
		if err == nil && !connected {
			connected = true
			if !link(agent.EventCoreReconnected, "reconnected to the aoi for "+c.dataDir) {
				return
			}
		}
		if err != nil {
			if !knowsLast {
				// The daemon may be restarting and will number from 1
				// again; without last_seq, resume with new events only.
				cursor, exact = 0, false
			}
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(backoff*2, maxBackoff)
			continue
		}
		backoff, knowsLast = minBackoff, res.LastSeq != nil
		exact = exact || knowsLast
		for _, ev := range res.Events {
			select {
			case out <- ev:
				cursor = ev.Seq
			case <-ctx.Done():
				return
			}
		}
		cursor = nextCursor(cursor, res)
	}
}

// poll makes one ctl.events call that waits up to wait for events.
func (c *Client) poll(ctx context.Context, after int64, wait time.Duration, exact bool) (agent.CtlEventsResult, error) {
	var res agent.CtlEventsResult
	p := agent.CtlEventsParams{AfterSeq: after, WaitMS: wait.Milliseconds(), Exact: exact}
	err := c.call(ctx, wait+callTimeout, agent.CtlEvents, p, &res)
	return res, err
}

// nextCursor picks where the next poll resumes once res's events are
// delivered. With no events, the daemon's newest sequence number is the
// cursor: that closes the gap after a first "only new ones" poll, and
// starts over when the daemon restarted and numbers from 1 again.
func nextCursor(cursor int64, res agent.CtlEventsResult) int64 {
	if len(res.Events) == 0 && res.LastSeq != nil {
		return *res.LastSeq
	}
	return cursor
}

// sleep waits d or until ctx ends; it reports whether to go on.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

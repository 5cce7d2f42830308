package agent

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// peerFailed words a failed call to a peer for a person and, when the peer
// could not be reached at all, shows it offline at once rather than after
// offline_after_sec of silence. The next successful contact (heartbeat,
// announce, or a call from the peer) shows it online again.
func (c *Core) peerFailed(ctx context.Context, agentID string, err error) error {
	if unreachable(err) {
		c.markOffline(context.WithoutCancel(ctx), agentID)
	}
	return peerError(agentID, err)
}

// unreachable reports whether a call failed because nothing answered: no
// connection, or the connection dropped before any answer. A peer that
// answered (an error, an HTTP status, a TLS refusal) is reachable; a call
// we cancelled says nothing about the peer.
func unreachable(err error) bool {
	var te *rpc.TransportError
	if !errors.As(err, &te) || te.Status != 0 || errors.Is(err, context.Canceled) {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	for _, target := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EHOSTUNREACH,
		syscall.ENETUNREACH, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// markOffline records a peer as offline and tells the front ends.
func (c *Core) markOffline(ctx context.Context, agentID string) {
	rec, found, err := c.db.Peer(ctx, agentID)
	c.seenCalls.Delete(agentID) // the next call from it marks it online again at once
	if err != nil || !found || rec.Status == PeerOffline {
		return
	}
	if err := c.db.Write(ctx, func(tx *store.Tx) error { return tx.SetPeerStatus(agentID, PeerOffline, time.Time{}) }); err != nil {
		c.log.Warn("mark peer offline", "component", "registry", "agent_to", agentID, "err", err)
		return
	}
	c.events.Publish(EventPeerChanged, agentID, agentID, PeerOffline)
}

// seenCallingEvery throttles marking a calling peer online: a call proves
// it is up, but one registry write per peer per interval is enough.
const seenCallingEvery = 30 * time.Second

// seenCalling marks a pinned peer that just called us online (it may have
// been offline since a failed call or a missed heartbeat), at most once per
// seenCallingEvery. Failures only cost freshness, so they are logged.
func (c *Core) seenCalling(ctx context.Context, agentID string) {
	now := c.now()
	if v, ok := c.seenCalls.Load(agentID); ok && now.Sub(v.(time.Time)) < seenCallingEvery {
		return
	}
	c.seenCalls.Store(agentID, now)
	if err := c.markSeen(ctx, agentID); err != nil {
		c.log.Warn("mark calling peer online", "component", "registry", "agent_from", agentID, "err", err)
	}
}

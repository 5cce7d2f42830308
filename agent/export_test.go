package agent

import "context"

// HeartbeatRound runs one round of the peer registry's Heartbeat (the loop
// itself waits an interval between rounds, which tests set to an hour).
func (c *Core) HeartbeatRound(ctx context.Context) error {
	_, err := c.peers.Round(ctx, c.config().Network.DiscoveryInterval()/2)
	return err
}

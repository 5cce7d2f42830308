package tailnet

import (
	"context"
	"net"
	"strconv"
	"strings"

	"github.com/aoi-protocol/aoi/rpc"
)

// EndpointURL is the peer API URL of an agent at endpoint ("ip:port"):
// plain HTTP, because WireGuard already encrypts and authenticates.
func (t *Transport) EndpointURL(endpoint string) string {
	return "http://" + endpoint + rpc.Path
}

// TailnetSummary is Status reduced to what `aoi status` shows.
func (t *Transport) TailnetSummary(ctx context.Context) (tailnet, node string, addrs []string, state string, err error) {
	st, err := t.Status(ctx)
	if err != nil {
		return "", "", nil, "", err
	}
	return st.Tailnet, st.NodeName, st.Addresses, st.State, nil
}

// FindPeers lists the endpoints ("ip:port") of online peers that look like
// aoi agents or are among Config.PinnedNodes.
func (t *Transport) FindPeers(ctx context.Context) ([]string, error) {
	return t.findPeers(ctx, t.cfg.PinnedNodes)
}

func (t *Transport) findPeers(ctx context.Context, also []string) ([]string, error) {
	peers, err := t.Peers(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range peers {
		if !p.Online || len(p.Addrs) == 0 || !(p.LooksLikeAOI() || named(p, also)) {
			continue
		}
		out = append(out, net.JoinHostPort(p.Addrs[0], strconv.Itoa(t.cfg.Port)))
	}
	return out, nil
}

func named(p Peer, names []string) bool {
	for _, n := range names {
		n = strings.TrimSuffix(n, ".")
		if strings.EqualFold(n, p.HostName) || strings.EqualFold(n, p.DNSName) {
			return true
		}
	}
	return false
}

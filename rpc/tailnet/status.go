package tailnet

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"tailscale.com/ipn/ipnstate"
)

// Status describes this node for `aoi status`.
type Status struct {
	Tailnet   string   `json:"tailnet"`    // tailnet name, e.g. example.com
	NodeID    string   `json:"node_id"`    // stable node id
	NodeName  string   `json:"node_name"`  // FQDN without the trailing dot
	UserLogin string   `json:"user_login"` // "" for a tagged node
	Tags      []string `json:"tags,omitempty"`
	Addresses []string `json:"addresses"` // tailnet IPs
	State     string   `json:"state"`     // backend state: Running, NeedsLogin, …
	// Endpoints are the UDP addresses this node advertises for WireGuard;
	// Relay is its home DERP region (diagnostics).
	Endpoints []string `json:"endpoints,omitempty"`
	Relay     string   `json:"relay,omitempty"`
}

// Peer is another node on the tailnet as this node sees it.
type Peer struct {
	NodeID    string   `json:"node_id"`
	HostName  string   `json:"host_name"` // the name the node asked for (aoi-<agent-id>)
	DNSName   string   `json:"dns_name"`  // FQDN without the trailing dot
	Addrs     []string `json:"addrs"`     // tailnet IPs, IPv4 first
	Online    bool     `json:"online"`    // per the control server
	Tags      []string `json:"tags,omitempty"`
	UserLogin string   `json:"user_login,omitempty"` // "" for a tagged node
	// CurAddr is the UDP address packets to the peer go to directly ("" when
	// relayed or idle); Relay is the peer's home DERP region (diagnostics).
	CurAddr string `json:"cur_addr,omitempty"`
	Relay   string `json:"relay,omitempty"`
}

// Status returns this node's tailnet, name, addresses and state.
func (t *Transport) Status(ctx context.Context) (Status, error) {
	lc, err := t.localClient()
	if err != nil {
		return Status{}, err
	}
	st, err := lc.StatusWithoutPeers(ctx)
	if err != nil {
		return Status{}, err
	}
	out := Status{State: st.BackendState, Addresses: addrStrings(st.TailscaleIPs)}
	if st.CurrentTailnet != nil {
		out.Tailnet = st.CurrentTailnet.Name
	}
	if st.Self != nil {
		out.NodeID = string(st.Self.ID)
		out.NodeName = strings.TrimSuffix(st.Self.DNSName, ".")
		out.Endpoints = slices.Clone(st.Self.Addrs)
		out.Relay = st.Self.Relay
		out.Tags, out.UserLogin = owner(st, st.Self)
	}
	return out, nil
}

// Peers lists the other nodes of the tailnet, sorted by host name.
func (t *Transport) Peers(ctx context.Context) ([]Peer, error) {
	lc, err := t.localClient()
	if err != nil {
		return nil, err
	}
	st, err := lc.Status(ctx)
	if err != nil {
		return nil, err
	}
	peers := make([]Peer, 0, len(st.Peer))
	for _, ps := range st.Peer {
		peers = append(peers, peerFrom(st, ps))
	}
	slices.SortFunc(peers, func(a, b Peer) int { return strings.Compare(a.HostName, b.HostName) })
	return peers, nil
}

func peerFrom(st *ipnstate.Status, ps *ipnstate.PeerStatus) Peer {
	p := Peer{
		NodeID:   string(ps.ID),
		HostName: ps.HostName,
		DNSName:  strings.TrimSuffix(ps.DNSName, "."),
		Addrs:    addrStrings(ps.TailscaleIPs),
		Online:   ps.Online,
		CurAddr:  ps.CurAddr,
		Relay:    ps.Relay,
	}
	p.Tags, p.UserLogin = owner(st, ps)
	return p
}

// owner returns a node's tags, or, for an untagged node, its user's login:
// a tagged node belongs to its tags, not to a person.
func owner(st *ipnstate.Status, ps *ipnstate.PeerStatus) (tags []string, userLogin string) {
	if ps.Tags != nil && ps.Tags.Len() > 0 {
		return ps.Tags.AsSlice(), ""
	}
	if u, ok := st.User[ps.UserID]; ok {
		return nil, u.LoginName
	}
	return nil, ""
}

// PeerURL is the peer API endpoint of p on this transport's port (all aoi
// nodes of a tailnet serve on the same port), or "" if p has no address.
func (t *Transport) PeerURL(p Peer) string {
	if len(p.Addrs) == 0 {
		return ""
	}
	return "http://" + net.JoinHostPort(p.Addrs[0], strconv.Itoa(t.cfg.Port)) + "/aoi/v1/rpc"
}

// addrStrings renders IPs with IPv4 first, so URLs prefer IPv4.
func addrStrings(ips []netip.Addr) []string {
	sorted := slices.Clone(ips)
	slices.SortStableFunc(sorted, func(a, b netip.Addr) int {
		switch {
		case a.Is4() == b.Is4():
			return 0
		case a.Is4():
			return -1
		default:
			return 1
		}
	})
	out := make([]string, len(sorted))
	for i, ip := range sorted {
		out[i] = ip.String()
	}
	return out
}

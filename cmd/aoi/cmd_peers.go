package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

func (a *app) statusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show this agent's identity, focus and counts",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return call(a, func(svc agent.AdminService) error {
				st, err := svc.Status(cmd.Context())
				if err != nil {
					return err
				}
				return a.emit(st, func(w io.Writer) { printStatus(w, st) })
			})
		},
	}
}

// contextsText says how many contexts the secretary answers from, and
// what to do when it has none.
func contextsText(n int) string {
	if n == 0 {
		return `none: your secretary has nothing to answer from; add your repositories under "contexts" in the config (` + "`aoi config show --example`" + ` shows how), then aoi reload`
	}
	return strconv.Itoa(n)
}

func printStatus(w io.Writer, st agent.Status) {
	focus := "off"
	if st.Focus {
		focus = "on"
	}
	rows := [][]string{
		{"agent", cell(st.AgentID, 0)},
		{"role", cell(st.Role, 0)},
		{"owner", dash(cell(st.Owner, 0))},
		{"protocol", cell(st.Version, 0)},
		{"transport", cell(st.Transport, 0)},
		{"listening", cell(st.ListenAddr, 0)},
		{"fingerprint", dash(agent.GroupFingerprint(st.Fingerprint))},
		{"focus", focus},
		{"peers online", strconv.Itoa(st.PeersOnline)},
		{"queries waiting", fmt.Sprintf("%d for you, %d buffered", st.PendingQuery, st.Buffered)},
		{"approvals pending", strconv.Itoa(st.PendingApprov)},
		{"unread messages", strconv.Itoa(st.UnreadMsgs)},
		{"not yet delivered", queuedText(st.OutboxQueued)},
		{"refused by peers", refusedText(st.OutboxRefused)},
	}
	if len(st.RefusingMessagesFrom) > 0 {
		rows = append(rows, []string{"refused by you", refusingText(st.RefusingMessagesFrom)})
	}
	rows = append(rows, [][]string{
		{"started", when(st.StartedAt)},
		{"data dir", st.DataDir},
		{"contexts", contextsText(st.Contexts)},
	}...)
	if t := st.Tailnet; t != nil {
		rows = append(rows, []string{"tailnet", cell(fmt.Sprintf("%s as %s (%s) %s",
			t.Name, t.NodeName, strings.Join(t.Addresses, ", "), t.State), 0)})
	}
	for _, h := range st.History {
		rows = append(rows, []string{"history", cell(h.Context, 0) + " " + historyText(h)})
	}
	if len(st.Waiting) == 0 {
		rows = append(rows, []string{"waiting for", "nothing: no question or task request of yours waits for an answer"})
	}
	for _, g := range agent.FoldWaiting(st.Waiting) { // one task asked twenty times is one line ×20
		rows = append(rows, []string{"waiting for", cell(g.To, 24) + " " + waitingWhat(g.Text) + waitingWhen(g)})
	}
	if older := st.WaitingTotal - len(st.Waiting); older > 0 {
		// The list is the newest 20: without this it reads as all of them.
		rows = append(rows, []string{"waiting for", fmt.Sprintf("%d older, not listed (%d in all)", older, st.WaitingTotal)})
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-18s %s\n", r[0]+":", r[1])
	}
}

// refusingText names the peers whose messages the owner's ACL refuses
// and what lets them in.
func refusingText(peers []string) string {
	names := make([]string, len(peers))
	for i, p := range peers {
		names[i] = cell(p, 24)
	}
	return "messages from " + strings.Join(names, ", ") + ": no `messages` rule of yours lets them write; add one to the config and `aoi reload` " +
		"(their aoi retries; `aoi audit --method aoi.message` lists the refusals)"
}

// hexDigits counts the hex digits of something that looks like a pasted
// fingerprint (hex with spaces, colons or dashes), 0 for anything else.
func hexDigits(s string) int {
	s = strings.TrimPrefix(strings.ToLower(strings.Join(strings.Fields(s), "")), "sha256:")
	s = strings.NewReplacer(":", "", "-", "").Replace(s)
	if strings.Trim(s, "0123456789abcdef") != "" {
		return 0
	}
	return len(s)
}

// waitingWhen says when an ask was sent, or for asks of one text to one
// peer how many and when the newest and the oldest were.
func waitingWhen(g agent.WaitingGroup) string {
	if g.Count == 1 {
		return ", asked " + when(g.SentAt)
	}
	return fmt.Sprintf(" ×%d, last asked %s (first %s)", g.Count, when(g.SentAt), when(g.FirstAt))
}

// waitingWhat names an ask: a task request as it is, a question quoted.
func waitingWhat(text string) string {
	if strings.HasPrefix(text, "task ") {
		return cell(text, 40)
	}
	return "“" + cell(text, 40) + "”"
}

// trustLine is the `aoi peers trust` command that accepts a pending
// request: the id it announced and, when it said where it listens, that
// endpoint, so the pinned peer can be called back.
func trustLine(p agent.Peer) string {
	id := p.AgentID
	if !wire.ValidAgentID(id) {
		id = "AGENT_ID" // it announced none, or one that cannot be pinned
	}
	line := "aoi peers trust " + id + " " + p.Fingerprint
	if wire.ValidEndpoint(p.Endpoint) {
		line += " --endpoint " + p.Endpoint
	}
	return line
}

// queuedText says what waits in the outbox for peers, and where to see it.
func queuedText(n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (questions, answers and messages a peer has not taken yet, offline or refusing: retried until it does or they expire; `aoi outbox` lists them)", n)
}

// refusedText says how many queued sends a peer refused, and where to
// read why: `aoi outbox` shows each refusal's reason (the log was named
// here, though the outbox already said it).
func refusedText(n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d queued (tried again until they expire; `aoi outbox` shows each with the peer's reason)", n)
}

// historyText says how much of a repository's history is indexed:
// "1200/1970 commits (60%), indexing" or "1970 commits, done", and why the
// last poll failed when it did.
func historyText(h agent.IndexProgress) string {
	var text string
	switch {
	case h.Done:
		text = fmt.Sprintf("%d %s, done", h.Indexed, plural(int(h.Indexed), "commit", "commits"))
	case h.Total > 0:
		text = fmt.Sprintf("%d/%d commits (%d%%), indexing", h.Indexed, h.Total, h.Indexed*100/h.Total)
	default:
		text = fmt.Sprintf("%d %s, indexing", h.Indexed, plural(int(h.Indexed), "commit", "commits"))
	}
	if h.Error != "" {
		text += "; the last poll failed: " + cell(h.Error, 200) + " (check contexts[].local_path and that git can read the repository)"
	}
	return text
}

func (a *app) peersCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "List known peers and pending trust requests",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return call(a, func(svc agent.PeerService) error {
				peers, err := svc.Peers(cmd.Context())
				if err != nil {
					return err
				}
				return a.emit(peers, func(w io.Writer) { printPeers(w, peers) })
			})
		},
	}
	cmd.AddCommand(a.trustCmd(), a.refuseCmd())
	return cmd
}

func (a *app) trustCmd() *cobra.Command {
	var endpoint, role string
	var replace bool
	cmd := &cobra.Command{
		Use:   "trust AGENT_ID FINGERPRINT",
		Short: "Pin a peer's certificate fingerprint so it may call this agent",
		Long: "aoi peers trust pins a peer's certificate fingerprint (the 64 hex characters `aoi id`\n" +
			"prints on the peer; grouped with spaces or colons as the Peers pane shows it is fine,\n" +
			"quoted or not).",
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if endpoint != "" && !wire.ValidEndpoint(endpoint) {
				return usagef(cmd, "--endpoint %q is not HOST:PORT; give where the peer listens, e.g. 127.0.0.1:8443 (the address `aoi serve` prints on the peer)", endpoint)
			}
			// A fingerprint pasted from the Peers pane arrives as several
			// groups; anything else after it is a mistake worth naming.
			given := strings.Join(argv[1:], " ")
			fp, err := rpc.NormalizeFingerprint(given)
			switch {
			case err == nil:
			case len(argv) > 2 && hexDigits(given) > 0:
				// Groups, all of them hex: a fingerprint pasted short (the
				// walk's three groups were told to move an endpoint).
				return usagef(cmd, "that fingerprint has %d hex digits, not 64: paste it whole, all eight groups, as `aoi id` prints it on the peer", hexDigits(given))
			case len(argv) > 2:
				return usagef(cmd, "after AGENT_ID give only the fingerprint (its groups may be separated by spaces); the endpoint goes in --endpoint and the role in --role")
			default:
				fp = argv[1] // the core says what is wrong with it
			}
			req := agent.TrustRequest{AgentID: argv[0], Fingerprint: fp, Endpoint: endpoint, Role: role, Announce: true, Replace: replace}
			return call(a, func(svc agent.PeerService) error {
				before, pinned, err := pinnedPeer(cmd.Context(), svc, req)
				if err != nil {
					return err
				}
				if err := svc.Trust(cmd.Context(), req); err != nil {
					return err
				}
				if pinned {
					return a.done("%s", retrustText(before, req))
				}
				return a.done("trusted %s (fingerprint %s); aoi says hello to it now, and `aoi peers` shows it online as soon as it answers (if it trusts this agent; until then it refuses)",
					req.AgentID, agent.GroupFingerprint(req.Fingerprint))
			})
		},
	}
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "where the peer listens, HOST:PORT")
	cmd.Flags().StringVar(&role, "role", "", "the role ACL rules with agent_role match for this peer (e.g. pm); a peer's own claim never counts")
	cmd.Flags().BoolVar(&replace, "replace", false, "replace the certificate pinned for AGENT_ID (its owner made a new identity); its role is not kept: give --role again")
	return cmd
}

// pinnedPeer is the peer req names when it is already pinned to the
// certificate req gives: trusting it again only changes its role or
// endpoint, and the message says so rather than reading as a first trust.
func pinnedPeer(ctx context.Context, svc agent.PeerService, req agent.TrustRequest) (agent.Peer, bool, error) {
	fp, err := rpc.NormalizeFingerprint(req.Fingerprint)
	if err != nil {
		return agent.Peer{}, false, nil // Trust says what is wrong with it
	}
	peers, err := svc.Peers(ctx)
	if err != nil {
		return agent.Peer{}, false, err
	}
	for _, p := range peers {
		if p.AgentID != req.AgentID || p.Trust != agent.TrustPinned {
			continue
		}
		if pfp, err := rpc.NormalizeFingerprint(p.Fingerprint); err == nil && pfp == fp {
			return p, true, nil
		}
	}
	return agent.Peer{}, false, nil
}

// retrustText says what trusting an already pinned peer again changed,
// ready for the terminal.
func retrustText(before agent.Peer, req agent.TrustRequest) string {
	return cell(agent.RetrustSummary(before, req), 0)
}

func (a *app) refuseCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "refuse FINGERPRINT|AGENT_ID",
		Short: "Drop a pending trust request, or stop trusting a pinned peer",
		Long: "aoi peers refuse drops a pending trust request (by fingerprint), or stops trusting a\n" +
			"pinned peer (by fingerprint or agent id): its pin goes and its calls are refused from\n" +
			"then on, ringing nobody. `aoi peers trust` pins either again. The fingerprint may be\n" +
			"pasted as `aoi peers` shows it, in groups of eight.",
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			// A fingerprint pasted short: grouped (spaces, colons) or
			// longer than an agent id's hex could plausibly be.
			given := strings.Join(argv, " ")
			if n := hexDigits(given); n != 64 && n > 0 && (strings.ContainsAny(given, " :") || n >= 16) {
				return usagef(cmd, "that fingerprint has %d hex digits, not 64: paste it whole, all eight groups, as `aoi peers` shows it", n)
			}
			return call(a, func(svc agent.PeerService) error {
				// The core drops an unknown fingerprint without a word (the
				// interface's x acts on a listed row); a person typing one
				// wants to know it matched nothing.
				peers, err := svc.Peers(cmd.Context())
				if err != nil {
					return err
				}
				fp, _ := rpc.NormalizeFingerprint(given) // "" when it is an agent id
				i := slices.IndexFunc(peers, func(p agent.Peer) bool {
					return p.Fingerprint != "" && (p.Fingerprint == fp || p.Trust == agent.TrustPinned && p.AgentID == given)
				})
				if i < 0 {
					return fmt.Errorf("no pending trust request or pinned peer has fingerprint or id %s; `aoi peers` lists them", sanitize(given, false))
				}
				p := peers[i]
				if err := svc.Refuse(cmd.Context(), agent.RefuseRequest{Fingerprint: p.Fingerprint}); err != nil {
					return err
				}
				if p.Trust == agent.TrustPinned {
					return a.done("%s is no longer trusted; its calls are refused (`aoi peers trust` pins it again)", cell(p.AgentID, 0))
				}
				who := "the caller"
				if p.AgentID != "" {
					who = cell(p.AgentID, 0)
				}
				return a.done("refused %s (fingerprint %s)", who, agent.GroupFingerprint(p.Fingerprint))
			})
		},
	}
}

func (a *app) discoverCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "discover",
		Short: "Announce this agent to its peers and list what answered",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return call(a, func(svc agent.PeerService) error {
				peers, err := svc.Discover(cmd.Context())
				if err != nil {
					return err
				}
				return a.emit(peers, func(w io.Writer) { printPeers(w, peers) })
			})
		},
	}
}

func printPeers(w io.Writer, peers []agent.Peer) {
	if len(peers) == 0 {
		fmt.Fprintln(w, "no peers yet: trust a colleague with `aoi peers trust ID FINGERPRINT --endpoint HOST:PORT`\n"+
			"(their `aoi id` prints the whole command), or add them under \"peers\" in the config")
		return
	}
	rows := make([][]string, 0, len(peers))
	var pending []agent.Peer
	var refusing []string
	var expired []agent.Peer
	for _, p := range peers {
		status, trust := p.Status, p.Trust
		switch {
		case p.Trust == agent.TrustPending:
			// Not a peer yet: LAST SEEN says when it last called.
			status, pending = "-", append(pending, p)
		case p.RefusesUs:
			status, refusing = "refuses", append(refusing, p.AgentID)
		}
		if !p.CertExpiredAt.IsZero() {
			trust, expired = trust+expiredMark, append(expired, p)
		}
		rows = append(rows, []string{
			cell(p.AgentID, 24), dash(cell(p.Role, 12)), cell(status, 8), cell(trust, 8),
			dash(cell(p.Endpoint, 32)), dash(cell(agent.GroupFingerprint(p.Fingerprint), 0)), when(p.LastSeen),
		})
	}
	table(w, []string{"AGENT", "ROLE", "STATUS", "TRUST", "ENDPOINT", "FINGERPRINT", "LAST SEEN"}, rows)
	if len(pending) > 0 {
		fmt.Fprintf(w, "\n%d pending trust request(s); once its owner confirms the fingerprint, trust one with the line under it (add --role R for your ACL rules), or drop it with `aoi peers refuse FINGERPRINT`:\n", len(pending))
		for _, p := range pending {
			fmt.Fprintf(w, "  %s\n", cell(trustLine(p), 0))
			if !wire.ValidEndpoint(p.Endpoint) && p.Source != "" {
				fmt.Fprintf(w, "    (it called from %s without saying where it listens; once trusted, aoi learns that when it next announces itself)\n", cell(p.Source, 64))
			}
		}
	}
	if len(refusing) > 0 {
		fmt.Fprintf(w, "\n%s does not trust your certificate (not yet, or no longer): its owner runs `aoi peers trust ID FINGERPRINT` with the id and fingerprint `aoi id` prints here\n",
			cell(strings.Join(refusing, ", "), 0))
	}
	printExpiredCerts(w, expired)
}

// expiredMark follows TRUST for a peer whose certificate has expired; a
// footnote under the table says when and what to do.
const expiredMark = "*"

// printExpiredCerts is the footnote for the peers marked expiredMark: they
// are still let in (unless network.refuse_expired_certs), which the owner
// would otherwise learn only from aoi doctor or --json.
func printExpiredCerts(w io.Writer, expired []agent.Peer) {
	if len(expired) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, p := range expired {
		fmt.Fprintf(w, "%s %s's certificate expired on %s (it is still let in unless network.refuse_expired_certs is set): ask its owner for a new identity and pin it with `aoi peers trust %s FINGERPRINT --replace`\n",
			expiredMark, cell(p.AgentID, 0), p.CertExpiredAt.UTC().Format(time.DateOnly), cell(p.AgentID, 0))
	}
}

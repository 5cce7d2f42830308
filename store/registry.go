package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// PeerRecord is one agent in the registry.
type PeerRecord struct {
	AgentID string
	// Role is the role the owner gave the peer: the one ACL rules match.
	Role string
	// AnnouncedRole is what the peer says about itself (information only).
	AnnouncedRole string
	Owner         string
	Endpoint      string
	Fingerprint   string // direct mode: SHA-256 of the peer's certificate (hex)
	NodeID        string // tailnet mode: the node the agent id is bound to
	NodeName      string
	Trust         string // e.g. pinned | pending (policy lives in agent)
	Status        string // online | busy | offline
	Contexts      []string
	TaskTypes     []string
	Capabilities  json.RawMessage // the peer's capability manifest, as sent
	FirstSeen     time.Time
	LastSeen      time.Time
}

// TrustRequestRecord is an unpinned caller that tried to talk to us.
type TrustRequestRecord struct {
	Fingerprint    string
	ClaimedAgentID string
	Addr           string // the endpoint it announced; "" when it gave none
	Source         string // the address its last call came from
	FirstSeen      time.Time
	LastSeen       time.Time
	Attempts       int64
}

const peerColumns = `agent_id, role, owner, endpoint, fingerprint, node_id, node_name, trust, status,
	contexts, task_types, capabilities, first_seen, last_seen, announced_role`

// UpsertPeer inserts or replaces a peer by agent id, keeping its original
// first_seen. A zero FirstSeen becomes now; a zero LastSeen stays empty
// ("never"): a peer pinned by hand has not been reached yet. It fails with a clear
// error when the fingerprint or node already belongs to another agent id.
func (tx *Tx) UpsertPeer(p PeerRecord) error {
	if p.AgentID == "" {
		return fmt.Errorf("store: a peer needs an agent id")
	}
	now := tx.Now()
	if p.FirstSeen.IsZero() {
		p.FirstSeen = now
	}
	if p.Status == "" {
		p.Status = "offline"
	}
	caps, err := jsonArg(p.Capabilities)
	if err != nil {
		return err
	}
	err = tx.Run(`INSERT INTO agent_registry(`+peerColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(agent_id) DO UPDATE SET role = excluded.role, announced_role = excluded.announced_role, owner = excluded.owner,
		endpoint = excluded.endpoint, fingerprint = excluded.fingerprint, node_id = excluded.node_id,
		node_name = excluded.node_name, trust = excluded.trust, status = excluded.status,
		contexts = excluded.contexts, task_types = excluded.task_types, capabilities = excluded.capabilities,
		last_seen = excluded.last_seen`,
		p.AgentID, p.Role, p.Owner, p.Endpoint, p.Fingerprint, p.NodeID, p.NodeName, p.Trust, p.Status,
		stringsJSON(p.Contexts), stringsJSON(p.TaskTypes), caps, formatTime(p.FirstSeen), formatTime(p.LastSeen), p.AnnouncedRole)
	if err != nil {
		return tx.peerConflict(p, err)
	}
	return nil
}

// peerConflict explains a unique-index violation in words, naming the
// agent that holds the certificate or node already.
func (tx *Tx) peerConflict(p PeerRecord, err error) error {
	msg := err.Error()
	holder := func(column, value string) string {
		var id string
		// column is one of two constants below, never input.
		if tx.QueryRow(`SELECT agent_id FROM agent_registry WHERE `+column+` = ?`, value).Scan(&id) != nil || id == "" {
			return "another agent"
		}
		return id
	}
	switch {
	case strings.Contains(msg, "agent_registry.fingerprint"):
		other := holder("fingerprint", p.Fingerprint)
		return fmt.Errorf("fingerprint %s is already pinned for %s; it is one certificate, one agent: stop trusting %s first (aoi peers refuse %s), then pin it for %s",
			p.Fingerprint, other, other, other, p.AgentID)
	case strings.Contains(msg, "agent_registry.node_id"):
		other := holder("node_id", p.NodeID)
		return fmt.Errorf("tailnet node %s is already bound to %s; stop trusting %s first (aoi peers refuse %s), then bind it to %s",
			p.NodeID, other, other, other, p.AgentID)
	}
	return fmt.Errorf("store: saving peer %s: %w", p.AgentID, err)
}

// SetPeerStatus records a peer's status and when it was last seen (a zero
// seen leaves last_seen unchanged). It reports no error for an unknown id.
func (tx *Tx) SetPeerStatus(agentID, status string, seen time.Time) error {
	var err error
	if seen.IsZero() {
		err = tx.Run(`UPDATE agent_registry SET status = ? WHERE agent_id = ?`, status, agentID)
	} else {
		err = tx.Run(`UPDATE agent_registry SET status = ?, last_seen = ? WHERE agent_id = ?`, status, formatTime(seen), agentID)
	}
	if err != nil {
		return fmt.Errorf("store: updating peer %s: %w", agentID, err)
	}
	return nil
}

// DeletePeer removes a peer from the registry.
func (tx *Tx) DeletePeer(agentID string) error {
	if err := tx.Run(`DELETE FROM agent_registry WHERE agent_id = ?`, agentID); err != nil {
		return fmt.Errorf("store: deleting peer %s: %w", agentID, err)
	}
	return nil
}

// Peer returns the peer with this agent id.
func (db *DB) Peer(ctx context.Context, agentID string) (PeerRecord, bool, error) {
	return db.peerWhere(ctx, `agent_id = ?`, agentID)
}

// PeerByFingerprint returns the peer pinned to this certificate fingerprint.
func (db *DB) PeerByFingerprint(ctx context.Context, fingerprint string) (PeerRecord, bool, error) {
	if fingerprint == "" {
		return PeerRecord{}, false, nil
	}
	return db.peerWhere(ctx, `fingerprint = ?`, fingerprint)
}

// PeerByNode returns the peer bound to this tailnet node id.
func (db *DB) PeerByNode(ctx context.Context, nodeID string) (PeerRecord, bool, error) {
	if nodeID == "" {
		return PeerRecord{}, false, nil
	}
	return db.peerWhere(ctx, `node_id = ?`, nodeID)
}

// Peer returns the peer with this agent id as the current transaction
// sees it: with the changes of the writes before it in the same group
// commit, which DB.Peer does not see until they are committed. A write
// that reads a peer, changes it and stores it again must read it here,
// or it may store back what another write of its batch just changed
// (a pin just removed, a role just taken away).
func (tx *Tx) Peer(agentID string) (PeerRecord, bool, error) {
	rows, err := tx.Query(`SELECT `+peerColumns+` FROM agent_registry WHERE agent_id = ? LIMIT 1`, agentID)
	if err != nil {
		return PeerRecord{}, false, fmt.Errorf("store: reading the registry: %w", err)
	}
	return firstPeer(rows)
}

func (db *DB) peerWhere(ctx context.Context, cond string, arg any) (PeerRecord, bool, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT `+peerColumns+` FROM agent_registry WHERE `+cond+` LIMIT 1`, arg)
	if err != nil {
		return PeerRecord{}, false, fmt.Errorf("store: reading the registry: %w", err)
	}
	return firstPeer(rows)
}

// firstPeer scans the first row of rows, if any, and closes them.
func firstPeer(rows *sql.Rows) (PeerRecord, bool, error) {
	defer rows.Close()
	if !rows.Next() {
		return PeerRecord{}, false, rows.Err()
	}
	p, err := scanPeer(rows)
	return p, err == nil, err
}

// Peers returns every peer, ordered by agent id.
func (db *DB) Peers(ctx context.Context) ([]PeerRecord, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT `+peerColumns+` FROM agent_registry ORDER BY agent_id`)
	if err != nil {
		return nil, fmt.Errorf("store: reading the registry: %w", err)
	}
	defer rows.Close()
	var out []PeerRecord
	for rows.Next() {
		p, err := scanPeer(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func scanPeer(rows *sql.Rows) (PeerRecord, error) {
	var p PeerRecord
	var contexts, taskTypes, caps sql.NullString
	var first, last string
	if err := rows.Scan(&p.AgentID, &p.Role, &p.Owner, &p.Endpoint, &p.Fingerprint, &p.NodeID, &p.NodeName,
		&p.Trust, &p.Status, &contexts, &taskTypes, &caps, &first, &last, &p.AnnouncedRole); err != nil {
		return p, fmt.Errorf("store: reading a registry row: %w", err)
	}
	var err error
	if p.Contexts, err = parseStrings(contexts); err != nil {
		return p, err
	}
	if p.TaskTypes, err = parseStrings(taskTypes); err != nil {
		return p, err
	}
	p.Capabilities = rawJSON(caps)
	if p.FirstSeen, err = parseTime(first); err != nil {
		return p, err
	}
	p.LastSeen, err = parseTime(last)
	return p, err
}

// TrustCaller is an unpinned caller as RecordTrustRequest records it.
type TrustCaller struct {
	Fingerprint    string
	ClaimedAgentID string
	Endpoint       string // where it says it listens; "" when it said nothing
	Source         string // where its call came from (not callable back)
}

// RecordTrustRequest notes that an unpinned caller with this fingerprint
// tried to call us: the first time it inserts, afterwards it updates the
// claimed id, addresses and last_seen and counts the attempt. With
// maxTrustRequests pending already, a new caller is not recorded (Full):
// the requests already listed stay, so a flood of fresh certificates,
// from however many addresses, cannot push a colleague's request out.
func (tx *Tx) RecordTrustRequest(c TrustCaller) (TrustRequestSeen, error) {
	var seen TrustRequestSeen
	var known int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM trust_requests WHERE fingerprint = ?`, c.Fingerprint).Scan(&known); err != nil {
		return seen, fmt.Errorf("store: reading a trust request: %w", err)
	}
	if known == 0 {
		var pending int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM trust_requests WHERE refused_at IS NULL`).Scan(&pending); err != nil {
			return seen, fmt.Errorf("store: counting trust requests: %w", err)
		}
		if pending >= maxTrustRequests {
			seen.Full = true
			return seen, nil
		}
	}
	now := formatTime(tx.Now())
	var attempts int64
	var refused sql.NullString
	err := tx.QueryRow(`INSERT INTO trust_requests(fingerprint, claimed_agent_id, addr, source, first_seen, last_seen, attempts)
		VALUES (?, ?, ?, ?, ?, ?, 1)
		ON CONFLICT(fingerprint) DO UPDATE SET claimed_agent_id = excluded.claimed_agent_id,
		addr = excluded.addr, source = excluded.source, last_seen = excluded.last_seen, attempts = attempts + 1
		RETURNING attempts, refused_at`,
		c.Fingerprint, c.ClaimedAgentID, c.Endpoint, c.Source, now, now).Scan(&attempts, &refused)
	if err != nil {
		return seen, fmt.Errorf("store: recording a trust request: %w", err)
	}
	seen.New, seen.Refused = attempts == 1, refused.Valid
	// Refusals are kept apart, newest first, so they too stay bounded.
	err = tx.Run(`DELETE FROM trust_requests WHERE fingerprint IN
		(SELECT fingerprint FROM trust_requests WHERE refused_at IS NOT NULL
		 ORDER BY last_seen DESC LIMIT -1 OFFSET ?)`, maxTrustRequests)
	if err != nil {
		return seen, fmt.Errorf("store: trimming refused trust requests: %w", err)
	}
	return seen, nil
}

// TrustRequestSeen is what RecordTrustRequest found: whether the caller is
// new (its first call since it was last trusted or forgotten), whether
// the owner refused it, and whether it was not recorded because the list
// of pending requests is full.
type TrustRequestSeen struct{ New, Refused, Full bool }

// RefuseTrustRequest marks a trust request refused: it stays (so the
// caller's next call is not a new request) but is listed no more. It
// reports whether there was one.
func (tx *Tx) RefuseTrustRequest(fingerprint string) (bool, error) {
	res, err := tx.Exec(`UPDATE trust_requests SET refused_at = ? WHERE fingerprint = ?`, formatTime(tx.Now()), fingerprint)
	if err != nil {
		return false, fmt.Errorf("store: refusing a trust request: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// maxTrustRequests bounds the pending trust requests, and the refused
// ones apart.
const maxTrustRequests = 500

// DeleteTrustRequest forgets a trust request (after trusting).
func (tx *Tx) DeleteTrustRequest(fingerprint string) error {
	if err := tx.Run(`DELETE FROM trust_requests WHERE fingerprint = ?`, fingerprint); err != nil {
		return fmt.Errorf("store: deleting a trust request: %w", err)
	}
	return nil
}

// TrustRequests lists pending trust requests (not refused), most recent first.
func (db *DB) TrustRequests(ctx context.Context) ([]TrustRequestRecord, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT fingerprint, claimed_agent_id, addr, source, first_seen, last_seen, attempts
		FROM trust_requests WHERE refused_at IS NULL ORDER BY last_seen DESC LIMIT 1000`)
	if err != nil {
		return nil, fmt.Errorf("store: reading trust requests: %w", err)
	}
	defer rows.Close()
	var out []TrustRequestRecord
	for rows.Next() {
		var r TrustRequestRecord
		var first, last string
		if err := rows.Scan(&r.Fingerprint, &r.ClaimedAgentID, &r.Addr, &r.Source, &first, &last, &r.Attempts); err != nil {
			return nil, fmt.Errorf("store: reading a trust request: %w", err)
		}
		if r.FirstSeen, err = parseTime(first); err != nil {
			return nil, err
		}
		if r.LastSeen, err = parseTime(last); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

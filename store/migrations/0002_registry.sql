-- Known peers (seed 002 agent_registry) and unpinned callers waiting for a
-- trust decision.
CREATE TABLE agent_registry(
    agent_id     TEXT PRIMARY KEY,
    role         TEXT NOT NULL DEFAULT '',
    owner        TEXT NOT NULL DEFAULT '',
    endpoint     TEXT NOT NULL DEFAULT '',
    fingerprint  TEXT NOT NULL DEFAULT '',
    node_id      TEXT NOT NULL DEFAULT '',
    node_name    TEXT NOT NULL DEFAULT '',
    trust        TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL DEFAULT 'offline',
    contexts     TEXT NOT NULL DEFAULT '[]',
    task_types   TEXT NOT NULL DEFAULT '[]',
    capabilities TEXT,
    first_seen   TEXT NOT NULL DEFAULT '',
    last_seen    TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX agent_registry_fingerprint ON agent_registry(fingerprint) WHERE fingerprint != '';
CREATE UNIQUE INDEX agent_registry_node ON agent_registry(node_id) WHERE node_id != '';

CREATE TABLE trust_requests(
    fingerprint      TEXT PRIMARY KEY,
    claimed_agent_id TEXT NOT NULL DEFAULT '',
    addr             TEXT NOT NULL DEFAULT '',
    first_seen       TEXT NOT NULL,
    last_seen        TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX trust_requests_last_seen ON trust_requests(last_seen);

-- Outgoing calls to peers, retried with back-off until delivered or expired.
CREATE TABLE outbox(
    id              TEXT PRIMARY KEY,
    to_agent        TEXT NOT NULL,
    method          TEXT NOT NULL,
    params          TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    expires_at      TEXT NOT NULL DEFAULT '',
    last_error      TEXT NOT NULL DEFAULT '',
    state           TEXT NOT NULL DEFAULT 'pending',
    delivered_at    TEXT
);
CREATE INDEX outbox_due ON outbox(state, next_attempt_at);
CREATE INDEX outbox_agent ON outbox(to_agent, state, created_at);

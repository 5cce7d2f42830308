-- Queries received from peers, and asks we sent.
CREATE TABLE queries(
    id            TEXT PRIMARY KEY,
    request_id    TEXT NOT NULL DEFAULT '',
    from_agent    TEXT NOT NULL,
    text          TEXT NOT NULL,
    context_scope TEXT NOT NULL DEFAULT '[]',
    priority      TEXT NOT NULL DEFAULT 'normal',
    state         TEXT NOT NULL,
    decision      TEXT NOT NULL DEFAULT '',
    confidence    REAL NOT NULL DEFAULT 0,
    draft         TEXT,
    answer        TEXT,
    received_at   TEXT NOT NULL,
    answered_at   TEXT
);
CREATE INDEX queries_received ON queries(received_at);
CREATE INDEX queries_state ON queries(state, received_at);

CREATE TABLE asks(
    request_id TEXT PRIMARY KEY,
    to_agent   TEXT NOT NULL,
    text       TEXT NOT NULL,
    sent_at    TEXT NOT NULL,
    result     TEXT
);

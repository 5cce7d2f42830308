-- aoi.notify messages received from peers, in arrival order. A peer's
-- retried delivery (same from_agent + msg_id) is stored once.
CREATE TABLE messages(
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    msg_id      TEXT NOT NULL DEFAULT '',
    from_agent  TEXT NOT NULL,
    event       TEXT NOT NULL,
    related_id  TEXT NOT NULL DEFAULT '',
    data        TEXT,
    received_at TEXT NOT NULL,
    read        INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX messages_dedupe ON messages(from_agent, msg_id) WHERE msg_id != '';

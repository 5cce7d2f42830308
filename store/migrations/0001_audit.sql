-- Hash-chained audit log (design §8). Rows are only ever appended by
-- (*Tx).AppendAudit; the hash scheme is documented in store/audit_hash.go.
CREATE TABLE audit_log(
    seq       INTEGER PRIMARY KEY,
    ts        TEXT NOT NULL,
    agent     TEXT NOT NULL,
    method    TEXT NOT NULL,
    result    TEXT NOT NULL,
    detail    TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
-- Two indexes only: each one costs a page write per commit on the hot path.
-- A result filter walks seq order, which is fine for the log's sizes.
CREATE INDEX audit_log_agent  ON audit_log(agent, seq);
CREATE INDEX audit_log_method ON audit_log(method, seq);

-- One row per pruning: vouches that the chain legitimately continues after
-- continues_from_seq (whose hash was continues_from_hash).
CREATE TABLE audit_checkpoints(
    id                  INTEGER PRIMARY KEY,
    continues_from_seq  INTEGER NOT NULL,
    continues_from_hash TEXT NOT NULL,
    removed_count       INTEGER NOT NULL,
    removed_from        INTEGER NOT NULL,
    removed_to          INTEGER NOT NULL,
    created_at          TEXT NOT NULL,
    hash                TEXT NOT NULL
);
CREATE INDEX audit_checkpoints_from ON audit_checkpoints(continues_from_seq);

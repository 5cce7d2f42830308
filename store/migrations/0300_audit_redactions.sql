-- Forgetting an agent (aoi forget) rewrites the audit rows that name it.
-- Each rewrite is recorded here: the row keeps its original hash (the next
-- row's prev_hash links to it) and redacted_hash is the chain hash of the
-- rewritten content. The chain's agent.forgotten row at anchor_seq vouches
-- for every entry of its batch with a digest (store/ops_redact.go).
CREATE TABLE audit_redactions(
    seq           INTEGER NOT NULL,
    anchor_seq    INTEGER NOT NULL,
    original_hash TEXT NOT NULL,
    redacted_hash TEXT NOT NULL,
    PRIMARY KEY (seq, anchor_seq)
);
CREATE INDEX audit_redactions_anchor ON audit_redactions(anchor_seq, seq);

-- progress: indexing the audit log by agent in batches
-- The audit log's agent index, kept in arrears. audit_log_agent put one
-- more B-tree page into every group commit on the aoi.query path (the
-- serial part of a request). The writer now adds the rows appended since
-- the last pass every few hundred rows (audit_agents.go); a listing by
-- agent reads this table up to `through` and walks the log's tail after it.
CREATE TABLE audit_agent_seqs(
    agent TEXT NOT NULL,
    seq   INTEGER NOT NULL,
    PRIMARY KEY (agent, seq)
) WITHOUT ROWID;
-- Every audit row up to seq `through` has its entry above.
CREATE TABLE audit_agent_seqs_through(
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    through INTEGER NOT NULL
);
INSERT INTO audit_agent_seqs(agent, seq) SELECT agent, seq FROM audit_log ORDER BY agent, seq;
INSERT INTO audit_agent_seqs_through(id, through) SELECT 1, COALESCE(MAX(seq), 0) FROM audit_log;
DROP INDEX IF EXISTS audit_log_agent;

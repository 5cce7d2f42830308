-- progress: moving the received questions' id index out of the write path
-- The received questions' index by id, kept in arrears like the audit
-- log's agent index (0500). The id's PRIMARY KEY was one more B-tree page
-- in every group commit on the aoi.query path (the serial part of a
-- request). The table is rebuilt without it, keeping every row's rowid
-- (arrival order); query_ids maps each id to its row up to `through`, and
-- the writer adds the rows received since every few hundred rows
-- (query_index.go). A lookup by id reads query_ids and walks the rows after
-- `through`.
CREATE TABLE queries_rebuilt(
    id            TEXT NOT NULL,
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
    answered_at   TEXT,
    draft_sources TEXT
);
INSERT INTO queries_rebuilt(rowid, id, request_id, from_agent, text, context_scope, priority, state, decision,
        confidence, draft, answer, received_at, answered_at, draft_sources)
    SELECT rowid, id, request_id, from_agent, text, context_scope, priority, state, decision,
        confidence, draft, answer, received_at, answered_at, draft_sources FROM queries ORDER BY rowid;
DROP TABLE queries;
ALTER TABLE queries_rebuilt RENAME TO queries;
CREATE INDEX queries_open ON queries(state)
    WHERE state = 'buffered' OR state = 'escalated' OR state = 'awaiting';

CREATE TABLE query_ids(
    id   TEXT PRIMARY KEY,
    qrow INTEGER NOT NULL
) WITHOUT ROWID;
-- Every question up to rowid `through` has its entry above.
CREATE TABLE query_ids_through(
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    through INTEGER NOT NULL
);
INSERT INTO query_ids(id, qrow) SELECT id, rowid FROM queries ORDER BY id;
INSERT INTO query_ids_through(id, through) SELECT 1, COALESCE(MAX(rowid), 0) FROM queries;

-- A deleted question leaves the index, and the mark never stays above the
-- newest row: SQLite gives the next row the rowid after the newest, which
-- after the newest is deleted is one the mark already covers.
CREATE TRIGGER queries_ad AFTER DELETE ON queries BEGIN
    DELETE FROM query_ids WHERE id = old.id AND qrow = old.rowid;
    UPDATE query_ids_through SET through = (SELECT COALESCE(MAX(rowid), 0) FROM queries)
        WHERE through > (SELECT COALESCE(MAX(rowid), 0) FROM queries);
END;

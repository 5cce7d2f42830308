-- progress: moving the open questions' index out of the write path
-- The open questions' index (queries_open) kept in arrears, as the id
-- index is (0510): one mark, queries_indexed.through, now covers both.
-- open_queries lists, up to the mark, every question waiting for the
-- owner (buffered, escalated, awaiting) by state; triggers keep it in
-- step as a question's state changes or it is deleted, and the writer
-- adds the questions received since with the ids (query_index.go). A
-- listing or count by open state reads open_queries and walks the rows
-- after the mark.
ALTER TABLE query_ids_through RENAME TO queries_indexed;
CREATE TABLE open_queries(
    state TEXT NOT NULL,
    qrow  INTEGER NOT NULL,
    PRIMARY KEY (state, qrow)
) WITHOUT ROWID;
INSERT INTO open_queries(state, qrow)
    SELECT state, rowid FROM queries
    WHERE (state = 'buffered' OR state = 'escalated' OR state = 'awaiting')
      AND rowid <= (SELECT through FROM queries_indexed WHERE id = 1)
    ORDER BY state, rowid;
DROP INDEX IF EXISTS queries_open;

DROP TRIGGER IF EXISTS queries_ad;
CREATE TRIGGER queries_ad AFTER DELETE ON queries BEGIN
    DELETE FROM query_ids WHERE id = old.id AND qrow = old.rowid;
    DELETE FROM open_queries WHERE state = old.state AND qrow = old.rowid;
    UPDATE queries_indexed SET through = (SELECT COALESCE(MAX(rowid), 0) FROM queries)
        WHERE through > (SELECT COALESCE(MAX(rowid), 0) FROM queries);
END;
-- A question up to the mark that changes state moves in open_queries;
-- one after it is seen as it is by the walk of the rows after the mark.
CREATE TRIGGER queries_au_state AFTER UPDATE OF state ON queries
WHEN old.state IS NOT new.state AND old.rowid <= (SELECT through FROM queries_indexed WHERE id = 1)
BEGIN
    DELETE FROM open_queries WHERE state = old.state AND qrow = old.rowid;
    INSERT OR IGNORE INTO open_queries(state, qrow) SELECT new.state, new.rowid
        WHERE new.state = 'buffered' OR new.state = 'escalated' OR new.state = 'awaiting';
END;

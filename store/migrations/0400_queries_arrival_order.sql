-- Received queries list in arrival order: the rowid, which the insert that
-- receives a query assigns. queries_received(received_at) only repeated that
-- order, and every index is one more page the writer dirties per commit on
-- the aoi.query path (the serial part of a request), so it goes.
-- queries_state keeps the state filter; an index entry carries the rowid,
-- so (state) alone serves "WHERE state = ? ORDER BY rowid DESC".
DROP INDEX IF EXISTS queries_received;
DROP INDEX IF EXISTS queries_state;
CREATE INDEX queries_state ON queries(state);

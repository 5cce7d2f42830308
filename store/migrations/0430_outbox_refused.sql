-- A pending entry the peer refused at least once (it answered with an error:
-- no ACL rule, not trusted, bad params), not only could not be reached. It
-- is still retried until it expires (the peer's owner may change trust or
-- config meanwhile), but `aoi status` counts it and the owner is told once.
ALTER TABLE outbox ADD COLUMN refused INTEGER NOT NULL DEFAULT 0;

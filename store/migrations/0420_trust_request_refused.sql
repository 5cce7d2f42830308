-- A refused trust request is kept, marked, instead of deleted: the caller
-- keeps calling (discovery, once a minute), and a deleted request came back
-- each time as new, ringing the owner again. A refused one is listed no
-- more and rings nobody; trusting the fingerprint later still works.
ALTER TABLE trust_requests ADD COLUMN refused_at TEXT;

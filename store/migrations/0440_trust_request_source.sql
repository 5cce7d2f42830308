-- A trust request keeps two addresses apart: addr is the endpoint the caller
-- said it listens on (empty when it said none), source the address its call
-- came from. Before, a caller that announced no endpoint had its source
-- address stored as the endpoint; pinning it from the request then pinned an
-- outgoing port nobody listens on.
ALTER TABLE trust_requests ADD COLUMN source TEXT NOT NULL DEFAULT '';

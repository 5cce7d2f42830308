-- Small key/value state: focus override, source cursors, …
CREATE TABLE settings(
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Context mirror (design §6): redacted events from git, tasks, the coding
-- assistant's transcripts and the owner's notes, with a full-text index.
CREATE TABLE context_events(
    id     INTEGER PRIMARY KEY,
    source TEXT NOT NULL,             -- git | task | transcript | note | assistant | testfile
    kind   TEXT NOT NULL,             -- commit | branch | worktree | marker | test | note | prompt | …
    ctx    TEXT NOT NULL DEFAULT '',  -- context identifier, e.g. acme/webapp
    key    TEXT NOT NULL DEFAULT '',  -- file path, commit sha, task id, …
    title  TEXT NOT NULL DEFAULT '',
    body   TEXT NOT NULL DEFAULT '',
    ts     TEXT NOT NULL,             -- formatTime
    meta   TEXT NOT NULL DEFAULT '{}' -- compact JSON
);
CREATE INDEX context_events_ts ON context_events(ts);
CREATE INDEX context_events_kind ON context_events(kind, ts);
CREATE INDEX context_events_state ON context_events(source, ctx, kind);

-- Substring index: the trigram tokenizer matches any run of ≥3 characters in
-- any script, so unsegmented Japanese works without a dictionary.
CREATE VIRTUAL TABLE context_fts USING fts5(
    title, body, key,
    content='context_events', content_rowid='id',
    columnsize=0,               -- ranking happens in Go: no per-row sizes needed
    tokenize='trigram'
);
-- Merge segments less eagerly (default 4): trigram indexing writes many
-- terms per row, and merging is most of an insert's cost; queries stay
-- fast because each walks one term newest-first with a LIMIT.
INSERT INTO context_fts(context_fts, rank) VALUES ('automerge', 8);

-- Short-term index: 1–2 character terms cannot use trigrams. Each row holds
-- the CJK bigrams (and lone CJK characters) and the 1–2 letter words of its
-- event, computed in Go, so "認証" or "db" is an indexed token lookup rather
-- than a LIKE scan. Contentless: it only maps tokens to event ids.
CREATE VIRTUAL TABLE context_short USING fts5(
    grams,
    content='', contentless_delete=1,
    tokenize='unicode61 remove_diacritics 0'
);

CREATE TRIGGER context_events_ai AFTER INSERT ON context_events BEGIN
    INSERT INTO context_fts(rowid, title, body, key) VALUES (new.id, new.title, new.body, new.key);
END;
CREATE TRIGGER context_events_ad AFTER DELETE ON context_events BEGIN
    INSERT INTO context_fts(context_fts, rowid, title, body, key) VALUES ('delete', old.id, old.title, old.body, old.key);
    DELETE FROM context_short WHERE rowid = old.id;
END;
CREATE TRIGGER context_events_au AFTER UPDATE ON context_events BEGIN
    INSERT INTO context_fts(context_fts, rowid, title, body, key) VALUES ('delete', old.id, old.title, old.body, old.key);
    INSERT INTO context_fts(rowid, title, body, key) VALUES (new.id, new.title, new.body, new.key);
END;

-- Where each source stopped: git's last indexed commit per context, a
-- transcript file's byte offset, a state digest, … Written in the same
-- transaction as the events they cover, so a restart neither loses nor
-- repeats events.
CREATE TABLE context_cursors(
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Tasks this agent runs for peers, their state history, and the approval
-- inbox (design §7). States are the task package's; the store does not
-- judge them beyond the conditional updates that stop two writers racing.
CREATE TABLE tasks(
    id           TEXT PRIMARY KEY,
    request_id   TEXT NOT NULL DEFAULT '',
    requester    TEXT NOT NULL,
    task_type    TEXT NOT NULL,
    params       TEXT NOT NULL DEFAULT '{}',
    ref          TEXT NOT NULL DEFAULT '',
    state        TEXT NOT NULL,
    exit_code    INTEGER,
    output       TEXT,
    error        TEXT NOT NULL DEFAULT '',
    worktree     TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    started_at   TEXT,
    finished_at  TEXT,
    heartbeat_at TEXT
);
CREATE INDEX tasks_state ON tasks(state, created_at);
CREATE INDEX tasks_created ON tasks(created_at);
CREATE INDEX tasks_requester ON tasks(requester, created_at);

CREATE TABLE task_transitions(
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    from_state TEXT NOT NULL,
    to_state   TEXT NOT NULL,
    at         TEXT NOT NULL,
    reason     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX task_transitions_task ON task_transitions(task_id, id);

CREATE TABLE approvals(
    id           TEXT PRIMARY KEY,
    task_id      TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    requester    TEXT NOT NULL,
    task_type    TEXT NOT NULL,
    params       TEXT NOT NULL DEFAULT '{}',
    matched_rule TEXT NOT NULL DEFAULT '',
    state        TEXT NOT NULL,
    reason       TEXT NOT NULL DEFAULT '',
    decided_by   TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    expires_at   TEXT NOT NULL,
    decided_at   TEXT
);
CREATE INDEX approvals_state ON approvals(state, expires_at);
CREATE INDEX approvals_task ON approvals(task_id);
CREATE INDEX approvals_created ON approvals(created_at);

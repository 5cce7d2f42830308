-- Typed messages between coding assistants (aoi.message, seed 004) share
-- the inbox with aoi.notify: an empty type is a notification. origin is
-- the first sender when an orchestrator relays a message.
ALTER TABLE messages ADD COLUMN type      TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN task_id   TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN thread_id TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN reply_to  TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN origin    TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN priority  TEXT NOT NULL DEFAULT '';
CREATE INDEX messages_task ON messages(task_id, seq) WHERE task_id != '';

-- Coordination tasks (seed 004) as this agent sees them, one row per task
-- and counterpart, moved by the typed messages it sends and receives.
CREATE TABLE coord_tasks(
    task_id    TEXT NOT NULL,
    peer       TEXT NOT NULL,  -- the other side
    side       TEXT NOT NULL,  -- requester | assignee
    state      TEXT NOT NULL,  -- assigned | in_progress | review | done | failed
    summary    TEXT NOT NULL DEFAULT '',
    last_type  TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY(task_id, peer)
);

-- When the requester was told a task's outcome; NULL on a finished task
-- means the notify is still owed (resent after a crash).
ALTER TABLE tasks ADD COLUMN notified_at TEXT;
CREATE INDEX tasks_unnotified ON tasks(state) WHERE notified_at IS NULL;

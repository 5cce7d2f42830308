-- The commit a task's ref named when the peer asked: what the owner
-- approves is what runs, however the branch moves in between.
ALTER TABLE tasks ADD COLUMN ref_commit TEXT NOT NULL DEFAULT '';

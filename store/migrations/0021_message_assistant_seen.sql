-- Whether the coding assistant has been shown a message (aoi_check_messages
-- with unread: true). Separate from read, which is the owner's mark in the
-- interface and the CLI, so neither hides messages from the other.
ALTER TABLE messages ADD COLUMN assistant_seen INTEGER NOT NULL DEFAULT 0;

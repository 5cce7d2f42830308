-- The messages nobody has seen yet (neither the owner nor the assistant),
-- by sender: a peer's next message is refused past
-- network.max_unread_messages_per_peer, counted at every message.
CREATE INDEX messages_unseen_from ON messages(from_agent) WHERE read = 0 AND assistant_seen = 0;

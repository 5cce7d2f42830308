-- What this agent asked that is still waiting for an answer (Status,
-- aoi inbox, the interface's Messages title): an ask is answered by a
-- message whose related_id is its request id, looked up through this index
-- instead of a walk of every message per ask. Only messages that answer
-- something have a related_id.
CREATE INDEX messages_related ON messages(related_id) WHERE related_id != '';
-- Asks are listed newest first.
CREATE INDEX asks_sent ON asks(sent_at);

-- The role an ACL rule matches is the one the owner gives a peer (`aoi peers
-- trust --role`, peers[] in the config); what a peer announces about itself
-- is kept apart, as information only. Roles stored before this migration
-- came from announcements, so they move to announced_role.
ALTER TABLE agent_registry ADD COLUMN announced_role TEXT NOT NULL DEFAULT '';
UPDATE agent_registry SET announced_role = role, role = '';

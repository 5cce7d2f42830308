-- What a received query's draft was drawn from: the ACL resources (files,
-- folders, contexts) of the events the secretary built it on, as a JSON
-- list. Releasing the draft later checks each again under the ACL in force
-- then, so a folder rule added since stops it. NULL for a draft stored
-- before this column: its release checks the question's scope only.
ALTER TABLE queries ADD COLUMN draft_sources TEXT;

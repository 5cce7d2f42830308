-- Commits indexed before this release may list fewer files than they
-- touched (a binary, an empty file or a mode change had no path in the
-- patch; a name with a space kept a tab; a rename lost its old place), and
-- the ACL judges a commit by that list. They are indexed again, every file
-- named (git log --raw): the next poll walks the history afresh.
DELETE FROM context_events WHERE source = 'git' AND kind = 'commit';
DELETE FROM context_cursors WHERE name LIKE 'git:%:head' OR name LIKE 'git:%:backfill' OR name LIKE 'git:%:state:worktree';

-- The interface's prompt-bar history (what the owner typed after @ and :),
-- kept across restarts. Lines are redacted by the core before they get
-- here; AddPromptLine keeps only the newest few hundred.
CREATE TABLE prompt_history(
    seq  INTEGER PRIMARY KEY,
    line TEXT NOT NULL,
    at   TEXT NOT NULL
);

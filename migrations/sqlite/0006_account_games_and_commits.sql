-- The games each account was placed in, invited to or sat down at (see the Postgres
-- migration): a hint for the inbox, which the game's log confirms.

CREATE TABLE account_games (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game_id    TEXT NOT NULL,
    added_at   TEXT NOT NULL,
    PRIMARY KEY (account_id, game_id)
) STRICT;

-- Which commit wrote each entry, for the feed's readers (`Committed::commit`): the position of
-- the commit's first entry. Postgres has the transaction id for this; SQLite, which commits one
-- writer at a time, numbers commits by where they start. Entries written before this migration
-- keep NULL (the log is append-only: no row is updated) and are read as commits of their own.
ALTER TABLE events ADD COLUMN commit_position INTEGER;

-- Issue 35, items 9 and 10 (see the Postgres migration): snapshots carry a MAC under a key
-- derived from the operator's signing key, and finished games' heads are kept in an
-- append-only public list, numbered without gaps in commit order (SQLite has one writer).
ALTER TABLE snapshots ADD COLUMN mac TEXT;

CREATE TABLE checkpoints (
    position   INTEGER NOT NULL PRIMARY KEY,
    game_id    TEXT NOT NULL UNIQUE,
    seq        INTEGER NOT NULL,
    hash       TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints
BEGIN
    SELECT RAISE(ABORT, 'the list of checkpoints is append-only: UPDATE is not allowed');
END;

CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints
BEGIN
    SELECT RAISE(ABORT, 'the list of checkpoints is append-only: DELETE is not allowed');
END;

-- The feed position becomes the table's own key (INTEGER PRIMARY KEY, SQLite's rowid), so
-- every event writes two b-trees instead of three: the table keyed by position and the index
-- on (game_id, seq); events_by_position goes. SQLite numbers a row inserted without a position
-- one past the largest stored, which under the one writer is exactly the feed's rule, and
-- keeps the number through VACUUM (it is the key, not a hidden rowid). Rows keep their
-- positions; the log's triggers are put back as they were, less the one that demanded a
-- position (a key is never null).
DROP TRIGGER events_no_update;
DROP TRIGGER events_no_delete;
DROP TRIGGER events_need_a_position;

CREATE TABLE events_keyed (
    position      INTEGER PRIMARY KEY,
    game_id       TEXT NOT NULL REFERENCES games (id),
    seq           INTEGER NOT NULL,
    type          TEXT NOT NULL,
    actor         INTEGER,
    data          TEXT NOT NULL,
    command       TEXT,
    at            TEXT NOT NULL,
    prev_hash     TEXT NOT NULL,
    hash          TEXT NOT NULL,
    sealed        TEXT,
    event_version INTEGER NOT NULL DEFAULT 1,
    UNIQUE (game_id, seq)
) STRICT;

INSERT INTO events_keyed (position, game_id, seq, type, actor, data, command, at, prev_hash, hash, sealed, event_version)
SELECT position, game_id, seq, type, actor, data, command, at, prev_hash, hash, sealed, event_version
FROM events;

DROP TABLE events;
ALTER TABLE events_keyed RENAME TO events;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: UPDATE is not allowed');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: DELETE is not allowed');
END;

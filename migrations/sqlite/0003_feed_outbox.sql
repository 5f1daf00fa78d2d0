-- The post-commit bus (issue 9): event versions, a store-wide feed position, an outbox, and
-- leader leases. Forward from 0002 with data in it.

-- The version of each event's data shape: 1 for every shape so far; a reader upcasts older
-- shapes when one changes.
ALTER TABLE events ADD COLUMN event_version INTEGER NOT NULL DEFAULT 1;

-- The feed position. One writer at a time, so positions (handed out under the write lock)
-- are commit order. SQLite cannot add a column with a computed default, so existing rows are
-- numbered by an UPDATE: the append-only trigger is lifted for that one statement, inside this
-- migration's transaction, and put back exactly as it was. rowid is the order the rows were
-- written in (nothing is ever deleted), but VACUUM may renumber it, so it is copied, not used.
ALTER TABLE events ADD COLUMN position INTEGER;

DROP TRIGGER events_no_update;

UPDATE events SET position = rowid;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: UPDATE is not allowed');
END;

-- The column cannot be made NOT NULL after the fact; a trigger refuses a row without one.
CREATE TRIGGER events_need_a_position BEFORE INSERT ON events
WHEN NEW.position IS NULL
BEGIN
    SELECT RAISE(ABORT, 'every event needs a feed position');
END;

CREATE UNIQUE INDEX events_by_position ON events (position);

-- Work that must not be lost (see the Postgres migration). Mutable by design.
CREATE TABLE outbox (
    id           INTEGER PRIMARY KEY,
    game_id      TEXT NOT NULL REFERENCES games (id),
    topic        TEXT NOT NULL,
    payload      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    available_at TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    done_at      TEXT
) STRICT;

CREATE INDEX outbox_due ON outbox (available_at, id) WHERE done_at IS NULL;

-- Leaders for work done once across every process on this file: a lease renewed while the
-- leader lives, taken over once it has run out.
CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at TEXT NOT NULL
) STRICT;

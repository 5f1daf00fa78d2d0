-- Parlour's event store (SQLite). Same shape as the Postgres schema; times are RFC 3339 text
-- with microseconds in UTC, JSON is text.

CREATE TABLE games (
    id              TEXT PRIMARY KEY,
    game            TEXT NOT NULL,
    players         TEXT NOT NULL,
    options         TEXT NOT NULL,
    seed            BLOB NOT NULL,
    seed_commitment TEXT NOT NULL,
    created_at      TEXT NOT NULL
) STRICT;

CREATE TABLE seats (
    game_id    TEXT NOT NULL REFERENCES games (id),
    seat       INTEGER NOT NULL,
    name       TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    PRIMARY KEY (game_id, seat)
) STRICT;

CREATE TABLE events (
    game_id   TEXT NOT NULL REFERENCES games (id),
    seq       INTEGER NOT NULL,
    type      TEXT NOT NULL,
    actor     INTEGER,
    data      TEXT NOT NULL,
    command   TEXT,
    at        TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) STRICT;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: UPDATE is not allowed');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: DELETE is not allowed');
END;

CREATE TABLE idempotency_keys (
    game_id     TEXT NOT NULL REFERENCES games (id),
    seat        INTEGER NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    version     INTEGER NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (game_id, seat, key)
) STRICT;

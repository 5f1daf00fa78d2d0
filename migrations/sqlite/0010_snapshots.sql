-- Snapshots of long games' tables (see the Postgres migration): a cache derived from the log,
-- checked against its hash chain before use. Times are the store's fixed-width text.
CREATE TABLE snapshots (
    game_id       TEXT NOT NULL REFERENCES games (id),
    version       INTEGER NOT NULL,
    hash          TEXT NOT NULL,
    rules_version INTEGER NOT NULL,
    format        INTEGER NOT NULL,
    state         TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
) STRICT;

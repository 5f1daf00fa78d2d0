-- Matches (see the Postgres migration). Times are the store's fixed-width text.
CREATE TABLE matches (
    id         TEXT PRIMARY KEY,
    game       TEXT NOT NULL,
    record     TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

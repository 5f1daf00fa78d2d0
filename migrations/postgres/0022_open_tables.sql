-- Open tables (issue 40). A host may list a new table among the open tables
-- (`GET /v1/tables`), where strangers find it and join. Whether a table is listed, and until
-- when, is in its log (`table.listed`); this table is only the index the list is read
-- through, written just before the game is stored, like `account_games`: a row whose game
-- does not exist, has begun or has ended is skipped by the list, which deletes it, and rows
-- past their `listed_until` are purged by housekeeping.
CREATE TABLE listings (
    game_id      UUID PRIMARY KEY,
    game         TEXT NOT NULL,
    players      INTEGER NOT NULL,
    clock        TEXT NOT NULL CHECK (clock IN ('none', 'correspondence', 'bank')),
    listed_until TIMESTAMPTZ NOT NULL
);
CREATE INDEX listings_until ON listings (listed_until);

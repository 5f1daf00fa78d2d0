-- Issue 35, items 9 and 10 ("Audit").
--
-- Snapshots are authenticated: `mac` is HMAC-SHA256, under a key derived from the operator's
-- signing key file (never stored here), of the snapshot's bytes and the entry it was taken at.
-- A snapshot whose MAC does not hold (an edited row, or one written before this migration,
-- which has none) is passed over for the log, and the audit reports one that was changed.
ALTER TABLE snapshots ADD COLUMN mac TEXT;

-- The public list of finished games' heads, `GET /v1/checkpoints`: one row per game, written
-- when the game ends, served signed by the receipt key, and never changed. `position` numbers
-- the rows 1, 2, 3, ... in commit order with no gap (each insert takes the next number under
-- a lock: games end rarely), so a mirror paging by it misses nothing and a removed row leaves
-- a gap. Not a foreign key of `games`: a checkpoint outlives anything done to the game's rows.
CREATE TABLE checkpoints (
    position   BIGINT NOT NULL PRIMARY KEY,
    game_id    UUID NOT NULL UNIQUE,
    seq        BIGINT NOT NULL,
    hash       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE FUNCTION checkpoints_are_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the list of checkpoints is append-only: % is not allowed', TG_OP;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER checkpoints_append_only
    BEFORE UPDATE OR DELETE ON checkpoints
    FOR EACH ROW EXECUTE FUNCTION checkpoints_are_append_only();

CREATE TRIGGER checkpoints_no_truncate
    BEFORE TRUNCATE ON checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION checkpoints_are_append_only();

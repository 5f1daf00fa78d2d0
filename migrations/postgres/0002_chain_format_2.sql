-- Chain format 2 (docs/audit.md): salted seed commitments, sealed events, and a recorded head.
--
-- Everything that is hashed is now stored as the exact canonical text that was hashed: jsonb
-- rewrites numbers (1e308 becomes a 309-digit integer, -0.0 becomes 0), so what was read back
-- was not always what had been hashed. Existing rows keep their values; jsonb's text form
-- parses to the same values their hashes were taken over.

ALTER TABLE games ALTER COLUMN players TYPE TEXT USING players::text;
ALTER TABLE games ALTER COLUMN options TYPE TEXT USING options::text;
ALTER TABLE games ADD COLUMN chain SMALLINT NOT NULL DEFAULT 1;
ALTER TABLE games ADD COLUMN salt BYTEA;
ALTER TABLE games ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE games ALTER COLUMN chain DROP DEFAULT;

ALTER TABLE events ALTER COLUMN data TYPE TEXT USING data::text;
ALTER TABLE events ALTER COLUMN command TYPE TEXT USING command::text;
ALTER TABLE events ADD COLUMN sealed TEXT;

-- Where each log ends, written with every append: a log cut short (its last batch deleted
-- behind the triggers' back) no longer ends where the store recorded it.
CREATE TABLE game_heads (
    game_id   UUID PRIMARY KEY REFERENCES games (id),
    version   BIGINT NOT NULL,
    head_hash TEXT NOT NULL
);

INSERT INTO game_heads (game_id, version, head_hash)
SELECT DISTINCT ON (game_id) game_id, seq, hash FROM events ORDER BY game_id, seq DESC;

CREATE FUNCTION game_heads_only_advance() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.version <= OLD.version THEN
        RAISE EXCEPTION 'a game''s recorded head only moves forward: % is not allowed', TG_OP;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER game_heads_forward
    BEFORE UPDATE OR DELETE ON game_heads
    FOR EACH ROW EXECUTE FUNCTION game_heads_only_advance();

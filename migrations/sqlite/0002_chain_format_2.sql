-- Chain format 2 (docs/audit.md): salted seed commitments, sealed events, and a recorded head.
-- JSON was already stored as text here.

ALTER TABLE games ADD COLUMN chain INTEGER NOT NULL DEFAULT 1;
ALTER TABLE games ADD COLUMN salt BLOB;
ALTER TABLE games ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1;

ALTER TABLE events ADD COLUMN sealed TEXT;

-- Where each log ends, written with every append: a log cut short no longer ends where the
-- store recorded it.
CREATE TABLE game_heads (
    game_id   TEXT PRIMARY KEY REFERENCES games (id),
    version   INTEGER NOT NULL,
    head_hash TEXT NOT NULL
) STRICT;

INSERT INTO game_heads (game_id, version, head_hash)
SELECT e.game_id, e.seq, e.hash FROM events e
WHERE e.seq = (SELECT MAX(seq) FROM events WHERE game_id = e.game_id);

CREATE TRIGGER game_heads_no_delete BEFORE DELETE ON game_heads
BEGIN
    SELECT RAISE(ABORT, 'a game''s recorded head only moves forward: DELETE is not allowed');
END;

CREATE TRIGGER game_heads_forward BEFORE UPDATE ON game_heads
WHEN NEW.version <= OLD.version
BEGIN
    SELECT RAISE(ABORT, 'a game''s recorded head only moves forward');
END;

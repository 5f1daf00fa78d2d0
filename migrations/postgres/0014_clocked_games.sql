-- Issue 35, item 1: the clock sweeper finds every clocked game from the logs, not from its notes.
--
-- A note in `game_attention` could be lost (a sweep that read it before its game was stored
-- deleted it), and a leader taking over looked only at the notes, so such a game never timed
-- out. The log is the truth: a game is clocked exactly when its opening entries hold a
-- `table.clock_set`, and this index lets the leader list those games without reading every
-- log. `clocks_ended` lists the clocked games the sweeper has seen end (a game over stays
-- over), so a leader taking over does not fold every finished game again; a game missing from
-- it is only looked at once more.
CREATE INDEX events_clock_set ON events (game_id) WHERE type = 'table.clock_set';

CREATE TABLE clocks_ended (
    game_id  UUID PRIMARY KEY REFERENCES games (id),
    ended_at TIMESTAMPTZ NOT NULL
);

-- The clock sweeper finds every clocked game from the logs, not from its notes (see the
-- Postgres migration 0014).
CREATE INDEX events_clock_set ON events (game_id) WHERE type = 'table.clock_set';

CREATE TABLE clocks_ended (
    game_id  TEXT PRIMARY KEY REFERENCES games (id),
    ended_at TEXT NOT NULL
) STRICT;

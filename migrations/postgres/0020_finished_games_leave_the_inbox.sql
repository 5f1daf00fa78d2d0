-- When each of an account's games ended, so that the inbox's live part reads only the games
-- still being played, however many an account has finished (issue 39): an account with ten
-- thousand finished games gets its live games as fast as a new one, and pages through the
-- finished ones newest first. Like the rest of the table it is a hint: set after the commit
-- that ends the game, and by the inbox itself when it finds a game over whose row says
-- otherwise (rows written before this migration, or a mark lost to a crash).

ALTER TABLE account_games ADD COLUMN finished_at TIMESTAMPTZ;

CREATE INDEX account_games_live ON account_games (account_id, game_id)
    WHERE finished_at IS NULL;

-- Games that ended before now and have their checkpoint, marked with its time. Any other game
-- that is over (ended before checkpoints were kept, or its checkpoint still to be written) is
-- found over, and marked, by the inbox's live part the first time it reads it.
UPDATE account_games SET finished_at = c.created_at
    FROM checkpoints c WHERE c.game_id = account_games.game_id;

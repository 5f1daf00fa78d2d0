-- When each of an account's games ended (see the Postgres migration): the inbox's live part
-- reads only the games still being played.

ALTER TABLE account_games ADD COLUMN finished_at TEXT;

CREATE INDEX account_games_live ON account_games (account_id, game_id)
    WHERE finished_at IS NULL;

-- Games that ended before now, from their checkpoints (see the Postgres migration).
UPDATE account_games SET finished_at =
    (SELECT c.created_at FROM checkpoints c WHERE c.game_id = account_games.game_id)
    WHERE game_id IN (SELECT game_id FROM checkpoints);

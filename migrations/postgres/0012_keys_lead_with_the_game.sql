-- Every key of a game's rows leads with the game's id (issue 16, target 6; docs/distribution.md),
-- so that Citus can distribute the game tables by it unchanged: a unique constraint there must
-- hold the distribution column.
--
-- A seat's token is unique within its game, and is looked up with the game the request names
-- (`rows::SEAT_FOR_TOKEN`); the plain index on the hash serves only the lookup that tells a
-- token of another game from no token at all, which runs only on a refused request. A token
-- holds 256 random bits, so a hash shared by two seats is not a case to design for.
ALTER TABLE seats DROP CONSTRAINT seats_token_hash_key;
ALTER TABLE seats ADD CONSTRAINT seats_token_in_game UNIQUE (game_id, token_hash);
CREATE INDEX seats_by_token ON seats (token_hash);

-- An outbox message is named by its game and its id: the identity is then only an order, per
-- node on Citus, which is all it is used for (one game's messages in order, a claim's cursor).
ALTER TABLE outbox DROP CONSTRAINT outbox_pkey;
ALTER TABLE outbox ADD PRIMARY KEY (game_id, id);

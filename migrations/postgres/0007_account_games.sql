-- The games each account was placed in, invited to or sat down at: the index behind
-- `GET /v1/me/games` and `/v1/me/stream`. It is a hint, written just before the table event
-- that seats or invites the account, never instead of it: the game's log decides who sits
-- where, and a row whose game does not name the account (its claim lost a race) is skipped
-- when read. So a crash between the two leaves at worst a row that is skipped.

CREATE TABLE account_games (
    account_id UUID NOT NULL REFERENCES accounts (id),
    game_id    UUID NOT NULL,
    added_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (account_id, game_id)
);

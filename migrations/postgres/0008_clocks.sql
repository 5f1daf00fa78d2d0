-- Move clocks and vacations (issue 11, parts 3 and 4), and sign-in codes for a second device.
--
-- `game_attention` says when each clocked game next needs the clock sweeper: a reminder or a
-- deadline falls due. It is derived from the game's log, which has the last word: the sweeper
-- folds the log and records only what is due by it, so a row that is early costs one look and
-- is corrected. A row is written before a clocked game is created (a game that was never
-- stored is skipped and its row dropped) and after each commit to it; the leader looks at
-- every row once when it takes over, so a commit whose row update was lost to a crash is seen
-- after the restart.
CREATE TABLE game_attention (
    game_id UUID PRIMARY KEY,
    due_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX game_attention_due ON game_attention (due_at);

-- Each account's vacations, for its yearly allowance of days. Starting and ending one is
-- recorded as table events in every game the account sits in; this is the account's side.
CREATE TABLE vacations (
    account_id UUID NOT NULL REFERENCES accounts (id),
    began_at   TIMESTAMPTZ NOT NULL,
    until      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (account_id, began_at)
);

-- One-time codes that sign an account in on another device: shown once to a signed-in
-- device, kept only as a hash, good for minutes and once, and only while the token that asked
-- for it is live.
CREATE TABLE sign_in_codes (
    code_hash  TEXT PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id),
    token_id   UUID NOT NULL REFERENCES account_tokens (id),
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);

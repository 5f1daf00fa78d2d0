-- Move clocks, vacations and sign-in codes (see the Postgres migration). Times are the
-- store's fixed-width text, so they compare as times.
CREATE TABLE game_attention (
    game_id TEXT PRIMARY KEY,
    due_at  TEXT NOT NULL
) STRICT;
CREATE INDEX game_attention_due ON game_attention (due_at);

CREATE TABLE vacations (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    began_at   TEXT NOT NULL,
    until      TEXT NOT NULL,
    PRIMARY KEY (account_id, began_at)
) STRICT;

CREATE TABLE sign_in_codes (
    code_hash  TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    token_id   TEXT NOT NULL REFERENCES account_tokens (id),
    expires_at TEXT NOT NULL,
    used_at    TEXT
) STRICT;

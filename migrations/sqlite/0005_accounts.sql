-- Accounts and their named bearer tokens (see the Postgres migration). Mutable tables, not
-- part of the hash-chained log; times are RFC 3339 text with microseconds in UTC.

CREATE TABLE accounts (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE account_tokens (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    name       TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
) STRICT;

CREATE INDEX account_tokens_live ON account_tokens (account_id, created_at) WHERE revoked_at IS NULL;

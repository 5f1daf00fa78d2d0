-- Accounts and their named bearer tokens (issue 11, part 1). These are ordinary mutable
-- tables, not part of the hash-chained log: a token is revoked by setting `revoked_at`, and
-- every request looks its token up here (no cache), so a revocation holds at once on every
-- instance.

CREATE TABLE accounts (
    id         UUID PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE account_tokens (
    id         UUID PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id),
    name       TEXT NOT NULL,
    -- SHA-256 of the token, exactly as seats keep theirs; the token is shown once, never stored.
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ
);

-- An account's live tokens, for `GET /v1/me`.
CREATE INDEX account_tokens_live ON account_tokens (account_id, created_at) WHERE revoked_at IS NULL;

-- Scopes and apps (issue 39). A token holds the scopes it was minted or granted with,
-- space-separated (`games:read games:play`); tokens made before scopes existed hold NULL,
-- which is read as every scope, as they could do everything. `app` is the OAuth `client_id` of
-- the app a token was granted to; NULL for the player's own tokens.
ALTER TABLE account_tokens ADD COLUMN scopes TEXT;
ALTER TABLE account_tokens ADD COLUMN app TEXT;
CREATE INDEX account_tokens_by_app ON account_tokens (account_id, app) WHERE app IS NOT NULL AND revoked_at IS NULL;

-- An authorization code (RFC 6749 §4.1), made when the player approves an app: only its hash
-- is kept. It works once, for a few minutes, only for the same `client_id` and `redirect_uri`,
-- only with the PKCE verifier of `code_challenge` (RFC 7636, S256), and only while the token
-- that approved it (`by_token`) is live. `token_id` is the token it was exchanged for: a code
-- presented again revokes that token (RFC 6749 §4.1.2).
CREATE TABLE oauth_codes (
    code_hash      TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id),
    by_token       TEXT NOT NULL REFERENCES account_tokens (id),
    client_id      TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    scopes         TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    expires_at     TEXT NOT NULL,
    token_id       TEXT REFERENCES account_tokens (id)
) STRICT;
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);

-- Passkeys (WebAuthn, issue 38): an account's passkeys sign it in on a new device without the
-- old one. `passkey` is the relying party's record of the credential (its public key and
-- signature counter, as webauthn-rs keeps it, JSON); `credential_id` is the authenticator's id
-- for it (base64url), unique across accounts, since a sign-in finds the passkey by it.
CREATE TABLE passkeys (
    id            UUID PRIMARY KEY,
    account_id    UUID NOT NULL REFERENCES accounts (id),
    name          TEXT NOT NULL,
    credential_id TEXT NOT NULL UNIQUE,
    passkey       TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    last_used_at  TIMESTAMPTZ
);
CREATE INDEX passkeys_by_account ON passkeys (account_id, created_at);

-- A registration or sign-in under way: the challenge the server sent and what it must check
-- the answer against. Read once (deleted as it is read), so an answer cannot be replayed;
-- kept in the database, not in one instance's memory, so any instance may finish it.
-- `state` names the registering account, if any (a sign-in has none).
CREATE TABLE passkey_ceremonies (
    id         UUID PRIMARY KEY,
    state      TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX passkey_ceremonies_expiry ON passkey_ceremonies (expires_at);

-- How each token came to be: 'account' (made with the account), 'token' (minted by a signed-in
-- device), 'code' (a sign-in code), 'passkey'. Tokens made before this column say nothing.
ALTER TABLE account_tokens ADD COLUMN signed_in_with TEXT;

-- A sign-in link mailed to a verified address (issue 38, a second way back): only the hash of
-- its code is kept (the mail's code is derived from the message id under the operator's key
-- when the mail is written, so the outbox holds no code either). It works once, for a short
-- time, and only while its address is still verified.
CREATE TABLE email_sign_in_codes (
    code_hash  TEXT PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id),
    address_id UUID NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);
-- Sign-in links find an account's verified addresses by the address itself.
CREATE INDEX webhooks_email_by_address ON webhooks (url) WHERE kind = 'email';

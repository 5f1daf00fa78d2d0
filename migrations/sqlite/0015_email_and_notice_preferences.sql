-- Email (issue 38) rides on the webhooks' tables like Web Push: an address is an endpoint of
-- kind 'email' (url 'mailto:<address>'), so the fan-out, the queue, the retries and the
-- delivery log are the webhooks' own. Nothing but the verification mail is sent to an address
-- before `verified_at`.
ALTER TABLE webhooks ADD COLUMN verified_at TEXT;
-- An account holds an address once.
CREATE UNIQUE INDEX webhooks_email_address ON webhooks (account_id, url) WHERE kind = 'email';

-- What an account is told on which channel, its quiet hours, time zone and digest: one JSON
-- document per account (service::preferences), absent until first changed.
CREATE TABLE notice_preferences (
    account_id  TEXT PRIMARY KEY REFERENCES accounts (id),
    preferences TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;

-- Each mail handed to the mail server, by account: the rate limit counts the last hour's
-- (one mail may carry several messages, so the delivery log cannot count them). Rows older
-- than a day are deleted as new ones are written.
CREATE TABLE mails_sent (
    account_id TEXT NOT NULL,
    at         TEXT NOT NULL
) STRICT;
CREATE INDEX mails_sent_by_account ON mails_sent (account_id, at);

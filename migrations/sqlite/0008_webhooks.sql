-- Webhooks (see the Postgres migration). Times are the store's fixed-width text.
CREATE TABLE webhooks (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    url             TEXT NOT NULL,
    description     TEXT NOT NULL,
    events          TEXT NOT NULL,
    enabled         INTEGER NOT NULL,
    disabled_reason TEXT,
    secret          TEXT NOT NULL,
    previous_secret TEXT,
    previous_until  TEXT,
    failing_since   TEXT,
    created_at      TEXT NOT NULL
) STRICT;
CREATE INDEX webhooks_account ON webhooks (account_id);

CREATE TABLE webhook_messages (
    -- The rowid: rising as messages are written, the order one endpoint's are sent in.
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    webhook_id   TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_type   TEXT NOT NULL,
    payload      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    state        TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_attempt TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt, seq) WHERE state = 'pending';
CREATE INDEX webhook_messages_of ON webhook_messages (webhook_id, seq);

CREATE TABLE webhook_attempts (
    id         INTEGER PRIMARY KEY,
    message_id TEXT NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
    at         TEXT NOT NULL,
    status     INTEGER,
    latency_ms INTEGER NOT NULL,
    response   TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_attempts_of ON webhook_attempts (message_id, id);

-- Webhooks (issue 12): endpoints an account registers, the messages owed to each, and every
-- attempt to deliver one.
--
-- A message is made from an outbox row written in the same transaction as the events it
-- tells of (api/src/service/webhooks.rs); its id is the `webhook-id` a receiver dedups on, the
-- same however often the fan-out runs (hence the primary key and ON CONFLICT DO NOTHING).
CREATE TABLE webhooks (
    id              UUID PRIMARY KEY,
    account_id      UUID NOT NULL REFERENCES accounts (id),
    url             TEXT NOT NULL,
    description     TEXT NOT NULL,
    -- The event types it is sent, as a JSON array of strings.
    events          TEXT NOT NULL,
    enabled         BOOLEAN NOT NULL,
    -- Why the server disabled it (410 Gone, three days of failures), for its owner.
    disabled_reason TEXT,
    -- The signing secret, sealed under the operator's key: a dump alone cannot sign.
    secret          TEXT NOT NULL,
    -- The secret before the last rotation, also signing until `previous_until`.
    previous_secret TEXT,
    previous_until  TIMESTAMPTZ,
    -- Since when every delivery has failed; cleared by a success.
    failing_since   TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhooks_account ON webhooks (account_id);

CREATE TABLE webhook_messages (
    id           TEXT PRIMARY KEY,
    -- The order the relay sends one endpoint's messages in.
    seq          BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    webhook_id   UUID NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_type   TEXT NOT NULL,
    -- The exact bytes sent and signed.
    payload      TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    -- pending, delivered or failed (out of attempts, or its endpoint disabled).
    state        TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_attempt TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt, seq) WHERE state = 'pending';
CREATE INDEX webhook_messages_of ON webhook_messages (webhook_id, seq);

CREATE TABLE webhook_attempts (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id TEXT NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
    at         TIMESTAMPTZ NOT NULL,
    -- The receiver's status, or null when no answer came (refused, timed out).
    status     INTEGER,
    latency_ms BIGINT NOT NULL,
    -- The first bytes of the answer, or why there was none.
    response   TEXT NOT NULL
);
CREATE INDEX webhook_attempts_of ON webhook_attempts (message_id, id);

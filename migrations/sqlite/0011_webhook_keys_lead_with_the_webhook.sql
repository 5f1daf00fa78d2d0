-- The webhook tables are keyed by their endpoint, as on Postgres (see its migration 0013), so
-- that the SQL both backends share names a message by its endpoint and its id. SQLite cannot
-- change a table's keys in place: the tables are made anew and their rows copied, attempts
-- taking their message's endpoint. The order matters with foreign keys on: the new attempts
-- refer to the new messages from the start, the old tables go child first (dropping a parent
-- would delete what refers to it), and renaming the new messages renames that reference too.
CREATE TABLE webhook_messages_new (
    -- The rowid: rising as messages are written, the order one endpoint's are sent in.
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL,
    webhook_id   TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_type   TEXT NOT NULL,
    payload      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    state        TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_attempt TEXT NOT NULL,
    UNIQUE (webhook_id, id)
) STRICT;
INSERT INTO webhook_messages_new
    (seq, id, webhook_id, event_type, payload, created_at, state, attempts, next_attempt)
    SELECT seq, id, webhook_id, event_type, payload, created_at, state, attempts, next_attempt
    FROM webhook_messages;

CREATE TABLE webhook_attempts_new (
    id         INTEGER PRIMARY KEY,
    webhook_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    at         TEXT NOT NULL,
    status     INTEGER,
    latency_ms INTEGER NOT NULL,
    response   TEXT NOT NULL,
    FOREIGN KEY (webhook_id, message_id)
        REFERENCES webhook_messages_new (webhook_id, id) ON DELETE CASCADE
) STRICT;
INSERT INTO webhook_attempts_new (id, webhook_id, message_id, at, status, latency_ms, response)
    SELECT a.id, m.webhook_id, a.message_id, a.at, a.status, a.latency_ms, a.response
    FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id;

DROP TABLE webhook_attempts;
DROP TABLE webhook_messages;
ALTER TABLE webhook_messages_new RENAME TO webhook_messages;
ALTER TABLE webhook_attempts_new RENAME TO webhook_attempts;
CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt, seq) WHERE state = 'pending';
CREATE INDEX webhook_messages_of ON webhook_messages (webhook_id, seq);
CREATE INDEX webhook_attempts_of ON webhook_attempts (webhook_id, message_id, id);

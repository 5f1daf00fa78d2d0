-- The webhook tables are keyed by their endpoint (issue 16, target 6; docs/distribution.md),
-- so that Citus can distribute them by `webhook_id`, co-located with the endpoint: a unique
-- constraint on a distributed table must hold the distribution column, and a foreign key
-- between two must join on it.
--
-- A message is named by its endpoint and its id; `seq` is then an order within the endpoint
-- (the order its messages are sent and listed in), which a per-node identity on Citus still
-- gives. An attempt carries its endpoint's id, so that it lives beside its message.
ALTER TABLE webhook_attempts ADD COLUMN webhook_id UUID;
UPDATE webhook_attempts a SET webhook_id = m.webhook_id
    FROM webhook_messages m WHERE m.id = a.message_id;
ALTER TABLE webhook_attempts ALTER COLUMN webhook_id SET NOT NULL;
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_message_id_fkey;
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey;

ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_pkey;
ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_seq_key;
ALTER TABLE webhook_messages ADD PRIMARY KEY (webhook_id, id);
ALTER TABLE webhook_messages ADD CONSTRAINT webhook_messages_seq_in_webhook UNIQUE (webhook_id, seq);
-- The unique constraint above is the index an endpoint's messages are listed by.
DROP INDEX webhook_messages_of;

ALTER TABLE webhook_attempts ADD PRIMARY KEY (webhook_id, id);
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_message
    FOREIGN KEY (webhook_id, message_id) REFERENCES webhook_messages (webhook_id, id) ON DELETE CASCADE;
DROP INDEX webhook_attempts_of;
CREATE INDEX webhook_attempts_of ON webhook_attempts (webhook_id, message_id, id);

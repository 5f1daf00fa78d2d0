-- Web Push subscriptions (issue 38) ride on the webhooks' tables: a browser's subscription is
-- an endpoint of kind 'push' whose messages are sealed to its keys (RFC 8291) instead of
-- signed, so the fan-out, the queue, the retries and the delivery log are the webhooks' own.
-- Its keys are kept sealed in `secret`; `token_id` is the device token that subscribed, and
-- the relay sends nothing once that token is revoked.
ALTER TABLE webhooks ADD COLUMN kind TEXT NOT NULL DEFAULT 'webhook';
ALTER TABLE webhooks ADD COLUMN token_id UUID;
-- A browser has one subscription per server: subscribing again replaces it.
CREATE UNIQUE INDEX webhooks_push_endpoint ON webhooks (url) WHERE kind = 'push';

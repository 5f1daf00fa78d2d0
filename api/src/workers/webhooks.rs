//! The webhooks' two workers: the outbox handler that fans each commit out into messages,
//! and the relay, a leader job, that sends them (`service::webhooks` does the work).

use std::sync::Arc;

use async_trait::async_trait;

use super::{LeaderJob, OutboxHandler};
use crate::service::webhooks::FAN_OUT_TOPIC;
use crate::service::Parlour;
use crate::store::OutboxItem;

/// Turns each commit's outbox row into the messages its accounts' endpoints are owed.
pub struct WebhookFanOut {
    service: Arc<Parlour>,
}

impl WebhookFanOut {
    /// A fan-out writing through `service`.
    pub fn new(service: Arc<Parlour>) -> Self {
        WebhookFanOut { service }
    }
}

#[async_trait]
impl OutboxHandler for WebhookFanOut {
    fn topic(&self) -> &str {
        FAN_OUT_TOPIC
    }

    async fn handle(&self, item: &OutboxItem) -> Result<(), String> {
        self.service
            .fan_out_webhooks(item.game, &item.payload)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

/// Sends due messages each tick, while this instance leads: one instance sends at a time,
/// so a message is never sent by two at once.
pub struct WebhookRelay {
    service: Arc<Parlour>,
}

impl WebhookRelay {
    /// A relay sending through `service`.
    pub fn new(service: Arc<Parlour>) -> Self {
        WebhookRelay { service }
    }
}

#[async_trait]
impl LeaderJob for WebhookRelay {
    fn name(&self) -> &str {
        "webhook-relay"
    }

    async fn tick(&self) -> Result<(), String> {
        let sent = self
            .service
            .webhooks()
            .relay()
            .await
            .map_err(|e| e.to_string())?;
        if sent > 0 {
            tracing::debug!(sent, "webhook relay attempted deliveries");
        }
        Ok(())
    }
}

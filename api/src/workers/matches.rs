//! The matches' worker: the outbox handler that deals a match's next game after the commit
//! that ended a deal (`service::matches` does the work).

use std::sync::Arc;

use async_trait::async_trait;

use super::OutboxHandler;
use crate::service::matches::MATCH_TOPIC;
use crate::service::Parlour;
use crate::store::OutboxItem;

/// Deals the next game of a match whose deal ended, once: the next deal's id is fixed by the
/// match and its number, so a message worked twice makes it once.
pub struct MatchDealer {
    service: Arc<Parlour>,
}

impl MatchDealer {
    /// A dealer creating games through `service`.
    pub fn new(service: Arc<Parlour>) -> Self {
        MatchDealer { service }
    }
}

#[async_trait]
impl OutboxHandler for MatchDealer {
    fn topic(&self) -> &str {
        MATCH_TOPIC
    }

    async fn handle(&self, item: &OutboxItem) -> Result<(), String> {
        self.service
            .deal_next(item.game)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

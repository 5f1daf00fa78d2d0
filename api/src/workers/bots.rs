//! The bots' worker: the outbox handler that plays a bot's move after each commit at a table
//! with a bot (`service::bots` does the work).

use std::sync::Arc;

use async_trait::async_trait;

use super::OutboxHandler;
use crate::service::bots::BOT_TOPIC;
use crate::service::Parlour;
use crate::store::OutboxItem;

/// Plays the bot seats a game waits for, one move per message: that move's commit writes the
/// next message.
pub struct BotPlayer {
    service: Arc<Parlour>,
}

impl BotPlayer {
    /// A player moving through `service`.
    pub fn new(service: Arc<Parlour>) -> Self {
        BotPlayer { service }
    }
}

#[async_trait]
impl OutboxHandler for BotPlayer {
    fn topic(&self) -> &str {
        BOT_TOPIC
    }

    async fn handle(&self, item: &OutboxItem) -> Result<(), String> {
        self.service
            .play_bot_turn(item.game)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

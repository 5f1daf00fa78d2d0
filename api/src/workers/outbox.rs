//! The outbox: durable work written in the same transaction as the events it follows, and
//! done at least once after the commit, even if the process dies in between.
//!
//! A use case that commits events asks the service's [`crate::service::AfterCommit`] policies
//! what must follow them, and the store writes those messages with the events, all or nothing.
//! This worker claims due messages (a claim is a lease: a message whose worker died comes back
//! when the lease runs out), hands each to the handler for its topic, and marks it done, or due
//! again later with a growing delay when the handler fails. A handler must therefore tolerate
//! seeing a message twice.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use tokio::sync::broadcast;
use uuid::Uuid;

use crate::store::{Committed, EventStore, OutboxItem};

/// Does one topic's durable work.
#[async_trait]
pub trait OutboxHandler: Send + Sync {
    /// The topic it handles, e.g. `webhook`: every message whose topic starts with it.
    fn topic(&self) -> &str;
    /// Does the work; an error means "try again later", with the reason kept for operators.
    async fn handle(&self, item: &OutboxItem) -> Result<(), String>;
}

/// How the outbox is worked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutboxSettings {
    /// How long a claimed message is this worker's before another may take it.
    pub lease: Duration,
    /// How often to look for due messages when no commit says there may be new ones.
    pub poll: Duration,
    /// The first delay after a failure; it doubles with each further failure.
    pub first_retry: Duration,
    /// The longest delay between two attempts.
    pub max_retry: Duration,
    /// How many messages one claim takes.
    pub batch: u64,
    /// How many games' messages are worked at once; one game's go one after another, in the
    /// order of its commits (and a claim never gives out a game's message while an earlier one
    /// is held elsewhere: `OutboxStore::claim_outbox`).
    pub concurrency: usize,
}

impl Default for OutboxSettings {
    fn default() -> Self {
        OutboxSettings {
            lease: Duration::from_secs(60),
            poll: Duration::from_secs(1),
            first_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(3600),
            batch: 100,
            concurrency: 16,
        }
    }
}

impl OutboxSettings {
    /// The delay before attempt `attempts + 1`, after `attempts` failed.
    pub fn backoff(&self, attempts: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempts.saturating_sub(1).min(30));
        self.first_retry.saturating_mul(factor).min(self.max_retry)
    }
}

/// Works the outbox until the process stops: after every commit the bus reports, and every
/// `poll` besides (for retries that fall due, and messages of other instances' dead workers).
pub async fn run_until_stopped(
    store: Arc<dyn EventStore>,
    mut commits: broadcast::Receiver<Committed>,
    handlers: Vec<Arc<dyn OutboxHandler>>,
    settings: OutboxSettings,
) {
    if handlers.is_empty() {
        return;
    }
    let handlers: HashMap<String, Arc<dyn OutboxHandler>> = handlers
        .into_iter()
        .map(|h| (h.topic().to_string(), h))
        .collect();
    loop {
        let mut full = false;
        for topic in handlers.keys() {
            // Claim only what a handler here can do: a claim holds a message for its lease.
            match store
                .claim_outbox(Some(topic), settings.batch, settings.lease)
                .await
            {
                Ok(items) => {
                    full |= items.len() as u64 == settings.batch;
                    // Games in parallel, each game's commits in order: a webhook fan-out is a
                    // few reads, and one after another they fall far behind a busy server.
                    let mut by_game: Vec<(Uuid, Vec<OutboxItem>)> = Vec::new();
                    for item in items {
                        match by_game.iter_mut().find(|(game, _)| *game == item.game) {
                            Some((_, run)) => run.push(item),
                            None => by_game.push((item.game, vec![item])),
                        }
                    }
                    futures_util::stream::iter(by_game)
                        .for_each_concurrent(settings.concurrency.max(1), |(_, run)| {
                            let (store, handlers) = (&store, &handlers);
                            async move {
                                for item in run {
                                    work(store.as_ref(), handlers, &settings, item).await;
                                }
                            }
                        })
                        .await;
                }
                Err(error) => tracing::warn!(%error, topic, "the outbox cannot be read"),
            }
        }
        if full {
            continue;
        }
        // Either a commit (which may have written messages) or the poll interval, whichever
        // comes first; a lagged receiver just means "look now".
        let _ = tokio::time::timeout(settings.poll, commits.recv()).await;
    }
}

/// Does one message of the outbox: in a span naming its game and topic, so that what a commit
/// set off (a bot's turn, a webhook, a match's next deal) is found under the game's id.
#[tracing::instrument(name = "outbox", level = "debug", skip_all, fields(game = %item.game, topic = %item.topic, id = item.id))]
async fn work(
    store: &dyn EventStore,
    handlers: &HashMap<String, Arc<dyn OutboxHandler>>,
    settings: &OutboxSettings,
    item: OutboxItem,
) {
    // A handler's topic is a prefix (`webhook` does `webhook.move`): the longest one wins.
    let Some(handler) = handlers
        .iter()
        .filter(|(topic, _)| item.topic.starts_with(topic.as_str()))
        .max_by_key(|(topic, _)| topic.len())
        .map(|(_, handler)| handler)
    else {
        return;
    };
    let result = match handler.handle(&item).await {
        Ok(()) => store.complete_outbox(item.game, item.id).await,
        Err(reason) => {
            let delay = settings.backoff(item.attempts.saturating_add(1));
            tracing::info!(id = item.id, topic = %item.topic, %reason, ?delay, "outbox work failed; will retry");
            let at = crate::store::now()
                + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::MAX);
            store.retry_outbox(item.game, item.id, &reason, at).await
        }
    };
    if let Err(error) = result {
        // The lease runs out and the message comes back: at least once, never lost.
        tracing::warn!(%error, id = item.id, "the outbox could not record the attempt");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_doubling_up_to_the_cap() {
        let settings = OutboxSettings {
            first_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(10),
            ..OutboxSettings::default()
        };
        let delays: Vec<u64> = (1..=6).map(|n| settings.backoff(n).as_secs()).collect();
        assert_eq!(delays, vec![1, 2, 4, 8, 10, 10]);
        assert_eq!(settings.backoff(u32::MAX).as_secs(), 10);
    }
}

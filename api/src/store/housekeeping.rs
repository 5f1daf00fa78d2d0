//! Rows that stop mattering: outbox work done long ago, idempotency keys past their lifetime,
//! webhook messages whose delivery log has been kept long enough and open tables' index rows
//! whose listing has ended. None is part of a log; each is deleted in bounded batches so a
//! purge never holds locks for long.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::rows;
use super::{time_text, Deadline, EventStore, PostgresStore, SqliteStore, StoreError};

/// What a purge deletes: everything of each kind from before its cutoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cutoffs {
    /// Outbox messages done before this.
    pub outbox_done: DateTime<Utc>,
    /// Idempotency keys made before this (they no longer replay anything).
    pub idempotency_keys: DateTime<Utc>,
    /// Webhook messages delivered or given up, made before this, with their attempts.
    pub webhook_messages: DateTime<Utc>,
    /// Open tables' index rows whose listing ended before this.
    pub listings: DateTime<Utc>,
}

/// How many rows of each kind one purge deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Purged {
    /// Outbox messages.
    pub outbox: u64,
    /// Idempotency keys.
    pub idempotency_keys: u64,
    /// Webhook messages (their attempts go with them).
    pub webhook_messages: u64,
    /// Index rows of tables no longer listed.
    pub listings: u64,
}

/// Deleting what no reader needs any more.
#[async_trait]
pub trait HousekeepingStore: Send + Sync {
    /// Deletes at most `limit` rows of each kind from before its cutoff.
    async fn purge(&self, cutoffs: &Cutoffs, limit: u64) -> Result<Purged, StoreError>;
}

const PURGE_OUTBOX: &str = "DELETE FROM outbox WHERE (game_id, id) IN \
     (SELECT game_id, id FROM outbox WHERE done_at < $1 LIMIT $2)";
const PURGE_KEYS: &str = "DELETE FROM idempotency_keys WHERE (game_id, seat, key) IN \
     (SELECT game_id, seat, key FROM idempotency_keys WHERE created_at < $1 LIMIT $2)";
const PURGE_MESSAGES: &str = "DELETE FROM webhook_messages WHERE (webhook_id, id) IN \
     (SELECT webhook_id, id FROM webhook_messages \
     WHERE state <> 'pending' AND created_at < $1 LIMIT $2)";
const PURGE_LISTINGS: &str = "DELETE FROM listings WHERE game_id IN \
     (SELECT game_id FROM listings WHERE listed_until <= $1 LIMIT $2)";

/// Each kind's statement with its cutoff, in the order of [`Purged`]'s fields.
fn statements(cutoffs: &Cutoffs) -> [(&'static str, DateTime<Utc>); 4] {
    [
        (PURGE_OUTBOX, cutoffs.outbox_done),
        (PURGE_KEYS, cutoffs.idempotency_keys),
        (PURGE_MESSAGES, cutoffs.webhook_messages),
        (PURGE_LISTINGS, cutoffs.listings),
    ]
}

impl From<[u64; 4]> for Purged {
    fn from([outbox, idempotency_keys, webhook_messages, listings]: [u64; 4]) -> Self {
        Purged {
            outbox,
            idempotency_keys,
            webhook_messages,
            listings,
        }
    }
}

fn limit(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// The one body of [`HousekeepingStore`] for a backend: `$id` and `$time` turn a `Uuid` and a time
/// into what the backend binds.
macro_rules! housekeeping_store {
    ($store:ty, $id:path, $time:path) => {
        #[async_trait]
        impl HousekeepingStore for $store {
            async fn purge(&self, cutoffs: &Cutoffs, count: u64) -> Result<Purged, StoreError> {
                let mut purged = [0; 4];
                for (n, (sql, before)) in statements(cutoffs).into_iter().enumerate() {
                    purged[n] = sqlx::query(sql)
                        .bind($time(&before))
                        .bind(limit(count))
                        .execute(&self.pool)
                        .await?
                        .rows_affected();
                }
                Ok(Purged::from(purged))
            }
        }
    };
}

housekeeping_store!(PostgresStore, rows::pg_id, rows::pg_time);
housekeeping_store!(SqliteStore, rows::sqlite_id, time_text);

bounded! {
    impl HousekeepingStore {
        write fn purge(&self, cutoffs: &Cutoffs, count: u64) -> Purged;
    }
}

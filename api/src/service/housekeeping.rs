//! How long rows outside the logs are kept, and the purge that deletes them after that.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{Clock, Result};
use crate::store::{Cutoffs, HousekeepingStore, Purged};

/// How long done outbox work is kept (to look into what a worker did, then gone).
pub const OUTBOX_KEPT: Duration = Duration::from_secs(7 * 24 * 3600);
/// How long a webhook's delivery log is kept: a month of messages and their attempts.
pub const DELIVERIES_KEPT: Duration = Duration::from_secs(30 * 24 * 3600);
/// The most rows of each kind one purge deletes, so that none holds locks for long.
pub const PURGE_BATCH: u64 = 10_000;

fn before(now: DateTime<Utc>, kept: Duration) -> DateTime<Utc> {
    now - chrono::Duration::from_std(kept).unwrap_or(chrono::Duration::MAX)
}

/// The housekeeping capability: what it needs, and nothing else (wired in
/// `Parlour::housekeeping`).
pub struct Housekeeping<'a> {
    /// The rows to purge.
    store: &'a dyn HousekeepingStore,
    /// What "ago" is measured from.
    clock: &'a dyn Clock,
    /// How long an idempotency key is remembered after its move.
    idempotency_lifetime: Duration,
}

impl<'a> Housekeeping<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        store: &'a dyn HousekeepingStore,
        clock: &'a dyn Clock,
        idempotency_lifetime: Duration,
    ) -> Self {
        Housekeeping {
            store,
            clock,
            idempotency_lifetime,
        }
    }

    /// Deletes what no reader needs any more, as of the service's clock: outbox work done
    /// more than [`OUTBOX_KEPT`] ago, idempotency keys past their lifetime (a retry with one
    /// is a new move by then anyway), and webhook messages older than [`DELIVERIES_KEPT`]
    /// that are no longer pending, and the open tables' index rows of listings that have
    /// ended. At most [`PURGE_BATCH`] rows of each kind per call.
    pub async fn purge(&self) -> Result<Purged> {
        let now = self.clock.recorded_now();
        let cutoffs = Cutoffs {
            outbox_done: before(now, OUTBOX_KEPT),
            idempotency_keys: before(now, self.idempotency_lifetime),
            webhook_messages: before(now, DELIVERIES_KEPT),
            // A listing that has ended lists nothing (the log says so too).
            listings: now,
        };
        Ok(self.store.purge(&cutoffs, PURGE_BATCH).await?)
    }
}

//! Bounds every store call in time and tells an outage from other database errors.
//!
//! A database that is down, refuses connections, drops them, or freezes (a TCP black hole,
//! where nothing ever answers) must not hang requests: every call made through `Deadline`
//! either finishes or fails with `StoreError::Unavailable` within
//! `DbSettings::call_timeout()`, and the handlers answer 503 with `Retry-After`. The pool's
//! acquire timeout and Postgres's `statement_timeout` (set at connect) usually fire first;
//! the deadline here is the backstop for a server that cannot even enforce its own timeout.

use std::future::Future;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tracing::Instrument;

use async_trait::async_trait;
use uuid::Uuid;

use chrono::{DateTime, Utc};

use super::{
    Append, Committed, EventStore, FeedCursor, FeedStore, GameRecord, GameStore, IdempotentMove,
    LeaderStore, Leadership, LogStore, OutboxItem, OutboxMessage, OutboxStore, SeatCredential,
    StoreError, StoredEvent,
};

/// How long the store waits for the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbSettings {
    /// How long a call waits for a pooled connection (or for a new one to be established).
    pub acquire_timeout: Duration,
    /// How long one statement may run: Postgres's `statement_timeout`, SQLite's busy timeout.
    pub statement_timeout: Duration,
    /// The most connections one instance holds to Postgres (the pool opens them as they are
    /// needed). Every instance on a database shares the server's `max_connections`, so this is
    /// each one's share of it. SQLite's pool is fixed at 4: one file has one writer anyway.
    pub max_connections: u32,
}

impl DbSettings {
    /// The default wait for a connection: short, so an outage is answered in about 2 s.
    pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);
    /// The default longest statement: far above any query Parlour makes on a healthy server.
    pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);
    /// The default share of Postgres's connections: three instances fit the stock limit of 100.
    pub const DEFAULT_MAX_CONNECTIONS: u32 = 32;

    /// The longest any one store call may take before it is abandoned as `Unavailable`.
    pub fn call_timeout(&self) -> Duration {
        self.acquire_timeout + self.statement_timeout
    }
}

impl Default for DbSettings {
    fn default() -> Self {
        DbSettings {
            acquire_timeout: Self::DEFAULT_ACQUIRE_TIMEOUT,
            statement_timeout: Self::DEFAULT_STATEMENT_TIMEOUT,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
        }
    }
}

/// Store calls that failed since the store was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreErrorCounts {
    /// The database did not answer (`StoreError::Unavailable`).
    pub unavailable: u64,
    /// Any other failure but a lost race (a database error, a corrupt row).
    pub faults: u64,
}

/// An event store whose every call is bounded in time, with outages classified (and whose
/// leaderships' checks are too).
pub struct Deadline<S> {
    pub(super) inner: S,
    limit: Duration,
    unavailable: AtomicU64,
    faults: AtomicU64,
}

impl<S: EventStore> Deadline<S> {
    /// Wraps `inner`, abandoning any call after `settings.call_timeout()`.
    pub fn new(inner: S, settings: &DbSettings) -> Self {
        Deadline {
            inner,
            limit: settings.call_timeout(),
            unavailable: AtomicU64::new(0),
            faults: AtomicU64::new(0),
        }
    }

    /// Runs one call under the deadline. `writes` says whether the call may commit something,
    /// so that a failure after the statement was sent is reported as `maybe_written`.
    pub(super) async fn run<T>(
        &self,
        name: &'static str,
        writes: bool,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        // Every store call in a span of its own, inside the use case's: with `RUST_LOG=debug`
        // a move is followed from its request to each statement it made.
        let span = tracing::debug_span!("store", call = name);
        let result = match tokio::time::timeout(self.limit, call.instrument(span)).await {
            Ok(result) => result.map_err(|error| classify(error, writes)),
            Err(_) => Err(StoreError::Unavailable {
                reason: format!("no answer within {} ms", self.limit.as_millis()),
                maybe_written: writes,
            }),
        };
        match &result {
            Ok(_) | Err(StoreError::Conflict) => {}
            Err(StoreError::Unavailable { .. }) => {
                self.unavailable.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => {
                self.faults.fetch_add(1, Ordering::Relaxed);
            }
        }
        result
    }
}

/// Turns database errors that mean "the database is not answering" into `Unavailable`.
pub fn classify(error: StoreError, writes: bool) -> StoreError {
    let StoreError::Database(db) = error else {
        return error;
    };
    match outage(&db) {
        Some(Sent::Not) => StoreError::Unavailable {
            reason: db.to_string(),
            maybe_written: false,
        },
        Some(Sent::Perhaps) => StoreError::Unavailable {
            reason: db.to_string(),
            maybe_written: writes,
        },
        None => StoreError::Database(db),
    }
}

/// Whether a failed statement can have reached the database and been committed.
enum Sent {
    /// It certainly was not committed (no connection, or the server cancelled it).
    Not,
    /// It may have been: the connection failed while it was in flight.
    Perhaps,
}

/// `Some` when the error is an outage rather than a fault of the query or the data.
fn outage(error: &sqlx::Error) -> Option<Sent> {
    match error {
        // No connection was had, so nothing was sent.
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => Some(Sent::Not),
        // The connection broke; the statement may have been committed before it did.
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed => Some(Sent::Perhaps),
        sqlx::Error::Database(db) => {
            if let Some(pg) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                let code = pg.code();
                match code {
                    // query_canceled (statement_timeout), too_many_connections,
                    // lock_not_available: the statement did not run to its commit.
                    "57014" | "53300" | "55P03" => Some(Sent::Not),
                    // admin/crash shutdown, cannot connect now, connection exceptions.
                    _ if code.starts_with("57P") || code.starts_with("08") => Some(Sent::Perhaps),
                    _ => None,
                }
            } else if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes: the
                // database stayed locked past the busy timeout and nothing was written.
                let code = db.code().and_then(|c| c.parse::<i64>().ok()).unwrap_or(0);
                matches!(code & 0xff, 5 | 6).then_some(Sent::Not)
            } else {
                None
            }
        }
        _ => None,
    }
}

bounded! {
    impl GameStore {
        write fn create_game(&self, game: &GameRecord, seats: &[SeatCredential],
            events: &[StoredEvent], outbox: &[OutboxMessage],
            attention: Option<DateTime<Utc>>) -> ();
        read fn game(&self, id: Uuid) -> Option<GameRecord>;
        read fn seat_for_token(&self, game: Uuid, token_hash: &str) -> Option<(Uuid, u8)>;
        read fn ping(&self) -> ();
    }
    fn error_counts(&self) -> StoreErrorCounts {
        StoreErrorCounts {
            unavailable: self.unavailable.load(Ordering::Relaxed),
            faults: self.faults.load(Ordering::Relaxed),
        }
    }
}

bounded! {
    impl LogStore {
        read fn events(&self, id: Uuid, after: u64, limit: Option<u64>) -> Vec<StoredEvent>;
        write fn append_with_outbox(&self, id: Uuid, events: &[StoredEvent],
            idempotent: Option<&IdempotentMove>, outbox: &[OutboxMessage]) -> ();
        read fn head(&self, id: Uuid) -> Option<(u64, String)>;
        read fn idempotent_move(&self, id: Uuid, seat: u8, key: &str) -> Option<IdempotentMove>;
    }
    async fn append_group(
        &self,
        appends: &[Append],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let answers = self
            .run("append_group", true, self.inner.append_group(appends))
            .await?;
        Ok(answers
            .into_iter()
            .map(|answer| answer.map_err(|error| classify(error, true)))
            .collect())
    }
    fn parallel_writers(&self) -> usize {
        self.inner.parallel_writers()
    }
    async fn forget_idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
        expired_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        // Forgetting an expired key twice is harmless, so a timed-out delete is simply retried
        // by the next request: not a write whose outcome matters.
        self.run(
            "forget_idempotent_move",
            false,
            self.inner.forget_idempotent_move(id, seat, key, expired_at),
        )
        .await
    }
}

bounded! {
    impl FeedStore {
        read fn committed_since(&self, after: FeedCursor, limit: u64) -> Vec<Committed>;
        read fn held_back(&self) -> bool;
        read fn latest_position(&self) -> FeedCursor;
        read fn listen(&self) -> Option<sqlx::postgres::PgListener>;
        read fn announce(&self) -> ();
    }
}

bounded! {
    impl OutboxStore {
        write fn claim_outbox(&self,
            topic_prefix: Option<&str>, limit: u64, lease: Duration) -> Vec<OutboxItem>;
        write fn complete_outbox(&self, game: Uuid, id: u64) -> ();
        write fn retry_outbox(&self, game: Uuid, id: u64, error: &str, at: DateTime<Utc>) -> ();
    }
}

bounded! {
    impl LeaderStore {
    }
    async fn lead(&self, name: &str) -> Result<Option<Box<dyn Leadership>>, StoreError> {
        let leadership = self.run("lead", true, self.inner.lead(name)).await?;
        Ok(leadership.map(|inner| {
            Box::new(BoundedLeadership {
                inner: Some(inner),
                limit: self.limit,
            }) as Box<dyn Leadership>
        }))
    }
}

/// A leadership whose every check is bounded in time like the store's calls: a database that
/// does not answer in time means the leadership is lost (and it is dropped, which releases it).
struct BoundedLeadership {
    inner: Option<Box<dyn Leadership>>,
    limit: Duration,
}

#[async_trait]
impl Leadership for BoundedLeadership {
    async fn still_leading(&mut self) -> bool {
        let Some(inner) = self.inner.as_mut() else {
            return false;
        };
        match tokio::time::timeout(self.limit, inner.still_leading()).await {
            Ok(true) => true,
            Ok(false) | Err(_) => {
                // A check abandoned half-way leaves its connection in an unknown state: let
                // it go rather than ask it again.
                self.inner = None;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_timeout_is_an_outage_that_wrote_nothing() {
        let error = classify(StoreError::Database(sqlx::Error::PoolTimedOut), true);
        assert!(matches!(
            error,
            StoreError::Unavailable {
                maybe_written: false,
                ..
            }
        ));
    }

    #[test]
    fn a_broken_connection_during_a_write_may_have_written() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset");
        let error = classify(StoreError::Database(sqlx::Error::Io(io)), true);
        assert!(matches!(
            error,
            StoreError::Unavailable {
                maybe_written: true,
                ..
            }
        ));
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset");
        let error = classify(StoreError::Database(sqlx::Error::Io(io)), false);
        assert!(matches!(
            error,
            StoreError::Unavailable {
                maybe_written: false,
                ..
            }
        ));
    }

    #[test]
    fn other_errors_stay_what_they_were() {
        let error = classify(StoreError::Database(sqlx::Error::RowNotFound), true);
        assert!(matches!(error, StoreError::Database(_)));
        assert!(matches!(
            classify(StoreError::Conflict, true),
            StoreError::Conflict
        ));
    }

    #[test]
    fn the_call_deadline_covers_the_wait_for_a_connection_and_the_statement() {
        let settings = DbSettings {
            acquire_timeout: Duration::from_secs(2),
            statement_timeout: Duration::from_secs(5),
            ..DbSettings::default()
        };
        assert_eq!(settings.call_timeout(), Duration::from_secs(7));
    }
}

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

use async_trait::async_trait;
use uuid::Uuid;

use chrono::{DateTime, Utc};

use super::{
    AccountRecord, AccountStore, AccountTokenRecord, Append, Attention, ClockStore, Committed,
    EventStore, FeedCursor, FeedStore, GameRecord, GameStore, IdempotentMove, LeaderStore,
    Leadership, LogStore, OutboxItem, OutboxMessage, OutboxStore, SeatCredential, SignInCodeRecord,
    StoreError, StoredEvent, VacationRecord,
};

/// How long the store waits for the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbSettings {
    /// How long a call waits for a pooled connection (or for a new one to be established).
    pub acquire_timeout: Duration,
    /// How long one statement may run: Postgres's `statement_timeout`, SQLite's busy timeout.
    pub statement_timeout: Duration,
}

impl DbSettings {
    /// The default wait for a connection: short, so an outage is answered in about 2 s.
    pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);
    /// The default longest statement: far above any query Parlour makes on a healthy server.
    pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

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
        writes: bool,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let result = match tokio::time::timeout(self.limit, call).await {
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

#[async_trait]
impl<S: EventStore> GameStore for Deadline<S> {
    async fn create_game(
        &self,
        game: &GameRecord,
        seats: &[SeatCredential],
        events: &[StoredEvent],
        outbox: &[OutboxMessage],
        attention: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.run(
            true,
            self.inner
                .create_game(game, seats, events, outbox, attention),
        )
        .await
    }

    async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        self.run(false, self.inner.game(id)).await
    }

    async fn seat_for_token(
        &self,
        game: Uuid,
        token_hash: &str,
    ) -> Result<Option<(Uuid, u8)>, StoreError> {
        self.run(false, self.inner.seat_for_token(game, token_hash))
            .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.run(false, self.inner.ping()).await
    }

    fn error_counts(&self) -> StoreErrorCounts {
        StoreErrorCounts {
            unavailable: self.unavailable.load(Ordering::Relaxed),
            faults: self.faults.load(Ordering::Relaxed),
        }
    }
}

#[async_trait]
impl<S: EventStore> LogStore for Deadline<S> {
    async fn events(
        &self,
        id: Uuid,
        after: u64,
        limit: Option<u64>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.run(false, self.inner.events(id, after, limit)).await
    }

    async fn append_with_outbox(
        &self,
        id: Uuid,
        events: &[StoredEvent],
        idempotent: Option<&IdempotentMove>,
        outbox: &[OutboxMessage],
    ) -> Result<(), StoreError> {
        self.run(
            true,
            self.inner
                .append_with_outbox(id, events, idempotent, outbox),
        )
        .await
    }

    async fn append_group(
        &self,
        appends: &[Append],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let answers = self.run(true, self.inner.append_group(appends)).await?;
        Ok(answers
            .into_iter()
            .map(|answer| answer.map_err(|error| classify(error, true)))
            .collect())
    }

    fn parallel_writers(&self) -> usize {
        self.inner.parallel_writers()
    }

    async fn head(&self, id: Uuid) -> Result<Option<(u64, String)>, StoreError> {
        self.run(false, self.inner.head(id)).await
    }

    async fn idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
    ) -> Result<Option<IdempotentMove>, StoreError> {
        self.run(false, self.inner.idempotent_move(id, seat, key))
            .await
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
            false,
            self.inner.forget_idempotent_move(id, seat, key, expired_at),
        )
        .await
    }
}

#[async_trait]
impl<S: EventStore> FeedStore for Deadline<S> {
    async fn committed_since(
        &self,
        after: FeedCursor,
        limit: u64,
    ) -> Result<Vec<Committed>, StoreError> {
        self.run(false, self.inner.committed_since(after, limit))
            .await
    }

    async fn held_back(&self) -> Result<bool, StoreError> {
        self.run(false, self.inner.held_back()).await
    }

    async fn latest_position(&self) -> Result<FeedCursor, StoreError> {
        self.run(false, self.inner.latest_position()).await
    }

    async fn listen(&self) -> Result<Option<sqlx::postgres::PgListener>, StoreError> {
        self.run(false, self.inner.listen()).await
    }

    async fn announce(&self) -> Result<(), StoreError> {
        self.run(false, self.inner.announce()).await
    }
}

#[async_trait]
impl<S: EventStore> OutboxStore for Deadline<S> {
    async fn claim_outbox(
        &self,
        topic_prefix: Option<&str>,
        limit: u64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        self.run(true, self.inner.claim_outbox(topic_prefix, limit, lease))
            .await
    }

    async fn complete_outbox(&self, game: Uuid, id: u64) -> Result<(), StoreError> {
        self.run(true, self.inner.complete_outbox(game, id)).await
    }

    async fn retry_outbox(
        &self,
        game: Uuid,
        id: u64,
        error: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.run(true, self.inner.retry_outbox(game, id, error, at))
            .await
    }
}

#[async_trait]
impl<S: EventStore> LeaderStore for Deadline<S> {
    async fn lead(&self, name: &str) -> Result<Option<Box<dyn Leadership>>, StoreError> {
        let leadership = self.run(true, self.inner.lead(name)).await?;
        Ok(leadership.map(|inner| {
            Box::new(BoundedLeadership {
                inner: Some(inner),
                limit: self.limit,
            }) as Box<dyn Leadership>
        }))
    }
}

#[async_trait]
impl<S: EventStore> AccountStore for Deadline<S> {
    async fn create_account(
        &self,
        account: &AccountRecord,
        token: &AccountTokenRecord,
    ) -> Result<(), StoreError> {
        self.run(true, self.inner.create_account(account, token))
            .await
    }

    async fn account_for_token(
        &self,
        token_hash: &str,
    ) -> Result<Option<(AccountRecord, Uuid)>, StoreError> {
        self.run(false, self.inner.account_for_token(token_hash))
            .await
    }

    async fn account_tokens(&self, account: Uuid) -> Result<Vec<AccountTokenRecord>, StoreError> {
        self.run(false, self.inner.account_tokens(account)).await
    }

    async fn mint_account_token(
        &self,
        by: Uuid,
        token: &AccountTokenRecord,
    ) -> Result<bool, StoreError> {
        self.run(true, self.inner.mint_account_token(by, token))
            .await
    }

    async fn revoke_account_token(
        &self,
        by: Uuid,
        account: Uuid,
        token: Uuid,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.run(
            true,
            self.inner.revoke_account_token(by, account, token, at),
        )
        .await
    }
    async fn live_account_tokens(&self, tokens: &[Uuid]) -> Result<Vec<Uuid>, StoreError> {
        self.run(false, self.inner.live_account_tokens(tokens))
            .await
    }

    async fn account(&self, id: Uuid) -> Result<Option<AccountRecord>, StoreError> {
        self.run(false, self.inner.account(id)).await
    }

    async fn link_account_game(
        &self,
        account: Uuid,
        game: Uuid,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.run(true, self.inner.link_account_game(account, game, at))
            .await
    }

    async fn account_games(&self, account: Uuid) -> Result<Vec<Uuid>, StoreError> {
        self.run(false, self.inner.account_games(account)).await
    }

    async fn create_sign_in_code(&self, code: &SignInCodeRecord) -> Result<bool, StoreError> {
        self.run(true, self.inner.create_sign_in_code(code)).await
    }

    async fn redeem_sign_in_code(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<Option<Uuid>, StoreError> {
        self.run(true, self.inner.redeem_sign_in_code(code_hash, at, token))
            .await
    }
}

#[async_trait]
impl<S: EventStore> ClockStore for Deadline<S> {
    async fn set_attention(
        &self,
        game: Uuid,
        due: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.run(true, self.inner.set_attention(game, due)).await
    }

    async fn attention_due(
        &self,
        before: DateTime<Utc>,
        after: Uuid,
        limit: u64,
    ) -> Result<Vec<Attention>, StoreError> {
        self.run(false, self.inner.attention_due(before, after, limit))
            .await
    }

    async fn clear_attention_read(&self, note: &Attention) -> Result<bool, StoreError> {
        self.run(true, self.inner.clear_attention_read(note)).await
    }

    async fn clocked_games(&self, after: Uuid, limit: u64) -> Result<Vec<Uuid>, StoreError> {
        self.run(false, self.inner.clocked_games(after, limit))
            .await
    }

    async fn clocks_ended(&self, game: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.run(true, self.inner.clocks_ended(game, at)).await
    }

    async fn begin_vacation(
        &self,
        account: Uuid,
        vacation: &VacationRecord,
    ) -> Result<bool, StoreError> {
        self.run(true, self.inner.begin_vacation(account, vacation))
            .await
    }

    async fn vacations(
        &self,
        account: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<VacationRecord>, StoreError> {
        self.run(false, self.inner.vacations(account, since)).await
    }

    async fn end_vacation(&self, account: Uuid, at: DateTime<Utc>) -> Result<bool, StoreError> {
        self.run(true, self.inner.end_vacation(account, at)).await
    }

    async fn idle_games(
        &self,
        before: DateTime<Utc>,
        after: Uuid,
        limit: u64,
    ) -> Result<Vec<(Uuid, u64)>, StoreError> {
        self.run(false, self.inner.idle_games(before, after, limit))
            .await
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
        };
        assert_eq!(settings.call_timeout(), Duration::from_secs(7));
    }
}

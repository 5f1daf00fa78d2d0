//! The event store: one interface, two backends (Postgres in production, SQLite embedded).
//!
//! The store knows nothing of the rules. It keeps each game's creation record, its seats'
//! token hashes, the append-only log, and the idempotency keys of moves; and, for what
//! follows a commit, a store-wide feed of committed events, an outbox, and leader election.
//!
//! The interface is split by concern (`GameStore`, `LogStore`, `FeedStore`, `OutboxStore`,
//! `LeaderStore`, `AccountStore`); `EventStore` is all of them, so callers hold one
//! `Arc<dyn EventStore>`. Accounts and their tokens are ordinary mutable rows beside the log,
//! never part of it.
//! SQL the two backends share is written once in `rows.rs`, with the row decoding.

#[macro_use]
mod bounded;
mod accounts;
mod apps;
mod checkpoints;
mod clocks;
mod deadline;
mod housekeeping;
mod listings;
mod matches;
mod notices;
mod postgres;
mod rows;
mod sign_ins;
mod snapshots;
mod sqlite;
mod tickets;
mod webhooks;

use std::time::Duration;

use crate::scopes::Scopes;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

pub use crate::ledger::{time_text, GameRecord, StoredEvent};
pub use accounts::AccountStore;
pub use apps::{AppStore, OAuthCodeRecord};
pub use checkpoints::{CheckpointRecord, CheckpointStore};
pub use clocks::ClockStore;
pub use deadline::{DbSettings, Deadline, StoreErrorCounts};
pub use housekeeping::{Cutoffs, HousekeepingStore, Purged};
pub use listings::{ListingFilter, ListingRecord, ListingStore};
pub use matches::{MatchRow, MatchStore};
pub use notices::NoticeStore;
pub use postgres::PostgresStore;
pub use sign_ins::{EmailSignInRecord, PasskeyRecord, SignInStore};
pub use snapshots::{SnapshotRecord, SnapshotStore};
pub use sqlite::SqliteStore;
pub use tickets::{StreamTicketRecord, TicketCredential, TicketStore};
pub use webhooks::{
    AttemptRecord, EndpointKind, MessageState, WebhookMessageRecord, WebhookRecord, WebhookStore,
};

/// A seat's credential as stored: the SHA-256 of its bearer token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatCredential {
    /// The seat number.
    pub seat: u8,
    /// The seat's name.
    pub name: String,
    /// Hex SHA-256 of the token.
    pub token_hash: String,
}

/// An account as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRecord {
    /// The account's id.
    pub id: Uuid,
    /// Its name, checked as a player's name is.
    pub name: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// One of an account's named bearer tokens, as stored: only the SHA-256 of the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountTokenRecord {
    /// The token's id (not secret: it names the token to revoke it).
    pub id: Uuid,
    /// The account it opens.
    pub account: Uuid,
    /// The name its holder gave it (a device, an app).
    pub name: String,
    /// Hex SHA-256 of the secret, as for seat tokens.
    pub token_hash: String,
    /// When it was minted.
    pub created_at: DateTime<Utc>,
    /// How it was made; `None` for tokens made before this was recorded.
    pub signed_in_with: Option<SignedInWith>,
    /// What it may do. Tokens made before scopes were recorded hold every scope.
    pub scopes: Scopes,
    /// The OAuth `client_id` of the app it was granted to; `None` for the player's own.
    pub app: Option<String>,
}

/// How an account token came to be: each is a sign-in of a device, shown on the account page
/// and told to the account (`service::accounts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignedInWith {
    /// Made with the account.
    Account,
    /// Minted by a device signed in already (`POST /v1/me/tokens`).
    Token,
    /// A one-time sign-in code from a signed-in device.
    Code,
    /// One of the account's passkeys.
    Passkey,
    /// A sign-in link mailed to a verified address.
    Email,
    /// Granted to an app the player approved (OAuth).
    App,
}

impl SignedInWith {
    /// Its name in the database and the API.
    pub fn name(self) -> &'static str {
        match self {
            SignedInWith::Account => "account",
            SignedInWith::Token => "token",
            SignedInWith::Code => "code",
            SignedInWith::Passkey => "passkey",
            SignedInWith::Email => "email",
            SignedInWith::App => "app",
        }
    }

    /// The one named `name`.
    pub fn from_name(name: &str) -> Result<Self, StoreError> {
        [
            SignedInWith::Account,
            SignedInWith::Token,
            SignedInWith::Code,
            SignedInWith::Passkey,
            SignedInWith::Email,
            SignedInWith::App,
        ]
        .into_iter()
        .find(|how| how.name() == name)
        .ok_or_else(|| StoreError::Corrupt(format!("a token says it was made by {name:?}")))
    }
}

/// A place in the store-wide feed: just after the entry it names (see [`FeedStore`]). The feed
/// is in order of `(txid, position)`; on SQLite `txid` is always 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FeedCursor {
    /// The transaction that wrote the entry (Postgres `xid8`; 0 on SQLite).
    pub txid: u64,
    /// The entry's position: unique across the store.
    pub position: u64,
}

impl FeedCursor {
    /// Before every entry: a follower from here is given the whole feed.
    pub const START: FeedCursor = FeedCursor {
        txid: 0,
        position: 0,
    };
}

/// One entry of the store-wide feed of committed events (see [`FeedStore`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The event's place in the feed: unique across the store.
    pub position: u64,
    /// The transaction that wrote it (Postgres; 0 on SQLite).
    pub txid: u64,
    /// The game whose log it is in.
    pub game: Uuid,
    /// Its `seq` in that log.
    pub seq: u64,
    /// Its event type.
    pub kind: String,
    /// The commit it was written in: the same number for every entry one append wrote, and a
    /// different one for each append of the game (Postgres: its transaction; SQLite: the
    /// position of the append's first entry). What a move, a claim or a game's creation wrote
    /// is told apart by `(game, commit)`: on Postgres a group commit
    /// ([`LogStore::append_group`]) writes several games' appends in one transaction, each
    /// game's entries next to each other in the feed.
    pub commit: u64,
}

impl Committed {
    /// The cursor just after this entry.
    pub fn cursor(&self) -> FeedCursor {
        FeedCursor {
            txid: self.txid,
            position: self.position,
        }
    }
}

/// Work to do after a commit, written in the same transaction as the events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxMessage {
    /// What kind of work it is (`webhook`, `webhook.move`, ...), matched by prefix when claimed.
    pub topic: String,
    /// What the worker needs to do it (text, usually JSON).
    pub payload: String,
    /// When set, the message is written only if one of these accounts has an enabled webhook endpoint
    /// when the transaction runs: a commit nobody will be told of then costs one index probe
    /// instead of a row, its claim and its fan-out. Checked inside the transaction, so an
    /// endpoint registered before the commit is never missed.
    pub only_if_webhooks_of: Option<Vec<Uuid>>,
}

/// An outbox message claimed by a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxItem {
    /// The message's id, to complete or retry it.
    pub id: u64,
    /// The game whose append wrote it.
    pub game: Uuid,
    /// Its topic.
    pub topic: String,
    /// Its payload.
    pub payload: String,
    /// How many times it has been claimed, this time included.
    pub attempts: u32,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// Why the last attempt failed, if one did.
    pub last_error: Option<String>,
}

/// One append of a group (see [`LogStore::append_group`]): what
/// [`LogStore::append_with_outbox`] takes, owned so that it can wait in a queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Append {
    /// The game whose log it extends.
    pub id: Uuid,
    /// The entries, the first one past the version they were decided from.
    pub events: Vec<StoredEvent>,
    /// The move's idempotency key, if it had one.
    pub idempotent: Option<IdempotentMove>,
    /// The durable work that must follow the commit.
    pub outbox: Vec<OutboxMessage>,
}

/// The first answer to a move sent with an `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotentMove {
    /// The seat that sent it.
    pub seat: u8,
    /// The client's key.
    pub key: String,
    /// SHA-256 of the request body, to tell a retry from a different move with the same key.
    pub fingerprint: String,
    /// The game's version after the move.
    pub version: u64,
    /// When the move was recorded, by the service's clock: the key expires a set time after.
    pub created_at: DateTime<Utc>,
}

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer appended at the same position first (or reused the idempotency key).
    #[error("another move was recorded first")]
    Conflict,
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A stored row could not be read back.
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// The database did not answer in time, or the connection failed: worth retrying later.
    /// `maybe_written` is true when a write had been sent and may have been committed.
    #[error("the database is not answering: {reason}")]
    Unavailable {
        /// What went wrong, for the log.
        reason: String,
        /// Whether a write may have been committed although it was not acknowledged.
        maybe_written: bool,
    },
}

/// A game's creation record, its seats and their credentials.
#[async_trait]
pub trait GameStore: Send + Sync {
    /// Records a new game, its seats, its opening events, the durable work that must
    /// follow them (`OutboxMessage`) and, for a clocked game, the note of when its clocks
    /// first need the sweeper (`attention`), all or nothing.
    async fn create_game(
        &self,
        game: &GameRecord,
        seats: &[SeatCredential],
        events: &[StoredEvent],
        outbox: &[OutboxMessage],
        attention: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError>;

    /// The game's creation record.
    async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError>;

    /// The game and seat a token hash belongs to, looked for first among the seats of `game`
    /// (the game the request names), then in any game.
    async fn seat_for_token(
        &self,
        game: Uuid,
        token_hash: &str,
    ) -> Result<Option<(Uuid, u8)>, StoreError>;

    /// Whether the database answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// The calls that failed so far: `Deadline` counts them (for `/metrics`); a bare backend
    /// counts nothing.
    fn error_counts(&self) -> StoreErrorCounts {
        StoreErrorCounts::default()
    }
}

/// Each game's append-only log.
#[async_trait]
pub trait LogStore: Send + Sync {
    /// Events with `seq > after`, in order, at most `limit` of them (all when `None`).
    async fn events(
        &self,
        id: Uuid,
        after: u64,
        limit: Option<u64>,
    ) -> Result<Vec<StoredEvent>, StoreError>;

    /// Appends a batch whose first event's `seq` is one past the version it was decided from,
    /// with the move's idempotency key if it had one, and the outbox messages that must be
    /// acted on once it is committed. Fails with `Conflict`, writing nothing (no event, no key,
    /// no message), if any of those positions (or that key) is taken.
    async fn append_with_outbox(
        &self,
        id: Uuid,
        events: &[StoredEvent],
        idempotent: Option<&IdempotentMove>,
        outbox: &[OutboxMessage],
    ) -> Result<(), StoreError>;

    /// Appends every one of `appends` (each of another game) in as few transactions as the
    /// backend can: one commit, one flush of the write-ahead log, for many moves. Each is
    /// judged on its own as [`LogStore::append_with_outbox`] judges it: one that collides
    /// answers `Conflict` and writes nothing, and the others are committed all the same. The
    /// answers are in the order of `appends`; `Err` is a failure of the whole group, which
    /// wrote nothing of it (or, `Unavailable` with `maybe_written`, may have written all).
    ///
    /// The default appends them one by one.
    async fn append_group(
        &self,
        appends: &[Append],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        one_by_one(self, appends).await
    }

    /// How many groups of appends are worth writing at once: Postgres takes several
    /// transactions in parallel; SQLite has one writer, and takes them in turn.
    fn parallel_writers(&self) -> usize {
        2
    }

    /// `append_with_outbox` with no outbox messages.
    async fn append(
        &self,
        id: Uuid,
        events: &[StoredEvent],
        idempotent: Option<&IdempotentMove>,
    ) -> Result<(), StoreError> {
        self.append_with_outbox(id, events, idempotent, &[]).await
    }

    /// Where the store recorded the log's end (its length and last hash) when it last grew,
    /// so a log cut short is told from one that ended there.
    async fn head(&self, id: Uuid) -> Result<Option<(u64, String)>, StoreError>;

    /// The first answer recorded for this seat's idempotency key.
    async fn idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
    ) -> Result<Option<IdempotentMove>, StoreError>;

    /// Forgets this seat's idempotency key if it was recorded at or before `expired_at`, so it
    /// can be recorded again with another move. Keys are not part of the hash chain: the log
    /// is untouched.
    async fn forget_idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
        expired_at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}

/// Every committed event of every game, in one order, for followers (the post-commit bus).
///
/// A follower starts from `latest_position()` (or [`FeedCursor::START`] for everything) and
/// calls `committed_since(last)` with the cursor of the last entry it was given. It is never
/// given an entry twice and never misses one, even when transactions commit in another order
/// than they were numbered: on Postgres an entry is only given once no transaction that could
/// still commit can come before it (see `postgres.rs`), so a commit may be seen a little late
/// (behind a transaction still in flight anywhere on the server), never skipped. Positions
/// usually increase along the feed, but on Postgres two transactions that commit out of
/// order come in commit-safe order, so the last entry's cursor, not the largest position, is
/// where to go on from. The cursor holds the entry's transaction too, so that Postgres finds
/// the place with the one index the feed is read by.
#[async_trait]
pub trait FeedStore: Send + Sync {
    /// At most `limit` committed events after the feed entry `after` names
    /// ([`FeedCursor::START`]: from the start). A cursor that names no entry is refused.
    async fn committed_since(
        &self,
        after: FeedCursor,
        limit: u64,
    ) -> Result<Vec<Committed>, StoreError>;

    /// Whether some committed entries are not given yet because a transaction that could still
    /// commit before them is in flight (Postgres; never on SQLite, whose writers commit in
    /// turn). A follower that is told so looks again soon rather than at its next wake-up,
    /// which may be its fallback poll, a second away.
    async fn held_back(&self) -> Result<bool, StoreError>;

    /// A safe start for a new follower: the cursor of the last entry it may skip
    /// ([`FeedCursor::START`] when there is none), so that `committed_since` from it gives
    /// every later commit.
    async fn latest_position(&self) -> Result<FeedCursor, StoreError>;

    /// Postgres only: a connection listening on [`EVENTS_CHANNEL`], where instances announce
    /// that they have committed ([`FeedStore::announce`]), to wake followers on other
    /// instances. A wake-up says "read the feed now"; a follower must still poll now and then,
    /// because a notification is lost while the listener reconnects or when an instance dies
    /// between its commit and its announcement. `None` on SQLite, where every writer is a
    /// process on this machine's file and polling is cheap.
    async fn listen(&self) -> Result<Option<sqlx::postgres::PgListener>, StoreError>;

    /// Tells the other instances' followers to look at the feed (Postgres `NOTIFY` on
    /// [`EVENTS_CHANNEL`], in a transaction of its own, after the commits it announces;
    /// nothing on SQLite). Never sent from inside an append: Postgres serialises the commits
    /// of every transaction that notifies, which cost a sixth of the moves per second when a
    /// trigger notified on every append (docs/performance.md).
    async fn announce(&self) -> Result<(), StoreError>;
}

/// Work that must not be lost: written with the events that call for it, done at least once.
#[async_trait]
pub trait OutboxStore: Send + Sync {
    /// Claims at most `limit` due messages (whose topic starts with `topic_prefix`, if given),
    /// oldest first, by moving each one's `available_at` to `lease` from now and counting an
    /// attempt: nobody else is given them meanwhile, and a worker that dies with them gives
    /// them back when the lease runs out. Finish each with `complete_outbox` or `retry_outbox`.
    /// A game's messages come in the order of its commits and to one claimer at a time: none is
    /// given out while an earlier one of its game and topic is held or waiting for its
    /// retry.
    async fn claim_outbox(
        &self,
        topic_prefix: Option<&str>,
        limit: u64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError>;

    /// Marks game `game`'s message `id` done; it is never claimed again. Completing it twice
    /// is harmless. (A message is named by its game and id: the outbox's key leads with the
    /// game, as every key of a game's rows does; docs/distribution.md.)
    async fn complete_outbox(&self, game: Uuid, id: u64) -> Result<(), StoreError>;

    /// Records why a message failed and makes it due again at `at`.
    async fn retry_outbox(
        &self,
        game: Uuid,
        id: u64,
        error: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}

/// Work that must be done once across every instance on one database (a clock sweep).
#[async_trait]
pub trait LeaderStore: Send + Sync {
    /// Becomes the leader for `name` if nobody else is: `None` if another instance (or another
    /// `Leadership` here) leads it. Leadership lasts while the value lives and
    /// `still_leading` says so; dropping it lets another take over. Postgres holds a
    /// session advisory lock on a connection of its own (released when it is dropped or the
    /// connection dies); SQLite holds a row in `leases` that `still_leading` renews for
    /// [`LEADER_LEASE`] and that expires if it stops.
    async fn lead(&self, name: &str) -> Result<Option<Box<dyn Leadership>>, StoreError>;
}

/// Being the leader for a name (see [`LeaderStore::lead`]).
#[async_trait]
pub trait Leadership: Send {
    /// Whether this is still the leader: checks the database (and on SQLite renews the lease).
    /// Call it before each piece of leader's work and at least every [`LEADER_LEASE`] / 3.
    /// Once it has said `false` it always does: drop the value and ask `lead` again.
    async fn still_leading(&mut self) -> bool;
}

/// A one-time code that signs an account in on another device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInCodeRecord {
    /// Hex SHA-256 of the code.
    pub code_hash: String,
    /// The account it signs in.
    pub account: Uuid,
    /// The token that asked for it: the code dies with it.
    pub token: Uuid,
    /// When it stops working.
    pub expires_at: DateTime<Utc>,
}

/// One vacation of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VacationRecord {
    /// When it began.
    pub began_at: DateTime<Utc>,
    /// When it ends (or ended, if the account came back early).
    pub until: DateTime<Utc>,
}

/// A note of when a clocked game next needs the sweeper, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attention {
    /// The game.
    pub game: Uuid,
    /// When it needs a look.
    pub due: DateTime<Utc>,
}

/// How long a SQLite leader's lease lasts after each `still_leading`.
pub const LEADER_LEASE: Duration = Duration::from_secs(15);

/// The Postgres channel a commit is announced on (see [`FeedStore::listen`]).
pub const EVENTS_CHANNEL: &str = "parlour_events";

/// The event store: every concern, so callers hold one `Arc<dyn EventStore>`.
pub trait EventStore:
    GameStore
    + LogStore
    + FeedStore
    + OutboxStore
    + LeaderStore
    + AccountStore
    + ClockStore
    + WebhookStore
    + HousekeepingStore
    + MatchStore
    + SnapshotStore
    + CheckpointStore
    + NoticeStore
    + SignInStore
    + AppStore
    + TicketStore
    + ListingStore
{
}

impl<
        T: GameStore
            + LogStore
            + FeedStore
            + OutboxStore
            + LeaderStore
            + AccountStore
            + ClockStore
            + WebhookStore
            + HousekeepingStore
            + MatchStore
            + SnapshotStore
            + CheckpointStore
            + NoticeStore
            + SignInStore
            + AppStore
            + TicketStore
            + ListingStore
            + ?Sized,
    > EventStore for T
{
}

/// Connects to the store named by `url` (`postgres://…` or `sqlite://…`) with the default
/// timeouts and applies the embedded migrations.
pub async fn connect(url: &str) -> Result<std::sync::Arc<dyn EventStore>, StoreError> {
    connect_with(url, &DbSettings::default()).await
}

/// Connects to the store named by `url` with these timeouts and applies the migrations. The
/// store answers `Unavailable` instead of hanging when the database stops answering.
pub async fn connect_with(
    url: &str,
    settings: &DbSettings,
) -> Result<std::sync::Arc<dyn EventStore>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let store = PostgresStore::connect_with(url, settings).await?;
        Ok(std::sync::Arc::new(Deadline::new(store, settings)))
    } else if url.starts_with("sqlite:") {
        let store = SqliteStore::connect_with(url, settings).await?;
        Ok(std::sync::Arc::new(Deadline::new(store, settings)))
    } else {
        // Only the scheme is quoted: the rest of a URL may hold a password.
        let scheme = url.split_once(':').map_or("", |(scheme, _)| scheme);
        Err(StoreError::Corrupt(format!(
            "unsupported database URL scheme {scheme:?} (use postgres://… or sqlite://…)"
        )))
    }
}

/// Times are kept to the microsecond so both databases store them exactly.
pub fn now() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
}

fn parse_time(text: &str) -> Result<DateTime<Utc>, StoreError> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("time {text}: {e}")))
}

/// The stored text of a JSON value: exactly the canonical bytes the chain hashes.
fn stored_json(value: &Value) -> String {
    crate::chain::canonical_json(value)
}

fn parse_json(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("stored JSON: {e}")))
}

fn salt_from(bytes: Option<Vec<u8>>) -> Result<Option<[u8; 32]>, StoreError> {
    bytes
        .map(|b| {
            b.try_into()
                .map_err(|_| StoreError::Corrupt("salt is not 32 bytes".into()))
        })
        .transpose()
}

fn narrow<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, StoreError> {
    T::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} {value} is out of range")))
}

/// [`LogStore::append_group`] done one append at a time: the default, and what a backend
/// falls back to when a group cannot be written together.
async fn one_by_one<S: LogStore + ?Sized>(
    store: &S,
    appends: &[Append],
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let mut answers = Vec::with_capacity(appends.len());
    for a in appends {
        answers.push(
            store
                .append_with_outbox(a.id, &a.events, a.idempotent.as_ref(), &a.outbox)
                .await,
        );
    }
    Ok(answers)
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.is_unique_violation())
}

/// `Conflict` for a unique-key violation (the row is there already), else the database error.
fn conflict_or(error: sqlx::Error) -> StoreError {
    if is_unique_violation(&error) {
        StoreError::Conflict
    } else {
        StoreError::Database(error)
    }
}

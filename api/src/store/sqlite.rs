//! The embedded backend, so `parlour` runs on a fresh machine with no database server.
//!
//! **The feed.** SQLite has one writer at a time. Every write transaction here begins with
//! `BEGIN IMMEDIATE`, taking the write lock first, and its events are numbered from the largest
//! position already stored (the position is the table's key, which SQLite assigns so); so
//! positions are handed out in commit order, and a follower can simply read above the last
//! position it saw.
//!
//! **Leaders.** A row in `leases` (name, holder, expiry): taken if free or expired, renewed by
//! every `still_leading` for [`LEADER_LEASE`], deleted when the leadership is dropped. A leader
//! that dies without dropping it is replaced once the lease runs out.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{QueryBuilder, Sqlite};
use uuid::Uuid;

use super::rows::{self, wide};
use super::{
    conflict_or, stored_json, time_text, AccountTokenRecord, Append, Committed, FeedCursor,
    FeedStore, GameRecord, GameStore, IdempotentMove, LeaderStore, Leadership, LogStore,
    OutboxItem, OutboxMessage, OutboxStore, SeatCredential, SignedInWith, StoreError, StoredEvent,
    LEADER_LEASE,
};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/sqlite");

/// Takes the write lock at once, so that what the transaction reads (the last position) is
/// still the last when it writes, and it never fails to upgrade a read lock.
pub(super) const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";

/// SQLite in WAL mode with full sync: an acknowledged move survives a crash.
pub struct SqliteStore {
    pub(super) pool: SqlitePool,
}

impl SqliteStore {
    /// A transaction that writes: on SQLite one that takes the write lock at `BEGIN`, since a
    /// deferred transaction that upgrades later may be refused with `SQLITE_BUSY`. The store
    /// bodies written once for both backends begin their writes here.
    pub(super) async fn begin_write(&self) -> Result<sqlx::Transaction<'_, Sqlite>, sqlx::Error> {
        self.pool.begin_with(BEGIN_WRITE).await
    }

    /// Opens (creating if need be) the database file with the default timeouts and applies
    /// the migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, &super::DbSettings::default()).await
    }

    /// Opens the database file and applies the migrations; a locked database is waited for at
    /// most the statement timeout.
    pub async fn connect_with(url: &str, settings: &super::DbSettings) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(settings.statement_timeout);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .acquire_timeout(settings.acquire_timeout)
            .connect_with(options)
            .await?;
        MIGRATOR.run(&pool).await.map_err(sqlx::Error::from)?;
        Ok(SqliteStore { pool })
    }
}

/// Writes one append: its batch, its idempotency key, its outbox messages. Must run in a
/// `BEGIN_WRITE` transaction; fails with `Conflict` if a position or the key is taken.
async fn write_append(
    tx: &mut sqlx::SqliteConnection,
    id: Uuid,
    events: &[StoredEvent],
    idempotent: Option<&IdempotentMove>,
    outbox: &[OutboxMessage],
) -> Result<(), StoreError> {
    write_batch(tx, id, events).await?;
    if let Some(key) = idempotent {
        sqlx::query(rows::INSERT_IDEMPOTENCY_KEY)
            .bind(id.to_string())
            .bind(i64::from(key.seat))
            .bind(&key.key)
            .bind(&key.fingerprint)
            .bind(wide(key.version, "version")?)
            .bind(time_text(&key.created_at))
            .execute(&mut *tx)
            .await
            .map_err(conflict_or)?;
    }
    write_outbox(tx, id, outbox).await
}

/// Writes a batch and moves the recorded head to its last event. Must run in a `BEGIN_WRITE`
/// transaction. The rows' positions are the table's key (migration 0004), which SQLite gives
/// each row inserted without one as one past the largest stored: under the one writer, the
/// order of commits, with nothing to read first.
async fn write_batch(
    tx: &mut sqlx::SqliteConnection,
    id: Uuid,
    events: &[StoredEvent],
) -> Result<(), StoreError> {
    let last = events
        .last()
        .ok_or_else(|| StoreError::Corrupt("an empty batch".into()))?;
    let mut rows = Vec::with_capacity(events.len());
    for event in events {
        rows.push((event, wide(event.seq, "seq")?));
    }
    // The commit's number for the feed (`Committed::commit`): the position its first entry
    // takes. Writers take the database's write lock in turn, so no other commit can take it.
    let commit: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(position), 0) + 1 FROM events")
        .fetch_one(&mut *tx)
        .await?;
    let mut builder = QueryBuilder::<Sqlite>::new(
        "INSERT INTO events (game_id, seq, type, actor, data, command, at, sealed, prev_hash, hash, event_version, commit_position) ",
    );
    builder.push_values(rows, |mut row, (e, seq)| {
        row.push_bind(id.to_string())
            .push_bind(seq)
            .push_bind(e.kind.clone())
            .push_bind(e.actor.map(i64::from))
            .push_bind(stored_json(&e.data))
            .push_bind(e.command.as_ref().map(stored_json))
            .push_bind(time_text(&e.at))
            .push_bind(e.sealed.clone())
            .push_bind(e.prev_hash.clone())
            .push_bind(e.hash.clone())
            .push_bind(i64::from(e.version))
            .push_bind(commit);
    });
    builder
        .build()
        .execute(&mut *tx)
        .await
        .map_err(conflict_or)?;
    sqlx::query(rows::ADVANCE_HEAD)
        .bind(id.to_string())
        .bind(wide(last.seq, "seq")?)
        .bind(&last.hash)
        .execute(&mut *tx)
        .await
        .map_err(conflict_or)?;
    Ok(())
}

#[async_trait]
impl GameStore for SqliteStore {
    async fn create_game(
        &self,
        game: &GameRecord,
        seats: &[SeatCredential],
        events: &[StoredEvent],
        outbox: &[OutboxMessage],
        attention: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        let players =
            serde_json::to_value(&game.players).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let players = stored_json(&players);
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
        sqlx::query(rows::INSERT_GAME)
            .bind(game.id.to_string())
            .bind(&game.game)
            .bind(players)
            .bind(stored_json(&game.options))
            .bind(game.seed.0.as_slice())
            .bind(&game.seed_commitment)
            .bind(time_text(&game.created_at))
            .bind(i64::from(game.chain))
            .bind(game.salt.as_ref().map(|s| s.as_slice()))
            .bind(i64::from(game.rules_version))
            .execute(&mut *tx)
            .await
            .map_err(conflict_or)?;
        // A hosted game's seats are held by accounts, not tokens: it has no seat rows, and an
        // INSERT with no values is no statement at all.
        if !seats.is_empty() {
            let mut builder =
                QueryBuilder::<Sqlite>::new("INSERT INTO seats (game_id, seat, name, token_hash) ");
            builder.push_values(seats, |mut row, s| {
                row.push_bind(game.id.to_string())
                    .push_bind(i64::from(s.seat))
                    .push_bind(s.name.clone())
                    .push_bind(s.token_hash.clone());
            });
            builder
                .build()
                .execute(&mut *tx)
                .await
                .map_err(conflict_or)?;
        }
        write_batch(&mut tx, game.id, events).await?;
        write_outbox(&mut tx, game.id, outbox).await?;
        if let Some(due) = attention {
            sqlx::query(rows::SET_ATTENTION)
                .bind(game.id.to_string())
                .bind(time_text(&due))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(rows::GAME)
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(rows::game_from_row).transpose()
    }

    async fn seat_for_token(
        &self,
        game: Uuid,
        token_hash: &str,
    ) -> Result<Option<(Uuid, u8)>, StoreError> {
        let mut row = sqlx::query(rows::SEAT_FOR_TOKEN)
            .bind(game.to_string())
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await?;
        if row.is_none() {
            row = sqlx::query(rows::GAME_FOR_TOKEN)
                .bind(token_hash)
                .fetch_optional(&self.pool)
                .await?;
        }
        row.as_ref().map(rows::seat_from_row).transpose()
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }
}

#[async_trait]
impl LogStore for SqliteStore {
    async fn events(
        &self,
        id: Uuid,
        after: u64,
        limit: Option<u64>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(rows::EVENTS)
            .bind(id.to_string())
            .bind(rows::limit(Some(after)))
            .bind(rows::limit(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(rows::event_from_row).collect()
    }

    async fn append_with_outbox(
        &self,
        id: Uuid,
        events: &[StoredEvent],
        idempotent: Option<&IdempotentMove>,
        outbox: &[OutboxMessage],
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
        write_append(&mut tx, id, events, idempotent, outbox).await?;
        tx.commit().await?;
        Ok(())
    }

    fn parallel_writers(&self) -> usize {
        1
    }

    async fn append_group(
        &self,
        appends: &[Append],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        // One transaction, so one sync of the log to disk, for the whole group; each append
        // in a savepoint of its own, so one that collides is undone alone.
        let mut tx = self.pool.begin_with(BEGIN_WRITE).await?;
        let mut answers = Vec::with_capacity(appends.len());
        for a in appends {
            let mut one = sqlx::Acquire::begin(&mut tx).await?;
            match write_append(&mut one, a.id, &a.events, a.idempotent.as_ref(), &a.outbox).await {
                Ok(()) => {
                    one.commit().await?;
                    answers.push(Ok(()));
                }
                Err(StoreError::Conflict) => {
                    one.rollback().await?;
                    answers.push(Err(StoreError::Conflict));
                }
                Err(other) => return Err(other),
            }
        }
        tx.commit().await?;
        Ok(answers)
    }

    async fn head(&self, id: Uuid) -> Result<Option<(u64, String)>, StoreError> {
        let row = sqlx::query(rows::HEAD)
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(rows::head_from_row).transpose()
    }

    async fn idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
    ) -> Result<Option<IdempotentMove>, StoreError> {
        let row = sqlx::query(rows::IDEMPOTENT_MOVE)
            .bind(id.to_string())
            .bind(i64::from(seat))
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref()
            .map(|row| rows::idempotent_from_row(row, seat, key))
            .transpose()
    }

    async fn forget_idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
        expired_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        // Times are kept as fixed-width RFC 3339 text in UTC, so text order is time order.
        sqlx::query(rows::FORGET_IDEMPOTENCY_KEY)
            .bind(id.to_string())
            .bind(i64::from(seat))
            .bind(key)
            .bind(time_text(&expired_at))
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

#[async_trait]
impl FeedStore for SqliteStore {
    async fn committed_since(
        &self,
        after: FeedCursor,
        limit: u64,
    ) -> Result<Vec<Committed>, StoreError> {
        // One writer at a time hands out positions in commit order: the position alone is the
        // place in the feed.
        let rows = sqlx::query(
            "SELECT position, 0 AS txid_number, COALESCE(commit_position, position) AS commit_number, game_id, seq, type FROM events WHERE position > $1 ORDER BY position LIMIT $2",
        )
        .bind(wide(after.position, "position")?)
        .bind(rows::limit(Some(limit)))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(rows::committed_from_row).collect()
    }

    async fn held_back(&self) -> Result<bool, StoreError> {
        Ok(false)
    }

    async fn latest_position(&self) -> Result<FeedCursor, StoreError> {
        let position: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(position), 0) FROM events")
            .fetch_one(&self.pool)
            .await?;
        Ok(FeedCursor {
            txid: 0,
            position: super::narrow(position, "position")?,
        })
    }

    async fn listen(&self) -> Result<Option<sqlx::postgres::PgListener>, StoreError> {
        Ok(None)
    }

    async fn announce(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// A time `by` after `from`, refusing a lease too long to represent.
fn later(from: DateTime<Utc>, by: Duration) -> Result<DateTime<Utc>, StoreError> {
    chrono::Duration::from_std(by)
        .ok()
        .and_then(|by| from.checked_add_signed(by))
        .ok_or_else(|| StoreError::Corrupt(format!("a lease of {by:?} is too long")))
}

#[async_trait]
impl OutboxStore for SqliteStore {
    async fn claim_outbox(
        &self,
        topic_prefix: Option<&str>,
        limit: u64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        let now = super::now();
        // One UPDATE: SQLite runs it under the write lock, so two claimers never share a message
        // and each sees the other's claims.
        let sql = format!(
            "UPDATE outbox SET available_at = $3, attempts = attempts + 1 \
             WHERE id IN (SELECT o.id FROM outbox o WHERE {} ORDER BY o.id LIMIT $2) {}",
            rows::outbox_claimable("$4"),
            rows::OUTBOX_RETURNING
        );
        let rows = sqlx::query(&sql)
            .bind(topic_prefix)
            .bind(rows::limit(Some(limit)))
            .bind(time_text(&later(now, lease)?))
            .bind(time_text(&now))
            .fetch_all(&self.pool)
            .await?;
        let mut items = rows
            .iter()
            .map(rows::outbox_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        items.sort_by_key(|item| item.id);
        Ok(items)
    }

    async fn complete_outbox(&self, game: Uuid, id: u64) -> Result<(), StoreError> {
        sqlx::query(rows::COMPLETE_OUTBOX)
            .bind(game.to_string())
            .bind(wide(id, "outbox id")?)
            .bind(time_text(&super::now()))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn retry_outbox(
        &self,
        game: Uuid,
        id: u64,
        error: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        sqlx::query(rows::RETRY_OUTBOX)
            .bind(game.to_string())
            .bind(wide(id, "outbox id")?)
            .bind(time_text(&at))
            .bind(error)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Binds an account token's columns to [`rows::INSERT_ACCOUNT_TOKEN`] (or the mint).
pub(super) fn bind_token<'q>(
    query: sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments<'q>>,
    token: &AccountTokenRecord,
) -> sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments<'q>> {
    query
        .bind(token.id.to_string())
        .bind(token.account.to_string())
        .bind(token.name.clone())
        .bind(token.token_hash.clone())
        .bind(time_text(&token.created_at))
        .bind(token.signed_in_with.map(SignedInWith::name))
        .bind(token.scopes.to_text())
        .bind(token.app.clone())
}

#[async_trait]
impl LeaderStore for SqliteStore {
    async fn lead(&self, name: &str) -> Result<Option<Box<dyn Leadership>>, StoreError> {
        let holder = Uuid::new_v4().to_string();
        let now = super::now();
        let taken = sqlx::query(
            "INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3) \
             ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at \
             WHERE leases.expires_at <= $4",
        )
        .bind(name)
        .bind(&holder)
        .bind(time_text(&later(now, LEADER_LEASE)?))
        .bind(time_text(&now))
        .execute(&self.pool)
        .await?
        .rows_affected();
        if taken == 0 {
            return Ok(None);
        }
        Ok(Some(Box::new(SqliteLeadership {
            pool: self.pool.clone(),
            name: name.to_string(),
            holder,
            lost: false,
        })))
    }
}

/// A lease in `leases`, held while `still_leading` keeps renewing it in time.
struct SqliteLeadership {
    pool: SqlitePool,
    name: String,
    holder: String,
    lost: bool,
}

#[async_trait]
impl Leadership for SqliteLeadership {
    async fn still_leading(&mut self) -> bool {
        if self.lost {
            return false;
        }
        let now = super::now();
        let Ok(until) = later(now, LEADER_LEASE) else {
            self.lost = true;
            return false;
        };
        // Renewed only if still ours and not yet run out: a lease that expired may already be
        // someone else's, and a leader that slept through its lease must not carry on.
        let renewed = sqlx::query(
            "UPDATE leases SET expires_at = $3 WHERE name = $1 AND holder = $2 AND expires_at > $4",
        )
        .bind(&self.name)
        .bind(&self.holder)
        .bind(time_text(&until))
        .bind(time_text(&now))
        .execute(&self.pool)
        .await;
        match renewed {
            Ok(done) if done.rows_affected() == 1 => true,
            Ok(_) => {
                self.lost = true;
                false
            }
            Err(error) => {
                tracing::warn!(%error, name = %self.name, "could not renew the leader's lease");
                self.lost = true;
                false
            }
        }
    }
}

impl Drop for SqliteLeadership {
    fn drop(&mut self) {
        // Hand the lease back now rather than make the next leader wait for it to run out;
        // if there is no runtime to do it on, it runs out.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (pool, name, holder) = (self.pool.clone(), self.name.clone(), self.holder.clone());
        runtime.spawn(async move {
            let released = sqlx::query("DELETE FROM leases WHERE name = $1 AND holder = $2")
                .bind(&name)
                .bind(&holder)
                .execute(&pool)
                .await;
            if let Err(error) = released {
                tracing::warn!(%error, %name, "could not hand back the leader's lease");
            }
        });
    }
}

/// Writes the messages that must follow a batch, in its transaction: each one with an
/// audience only if an account of it has an enabled endpoint.
async fn write_outbox(
    tx: &mut sqlx::SqliteConnection,
    id: Uuid,
    outbox: &[OutboxMessage],
) -> Result<(), StoreError> {
    let now = time_text(&super::now());
    let mut heard = Vec::with_capacity(outbox.len());
    for message in outbox {
        if let Some(accounts) = &message.only_if_webhooks_of {
            let ids: Vec<String> = accounts.iter().map(Uuid::to_string).collect();
            let listening: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM webhooks \
                     WHERE enabled AND account_id IN (SELECT value FROM json_each($1)))",
            )
            .bind(serde_json::to_string(&ids).map_err(|e| StoreError::Corrupt(e.to_string()))?)
            .fetch_one(&mut *tx)
            .await?;
            if !listening {
                continue;
            }
        }
        heard.push(message);
    }
    if !heard.is_empty() {
        let mut builder = QueryBuilder::<Sqlite>::new(
            "INSERT INTO outbox (game_id, topic, payload, created_at, available_at) ",
        );
        builder.push_values(heard, |mut row, m| {
            row.push_bind(id.to_string())
                .push_bind(m.topic.clone())
                .push_bind(m.payload.clone())
                .push_bind(now.clone())
                .push_bind(now.clone());
        });
        builder.build().execute(&mut *tx).await?;
    }
    Ok(())
}

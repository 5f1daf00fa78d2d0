//! The production backend.
//!
//! **The feed.** Every event row gets a `position` from a sequence and the id of the
//! transaction that wrote it (`txid`, `pg_current_xact_id()`). Sequence numbers are drawn
//! when a row is written but become visible when its transaction commits, so position 7 can
//! be visible while position 6 is still in flight. Reading "positions above the last seen"
//! would skip 6 for ever. Instead the feed is read below `pg_snapshot_xmin` (the oldest
//! transaction still in flight: every row of an older transaction is final, committed or
//! gone) and in order of `(txid, position)`; whatever commits later has a `txid` at or above
//! that bound, so it sorts after everything already read. A follower's cursor is the last
//! entry's `(txid, position)`, so the one index `events_feed` serves both finding the place
//! and reading on from it (migration 0005 dropped the index on `position` alone, one more
//! entry to write with every event). The cost: a long transaction anywhere on the server
//! holds the feed back (it is delayed, never lost).
//!
//! **Wake-ups.** An instance that has committed announces it with `pg_notify`, in a statement
//! of its own after the commit and at most once per few milliseconds however many moves it
//! made ([`super::FeedStore::announce`], `bus::announce_until_stopped`): a notifying
//! transaction takes a lock that serialises every other notifying commit, which is why no
//! append notifies (migration 0004 dropped the trigger that did).
//!
//! **Leaders.** `pg_try_advisory_lock` on a connection taken out of the pool and held by the
//! [`Leadership`]: the lock lives exactly as long as that session.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use sqlx::postgres::{PgConnection, PgListener, PgPool, PgPoolOptions};
use uuid::Uuid;

use super::rows::{self, wide};
use super::{
    conflict_or, is_unique_violation, one_by_one, stored_json, AccountTokenRecord, Append,
    Committed, FeedCursor, FeedStore, GameRecord, GameStore, IdempotentMove, LeaderStore,
    Leadership, LogStore, OutboxItem, OutboxMessage, OutboxStore, SeatCredential, SignedInWith,
    StoreError, StoredEvent, EVENTS_CHANNEL,
};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

/// Postgres: each append is one statement, so a move costs one round trip and one commit.
pub struct PostgresStore {
    pub(super) pool: PgPool,
}

impl PostgresStore {
    /// A transaction that writes: on Postgres an ordinary one (each statement takes its own
    /// row locks). The store bodies written once for both backends begin their writes here.
    pub(super) async fn begin_write(
        &self,
    ) -> Result<sqlx::Transaction<'_, sqlx::Postgres>, sqlx::Error> {
        self.pool.begin().await
    }

    /// Connects with the default timeouts and applies the migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, &super::DbSettings::default()).await
    }

    /// Connects and applies the migrations. Every statement gets the server-side
    /// `statement_timeout`, so the server abandons (and rolls back) what we stopped waiting for.
    pub async fn connect_with(url: &str, settings: &super::DbSettings) -> Result<Self, StoreError> {
        let timeout_ms = settings.statement_timeout.as_millis().to_string();
        let options = <sqlx::postgres::PgConnectOptions as std::str::FromStr>::from_str(url)?
            .options([("statement_timeout", timeout_ms.as_str())]);
        let pool = PgPoolOptions::new()
            .max_connections(settings.max_connections)
            .acquire_timeout(settings.acquire_timeout)
            .connect_with(options)
            .await?;
        MIGRATOR.run(&pool).await.map_err(sqlx::Error::from)?;
        Ok(PostgresStore { pool })
    }

    /// The pool, for what needs Postgres itself (the bus's `PgListener`, say).
    pub fn pg_pool(&self) -> &PgPool {
        &self.pool
    }
}

type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// A batch of events as one array per column, for `UNNEST`.
struct Columns {
    seqs: Vec<i64>,
    kinds: Vec<String>,
    actors: Vec<Option<i16>>,
    data: Vec<String>,
    commands: Vec<Option<String>>,
    ats: Vec<DateTime<Utc>>,
    sealed: Vec<Option<String>>,
    prev_hashes: Vec<String>,
    hashes: Vec<String>,
    versions: Vec<i32>,
}

impl Columns {
    /// Binds the columns, in their order, as the next ten parameters.
    fn bind(self, query: PgQuery<'_>) -> PgQuery<'_> {
        query
            .bind(self.seqs)
            .bind(self.kinds)
            .bind(self.actors)
            .bind(self.data)
            .bind(self.commands)
            .bind(self.ats)
            .bind(self.sealed)
            .bind(self.prev_hashes)
            .bind(self.hashes)
            .bind(self.versions)
    }
}

fn columns(events: &[StoredEvent]) -> Result<Columns, StoreError> {
    Ok(Columns {
        seqs: events
            .iter()
            .map(|e| wide(e.seq, "seq"))
            .collect::<Result<_, _>>()?,
        kinds: events.iter().map(|e| e.kind.clone()).collect(),
        actors: events.iter().map(|e| e.actor.map(i16::from)).collect(),
        data: events.iter().map(|e| stored_json(&e.data)).collect(),
        commands: events
            .iter()
            .map(|e| e.command.as_ref().map(stored_json))
            .collect(),
        ats: events.iter().map(|e| e.at).collect(),
        sealed: events.iter().map(|e| e.sealed.clone()).collect(),
        prev_hashes: events.iter().map(|e| e.prev_hash.clone()).collect(),
        hashes: events.iter().map(|e| e.hash.clone()).collect(),
        versions: events.iter().map(|e| i32::from(e.version)).collect(),
    })
}

/// Writes a batch: `$1` the game, `$2`…`$11` the columns. `position` and `txid` are the
/// columns' defaults (`nextval`, `pg_current_xact_id()`).
const INSERT_EVENTS: &str = "INSERT INTO events (game_id, seq, type, actor, data, command, at, sealed, prev_hash, hash, event_version) \
     SELECT $1, * FROM UNNEST($2::int8[], $3::text[], $4::int2[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::int4[])";

/// Moves the recorded head to the batch's last event (`$12`, `$13`), in the same statement.
const ADVANCE_HEAD: &str = "INSERT INTO game_heads (game_id, version, head_hash) VALUES ($1, $12, $13) \
     ON CONFLICT (game_id) DO UPDATE SET version = EXCLUDED.version, head_hash = EXCLUDED.head_hash \
     WHERE game_heads.version < EXCLUDED.version";

/// Binds a batch (`$1`…`$13`): the events and the head it leaves the log at.
fn bind_batch<'q>(
    query: PgQuery<'q>,
    id: Uuid,
    events: &[StoredEvent],
) -> Result<PgQuery<'q>, StoreError> {
    let last = events
        .last()
        .ok_or_else(|| StoreError::Corrupt("an empty batch".into()))?;
    let version = wide(last.seq, "seq")?;
    let hash = last.hash.clone();
    let c = columns(events)?;
    Ok(c.bind(query.bind(id)).bind(version).bind(hash))
}

/// The one statement of an append: events, head, and (when given) the idempotency key and
/// the outbox messages, each a data-modifying `WITH` that runs whether read or not, so they
/// land together or not at all.
fn append_sql(key: bool, outbox: bool) -> String {
    let mut parts = vec![format!("appended AS ({INSERT_EVENTS} RETURNING seq)")];
    let mut next = 14;
    let mut last = ADVANCE_HEAD.to_string();
    if key {
        parts.push(format!("head AS ({last})"));
        last = format!(
            "INSERT INTO idempotency_keys (game_id, seat, key, fingerprint, version, created_at) \
             VALUES ($1, ${}, ${}, ${}, ${}, ${})",
            next,
            next + 1,
            next + 2,
            next + 3,
            next + 4
        );
        next += 5;
    }
    if outbox {
        parts.push(format!("keyed AS ({last})"));
        // A message with an audience (comma-separated account ids) is written only if one of
        // them has an endpoint; `string_to_array('', ',')` is empty, so no audience, no row.
        last = format!(
            "INSERT INTO outbox (game_id, topic, payload, created_at, available_at) \
             SELECT $1, topic, payload, now(), now() \
             FROM UNNEST(${}::text[], ${}::text[], ${}::text[]) AS m (topic, payload, audience) \
             WHERE m.audience IS NULL OR EXISTS (SELECT 1 FROM webhooks w \
                 WHERE w.enabled AND w.account_id = ANY (string_to_array(m.audience, ',')::uuid[]))",
            next,
            next + 1,
            next + 2
        );
    }
    format!("WITH {} {last}", parts.join(", "))
}

/// Binds the messages `append_sql(_, true)` writes (nothing when there are none).
fn bind_outbox<'q>(query: PgQuery<'q>, outbox: &[OutboxMessage]) -> PgQuery<'q> {
    if outbox.is_empty() {
        return query;
    }
    query
        .bind(outbox.iter().map(|m| m.topic.clone()).collect::<Vec<_>>())
        .bind(outbox.iter().map(|m| m.payload.clone()).collect::<Vec<_>>())
        .bind(outbox.iter().map(audience).collect::<Vec<_>>())
}

/// A message's audience as the append statement reads it.
fn audience(message: &OutboxMessage) -> Option<String> {
    message.only_if_webhooks_of.as_ref().map(|accounts| {
        accounts
            .iter()
            .map(Uuid::to_string)
            .collect::<Vec<_>>()
            .join(",")
    })
}

/// A group of appends of different games in one statement (`LogStore::append_group`):
/// `$1`…`$9` one row per append: its game, the version it was decided from, the version and
/// head hash it leaves, and its idempotency key if any (seat, key, fingerprint, version,
/// time); `$10`…`$20` every event with its game; `$21`…`$24` every outbox message with its
/// game. Each game's head moves only from the version its append was decided from, and only
/// while its key is free; nothing of an append whose head did not move is written. Answers
/// the games whose heads moved.
///
/// A head that moved had no later event and no such key when the statement began (every
/// append moves its game's head in the statement that writes its events and key, and a head
/// another transaction moved since is re-checked once that one commits), so the inserts
/// cannot collide; if one ever did, the unique violation fails the whole statement, writing
/// nothing, and the group is appended one by one instead.
const APPEND_GROUP: &str = "WITH batch AS (\
        SELECT * FROM UNNEST($1::uuid[], $2::int8[], $3::int8[], $4::text[], $5::int2[], \
            $6::text[], $7::text[], $8::int8[], $9::timestamptz[]) \
        AS b (game_id, expected, version, head_hash, key_seat, key, fingerprint, key_version, key_at)), \
    advanced AS (\
        UPDATE game_heads h SET version = b.version, head_hash = b.head_hash FROM batch b \
        WHERE h.game_id = b.game_id AND h.version = b.expected \
          AND (b.key IS NULL OR NOT EXISTS (SELECT 1 FROM idempotency_keys k \
              WHERE k.game_id = b.game_id AND k.seat = b.key_seat AND k.key = b.key)) \
        RETURNING h.game_id), \
    appended AS (\
        INSERT INTO events (game_id, seq, type, actor, data, command, at, sealed, prev_hash, hash, event_version) \
        SELECT e.* FROM UNNEST($10::uuid[], $11::int8[], $12::text[], $13::int2[], $14::text[], \
            $15::text[], $16::timestamptz[], $17::text[], $18::text[], $19::text[], $20::int4[]) \
        AS e (game_id, seq, type, actor, data, command, at, sealed, prev_hash, hash, event_version) \
        WHERE e.game_id IN (SELECT game_id FROM advanced)), \
    keyed AS (\
        INSERT INTO idempotency_keys (game_id, seat, key, fingerprint, version, created_at) \
        SELECT b.game_id, b.key_seat, b.key, b.fingerprint, b.key_version, b.key_at FROM batch b \
        WHERE b.key IS NOT NULL AND b.game_id IN (SELECT game_id FROM advanced)), \
    messaged AS (\
        INSERT INTO outbox (game_id, topic, payload, created_at, available_at) \
        SELECT m.game_id, m.topic, m.payload, now(), now() \
        FROM UNNEST($21::uuid[], $22::text[], $23::text[], $24::text[]) AS m (game_id, topic, payload, audience) \
        WHERE m.game_id IN (SELECT game_id FROM advanced) \
          AND (m.audience IS NULL OR EXISTS (SELECT 1 FROM webhooks w \
              WHERE w.enabled AND w.account_id = ANY (string_to_array(m.audience, ',')::uuid[])))) \
    SELECT game_id FROM advanced";

/// Binds a group (`APPEND_GROUP`'s `$1`…`$24`).
fn bind_group<'q>(query: PgQuery<'q>, appends: &[&Append]) -> Result<PgQuery<'q>, StoreError> {
    let mut heads = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    let (mut games, mut events) = (Vec::new(), Vec::new());
    let mut messages = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for a in appends {
        let (Some(first), Some(last)) = (a.events.first(), a.events.last()) else {
            return Err(StoreError::Corrupt("an empty batch".into()));
        };
        let key = a.idempotent.as_ref();
        heads.0.push(a.id);
        heads.1.push(wide(first.seq.saturating_sub(1), "seq")?);
        heads.2.push(wide(last.seq, "seq")?);
        heads.3.push(last.hash.clone());
        heads.4.push(key.map(|k| i16::from(k.seat)));
        heads.5.push(key.map(|k| k.key.clone()));
        heads.6.push(key.map(|k| k.fingerprint.clone()));
        heads
            .7
            .push(key.map(|k| wide(k.version, "version")).transpose()?);
        heads.8.push(key.map(|k| k.created_at));
        games.extend(std::iter::repeat_n(a.id, a.events.len()));
        events.extend(a.events.iter().cloned());
        for m in &a.outbox {
            messages.0.push(a.id);
            messages.1.push(m.topic.clone());
            messages.2.push(m.payload.clone());
            messages.3.push(audience(m));
        }
    }
    let c = columns(&events)?;
    let query = query
        .bind(heads.0)
        .bind(heads.1)
        .bind(heads.2)
        .bind(heads.3)
        .bind(heads.4)
        .bind(heads.5)
        .bind(heads.6)
        .bind(heads.7)
        .bind(heads.8)
        .bind(games);
    Ok(c.bind(query)
        .bind(messages.0)
        .bind(messages.1)
        .bind(messages.2)
        .bind(messages.3))
}

/// Whether Postgres chose this statement's transaction to break a deadlock (two groups
/// that lock the same heads in another order, on two instances).
fn is_deadlock(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.code().as_deref() == Some("40P01"))
}

#[async_trait]
impl GameStore for PostgresStore {
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
        let rules_version = i32::try_from(game.rules_version)
            .map_err(|_| StoreError::Corrupt("rules version out of range".into()))?;
        let mut tx = self.pool.begin().await?;
        sqlx::query(rows::INSERT_GAME)
            .bind(game.id)
            .bind(&game.game)
            .bind(stored_json(&players))
            .bind(stored_json(&game.options))
            .bind(game.seed.0.as_slice())
            .bind(&game.seed_commitment)
            .bind(game.created_at)
            .bind(i16::from(game.chain))
            .bind(game.salt.as_ref().map(|s| s.as_slice()))
            .bind(rules_version)
            .execute(&mut *tx)
            .await
            .map_err(conflict_or)?;
        sqlx::query(
            "INSERT INTO seats (game_id, seat, name, token_hash) SELECT $1, * FROM UNNEST($2::int2[], $3::text[], $4::text[])",
        )
        .bind(game.id)
        .bind(seats.iter().map(|s| i16::from(s.seat)).collect::<Vec<_>>())
        .bind(seats.iter().map(|s| s.name.clone()).collect::<Vec<_>>())
        .bind(seats.iter().map(|s| s.token_hash.clone()).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await
        .map_err(conflict_or)?;
        let sql = append_sql(false, !outbox.is_empty());
        bind_outbox(bind_batch(sqlx::query(&sql), game.id, events)?, outbox)
            .execute(&mut *tx)
            .await
            .map_err(conflict_or)?;
        if let Some(due) = attention {
            sqlx::query(rows::SET_ATTENTION)
                .bind(game.id)
                .bind(due)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(rows::GAME)
            .bind(id)
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
            .bind(game)
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
impl LogStore for PostgresStore {
    async fn events(
        &self,
        id: Uuid,
        after: u64,
        limit: Option<u64>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(rows::EVENTS)
            .bind(id)
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
        // One statement: the events, the head, the key and the messages land together or not
        // at all, in one round trip.
        let sql = append_sql(idempotent.is_some(), !outbox.is_empty());
        let mut query = bind_batch(sqlx::query(&sql), id, events)?;
        if let Some(key) = idempotent {
            query = query
                .bind(i16::from(key.seat))
                .bind(&key.key)
                .bind(&key.fingerprint)
                .bind(wide(key.version, "version")?)
                .bind(key.created_at);
        }
        bind_outbox(query, outbox)
            .execute(&self.pool)
            .await
            .map(|_| ())
            .map_err(conflict_or)
    }

    async fn append_group(
        &self,
        appends: &[Append],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let distinct = appends
            .iter()
            .map(|a| a.id)
            .collect::<std::collections::HashSet<_>>()
            .len()
            == appends.len();
        if appends.len() < 2 || !distinct {
            return one_by_one(self, appends).await;
        }
        // Heads are locked in the order of their games, so two groups on two instances
        // seldom wait for each other in a circle.
        let mut order: Vec<&Append> = appends.iter().collect();
        order.sort_by_key(|a| a.id);
        let moved = bind_group(sqlx::query(APPEND_GROUP), &order)?
            .fetch_all(&self.pool)
            .await;
        let moved: std::collections::HashSet<Uuid> = match moved {
            Ok(rows) => rows
                .iter()
                .map(|row| sqlx::Row::try_get::<Uuid, _>(row, 0))
                .collect::<Result<_, _>>()?,
            // Nothing was written: each append is judged on its own instead.
            Err(error) if is_unique_violation(&error) || is_deadlock(&error) => {
                return one_by_one(self, appends).await;
            }
            Err(error) => return Err(error.into()),
        };
        // An append whose head did not move had its head moved on by another instance's move,
        // or had none: the one-append statement says which, exactly as without a group. They
        // are of different games, so they are asked at once, not one after another: with
        // several instances moving the same games many appends of a group can be stale, and
        // asking in turn held the whole commit pipeline for a round trip each.
        let moved = &moved;
        let answers = futures_util::future::join_all(appends.iter().map(|a| async move {
            if moved.contains(&a.id) {
                Ok(())
            } else {
                self.append_with_outbox(a.id, &a.events, a.idempotent.as_ref(), &a.outbox)
                    .await
            }
        }))
        .await;
        Ok(answers)
    }

    async fn head(&self, id: Uuid) -> Result<Option<(u64, String)>, StoreError> {
        let row = sqlx::query(rows::HEAD)
            .bind(id)
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
            .bind(id)
            .bind(i16::from(seat))
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
        sqlx::query(rows::FORGET_IDEMPOTENCY_KEY)
            .bind(id)
            .bind(i16::from(seat))
            .bind(key)
            .bind(expired_at)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Rows every transaction that could still commit will sort after (see the module's doc).
const FINAL: &str = "txid < pg_snapshot_xmin(pg_current_snapshot())";

/// The columns of a feed entry (`rows::committed_from_row`). `xid8` has no integer cast; its
/// text is its number. The number has a name of its own: called `txid`, it would be what
/// `ORDER BY txid` sorts by, which no index gives, and every look would sort the whole feed.
const ENTRY: &str =
    "position, txid::text::int8 AS txid_number, txid::text::int8 AS commit_number, game_id, seq, type";

#[async_trait]
impl FeedStore for PostgresStore {
    async fn committed_since(
        &self,
        after: FeedCursor,
        limit: u64,
    ) -> Result<Vec<Committed>, StoreError> {
        let limit = rows::limit(Some(limit));
        let rows = if after == FeedCursor::START {
            sqlx::query(&format!(
                "SELECT {ENTRY} FROM events WHERE {FINAL} ORDER BY txid, position LIMIT $1"
            ))
            .bind(limit)
            .fetch_all(&self.pool)
            .await?
        } else {
            let txid = wide(after.txid, "txid")?;
            let position = wide(after.position, "position")?;
            let rows = sqlx::query(&format!(
                "SELECT {ENTRY} FROM events WHERE {FINAL} \
                 AND (txid, position) > ($1::text::xid8, $2) \
                 ORDER BY txid, position LIMIT $3"
            ))
            .bind(txid.to_string())
            .bind(position)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
            if rows.is_empty() {
                // A cursor that names no entry would wait for ever: say so instead.
                let known = sqlx::query(
                    "SELECT 1 FROM events WHERE txid = $1::text::xid8 AND position = $2",
                )
                .bind(txid.to_string())
                .bind(position)
                .fetch_optional(&self.pool)
                .await?;
                if known.is_none() {
                    return Err(StoreError::Corrupt(format!(
                        "{after:?} is not an entry of the feed"
                    )));
                }
            }
            rows
        };
        rows.iter().map(rows::committed_from_row).collect()
    }

    async fn held_back(&self) -> Result<bool, StoreError> {
        // Committed (this statement sees them) but not final: the rows the feed holds back.
        // Asked of the newest row alone, which the index gives at once; as `EXISTS (... WHERE
        // txid >= ...)` the planner scans the whole table when none is held back.
        let held: bool = sqlx::query_scalar(
            "SELECT COALESCE((SELECT txid FROM events ORDER BY txid DESC LIMIT 1) \
             >= pg_snapshot_xmin(pg_current_snapshot()), false)",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(held)
    }

    async fn latest_position(&self) -> Result<FeedCursor, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {ENTRY} FROM events WHERE {FINAL} ORDER BY txid DESC, position DESC LIMIT 1"
        ))
        .fetch_optional(&self.pool)
        .await?;
        match row {
            None => Ok(FeedCursor::START),
            Some(row) => Ok(rows::committed_from_row(&row)?.cursor()),
        }
    }

    async fn listen(&self) -> Result<Option<PgListener>, StoreError> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(EVENTS_CHANNEL).await?;
        Ok(Some(listener))
    }

    async fn announce(&self) -> Result<(), StoreError> {
        // A NOTIFY is a transaction with an id and a commit record of its own. It carries no
        // data (a lost one only delays a follower until its fallback look), so its commit
        // need not wait for the disk: with the default `synchronous_commit`, every
        // announcement would add a flush for the moves' commits to queue behind.
        sqlx::query("SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, '')")
            .bind(EVENTS_CHANNEL)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

#[async_trait]
impl OutboxStore for PostgresStore {
    async fn claim_outbox(
        &self,
        topic_prefix: Option<&str>,
        limit: u64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        // The database's clock, so instances whose clocks disagree still agree on leases.
        // Claims take turns on an advisory lock held to the end of their transaction: the
        // UPDATE's snapshot is then taken after the previous claim committed, so it sees which
        // of a game's messages that claim holds, and takes none behind them (SKIP LOCKED alone
        // would let two claimers split one game's messages between them, out of order).
        let sql = format!(
            "UPDATE outbox SET available_at = now() + make_interval(secs => $3), attempts = attempts + 1 \
             WHERE (game_id, id) IN (SELECT o.game_id, o.id FROM outbox o WHERE {} \
                          ORDER BY o.id LIMIT $2 FOR UPDATE SKIP LOCKED) {}",
            rows::outbox_claimable("now()"),
            rows::OUTBOX_RETURNING
        );
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(advisory_key("parlour outbox claim"))
            .execute(&mut *tx)
            .await?;
        let rows = sqlx::query(&sql)
            .bind(topic_prefix)
            .bind(rows::limit(Some(limit)))
            .bind(lease.as_secs_f64())
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        let mut items = rows
            .iter()
            .map(rows::outbox_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        items.sort_by_key(|item| item.id);
        Ok(items)
    }

    async fn complete_outbox(&self, game: Uuid, id: u64) -> Result<(), StoreError> {
        sqlx::query(rows::COMPLETE_OUTBOX)
            .bind(game)
            .bind(wide(id, "outbox id")?)
            .bind(super::now())
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
            .bind(game)
            .bind(wide(id, "outbox id")?)
            .bind(at)
            .bind(error)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Binds an account token's columns to [`rows::INSERT_ACCOUNT_TOKEN`] (or the mint).
pub(super) fn bind_token<'q>(query: PgQuery<'q>, token: &AccountTokenRecord) -> PgQuery<'q> {
    query
        .bind(token.id)
        .bind(token.account)
        .bind(token.name.clone())
        .bind(token.token_hash.clone())
        .bind(token.created_at)
        .bind(token.signed_in_with.map(SignedInWith::name))
        .bind(token.scopes.to_text())
        .bind(token.app.clone())
}

/// The advisory lock key for a leader's name.
fn lock_key(name: &str) -> i64 {
    advisory_key(&format!("parlour leader {name}"))
}

/// An advisory lock key named by `text`: the first 8 bytes of its SHA-256, so every instance
/// (and every Postgres version) agrees on it.
fn advisory_key(text: &str) -> i64 {
    let digest = Sha256::digest(text.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(bytes)
}

#[async_trait]
impl LeaderStore for PostgresStore {
    async fn lead(&self, name: &str) -> Result<Option<Box<dyn Leadership>>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
            .bind(lock_key(name))
            .fetch_one(&mut *conn)
            .await?;
        if !locked {
            return Ok(None);
        }
        // Out of the pool: the lock belongs to this session, which must live exactly as long
        // as the leadership (and never serve other queries that could release it).
        Ok(Some(Box::new(PgLeadership {
            conn: Some(conn.detach()),
        })))
    }
}

/// A session holding a leader's advisory lock. Dropping it closes the session, which
/// releases the lock; so does the connection dying.
struct PgLeadership {
    conn: Option<PgConnection>,
}

#[async_trait]
impl Leadership for PgLeadership {
    async fn still_leading(&mut self) -> bool {
        let Some(conn) = self.conn.as_mut() else {
            return false;
        };
        // The lock lives with the session: if the session answers, it is still held.
        match sqlx::query("SELECT 1").execute(&mut *conn).await {
            Ok(_) => true,
            Err(error) => {
                tracing::warn!(%error, "lost the leader's connection");
                self.conn = None;
                false
            }
        }
    }
}

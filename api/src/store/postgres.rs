//! The production backend.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use parlour_domain::{Player, Seed};
use sqlx::postgres::{PgPool, PgPoolOptions, PgRow};
use sqlx::Row;
use uuid::Uuid;

use super::{
    is_unique_violation, narrow, parse_json, salt_from, stored_json, EventStore, GameRecord,
    IdempotentMove, SeatCredential, StoreError, StoredEvent,
};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

/// Postgres: each append is one statement, so a move costs one round trip and one commit.
pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
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
            .max_connections(32)
            .acquire_timeout(settings.acquire_timeout)
            .connect_with(options)
            .await?;
        MIGRATOR.run(&pool).await.map_err(sqlx::Error::from)?;
        Ok(PostgresStore { pool })
    }
}

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
}

fn columns(events: &[StoredEvent]) -> Columns {
    Columns {
        seqs: events.iter().map(|e| e.seq as i64).collect(),
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
    }
}

const INSERT_EVENTS: &str = "INSERT INTO events (game_id, seq, type, actor, data, command, at, sealed, prev_hash, hash) \
     SELECT $1, * FROM UNNEST($2::int8[], $3::text[], $4::int2[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[], $10::text[])";

/// Moves the recorded head to the batch's last event ($11, $12), in the same statement. A
/// writer that lost the race to the same position leaves the head alone (and fails on the
/// events' key), rather than tripping the head's only-forward trigger.
const ADVANCE_HEAD: &str = "INSERT INTO game_heads (game_id, version, head_hash) VALUES ($1, $11, $12) \
     ON CONFLICT (game_id) DO UPDATE SET version = EXCLUDED.version, head_hash = EXCLUDED.head_hash \
     WHERE game_heads.version < EXCLUDED.version";

fn bind_events<'q>(
    query: sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>,
    id: Uuid,
    c: Columns,
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    query
        .bind(id)
        .bind(c.seqs)
        .bind(c.kinds)
        .bind(c.actors)
        .bind(c.data)
        .bind(c.commands)
        .bind(c.ats)
        .bind(c.sealed)
        .bind(c.prev_hashes)
        .bind(c.hashes)
}

/// Binds a batch and the head it leaves the log at.
fn bind_batch<'q>(
    query: sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>,
    id: Uuid,
    events: &[StoredEvent],
) -> Result<sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>, StoreError> {
    let last = events
        .last()
        .ok_or_else(|| StoreError::Corrupt("an empty batch".into()))?;
    let version = i64::try_from(last.seq)
        .map_err(|_| StoreError::Corrupt(format!("seq {} is out of range", last.seq)))?;
    let hash = last.hash.clone();
    Ok(bind_events(query, id, columns(events))
        .bind(version)
        .bind(hash))
}

fn event_from_row(row: &PgRow) -> Result<StoredEvent, StoreError> {
    let seq: i64 = row.try_get("seq")?;
    let actor: Option<i16> = row.try_get("actor")?;
    let data: String = row.try_get("data")?;
    let command: Option<String> = row.try_get("command")?;
    Ok(StoredEvent {
        seq: narrow(seq, "seq")?,
        kind: row.try_get("type")?,
        actor: actor.map(|a| narrow(i64::from(a), "actor")).transpose()?,
        data: parse_json(&data)?,
        command: command.as_deref().map(parse_json).transpose()?,
        at: row.try_get("at")?,
        sealed: row.try_get("sealed")?,
        prev_hash: row.try_get("prev_hash")?,
        hash: row.try_get("hash")?,
    })
}

fn conflict_or(error: sqlx::Error) -> StoreError {
    if is_unique_violation(&error) {
        StoreError::Conflict
    } else {
        StoreError::Database(error)
    }
}

#[async_trait]
impl EventStore for PostgresStore {
    async fn create_game(
        &self,
        game: &GameRecord,
        seats: &[SeatCredential],
        events: &[StoredEvent],
    ) -> Result<(), StoreError> {
        let players =
            serde_json::to_value(&game.players).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO games (id, game, players, options, seed, seed_commitment, created_at, chain, salt, rules_version) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(game.id)
        .bind(&game.game)
        .bind(stored_json(&players))
        .bind(stored_json(&game.options))
        .bind(game.seed.0.as_slice())
        .bind(&game.seed_commitment)
        .bind(game.created_at)
        .bind(i16::from(game.chain))
        .bind(game.salt.as_ref().map(|s| s.as_slice()))
        .bind(i32::try_from(game.rules_version).map_err(|_| StoreError::Corrupt("rules version out of range".into()))?)
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
        let sql = format!("WITH appended AS ({INSERT_EVENTS} RETURNING seq) {ADVANCE_HEAD}");
        bind_batch(sqlx::query(&sql), game.id, events)?
            .execute(&mut *tx)
            .await
            .map_err(conflict_or)?;
        tx.commit().await?;
        Ok(())
    }

    async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT id, game, players, options, seed, seed_commitment, created_at, chain, salt, rules_version FROM games WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let players: String = row.try_get("players")?;
        let players: Vec<Player> =
            serde_json::from_str(&players).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let options: String = row.try_get("options")?;
        let chain: i16 = row.try_get("chain")?;
        let rules_version: i32 = row.try_get("rules_version")?;
        let seed: Vec<u8> = row.try_get("seed")?;
        let seed: [u8; 32] = seed
            .try_into()
            .map_err(|_| StoreError::Corrupt("seed is not 32 bytes".into()))?;
        Ok(Some(GameRecord {
            id: row.try_get("id")?,
            game: row.try_get("game")?,
            players,
            options: parse_json(&options)?,
            seed: Seed(seed),
            seed_commitment: row.try_get("seed_commitment")?,
            created_at: row.try_get("created_at")?,
            chain: narrow(i64::from(chain), "chain format")?,
            salt: salt_from(row.try_get("salt")?)?,
            rules_version: narrow(i64::from(rules_version), "rules version")?,
        }))
    }

    async fn events(
        &self,
        id: Uuid,
        after: u64,
        limit: Option<u64>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, type, actor, data, command, at, sealed, prev_hash, hash FROM events \
             WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        )
        .bind(id)
        .bind(i64::try_from(after).unwrap_or(i64::MAX))
        .bind(limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX)))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn append(
        &self,
        id: Uuid,
        events: &[StoredEvent],
        idempotent: Option<&IdempotentMove>,
    ) -> Result<(), StoreError> {
        // One statement: the events, the head and the key land together or not at all.
        let result = match idempotent {
            None => {
                let sql =
                    format!("WITH appended AS ({INSERT_EVENTS} RETURNING seq) {ADVANCE_HEAD}");
                bind_batch(sqlx::query(&sql), id, events)?
                    .execute(&self.pool)
                    .await
            }
            Some(key) => {
                let sql = format!(
                    "WITH appended AS ({INSERT_EVENTS} RETURNING seq), head AS ({ADVANCE_HEAD}) \
                     INSERT INTO idempotency_keys (game_id, seat, key, fingerprint, version, created_at) \
                     VALUES ($1, $13, $14, $15, $16, now())"
                );
                bind_batch(sqlx::query(&sql), id, events)?
                    .bind(i16::from(key.seat))
                    .bind(&key.key)
                    .bind(&key.fingerprint)
                    .bind(i64::try_from(key.version).unwrap_or(i64::MAX))
                    .execute(&self.pool)
                    .await
            }
        };
        result.map(|_| ()).map_err(conflict_or)
    }

    async fn head(&self, id: Uuid) -> Result<Option<(u64, String)>, StoreError> {
        let row = sqlx::query("SELECT version, head_hash FROM game_heads WHERE game_id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            None => Ok(None),
            Some(row) => {
                let version: i64 = row.try_get("version")?;
                Ok(Some((
                    narrow(version, "head version")?,
                    row.try_get("head_hash")?,
                )))
            }
        }
    }

    async fn seat_for_token(&self, token_hash: &str) -> Result<Option<(Uuid, u8)>, StoreError> {
        let row = sqlx::query("SELECT game_id, seat FROM seats WHERE token_hash = $1")
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            None => Ok(None),
            Some(row) => {
                let seat: i16 = row.try_get("seat")?;
                Ok(Some((
                    row.try_get("game_id")?,
                    narrow(i64::from(seat), "seat")?,
                )))
            }
        }
    }

    async fn idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
    ) -> Result<Option<IdempotentMove>, StoreError> {
        let row = sqlx::query(
            "SELECT fingerprint, version FROM idempotency_keys WHERE game_id = $1 AND seat = $2 AND key = $3",
        )
        .bind(id)
        .bind(i16::from(seat))
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            None => Ok(None),
            Some(row) => {
                let version: i64 = row.try_get("version")?;
                Ok(Some(IdempotentMove {
                    seat,
                    key: key.to_string(),
                    fingerprint: row.try_get("fingerprint")?,
                    version: narrow(version, "version")?,
                }))
            }
        }
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }
}

//! The embedded backend, so `parlour` runs on a fresh machine with no database server.

use std::str::FromStr;

use async_trait::async_trait;
use parlour_domain::{Player, Seed};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{QueryBuilder, Row, Sqlite};
use uuid::Uuid;

use super::{
    is_unique_violation, narrow, parse_json, parse_time, salt_from, stored_json, time_text,
    EventStore, GameRecord, IdempotentMove, SeatCredential, StoreError, StoredEvent,
};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/sqlite");

/// SQLite in WAL mode with full sync: an acknowledged move survives a crash.
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
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

fn push_events(builder: &mut QueryBuilder<'_, Sqlite>, id: Uuid, events: &[StoredEvent]) {
    builder.push(
        "INSERT INTO events (game_id, seq, type, actor, data, command, at, sealed, prev_hash, hash) ",
    );
    builder.push_values(events, |mut row, e| {
        row.push_bind(id.to_string())
            .push_bind(e.seq as i64)
            .push_bind(e.kind.clone())
            .push_bind(e.actor.map(i64::from))
            .push_bind(stored_json(&e.data))
            .push_bind(e.command.as_ref().map(stored_json))
            .push_bind(time_text(&e.at))
            .push_bind(e.sealed.clone())
            .push_bind(e.prev_hash.clone())
            .push_bind(e.hash.clone());
    });
}

/// Moves the recorded head to the batch's last event, in the batch's transaction.
async fn advance_head(
    tx: &mut sqlx::SqliteConnection,
    id: Uuid,
    events: &[StoredEvent],
) -> Result<(), StoreError> {
    let last = events
        .last()
        .ok_or_else(|| StoreError::Corrupt("an empty batch".into()))?;
    sqlx::query(
        "INSERT INTO game_heads (game_id, version, head_hash) VALUES (?, ?, ?) \
         ON CONFLICT (game_id) DO UPDATE SET version = excluded.version, head_hash = excluded.head_hash \
         WHERE game_heads.version < excluded.version",
    )
    .bind(id.to_string())
    .bind(i64::try_from(last.seq).unwrap_or(i64::MAX))
    .bind(&last.hash)
    .execute(&mut *tx)
    .await
    .map_err(conflict_or)?;
    Ok(())
}

fn event_from_row(row: &SqliteRow) -> Result<StoredEvent, StoreError> {
    let seq: i64 = row.try_get("seq")?;
    let actor: Option<i64> = row.try_get("actor")?;
    let data: String = row.try_get("data")?;
    let command: Option<String> = row.try_get("command")?;
    let at: String = row.try_get("at")?;
    Ok(StoredEvent {
        seq: narrow(seq, "seq")?,
        kind: row.try_get("type")?,
        actor: actor.map(|a| narrow(a, "actor")).transpose()?,
        data: parse_json(&data)?,
        command: command.as_deref().map(parse_json).transpose()?,
        at: parse_time(&at)?,
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
impl EventStore for SqliteStore {
    async fn create_game(
        &self,
        game: &GameRecord,
        seats: &[SeatCredential],
        events: &[StoredEvent],
    ) -> Result<(), StoreError> {
        let players =
            serde_json::to_value(&game.players).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let players = stored_json(&players);
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO games (id, game, players, options, seed, seed_commitment, created_at, chain, salt, rules_version) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
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
        let mut builder = QueryBuilder::<Sqlite>::new("");
        push_events(&mut builder, game.id, events);
        builder
            .build()
            .execute(&mut *tx)
            .await
            .map_err(conflict_or)?;
        advance_head(&mut tx, game.id, events).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT game, players, options, seed, seed_commitment, created_at, chain, salt, rules_version FROM games WHERE id = ?",
        )
        .bind(id.to_string())
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let players: String = row.try_get("players")?;
        let players: Vec<Player> =
            serde_json::from_str(&players).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let options: String = row.try_get("options")?;
        let seed: Vec<u8> = row.try_get("seed")?;
        let seed: [u8; 32] = seed
            .try_into()
            .map_err(|_| StoreError::Corrupt("seed is not 32 bytes".into()))?;
        let created_at: String = row.try_get("created_at")?;
        Ok(Some(GameRecord {
            id,
            game: row.try_get("game")?,
            players,
            options: parse_json(&options)?,
            seed: Seed(seed),
            seed_commitment: row.try_get("seed_commitment")?,
            created_at: parse_time(&created_at)?,
            chain: narrow(row.try_get::<i64, _>("chain")?, "chain format")?,
            salt: salt_from(row.try_get("salt")?)?,
            rules_version: narrow(row.try_get::<i64, _>("rules_version")?, "rules version")?,
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
             WHERE game_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind(id.to_string())
        .bind(i64::try_from(after).unwrap_or(i64::MAX))
        .bind(
            limit
                .map(|l| i64::try_from(l).unwrap_or(i64::MAX))
                .unwrap_or(-1),
        )
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
        let mut tx = self.pool.begin().await?;
        let mut builder = QueryBuilder::<Sqlite>::new("");
        push_events(&mut builder, id, events);
        builder
            .build()
            .execute(&mut *tx)
            .await
            .map_err(conflict_or)?;
        advance_head(&mut tx, id, events).await?;
        if let Some(key) = idempotent {
            sqlx::query(
                "INSERT INTO idempotency_keys (game_id, seat, key, fingerprint, version, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(id.to_string())
            .bind(i64::from(key.seat))
            .bind(&key.key)
            .bind(&key.fingerprint)
            .bind(key.version as i64)
            .bind(time_text(&super::now()))
            .execute(&mut *tx)
            .await
            .map_err(conflict_or)?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn head(&self, id: Uuid) -> Result<Option<(u64, String)>, StoreError> {
        let row = sqlx::query("SELECT version, head_hash FROM game_heads WHERE game_id = ?")
            .bind(id.to_string())
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
        let row = sqlx::query("SELECT game_id, seat FROM seats WHERE token_hash = ?")
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            None => Ok(None),
            Some(row) => {
                let game: String = row.try_get("game_id")?;
                let seat: i64 = row.try_get("seat")?;
                let game =
                    Uuid::parse_str(&game).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                Ok(Some((game, narrow(seat, "seat")?)))
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
            "SELECT fingerprint, version FROM idempotency_keys WHERE game_id = ? AND seat = ? AND key = ?",
        )
        .bind(id.to_string())
        .bind(i64::from(seat))
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

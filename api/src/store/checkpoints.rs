//! The public list of finished games' heads (`migrations/*/…_checkpoints_and_snapshot_macs.sql`):
//! one row per game, written when it ends, never changed. The store keeps the rows; the service
//! signs them as it serves them (`receipts::Checkpoint`), so the rows hold no signature.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows::Columns;
use super::{narrow, time_text, Deadline, EventStore, PostgresStore, SqliteStore, StoreError};

/// A finished game's head, as the list keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointRecord {
    /// The row's place in the list: 1, 2, 3, … in commit order, with no gap.
    pub position: u64,
    /// The game.
    pub game: Uuid,
    /// The sequence number of its last event.
    pub seq: u64,
    /// That event's chain hash.
    pub hash: String,
    /// When the row was written.
    pub created_at: DateTime<Utc>,
}

/// The list of checkpoints.
#[async_trait]
pub trait CheckpointStore: Send + Sync {
    /// Adds the game's head to the list, unless the list already holds the game: the row the
    /// list holds for it afterwards, which is the first one written, whatever this one says.
    async fn publish_checkpoint(
        &self,
        game: Uuid,
        seq: u64,
        hash: &str,
        at: DateTime<Utc>,
    ) -> Result<CheckpointRecord, StoreError>;

    /// The game's row in the list, if it has one.
    async fn checkpoint_of(&self, game: Uuid) -> Result<Option<CheckpointRecord>, StoreError>;

    /// Up to `limit` rows after `position`, in order.
    async fn checkpoints_after(
        &self,
        position: u64,
        limit: u32,
    ) -> Result<Vec<CheckpointRecord>, StoreError>;
}

const COLUMNS: &str = "position, game_id, seq, hash, created_at";
// The next number is taken in the insert itself; the callers make sure no other insert runs
// at once (Postgres: a table lock; SQLite: the one writer), so the numbers have no gaps and
// follow commit order. (`WHERE true`: SQLite needs it to read `ON CONFLICT` after a `SELECT`.)
const INSERT: &str = "INSERT INTO checkpoints (position, game_id, seq, hash, created_at) \
                      SELECT COALESCE(MAX(position), 0) + 1, $1, $2, $3, $4 FROM checkpoints WHERE true \
                      ON CONFLICT (game_id) DO NOTHING";

fn checkpoint_from_row(row: &impl Columns) -> Result<CheckpointRecord, StoreError> {
    let int = |name: &str| {
        row.int(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("checkpoints.{name} is null")))
    };
    Ok(CheckpointRecord {
        position: narrow(int("position")?, "checkpoint position")?,
        game: row.uuid("game_id")?,
        seq: narrow(int("seq")?, "checkpoint seq")?,
        hash: row
            .text("hash")?
            .ok_or_else(|| StoreError::Corrupt("checkpoints.hash is null".into()))?,
        created_at: row.time("created_at")?,
    })
}

fn signed(value: u64, what: &str) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} {value} is out of range")))
}

fn of_game() -> String {
    format!("SELECT {COLUMNS} FROM checkpoints WHERE game_id = $1")
}

fn after() -> String {
    format!("SELECT {COLUMNS} FROM checkpoints WHERE position > $1 ORDER BY position LIMIT $2")
}

#[async_trait]
impl CheckpointStore for PostgresStore {
    async fn publish_checkpoint(
        &self,
        game: Uuid,
        seq: u64,
        hash: &str,
        at: DateTime<Utc>,
    ) -> Result<CheckpointRecord, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Readers go on reading; only another insert waits, so two games ending at once take
        // consecutive numbers and commit in their order.
        sqlx::query("LOCK TABLE checkpoints IN SHARE ROW EXCLUSIVE MODE")
            .execute(&mut *tx)
            .await?;
        sqlx::query(INSERT)
            .bind(game)
            .bind(signed(seq, "checkpoint seq")?)
            .bind(hash)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query(&of_game())
            .bind(game)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        checkpoint_from_row(&row)
    }

    async fn checkpoint_of(&self, game: Uuid) -> Result<Option<CheckpointRecord>, StoreError> {
        let row = sqlx::query(&of_game())
            .bind(game)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(checkpoint_from_row).transpose()
    }

    async fn checkpoints_after(
        &self,
        position: u64,
        limit: u32,
    ) -> Result<Vec<CheckpointRecord>, StoreError> {
        let rows = sqlx::query(&after())
            .bind(signed(position, "checkpoint position")?)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(checkpoint_from_row).collect()
    }
}

#[async_trait]
impl CheckpointStore for SqliteStore {
    async fn publish_checkpoint(
        &self,
        game: Uuid,
        seq: u64,
        hash: &str,
        at: DateTime<Utc>,
    ) -> Result<CheckpointRecord, StoreError> {
        // The write lock first, as every write here (`sqlite.rs`).
        let mut tx = self.pool.begin_with(super::sqlite::BEGIN_WRITE).await?;
        sqlx::query(INSERT)
            .bind(game.to_string())
            .bind(signed(seq, "checkpoint seq")?)
            .bind(hash)
            .bind(time_text(&at))
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query(&of_game())
            .bind(game.to_string())
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        checkpoint_from_row(&row)
    }

    async fn checkpoint_of(&self, game: Uuid) -> Result<Option<CheckpointRecord>, StoreError> {
        let row = sqlx::query(&of_game())
            .bind(game.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(checkpoint_from_row).transpose()
    }

    async fn checkpoints_after(
        &self,
        position: u64,
        limit: u32,
    ) -> Result<Vec<CheckpointRecord>, StoreError> {
        let rows = sqlx::query(&after())
            .bind(signed(position, "checkpoint position")?)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(checkpoint_from_row).collect()
    }
}

bounded! {
    impl CheckpointStore {
        write fn publish_checkpoint(&self, game: Uuid, seq: u64, hash: &str,
            at: DateTime<Utc>) -> CheckpointRecord;
        read fn checkpoint_of(&self, game: Uuid) -> Option<CheckpointRecord>;
        read fn checkpoints_after(&self, position: u64, limit: u32) -> Vec<CheckpointRecord>;
    }
}

//! Snapshots of long games' tables (`migrations/*/…_snapshots.sql`): a cache beside the log,
//! derived from it alone. The store only keeps them; the service decides when one is written
//! and checks each against the log's hash chain before it trusts it (`service::cache`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows::Columns;
use super::{narrow, time_text, Deadline, EventStore, PostgresStore, SqliteStore, StoreError};

/// A game's table at one version, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRecord {
    /// The game.
    pub game: Uuid,
    /// The log's length when it was taken: the entry it follows.
    pub version: u64,
    /// The chain hash of the entry at `version`: it is used only while the log says the same.
    pub hash: String,
    /// The rules version the game is played under (a snapshot is restored under no other).
    pub rules_version: u32,
    /// The shape of `state` (`parlour_domain::table_events::SNAPSHOT_FORMAT`).
    pub format: u32,
    /// The snapshot, as JSON text.
    pub state: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// Its MAC under the server's snapshot key (`service::cache::snapshot_mac`), 64 lowercase
    /// hex digits; `None` for one written before snapshots were authenticated.
    pub mac: Option<String>,
}

/// The snapshots.
#[async_trait]
pub trait SnapshotStore: Send + Sync {
    /// The game's latest snapshot, if it has one.
    async fn latest_snapshot(&self, game: Uuid) -> Result<Option<SnapshotRecord>, StoreError>;

    /// Keeps `snapshot` as its game's latest, and forgets the game's older ones (one row per
    /// game is all a load reads). Writing one already kept changes nothing.
    async fn save_snapshot(&self, snapshot: &SnapshotRecord) -> Result<(), StoreError>;
}

const LATEST: &str =
    "SELECT game_id, version, hash, rules_version, format, state, created_at, mac \
                      FROM snapshots WHERE game_id = $1 ORDER BY version DESC LIMIT 1";
const INSERT: &str = "INSERT INTO snapshots \
                      (game_id, version, hash, rules_version, format, state, created_at, mac) \
                      VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING";
const FORGET_OLDER: &str = "DELETE FROM snapshots WHERE game_id = $1 AND version < $2";

fn snapshot_from_row(row: &impl Columns) -> Result<SnapshotRecord, StoreError> {
    let int = |name: &str| {
        row.int(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("snapshots.{name} is null")))
    };
    let text = |name: &str| {
        row.text(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("snapshots.{name} is null")))
    };
    Ok(SnapshotRecord {
        game: row.uuid("game_id")?,
        version: narrow(int("version")?, "snapshot version")?,
        hash: text("hash")?,
        rules_version: narrow(int("rules_version")?, "snapshot rules version")?,
        format: narrow(int("format")?, "snapshot format")?,
        state: text("state")?,
        created_at: row.time("created_at")?,
        mac: row.text("mac")?,
    })
}

fn signed(value: u64, what: &str) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} {value} is out of range")))
}

#[async_trait]
impl SnapshotStore for PostgresStore {
    async fn latest_snapshot(&self, game: Uuid) -> Result<Option<SnapshotRecord>, StoreError> {
        let row = sqlx::query(LATEST)
            .bind(game)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(snapshot_from_row).transpose()
    }

    async fn save_snapshot(&self, s: &SnapshotRecord) -> Result<(), StoreError> {
        let version = signed(s.version, "snapshot version")?;
        // One statement: the older rows go with the insert, in one round trip.
        sqlx::query(
            "WITH older AS (DELETE FROM snapshots WHERE game_id = $1 AND version < $2) \
             INSERT INTO snapshots \
             (game_id, version, hash, rules_version, format, state, created_at, mac) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
        )
        .bind(s.game)
        .bind(version)
        .bind(&s.hash)
        .bind(i64::from(s.rules_version))
        .bind(i64::from(s.format))
        .bind(&s.state)
        .bind(s.created_at)
        .bind(&s.mac)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

#[async_trait]
impl SnapshotStore for SqliteStore {
    async fn latest_snapshot(&self, game: Uuid) -> Result<Option<SnapshotRecord>, StoreError> {
        let row = sqlx::query(LATEST)
            .bind(game.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(snapshot_from_row).transpose()
    }

    async fn save_snapshot(&self, s: &SnapshotRecord) -> Result<(), StoreError> {
        let version = signed(s.version, "snapshot version")?;
        // The write lock first, as every write here (`sqlite.rs`): a deferred transaction
        // that upgrades later may be refused with SQLITE_BUSY.
        let mut tx = self.pool.begin_with(super::sqlite::BEGIN_WRITE).await?;
        sqlx::query(INSERT)
            .bind(s.game.to_string())
            .bind(version)
            .bind(&s.hash)
            .bind(i64::from(s.rules_version))
            .bind(i64::from(s.format))
            .bind(&s.state)
            .bind(time_text(&s.created_at))
            .bind(&s.mac)
            .execute(&mut *tx)
            .await?;
        sqlx::query(FORGET_OLDER)
            .bind(s.game.to_string())
            .bind(version)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}

bounded! {
    impl SnapshotStore {
        read fn latest_snapshot(&self, game: Uuid) -> Option<SnapshotRecord>;
        write fn save_snapshot(&self, snapshot: &SnapshotRecord) -> ();
    }
}

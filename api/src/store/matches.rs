//! What a match keeps beside its deals' logs (`migrations/*/…_matches.sql`): one row written
//! once, when the match is created, and never changed: everything that happens in a match is
//! in its deals' logs.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows::{self, Columns};
use super::{conflict_or, SqliteStore, StoreError};
use super::{parse_json, stored_json, time_text, Deadline, EventStore, PostgresStore};

/// A match as created.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchRow {
    /// Its id.
    pub id: Uuid,
    /// The catalogue's id of its game.
    pub game: String,
    /// The rest, as the service wrote it (`service::matches::MatchRecord`).
    pub record: serde_json::Value,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// The matches.
#[async_trait]
pub trait MatchStore: Send + Sync {
    /// Records a new match; `Conflict` if its id is taken.
    async fn create_match(&self, row: &MatchRow) -> Result<(), StoreError>;
    /// The match with this id.
    async fn match_row(&self, id: Uuid) -> Result<Option<MatchRow>, StoreError>;
}

const INSERT_MATCH: &str =
    "INSERT INTO matches (id, game, record, created_at) VALUES ($1, $2, $3, $4)";
const MATCH: &str = "SELECT id, game, record, created_at FROM matches WHERE id = $1";

fn match_from_row(row: &impl Columns) -> Result<MatchRow, StoreError> {
    let text = |name: &str| {
        row.text(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("matches.{name} is null")))
    };
    Ok(MatchRow {
        id: row.uuid("id")?,
        game: text("game")?,
        record: parse_json(&text("record")?)?,
        created_at: row.time("created_at")?,
    })
}

/// The one body of [`MatchStore`] for a backend: `$id` and `$time` turn a `Uuid` and a time
/// into what the backend binds.
macro_rules! match_store {
    ($store:ty, $id:path, $time:path) => {
        #[async_trait]
        impl MatchStore for $store {
            async fn create_match(&self, row: &MatchRow) -> Result<(), StoreError> {
                sqlx::query(INSERT_MATCH)
                    .bind($id(row.id))
                    .bind(&row.game)
                    .bind(stored_json(&row.record))
                    .bind($time(&row.created_at))
                    .execute(&self.pool)
                    .await
                    .map_err(conflict_or)?;
                Ok(())
            }

            async fn match_row(&self, id: Uuid) -> Result<Option<MatchRow>, StoreError> {
                let row = sqlx::query(MATCH)
                    .bind($id(id))
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(match_from_row).transpose()
            }
        }
    };
}

match_store!(PostgresStore, rows::pg_id, rows::pg_time);
match_store!(SqliteStore, rows::sqlite_id, time_text);

bounded! {
    impl MatchStore {
        write fn create_match(&self, row: &MatchRow) -> ();
        read fn match_row(&self, id: Uuid) -> Option<MatchRow>;
    }
}

//! The index of open tables (`migrations/*/…_open_tables.sql`): the games whose hosts listed
//! them, read newest first by `GET /v1/tables`. A hint, never the truth: the game's log says
//! whether it is listed, until when, and which seats are open (`service::tables`).
//!
//! Each statement is written once for both backends: the one body below is instantiated for
//! Postgres and for SQLite, which differ only in how an id and a time are bound.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows::{self, Columns};
use super::{time_text, Deadline, EventStore, PostgresStore, SqliteStore, StoreError};

/// A listed table as the index keeps it: what the list is filtered by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingRecord {
    /// The game.
    pub game_id: Uuid,
    /// The catalogue's id of the game played.
    pub game: String,
    /// How many seats it has.
    pub players: u8,
    /// Its kind of move clock: `none`, `correspondence` or `bank`.
    pub clock: &'static str,
    /// When it leaves the list.
    pub listed_until: DateTime<Utc>,
}

/// Which listed tables to read: each filter left out (`None`) matches every table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListingFilter<'a> {
    /// Only this game.
    pub game: Option<&'a str>,
    /// Only tables of this many seats.
    pub players: Option<u8>,
    /// Only this kind of clock.
    pub clock: Option<&'static str>,
}

/// The index of open tables.
#[async_trait]
pub trait ListingStore: Send + Sync {
    /// Notes a listed table (again: noting one twice keeps the first note).
    async fn note_listing(&self, listing: &ListingRecord) -> Result<(), StoreError>;
    /// The ids of at most `limit` tables `filter` matches, listed after `now`, older than
    /// `before` (a game id; ids are time-ordered), newest first.
    async fn listings(
        &self,
        filter: &ListingFilter<'_>,
        now: DateTime<Utc>,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<Uuid>, StoreError>;
    /// Forgets the table `game`: it began, ended or never was.
    async fn forget_listing(&self, game: Uuid) -> Result<(), StoreError>;
}

const NOTE: &str = "INSERT INTO listings (game_id, game, players, clock, listed_until) \
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (game_id) DO NOTHING";

// An empty text or a zero stands for "any": one statement serves every combination of filters
// on both backends (a typed sentinel rather than a NULL whose type Postgres cannot infer).
const LIST: &str = "SELECT game_id FROM listings \
     WHERE listed_until > $1 AND game_id < $2 \
     AND ($3 = '' OR game = $3) AND ($4 = 0 OR players = $4) AND ($5 = '' OR clock = $5) \
     ORDER BY game_id DESC LIMIT $6";

const FORGET: &str = "DELETE FROM listings WHERE game_id = $1";

/// The one body of [`ListingStore`] for a backend: `$id` and `$time` turn an id and a time
/// into what the backend binds.
macro_rules! listing_store {
    ($store:ty, $id:path, $time:path) => {
        #[async_trait]
        impl ListingStore for $store {
            async fn note_listing(&self, listing: &ListingRecord) -> Result<(), StoreError> {
                sqlx::query(NOTE)
                    .bind($id(listing.game_id))
                    .bind(&listing.game)
                    .bind(i64::from(listing.players))
                    .bind(listing.clock)
                    .bind($time(&listing.listed_until))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn listings(
                &self,
                filter: &ListingFilter<'_>,
                now: DateTime<Utc>,
                before: Option<Uuid>,
                limit: u64,
            ) -> Result<Vec<Uuid>, StoreError> {
                // SQLite keeps ids as hyphenated lower-case text, which sorts as the UUIDs do.
                let rows = sqlx::query(LIST)
                    .bind($time(&now))
                    .bind($id(before.unwrap_or(Uuid::max())))
                    .bind(filter.game.unwrap_or(""))
                    .bind(i64::from(filter.players.unwrap_or(0)))
                    .bind(filter.clock.unwrap_or(""))
                    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(|row| row.uuid("game_id")).collect()
            }

            async fn forget_listing(&self, game: Uuid) -> Result<(), StoreError> {
                sqlx::query(FORGET)
                    .bind($id(game))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }
        }
    };
}

listing_store!(PostgresStore, rows::pg_id, rows::pg_time);
listing_store!(SqliteStore, rows::sqlite_id, time_text);

bounded! {
    impl ListingStore {
        write fn note_listing(&self, listing: &ListingRecord) -> ();
        read fn listings(&self, filter: &ListingFilter<'_>, now: DateTime<Utc>,
            before: Option<Uuid>, limit: u64) -> Vec<Uuid>;
        write fn forget_listing(&self, game: Uuid) -> ();
    }
}

//! What the move clocks keep beside the logs (`migrations/*/…_clocks.sql`,
//! `…_clocked_games.sql`): when each clocked game next needs the sweeper, which clocked games
//! have ended, and each account's vacations. The trait, its one body for both backends and its
//! bounded wrapper are all here, so a new method is written in this file only.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows;
use super::{
    conflict_or, time_text, Attention, Deadline, EventStore, PostgresStore, SqliteStore,
    StoreError, VacationRecord,
};

/// What the move clocks need kept beside the logs: when each clocked game next needs the
/// sweeper, and each account's vacations.
#[async_trait]
pub trait ClockStore: Send + Sync {
    /// Notes that game `game` next needs the sweeper at `due`, or never (`None`).
    async fn set_attention(&self, game: Uuid, due: Option<DateTime<Utc>>)
        -> Result<(), StoreError>;

    /// The games due by `before`, after `after` in id order, at most `limit`, each with what
    /// its note said.
    async fn attention_due(
        &self,
        before: DateTime<Utc>,
        after: Uuid,
        limit: u64,
    ) -> Result<Vec<Attention>, StoreError>;

    /// Drops `note` if the store still holds it as read, and not one written since: `false`
    /// when it was already gone or says something else now.
    async fn clear_attention_read(&self, note: &Attention) -> Result<bool, StoreError>;

    /// The clocked games (their logs set a clock) not yet seen to end, after `after` in id
    /// order, at most `limit`: read from the logs, so a game whose note was lost is listed.
    async fn clocked_games(&self, after: Uuid, limit: u64) -> Result<Vec<Uuid>, StoreError>;

    /// Notes that clocked game `game` was seen to end at `at`, so that no later look at every
    /// clocked game folds it again.
    async fn clocks_ended(&self, game: Uuid, at: DateTime<Utc>) -> Result<(), StoreError>;

    /// Records a vacation of `account`, unless one is under way at its start: `false` then.
    async fn begin_vacation(
        &self,
        account: Uuid,
        vacation: &VacationRecord,
    ) -> Result<bool, StoreError>;

    /// The account's vacations that end after `since`, oldest first.
    async fn vacations(
        &self,
        account: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<VacationRecord>, StoreError>;

    /// Ends the account's vacation under way at `at`, then: `false` if none was.
    async fn end_vacation(&self, account: Uuid, at: DateTime<Utc>) -> Result<bool, StoreError>;

    /// Games whose last entry was recorded before `before`, after `after` in id order, at
    /// most `limit`, each with its version (an operator's sweep of idle games).
    async fn idle_games(
        &self,
        before: DateTime<Utc>,
        after: Uuid,
        limit: u64,
    ) -> Result<Vec<(Uuid, u64)>, StoreError>;
}

/// The one body of [`ClockStore`] for a backend: `$id` and `$time` turn a `Uuid` and a time
/// into what the backend binds.
macro_rules! clock_store {
    ($store:ty, $id:path, $time:path) => {
        #[async_trait]
        impl ClockStore for $store {
            async fn set_attention(
                &self,
                game: Uuid,
                due: Option<DateTime<Utc>>,
            ) -> Result<(), StoreError> {
                match due {
                    Some(due) => sqlx::query(rows::SET_ATTENTION)
                        .bind($id(game))
                        .bind($time(&due)),
                    None => sqlx::query(rows::CLEAR_ATTENTION).bind($id(game)),
                }
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn attention_due(
                &self,
                before: DateTime<Utc>,
                after: Uuid,
                limit: u64,
            ) -> Result<Vec<Attention>, StoreError> {
                let rows = sqlx::query(rows::ATTENTION_DUE)
                    .bind($time(&before))
                    .bind($id(after))
                    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(rows::attention_from_row).collect()
            }

            async fn clear_attention_read(&self, note: &Attention) -> Result<bool, StoreError> {
                let done = sqlx::query(rows::CLEAR_ATTENTION_READ)
                    .bind($id(note.game))
                    .bind($time(&note.due))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn clocked_games(
                &self,
                after: Uuid,
                limit: u64,
            ) -> Result<Vec<Uuid>, StoreError> {
                let rows = sqlx::query(rows::CLOCKED_GAMES)
                    .bind($id(after))
                    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|row| rows::Columns::uuid(row, "game_id"))
                    .collect()
            }

            async fn clocks_ended(&self, game: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
                sqlx::query(rows::CLOCKS_ENDED)
                    .bind($id(game))
                    .bind($time(&at))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn begin_vacation(
                &self,
                account: Uuid,
                vacation: &VacationRecord,
            ) -> Result<bool, StoreError> {
                let done = sqlx::query(rows::INSERT_VACATION)
                    .bind($id(account))
                    .bind($time(&vacation.began_at))
                    .bind($time(&vacation.until))
                    .execute(&self.pool)
                    .await
                    .map_err(conflict_or)?;
                Ok(done.rows_affected() == 1)
            }

            async fn vacations(
                &self,
                account: Uuid,
                since: DateTime<Utc>,
            ) -> Result<Vec<VacationRecord>, StoreError> {
                let rows = sqlx::query(rows::VACATIONS)
                    .bind($id(account))
                    .bind($time(&since))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(rows::vacation_from_row).collect()
            }

            async fn end_vacation(
                &self,
                account: Uuid,
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                let done = sqlx::query(rows::END_VACATION)
                    .bind($id(account))
                    .bind($time(&at))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() >= 1)
            }

            async fn idle_games(
                &self,
                before: DateTime<Utc>,
                after: Uuid,
                limit: u64,
            ) -> Result<Vec<(Uuid, u64)>, StoreError> {
                let rows = sqlx::query(rows::IDLE_GAMES)
                    .bind($time(&before))
                    .bind($id(after))
                    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|row| {
                        let version = rows::Columns::int(row, "version")?.unwrap_or(0);
                        Ok((
                            rows::Columns::uuid(row, "game_id")?,
                            u64::try_from(version).unwrap_or(0),
                        ))
                    })
                    .collect()
            }
        }
    };
}

clock_store!(PostgresStore, rows::pg_id, rows::pg_time);
clock_store!(SqliteStore, rows::sqlite_id, time_text);

bounded! {
    impl ClockStore {
        write fn set_attention(&self, game: Uuid, due: Option<DateTime<Utc>>) -> ();
        read fn attention_due(&self,
            before: DateTime<Utc>, after: Uuid, limit: u64) -> Vec<Attention>;
        write fn clear_attention_read(&self, note: &Attention) -> bool;
        read fn clocked_games(&self, after: Uuid, limit: u64) -> Vec<Uuid>;
        write fn clocks_ended(&self, game: Uuid, at: DateTime<Utc>) -> ();
        write fn begin_vacation(&self, account: Uuid, vacation: &VacationRecord) -> bool;
        read fn vacations(&self, account: Uuid, since: DateTime<Utc>) -> Vec<VacationRecord>;
        write fn end_vacation(&self, account: Uuid, at: DateTime<Utc>) -> bool;
        read fn idle_games(&self,
            before: DateTime<Utc>, after: Uuid, limit: u64) -> Vec<(Uuid, u64)>;
    }
}

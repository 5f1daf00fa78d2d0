//! What an account asked to be told, and how (`migrations/*/…_email_and_notice_preferences.sql`):
//! its notice preferences as one JSON document (the service reads and checks it), and the
//! times mail was sent to it, which its rate limit counts. Ordinary mutable rows, never part
//! of a game's log.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows::{self, Columns};
use super::{time_text, Deadline, EventStore, PostgresStore, SqliteStore, StoreError};

/// Notice preferences and the mail sent under them.
#[async_trait]
pub trait NoticeStore: Send + Sync {
    /// The account's preferences as saved, if it ever saved any.
    async fn notice_preferences(&self, account: Uuid) -> Result<Option<String>, StoreError>;
    /// Saves the account's preferences, replacing what it had.
    async fn save_notice_preferences(
        &self,
        account: Uuid,
        preferences: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Notes a mail handed over for the account at `at`, and forgets those before `forget`.
    async fn record_mail(
        &self,
        account: Uuid,
        at: DateTime<Utc>,
        forget: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// When mails were handed over for the account after `since`, oldest first.
    async fn mails_sent_since(
        &self,
        account: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<DateTime<Utc>>, StoreError>;
}

const PREFERENCES: &str = "SELECT preferences FROM notice_preferences WHERE account_id = $1";

const SAVE: &str = "INSERT INTO notice_preferences (account_id, preferences, updated_at) \
     VALUES ($1, $2, $3) ON CONFLICT (account_id) DO UPDATE \
     SET preferences = excluded.preferences, updated_at = excluded.updated_at";

const RECORD_MAIL: &str = "INSERT INTO mails_sent (account_id, at) VALUES ($1, $2)";

const FORGET_MAILS: &str = "DELETE FROM mails_sent WHERE account_id = $1 AND at < $2";

const MAILS_SINCE: &str = "SELECT at FROM mails_sent WHERE account_id = $1 AND at > $2 ORDER BY at";

fn preferences_from(row: Option<impl Columns>) -> Result<Option<String>, StoreError> {
    row.map(|row| {
        row.text("preferences")?
            .ok_or_else(|| StoreError::Corrupt("notice preferences are null".into()))
    })
    .transpose()
}

/// The one body of [`NoticeStore`] for a backend: `$id` and `$time` turn a `Uuid` and a time
/// into what the backend binds.
macro_rules! notice_store {
    ($store:ty, $id:path, $time:path) => {
        #[async_trait]
        impl NoticeStore for $store {
            async fn notice_preferences(
                &self,
                account: Uuid,
            ) -> Result<Option<String>, StoreError> {
                let row = sqlx::query(PREFERENCES)
                    .bind($id(account))
                    .fetch_optional(&self.pool)
                    .await?;
                preferences_from(row)
            }

            async fn save_notice_preferences(
                &self,
                account: Uuid,
                preferences: &str,
                at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                sqlx::query(SAVE)
                    .bind($id(account))
                    .bind(preferences)
                    .bind($time(&at))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn record_mail(
                &self,
                account: Uuid,
                at: DateTime<Utc>,
                forget: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query(FORGET_MAILS)
                    .bind($id(account))
                    .bind($time(&forget))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(RECORD_MAIL)
                    .bind($id(account))
                    .bind($time(&at))
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn mails_sent_since(
                &self,
                account: Uuid,
                since: DateTime<Utc>,
            ) -> Result<Vec<DateTime<Utc>>, StoreError> {
                let rows = sqlx::query(MAILS_SINCE)
                    .bind($id(account))
                    .bind($time(&since))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(|row| row.time("at")).collect()
            }
        }
    };
}

notice_store!(PostgresStore, rows::pg_id, rows::pg_time);
notice_store!(SqliteStore, rows::sqlite_id, time_text);

bounded! {
    impl NoticeStore {
        read fn notice_preferences(&self, account: Uuid) -> Option<String>;
        write fn save_notice_preferences(&self, account: Uuid, preferences: &str,
            at: DateTime<Utc>) -> ();
        write fn record_mail(&self, account: Uuid, at: DateTime<Utc>,
            forget: DateTime<Utc>) -> ();
        read fn mails_sent_since(&self, account: Uuid,
            since: DateTime<Utc>) -> Vec<DateTime<Utc>>;
    }
}

//! Apps a player let act for them (`migrations/*/…_scopes_and_apps.sql`): the OAuth
//! authorization codes they approved, and the tokens those codes were exchanged for (ordinary
//! account tokens whose `app` names the app). Mutable rows, never part of a game's log.
//!
//! Each statement is written once for both backends: the one body below is instantiated for
//! Postgres and for SQLite, which differ only in how an id and a time are bound.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows::{self, Columns};
use super::{
    conflict_or, time_text, AccountTokenRecord, Deadline, EventStore, PostgresStore, SqliteStore,
    StoreError,
};
use crate::scopes::Scopes;

/// An authorization code the player approved, as stored: only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthCodeRecord {
    /// Hex SHA-256 of the code.
    pub code_hash: String,
    /// The account that approved it.
    pub account: Uuid,
    /// The token that approved it: the code dies with it.
    pub by_token: Uuid,
    /// The app's `client_id`.
    pub client_id: String,
    /// Where the app asked to be sent back: the exchange must name it again.
    pub redirect_uri: String,
    /// What the player approved.
    pub scopes: Scopes,
    /// The PKCE challenge (S256, base64url): the exchange must bring its verifier.
    pub code_challenge: String,
    /// Until when it can be exchanged.
    pub expires_at: DateTime<Utc>,
    /// Whether it was exchanged already.
    pub used: bool,
}

/// Authorization codes, and revoking what they gave.
#[async_trait]
pub trait AppStore: Send + Sync {
    /// Keeps `code` while its approving token is live (`false` when it is not), and forgets
    /// the codes expired by `now`.
    async fn create_oauth_code(
        &self,
        code: &OAuthCodeRecord,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// The code with this hash, used or not, expired or not (until it is forgotten).
    async fn oauth_code(&self, code_hash: &str) -> Result<Option<OAuthCodeRecord>, StoreError>;
    /// Exchanges the code: records `token` and marks the code used by it, both or neither,
    /// only while the code is unused, unexpired at `at`, and its approving token live.
    /// `false` when it was not (another exchange won the race, say).
    async fn redeem_oauth_code(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<bool, StoreError>;
    /// Revokes at `at` the token the code was exchanged for, if it is live: the id of the
    /// token revoked.
    async fn revoke_code_token(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError>;
    /// Revokes at `at` the live account token whose secret hashes to `token_hash`, whoever
    /// holds it: whether one was.
    async fn revoke_token_by_hash(
        &self,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// Revokes at `at` every live token of `account` granted to `app`, while the caller's
    /// token `by` of the account is live: how many were.
    async fn revoke_app(
        &self,
        by: Uuid,
        account: Uuid,
        app: &str,
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError>;
}

const FORGET_EXPIRED: &str = "DELETE FROM oauth_codes WHERE expires_at <= $1";

const KEEP: &str = "INSERT INTO oauth_codes (code_hash, account_id, by_token, client_id, \
     redirect_uri, scopes, code_challenge, expires_at) \
     SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE EXISTS \
     (SELECT 1 FROM account_tokens WHERE id = $3 AND account_id = $2 AND revoked_at IS NULL)";

const CODE: &str = "SELECT code_hash, account_id, by_token, client_id, redirect_uri, scopes, \
     code_challenge, expires_at, CASE WHEN token_id IS NULL THEN 0 ELSE 1 END AS used \
     FROM oauth_codes WHERE code_hash = $1";

const USE: &str = "UPDATE oauth_codes SET token_id = $2 \
     WHERE code_hash = $1 AND token_id IS NULL AND expires_at > $3 AND EXISTS \
     (SELECT 1 FROM account_tokens t WHERE t.id = oauth_codes.by_token AND t.revoked_at IS NULL)";

const REVOKE_CODE_TOKEN: &str = "UPDATE account_tokens SET revoked_at = $2 \
     WHERE revoked_at IS NULL AND id = (SELECT token_id FROM oauth_codes WHERE code_hash = $1) \
     RETURNING id";

const REVOKE_BY_HASH: &str =
    "UPDATE account_tokens SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL";

const REVOKE_APP: &str = "UPDATE account_tokens SET revoked_at = $4 \
     WHERE account_id = $2 AND app = $3 AND revoked_at IS NULL AND EXISTS \
     (SELECT 1 FROM account_tokens c WHERE c.id = $1 AND c.account_id = $2 AND c.revoked_at IS NULL)";

fn code_from(row: &impl Columns) -> Result<OAuthCodeRecord, StoreError> {
    let text = |name: &str| {
        row.text(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("an authorization code's {name} is null")))
    };
    Ok(OAuthCodeRecord {
        code_hash: text("code_hash")?,
        account: row.uuid("account_id")?,
        by_token: row.uuid("by_token")?,
        client_id: text("client_id")?,
        redirect_uri: text("redirect_uri")?,
        scopes: Scopes::parse(&text("scopes")?).map_err(|name| {
            StoreError::Corrupt(format!(
                "an authorization code holds the unknown scope {name:?}"
            ))
        })?,
        code_challenge: text("code_challenge")?,
        expires_at: row.time("expires_at")?,
        used: row.int("used")? == Some(1),
    })
}

/// The one body of [`AppStore`] for a backend: `$id` and `$time` turn a `Uuid` and a time
/// into what the backend binds, `$bind_token` binds a token's columns.
macro_rules! app_store {
    ($store:ty, $id:path, $time:path, $bind_token:path) => {
        #[async_trait]
        impl AppStore for $store {
            async fn create_oauth_code(
                &self,
                code: &OAuthCodeRecord,
                now: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query(FORGET_EXPIRED)
                    .bind($time(&now))
                    .execute(&mut *tx)
                    .await?;
                let done = sqlx::query(KEEP)
                    .bind(&code.code_hash)
                    .bind($id(code.account))
                    .bind($id(code.by_token))
                    .bind(&code.client_id)
                    .bind(&code.redirect_uri)
                    .bind(code.scopes.to_text())
                    .bind(&code.code_challenge)
                    .bind($time(&code.expires_at))
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                tx.commit().await?;
                Ok(done.rows_affected() == 1)
            }

            async fn oauth_code(
                &self,
                code_hash: &str,
            ) -> Result<Option<OAuthCodeRecord>, StoreError> {
                let row = sqlx::query(CODE)
                    .bind(code_hash)
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(code_from).transpose()
            }

            async fn redeem_oauth_code(
                &self,
                code_hash: &str,
                at: DateTime<Utc>,
                token: &AccountTokenRecord,
            ) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                // The token first: the code's `token_id` refers to it.
                $bind_token(sqlx::query(rows::INSERT_ACCOUNT_TOKEN), token)
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                let done = sqlx::query(USE)
                    .bind(code_hash)
                    .bind($id(token.id))
                    .bind($time(&at))
                    .execute(&mut *tx)
                    .await?;
                if done.rows_affected() != 1 {
                    // Dropping the transaction rolls the token back.
                    return Ok(false);
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn revoke_code_token(
                &self,
                code_hash: &str,
                at: DateTime<Utc>,
            ) -> Result<Option<Uuid>, StoreError> {
                let row = sqlx::query(REVOKE_CODE_TOKEN)
                    .bind(code_hash)
                    .bind($time(&at))
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(|row| row.uuid("id")).transpose()
            }

            async fn revoke_token_by_hash(
                &self,
                token_hash: &str,
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                let done = sqlx::query(REVOKE_BY_HASH)
                    .bind(token_hash)
                    .bind($time(&at))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn revoke_app(
                &self,
                by: Uuid,
                account: Uuid,
                app: &str,
                at: DateTime<Utc>,
            ) -> Result<u64, StoreError> {
                let done = sqlx::query(REVOKE_APP)
                    .bind($id(by))
                    .bind($id(account))
                    .bind(app)
                    .bind($time(&at))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected())
            }
        }
    };
}

app_store!(
    PostgresStore,
    rows::pg_id,
    rows::pg_time,
    super::postgres::bind_token
);
app_store!(
    SqliteStore,
    rows::sqlite_id,
    time_text,
    super::sqlite::bind_token
);

bounded! {
    impl AppStore {
        write fn create_oauth_code(&self, code: &OAuthCodeRecord, now: DateTime<Utc>) -> bool;
        read fn oauth_code(&self, code_hash: &str) -> Option<OAuthCodeRecord>;
        write fn redeem_oauth_code(&self, code_hash: &str, at: DateTime<Utc>,
            token: &AccountTokenRecord) -> bool;
        write fn revoke_code_token(&self, code_hash: &str, at: DateTime<Utc>) -> Option<Uuid>;
        write fn revoke_token_by_hash(&self, token_hash: &str, at: DateTime<Utc>) -> bool;
        write fn revoke_app(&self, by: Uuid, account: Uuid, app: &str, at: DateTime<Utc>) -> u64;
    }
}

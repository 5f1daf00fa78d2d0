//! The ways back into an account besides a token (`migrations/*/…_passkeys_and_sign_ins.sql`):
//! its passkeys and the WebAuthn ceremonies under way, and the sign-in links mailed to its
//! verified addresses. Ordinary mutable rows, never part of a game's log: what a passkey is
//! (its public key, its counter) is the relying party's business (`service::passkeys`); the
//! store keeps it as the JSON it was given.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows::{self, Columns};
use super::{
    conflict_or, time_text, AccountTokenRecord, Deadline, EventStore, PostgresStore, SqliteStore,
    StoreError,
};

/// One of an account's passkeys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasskeyRecord {
    /// Its id in Parlour (not the authenticator's credential id).
    pub id: Uuid,
    /// The account it signs in.
    pub account: Uuid,
    /// The name its owner gave it.
    pub name: String,
    /// The authenticator's credential id, base64url: unique across accounts.
    pub credential_id: String,
    /// The relying party's record of the credential (public key, counter), as JSON.
    pub passkey: String,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// When it last signed a device in.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A sign-in link's code, mailed to one of an account's verified addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailSignInRecord {
    /// SHA-256 of the code, hex.
    pub code_hash: String,
    /// The account it signs in.
    pub account: Uuid,
    /// The address it was mailed to (an email endpoint's id).
    pub address: Uuid,
    /// Until when it works.
    pub expires_at: DateTime<Utc>,
}

/// Passkeys and the ceremonies that make and use them; mailed sign-in links.
#[async_trait]
pub trait SignInStore: Send + Sync {
    /// Keeps a ceremony's `state` until `expires_at`, and forgets those expired by `now`.
    async fn begin_ceremony(
        &self,
        id: Uuid,
        state: &str,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// The ceremony's state if it has not expired by `now`, deleted as it is read: a ceremony
    /// is finished once, by whichever instance is asked first.
    async fn take_ceremony(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, StoreError>;
    /// Records `passkey` while the token `by` of its account is live (`false` when it is not);
    /// `Conflict` when its credential is registered already.
    async fn add_passkey(&self, by: Uuid, passkey: &PasskeyRecord) -> Result<bool, StoreError>;
    /// The account's passkeys, oldest first.
    async fn passkeys(&self, account: Uuid) -> Result<Vec<PasskeyRecord>, StoreError>;
    /// The passkey with this credential id, whatever its account.
    async fn passkey_by_credential(
        &self,
        credential_id: &str,
    ) -> Result<Option<PasskeyRecord>, StoreError>;
    /// Signs in with `passkey`: replaces its record with `updated` (its new counter) and
    /// notes `at` as its last use, only if its record is still `passkey.passkey` (so two
    /// sign-ins racing with one signature cannot both win), and records `token` in the same
    /// transaction. `false` when the passkey was removed or changed meanwhile.
    async fn sign_in_with_passkey(
        &self,
        passkey: &PasskeyRecord,
        updated: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<bool, StoreError>;
    /// Removes `account`'s passkey `id` while the token `by` of the account is live. `false`
    /// when nothing was removed.
    async fn remove_passkey(&self, by: Uuid, account: Uuid, id: Uuid) -> Result<bool, StoreError>;
    /// The verified addresses `mailto` (an email endpoint's url), whatever their accounts,
    /// whose notices are on: `(address id, account)`, oldest first.
    async fn verified_addresses(&self, mailto: &str) -> Result<Vec<(Uuid, Uuid)>, StoreError>;
    /// Keeps a mailed sign-in link's code.
    async fn create_email_sign_in(&self, record: &EmailSignInRecord) -> Result<(), StoreError>;
    /// Uses the code hashed `code_hash` at `at` if it is unused, unexpired, and its address
    /// still verified, and records `token` for its account in the same transaction: the
    /// account, or `None` when the code opens nothing.
    async fn redeem_email_sign_in(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<Option<Uuid>, StoreError>;
}

const BEGIN: &str = "INSERT INTO passkey_ceremonies (id, state, expires_at) VALUES ($1, $2, $3)";

const FORGET_EXPIRED: &str = "DELETE FROM passkey_ceremonies WHERE expires_at <= $1";

const TAKE: &str =
    "DELETE FROM passkey_ceremonies WHERE id = $1 AND expires_at > $2 RETURNING state";

const ADD: &str = "INSERT INTO passkeys \
     (id, account_id, name, credential_id, passkey, created_at, last_used_at) \
     SELECT $1, $2, $3, $4, $5, $6, NULL WHERE EXISTS \
     (SELECT 1 FROM account_tokens WHERE id = $7 AND account_id = $2 AND revoked_at IS NULL)";

const COLUMNS: &str =
    "SELECT id, account_id, name, credential_id, passkey, created_at, last_used_at FROM passkeys";

const USE: &str =
    "UPDATE passkeys SET passkey = $2, last_used_at = $3 WHERE id = $1 AND passkey = $4";

const REMOVE: &str = "DELETE FROM passkeys WHERE id = $3 AND account_id = $2 AND EXISTS \
     (SELECT 1 FROM account_tokens WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL)";

const VERIFIED: &str = "SELECT id, account_id FROM webhooks \
     WHERE kind = 'email' AND url = $1 AND verified_at IS NOT NULL AND enabled ORDER BY created_at, id";

const KEEP_CODE: &str =
    "INSERT INTO email_sign_in_codes (code_hash, account_id, address_id, expires_at) \
     VALUES ($1, $2, $3, $4)";

const REDEEM_CODE: &str = "UPDATE email_sign_in_codes SET used_at = $2 \
     WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 AND EXISTS \
     (SELECT 1 FROM webhooks w WHERE w.id = email_sign_in_codes.address_id \
      AND w.kind = 'email' AND w.verified_at IS NOT NULL) \
     RETURNING account_id";

fn addresses_from(rows: &[impl Columns]) -> Result<Vec<(Uuid, Uuid)>, StoreError> {
    rows.iter()
        .map(|row| Ok((row.uuid("id")?, row.uuid("account_id")?)))
        .collect()
}

fn of_account() -> String {
    format!("{COLUMNS} WHERE account_id = $1 ORDER BY created_at, id")
}

fn of_credential() -> String {
    format!("{COLUMNS} WHERE credential_id = $1")
}

fn passkey_from(row: &impl Columns) -> Result<PasskeyRecord, StoreError> {
    let text = |name: &str| {
        row.text(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("a passkey's {name} is null")))
    };
    Ok(PasskeyRecord {
        id: row.uuid("id")?,
        account: row.uuid("account_id")?,
        name: text("name")?,
        credential_id: text("credential_id")?,
        passkey: text("passkey")?,
        created_at: row.time("created_at")?,
        last_used_at: row.maybe_time("last_used_at")?,
    })
}

/// The one body of [`SignInStore`] for a backend: `$id` and `$time` turn a `Uuid` and a time
/// into what the backend binds, `$bind_token` binds a token's columns.
macro_rules! sign_in_store {
    ($store:ty, $id:path, $time:path, $bind_token:path) => {
        #[async_trait]
        impl SignInStore for $store {
            async fn begin_ceremony(
                &self,
                id: Uuid,
                state: &str,
                expires_at: DateTime<Utc>,
                now: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query(FORGET_EXPIRED)
                    .bind($time(&now))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(BEGIN)
                    .bind($id(id))
                    .bind(state)
                    .bind($time(&expires_at))
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn take_ceremony(
                &self,
                id: Uuid,
                now: DateTime<Utc>,
            ) -> Result<Option<String>, StoreError> {
                let row = sqlx::query(TAKE)
                    .bind($id(id))
                    .bind($time(&now))
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.map(|row| row.text("state")).transpose()?.flatten())
            }

            async fn add_passkey(
                &self,
                by: Uuid,
                passkey: &PasskeyRecord,
            ) -> Result<bool, StoreError> {
                let done = sqlx::query(ADD)
                    .bind($id(passkey.id))
                    .bind($id(passkey.account))
                    .bind(&passkey.name)
                    .bind(&passkey.credential_id)
                    .bind(&passkey.passkey)
                    .bind($time(&passkey.created_at))
                    .bind($id(by))
                    .execute(&self.pool)
                    .await
                    .map_err(conflict_or)?;
                Ok(done.rows_affected() == 1)
            }

            async fn passkeys(&self, account: Uuid) -> Result<Vec<PasskeyRecord>, StoreError> {
                let rows = sqlx::query(&of_account())
                    .bind($id(account))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(passkey_from).collect()
            }

            async fn passkey_by_credential(
                &self,
                credential_id: &str,
            ) -> Result<Option<PasskeyRecord>, StoreError> {
                let row = sqlx::query(&of_credential())
                    .bind(credential_id)
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(passkey_from).transpose()
            }

            async fn sign_in_with_passkey(
                &self,
                passkey: &PasskeyRecord,
                updated: &str,
                at: DateTime<Utc>,
                token: &AccountTokenRecord,
            ) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query(USE)
                    .bind($id(passkey.id))
                    .bind(updated)
                    .bind($time(&at))
                    .bind(&passkey.passkey)
                    .execute(&mut *tx)
                    .await?;
                if done.rows_affected() != 1 {
                    return Ok(false);
                }
                $bind_token(sqlx::query(rows::INSERT_ACCOUNT_TOKEN), token)
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                tx.commit().await?;
                Ok(true)
            }

            async fn remove_passkey(
                &self,
                by: Uuid,
                account: Uuid,
                id: Uuid,
            ) -> Result<bool, StoreError> {
                let done = sqlx::query(REMOVE)
                    .bind($id(by))
                    .bind($id(account))
                    .bind($id(id))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn verified_addresses(
                &self,
                mailto: &str,
            ) -> Result<Vec<(Uuid, Uuid)>, StoreError> {
                let rows = sqlx::query(VERIFIED)
                    .bind(mailto)
                    .fetch_all(&self.pool)
                    .await?;
                addresses_from(&rows)
            }

            async fn create_email_sign_in(
                &self,
                record: &EmailSignInRecord,
            ) -> Result<(), StoreError> {
                sqlx::query(KEEP_CODE)
                    .bind(&record.code_hash)
                    .bind($id(record.account))
                    .bind($id(record.address))
                    .bind($time(&record.expires_at))
                    .execute(&self.pool)
                    .await
                    .map_err(conflict_or)?;
                Ok(())
            }

            async fn redeem_email_sign_in(
                &self,
                code_hash: &str,
                at: DateTime<Utc>,
                token: &AccountTokenRecord,
            ) -> Result<Option<Uuid>, StoreError> {
                let mut tx = self.pool.begin().await?;
                let row = sqlx::query(REDEEM_CODE)
                    .bind(code_hash)
                    .bind($time(&at))
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                let account = row.uuid("account_id")?;
                let token = AccountTokenRecord {
                    account,
                    ..token.clone()
                };
                $bind_token(sqlx::query(rows::INSERT_ACCOUNT_TOKEN), &token)
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                tx.commit().await?;
                Ok(Some(account))
            }
        }
    };
}

sign_in_store!(
    PostgresStore,
    rows::pg_id,
    rows::pg_time,
    super::postgres::bind_token
);
sign_in_store!(
    SqliteStore,
    rows::sqlite_id,
    time_text,
    super::sqlite::bind_token
);

bounded! {
    impl SignInStore {
        write fn begin_ceremony(&self, id: Uuid, state: &str, expires_at: DateTime<Utc>,
            now: DateTime<Utc>) -> ();
        write fn take_ceremony(&self, id: Uuid, now: DateTime<Utc>) -> Option<String>;
        write fn add_passkey(&self, by: Uuid, passkey: &PasskeyRecord) -> bool;
        read fn passkeys(&self, account: Uuid) -> Vec<PasskeyRecord>;
        read fn passkey_by_credential(&self, credential_id: &str) -> Option<PasskeyRecord>;
        write fn sign_in_with_passkey(&self, passkey: &PasskeyRecord, updated: &str,
            at: DateTime<Utc>, token: &AccountTokenRecord) -> bool;
        write fn remove_passkey(&self, by: Uuid, account: Uuid, id: Uuid) -> bool;
        read fn verified_addresses(&self, mailto: &str) -> Vec<(Uuid, Uuid)>;
        write fn create_email_sign_in(&self, record: &EmailSignInRecord) -> ();
        write fn redeem_email_sign_in(&self, code_hash: &str, at: DateTime<Utc>,
            token: &AccountTokenRecord) -> Option<Uuid>;
    }
}

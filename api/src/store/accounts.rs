//! What accounts keep beside the logs (`migrations/*/…_accounts.sql` and after): accounts,
//! their tokens (hashes only), the games they are seated at, and the codes that sign a second
//! device in. The trait, its one body for both backends and its bounded wrapper are all here,
//! so a new method is written in this file only.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows;
use super::{
    conflict_or, time_text, AccountRecord, AccountTokenRecord, Deadline, EventStore, PostgresStore,
    SignInCodeRecord, SqliteStore, StoreError,
};

/// Accounts and their named tokens: mutable rows, read on every request that carries an
/// account token, so that a revoked token is refused at once by every instance.
#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Records a new account with its first token, both or neither.
    async fn create_account(
        &self,
        account: &AccountRecord,
        token: &AccountTokenRecord,
    ) -> Result<(), StoreError>;

    /// The account a token hash opens, and that token, if the token exists and has not been
    /// revoked.
    async fn account_for_token(
        &self,
        token_hash: &str,
    ) -> Result<Option<(AccountRecord, AccountTokenRecord)>, StoreError>;

    /// The account's tokens that have not been revoked, oldest first.
    async fn account_tokens(&self, account: Uuid) -> Result<Vec<AccountTokenRecord>, StoreError>;

    /// Records `token` for its account if the token `by` (the caller's) is still live: in the
    /// same statement, so a token revoked meanwhile mints nothing. `false` when it was not.
    async fn mint_account_token(
        &self,
        by: Uuid,
        token: &AccountTokenRecord,
    ) -> Result<bool, StoreError>;

    /// Revokes `account`'s live token `token` at `at` if the token `by` (the caller's, of the
    /// same account) is still live, in one statement. `false` when nothing was revoked: no
    /// such live token of that account, or `by` was revoked meanwhile. A token may revoke
    /// itself.
    async fn revoke_account_token(
        &self,
        by: Uuid,
        account: Uuid,
        token: Uuid,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Which of these token ids are live (not revoked, and still there), in no order: asked
    /// again and again for the tokens that hold streams and long-polls, so that a revocation
    /// made through any instance ends them (`service::revocations`). Any number of ids; none
    /// asks nothing of the database.
    async fn live_account_tokens(&self, tokens: &[Uuid]) -> Result<Vec<Uuid>, StoreError>;

    /// The account with this id.
    async fn account(&self, id: Uuid) -> Result<Option<AccountRecord>, StoreError>;

    /// Notes that `account` takes part in `game` (placed, invited or seated), as of `at`.
    /// Idempotent. A hint for the inbox, written before the table event that says so: the
    /// game's log has the last word.
    async fn link_account_game(
        &self,
        account: Uuid,
        game: Uuid,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Every game noted for `account`, newest first.
    async fn account_games(&self, account: Uuid) -> Result<Vec<Uuid>, StoreError>;

    /// The games noted for `account` and not noted as finished, newest first: the inbox's
    /// live part, which never reads a finished game's row.
    async fn live_account_games(&self, account: Uuid) -> Result<Vec<Uuid>, StoreError>;

    /// At most `limit` of the games noted for `account` as finished, created before game
    /// `before` (any game when `None`), newest first: a page of the inbox's history.
    async fn finished_account_games(
        &self,
        account: Uuid,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<Uuid>, StoreError>;

    /// Notes that `game` ended at `at`, for every account that takes part in it.
    /// Idempotent: a game noted finished keeps its first time.
    async fn account_games_finished(&self, game: Uuid, at: DateTime<Utc>)
        -> Result<(), StoreError>;

    /// Records a one-time sign-in code if the token that asks for it is still live: `false`
    /// when it was not.
    async fn create_sign_in_code(&self, code: &SignInCodeRecord) -> Result<bool, StoreError>;

    /// Uses the sign-in code with this hash at `at` and mints `token` for the account it
    /// signs in (whatever `token.account` says), both or neither: the account, or `None` when
    /// the code is unknown, used, expired, or its token was revoked.
    async fn redeem_sign_in_code(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<Option<Uuid>, StoreError>;
}

/// The one body of [`AccountStore`] for a backend: `$id` and `$time` turn a `Uuid` and a time
/// into what the backend binds, `$bind_token` binds a token's columns. Each backend's
/// `begin_write` starts a transaction that writes (on SQLite, one that takes the write lock
/// first).
macro_rules! account_store {
    ($store:ty, $id:path, $time:path, $bind_token:path) => {
        #[async_trait]
        impl AccountStore for $store {
            async fn create_account(
                &self,
                account: &AccountRecord,
                token: &AccountTokenRecord,
            ) -> Result<(), StoreError> {
                let mut tx = self.begin_write().await?;
                sqlx::query(rows::INSERT_ACCOUNT)
                    .bind($id(account.id))
                    .bind(&account.name)
                    .bind($time(&account.created_at))
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                $bind_token(sqlx::query(rows::INSERT_ACCOUNT_TOKEN), token)
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                tx.commit().await?;
                Ok(())
            }

            async fn account_for_token(
                &self,
                token_hash: &str,
            ) -> Result<Option<(AccountRecord, AccountTokenRecord)>, StoreError> {
                let row = sqlx::query(rows::ACCOUNT_FOR_TOKEN)
                    .bind(token_hash)
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(rows::account_from_row).transpose()
            }

            async fn account_tokens(
                &self,
                account: Uuid,
            ) -> Result<Vec<AccountTokenRecord>, StoreError> {
                let rows = sqlx::query(rows::ACCOUNT_TOKENS)
                    .bind($id(account))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(rows::account_token_from_row).collect()
            }

            async fn mint_account_token(
                &self,
                by: Uuid,
                token: &AccountTokenRecord,
            ) -> Result<bool, StoreError> {
                let done = $bind_token(sqlx::query(rows::MINT_ACCOUNT_TOKEN), token)
                    .bind($id(by))
                    .execute(&self.pool)
                    .await
                    .map_err(conflict_or)?;
                Ok(done.rows_affected() == 1)
            }

            async fn revoke_account_token(
                &self,
                by: Uuid,
                account: Uuid,
                token: Uuid,
                at: DateTime<Utc>,
            ) -> Result<bool, StoreError> {
                let done = sqlx::query(rows::REVOKE_ACCOUNT_TOKEN)
                    .bind($id(by))
                    .bind($id(account))
                    .bind($id(token))
                    .bind($time(&at))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn live_account_tokens(&self, tokens: &[Uuid]) -> Result<Vec<Uuid>, StoreError> {
                let mut live = Vec::new();
                for chunk in tokens.chunks(rows::LIVE_TOKENS_PER_STATEMENT) {
                    let sql = rows::live_account_tokens(chunk.len());
                    let mut query = sqlx::query(&sql);
                    for id in chunk {
                        query = query.bind($id(*id));
                    }
                    for row in query.fetch_all(&self.pool).await? {
                        live.push(rows::Columns::uuid(&row, "id")?);
                    }
                }
                Ok(live)
            }

            async fn account(&self, id: Uuid) -> Result<Option<AccountRecord>, StoreError> {
                let row = sqlx::query(rows::ACCOUNT)
                    .bind($id(id))
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(rows::account_record_from_row).transpose()
            }

            async fn link_account_game(
                &self,
                account: Uuid,
                game: Uuid,
                at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                sqlx::query(rows::LINK_ACCOUNT_GAME)
                    .bind($id(account))
                    .bind($id(game))
                    .bind($time(&at))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn account_games(&self, account: Uuid) -> Result<Vec<Uuid>, StoreError> {
                let rows = sqlx::query(rows::ACCOUNT_GAMES)
                    .bind($id(account))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|row| rows::Columns::uuid(row, "game_id"))
                    .collect()
            }

            async fn live_account_games(&self, account: Uuid) -> Result<Vec<Uuid>, StoreError> {
                let rows = sqlx::query(rows::LIVE_ACCOUNT_GAMES)
                    .bind($id(account))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|row| rows::Columns::uuid(row, "game_id"))
                    .collect()
            }

            async fn finished_account_games(
                &self,
                account: Uuid,
                before: Option<Uuid>,
                limit: u64,
            ) -> Result<Vec<Uuid>, StoreError> {
                // SQLite keeps ids as hyphenated lower-case text, which sorts as the UUIDs do.
                let rows = sqlx::query(rows::FINISHED_ACCOUNT_GAMES)
                    .bind($id(account))
                    .bind($id(before.unwrap_or(Uuid::max())))
                    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|row| rows::Columns::uuid(row, "game_id"))
                    .collect()
            }

            async fn account_games_finished(
                &self,
                game: Uuid,
                at: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                sqlx::query(rows::ACCOUNT_GAMES_FINISHED)
                    .bind($id(game))
                    .bind($time(&at))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn create_sign_in_code(
                &self,
                code: &SignInCodeRecord,
            ) -> Result<bool, StoreError> {
                let done = sqlx::query(rows::INSERT_SIGN_IN_CODE)
                    .bind(&code.code_hash)
                    .bind($id(code.account))
                    .bind($id(code.token))
                    .bind($time(&code.expires_at))
                    .execute(&self.pool)
                    .await
                    .map_err(conflict_or)?;
                Ok(done.rows_affected() == 1)
            }

            async fn redeem_sign_in_code(
                &self,
                code_hash: &str,
                at: DateTime<Utc>,
                token: &AccountTokenRecord,
            ) -> Result<Option<Uuid>, StoreError> {
                let mut tx = self.begin_write().await?;
                let row = sqlx::query(rows::REDEEM_SIGN_IN_CODE)
                    .bind(code_hash)
                    .bind($time(&at))
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                let account = rows::Columns::uuid(&row, "account_id")?;
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

account_store!(
    PostgresStore,
    rows::pg_id,
    rows::pg_time,
    super::postgres::bind_token
);
account_store!(
    SqliteStore,
    rows::sqlite_id,
    time_text,
    super::sqlite::bind_token
);

bounded! {
    impl AccountStore {
        write fn create_account(&self, account: &AccountRecord, token: &AccountTokenRecord) -> ();
        read fn account_for_token(&self, token_hash: &str) -> Option<(AccountRecord, AccountTokenRecord)>;
        read fn account_tokens(&self, account: Uuid) -> Vec<AccountTokenRecord>;
        write fn mint_account_token(&self, by: Uuid, token: &AccountTokenRecord) -> bool;
        write fn revoke_account_token(&self, by: Uuid, account: Uuid, token: Uuid,
            at: DateTime<Utc>) -> bool;
        read fn live_account_tokens(&self, tokens: &[Uuid]) -> Vec<Uuid>;
        read fn account(&self, id: Uuid) -> Option<AccountRecord>;
        write fn link_account_game(&self, account: Uuid, game: Uuid, at: DateTime<Utc>) -> ();
        read fn account_games(&self, account: Uuid) -> Vec<Uuid>;
        read fn live_account_games(&self, account: Uuid) -> Vec<Uuid>;
        read fn finished_account_games(&self, account: Uuid, before: Option<Uuid>,
            limit: u64) -> Vec<Uuid>;
        write fn account_games_finished(&self, game: Uuid, at: DateTime<Utc>) -> ();
        write fn create_sign_in_code(&self, code: &SignInCodeRecord) -> bool;
        write fn redeem_sign_in_code(&self, code_hash: &str,
            at: DateTime<Utc>, token: &AccountTokenRecord) -> Option<Uuid>;
    }
}

//! Accounts and their named tokens (issue 11, part 1).
//!
//! An account token is a bearer token like a seat's: shown once, kept only as its SHA-256. It
//! is looked up in the store on every request, never cached, so that a revoked token is
//! refused at once by every instance on the database. It begins with
//! [`ACCOUNT_TOKEN_PREFIX`], which no seat token (64 hex digits) can, so the two are never
//! mistaken for each other. A second device signs in with a one-time code from a device that
//! is signed in already (`issue_sign_in_code`, `sign_in`): no passwords.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::{random_bytes, text, token_hash, Clock, Fault, Result, Revocations, ServiceError};
use crate::bus::CommitSignal;
use crate::dto::{
    self, Account, AccountToken, CreatedAccount, IssuedAccountToken, Me, NewAccount,
    NewAccountToken, SignIn, SignInCode,
};
use crate::scopes::{Scope, Scopes};
use crate::store::{
    AccountRecord, AccountStore, AccountTokenRecord, EndpointKind, MessageState, SignInCodeRecord,
    SignInStore, SignedInWith, WebhookMessageRecord, WebhookStore,
};

/// What every account token begins with.
pub const ACCOUNT_TOKEN_PREFIX: &str = "acct_";
/// The name of an account's first token when the request gives none.
pub const FIRST_TOKEN_NAME: &str = "first";

/// The holder of a live account token, once it has been checked.
#[derive(Debug, Clone)]
pub struct AccountCaller {
    /// The account the token opens.
    pub account: AccountRecord,
    /// The id of the token the request was sent with.
    pub token: Uuid,
    /// What that token may do.
    pub scopes: Scopes,
    /// The app the token was granted to, if it was.
    pub app: Option<String>,
}

impl AccountCaller {
    /// Refuses (403 `insufficient-scope`) unless the token holds `scope`.
    pub fn require(&self, scope: Scope) -> Result<()> {
        if self.scopes.has(scope) {
            Ok(())
        } else {
            Err(ServiceError::InsufficientScope(scope))
        }
    }
}

pub(super) fn account_dto(record: &AccountRecord) -> Account {
    Account {
        id: record.id,
        name: record.name.clone(),
        created_at: record.created_at,
    }
}

/// The accounts capability: what it needs, and nothing else (wired in `Parlour::accounts`).
pub struct Accounts<'a> {
    /// Accounts, their tokens and sign-in codes.
    store: &'a dyn AccountStore,
    /// When a token or code was made, and when a code expires.
    clock: &'a dyn Clock,
    /// Told of a revocation made here, so that what the token holds ends at once.
    revocations: &'a Revocations,
    /// Where a sign-in is told (the account's push subscriptions and addresses).
    hooks: &'a dyn WebhookStore,
    /// Wakes the relay when a sign-in is told.
    commits: &'a CommitSignal,
    /// The codes of mailed sign-in links.
    sign_ins: &'a dyn SignInStore,
}

impl<'a> Accounts<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        store: &'a dyn AccountStore,
        clock: &'a dyn Clock,
        revocations: &'a Revocations,
        hooks: &'a dyn WebhookStore,
        commits: &'a CommitSignal,
        sign_ins: &'a dyn SignInStore,
    ) -> Self {
        Accounts {
            store,
            clock,
            revocations,
            hooks,
            commits,
            sign_ins,
        }
    }

    /// A new token for `account`, made `how`: its record (with the secret's hash) and the
    /// secret itself.
    pub(super) fn mint(
        clock: &dyn Clock,
        account: Uuid,
        name: String,
        how: SignedInWith,
    ) -> Result<(AccountTokenRecord, IssuedAccountToken)> {
        Self::mint_scoped(clock, account, name, how, Scopes::all(), None)
    }

    /// [`Accounts::mint`] a token that may do only `scopes`, for `app` if it is an app's.
    pub(super) fn mint_scoped(
        clock: &dyn Clock,
        account: Uuid,
        name: String,
        how: SignedInWith,
        scopes: Scopes,
        app: Option<String>,
    ) -> Result<(AccountTokenRecord, IssuedAccountToken)> {
        let secret = format!("{ACCOUNT_TOKEN_PREFIX}{}", hex::encode(random_bytes()?));
        let record = AccountTokenRecord {
            id: Uuid::now_v7(),
            account,
            name,
            token_hash: token_hash(&secret),
            created_at: clock.now(),
            signed_in_with: Some(how),
            scopes,
            app,
        };
        let issued = IssuedAccountToken {
            id: record.id,
            name: record.name.clone(),
            created_at: record.created_at,
            scopes: scopes.to_vec(),
            secret,
        };
        Ok((record, issued))
    }

    /// Creates an account and its first token; the token's secret is in the answer only.
    pub async fn create(&self, request: NewAccount) -> Result<CreatedAccount> {
        // Both names are checked before anything is written: a refused request stores nothing.
        let name = text::player_name("name", &request.name)?;
        let token_name = match &request.token_name {
            Some(token_name) => text::player_name("token_name", token_name)?,
            None => FIRST_TOKEN_NAME.to_string(),
        };
        let account = AccountRecord {
            id: Uuid::now_v7(),
            name,
            created_at: self.clock.now(),
        };
        let (token, issued) =
            Self::mint(self.clock, account.id, token_name, SignedInWith::Account)?;
        self.store.create_account(&account, &token).await?;
        Ok(CreatedAccount {
            account: account_dto(&account),
            token: issued,
        })
    }

    /// Checks an account token and that it holds `scope`: the account it opens, if the token
    /// exists, is not revoked, and may do what is asked (403 `insufficient-scope` if not).
    pub async fn authenticate(&self, token: Option<&str>, scope: Scope) -> Result<AccountCaller> {
        let caller = self.authenticate_any(token).await?;
        caller.require(scope)?;
        Ok(caller)
    }

    /// Checks an account token, whatever its scopes: the account it opens, if it exists and
    /// is not revoked. Asked of the store every time (see the module's comment).
    pub async fn authenticate_any(&self, token: Option<&str>) -> Result<AccountCaller> {
        let Some(token) = token else {
            return Err(ServiceError::AccountUnauthorized(
                "this needs `Authorization: Bearer <account token>`",
            ));
        };
        if !token.starts_with(ACCOUNT_TOKEN_PREFIX) {
            return Err(ServiceError::AccountUnauthorized(
                "this is not an account token (account tokens begin with `acct_`; a seat token \
                 opens only its seat's game)",
            ));
        }
        self.authenticate_hash(&token_hash(token)).await
    }

    /// Checks an account token known by its hash (what a stream ticket keeps), whatever its
    /// scopes: the account it opens, if it exists and is not revoked.
    pub async fn authenticate_hash(&self, hash: &str) -> Result<AccountCaller> {
        match self.store.account_for_token(hash).await? {
            Some((account, token)) => Ok(AccountCaller {
                account,
                token: token.id,
                scopes: token.scopes,
                app: token.app,
            }),
            None => Err(ServiceError::AccountUnauthorized(
                "this token belongs to no account, or has been revoked",
            )),
        }
    }

    /// The caller's account and its live tokens: all of them for a token that may manage the
    /// account, else only the caller's own (an app that may read games is not told the
    /// player's devices).
    pub async fn me(&self, caller: &AccountCaller) -> Result<Me> {
        let mut tokens = self.store.account_tokens(caller.account.id).await?;
        if !caller.scopes.has(Scope::AccountManage) {
            tokens.retain(|t| t.id == caller.token);
        }
        Ok(Me {
            account: account_dto(&caller.account),
            tokens: tokens
                .iter()
                .map(|t| AccountToken {
                    id: t.id,
                    name: t.name.clone(),
                    created_at: t.created_at,
                    current: t.id == caller.token,
                    signed_in_with: t.signed_in_with.map(|how| match how {
                        SignedInWith::Account => dto::SignedInWith::Account,
                        SignedInWith::Token => dto::SignedInWith::Token,
                        SignedInWith::Code => dto::SignedInWith::Code,
                        SignedInWith::Passkey => dto::SignedInWith::Passkey,
                        SignedInWith::Email => dto::SignedInWith::Email,
                        SignedInWith::App => dto::SignedInWith::App,
                    }),
                    scopes: t.scopes.to_vec(),
                    app: t.app.clone(),
                })
                .collect(),
        })
    }

    /// Mints another named token for the caller's account; its secret is in the answer only.
    pub async fn mint_token(
        &self,
        caller: &AccountCaller,
        request: NewAccountToken,
    ) -> Result<IssuedAccountToken> {
        let name = text::player_name("name", &request.name)?;
        // A token gives no more than its maker holds; asked for nothing, it holds the same.
        let scopes = match &request.scopes {
            None => caller.scopes,
            Some(asked) if asked.is_empty() => {
                return Err(ServiceError::BadRequest(
                    "`scopes` names no scope: leave it out for the caller's own, or name at \
                     least one"
                        .into(),
                ))
            }
            Some(asked) => asked.iter().copied().collect(),
        };
        if let Some(missing) = caller.scopes.missing_from(scopes) {
            return Err(ServiceError::InsufficientScope(missing));
        }
        let (token, issued) = Self::mint_scoped(
            self.clock,
            caller.account.id,
            name,
            SignedInWith::Token,
            scopes,
            caller.app.clone(),
        )?;
        if self.store.mint_account_token(caller.token, &token).await? {
            Ok(issued)
        } else {
            // The caller's own token was revoked after it was checked: it may mint nothing.
            Err(revoked_meanwhile())
        }
    }

    /// Revokes one of the caller's account's tokens (the caller's own included); another
    /// account's token is answered as if it did not exist.
    pub async fn revoke_token(&self, caller: &AccountCaller, token: &str) -> Result<()> {
        // The id is quoted back from the path, so only so much of it.
        let not_found = || ServiceError::TokenNotFound(token.chars().take(100).collect());
        let id = Uuid::parse_str(token).map_err(|_| not_found())?;
        let revoked = self
            .store
            .revoke_account_token(caller.token, caller.account.id, id, self.clock.now())
            .await?;
        if revoked {
            // What the token holds on this instance ends now; on the others, at their next
            // look at the store (`revocations`).
            self.revocations.look_now();
            return Ok(());
        }
        // Nothing revoked: either there is no such live token of this account, or the caller
        // was itself revoked since it was checked.
        let live = self.store.account_tokens(caller.account.id).await?;
        if live.iter().any(|t| t.id == caller.token) {
            Err(not_found())
        } else {
            Err(revoked_meanwhile())
        }
    }
}

/// What a sign-in code begins with, so it is never mistaken for a token or an invitation.
pub const SIGN_IN_CODE_PREFIX: &str = "signin_";
/// How long a sign-in code works: long enough to type it on another device, no longer.
pub const SIGN_IN_CODE_LIFETIME: Duration = Duration::from_secs(10 * 60);

impl Accounts<'_> {
    /// A one-time code that signs the caller's account in on another device (the web client
    /// shows it, or a link with it): good for [`SIGN_IN_CODE_LIFETIME`] and once, and only
    /// while the token that asked for it is live. Only its hash is kept.
    pub async fn issue_sign_in_code(&self, caller: &AccountCaller) -> Result<SignInCode> {
        let code = format!(
            "{SIGN_IN_CODE_PREFIX}{}",
            hex::encode(&random_bytes()?[..12])
        );
        let lifetime = chrono::Duration::from_std(SIGN_IN_CODE_LIFETIME)
            .map_err(|e| Fault::new("a sign-in code's lifetime is out of range", e))?;
        let record = SignInCodeRecord {
            code_hash: token_hash(&code),
            account: caller.account.id,
            token: caller.token,
            expires_at: self.clock.recorded_now() + lifetime,
        };
        if !self.store.create_sign_in_code(&record).await? {
            return Err(revoked_meanwhile());
        }
        Ok(SignInCode {
            code,
            expires_at: record.expires_at,
            redeem: "/v1/accounts/sign-in".into(),
        })
    }

    /// Signs in on a new device with a code from [`Accounts::issue_sign_in_code`]: a new
    /// named token for its account. A code works once; a wrong, used or expired one (or one
    /// whose token was revoked since) opens nothing.
    pub async fn sign_in(&self, request: SignIn) -> Result<CreatedAccount> {
        let name = text::player_name("token_name", &request.token_name)?;
        let refused = || {
            ServiceError::AccountUnauthorized(
                "this sign-in code is unknown, was used already, or has expired: ask a signed-in \
                 device for a new one, or mail yourself a new link",
            )
        };
        let mailed = request.code.starts_with(super::sign_in_links::CODE_PREFIX);
        if !request.code.starts_with(SIGN_IN_CODE_PREFIX) && !mailed {
            return Err(refused());
        }
        let how = if mailed {
            SignedInWith::Email
        } else {
            SignedInWith::Code
        };
        // The account is the code's: the placeholder here is replaced in the statement.
        let (token, issued) = Self::mint(self.clock, Uuid::nil(), name, how)?;
        let hash = token_hash(&request.code);
        let now = self.clock.recorded_now();
        let account = if mailed {
            self.sign_ins
                .redeem_email_sign_in(&hash, now, &token)
                .await?
        } else {
            self.store.redeem_sign_in_code(&hash, now, &token).await?
        }
        .ok_or_else(refused)?;
        let account = self.store.account(account).await?.ok_or_else(refused)?;
        let token = AccountTokenRecord {
            account: account.id,
            ..token
        };
        tell_of_sign_in(
            self.hooks,
            self.commits,
            &token,
            None,
            self.clock.recorded_now(),
        )
        .await;
        Ok(CreatedAccount {
            account: account_dto(&account),
            token: issued,
        })
    }
}

/// The message type a sign-in is told by (to push subscriptions and addresses, never to an
/// app's webhook).
pub const SIGNED_IN: &str = "account.signed_in";

/// Tells `token`'s account that a device signed in with it (a sign-in code, or the passkey
/// `passkey`): a notice to each of the account's push subscriptions and verified addresses,
/// whatever the account's preferences, at once, since only the account's owner can tell
/// whether the sign-in was theirs. An address whose notices are off is not told.
pub(super) async fn tell_of_sign_in(
    hooks: &dyn WebhookStore,
    commits: &CommitSignal,
    token: &AccountTokenRecord,
    passkey: Option<&str>,
    now: DateTime<Utc>,
) {
    // The sign-in has happened (the device holds its token, and the account page lists it
    // with how it was made): a notice that cannot be queued is logged, not a failed sign-in.
    if let Err(error) = queue_sign_in_notices(hooks, commits, token, passkey, now).await {
        tracing::warn!(
            account = %token.account,
            error = %error,
            "a sign-in could not be told to its account's devices and addresses"
        );
    }
}

async fn queue_sign_in_notices(
    hooks: &dyn WebhookStore,
    commits: &CommitSignal,
    token: &AccountTokenRecord,
    passkey: Option<&str>,
    now: DateTime<Utc>,
) -> Result<()> {
    let how = match (token.signed_in_with, passkey) {
        (Some(SignedInWith::Passkey), Some(name)) => format!("the passkey {name}"),
        (Some(SignedInWith::Passkey), None) => "a passkey".to_string(),
        (Some(SignedInWith::Email), _) => "a link mailed to you".to_string(),
        _ => "a sign-in code".to_string(),
    };
    let payload = json!({
        "type": SIGNED_IN,
        "timestamp": now,
        "data": {
            "device": token.name,
            "with": how,
            "at": now,
        },
    })
    .to_string();
    let messages: Vec<WebhookMessageRecord> = hooks
        .webhooks_of(token.account)
        .await?
        .into_iter()
        .filter(|hook| {
            hook.enabled
                && match hook.kind {
                    EndpointKind::Push => true,
                    EndpointKind::Email => hook.verified_at.is_some(),
                    EndpointKind::Webhook => false,
                }
        })
        .map(|hook| {
            let digest = Sha256::digest(format!("{}/{SIGNED_IN}/{}", hook.id, token.id));
            WebhookMessageRecord {
                id: format!("msg_{}", &hex::encode(digest)[..26]),
                seq: 0,
                webhook: hook.id,
                event_type: SIGNED_IN.to_string(),
                payload: payload.clone(),
                created_at: now,
                state: MessageState::Pending,
                attempts: 0,
                next_attempt: now,
            }
        })
        .collect();
    if !messages.is_empty() {
        hooks.enqueue_messages(&messages).await?;
        commits.committed();
    }
    Ok(())
}

fn revoked_meanwhile() -> ServiceError {
    ServiceError::AccountUnauthorized("this token has been revoked")
}

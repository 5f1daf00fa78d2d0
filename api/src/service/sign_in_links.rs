//! Sign-in links by email: a second way back into an account for a player who lost every
//! device and holds no passkey (`docs/playing-across-days.md`, "Getting back into your
//! account").
//!
//! Anyone may ask for a link to an address; the answer is the same whether or not an account
//! here has verified it, so it tells nobody who plays here. Each account that has verified
//! the address (and not turned its notices off) is mailed its own link. The link's code is
//! derived from the mail's message id under a key derived from the operator's key file, so
//! neither the outbox nor the table of codes holds it: the table keeps its hash, the relay
//! writes it into the mail. It works once, for [`LINK_LIFETIME`], while the address is still
//! verified, and is redeemed like a sign-in code (`POST /v1/accounts/sign-in`).

use chrono::Duration;
use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::email::{mailbox, SIGN_IN_LINK};
use super::{token_hash, Clock, Fault, Result, ServiceError};
use crate::bus::CommitSignal;
use crate::dto::{EmailSignIn, EmailSignInRequested};
use crate::mail::Mailer;
use crate::receipts::Signer;
use crate::store::{
    AccountStore, EmailSignInRecord, MessageState, SignInStore, WebhookMessageRecord, WebhookStore,
};

/// What a mailed sign-in code begins with (a sign-in code from a device is `signin_`).
pub const CODE_PREFIX: &str = "mailin_";
/// How long a mailed link works.
pub const LINK_LIFETIME: Duration = Duration::minutes(15);
/// The purpose the codes' key is derived for from the operator's key file.
const CODES_PURPOSE: &str = "parlour email sign-in codes v1";

/// The code of the sign-in mail whose message id is `message`: 128 bits of an HMAC no one
/// without the key file can compute. A failure is a fault, never a weaker code.
pub(super) fn code_of(signer: &Signer, message: &str) -> Result<String> {
    let key = signer.derive_key(CODES_PURPOSE);
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key)
        .map_err(|e| Fault::new("a sign-in code's key cannot be used", e))?;
    mac.update(message.as_bytes());
    let tag = mac.finalize().into_bytes();
    Ok(format!("{CODE_PREFIX}{}", hex::encode(&tag[..16])))
}

/// The sign-in links capability: what it needs, and nothing else (wired in
/// `Parlour::sign_in_links`).
pub struct SignInLinks<'a> {
    /// Which accounts verified an address, and the codes mailed.
    sign_ins: &'a dyn SignInStore,
    /// The accounts' names, for the mail.
    accounts: &'a dyn AccountStore,
    /// The outbox the mail goes through.
    hooks: &'a dyn WebhookStore,
    /// The key the codes derive from.
    signer: &'a Signer,
    /// When a link expires.
    clock: &'a dyn Clock,
    /// The mail server, if the operator named one.
    mailer: Option<&'a Mailer>,
    /// Wakes the relay.
    commits: &'a CommitSignal,
}

impl<'a> SignInLinks<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        sign_ins: &'a dyn SignInStore,
        accounts: &'a dyn AccountStore,
        hooks: &'a dyn WebhookStore,
        signer: &'a Signer,
        clock: &'a dyn Clock,
        mailer: Option<&'a Mailer>,
        commits: &'a CommitSignal,
    ) -> Self {
        SignInLinks {
            sign_ins,
            accounts,
            hooks,
            signer,
            clock,
            mailer,
            commits,
        }
    }

    /// `POST /v1/accounts/email-sign-in`: mails a link to each account that verified the
    /// address. The answer is the same whether or not any did.
    pub async fn request(&self, request: EmailSignIn) -> Result<EmailSignInRequested> {
        if self.mailer.is_none() {
            return Err(ServiceError::EmailOff);
        }
        let address = mailbox(&request.address)?;
        let now = self.clock.recorded_now();
        let expires_at = now + LINK_LIFETIME;
        let mut messages = Vec::new();
        for (hook, account) in self
            .sign_ins
            .verified_addresses(&format!("mailto:{address}"))
            .await?
        {
            let Some(account) = self.accounts.account(account).await? else {
                continue;
            };
            let digest = Sha256::digest(format!("{hook}/{SIGN_IN_LINK}/{}", Uuid::now_v7()));
            let id = format!("msg_{}", &hex::encode(digest)[..26]);
            self.sign_ins
                .create_email_sign_in(&EmailSignInRecord {
                    code_hash: token_hash(&code_of(self.signer, &id)?),
                    account: account.id,
                    address: hook,
                    expires_at,
                })
                .await?;
            messages.push(WebhookMessageRecord {
                id,
                seq: 0,
                webhook: hook,
                event_type: SIGN_IN_LINK.to_string(),
                payload: json!({
                    "type": SIGN_IN_LINK,
                    "timestamp": now,
                    "account": account.name,
                    "until": expires_at.timestamp(),
                })
                .to_string(),
                created_at: now,
                state: MessageState::Pending,
                attempts: 0,
                next_attempt: now,
            });
        }
        if !messages.is_empty() {
            self.hooks.enqueue_messages(&messages).await?;
            self.commits.committed();
        }
        Ok(EmailSignInRequested {
            address,
            expires_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_the_messages_own_under_the_servers_key() {
        let signer = Signer::from_seed([7; 32]);
        let code = code_of(&signer, "msg_a").unwrap();
        assert!(code.starts_with(CODE_PREFIX));
        assert_eq!(code.len(), CODE_PREFIX.len() + 32);
        assert_eq!(
            code,
            code_of(&signer, "msg_a").unwrap(),
            "the relay writes what was hashed"
        );
        assert_ne!(code, code_of(&signer, "msg_b").unwrap());
        assert_ne!(code, code_of(&Signer::from_seed([8; 32]), "msg_a").unwrap());
    }
}

//! Email: an account's addresses, told of its games by mail once verified
//! (`docs/playing-across-days.md`, "How Parlour reaches you").
//!
//! An address is an endpoint of the webhooks' kind `email` (`store::EndpointKind`), so the
//! fan-out, the queue, the retries and the delivery log are the webhooks' own; what differs
//! is how the relay sends ([`MailRelay::deliver`]): every message due to one address goes in
//! one mail (after quiet hours, the daily digest, or a wait the rate limit imposed, that is
//! several notices at once), written from the same short notice a push carries, with a
//! plain-text part and one-click unsubscribe (RFC 8058). Nothing but the verification mail
//! is sent to an address before its owner follows the link in it.

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::accounts::AccountCaller;
use super::push::{self as pushed, PUSH_EVENTS};
use super::webhooks::{after, internal, retry_delay};
use super::{Clock, Result, ServiceError};
use crate::bus::CommitSignal;
use crate::dto::{EmailAddress, EmailAddressChange, EmailAddressList, NewEmailAddress};
use crate::mail::{self, Handed, Mail, Mailer};
use crate::receipts::Signer;
use crate::store::{
    AttemptRecord, EndpointKind, MessageState, NoticeStore, WebhookMessageRecord, WebhookRecord,
    WebhookStore,
};

/// The most addresses one account may hold.
pub const MAX_EMAIL_ADDRESSES_PER_ACCOUNT: usize = 5;
/// The longest address (RFC 5321's path limit).
pub const MAX_ADDRESS: usize = 254;
/// How long a verification link works.
pub const VERIFICATION_LIFETIME: chrono::Duration = chrono::Duration::hours(24);
/// The most mails an account's addresses are sent in an hour unless the operator says.
pub const DEFAULT_MAILS_PER_HOUR: u32 = 6;
/// The message type of a verification mail (never a webhook's).
pub const VERIFICATION: &str = "email.verification";
/// The message type of a sign-in link (never a webhook's).
pub const SIGN_IN_LINK: &str = "email.sign_in";
/// The purpose the links' key is derived for from the operator's key file.
const LINKS_PURPOSE: &str = "parlour email links v1";
/// The window the rate limit counts mails in.
const RATE_WINDOW: chrono::Duration = chrono::Duration::hours(1);

/// How the server mails.
#[derive(Debug, Clone)]
pub struct EmailSettings {
    /// Where links in mails point: the server as its players reach it.
    pub public_url: String,
    /// The most mails an account's addresses are sent in an hour; more wait.
    pub per_hour: u32,
}

impl Default for EmailSettings {
    fn default() -> Self {
        EmailSettings {
            public_url: "http://127.0.0.1:8080".to_string(),
            per_hour: DEFAULT_MAILS_PER_HOUR,
        }
    }
}

/// What a mailed link does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    /// Verifies the address.
    Verify,
    /// Stops notices to it.
    Unsubscribe,
}

impl Link {
    fn tag(self) -> u8 {
        match self {
            Link::Verify => b'v',
            Link::Unsubscribe => b'u',
        }
    }
}

/// A link's token: the address's id, until when it works, and a MAC over both under a key
/// derived from the operator's key file, so the server keeps no token and none can be made
/// without that file. base64url of 16 + 8 + 16 bytes.
fn link_token(signer: &Signer, link: Link, id: Uuid, until: i64) -> String {
    use base64::Engine as _;
    let mut bytes = Vec::with_capacity(40);
    bytes.extend_from_slice(id.as_bytes());
    bytes.extend_from_slice(&until.to_be_bytes());
    let tag = link_mac(signer, link, &bytes);
    bytes.extend_from_slice(&tag);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn link_mac(signer: &Signer, link: Link, body: &[u8]) -> [u8; 16] {
    let key = signer.derive_key(LINKS_PURPOSE);
    // HMAC takes a key of any length.
    let mut mac = match <Hmac<Sha256> as Mac>::new_from_slice(&key) {
        Ok(mac) => mac,
        Err(_) => return [0; 16],
    };
    mac.update(&[link.tag()]);
    mac.update(body);
    let full = mac.finalize().into_bytes();
    let mut tag = [0; 16];
    tag.copy_from_slice(&full[..16]);
    tag
}

/// The address a token of kind `link` names, if its MAC holds and it has not expired.
fn read_token(
    signer: &Signer,
    link: Link,
    token: &str,
    now: DateTime<Utc>,
) -> std::result::Result<Uuid, ServiceError> {
    use base64::Engine as _;
    let refused = || {
        ServiceError::BadEmailLink(
            "the link is not one this server mailed: copy the whole of it from the mail".into(),
        )
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token.trim())
        .map_err(|_| refused())?;
    if bytes.len() != 40 {
        return Err(refused());
    }
    let (body, tag) = bytes.split_at(24);
    let expected = link_mac(signer, link, body);
    if !subtle_eq(&expected, tag) {
        return Err(refused());
    }
    let id = Uuid::from_slice(&body[..16]).map_err(|_| refused())?;
    let mut until = [0u8; 8];
    until.copy_from_slice(&body[16..]);
    if i64::from_be_bytes(until) < now.timestamp() {
        return Err(ServiceError::BadEmailLink(
            "the link has expired: add the address again to be sent a new one".into(),
        ));
    }
    Ok(id)
}

/// Compares two tags in time independent of where they differ.
fn subtle_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The address an endpoint's `url` holds.
fn address_of(record: &WebhookRecord) -> &str {
    record.url.strip_prefix("mailto:").unwrap_or(&record.url)
}

fn address_dto(record: &WebhookRecord) -> EmailAddress {
    EmailAddress {
        id: record.id,
        address: address_of(record).to_string(),
        verified: record.verified_at.is_some(),
        verified_at: record.verified_at,
        notices: record.enabled,
        stopped_reason: record.disabled_reason.clone(),
        created_at: record.created_at,
    }
}

/// An account's addresses, and the links mailed to them.
pub struct EmailAddresses<'a> {
    /// Addresses are endpoints of the webhooks' tables.
    store: &'a dyn WebhookStore,
    /// The key links are signed with derives from it.
    signer: &'a Signer,
    /// When an address was added and verified, and links expire.
    clock: &'a dyn Clock,
    /// The mail server, if the operator named one.
    mailer: Option<&'a Mailer>,
    /// Told of a verification mail written, so the relay runs now.
    commits: &'a CommitSignal,
}

impl<'a> EmailAddresses<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        store: &'a dyn WebhookStore,
        signer: &'a Signer,
        clock: &'a dyn Clock,
        mailer: Option<&'a Mailer>,
        commits: &'a CommitSignal,
    ) -> Self {
        EmailAddresses {
            store,
            signer,
            clock,
            mailer,
            commits,
        }
    }

    /// `POST /v1/me/email-addresses`: keeps the address, unverified, and mails it the link
    /// that verifies it.
    pub async fn add(
        &self,
        caller: &AccountCaller,
        request: NewEmailAddress,
    ) -> Result<EmailAddress> {
        if self.mailer.is_none() {
            return Err(ServiceError::EmailOff);
        }
        let address = mailbox(&request.address)?;
        let url = format!("mailto:{address}");
        let mine = self.mine(caller).await?;
        if mine.iter().any(|record| record.url == url) {
            return Err(ServiceError::EmailAddressTaken(address));
        }
        if mine.len() >= MAX_EMAIL_ADDRESSES_PER_ACCOUNT {
            return Err(ServiceError::BadEmailAddress(format!(
                "an account has at most {MAX_EMAIL_ADDRESSES_PER_ACCOUNT} addresses: delete \
                 one first"
            )));
        }
        let now = self.clock.recorded_now();
        let id = Uuid::now_v7();
        let record = WebhookRecord {
            id,
            kind: EndpointKind::Email,
            token: None,
            account: caller.account.id,
            url,
            description: String::new(),
            events: PUSH_EVENTS.iter().map(|e| e.name().to_string()).collect(),
            enabled: true,
            disabled_reason: None,
            secret: String::new(),
            previous_secret: None,
            failing_since: None,
            created_at: now,
            verified_at: None,
        };
        self.store.create_webhook(&record).await?;
        let payload = json!({
            "type": VERIFICATION,
            "timestamp": now,
            "account": caller.account.name,
            "until": (now + VERIFICATION_LIFETIME).timestamp(),
        });
        let digest = Sha256::digest(format!("{id}/{VERIFICATION}"));
        self.store
            .enqueue_messages(&[WebhookMessageRecord {
                id: format!("msg_{}", &hex::encode(digest)[..26]),
                seq: 0,
                webhook: id,
                event_type: VERIFICATION.to_string(),
                payload: payload.to_string(),
                created_at: now,
                state: MessageState::Pending,
                attempts: 0,
                next_attempt: now,
            }])
            .await?;
        self.commits.committed();
        Ok(address_dto(&record))
    }

    /// `GET /v1/me/email-addresses`.
    pub async fn list(&self, caller: &AccountCaller) -> Result<EmailAddressList> {
        Ok(EmailAddressList {
            addresses: self.mine(caller).await?.iter().map(address_dto).collect(),
            email_enabled: self.mailer.is_some(),
        })
    }

    /// `PATCH /v1/me/email-addresses/{id}`: notices on or off.
    pub async fn change(
        &self,
        caller: &AccountCaller,
        id: Uuid,
        change: EmailAddressChange,
    ) -> Result<EmailAddress> {
        let mut record = self.own(caller, id).await?;
        record.enabled = change.notices;
        record.disabled_reason = (!change.notices).then(|| {
            format!(
                "its owner stopped notices at {}",
                crate::ledger::time_text(&self.clock.recorded_now())
            )
        });
        if change.notices {
            record.failing_since = None;
        }
        self.store.save_webhook(&record).await?;
        Ok(address_dto(&record))
    }

    /// `DELETE /v1/me/email-addresses/{id}`: nothing more is mailed to it.
    pub async fn remove(&self, caller: &AccountCaller, id: Uuid) -> Result<()> {
        self.own(caller, id).await?;
        if !self.store.delete_webhook(id).await? {
            return Err(ServiceError::EmailAddressNotFound(id.to_string()));
        }
        Ok(())
    }

    /// `POST /v1/email/verify`: the link in a verification mail, followed.
    pub async fn verify(&self, token: &str) -> Result<EmailAddress> {
        let now = self.clock.recorded_now();
        let id = read_token(self.signer, Link::Verify, token, now)?;
        let mut record = self.linked(id).await?;
        if record.verified_at.is_none() {
            record.verified_at = Some(now);
            self.store.save_webhook(&record).await?;
        }
        Ok(address_dto(&record))
    }

    /// `POST /v1/email/unsubscribe`: the one-click link in a notice (RFC 8058), followed.
    pub async fn unsubscribe(&self, token: &str) -> Result<EmailAddress> {
        let now = self.clock.recorded_now();
        let id = read_token(self.signer, Link::Unsubscribe, token, now)?;
        let mut record = self.linked(id).await?;
        if record.enabled {
            record.enabled = false;
            record.disabled_reason = Some(format!(
                "unsubscribed by the link in a mail at {}",
                crate::ledger::time_text(&now)
            ));
            self.store.save_webhook(&record).await?;
            self.store.fail_pending(id).await?;
        }
        Ok(address_dto(&record))
    }

    /// The address a valid link names: gone if it was deleted since.
    async fn linked(&self, id: Uuid) -> Result<WebhookRecord> {
        self.store
            .webhook(id)
            .await?
            .filter(|record| record.kind == EndpointKind::Email)
            .ok_or_else(|| {
                ServiceError::BadEmailLink(
                    "the address was removed from its account since the mail was sent".into(),
                )
            })
    }

    /// One of the caller's addresses.
    async fn own(&self, caller: &AccountCaller, id: Uuid) -> Result<WebhookRecord> {
        self.store
            .webhook(id)
            .await?
            .filter(|r| r.kind == EndpointKind::Email && r.account == caller.account.id)
            .ok_or_else(|| ServiceError::EmailAddressNotFound(id.to_string()))
    }

    /// The caller's addresses, oldest first.
    async fn mine(&self, caller: &AccountCaller) -> Result<Vec<WebhookRecord>> {
        super::webhooks::endpoints_of(self.store, caller, EndpointKind::Email).await
    }
}

/// `address` as Parlour keeps it (its domain lowercased: domains are case-insensitive; the
/// local part is the receiving server's business), if mail can be sent to it.
pub(super) fn mailbox(address: &str) -> Result<String> {
    let address = address.trim();
    if address.len() > MAX_ADDRESS || !mail::is_address(address) {
        return Err(ServiceError::BadEmailAddress(format!(
            "{:?} is not an address mail can be sent to (local@domain, at most \
             {MAX_ADDRESS} characters)",
            address.chars().take(60).collect::<String>()
        )));
    }
    Ok(match address.rsplit_once('@') {
        Some((local, domain)) => format!("{local}@{}", domain.to_ascii_lowercase()),
        None => address.to_string(),
    })
}

/// The relay's way of sending to an address: what the webhooks' relay hands an email
/// endpoint's due messages to.
pub(super) struct MailRelay<'a> {
    /// The mail server, if the operator named one.
    pub mailer: Option<&'a Mailer>,
    /// Links and the rate limit.
    pub settings: &'a EmailSettings,
    /// The mails already sent, which the rate limit counts.
    pub notices: &'a dyn NoticeStore,
}

impl MailRelay<'_> {
    /// Mails the due `messages` of the address `hook`: each verification on its own, every
    /// notice together in one mail, within the account's rate limit (what is over it waits
    /// for the hour to make room). How many messages were attempted.
    pub(super) async fn deliver(
        &self,
        store: &dyn WebhookStore,
        signer: &Signer,
        hook: &WebhookRecord,
        messages: Vec<WebhookMessageRecord>,
        now: DateTime<Utc>,
    ) -> Result<usize> {
        let Some(mailer) = self.mailer else {
            let nothing = Handed::Refused {
                code: 0,
                reason: "this server sends no mail (its operator set no --smtp-url)".into(),
            };
            let count = messages.len();
            record(store, hook, &messages, &nothing, now, 0).await?;
            return Ok(count);
        };
        // A verification and a sign-in link each go alone, at once; notices together.
        let (alone, notices): (Vec<_>, Vec<_>) = messages
            .into_iter()
            .partition(|m| m.event_type == VERIFICATION || m.event_type == SIGN_IN_LINK);
        let mut mails: Vec<(Vec<WebhookMessageRecord>, Mail)> = Vec::new();
        for message in alone {
            let mail = if message.event_type == SIGN_IN_LINK {
                sign_in_mail(self.settings, signer, hook, &message)?
            } else {
                verification_mail(self.settings, signer, hook, &message)?
            };
            mails.push((vec![message], mail));
        }
        if !notices.is_empty() {
            if hook.verified_at.is_none() {
                // The fan-out writes none for an unverified address; one that got here is
                // not sent.
                let unverified = Handed::Refused {
                    code: 0,
                    reason: "the address is not verified".into(),
                };
                record(store, hook, &notices, &unverified, now, 0).await?;
            } else {
                let mail = notices_mail(self.settings, signer, hook, &notices, now)?;
                mails.push((notices, mail));
            }
        }
        let mut sent = self
            .notices
            .mails_sent_since(hook.account, now - RATE_WINDOW)
            .await?;
        let limit = usize::try_from(self.settings.per_hour.max(1)).unwrap_or(usize::MAX);
        let mut room = limit.saturating_sub(sent.len());
        let mut made = 0;
        for (group, mail) in mails {
            if room == 0 {
                // The oldest mail still counted leaves the window first.
                let window: Vec<DateTime<Utc>> = sent.iter().rev().take(limit).copied().collect();
                let free = window.last().map_or(now, |oldest| *oldest + RATE_WINDOW);
                for message in &group {
                    store.reschedule_message(hook.id, &message.id, free).await?;
                }
                continue;
            }
            room -= 1;
            let started = std::time::Instant::now();
            let handed = mailer.send(&mail).await;
            let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            made += group.len();
            if handed == Handed::Accepted {
                self.notices
                    .record_mail(hook.account, now, now - RATE_WINDOW * 24)
                    .await?;
                sent.push(now);
            }
            record(store, hook, &group, &handed, now, latency_ms).await?;
            if let Handed::Refused { code, reason } = &handed {
                if *code != 0 {
                    let mut stopped = hook.clone();
                    stopped.enabled = false;
                    stopped.disabled_reason = Some(format!(
                        "its mail server refused it ({code}): {}",
                        reason.chars().take(200).collect::<String>()
                    ));
                    store.save_webhook(&stopped).await?;
                    store.fail_pending(hook.id).await?;
                    break;
                }
            }
        }
        Ok(made)
    }
}

/// Records one mail's outcome on each message it carried.
async fn record(
    store: &dyn WebhookStore,
    hook: &WebhookRecord,
    messages: &[WebhookMessageRecord],
    handed: &Handed,
    at: DateTime<Utc>,
    latency_ms: u64,
) -> Result<()> {
    for message in messages {
        let attempts = message.attempts.saturating_add(1);
        let (status, response, state, next) = match handed {
            Handed::Accepted => (
                Some(250),
                "250 accepted".to_string(),
                MessageState::Delivered,
                at,
            ),
            Handed::Refused { code, reason } => (
                (*code != 0).then_some(*code),
                reason.clone(),
                MessageState::Failed,
                at,
            ),
            Handed::Later { code, reason } => match retry_delay(attempts) {
                Some(delay) => (
                    *code,
                    reason.clone(),
                    MessageState::Pending,
                    after(at, delay),
                ),
                None => (*code, reason.clone(), MessageState::Failed, at),
            },
        };
        let attempt = AttemptRecord {
            at,
            status,
            latency_ms,
            response: response.chars().take(1024).collect(),
        };
        store
            .record_attempt(hook.id, &message.id, &attempt, state, next)
            .await?;
    }
    Ok(())
}

/// The link of kind `link` for the address `id`, working until `until` (seconds).
fn link_url(settings: &EmailSettings, signer: &Signer, link: Link, id: Uuid, until: i64) -> String {
    let path = match link {
        Link::Verify => "/v1/email/verify",
        Link::Unsubscribe => "/v1/email/unsubscribe",
    };
    format!(
        "{}{path}?token={}",
        settings.public_url.trim_end_matches('/'),
        link_token(signer, link, id, until)
    )
}

/// The account a verification or sign-in message names, and until when its link works.
fn account_and_until(message: &WebhookMessageRecord) -> Result<(String, i64)> {
    let payload: Value = serde_json::from_str(&message.payload).map_err(internal)?;
    let account = payload
        .get("account")
        .and_then(Value::as_str)
        .unwrap_or("a player")
        .to_string();
    let until = payload
        .get("until")
        .and_then(Value::as_i64)
        .unwrap_or_default();
    Ok((account, until))
}

/// The verification mail for `hook`, from its message.
fn verification_mail(
    settings: &EmailSettings,
    signer: &Signer,
    hook: &WebhookRecord,
    message: &WebhookMessageRecord,
) -> Result<Mail> {
    let (account, until) = account_and_until(message)?;
    let account = account.as_str();
    let link = link_url(settings, signer, Link::Verify, hook.id, until);
    let text = format!(
        "Someone, we hope you, added this address to the Parlour account \"{account}\" to be \
         told there of their games.\n\nTo confirm, open this link within 24 hours and press \
         the button:\n{link}\n\nIf it was not you, do nothing: no other mail is sent to this \
         address until it is confirmed.\n"
    );
    let html = format!(
        "<p>Someone, we hope you, added this address to the Parlour account \
         <b>{account}</b> to be told there of their games.</p>\
         <p><a href=\"{link}\">Confirm this address</a> (the link works for 24 hours).</p>\
         <p>If it was not you, do nothing: no other mail is sent to this address until it is \
         confirmed.</p>",
        account = escape(account),
        link = escape(&link),
    );
    Ok(Mail {
        to: address_of(hook).to_string(),
        subject: "Confirm your address for Parlour".into(),
        text,
        html,
        unsubscribe: None,
    })
}

/// The sign-in link for `hook`'s account, from its message: its code is derived from the
/// message's id, as it was when the link was asked for (`sign_in_links`).
fn sign_in_mail(
    settings: &EmailSettings,
    signer: &Signer,
    hook: &WebhookRecord,
    message: &WebhookMessageRecord,
) -> Result<Mail> {
    let (account, _) = account_and_until(message)?;
    let account = account.as_str();
    let code = super::sign_in_links::code_of(signer, &message.id)?;
    let base = settings.public_url.trim_end_matches('/');
    // The code travels in the fragment, which a browser never sends to a server: no request
    // log or proxy between the mail and the page ever sees it.
    let link = format!("{base}/play/sign-in#code={code}");
    let minutes = super::sign_in_links::LINK_LIFETIME.num_minutes();
    let text = format!(
        "Someone, we hope you, asked to sign in to the Parlour account \"{account}\" with this \
         address.\n\nOpen this link on the device to sign in, within {minutes} minutes:\n{link}\n\n\
         or type this code at {base}/play/sign-in:\n{code}\n\nIt works once. If it was not you, \
         do nothing: nobody signs in without this mail.\n"
    );
    let html = format!(
        "<p>Someone, we hope you, asked to sign in to the Parlour account <b>{account}</b> with \
         this address.</p><p><a href=\"{link}\">Sign in as {account}</a> (open it on the \
         device to sign in, within {minutes} minutes), or type this code at \
         <code>/play/sign-in</code>: <code>{code}</code></p><p>It works once. If it was not \
         you, do nothing: nobody signs in without this mail.</p>",
        account = escape(account),
        link = escape(&link),
        code = escape(&code),
    );
    Ok(Mail {
        to: address_of(hook).to_string(),
        subject: format!("Sign in to Parlour as {account}"),
        text,
        html,
        unsubscribe: None,
    })
}

/// One mail telling every notice in `messages`, in the order they were made, each once.
fn notices_mail(
    settings: &EmailSettings,
    signer: &Signer,
    hook: &WebhookRecord,
    messages: &[WebhookMessageRecord],
    now: DateTime<Utc>,
) -> Result<Mail> {
    let base = settings.public_url.trim_end_matches('/');
    let mut notices = Vec::new();
    for message in messages {
        let notice =
            pushed::notice(&message.event_type, &message.payload, now).map_err(internal)?;
        // Moves made while mail waited (quiet hours, the digest, the rate limit) each said
        // "Your move": the mail says it once.
        let told = notices.iter().any(|n: &crate::dto::PushNotice| {
            (&n.title, &n.body, &n.url) == (&notice.title, &notice.body, &notice.url)
        });
        if !told {
            notices.push(notice);
        }
    }
    let subject = match notices.as_slice() {
        [one] => format!("{}: {}", one.title, one.body),
        many => format!("{} notices from Parlour", many.len()),
    };
    let unsubscribe = link_url(settings, signer, Link::Unsubscribe, hook.id, i64::MAX);
    let account_page = format!("{base}/play/account");
    let mut text = String::new();
    let mut html = String::new();
    for notice in &notices {
        let url = format!("{base}{}", notice.url);
        text.push_str(&format!("{}: {}\n{url}\n\n", notice.title, notice.body));
        let open = if notice.game.is_some() {
            "Open the table"
        } else {
            "Open your account"
        };
        html.push_str(&format!(
            "<p><b>{}</b>: {}<br><a href=\"{url}\">{open}</a></p>",
            escape(&notice.title),
            escape(&notice.body),
            url = escape(&url),
        ));
    }
    let address = address_of(hook);
    text.push_str(&format!(
        "-- \nYou are sent this because you asked Parlour to mail {address} your notices.\n\
         Choose what you are sent, and when: {account_page}\n\
         Stop these mails: {unsubscribe}\n"
    ));
    html.push_str(&format!(
        "<hr><p style=\"font-size:small\">You are sent this because you asked Parlour to mail \
         {address} your notices. <a href=\"{account_page}\">Choose what you are sent, and \
         when</a>, or <a href=\"{unsubscribe}\">stop these mails</a>.</p>",
        address = escape(address),
        account_page = escape(&account_page),
        unsubscribe = escape(&unsubscribe),
    ));
    Ok(Mail {
        to: address.to_string(),
        subject,
        text,
        html,
        unsubscribe: Some(unsubscribe),
    })
}

/// `text` made safe inside HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signer() -> Signer {
        Signer::from_seed([7; 32])
    }

    #[test]
    fn a_link_reads_back_only_for_its_own_purpose_and_until_it_expires() {
        let signer = signer();
        let id = Uuid::now_v7();
        let now = Utc::now();
        let until = (now + chrono::Duration::hours(24)).timestamp();
        let token = link_token(&signer, Link::Verify, id, until);
        assert_eq!(read_token(&signer, Link::Verify, &token, now).unwrap(), id);
        assert!(read_token(&signer, Link::Unsubscribe, &token, now).is_err());
        let late = now + chrono::Duration::hours(25);
        let expired = read_token(&signer, Link::Verify, &token, late).unwrap_err();
        assert!(expired.to_string().contains("expired"), "{expired}");
        let other = Signer::from_seed([8; 32]);
        assert!(read_token(&other, Link::Verify, &token, now).is_err());
        let mut forged = token.into_bytes();
        forged[3] = if forged[3] == b'A' { b'B' } else { b'A' };
        let forged = String::from_utf8(forged).unwrap();
        assert!(read_token(&signer, Link::Verify, &forged, now).is_err());
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
    }
}

//! Webhooks: an account's endpoints, told of its games by signed HTTP messages
//! (`docs/webhooks.md`; the scheme itself is [`crate::webhooks`]).
//!
//! Three steps, each at least once, so nothing acknowledged is lost to a crash:
//! 1. every commit to a hosted game writes one outbox row, in the commit's own transaction
//!    ([`WebhookCommits`]);
//! 2. the outbox worker fans that row out (`Parlour::fan_out_webhooks`, in `fan_out.rs`): for each account
//!    the game places, the same notices its stream gives, one message per subscribed endpoint
//!    and notice, each with an id made from what it tells of, so a second fan-out writes
//!    nothing new;
//! 3. the relay, a leader job, sends due messages ([`Webhooks::relay`]), retrying on
//!    the Standard Webhooks schedule and disabling endpoints that are gone.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use parlour_domain::table_events::{Offer, Seating, Sitting, TableEvent};
use rand_core::{OsRng, TryRngCore};
use serde_json::json;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::accounts::AccountCaller;
use super::push;
use super::{text, AfterCommit, Clock, Fault, Result, ServiceError};
use crate::bus::CommitSignal;
use crate::dto::{
    Delivery, DeliveryAttempt, DeliveryPage, DeliveryState, NewWebhook, NoticeKind, Webhook,
    WebhookChange, WebhookEventType, WebhookList, WebhookPayload, WebhookWithSecret,
};
use crate::receipts::Signer;
use crate::store::{
    AccountStore, AttemptRecord, EndpointKind, GameRecord, MessageState, OutboxMessage,
    StoredEvent, WebhookMessageRecord, WebhookRecord, WebhookStore,
};
use crate::webhooks::{self as scheme, Sealer, Secret};

/// The outbox topic of a commit's fan-out.
pub const FAN_OUT_TOPIC: &str = "webhook";
/// The purpose the sealing key is derived for from the operator's key file.
pub const SEALING_PURPOSE: &str = "parlour webhook secrets v1";
/// How many due messages the relay reads at a time.
pub const RELAY_BATCH: usize = 500;
/// How many batches one relay call works through at most.
pub const RELAY_BATCHES_PER_CALL: usize = 20;
/// The most endpoints one account may register.
pub const MAX_WEBHOOKS_PER_ACCOUNT: usize = 20;
/// The longest description.
pub const MAX_DESCRIPTION: usize = 200;
/// How long the secret before a rotation still signs.
pub const ROTATION_GRACE: Duration = Duration::from_secs(24 * 60 * 60);
/// Delays before each retry, after the first attempt (Standard Webhooks' schedule); a
/// message still failing after the last is given up.
pub const RETRY_SCHEDULE: [Duration; 9] = [
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
    Duration::from_secs(14 * 3600),
    Duration::from_secs(20 * 3600),
    Duration::from_secs(24 * 3600),
];
/// An endpoint whose every delivery failed for this long is disabled.
pub const DISABLE_AFTER: Duration = Duration::from_secs(3 * 24 * 3600);
/// How many bytes of an answer are read and kept.
pub const RESPONSE_KEPT: usize = 1024;
/// How many deliveries one page of the log holds.
pub const DELIVERY_PAGE: usize = 20;

/// How the relay sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebhookSettings {
    /// How long a receiver has to answer (Standard Webhooks: 15 s).
    pub timeout: Duration,
    /// Whether endpoints on loopback, private and link-local addresses are allowed (tests,
    /// and operators whose receivers are on their own network).
    pub allow_private: bool,
    /// How many endpoints are sent to at once.
    pub concurrency: usize,
    /// Whether the leader runs the relay each second (on by default; tests that drive it
    /// themselves, with a clock they move, turn it off).
    pub relay: bool,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            timeout: Duration::from_secs(15),
            allow_private: false,
            concurrency: 16,
            relay: true,
        }
    }
}

/// Writes one fan-out row with every commit to a hosted game (a game without accounts has
/// no one to tell), its founding included. A game move's row, or the founding's, is written
/// only if an account at the table has an enabled endpoint (checked in the transaction); a
/// later table event may seat an account the table before it did not hold, so its row is
/// always written and the fan-out decides.
pub struct WebhookCommits;

impl AfterCommit for WebhookCommits {
    fn durable_work(
        &self,
        _game: &GameRecord,
        sitting: &Sitting,
        entries: &[StoredEvent],
    ) -> Vec<OutboxMessage> {
        let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
            return Vec::new();
        };
        let Some(seating) = sitting.table.seating() else {
            return Vec::new();
        };
        // A founding commit (the log's first entry) places every account it ever will so far:
        // its audience is known, as a move's is.
        let founding = first.seq == 1;
        let seats_change = entries.iter().any(|e| TableEvent::is_table_kind(&e.kind));
        let audience = (founding || !seats_change).then(|| {
            accounts_placed(seating)
                .iter()
                .filter_map(|a| Uuid::parse_str(a).ok())
                .collect()
        });
        vec![OutboxMessage {
            topic: FAN_OUT_TOPIC.to_string(),
            payload: json!({ "first": first.seq, "last": last.seq }).to_string(),
            only_if_webhooks_of: audience,
        }]
    }
}

/// Every account a table places: its host, the holders of its seats and the accounts seats
/// are held for.
pub(super) fn accounts_placed(seating: &Seating) -> Vec<String> {
    let mut accounts = vec![seating.host.account.clone()];
    for seat in &seating.seats {
        if let Some(holder) = &seat.holder {
            accounts.push(holder.account.clone());
        }
        if let Some(Offer::Account { account }) = &seat.offer {
            accounts.push(account.clone());
        }
    }
    accounts.sort();
    accounts.dedup();
    accounts
}

/// The event type a notice is sent as, if any.
pub(super) fn event_type_of(notice: NoticeKind) -> Option<WebhookEventType> {
    match notice {
        NoticeKind::YourTurn => Some(WebhookEventType::GameYourTurn),
        NoticeKind::DeadlineNear => Some(WebhookEventType::GameDeadlineNear),
        NoticeKind::TimedOut => Some(WebhookEventType::GameTimedOut),
        NoticeKind::Started => Some(WebhookEventType::GameStarted),
        NoticeKind::Ended => Some(WebhookEventType::GameFinished),
        NoticeKind::SeatClaimed => Some(WebhookEventType::InvitationAccepted),
        NoticeKind::Invited => Some(WebhookEventType::InvitationReceived),
    }
}

/// A message's id from what it tells of: the same however often it is made.
/// Whether `text` has the shape of a message id the server writes (`message_id` and the
/// test message's): `msg_` and 26 lowercase hexadecimal digits.
fn is_message_id(text: &str) -> bool {
    text.strip_prefix("msg_").is_some_and(|digits| {
        digits.len() == 26
            && digits
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

pub(super) fn message_id(
    webhook: Uuid,
    game: Uuid,
    version: u64,
    event: WebhookEventType,
) -> String {
    let digest = Sha256::digest(format!("{webhook}/{game}/{version}/{}", event.name()));
    format!("msg_{}", &hex::encode(digest)[..26])
}

fn bad(detail: impl Into<String>) -> ServiceError {
    ServiceError::BadWebhook(detail.into())
}

/// The event types asked for: at least one, each once, in a fixed order.
fn event_set(events: &[WebhookEventType]) -> Result<Vec<WebhookEventType>> {
    let mut set: Vec<WebhookEventType> = events
        .iter()
        .copied()
        .filter(|e| *e != WebhookEventType::WebhookTest)
        .collect();
    set.sort_by_key(|e| e.name());
    set.dedup();
    if set.is_empty() {
        return Err(bad(
            "`events` names at least one event type (webhook.test is always sent)",
        ));
    }
    Ok(set)
}

fn description(text: Option<String>) -> Result<String> {
    let text = text.unwrap_or_default();
    text::check_text("description", &text, MAX_DESCRIPTION)?;
    Ok(text)
}

fn webhook_dto(record: &WebhookRecord) -> Webhook {
    Webhook {
        id: record.id,
        url: record.url.clone(),
        description: record.description.clone(),
        events: record
            .events
            .iter()
            .filter_map(|e| WebhookEventType::named(e))
            .collect(),
        enabled: record.enabled,
        disabled_reason: record.disabled_reason.clone(),
        failing_since: record.failing_since,
        previous_secret_until: record.previous_secret.as_ref().map(|(_, until)| *until),
        created_at: record.created_at,
    }
}

fn state_dto(state: MessageState) -> DeliveryState {
    match state {
        MessageState::Pending => DeliveryState::Pending,
        MessageState::Delivered => DeliveryState::Delivered,
        MessageState::Failed => DeliveryState::Failed,
    }
}

fn attempt_dto(attempt: AttemptRecord) -> DeliveryAttempt {
    DeliveryAttempt {
        at: attempt.at,
        status: attempt.status,
        latency_ms: attempt.latency_ms,
        response: attempt.response,
    }
}

/// The delay before retry `attempts` (1 after the first failure), with up to a tenth more
/// at random so that endpoints failing together are not retried together; `None` once the
/// schedule is spent.
pub(super) fn retry_delay(attempts: u32) -> Option<Duration> {
    let index = usize::try_from(attempts.checked_sub(1)?).ok()?;
    let delay = *RETRY_SCHEDULE.get(index)?;
    let mut byte = [0u8; 1];
    let jitter = match OsRng.try_fill_bytes(&mut byte) {
        Ok(()) => delay.mul_f64(f64::from(byte[0]) / 2550.0),
        Err(_) => Duration::ZERO,
    };
    Some(delay + jitter)
}

pub(super) fn after(at: DateTime<Utc>, delay: Duration) -> DateTime<Utc> {
    at + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::MAX)
}

/// What one attempt came to.
struct Sent {
    status: Option<u16>,
    response: String,
}

/// The webhooks capability: an account's endpoints and the relay that sends to them. What it
/// needs, and nothing else (wired in `Parlour::webhooks`); the fan-out that writes the
/// messages reads games and notices, and is theirs (`fan_out.rs`).
pub struct Webhooks<'a> {
    /// Endpoints, messages and attempts.
    store: &'a dyn WebhookStore,
    /// The key each endpoint's secret is sealed under is derived from the signing key.
    signer: &'a Signer,
    /// When a message was made, sent and next tried.
    clock: &'a dyn Clock,
    /// How the relay sends.
    settings: WebhookSettings,
    /// Told of a message written outside a commit (a test, a retry), so the relay runs now.
    commits: &'a CommitSignal,
    /// Whether a push subscription's device token is still live.
    tokens: &'a dyn AccountStore,
    /// How a push subscription's and an address's messages are sent.
    channels: Channels<'a>,
}

/// What the relay needs beyond webhooks: for pushes and mail.
pub(super) struct Channels<'a> {
    /// The operator's contact, named in every VAPID token (RFC 8292 `sub`).
    pub push_contact: &'a str,
    /// How an email address's messages are mailed.
    pub mail: super::email::MailRelay<'a>,
}

impl<'a> Webhooks<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        store: &'a dyn WebhookStore,
        signer: &'a Signer,
        clock: &'a dyn Clock,
        settings: WebhookSettings,
        commits: &'a CommitSignal,
        tokens: &'a dyn AccountStore,
        channels: Channels<'a>,
    ) -> Self {
        Webhooks {
            store,
            signer,
            clock,
            settings,
            commits,
            tokens,
            channels,
        }
    }

    fn sealer(&self) -> Sealer {
        Sealer::new(self.signer.derive_key(SEALING_PURPOSE))
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.recorded_now()
    }

    /// The caller's endpoint `id` (another account's is not told apart from none).
    async fn own_webhook(&self, caller: &AccountCaller, id: Uuid) -> Result<WebhookRecord> {
        match self.store.webhook(id).await? {
            Some(webhook)
                if webhook.account == caller.account.id
                    && webhook.kind == EndpointKind::Webhook =>
            {
                Ok(webhook)
            }
            _ => Err(ServiceError::WebhookNotFound(id.to_string())),
        }
    }

    /// The caller's webhooks (not its browsers' push subscriptions nor its addresses),
    /// oldest first.
    async fn own_webhooks(&self, caller: &AccountCaller) -> Result<Vec<WebhookRecord>> {
        endpoints_of(self.store, caller, EndpointKind::Webhook).await
    }

    /// Checks a destination now: its form, and that it resolves to addresses it may be sent to.
    async fn destination(&self, url: &str) -> Result<String> {
        let parsed = scheme::parse_url(url).map_err(|e| bad(e.to_string()))?;
        scheme::resolve(&parsed, self.settings.allow_private)
            .await
            .map_err(|e| bad(e.to_string()))?;
        Ok(parsed.to_string())
    }

    /// `POST /v1/webhooks`: registers an endpoint for the caller's games; its secret is
    /// shown this once.
    pub async fn create(
        &self,
        caller: &AccountCaller,
        request: NewWebhook,
    ) -> Result<WebhookWithSecret> {
        let events = event_set(&request.events)?;
        let description = description(request.description)?;
        let url = self.destination(&request.url).await?;
        if self.own_webhooks(caller).await?.len() >= MAX_WEBHOOKS_PER_ACCOUNT {
            return Err(bad(format!(
                "an account has at most {MAX_WEBHOOKS_PER_ACCOUNT} webhooks: delete one first"
            )));
        }
        let id = Uuid::now_v7();
        let secret = Secret::generate().map_err(internal)?;
        let record = WebhookRecord {
            id,
            kind: EndpointKind::Webhook,
            token: None,
            account: caller.account.id,
            url,
            description,
            events: events.iter().map(|e| e.name().to_string()).collect(),
            enabled: true,
            disabled_reason: None,
            secret: self
                .sealer()
                .seal(&id.to_string(), &secret)
                .map_err(internal)?,
            previous_secret: None,
            failing_since: None,
            created_at: self.now(),
            verified_at: None,
        };
        self.store.create_webhook(&record).await?;
        Ok(WebhookWithSecret {
            webhook: webhook_dto(&record),
            secret: secret.text(),
        })
    }

    /// `GET /v1/webhooks`: the caller's endpoints.
    pub async fn list(&self, caller: &AccountCaller) -> Result<WebhookList> {
        let records = self.own_webhooks(caller).await?;
        Ok(WebhookList {
            webhooks: records.iter().map(webhook_dto).collect(),
        })
    }

    /// `GET /v1/webhooks/{id}`.
    pub async fn get(&self, caller: &AccountCaller, id: Uuid) -> Result<Webhook> {
        Ok(webhook_dto(&self.own_webhook(caller, id).await?))
    }

    /// `PATCH /v1/webhooks/{id}`: changes its destination, events, note, or whether it is
    /// sent to. Enabling it again clears the reason it was disabled and its failures.
    pub async fn change(
        &self,
        caller: &AccountCaller,
        id: Uuid,
        change: WebhookChange,
    ) -> Result<Webhook> {
        let mut record = self.own_webhook(caller, id).await?;
        if let Some(events) = change.events {
            record.events = event_set(&events)?
                .iter()
                .map(|e| e.name().to_string())
                .collect();
        }
        if let Some(text) = change.description {
            record.description = description(Some(text))?;
        }
        if let Some(url) = change.url {
            record.url = self.destination(&url).await?;
        }
        match change.enabled {
            Some(true) if !record.enabled => {
                record.enabled = true;
                record.disabled_reason = None;
                record.failing_since = None;
            }
            Some(false) => {
                record.enabled = false;
                record.disabled_reason = None;
            }
            _ => {}
        }
        if !self.store.save_webhook(&record).await? {
            return Err(ServiceError::WebhookNotFound(id.to_string()));
        }
        Ok(webhook_dto(&record))
    }

    /// `DELETE /v1/webhooks/{id}`: removes it with its undelivered messages and its log.
    pub async fn delete(&self, caller: &AccountCaller, id: Uuid) -> Result<()> {
        self.own_webhook(caller, id).await?;
        if !self.store.delete_webhook(id).await? {
            return Err(ServiceError::WebhookNotFound(id.to_string()));
        }
        Ok(())
    }

    /// `POST /v1/webhooks/{id}/rotate-secret`: a new secret, shown this once; the old one
    /// goes on signing beside it for a day, so receivers can switch without losing a message.
    pub async fn rotate_secret(
        &self,
        caller: &AccountCaller,
        id: Uuid,
    ) -> Result<WebhookWithSecret> {
        let mut record = self.own_webhook(caller, id).await?;
        let secret = Secret::generate().map_err(internal)?;
        let sealed = self
            .sealer()
            .seal(&id.to_string(), &secret)
            .map_err(internal)?;
        let old = std::mem::replace(&mut record.secret, sealed);
        record.previous_secret = Some((old, after(self.now(), ROTATION_GRACE)));
        if !self.store.save_webhook(&record).await? {
            return Err(ServiceError::WebhookNotFound(id.to_string()));
        }
        Ok(WebhookWithSecret {
            webhook: webhook_dto(&record),
            secret: secret.text(),
        })
    }

    /// `POST /v1/webhooks/{id}/test`: a `webhook.test` message, sent like any other.
    pub async fn test(&self, caller: &AccountCaller, id: Uuid) -> Result<Delivery> {
        let record = self.own_webhook(caller, id).await?;
        let now = self.now();
        let mut nonce = [0u8; 13];
        rand_core::OsRng
            .try_fill_bytes(&mut nonce)
            .map_err(|e| internal(e.to_string()))?;
        let payload = WebhookPayload {
            event_type: WebhookEventType::WebhookTest,
            timestamp: now,
            data: None,
            match_view: None,
            timed_out: None,
        };
        let message = WebhookMessageRecord {
            id: format!("msg_{}", hex::encode(nonce)),
            seq: 0,
            webhook: record.id,
            event_type: WebhookEventType::WebhookTest.name().to_string(),
            payload: serde_json::to_string(&payload).map_err(internal)?,
            created_at: now,
            state: MessageState::Pending,
            attempts: 0,
            next_attempt: now,
        };
        self.store
            .enqueue_messages(std::slice::from_ref(&message))
            .await?;
        self.commits.committed();
        Ok(Delivery {
            id: message.id,
            event_type: WebhookEventType::WebhookTest,
            created_at: now,
            state: DeliveryState::Pending,
            next_attempt: Some(now),
            attempts: Vec::new(),
        })
    }

    /// `GET /v1/webhooks/{id}/deliveries`: the endpoint's messages, newest first, each with
    /// its attempts.
    pub async fn deliveries(
        &self,
        caller: &AccountCaller,
        id: Uuid,
        before: Option<&str>,
        limit: u64,
    ) -> Result<DeliveryPage> {
        self.own_webhook(caller, id).await?;
        let before = match before {
            None => None,
            Some(text) => Some(text.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                ServiceError::BadRequest(format!(
                    "`cursor` is the `next` of an earlier page, not {text:?}"
                ))
            })?),
        };
        let messages = self
            .store
            .messages_of(id, before, limit.saturating_add(1))
            .await?;
        let more = messages.len() as u64 > limit;
        let mut deliveries = Vec::new();
        let mut last_seq = None;
        for message in messages
            .into_iter()
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
        {
            last_seq = Some(message.seq);
            deliveries.push(self.delivery_dto(message).await?);
        }
        Ok(DeliveryPage {
            deliveries,
            next: last_seq.filter(|_| more).map(|seq| seq.to_string()),
        })
    }

    async fn delivery_dto(&self, message: WebhookMessageRecord) -> Result<Delivery> {
        let attempts = self.store.attempts_of(message.webhook, &message.id).await?;
        Ok(Delivery {
            event_type: WebhookEventType::named(&message.event_type)
                .unwrap_or(WebhookEventType::WebhookTest),
            created_at: message.created_at,
            state: state_dto(message.state),
            next_attempt: (message.state == MessageState::Pending).then_some(message.next_attempt),
            attempts: attempts.into_iter().map(attempt_dto).collect(),
            id: message.id,
        })
    }

    /// `POST /v1/webhooks/{id}/deliveries/{delivery}/retry`: sends a message again now,
    /// whatever came of it before (a receiver that lost it, or one that is back).
    pub async fn retry_delivery(
        &self,
        caller: &AccountCaller,
        id: Uuid,
        delivery: &str,
    ) -> Result<Delivery> {
        self.own_webhook(caller, id).await?;
        // Only an id of the shape the server writes reaches the store: any other text (a NUL,
        // which Postgres refuses in `text`, or anything longer) names no message anyway.
        if !is_message_id(delivery) {
            let quoted: String = delivery.chars().take(40).collect();
            return Err(ServiceError::WebhookNotFound(format!(
                "{id}/deliveries/{quoted:?}"
            )));
        }
        let message = self
            .store
            .reschedule_message(id, delivery, self.now())
            .await?
            .ok_or_else(|| ServiceError::WebhookNotFound(format!("{id}/deliveries/{delivery}")))?;
        self.commits.committed();
        self.delivery_dto(message).await
    }

    /// One round of the relay: sends every due message, one endpoint's in the order they
    /// were made, several endpoints at once. The number of attempts made.
    pub async fn relay(&self) -> Result<usize> {
        let mut made = 0;
        // A full batch means more are due: go on at once, not a tick later, up to a bound so
        // that a tick always ends (a message that cannot even be attempted stays due).
        for _ in 0..RELAY_BATCHES_PER_CALL {
            let (due, attempts) = self.relay_batch().await?;
            made += attempts;
            if due < RELAY_BATCH {
                break;
            }
        }
        Ok(made)
    }

    /// One batch of due messages, each endpoint's in order, endpoints at once: how many were
    /// due, and how many attempts were made.
    async fn relay_batch(&self) -> Result<(usize, usize)> {
        let due = self
            .store
            .due_messages(self.now(), RELAY_BATCH as u64)
            .await?;
        let count = due.len();
        let mut by_endpoint: BTreeMap<Uuid, Vec<WebhookMessageRecord>> = BTreeMap::new();
        for message in due {
            by_endpoint
                .entry(message.webhook)
                .or_default()
                .push(message);
        }
        let sent = futures_util::stream::iter(by_endpoint)
            .map(|(id, messages)| async move {
                match self.deliver_to(id, messages).await {
                    Ok(count) => count,
                    Err(error) => {
                        tracing::warn!(%error, webhook = %id, "webhook deliveries failed");
                        0
                    }
                }
            })
            .buffer_unordered(self.settings.concurrency.max(1))
            .collect::<Vec<usize>>()
            .await;
        Ok((count, sent.into_iter().sum()))
    }

    /// Sends one endpoint's due messages in order.
    async fn deliver_to(&self, id: Uuid, messages: Vec<WebhookMessageRecord>) -> Result<usize> {
        let Some(mut hook) = self.store.webhook(id).await? else {
            return Ok(0);
        };
        let sealer = self.sealer();
        let current = match hook.kind {
            EndpointKind::Webhook => Some(
                sealer
                    .open(&id.to_string(), &hook.secret)
                    .map_err(internal)?,
            ),
            EndpointKind::Push => {
                // A subscription whose device token was revoked ends here: nothing more is
                // pushed to a device its owner has signed out.
                let live = match hook.token {
                    Some(token) => !self.tokens.live_account_tokens(&[token]).await?.is_empty(),
                    None => false,
                };
                if !live {
                    self.store.delete_webhook(id).await?;
                    return Ok(0);
                }
                None
            }
            EndpointKind::Email => {
                let now = self.now();
                return self
                    .channels
                    .mail
                    .deliver(self.store, self.signer, &hook, messages, now)
                    .await;
            }
        };
        let mut made = 0;
        for message in messages {
            if !hook.enabled {
                break;
            }
            let now = self.now();
            let started = Instant::now();
            let sent = match &current {
                Some(current) => {
                    let previous = match &hook.previous_secret {
                        // One that no longer opens (the operator replaced the key file) is
                        // left out: the current secret still signs.
                        Some((sealed, until)) if *until > now => {
                            sealer.open(&id.to_string(), sealed).ok()
                        }
                        _ => None,
                    };
                    let mut secrets = vec![current];
                    secrets.extend(previous.as_ref());
                    self.send(&hook.url, &secrets, &message, now).await
                }
                None => self.push(&hook, &message, now).await,
            };
            let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            made += 1;
            let attempts = message.attempts.saturating_add(1);
            let delivered = sent.status.is_some_and(|s| (200..300).contains(&s));
            // A push service answers 404 or 410 for a subscription that has ended (RFC 8030
            // §7.3); a webhook receiver says it is gone with 410.
            let gone = match hook.kind {
                EndpointKind::Webhook => sent.status == Some(410),
                EndpointKind::Push => matches!(sent.status, Some(404 | 410)),
                EndpointKind::Email => false,
            };
            let (state, next) = if delivered {
                (MessageState::Delivered, now)
            } else if gone {
                (MessageState::Failed, now)
            } else {
                match retry_delay(attempts) {
                    Some(delay) => (MessageState::Pending, after(now, delay)),
                    None => (MessageState::Failed, now),
                }
            };
            if gone && hook.kind == EndpointKind::Push {
                // The browser's subscription is over: it goes, with its queue and its log.
                self.store.delete_webhook(id).await?;
                break;
            }
            let attempt = AttemptRecord {
                at: now,
                status: sent.status,
                latency_ms,
                response: sent.response,
            };
            self.store
                .record_attempt(message.webhook, &message.id, &attempt, state, next)
                .await?;
            let before = (hook.failing_since, hook.enabled);
            if delivered {
                hook.failing_since = None;
            } else {
                let since = *hook.failing_since.get_or_insert(now);
                let reason = if gone {
                    Some(format!("the receiver answered 410 Gone at {now}"))
                } else if now - since
                    >= chrono::Duration::from_std(DISABLE_AFTER).unwrap_or_default()
                {
                    Some(format!("every delivery failed from {since} to {now}"))
                } else {
                    None
                };
                if let Some(reason) = reason {
                    hook.enabled = false;
                    hook.disabled_reason = Some(reason);
                }
            }
            if (hook.failing_since, hook.enabled) != before {
                self.store.save_webhook(&hook).await?;
                if !hook.enabled {
                    self.store.fail_pending(id).await?;
                }
            }
        }
        Ok(made)
    }

    /// One attempt: the message POSTed to `url`, signed by `secrets`, at `now`.
    async fn send(
        &self,
        url: &str,
        secrets: &[&Secret],
        message: &WebhookMessageRecord,
        now: DateTime<Utc>,
    ) -> Sent {
        match self.try_send(url, secrets, message, now).await {
            Ok(sent) => sent,
            Err(reason) => Sent {
                status: None,
                response: reason,
            },
        }
    }

    /// One attempt at a push: the message's notice sealed to the subscription's keys and
    /// POSTed to its push service (RFC 8030 §5) with a VAPID token, at `now`.
    async fn push(
        &self,
        subscription: &WebhookRecord,
        message: &WebhookMessageRecord,
        now: DateTime<Utc>,
    ) -> Sent {
        match self.try_push(subscription, message, now).await {
            Ok(sent) => sent,
            Err(reason) => Sent {
                status: None,
                response: reason,
            },
        }
    }

    async fn try_push(
        &self,
        subscription: &WebhookRecord,
        message: &WebhookMessageRecord,
        now: DateTime<Utc>,
    ) -> std::result::Result<Sent, String> {
        let sealed = push::sealed_notice(
            self.signer,
            self.channels.push_contact,
            subscription,
            &message.event_type,
            &message.payload,
            now,
        )?;
        let (client, parsed) = self.client_for(&subscription.url).await?;
        // Notices of one game share a topic, so a push service holding them for a device that
        // is offline keeps only the newest (RFC 8030 §5.4): at most 32 URL-safe characters.
        let topic = push::topic_of(&message.payload);
        let mut request = client
            .post(parsed)
            .header("content-type", "application/octet-stream")
            .header("content-encoding", "aes128gcm")
            .header("ttl", push::PUSH_TTL.as_secs().to_string())
            .header("urgency", sealed.urgency)
            .header("authorization", sealed.authorization);
        if let Some(topic) = topic {
            request = request.header("topic", topic);
        }
        let response = request
            .body(sealed.body)
            .send()
            .await
            .map_err(|e| describe_error(&e))?;
        Ok(read_answer(response).await)
    }

    /// A client that calls only the addresses `url` resolves to now, each checked against
    /// the destinations the server may send to, and follows no redirect.
    async fn client_for(
        &self,
        url: &str,
    ) -> std::result::Result<(reqwest::Client, url::Url), String> {
        let parsed = scheme::parse_url(url).map_err(|e| e.to_string())?;
        // Resolved and checked at each attempt, and only those addresses are called: a name
        // that now points inside is refused, and cannot be made to point there mid-request.
        let addresses = scheme::resolve(&parsed, self.settings.allow_private)
            .await
            .map_err(|e| e.to_string())?;
        let host = parsed.host_str().unwrap_or_default().to_string();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.settings.timeout)
            .connect_timeout(self.settings.timeout)
            .resolve_to_addrs(&host, &addresses)
            .user_agent(concat!("Parlour-Webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| e.to_string())?;
        Ok((client, parsed))
    }

    async fn try_send(
        &self,
        url: &str,
        secrets: &[&Secret],
        message: &WebhookMessageRecord,
        now: DateTime<Utc>,
    ) -> std::result::Result<Sent, String> {
        let (client, parsed) = self.client_for(url).await?;
        let timestamp = now.timestamp();
        let body = message.payload.as_bytes();
        let response = client
            .post(parsed)
            .header("content-type", "application/json")
            .header("webhook-id", &message.id)
            .header("webhook-timestamp", timestamp.to_string())
            .header(
                "webhook-signature",
                scheme::signature_header(secrets, &message.id, timestamp, body),
            )
            .body(message.payload.clone())
            .send()
            .await
            .map_err(|e| describe_error(&e))?;
        Ok(read_answer(response).await)
    }
}

/// The status of an answer and its first bytes: a receiver cannot make the relay hold a large
/// answer.
async fn read_answer(response: reqwest::Response) -> Sent {
    let status = response.status().as_u16();
    let mut kept = Vec::new();
    let mut stream = response.bytes_stream();
    while kept.len() < RESPONSE_KEPT {
        match stream.next().await {
            Some(Ok(chunk)) => kept.extend_from_slice(&chunk),
            Some(Err(_)) | None => break,
        }
    }
    kept.truncate(RESPONSE_KEPT);
    Sent {
        status: Some(status),
        response: String::from_utf8_lossy(&kept).into_owned(),
    }
}

fn describe_error(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "no answer in time".to_string()
    } else if error.is_connect() {
        format!("could not connect: {error}")
    } else {
        error.to_string()
    }
}

/// The caller's endpoints of `kind`, oldest first.
pub(super) async fn endpoints_of(
    store: &dyn WebhookStore,
    caller: &AccountCaller,
    kind: EndpointKind,
) -> Result<Vec<WebhookRecord>> {
    Ok(store
        .webhooks_of(caller.account.id)
        .await?
        .into_iter()
        .filter(|record| record.kind == kind)
        .collect())
}

pub(super) fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ServiceError {
    Fault::new("a webhook could not be prepared", error).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_follow_the_standard_schedule_with_at_most_a_tenth_of_jitter() {
        for (n, base) in RETRY_SCHEDULE.iter().enumerate() {
            let attempts = u32::try_from(n + 1).unwrap();
            let delay = retry_delay(attempts).unwrap();
            assert!(
                delay >= *base && delay <= base.mul_f64(1.1),
                "{n}: {delay:?}"
            );
        }
        assert_eq!(
            retry_delay(u32::try_from(RETRY_SCHEDULE.len()).unwrap() + 1),
            None
        );
        assert_eq!(retry_delay(0), None);
    }

    #[test]
    fn only_ids_of_the_shape_the_server_writes_name_a_message() {
        let told = message_id(
            Uuid::from_u128(1),
            Uuid::from_u128(2),
            7,
            WebhookEventType::GameYourTurn,
        );
        assert!(is_message_id(&told));
        assert!(is_message_id(&format!(
            "msg_{}",
            hex::encode([0xab_u8; 13])
        )));
        for other in [
            "",
            "msg_",
            "msg_\0",
            "msg_0123456789abcdef012345678\0",
            "msg_0123456789ABCDEF0123456789",
            "msg_0123456789abcdef01234567890",
            "msg_0123456789abcdef012345678",
            "MSG_0123456789abcdef0123456789",
            "msg_0123456789abcdef012345678é",
        ] {
            assert!(!is_message_id(other), "{other:?}");
        }
    }

    #[test]
    fn a_message_id_depends_on_what_it_tells_of_and_nothing_else() {
        let (w, g) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let id = message_id(w, g, 7, WebhookEventType::GameYourTurn);
        assert_eq!(id, message_id(w, g, 7, WebhookEventType::GameYourTurn));
        assert!(id.starts_with("msg_") && id.len() == 30);
        assert_ne!(id, message_id(w, g, 8, WebhookEventType::GameYourTurn));
        assert_ne!(id, message_id(w, g, 7, WebhookEventType::GameFinished));
        assert_ne!(
            id,
            message_id(Uuid::from_u128(3), g, 7, WebhookEventType::GameYourTurn)
        );
    }
}

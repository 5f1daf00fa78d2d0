//! Web Push: a browser's subscription to be told of its account's games while no page of
//! Parlour is open (`docs/playing-across-days.md`, "How Parlour reaches you").
//!
//! A subscription is an endpoint of the webhooks' kind `push` (`store::EndpointKind`), so the
//! fan-out, the queue, the retries and the delivery log are the webhooks' own (`webhooks.rs`);
//! what differs is how a message is made fit to send ([`sealed_notice`]): the relay turns the
//! inbox row a webhook would carry into a short notice ([`notice`]), seals it to the browser's
//! keys (RFC 8291, `crate::push`) and signs for it with the server's VAPID key (RFC 8292).
//! The push service can neither read it nor tell one notice's size from another's.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use super::accounts::AccountCaller;
use super::{Clock, Result, ServiceError};
use crate::dto::{
    NewPushSubscription, PushKey, PushNotice, PushSubscription, PushSubscriptionList,
    WebhookEventType,
};
use crate::push::{UserAgentKeys, Vapid};
use crate::receipts::Signer;
use crate::store::{EndpointKind, WebhookRecord, WebhookStore};
use crate::webhooks::{self as scheme, Sealer};

/// What a subscription is pushed: every notice of the account's games that asks something of
/// the player or tells them how a game went.
pub const PUSH_EVENTS: [WebhookEventType; 8] = [
    WebhookEventType::GameStarted,
    WebhookEventType::GameYourTurn,
    WebhookEventType::GameDeadlineNear,
    WebhookEventType::GameTimedOut,
    WebhookEventType::GameFinished,
    WebhookEventType::MatchFinished,
    WebhookEventType::InvitationAccepted,
    WebhookEventType::InvitationReceived,
];

/// The most subscriptions one account may hold (a browser on each of its devices).
pub const MAX_PUSH_SUBSCRIPTIONS_PER_ACCOUNT: usize = 20;

/// How long a push service keeps a notice for a device that is offline: a day, after which
/// the inbox tells the player what is still asked of them.
pub const PUSH_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// The longest endpoint URL kept.
const MAX_ENDPOINT: usize = 2048;

/// Browsers' subscriptions: made, listed and ended by their account.
pub struct PushSubscriptions<'a> {
    /// Subscriptions are endpoints of the webhooks' tables.
    store: &'a dyn WebhookStore,
    /// The VAPID key and the key subscriptions' keys are sealed under derive from it.
    signer: &'a Signer,
    /// When a subscription was made.
    clock: &'a dyn Clock,
    /// Whether a push service may be on a private address (tests on loopback).
    allow_private: bool,
}

impl<'a> PushSubscriptions<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        store: &'a dyn WebhookStore,
        signer: &'a Signer,
        clock: &'a dyn Clock,
        allow_private: bool,
    ) -> Self {
        PushSubscriptions {
            store,
            signer,
            clock,
            allow_private,
        }
    }

    /// `GET /v1/push/key`: what a browser subscribes with.
    pub fn key(&self) -> PushKey {
        PushKey {
            application_server_key: Vapid::from_signer(self.signer).application_server_key(),
        }
    }

    /// `POST /v1/me/push-subscriptions`: keeps the browser's subscription for the caller's
    /// device token. The same browser subscribing again (to this account or another)
    /// replaces what it had.
    pub async fn subscribe(
        &self,
        caller: &AccountCaller,
        request: NewPushSubscription,
    ) -> Result<PushSubscription> {
        UserAgentKeys::parse(&request.keys.p256dh, &request.keys.auth)
            .map_err(|e| bad(e.to_string()))?;
        if request.endpoint.len() > MAX_ENDPOINT {
            return Err(bad(format!(
                "the endpoint is longer than {MAX_ENDPOINT} characters"
            )));
        }
        let parsed = scheme::parse_url(&request.endpoint).map_err(|e| bad(e.to_string()))?;
        scheme::resolve(&parsed, self.allow_private)
            .await
            .map_err(|e| bad(e.to_string()))?;
        let endpoint = parsed.to_string();
        let mine = self.mine(caller).await?;
        let again = mine.iter().any(|s| s.url == endpoint);
        if !again && mine.len() >= MAX_PUSH_SUBSCRIPTIONS_PER_ACCOUNT {
            return Err(bad(format!(
                "an account has at most {MAX_PUSH_SUBSCRIPTIONS_PER_ACCOUNT} push \
                 subscriptions: delete one first"
            )));
        }
        let id = Uuid::now_v7();
        let record = WebhookRecord {
            id,
            kind: EndpointKind::Push,
            token: Some(caller.token),
            account: caller.account.id,
            url: endpoint,
            description: String::new(),
            events: PUSH_EVENTS.iter().map(|e| e.name().to_string()).collect(),
            enabled: true,
            disabled_reason: None,
            secret: seal_keys(self.signer, id, &request.keys.p256dh, &request.keys.auth)?,
            previous_secret: None,
            failing_since: None,
            created_at: self.clock.recorded_now(),
            verified_at: None,
        };
        self.store.create_webhook(&record).await?;
        Ok(subscription_dto(&record))
    }

    /// `GET /v1/me/push-subscriptions`.
    pub async fn list(&self, caller: &AccountCaller) -> Result<PushSubscriptionList> {
        Ok(PushSubscriptionList {
            subscriptions: self
                .mine(caller)
                .await?
                .iter()
                .map(subscription_dto)
                .collect(),
        })
    }

    /// `DELETE /v1/me/push-subscriptions/{id}`: nothing more is pushed to it, and what was
    /// waiting to be is dropped.
    pub async fn unsubscribe(&self, caller: &AccountCaller, id: Uuid) -> Result<()> {
        let owned = self.store.webhook(id).await?.is_some_and(|record| {
            record.kind == EndpointKind::Push && record.account == caller.account.id
        });
        if !owned || !self.store.delete_webhook(id).await? {
            return Err(ServiceError::PushSubscriptionNotFound(id.to_string()));
        }
        Ok(())
    }

    /// The caller's subscriptions, oldest first.
    async fn mine(&self, caller: &AccountCaller) -> Result<Vec<WebhookRecord>> {
        super::webhooks::endpoints_of(self.store, caller, EndpointKind::Push).await
    }
}

fn bad(detail: impl Into<String>) -> ServiceError {
    ServiceError::BadPushSubscription(detail.into())
}

fn subscription_dto(record: &WebhookRecord) -> PushSubscription {
    PushSubscription {
        id: record.id,
        endpoint: record.url.clone(),
        token_id: record.token,
        enabled: record.enabled,
        disabled_reason: record.disabled_reason.clone(),
        failing_since: record.failing_since,
        created_at: record.created_at,
    }
}

/// The key subscriptions' keys are sealed under: the webhooks' (one sealing scheme, bound to
/// each row's id).
fn sealer(signer: &Signer) -> Sealer {
    Sealer::new(signer.derive_key(super::webhooks::SEALING_PURPOSE))
}

/// A subscription's keys as kept: `p256dh auth`, sealed for its row.
fn seal_keys(signer: &Signer, id: Uuid, p256dh: &str, auth: &str) -> Result<String> {
    let text = format!("{} {}", p256dh.trim(), auth.trim());
    sealer(signer)
        .seal_bytes(&id.to_string(), text.as_bytes())
        .map_err(super::webhooks::internal)
}

/// A subscription's keys, opened.
fn open_keys(
    signer: &Signer,
    record: &WebhookRecord,
) -> std::result::Result<UserAgentKeys, String> {
    let text = sealer(signer)
        .open_bytes(&record.id.to_string(), &record.secret)
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8(text).map_err(|e| e.to_string())?;
    let (p256dh, auth) = text
        .split_once(' ')
        .ok_or("a push subscription's keys are not two")?;
    UserAgentKeys::parse(p256dh, auth).map_err(|e| e.to_string())
}

/// One push, ready to send: its body and headers.
pub(super) struct SealedNotice {
    /// The `aes128gcm` body.
    pub body: Vec<u8>,
    /// `Authorization: vapid t=…, k=…`.
    pub authorization: String,
    /// `Urgency` (RFC 8030 §5.3).
    pub urgency: &'static str,
}

/// The message `payload` (a webhook payload of `event_type`) for the subscription `record`:
/// its notice, sealed to the subscription's keys, and the VAPID token for its push service.
pub(super) fn sealed_notice(
    signer: &Signer,
    contact: &str,
    record: &WebhookRecord,
    event_type: &str,
    payload: &str,
    now: DateTime<Utc>,
) -> std::result::Result<SealedNotice, String> {
    let keys = open_keys(signer, record)?;
    let notice = notice(event_type, payload, now)?;
    let text = serde_json::to_vec(&notice).map_err(|e| e.to_string())?;
    let body = crate::push::encrypt(&keys, &text).map_err(|e| e.to_string())?;
    let endpoint = url::Url::parse(&record.url).map_err(|e| e.to_string())?;
    // RFC 8292 allows a token at most a day ahead; twelve hours leaves room for skewed clocks.
    let expires = now.timestamp() + 12 * 60 * 60;
    let authorization = Vapid::from_signer(signer)
        .authorization(&endpoint, contact, expires)
        .map_err(|e| e.to_string())?;
    let urgency = match event_type {
        "game.your_turn" | "game.deadline_near" | "game.timed_out" => "high",
        _ => "normal",
    };
    Ok(SealedNotice {
        body,
        authorization,
        urgency,
    })
}

/// The short notice a webhook payload becomes: a title, a line, the table to open.
pub(super) fn notice(
    event_type: &str,
    payload: &str,
    now: DateTime<Utc>,
) -> std::result::Result<PushNotice, String> {
    let payload: Value = serde_json::from_str(payload).map_err(|e| e.to_string())?;
    let row = payload.get("data").filter(|d| !d.is_null());
    let game = row
        .and_then(|r| r.get("id"))
        .and_then(Value::as_str)
        .and_then(|id| Uuid::parse_str(id).ok());
    let name = row
        .and_then(|r| r.get("game"))
        .and_then(Value::as_str)
        .map(|kind| {
            parlour_domain::catalog::engine(kind).map_or(kind.to_string(), |engine| {
                engine.describe().name.to_string()
            })
        })
        .unwrap_or_else(|| "Parlour".to_string());
    let players: Vec<&str> = row
        .and_then(|r| r.get("players"))
        .and_then(Value::as_array)
        .map(|seats| {
            seats
                .iter()
                .filter_map(|seat| seat.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if event_type == super::accounts::SIGNED_IN {
        return Ok(sign_in_notice(row, now));
    }
    let title = match event_type {
        "game.your_turn" => "Your move".to_string(),
        "game.deadline_near" => "Your move: time is running out".to_string(),
        "game.timed_out" => "Time ran out".to_string(),
        "game.started" if deal_of(row) > 0 => "The next deal has begun".to_string(),
        "game.started" => "A game has begun".to_string(),
        "game.finished" => "A game has ended".to_string(),
        "match.finished" => "A match has ended".to_string(),
        "invitation.accepted" => "A seat was taken".to_string(),
        "invitation.received" => "A seat is held for you".to_string(),
        "webhook.test" => "Notifications work".to_string(),
        other => other.to_string(),
    };
    let body = if players.is_empty() {
        name
    } else {
        format!("{name} with {}", players.join(", "))
    };
    let url = game.map_or_else(|| "/play".to_string(), |id| format!("/play/games/{id}"));
    Ok(PushNotice {
        event_type: event_type.to_string(),
        title,
        body: truncate(&body, 200),
        game,
        tag: game.map_or_else(|| "parlour".to_string(), |id| id.to_string()),
        url,
        timestamp: now,
    })
}

/// The notice of a sign-in (`accounts::tell_of_sign_in`): which device, how, and where to
/// see the account's devices and revoke one that is not the owner's.
fn sign_in_notice(data: Option<&Value>, now: DateTime<Utc>) -> PushNotice {
    let field = |name: &str| {
        data.and_then(|d| d.get(name))
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    let body = format!(
        "{} signed in to your account with {}. Not you? Revoke it on your account page.",
        field("device"),
        field("with")
    );
    PushNotice {
        event_type: super::accounts::SIGNED_IN.to_string(),
        title: "New sign-in".to_string(),
        body: truncate(&body, 200),
        game: None,
        tag: "sign-in".to_string(),
        url: "/play/account".to_string(),
        timestamp: now,
    }
}

/// The `Topic` of a message's push (RFC 8030 §5.4): its game's id as 32 hex digits, so a
/// push service holding a device's notices keeps only a game's newest.
pub(super) fn topic_of(payload: &str) -> Option<String> {
    let payload: Value = serde_json::from_str(payload).ok()?;
    let id = payload.get("data")?.get("id")?.as_str()?;
    Some(Uuid::parse_str(id).ok()?.simple().to_string())
}

/// Which deal of a match the row's game is (0 for a game that is no match's deal).
fn deal_of(row: Option<&Value>) -> u64 {
    row.and_then(|r| r.get("deal_of"))
        .and_then(|deal| deal.get("deal"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// `text` cut at a character boundary to at most `most` bytes.
fn truncate(text: &str, most: usize) -> String {
    let mut end = text.len().min(most);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_your_move_notice_names_the_game_and_the_players_and_opens_the_table() {
        let id = Uuid::now_v7();
        let payload = serde_json::json!({
            "type": "game.your_turn",
            "timestamp": "2026-12-06T10:00:00Z",
            "data": {"id": id, "game": "girl", "players": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bea"}]},
        });
        let notice = notice("game.your_turn", &payload.to_string(), Utc::now()).unwrap();
        assert_eq!(notice.title, "Your move");
        assert_eq!(notice.body, "GIRL with Ann, Bea");
        assert_eq!(notice.url, format!("/play/games/{id}"));
        assert_eq!(notice.game, Some(id));
    }

    #[test]
    fn the_longest_notice_fits_one_push() {
        let long = "é".repeat(500);
        let players: Vec<Value> = (0..8).map(|_| serde_json::json!({"name": long})).collect();
        let payload = serde_json::json!({
            "data": {"id": Uuid::now_v7(), "game": long, "players": players},
        });
        let notice = notice("game.timed_out", &payload.to_string(), Utc::now()).unwrap();
        assert!(serde_json::to_vec(&notice).unwrap().len() <= crate::push::MAX_PAYLOAD);
    }
}

//! Notices to webhooks: the outbox worker's fan-out of one commit (step 2 of
//! `webhooks.rs`). It reads the game (who it places) and the notices each account's stream
//! gives for the commit, so it belongs with the games and the notices, and hands the
//! webhooks' store only the messages to send.

use serde_json::Value;
use uuid::Uuid;

use super::seating::account_text;
use super::webhooks::{accounts_placed, event_type_of, internal, message_id};
use super::{Parlour, Result};
use crate::dto::{MatchStatus, WebhookEventType, WebhookPayload};
use crate::store::{EndpointKind, MessageState, WebhookMessageRecord, WebhookRecord};

impl Parlour {
    /// The fan-out of one commit's outbox row: for every account the game places, the
    /// notices of its stream, as messages to each of its endpoints subscribed to them.
    pub async fn fan_out_webhooks(&self, game: Uuid, payload: &str) -> Result<usize> {
        let range: Value = serde_json::from_str(payload).map_err(internal)?;
        let (Some(first), Some(last)) = (
            range.get("first").and_then(Value::as_u64),
            range.get("last").and_then(Value::as_u64),
        ) else {
            return Err(internal(format!("a webhook fan-out row reads {payload:?}")));
        };
        let accounts = self
            .with_game(game, |loaded| {
                loaded
                    .sitting
                    .table
                    .seating()
                    .map(accounts_placed)
                    .unwrap_or_default()
            })
            .await?;
        let events = self
            .store
            .events(game, first.saturating_sub(1), Some(last + 1 - first))
            .await?;
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        let now = self.now();
        let mut messages = Vec::new();
        let mut finished_match: Option<Option<crate::dto::MatchView>> = None;
        for account in accounts {
            let Ok(account_id) = Uuid::parse_str(&account) else {
                continue;
            };
            let hooks: Vec<WebhookRecord> = self
                .store
                .webhooks_of(account_id)
                .await?
                .into_iter()
                .filter(|w| w.enabled)
                .collect();
            if hooks.is_empty() {
                continue;
            }
            // What the account asked to be pushed and mailed, and when (quiet hours, the
            // daily digest); an app's webhook takes what it subscribed to, at once.
            let chosen = super::preferences::of(&*self.store, account_id).await?;
            let Some(told) = self
                .run_notices(game, &account_text(account_id), first, last, &kinds)
                .await?
            else {
                continue;
            };
            let (row, notices) = (told.row, told.kinds);
            let mut events: Vec<WebhookEventType> =
                notices.into_iter().filter_map(event_type_of).collect();
            // The commit that ends a match's last deal also ends the match.
            if let (true, Some(deal)) = (
                events.contains(&WebhookEventType::GameFinished),
                row.deal_of.as_ref(),
            ) {
                if finished_match.is_none() {
                    let view = self.match_view(deal.match_id).await?;
                    finished_match = Some((view.status != MatchStatus::Playing).then_some(view));
                }
                if finished_match.as_ref().is_some_and(Option::is_some) {
                    events.push(WebhookEventType::MatchFinished);
                }
            }
            // What a commit asks of the player is told last, so a device that shows one
            // notice per game (a push's tag) is left showing it, and a mail reads in order.
            events.sort_by_key(|event| telling_order(*event));
            for event in events {
                let payload = WebhookPayload {
                    event_type: event,
                    timestamp: now,
                    data: Some(row.clone()),
                    match_view: match event {
                        WebhookEventType::MatchFinished => finished_match.clone().flatten(),
                        _ => None,
                    },
                    timed_out: match event {
                        WebhookEventType::GameTimedOut => told.timed_out.clone(),
                        _ => None,
                    },
                };
                let body = serde_json::to_string(&payload).map_err(internal)?;
                for hook in hooks.iter().filter(|h| {
                    h.events.iter().any(|e| e == event.name())
                        && chosen.wants(h.kind, event)
                        // Nothing but the verification mail goes to an unverified address.
                        && (h.kind != EndpointKind::Email || h.verified_at.is_some())
                }) {
                    messages.push(WebhookMessageRecord {
                        id: message_id(hook.id, game, last, event),
                        seq: 0,
                        webhook: hook.id,
                        event_type: event.name().to_string(),
                        payload: body.clone(),
                        created_at: now,
                        state: MessageState::Pending,
                        attempts: 0,
                        next_attempt: chosen.deliver_at(hook.kind, now),
                    });
                }
            }
        }
        self.store.enqueue_messages(&messages).await?;
        Ok(messages.len())
    }
}

/// Where a notice stands among one commit's: what happened first, what is asked last.
fn telling_order(event: WebhookEventType) -> u8 {
    match event {
        WebhookEventType::InvitationReceived | WebhookEventType::InvitationAccepted => 0,
        WebhookEventType::GameStarted => 1,
        WebhookEventType::GameFinished => 2,
        WebhookEventType::MatchFinished => 3,
        WebhookEventType::GameTimedOut => 4,
        WebhookEventType::GameDeadlineNear => 5,
        WebhookEventType::GameYourTurn => 6,
        WebhookEventType::WebhookTest => 7,
    }
}

//! What webhooks keep beside the logs: the endpoints accounts register, the messages owed to
//! each, and every attempt to deliver one (`migrations/*/…_webhooks.sql`). Ordinary mutable
//! rows, never part of a game's log.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::rows::{self, Columns};
use super::{time_text, Deadline, EventStore, PostgresStore, SqliteStore, StoreError};

/// What an endpoint is: where its messages go and how they are made fit to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointKind {
    /// An app's URL, sent signed JSON (Standard Webhooks).
    Webhook,
    /// A browser's push subscription, sent sealed notices through its push service (Web Push).
    Push,
    /// An email address (`url` is `mailto:<address>`), sent mails by SMTP once verified.
    Email,
}

impl EndpointKind {
    fn text(self) -> &'static str {
        match self {
            EndpointKind::Webhook => "webhook",
            EndpointKind::Push => "push",
            EndpointKind::Email => "email",
        }
    }

    fn parse(text: &str) -> Result<Self, StoreError> {
        match text {
            "webhook" => Ok(EndpointKind::Webhook),
            "push" => Ok(EndpointKind::Push),
            "email" => Ok(EndpointKind::Email),
            other => Err(StoreError::Corrupt(format!("endpoint kind {other:?}"))),
        }
    }
}

/// One registered endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRecord {
    /// Its id.
    pub id: Uuid,
    /// A webhook or a push subscription.
    pub kind: EndpointKind,
    /// For a push subscription, the device token that made it: nothing is pushed once it is
    /// revoked.
    pub token: Option<Uuid>,
    /// The account that registered it, whose games it is told of.
    pub account: Uuid,
    /// Where messages are sent.
    pub url: String,
    /// Its owner's note.
    pub description: String,
    /// The event types it is sent.
    pub events: Vec<String>,
    /// Whether messages are sent to it now.
    pub enabled: bool,
    /// Why the server disabled it, when it did.
    pub disabled_reason: Option<String>,
    /// The signing secret, sealed; for a push subscription, its keys (`p256dh` and `auth`).
    pub secret: String,
    /// The secret before the last rotation, sealed, and until when it still signs.
    pub previous_secret: Option<(String, DateTime<Utc>)>,
    /// Since when every attempt has failed.
    pub failing_since: Option<DateTime<Utc>>,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// For an email address, when its owner followed the verification link: nothing but
    /// that link is mailed to it before.
    pub verified_at: Option<DateTime<Utc>>,
}

/// Where a message stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageState {
    /// To be sent at `next_attempt`.
    Pending,
    /// A 2xx came back.
    Delivered,
    /// Given up: out of attempts, or its endpoint was disabled.
    Failed,
}

impl MessageState {
    fn text(self) -> &'static str {
        match self {
            MessageState::Pending => "pending",
            MessageState::Delivered => "delivered",
            MessageState::Failed => "failed",
        }
    }

    fn parse(text: &str) -> Result<Self, StoreError> {
        match text {
            "pending" => Ok(MessageState::Pending),
            "delivered" => Ok(MessageState::Delivered),
            "failed" => Ok(MessageState::Failed),
            other => Err(StoreError::Corrupt(format!(
                "webhook message state {other:?}"
            ))),
        }
    }
}

/// One message owed to an endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookMessageRecord {
    /// The `webhook-id`: the same on every attempt, and however often it was made.
    pub id: String,
    /// Its place among all messages (set by the store; ignored when enqueueing).
    pub seq: i64,
    /// The endpoint.
    pub webhook: Uuid,
    /// The event type, e.g. `game.your_turn`.
    pub event_type: String,
    /// The exact body sent and signed.
    pub payload: String,
    /// When it was made (its `webhook-timestamp` is the time of each attempt).
    pub created_at: DateTime<Utc>,
    /// Where it stands.
    pub state: MessageState,
    /// Attempts made so far.
    pub attempts: u32,
    /// When it is next due, if pending.
    pub next_attempt: DateTime<Utc>,
}

/// One attempt to deliver a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    /// When it was made.
    pub at: DateTime<Utc>,
    /// The receiver's status, if it answered.
    pub status: Option<u16>,
    /// How long it took.
    pub latency_ms: u64,
    /// The answer's first bytes, or why there was none.
    pub response: String,
}

/// The endpoints, their messages and their attempts.
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Registers an endpoint; a push subscription replaces any other of the same URL (the
    /// same browser subscribing again), with that one's messages and log.
    async fn create_webhook(&self, webhook: &WebhookRecord) -> Result<(), StoreError>;
    /// The account's endpoints, oldest first.
    async fn webhooks_of(&self, account: Uuid) -> Result<Vec<WebhookRecord>, StoreError>;
    /// One endpoint.
    async fn webhook(&self, id: Uuid) -> Result<Option<WebhookRecord>, StoreError>;
    /// Writes every mutable field of an endpoint back: `false` if it is gone.
    async fn save_webhook(&self, webhook: &WebhookRecord) -> Result<bool, StoreError>;
    /// Deletes an endpoint with its messages: `false` if it was not there.
    async fn delete_webhook(&self, id: Uuid) -> Result<bool, StoreError>;
    /// Writes messages, skipping any whose id is already there (a fan-out run twice).
    async fn enqueue_messages(&self, messages: &[WebhookMessageRecord]) -> Result<(), StoreError>;
    /// Pending messages of enabled endpoints due by `by`, in the order they were made.
    async fn due_messages(
        &self,
        by: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<WebhookMessageRecord>, StoreError>;
    /// Records an attempt at message `id` of `webhook` and where the message stands after it.
    async fn record_attempt(
        &self,
        webhook: Uuid,
        id: &str,
        attempt: &AttemptRecord,
        state: MessageState,
        next_attempt: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Sets message `id` of `webhook` pending again, due at `at`, and returns it: `None` if
    /// the endpoint has no such message.
    async fn reschedule_message(
        &self,
        webhook: Uuid,
        id: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<WebhookMessageRecord>, StoreError>;
    /// Fails every pending message of `webhook` (it was disabled).
    async fn fail_pending(&self, webhook: Uuid) -> Result<(), StoreError>;
    /// The endpoint's messages before `before` (a `seq`), newest first, at most `limit`.
    async fn messages_of(
        &self,
        webhook: Uuid,
        before: Option<i64>,
        limit: u64,
    ) -> Result<Vec<WebhookMessageRecord>, StoreError>;
    /// Every attempt at message `id` of `webhook`, oldest first.
    async fn attempts_of(&self, webhook: Uuid, id: &str) -> Result<Vec<AttemptRecord>, StoreError>;
}

const WEBHOOK_COLUMNS: &str = "id, account_id, url, description, events, enabled, \
     disabled_reason, secret, previous_secret, previous_until, failing_since, created_at, kind, \
     CAST(token_id AS TEXT) AS token_id, verified_at";

const INSERT_WEBHOOK: &str = "INSERT INTO webhooks (id, account_id, url, description, events, \
     enabled, disabled_reason, secret, previous_secret, previous_until, failing_since, created_at, \
     kind, token_id, verified_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";

/// A push subscription made again (the same browser, perhaps signed in to another account):
/// the new one replaces the old, its queue and its log.
const DELETE_PUSH_ENDPOINT: &str = "DELETE FROM webhooks WHERE kind = 'push' AND url = $1";

const SAVE_WEBHOOK: &str = "UPDATE webhooks SET url = $2, description = $3, events = $4, \
     enabled = $5, disabled_reason = $6, secret = $7, previous_secret = $8, previous_until = $9, \
     failing_since = $10, verified_at = $11 WHERE id = $1";

const DELETE_WEBHOOK: &str = "DELETE FROM webhooks WHERE id = $1";

const MESSAGE_COLUMNS: &str =
    "id, seq, webhook_id, event_type, payload, created_at, state, attempts, next_attempt";

const DUE_MESSAGES: &str = "SELECT m.id, m.seq, m.webhook_id, m.event_type, m.payload, \
     m.created_at, m.state, m.attempts, m.next_attempt FROM webhook_messages m \
     JOIN webhooks w ON w.id = m.webhook_id \
     WHERE m.state = 'pending' AND m.next_attempt <= $1 AND w.enabled \
     ORDER BY m.seq LIMIT $2";

// A message is named by its endpoint and its id: the tables are keyed by `webhook_id` (Postgres
// migration 0013), so that they can be distributed by it (docs/distribution.md).
const RECORD_ATTEMPT: &str = "INSERT INTO webhook_attempts \
     (webhook_id, message_id, at, status, latency_ms, response) VALUES ($1, $2, $3, $4, $5, $6)";

const AFTER_ATTEMPT: &str = "UPDATE webhook_messages SET state = $3, next_attempt = $4, \
     attempts = attempts + 1 WHERE webhook_id = $1 AND id = $2";

const RESCHEDULE: &str = "UPDATE webhook_messages SET state = 'pending', next_attempt = $3 \
     WHERE webhook_id = $1 AND id = $2";

const FAIL_PENDING: &str =
    "UPDATE webhook_messages SET state = 'failed' WHERE webhook_id = $1 AND state = 'pending'";

const ENQUEUE_ONE: &str = "INSERT INTO webhook_messages (id, webhook_id, event_type, payload, \
     created_at, state, attempts, next_attempt) VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6) \
     ON CONFLICT (webhook_id, id) DO NOTHING";

const ENQUEUE_UNNEST: &str = "INSERT INTO webhook_messages (id, webhook_id, event_type, payload, \
     created_at, state, attempts, next_attempt) \
     SELECT id, webhook_id, event_type, payload, created_at, 'pending', 0, next_attempt \
     FROM UNNEST($1::text[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[], \
     $6::timestamptz[]) WITH ORDINALITY \
     AS m(id, webhook_id, event_type, payload, created_at, next_attempt, n) ORDER BY n \
     ON CONFLICT (webhook_id, id) DO NOTHING";

const ATTEMPTS_OF: &str = "SELECT at, status, latency_ms, response FROM webhook_attempts \
     WHERE webhook_id = $1 AND message_id = $2 ORDER BY id";

fn events_text(events: &[String]) -> String {
    serde_json::to_string(events).unwrap_or_else(|_| "[]".into())
}

fn webhook_from_row(row: &impl Columns) -> Result<WebhookRecord, StoreError> {
    let text = |name: &str| -> Result<String, StoreError> {
        row.text(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("webhook {name} is null")))
    };
    let events: Vec<String> = serde_json::from_str(&text("events")?)
        .map_err(|e| StoreError::Corrupt(format!("webhook events: {e}")))?;
    let previous_secret = match (
        row.text("previous_secret")?,
        row.maybe_time("previous_until")?,
    ) {
        (Some(secret), Some(until)) => Some((secret, until)),
        _ => None,
    };
    let failing_since = row.maybe_time("failing_since")?;
    let token = row
        .text("token_id")?
        .map(|text| {
            Uuid::parse_str(&text).map_err(|e| StoreError::Corrupt(format!("webhook token: {e}")))
        })
        .transpose()?;
    Ok(WebhookRecord {
        id: row.uuid("id")?,
        kind: EndpointKind::parse(&text("kind")?)?,
        token,
        account: row.uuid("account_id")?,
        url: text("url")?,
        description: text("description")?,
        events,
        enabled: row.flag("enabled")?.unwrap_or(false),
        disabled_reason: row.text("disabled_reason")?,
        secret: text("secret")?,
        previous_secret,
        failing_since,
        created_at: row.time("created_at")?,
        verified_at: row.maybe_time("verified_at")?,
    })
}

fn message_from_row(row: &impl Columns) -> Result<WebhookMessageRecord, StoreError> {
    let text = |name: &str| -> Result<String, StoreError> {
        row.text(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("webhook message {name} is null")))
    };
    Ok(WebhookMessageRecord {
        id: text("id")?,
        seq: row
            .int("seq")?
            .ok_or_else(|| StoreError::Corrupt("webhook message seq is null".into()))?,
        webhook: row.uuid("webhook_id")?,
        event_type: text("event_type")?,
        payload: text("payload")?,
        created_at: row.time("created_at")?,
        state: MessageState::parse(&text("state")?)?,
        attempts: u32::try_from(row.int("attempts")?.unwrap_or(0)).unwrap_or(u32::MAX),
        next_attempt: row.time("next_attempt")?,
    })
}

fn attempt_from_row(row: &impl Columns) -> Result<AttemptRecord, StoreError> {
    Ok(AttemptRecord {
        at: row.time("at")?,
        status: row.int("status")?.and_then(|s| u16::try_from(s).ok()),
        latency_ms: u64::try_from(row.int("latency_ms")?.unwrap_or(0)).unwrap_or(0),
        response: row.text("response")?.unwrap_or_default(),
    })
}

fn limit(limit: u64) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// The one body of [`WebhookStore`] for a backend: `$id` and `$time` turn a `Uuid` and a time
/// into what the backend binds; `$enqueue` writes a batch of messages, the one thing the two
/// do differently (Postgres in one statement, SQLite a row at a time in one transaction).
macro_rules! webhook_store {
    ($store:ty, $id:path, $time:path, $enqueue:path) => {
        #[async_trait]
        impl WebhookStore for $store {
            async fn create_webhook(&self, w: &WebhookRecord) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                if w.kind == EndpointKind::Push {
                    sqlx::query(DELETE_PUSH_ENDPOINT)
                        .bind(&w.url)
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query(INSERT_WEBHOOK)
                    .bind($id(w.id))
                    .bind($id(w.account))
                    .bind(&w.url)
                    .bind(&w.description)
                    .bind(events_text(&w.events))
                    .bind(w.enabled)
                    .bind(&w.disabled_reason)
                    .bind(&w.secret)
                    .bind(w.previous_secret.as_ref().map(|(s, _)| s.clone()))
                    .bind(w.previous_secret.as_ref().map(|(_, until)| $time(until)))
                    .bind(w.failing_since.as_ref().map($time))
                    .bind($time(&w.created_at))
                    .bind(w.kind.text())
                    .bind(w.token.map($id))
                    .bind(w.verified_at.as_ref().map($time))
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn webhooks_of(&self, account: Uuid) -> Result<Vec<WebhookRecord>, StoreError> {
                let sql = format!(
                    "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1 \
                     ORDER BY created_at, id"
                );
                let rows = sqlx::query(&sql)
                    .bind($id(account))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(webhook_from_row).collect()
            }

            async fn webhook(&self, id: Uuid) -> Result<Option<WebhookRecord>, StoreError> {
                let sql = format!("SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1");
                let row = sqlx::query(&sql)
                    .bind($id(id))
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(webhook_from_row).transpose()
            }

            async fn save_webhook(&self, w: &WebhookRecord) -> Result<bool, StoreError> {
                let done = sqlx::query(SAVE_WEBHOOK)
                    .bind($id(w.id))
                    .bind(&w.url)
                    .bind(&w.description)
                    .bind(events_text(&w.events))
                    .bind(w.enabled)
                    .bind(&w.disabled_reason)
                    .bind(&w.secret)
                    .bind(w.previous_secret.as_ref().map(|(s, _)| s.clone()))
                    .bind(w.previous_secret.as_ref().map(|(_, until)| $time(until)))
                    .bind(w.failing_since.as_ref().map($time))
                    .bind(w.verified_at.as_ref().map($time))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn delete_webhook(&self, id: Uuid) -> Result<bool, StoreError> {
                let done = sqlx::query(DELETE_WEBHOOK)
                    .bind($id(id))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn enqueue_messages(
                &self,
                messages: &[WebhookMessageRecord],
            ) -> Result<(), StoreError> {
                $enqueue(self, messages).await
            }

            async fn due_messages(
                &self,
                by: DateTime<Utc>,
                count: u64,
            ) -> Result<Vec<WebhookMessageRecord>, StoreError> {
                let rows = sqlx::query(DUE_MESSAGES)
                    .bind($time(&by))
                    .bind(limit(count))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(message_from_row).collect()
            }

            async fn record_attempt(
                &self,
                webhook: Uuid,
                id: &str,
                attempt: &AttemptRecord,
                state: MessageState,
                next_attempt: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query(RECORD_ATTEMPT)
                    .bind($id(webhook))
                    .bind(id)
                    .bind($time(&attempt.at))
                    .bind(attempt.status.map(i32::from))
                    .bind(i64::try_from(attempt.latency_ms).unwrap_or(i64::MAX))
                    .bind(&attempt.response)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(AFTER_ATTEMPT)
                    .bind($id(webhook))
                    .bind(id)
                    .bind(state.text())
                    .bind($time(&next_attempt))
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn reschedule_message(
                &self,
                webhook: Uuid,
                id: &str,
                at: DateTime<Utc>,
            ) -> Result<Option<WebhookMessageRecord>, StoreError> {
                let sql = format!("{RESCHEDULE} RETURNING {MESSAGE_COLUMNS}");
                let row = sqlx::query(&sql)
                    .bind($id(webhook))
                    .bind(id)
                    .bind($time(&at))
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(message_from_row).transpose()
            }

            async fn fail_pending(&self, webhook: Uuid) -> Result<(), StoreError> {
                sqlx::query(FAIL_PENDING)
                    .bind($id(webhook))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn messages_of(
                &self,
                webhook: Uuid,
                before: Option<i64>,
                count: u64,
            ) -> Result<Vec<WebhookMessageRecord>, StoreError> {
                let sql = format!(
                    "SELECT {MESSAGE_COLUMNS} FROM webhook_messages WHERE webhook_id = $1 \
                     AND seq < $2 ORDER BY seq DESC LIMIT $3"
                );
                let rows = sqlx::query(&sql)
                    .bind($id(webhook))
                    .bind(before.unwrap_or(i64::MAX))
                    .bind(limit(count))
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(message_from_row).collect()
            }

            async fn attempts_of(
                &self,
                webhook: Uuid,
                id: &str,
            ) -> Result<Vec<AttemptRecord>, StoreError> {
                let rows = sqlx::query(ATTEMPTS_OF)
                    .bind($id(webhook))
                    .bind(id)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(attempt_from_row).collect()
            }
        }
    };
}

/// SQLite has no arrays to unnest: one insert a message, in one transaction, in the order given
/// (so `seq` follows it).
async fn sqlite_enqueue(
    store: &SqliteStore,
    messages: &[WebhookMessageRecord],
) -> Result<(), StoreError> {
    let mut tx = store.pool.begin().await?;
    for m in messages {
        sqlx::query(ENQUEUE_ONE)
            .bind(&m.id)
            .bind(m.webhook.to_string())
            .bind(&m.event_type)
            .bind(&m.payload)
            .bind(time_text(&m.created_at))
            .bind(time_text(&m.next_attempt))
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Postgres takes the lot in one statement, in the order given (so `seq` follows it).
async fn pg_enqueue(
    store: &PostgresStore,
    messages: &[WebhookMessageRecord],
) -> Result<(), StoreError> {
    if messages.is_empty() {
        return Ok(());
    }
    let column = |part: fn(&WebhookMessageRecord) -> String| -> Vec<String> {
        messages.iter().map(part).collect()
    };
    sqlx::query(ENQUEUE_UNNEST)
        .bind(column(|m| m.id.clone()))
        .bind(messages.iter().map(|m| m.webhook).collect::<Vec<_>>())
        .bind(column(|m| m.event_type.clone()))
        .bind(column(|m| m.payload.clone()))
        .bind(messages.iter().map(|m| m.created_at).collect::<Vec<_>>())
        .bind(messages.iter().map(|m| m.next_attempt).collect::<Vec<_>>())
        .execute(&store.pool)
        .await?;
    Ok(())
}

webhook_store!(PostgresStore, rows::pg_id, rows::pg_time, pg_enqueue);
webhook_store!(SqliteStore, rows::sqlite_id, time_text, sqlite_enqueue);

bounded! {
    impl WebhookStore {
        write fn create_webhook(&self, webhook: &WebhookRecord) -> ();
        read fn webhooks_of(&self, account: Uuid) -> Vec<WebhookRecord>;
        read fn webhook(&self, id: Uuid) -> Option<WebhookRecord>;
        write fn save_webhook(&self, webhook: &WebhookRecord) -> bool;
        write fn delete_webhook(&self, id: Uuid) -> bool;
        write fn enqueue_messages(&self, messages: &[WebhookMessageRecord]) -> ();
        read fn due_messages(&self, by: DateTime<Utc>, count: u64) -> Vec<WebhookMessageRecord>;
        write fn record_attempt(&self, webhook: Uuid, id: &str, attempt: &AttemptRecord,
            state: MessageState, next_attempt: DateTime<Utc>) -> ();
        write fn reschedule_message(&self, webhook: Uuid, id: &str,
            at: DateTime<Utc>) -> Option<WebhookMessageRecord>;
        write fn fail_pending(&self, webhook: Uuid) -> ();
        read fn messages_of(&self, webhook: Uuid,
            before: Option<i64>, count: u64) -> Vec<WebhookMessageRecord>;
        read fn attempts_of(&self, webhook: Uuid, id: &str) -> Vec<AttemptRecord>;
    }
}

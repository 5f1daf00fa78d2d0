//! Stream tickets (`migrations/*/…_stream_tickets.sql`): what a browser's `EventSource`
//! presents instead of a token, kept as hashes only, used once, for a minute. Mutable rows,
//! never part of a game's log.
//!
//! Each statement is written once for both backends, as in `apps.rs`: the one body below is
//! instantiated for Postgres and for SQLite, which differ only in how a time is bound.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::rows::Columns;
use super::{conflict_or, time_text, Deadline, EventStore, PostgresStore, SqliteStore, StoreError};

/// Which kind of credential a ticket stands for: the table its hash is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketCredential {
    /// An account token (`account_tokens.token_hash`).
    Account,
    /// A seat's token, or a match token's credential for one deal (`seats.token_hash`).
    Seat,
}

impl TicketCredential {
    fn as_text(self) -> &'static str {
        match self {
            TicketCredential::Account => "account",
            TicketCredential::Seat => "seat",
        }
    }
}

/// A stream ticket as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamTicketRecord {
    /// Hex SHA-256 of the ticket.
    pub ticket_hash: String,
    /// The kind of credential it stands for.
    pub credential: TicketCredential,
    /// The hash that credential's own table keeps.
    pub credential_hash: String,
    /// The one stream it opens: `game:<id>` or `notices`.
    pub stream: String,
    /// Until when it opens it.
    pub expires_at: DateTime<Utc>,
}

/// Stream tickets: made, and spent.
#[async_trait]
pub trait TicketStore: Send + Sync {
    /// Keeps `ticket`, and forgets the tickets expired by `now`.
    async fn keep_stream_ticket(
        &self,
        ticket: &StreamTicketRecord,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Spends the ticket with this hash, if it opens `stream` and is unexpired at `now`: what
    /// it stood for. Deleting it is what spends it, so of two instances presented the same
    /// ticket at once only one gets it.
    async fn take_stream_ticket(
        &self,
        ticket_hash: &str,
        stream: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<StreamTicketRecord>, StoreError>;
}

const FORGET_EXPIRED: &str = "DELETE FROM stream_tickets WHERE expires_at <= $1";

const KEEP: &str = "INSERT INTO stream_tickets \
     (ticket_hash, credential, credential_hash, stream, expires_at) VALUES ($1, $2, $3, $4, $5)";

const TAKE: &str = "DELETE FROM stream_tickets \
     WHERE ticket_hash = $1 AND stream = $2 AND expires_at > $3 \
     RETURNING ticket_hash, credential, credential_hash, stream, expires_at";

fn ticket_from(row: &impl Columns) -> Result<StreamTicketRecord, StoreError> {
    let text = |name: &str| {
        row.text(name)?
            .ok_or_else(|| StoreError::Corrupt(format!("a stream ticket's {name} is null")))
    };
    let credential = match text("credential")?.as_str() {
        "account" => TicketCredential::Account,
        "seat" => TicketCredential::Seat,
        other => {
            return Err(StoreError::Corrupt(format!(
                "a stream ticket stands for an unknown kind of credential {other:?}"
            )))
        }
    };
    Ok(StreamTicketRecord {
        ticket_hash: text("ticket_hash")?,
        credential,
        credential_hash: text("credential_hash")?,
        stream: text("stream")?,
        expires_at: row.time("expires_at")?,
    })
}

/// The one body of [`TicketStore`] for a backend: `$time` turns a time into what the backend
/// binds.
macro_rules! ticket_store {
    ($store:ty, $time:path) => {
        #[async_trait]
        impl TicketStore for $store {
            async fn keep_stream_ticket(
                &self,
                ticket: &StreamTicketRecord,
                now: DateTime<Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query(FORGET_EXPIRED)
                    .bind($time(&now))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(KEEP)
                    .bind(&ticket.ticket_hash)
                    .bind(ticket.credential.as_text())
                    .bind(&ticket.credential_hash)
                    .bind(&ticket.stream)
                    .bind($time(&ticket.expires_at))
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                tx.commit().await?;
                Ok(())
            }

            async fn take_stream_ticket(
                &self,
                ticket_hash: &str,
                stream: &str,
                now: DateTime<Utc>,
            ) -> Result<Option<StreamTicketRecord>, StoreError> {
                let row = sqlx::query(TAKE)
                    .bind(ticket_hash)
                    .bind(stream)
                    .bind($time(&now))
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(ticket_from).transpose()
            }
        }
    };
}

ticket_store!(PostgresStore, super::rows::pg_time);
ticket_store!(SqliteStore, time_text);

bounded! {
    impl TicketStore {
        write fn keep_stream_ticket(&self, ticket: &StreamTicketRecord, now: DateTime<Utc>) -> ();
        write fn take_stream_ticket(&self, ticket_hash: &str, stream: &str, now: DateTime<Utc>)
            -> Option<StreamTicketRecord>;
    }
}

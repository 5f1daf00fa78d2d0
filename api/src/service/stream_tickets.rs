//! Stream tickets: how a browser's `EventSource`, which cannot send `Authorization`, follows a
//! game or an account without a long-lived token in a URL (URLs end up in logs, histories and
//! `Referer`s).
//!
//! A client that holds a token asks for a ticket (`POST /v1/games/{id}/stream/tickets`,
//! `POST /v1/me/stream/tickets`) and opens the stream with `?ticket=` instead. A ticket:
//! - opens the one stream it was made for, **once**, within [`STREAM_TICKET_LIFETIME`]: it is
//!   spent by deleting its row, so of two instances presented the same ticket only one opens a
//!   stream;
//! - stands for the credential that asked for it and no more: the stream it opens is checked
//!   again, when it opens, against that credential (so a token revoked meanwhile opens
//!   nothing), holds an account token as any stream does (so revoking the token ends it), and
//!   sees what that credential sees;
//! - is kept only as a hash, beside the hash the credential's own table keeps; neither the
//!   ticket nor the token is ever written to a log (`telemetry` redacts `ticket=`).

use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{random_bytes, token_hash, Clock, Result, ServiceError};
use crate::store::{StreamTicketRecord, TicketCredential, TicketStore};

/// What every stream ticket begins with.
pub const STREAM_TICKET_PREFIX: &str = "stkt_";
/// How long a ticket can open its stream: long enough for a page to hand it to `EventSource`.
pub const STREAM_TICKET_LIFETIME: Duration = Duration::from_secs(60);

/// The streams a ticket can open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketedStream {
    /// A game's views (`GET /v1/games/{id}/stream`).
    Game(Uuid),
    /// The account's notices (`GET /v1/me/stream`).
    Notices,
}

impl TicketedStream {
    /// How the store names the stream.
    fn key(self) -> String {
        match self {
            TicketedStream::Game(id) => format!("game:{id}"),
            TicketedStream::Notices => String::from("notices"),
        }
    }

    /// The stream's path.
    pub fn path(self) -> String {
        match self {
            TicketedStream::Game(id) => format!("/v1/games/{id}/stream"),
            TicketedStream::Notices => String::from("/v1/me/stream"),
        }
    }
}

/// A token as the store knows it: its kind and the hash its table keeps, never the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    /// Where its hash is looked up.
    pub kind: TicketCredential,
    /// The hash that table keeps.
    pub hash: String,
}

impl Credential {
    /// The credential `token` presents in `game`: an account token is itself; a match token
    /// stands for the credential its deal keeps (`matches::deal_credential`); any other is a
    /// seat's.
    pub fn presented(token: &str, game: Uuid) -> Credential {
        if token.starts_with(super::accounts::ACCOUNT_TOKEN_PREFIX) {
            Credential::account(token)
        } else if token.starts_with(super::matches::MATCH_TOKEN_PREFIX) {
            Credential {
                kind: TicketCredential::Seat,
                hash: super::matches::deal_credential(&token_hash(token), game),
            }
        } else {
            Credential {
                kind: TicketCredential::Seat,
                hash: token_hash(token),
            }
        }
    }

    /// An account token's credential.
    pub fn account(token: &str) -> Credential {
        Credential {
            kind: TicketCredential::Account,
            hash: token_hash(token),
        }
    }
}

/// A ticket just made: the secret, shown once.
#[derive(Debug, Clone)]
pub struct IssuedStreamTicket {
    /// The ticket (`stkt_…`).
    pub ticket: String,
    /// Until when it opens its stream.
    pub expires_at: DateTime<Utc>,
    /// The stream's path with the ticket in its query.
    pub url: String,
}

/// The stream tickets capability: what it needs, and nothing else (wired in
/// `Parlour::stream_tickets`).
pub struct StreamTickets<'a> {
    /// The tickets.
    store: &'a dyn TicketStore,
    /// When a ticket expires, and whether it has.
    clock: &'a dyn Clock,
}

impl<'a> StreamTickets<'a> {
    /// The capability over its parts.
    pub(super) fn new(store: &'a dyn TicketStore, clock: &'a dyn Clock) -> Self {
        StreamTickets { store, clock }
    }

    /// A ticket that opens `stream` once, for `credential`, which the caller has checked may
    /// open it.
    pub(super) async fn issue(
        &self,
        stream: TicketedStream,
        credential: &Credential,
    ) -> Result<IssuedStreamTicket> {
        let ticket = format!("{STREAM_TICKET_PREFIX}{}", hex::encode(random_bytes()?));
        let now = self.clock.recorded_now();
        let lifetime =
            chrono::Duration::from_std(STREAM_TICKET_LIFETIME).unwrap_or(chrono::Duration::MAX);
        let expires_at = now + lifetime;
        let record = StreamTicketRecord {
            ticket_hash: token_hash(&ticket),
            credential: credential.kind,
            credential_hash: credential.hash.clone(),
            stream: stream.key(),
            expires_at,
        };
        self.store.keep_stream_ticket(&record, now).await?;
        let url = format!("{}?ticket={ticket}", stream.path());
        Ok(IssuedStreamTicket {
            ticket,
            expires_at,
            url,
        })
    }

    /// Spends `ticket` on `stream`: the credential it stands for. Unknown, spent, expired and
    /// another stream's tickets are refused alike, and only a ticket that opens this stream is
    /// spent.
    pub async fn redeem(&self, stream: TicketedStream, ticket: &str) -> Result<Credential> {
        let refused = ServiceError::Unauthorized(
            "this stream ticket is unknown, spent, expired, or for another stream; ask for a new \
             one (a ticket opens one stream, once, within a minute)",
        );
        if !ticket.starts_with(STREAM_TICKET_PREFIX) {
            return Err(refused);
        }
        let now = self.clock.recorded_now();
        match self
            .store
            .take_stream_ticket(&token_hash(ticket), &stream.key(), now)
            .await?
        {
            Some(found) => Ok(Credential {
                kind: found.credential,
                hash: found.credential_hash,
            }),
            None => Err(refused),
        }
    }
}

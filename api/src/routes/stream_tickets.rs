//! Stream tickets: a token traded for a one-use, one-minute ticket that a browser's
//! `EventSource` puts in the stream's URL (`service::stream_tickets`), and how a stream is
//! opened with one or with `Authorization`.

use actix_web::http::header;
use actix_web::{post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use super::{game_id, Bearer};
use crate::dto::StreamTicket;
use crate::error::{ApiError, Problem};
use crate::limits::{StreamGate, StreamPermit};
use crate::service::{Credential, IssuedStreamTicket, Parlour, TicketedStream};

const PROBLEM: &str = "application/problem+json";

/// How a stream may be opened without `Authorization` (documented as the `stream_ticket`
/// security scheme, an API key in the query, rather than as a parameter).
#[derive(Debug, Deserialize)]
pub struct StreamQuery {
    /// A stream ticket (`POST …/stream/tickets`) in place of `Authorization`: it opens this
    /// stream once, within a minute of being made, as the token that asked for it.
    pub ticket: Option<String>,
}

/// How the notices stream may be opened without `Authorization`, and where it goes on from
/// when a new `EventSource` (which cannot set `Last-Event-ID`) opens it.
#[derive(Debug, Deserialize, IntoParams)]
pub struct NoticeStreamQuery {
    /// Documented as the `stream_ticket` security scheme, not as a parameter.
    #[param(ignore)]
    pub ticket: Option<String>,
    /// The id of the last notice received, as `Last-Event-ID` would say it (which wins when
    /// both are sent): the stream goes on just after it.
    #[param(example = "0-1234", pattern = "^[0-9]{1,20}-[0-9]{1,20}$")]
    pub cursor: Option<String>,
}

/// What a stream is opened with.
pub(super) enum Opener {
    /// `Authorization: Bearer <token>`, or nothing (a spectator).
    Bearer(Option<String>),
    /// `?ticket=`.
    Ticket(String),
}

impl Opener {
    /// The request's way in: a ticket or a token, not both.
    pub(super) fn of(bearer: Bearer, ticket: Option<String>) -> Result<Opener, ApiError> {
        match (bearer.0, ticket) {
            (Some(_), Some(_)) => Err(ApiError::new(
                Problem::MalformedRequest,
                "send a stream ticket (`?ticket=`) or `Authorization`, not both",
            )),
            (None, Some(ticket)) => Ok(Opener::Ticket(ticket)),
            (bearer, None) => Ok(Opener::Bearer(bearer)),
        }
    }
}

/// The address a stream is counted against: the peer's, not a forwarded-for header, which
/// any client could set.
pub(super) fn client_of(req: &HttpRequest) -> std::net::IpAddr {
    req.peer_addr()
        .map(|addr| addr.ip())
        .unwrap_or(std::net::IpAddr::from([0, 0, 0, 0]))
}

/// Takes a stream's slot for `credential` (counted by its hash, so a token and the tickets
/// it asked for share one count) and `client`.
pub(super) fn admit(
    gate: &StreamGate,
    credential: Option<&Credential>,
    client: std::net::IpAddr,
) -> Result<StreamPermit, ApiError> {
    Ok(gate.admit(credential.map(|c| c.hash.as_str()), client)?)
}

fn answer(issued: IssuedStreamTicket) -> HttpResponse {
    HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(StreamTicket {
            ticket: issued.ticket,
            expires_at: issued.expires_at,
            url: issued.url,
        })
}

/// Ask for a ticket to stream a game
///
/// A ticket that opens `GET /v1/games/{id}/stream?ticket=…` once, within 60 seconds, as the
/// token this request carries: for a browser's `EventSource`, which cannot send
/// `Authorization`, so that no long-lived token is put in a URL. The stream checks the token
/// again when it opens, holds it as any stream does (revoking an account token ends the
/// stream) and sees what the token sees. A spectator needs no ticket.
#[utoipa::path(tag = "games", operation_id = "createGameStreamTicket",
    params(("id" = String, Path, description = "Game id")),
    security(("seat_token" = []), ("account_token" = ["games:read"])),
    responses(
        (status = 201, description = "The ticket, shown once", body = StreamTicket,
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 401, description = "No token (a spectator needs no ticket), or an unknown or revoked one", content_type = PROBLEM),
        (status = 403, description = "A seat token of another game (`wrong-game`), or an account token without `games:read` (`insufficient-scope`)", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 429, description = "Too many requests", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/games/{id}/stream/tickets")]
pub async fn for_game(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    let issued = service
        .issue_stream_ticket(TicketedStream::Game(id), bearer.0.as_deref())
        .await?;
    Ok(answer(issued))
}

/// Ask for a ticket to stream my notices
///
/// A ticket that opens `GET /v1/me/stream?ticket=…` once, within 60 seconds, as the account
/// token this request carries (it must hold `games:read`): for a browser's `EventSource`,
/// which cannot send `Authorization`. The stream checks the token again when it opens, and
/// revoking the token ends it.
#[utoipa::path(tag = "tables", operation_id = "createNoticeStreamTicket",
    security(("account_token" = ["games:read"])),
    responses(
        (status = 201, description = "The ticket, shown once", body = StreamTicket,
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 403, description = "The token does not hold `games:read` (`insufficient-scope`)", content_type = PROBLEM),
        (status = 429, description = "Too many requests", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/me/stream/tickets")]
pub async fn for_notices(
    service: web::Data<Parlour>,
    bearer: Bearer,
) -> Result<HttpResponse, ApiError> {
    let issued = service
        .issue_stream_ticket(TicketedStream::Notices, bearer.0.as_deref())
        .await?;
    Ok(answer(issued))
}

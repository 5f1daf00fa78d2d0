//! Games hosted by accounts: create one with its seats, claim a seat, offer or withdraw a
//! seat, abort, resign; and the account's inbox, its stream of notices and their long-poll.

use std::time::Duration;

use actix_web::http::header;
use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use super::accounts::{for_the_caller, object_body};
use super::games::{whole_seconds, whole_seconds_schema, HEARTBEAT};
use super::stream_tickets::{admit, client_of, NoticeStreamQuery, Opener};
use super::{game_id, paging, Bearer};
use crate::bus::Bus;
use crate::dto::{
    GameView, HostedGame, HostedSeat, Inbox, NewHostedGame, NoticePage, SeatClaim, SeatOffer,
    Status, TestClockAdvance, TestClockAdvanced,
};
use crate::error::{ApiError, Problem};
use crate::limits::StreamGate;
use crate::scopes::Scope;
use crate::service::{
    parse_cursor, AccountUpdate, BusFeed, Credential, InboxQuery as InboxAsked, Parlour,
    TicketedStream, MAX_WAIT_SECONDS,
};
use crate::store::FeedCursor;

const PROBLEM: &str = "application/problem+json";

/// A seat number from the path; one that is no seat is no resource.
pub(super) fn seat_number(raw: &str) -> Result<u8, ApiError> {
    raw.parse::<u8>()
        .map_err(|_| ApiError::new(Problem::NotFound, format!("there is no seat {raw:?}")))
}

/// Host a game
///
/// Creates a game hosted by the caller's account. Each seat is the host's own, held for a
/// named account, offered by invitation (its code is in this answer only) or open to anyone.
/// The game waits for players until every seat is taken, then begins.
#[utoipa::path(tag = "tables", operation_id = "hostGame", request_body = NewHostedGame,
    security(("account_token" = ["games:host"])),
    responses(
        (status = 201, body = HostedGame, description = "Created: the game and its seats, with each invitation's code (shown only here)",
            headers(("Location" = String, description = "The game: `/v1/games/{id}`"),
                ("Cache-Control" = String, description = "`no-store`: the answer holds invitation codes"))),
        (status = 400, description = "Malformed body or seed", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 422, description = "Unknown game, wrong number of seats, bad options, an account named twice or not at all (`invalid-setup`), or `test_clock` on a server not in sandbox mode (`sandbox-off`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering: nothing was created", content_type = PROBLEM),
    ))]
#[post("/v1/me/games")]
pub async fn host(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesHost)
        .await?;
    let request: NewHostedGame = object_body(body.into_inner())?;
    let hosted = service.host_game(&caller, request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created())
        .insert_header((header::LOCATION, format!("/v1/games/{}", hosted.id)))
        .json(hosted))
}

/// Which of my games to list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct InboxQuery {
    /// Only games in this state.
    #[param(inline)]
    pub status: Option<Status>,
    /// Only games of this catalogue id.
    #[param(example = "girl", max_length = 64, pattern = "^[a-z0-9_-]+$")]
    pub game: Option<String>,
    /// A page's `next`: the finished games after it (and only those).
    #[param(format = Uuid)]
    pub cursor: Option<String>,
    /// At most this many finished games (default 20; 1 to 100). The games not over are
    /// always listed whole, on the first page.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
}

/// List my games (the inbox)
///
/// My games: those where I must act first, most urgent deadline first; then those where
/// others must; then games waiting for players (and seats held for me); then finished ones,
/// newest first, `limit` at a time (follow `next`). Each row says what is asked of me now and
/// by when. The games not over are read apart from the finished ones, so a long history
/// costs nothing here.
#[utoipa::path(tag = "tables", operation_id = "getMyGames",
    params(InboxQuery),
    security(("account_token" = ["games:read"])),
    responses(
        (status = 200, body = Inbox, description = "The account's games, most urgent first",
            headers(("Cache-Control" = String, description = "`no-store`"),
                ("Vary" = String, description = "`Authorization`"),
                ("Link" = String, description = "`<…?cursor=…&limit=…>; rel=\"next\"` while there is a next page (its cursor is `next`)"))),
        (status = 400, description = "Malformed query, `cursor` or `limit`", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/games")]
pub async fn inbox(
    service: web::Data<Parlour>,
    request: HttpRequest,
    bearer: Bearer,
    query: web::Query<InboxQuery>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesRead)
        .await?;
    let query = query.into_inner();
    paging::game_filter(query.game.as_deref())?;
    let limit = paging::limit(query.limit, 20, 100)?;
    let cursor = paging::id_cursor(query.cursor.as_deref())?;
    let inbox = service
        .inbox(
            &caller,
            InboxAsked {
                status: query.status,
                game: query.game.as_deref(),
                cursor,
                limit,
            },
        )
        .await?;
    let mut response = HttpResponse::Ok();
    paging::link_next(&mut response, &request, inbox.next.as_deref());
    Ok(for_the_caller(&mut response).json(inbox))
}

/// Claim a seat
///
/// Claims an empty seat for the caller's account: one held for it, one open to anyone, or one
/// offered by invitation, with the invitation's code. A seat is claimed once: of two claims at
/// the same time, one sits down and the other is told the seat is taken.
#[utoipa::path(tag = "tables", operation_id = "claimSeat", request_body = SeatClaim,
    params(("id" = String, Path, description = "Game id"), ("seat" = u8, Path, description = "Seat number")),
    security(("account_token" = ["games:play"])),
    responses(
        (status = 200, body = GameView, description = "Seated: the game as the new player sees it"),
        (status = 400, description = "Malformed body", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 403, description = "The seat is not offered to this account: held for another, withdrawn, or the code is wrong (`not-invited`)", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`) or seat (`not-found`)", content_type = PROBLEM),
        (status = 409, description = "The seat is taken, or the account already plays another seat (`seat-taken`); the game was not created by an account, or is over (`seating-closed`, `not-your-move`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/games/{id}/seats/{seat}/claim")]
pub async fn claim(
    service: web::Data<Parlour>,
    bearer: Bearer,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesPlay)
        .await?;
    let id = game_id(&path.0)?;
    let seat = seat_number(&path.1)?;
    let request: SeatClaim = object_body(body.into_inner())?;
    let view = service
        .claim_seat(&caller, id, seat, request.code.as_deref())
        .await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(view))
}

/// Offer a seat
///
/// Offers an empty seat of a waiting game anew: by a new invitation (the old code stops
/// working), to a named account, or to anyone. Only the host may.
#[utoipa::path(tag = "tables", operation_id = "offerSeat", request_body = SeatOffer,
    params(("id" = String, Path, description = "Game id"), ("seat" = u8, Path, description = "Seat number")),
    security(("account_token" = ["games:host"])),
    responses(
        (status = 200, body = HostedSeat, description = "Offered; an invitation's code is in this answer only",
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 400, description = "Malformed body", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 403, description = "The caller is not the game's host (`not-host`)", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`) or seat (`not-found`)", content_type = PROBLEM),
        (status = 409, description = "The seat is taken (`seat-taken`), or the game has begun or was not created by an account (`seating-closed`)", content_type = PROBLEM),
        (status = 422, description = "An account that does not exist, or `me` (`invalid-setup`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[put("/v1/games/{id}/seats/{seat}/offer")]
pub async fn offer(
    service: web::Data<Parlour>,
    bearer: Bearer,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesHost)
        .await?;
    let id = game_id(&path.0)?;
    let seat = seat_number(&path.1)?;
    let request: SeatOffer = object_body(body.into_inner())?;
    let hosted = service.offer_seat(&caller, id, seat, request.to).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(hosted))
}

/// Withdraw a seat's offer
///
/// Withdraws an empty seat's offer, revoking its invitation: nobody can claim the seat until
/// it is offered again. Only the host may.
#[utoipa::path(tag = "tables", operation_id = "withdrawSeatOffer",
    params(("id" = String, Path, description = "Game id"), ("seat" = u8, Path, description = "Seat number")),
    security(("account_token" = ["games:host"])),
    responses(
        (status = 204, description = "Withdrawn"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 403, description = "The caller is not the game's host (`not-host`), or the seat has no offer to withdraw (`not-invited`)", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`) or seat (`not-found`)", content_type = PROBLEM),
        (status = 409, description = "The seat is taken (`seat-taken`), or the game has begun or was not created by an account (`seating-closed`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/games/{id}/seats/{seat}/offer")]
pub async fn withdraw(
    service: web::Data<Parlour>,
    bearer: Bearer,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesHost)
        .await?;
    let id = game_id(&path.0)?;
    let seat = seat_number(&path.1)?;
    service.withdraw_offer(&caller, id, seat).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Call off a waiting game
///
/// Calls a hosted game off while it waits for players: it ends with no result. Only the host
/// may; once the last seat is taken the cards are dealt and the game can only be resigned.
#[utoipa::path(tag = "tables", operation_id = "abortGame",
    params(("id" = String, Path, description = "Game id")),
    security(("account_token" = ["games:host"])),
    responses(
        (status = 204, description = "Aborted"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 403, description = "The caller is not the game's host (`not-host`)", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 409, description = "Every seat is taken, so the game has begun (`seating-closed`), or the game was not created by an account (`seating-closed`), or it is over (`not-your-move`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/games/{id}/abort")]
pub async fn abort(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesHost)
        .await?;
    let id = game_id(&id)?;
    service.abort_game(&caller, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Advance a game's test clock
///
/// Only on a server started in sandbox mode, for a game created with `test_clock: true`:
/// moves the game's time on by `seconds`, then records at once what that made due, through
/// the same sweep, log entries (`table.test_clock_advanced`, `table.reminded`,
/// `table.timed_out`), notices and webhooks (`deadline_near`, `timed_out`) as real time would.
/// Only the host may. See `docs/sandbox.md`.
#[utoipa::path(tag = "tables", operation_id = "advanceTestClock", request_body = TestClockAdvance,
    params(("id" = String, Path, description = "Game id")),
    security(("account_token" = ["games:host"])),
    responses(
        (status = 200, body = TestClockAdvanced, description = "The game's clock after the jump, and what it made due (already recorded)"),
        (status = 400, description = "Malformed body, or `seconds` out of range (`malformed-request`)", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 403, description = "The caller is not the game's host (`not-host`)", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 409, description = "The game is not on a test clock (`no-test-clock`), was not created by an account (`seating-closed`), or is over (`not-your-move`)", content_type = PROBLEM),
        (status = 422, description = "The server is not in sandbox mode (`sandbox-off`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/games/{id}/test-clock/advance")]
pub async fn advance_test_clock(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesHost)
        .await?;
    let id = game_id(&id)?;
    let request: TestClockAdvance = object_body(body.into_inner())?;
    let advanced = service.advance_test_clock(&caller, id, request).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(advanced))
}

/// Resign
///
/// Resigns the caller's seat: the game ends for everyone, with the result the game's rules
/// document gives a resignation. Any seat may resign at any time while the game is active.
#[utoipa::path(tag = "tables", operation_id = "resign",
    params(("id" = String, Path, description = "Game id")),
    security(("seat_token" = []), ("account_token" = ["games:play"])),
    responses(
        (status = 200, body = GameView, description = "Resigned: the finished game as the seat sees it"),
        (status = 401, description = "No token, or one that holds no seat of this game", content_type = PROBLEM),
        (status = 403, description = "Token of another game", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 409, description = "The game is over (`not-your-move`), or still waiting for players (`seating-closed`: its host aborts it instead)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/games/{id}/resign")]
pub async fn resign(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&id)?;
    let caller = service
        .authenticate(id, bearer.0.as_deref(), Scope::GamesPlay)
        .await?;
    let view = service.resign(id, caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(view))
}

/// `Last-Event-ID` or `after`: a notice id, read back as a place in the feed.
fn notice_id(text: &str, what: &str) -> Result<FeedCursor, ApiError> {
    parse_cursor(text).ok_or_else(|| {
        ApiError::new(
            Problem::MalformedRequest,
            format!("{what} must be a notice id as the server gave it, like \"0-1234\""),
        )
    })
}

/// Stream my notices
///
/// Every notice of the caller's account as server-sent events: it is your move, a seat is
/// held for you, a seat was claimed, a game began or ended, each with the game's inbox row.
/// Each event's `id:` is the commit's place in the feed: reconnect with `Last-Event-ID` to be
/// given exactly the events after it, nothing missed and nothing twice. A comment line every
/// 15 s keeps the connection alive.
#[utoipa::path(tag = "tables", operation_id = "streamMyNotices",
    params(("Last-Event-ID" = Option<String>, Header, pattern = "^[0-9]{1,20}-[0-9]{1,20}$", description = "The id of the last event received: the stream goes on just after it"), NoticeStreamQuery),
    security(("account_token" = ["games:read"]), ("stream_ticket" = [])),
    responses(
        (status = 200, description = "`text/event-stream` of `event: notice` messages whose `data` is a Notice", content_type = "text/event-stream",
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 400, description = "Malformed Last-Event-ID, or one beyond the end of the feed, or both a ticket and `Authorization`", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, a seat token, or a ticket unknown, spent, expired or for another stream", content_type = PROBLEM),
        (status = 403, description = "The token does not hold `games:read` (`insufficient-scope`)", content_type = PROBLEM),
        (status = 429, description = "Too many requests, or this token or client address has too many streams open (`too-many-streams`)", content_type = PROBLEM),
        (status = 503, description = "The server holds all the streams it can (`at-capacity`), or the database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/stream")]
pub async fn stream(
    service: web::Data<Parlour>,
    bus: web::Data<Bus>,
    gate: web::Data<StreamGate>,
    bearer: Bearer,
    query: web::Query<NoticeStreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    use futures_util::StreamExt;
    let client = client_of(&req);
    let NoticeStreamQuery { ticket, cursor } = query.into_inner();
    let (permit, caller) = match Opener::of(bearer, ticket)? {
        Opener::Bearer(token) => {
            let credential = token.as_deref().map(Credential::account);
            let permit = admit(&gate, credential.as_ref(), client)?;
            let caller = service
                .accounts()
                .authenticate(token.as_deref(), Scope::GamesRead)
                .await?;
            (permit, caller)
        }
        Opener::Ticket(ticket) => {
            let credential = service
                .stream_tickets()
                .redeem(TicketedStream::Notices, &ticket)
                .await?;
            let permit = admit(&gate, Some(&credential), client)?;
            let caller = service
                .accounts()
                .authenticate_hash(&credential.hash)
                .await?;
            caller.require(Scope::GamesRead)?;
            (permit, caller)
        }
    };
    let after = match (req.headers().get("last-event-id"), cursor) {
        (None, None) => None,
        (Some(value), _) => {
            let text = value.to_str().map_err(|_| {
                ApiError::new(Problem::MalformedRequest, "Last-Event-ID must be ASCII")
            })?;
            Some(notice_id(text, "Last-Event-ID")?)
        }
        (None, Some(cursor)) => Some(notice_id(&cursor, "cursor")?),
    };
    // Subscribed before the feed is read, so no commit falls between the two.
    let feed = BusFeed {
        commits: bus.subscribe(),
        reached: bus.reached(),
    };
    let updates = service
        .into_inner()
        .account_updates(&caller, after, feed, HEARTBEAT)
        .await?;
    let messages = updates.map(move |update| {
        let _slot = &permit;
        let text = match update {
            AccountUpdate::Notice(notice) => match serde_json::to_string(&notice) {
                Ok(json) => format!("event: notice\nid: {}\ndata: {json}\n\n", notice.id),
                Err(_) => String::from(": a notice could not be written\n\n"),
            },
            AccountUpdate::KeepAlive => String::from(": keep-alive\n\n"),
        };
        Ok::<_, actix_web::Error>(web::Bytes::from(text))
    });
    Ok(for_the_caller(&mut HttpResponse::Ok())
        .content_type("text/event-stream")
        .streaming(messages))
}

/// `wait`'s schema on `GET /v1/me/notices`.
fn notice_wait() -> utoipa::openapi::Object {
    whole_seconds_schema(
        "Wait up to this many seconds for a notice when there is none yet; the longest wait is \
         60 seconds, and a larger number counts as 60. Left out: answer at once.",
    )
}

/// Where to read notices from, and how long to wait for one.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct NoticeQuery {
    /// A page's `next` (or a notice id): the notices after it. Left out: from now on.
    #[param(example = "0-1234", pattern = "^[0-9]{1,20}-[0-9]{1,20}$")]
    pub cursor: Option<String>,
    /// At most this many notices (default 100; 1 to 500).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u64>,
    /// The same as `cursor`, by its older name.
    #[param(example = "0-1234", pattern = "^[0-9]{1,20}-[0-9]{1,20}$")]
    pub after: Option<String>,
    /// Wait up to this many seconds (at most 60) for a notice when there is none yet.
    #[serde(default, deserialize_with = "whole_seconds")]
    #[param(schema_with = notice_wait)]
    pub wait: Option<u64>,
}

/// Wait for my notices
///
/// The long-poll twin of `GET /v1/me/stream`: the notices after `cursor`, waiting up to `wait`
/// seconds for the first when there is none yet. Send the page's `next` as `cursor` next time:
/// a feed has no last page, so `next` and the `Link` header are always there.
#[utoipa::path(tag = "tables", operation_id = "getMyNotices",
    params(NoticeQuery),
    security(("account_token" = ["games:read"])),
    responses(
        (status = 200, body = NoticePage, description = "The notices after `cursor`, oldest first (none if none came in time)",
            headers(("Cache-Control" = String, description = "`no-store`"),
                ("Link" = String, description = "`<…?cursor=…&limit=…>; rel=\"next\"`: the next page of the feed (its cursor is `next`)"))),
        (status = 400, description = "Malformed `cursor`, `limit` or `wait`, or a `cursor` beyond the end of the feed", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/notices")]
pub async fn notices(
    service: web::Data<Parlour>,
    request: HttpRequest,
    bus: web::Data<Bus>,
    bearer: Bearer,
    query: web::Query<NoticeQuery>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesRead)
        .await?;
    let query = query.into_inner();
    let limit = paging::limit(query.limit, 100, 500)?;
    let after = match paging::cursor(query.cursor.as_deref(), query.after.as_deref()) {
        Some(text) => Some(notice_id(text, "cursor")?),
        None => None,
    };
    let wait = Duration::from_secs(query.wait.unwrap_or(0).min(MAX_WAIT_SECONDS));
    let feed = BusFeed {
        commits: bus.subscribe(),
        reached: bus.reached(),
    };
    let page = service
        .into_inner()
        .notices_after(&caller, after, feed, wait, limit)
        .await?;
    let mut response = HttpResponse::Ok();
    paging::link_next(&mut response, &request, Some(&page.next));
    Ok(for_the_caller(&mut response).json(page))
}

//! Open tables: the listed games anyone may join, and joining one (`service::tables`).

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use super::accounts::for_the_caller;
use super::{game_id, paging, Bearer};
use crate::dto::{ClockKind, GameView, OpenTables};
use crate::error::{ApiError, Problem};
use crate::scopes::Scope;
use crate::service::tables::TablesQuery as Asked;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// Which open tables to list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TablesQuery {
    /// Only tables of this catalogue id.
    #[param(example = "girl", max_length = 64, pattern = "^[a-z0-9_-]+$")]
    pub game: Option<String>,
    /// Only tables of this many seats (1 to 8).
    #[param(minimum = 1, maximum = 8)]
    pub players: Option<u8>,
    /// Only tables with this kind of move clock.
    #[param(inline)]
    pub clock: Option<ClockKind>,
    /// A page's `next`: the tables listed before it.
    #[param(format = Uuid)]
    pub cursor: Option<String>,
    /// At most this many tables (default 20; 1 to 100).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
}

/// List the open tables
///
/// The games their hosts listed for anyone to join, newest first: each waits for players,
/// has a seat open to anyone and is listed until a time still to come (`listed_until`). A
/// table leaves the list when its game begins, when it is aborted, or when its listing ends.
/// No token is needed. Follow `next` for more: a page may hold fewer than `limit` tables and
/// still have a next one.
#[utoipa::path(tag = "tables", operation_id = "listOpenTables",
    params(TablesQuery),
    responses(
        (status = 200, body = OpenTables, description = "Open tables, newest first",
            headers(("Cache-Control" = String, description = "`no-store`"),
                ("Link" = String, description = "`<…?cursor=…&limit=…>; rel=\"next\"` while there is a next page (its cursor is `next`)"))),
        (status = 400, description = "Malformed query, `cursor` or `limit`", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/tables")]
pub async fn list(
    service: web::Data<Parlour>,
    request: HttpRequest,
    query: web::Query<TablesQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    paging::game_filter(query.game.as_deref())?;
    if query
        .players
        .is_some_and(|players| !(1..=8).contains(&players))
    {
        return Err(ApiError::new(
            Problem::MalformedRequest,
            "`players` must be between 1 and 8",
        ));
    }
    let limit = paging::limit(query.limit, 20, 100)?;
    let cursor = paging::id_cursor(query.cursor.as_deref())?;
    let tables = service
        .tables()
        .list(Asked {
            game: query.game.as_deref(),
            players: query.players,
            clock: query.clock,
            cursor,
            limit: usize::try_from(limit).unwrap_or(100),
        })
        .await?;
    let mut response = HttpResponse::Ok();
    paging::link_next(&mut response, &request, tables.next.as_deref());
    Ok(response
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(tables))
}

/// Join a table
///
/// Takes the first seat of the game open to anyone for the caller's account, exactly as
/// claiming that seat would (`claimSeat`): any table with such a seat may be joined, listed
/// or not. Of two joins at once, the second takes the next open seat, or is told that none is
/// left.
#[utoipa::path(tag = "tables", operation_id = "joinGame",
    params(("id" = String, Path, description = "Game id")),
    security(("account_token" = ["games:play"])),
    responses(
        (status = 200, body = GameView, description = "Seated: the game as the new player sees it"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 403, description = "The token does not hold `games:play` (`insufficient-scope`)", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`)", content_type = PROBLEM),
        (status = 409, description = "No seat is open to anyone, or the account already plays a seat of this game (`seat-taken`); the game was not created by an account, has begun or is over (`seating-closed`, `not-your-move`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/games/{id}/join")]
pub async fn join(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::GamesPlay)
        .await?;
    let id = game_id(&id)?;
    let view = service.tables().join(&caller, id).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(view))
}

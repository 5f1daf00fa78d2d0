//! Bots in seats: hand a seat to a bot, take it back.

use actix_web::{delete, put, web, HttpResponse};
use serde_json::Value;

use super::accounts::{for_the_caller, object_body};
use super::seating::seat_number;
use super::{game_id, Bearer};
use crate::dto::{GameView, SeatBot};
use crate::error::ApiError;
use crate::scopes::Scope;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// Hand a seat to a bot
///
/// Hands a seat to a bot, which plays it from the next move on (`docs/bots.md`): the seat's
/// player may hand over their own seat at any time (its token, or the account that holds it),
/// and the host of a game still waiting for players may fill an empty seat with one (with an
/// account token that holds `games:host` as well as `games:play`). Every
/// move the bot makes is logged under the seat, after a `table.bot_seated` entry naming it.
#[utoipa::path(tag = "bots", operation_id = "handSeatToBot", request_body = SeatBot,
    params(("id" = String, Path, description = "Game id"), ("seat" = u8, Path, description = "Seat number")),
    security(("seat_token" = []), ("account_token" = ["games:play"])),
    responses(
        (status = 200, body = GameView, description = "Handed over: the game as the caller sees it"),
        (status = 400, description = "Malformed body", content_type = PROBLEM),
        (status = 401, description = "An unknown token", content_type = PROBLEM),
        (status = 403, description = "Neither the seat's player nor the host filling an empty seat (`not-your-seat`, `not-host`), or a token of another game", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`) or seat (`not-found`)", content_type = PROBLEM),
        (status = 409, description = "A bot already plays the seat (`bot-seat`), or the game is over (`not-your-move`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[put("/v1/games/{id}/seats/{seat}/bot")]
pub async fn hand_over(
    service: web::Data<Parlour>,
    bearer: Bearer,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path.0)?;
    let seat = seat_number(&path.1)?;
    // Who is asking first: a token without the scope is refused whatever the body says.
    let caller = service
        .authenticate(id, bearer.0.as_deref(), Scope::GamesPlay)
        .await?;
    let request: SeatBot = object_body(body.into_inner())?;
    let view = service
        .hand_to_bot(id, caller, bearer.0.as_deref(), seat, request.level)
        .await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(view))
}

/// Take a seat back from its bot
///
/// Takes a seat back from its bot: the seat's player moves in it again from now on, with
/// their clock running (a clock that had run out starts afresh).
#[utoipa::path(tag = "bots", operation_id = "takeSeatBack",
    params(("id" = String, Path, description = "Game id"), ("seat" = u8, Path, description = "Seat number")),
    security(("seat_token" = []), ("account_token" = ["games:play"])),
    responses(
        (status = 200, body = GameView, description = "Taken back: the game as the seat sees it"),
        (status = 401, description = "An unknown token", content_type = PROBLEM),
        (status = 403, description = "Not the seat's player (`not-your-seat`), or a token of another game", content_type = PROBLEM),
        (status = 404, description = "No such game (`game-not-found`) or seat (`not-found`)", content_type = PROBLEM),
        (status = 409, description = "No bot plays the seat, or it has been a bot's from the start (`bot-seat`), or the game is over (`not-your-move`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/games/{id}/seats/{seat}/bot")]
pub async fn take_back(
    service: web::Data<Parlour>,
    bearer: Bearer,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(&path.0)?;
    let seat = seat_number(&path.1)?;
    let caller = service
        .authenticate(id, bearer.0.as_deref(), Scope::GamesPlay)
        .await?;
    let view = service.take_back_from_bot(id, caller, seat).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(view))
}

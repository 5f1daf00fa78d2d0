//! Matches: create one, follow its standings, audit every deal in it.

use actix_web::http::header;
use actix_web::{get, post, web, HttpResponse};
use serde_json::Value;
use uuid::Uuid;

use super::accounts::object_body;
use super::Bearer;
use crate::dto::{CreatedMatch, MatchAudit, MatchView, NewMatch};
use crate::error::{ApiError, Problem};
use crate::scopes::Scope;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// A match id from the path; anything that is not a UUID names no match.
fn match_id(raw: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(raw)
        .map_err(|_| ApiError::new(Problem::NotFound, format!("there is no match {raw:?}")))
}

/// Create a match
///
/// Creates a match and deals its first game. The next deal starts when one ends, the deal
/// passing to the left, until the target is reached (`docs/matches.md`). With `players`, each
/// player's token (in this answer only) opens their seat in every deal; with `seats`, made
/// with an account token, accounts hold the seats as in a hosted game.
#[utoipa::path(tag = "matches", operation_id = "createMatch", request_body = NewMatch,
    security((), ("account_token" = ["games:host"])),
    responses(
        (status = 201, body = CreatedMatch, description = "Created: the match, its first deal and the seats' tokens or invitations (shown only here)",
            headers(("Location" = String, description = "The match: `/v1/matches/{id}`"),
                ("Cache-Control" = String, description = "`no-store`: the answer holds tokens or invitation codes"))),
        (status = 400, description = "Malformed body or seed", content_type = PROBLEM),
        (status = 401, description = "`seats` without a live account token", content_type = PROBLEM),
        (status = 422, description = "Unknown game, both or neither of `players` and `seats`, wrong number of players, bad options or target (`invalid-setup`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/matches")]
pub async fn create(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    // Who is asking first: a token without the scope is refused whatever the body says.
    let caller = match bearer.0.as_deref() {
        Some(token) => Some(
            service
                .accounts()
                .authenticate(Some(token), Scope::GamesHost)
                .await?,
        ),
        None => None,
    };
    let request: NewMatch = object_body(body.into_inner())?;
    let created = service.create_match(caller.as_ref(), request).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::LOCATION, format!("/v1/matches/{}", created.id)))
        .json(created))
}

/// Get a match
///
/// The match: its competitors and their totals, every deal so far with what each scored, the
/// deal being played, and once it is over its winners. Public, like its deals.
#[utoipa::path(tag = "matches", operation_id = "getMatch",
    params(("id" = String, Path, description = "Match id")),
    responses(
        (status = 200, body = MatchView, description = "The match"),
        (status = 404, description = "No such match (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/matches/{id}")]
pub async fn show(
    service: web::Data<Parlour>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let view = service.match_view(match_id(&id)?).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(view))
}

/// Audit a match
///
/// Audits every deal of the match (as `GET /v1/games/{id}/audit`) and checks that each is
/// the match's: it names the match and its number, and seats the match's players one place
/// further round than the deal before.
#[utoipa::path(tag = "matches", operation_id = "getMatchAudit",
    params(("id" = String, Path, description = "Match id")),
    responses(
        (status = 200, body = MatchAudit, description = "What the checks found"),
        (status = 404, description = "No such match (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/matches/{id}/audit")]
pub async fn audit(
    service: web::Data<Parlour>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let audit = service.audit_match(match_id(&id)?).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(audit))
}

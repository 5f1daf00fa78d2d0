//! The games on offer and their cards.

use actix_web::http::header;
use actix_web::{get, web, HttpResponse};

use parlour_domain::catalog;

use crate::dto::{Catalog, CatalogEntry, CatalogGame, GameSchemas};
use crate::error::{ApiError, Problem};
use crate::service::Parlour;

/// List the games
///
/// Every game Parlour offers, with player counts and options.
#[utoipa::path(tag = "catalog", operation_id = "listCatalog",
    responses((status = 200, body = Catalog, description = "The games on offer")))]
#[get("/v1/catalog")]
pub async fn list(service: web::Data<Parlour>) -> HttpResponse {
    let games = service
        .catalog()
        .into_iter()
        .map(CatalogEntry::from)
        .collect();
    // The same until the server is upgraded: caches may keep it, but must ask again.
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(Catalog { games })
}

/// Get a game's entry and cards
///
/// One game's entry and every card, each with a stable id, so a client can draw them.
#[utoipa::path(tag = "catalog", operation_id = "getCatalogGame",
    params(("game" = String, Path, example = "girl", description = "A game id, e.g. `girl`")),
    responses(
        (status = 200, body = CatalogGame, description = "The game's entry and its cards"),
        (status = 404, description = "No such game in the catalogue (`not-found`)", content_type = "application/problem+json"),
    ))]
#[get("/v1/catalog/{game}")]
pub async fn show(
    service: web::Data<Parlour>,
    game: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (entry, cards) = service
        .catalog_entry(&game)
        .map_err(|e| ApiError::new(Problem::NotFound, e.to_string()))?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(CatalogGame {
            entry: entry.into(),
            cards,
        }))
}

/// Get a game's JSON Schemas
///
/// JSON Schemas (draft 2020-12) of one game's options, actions, legal actions, views, result
/// and events, so a client, a bot or a generated SDK sees the game's real types. Pure facts
/// about the rules: no game or database is read.
#[utoipa::path(tag = "catalog", operation_id = "getCatalogGameSchemas",
    params(("game" = String, Path, example = "girl", description = "A game id, e.g. `girl`")),
    responses(
        (status = 200, body = GameSchemas, description = "The game's JSON Schemas (the same as this document's `<Game>…` components)"),
        (status = 404, description = "No such game in the catalogue (`not-found`)", content_type = "application/problem+json"),
    ))]
#[get("/v1/catalog/{game}/schemas")]
pub async fn game_schemas(game: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let engine = catalog::engine(&game).ok_or_else(|| {
        ApiError::new(
            Problem::NotFound,
            format!("Parlour does not offer a game called {:?}", game.as_str()),
        )
    })?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(GameSchemas::new(engine.describe().id, engine.schemas())))
}

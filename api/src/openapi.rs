//! The OpenAPI document, generated from the handlers and DTOs. `openapi/openapi.json` in the
//! repository is kept equal to it by a test.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::dto;
use crate::receipts;
use crate::routes::{catalog, games, health, keys, statistics};

struct SeatToken;

impl Modify for SeatToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "seat_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The seat token handed out when the game was created."))
                    .build(),
            ),
        );
    }
}

/// The API document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Parlour",
        description = "A game server for five classic British card games: GIRL, The CAR Game, \
British Birds, History of England No. 2 and GOOGLY.\n\n\
Create a game with `POST /v1/games`; each seat gets a secret token. Play with `GET /v1/games/{id}` \
(your view, `to_act`, `legal_actions`) and `POST /v1/games/{id}/actions`. Every error is \
`application/problem+json` with a stable `type` (`/problems/<code>`). Every game is an append-only, \
hash-chained event log; after the game its seed is revealed and `GET /v1/games/{id}/audit` replays it.",
        version = "1.0.0",
        license(name = "MIT")
    ),
    paths(
        catalog::list, catalog::show, catalog::game_schemas,
        games::create, games::show, games::stream, games::act, games::events, games::state_at, games::audit, games::file,
        games::scorecard, games::export, statistics::statistics,
        health::healthz, health::readyz, keys::keys,
    ),
    components(schemas(
        dto::Status, dto::NewPlayer, dto::NewGame, dto::CreatedSeat, dto::CreatedGame, dto::GameView,
        dto::GameEvent, dto::EventPage, dto::AuditFailure, dto::AuditReport, dto::CatalogEntry,
        dto::CatalogGame, dto::Catalog, dto::GameSchemas, dto::ViewSchemas, dto::ScorecardBody, dto::CreationRecord, dto::StoredGameEvent,
        dto::LogHead, dto::GameFile, receipts::Receipt, receipts::PublicKey, receipts::KeySet,
    )),
    modifiers(&SeatToken),
    tags(
        (name = "catalog", description = "The games on offer and their cards"),
        (name = "games", description = "Playing, reading the log, auditing"),
        (name = "operations", description = "Health checks"),
        (name = "receipts", description = "The keys that sign move receipts"),
    )
)]
pub struct ApiDoc;

/// The document as served at `/openapi.json`.
pub fn spec() -> utoipa::openapi::OpenApi {
    ApiDoc::openapi()
}

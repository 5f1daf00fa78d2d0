//! Statistics across finished games.

use actix_web::{get, web, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use super::game_id;
use crate::error::{ApiError, Problem};
use crate::service::{Parlour, ServiceError};

/// Most games counted in one request.
const MAX_GAMES: usize = 500;

/// Which games to count.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct StatisticsQuery {
    /// Comma-separated ids of finished games of this kind (a series of matches).
    #[param(pattern = "^[0-9a-fA-F-]{36}(,[0-9a-fA-F-]{36}){0,499}$")]
    pub games: String,
}

/// Get statistics
///
/// Statistics over a series of finished games: for GOOGLY, batting and bowling averages per
/// named player, centuries, hat-tricks and the County Championship table.
#[utoipa::path(tag = "games", operation_id = "getStatistics",
    params(("game" = String, Path, example = "googly", description = "A game id from the catalogue, e.g. `googly`"), StatisticsQuery),
    responses(
        (status = 200, description = "The statistics", body = Object),
        (status = 400, description = "No game ids, or too many", content_type = "application/problem+json"),
        (status = 404, description = "No such game in the catalogue, or it keeps no statistics (`not-found`), or no game has a listed id (`game-not-found`)", content_type = "application/problem+json"),
        (status = 422, description = "A game is unfinished, of another kind, or listed twice (`invalid-selection`)", content_type = "application/problem+json"),
        (status = 503, description = "The database is not answering", content_type = "application/problem+json"),
    ))]
#[get("/v1/statistics/{game}")]
pub async fn statistics(
    service: web::Data<Parlour>,
    game: web::Path<String>,
    query: web::Query<StatisticsQuery>,
) -> Result<HttpResponse, ApiError> {
    let ids = query
        .games
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(game_id)
        .collect::<Result<Vec<_>, _>>()?;
    if ids.is_empty() || ids.len() > MAX_GAMES {
        return Err(ApiError::new(
            Problem::MalformedRequest,
            format!("`games` must list 1 to {MAX_GAMES} game ids, separated by commas"),
        ));
    }
    let statistics = service
        .statistics(&game, &ids)
        .await
        .map_err(|error| match error {
            // In a path, a game the catalogue does not offer is simply not there.
            ServiceError::UnknownGame(_) => ApiError::new(Problem::NotFound, error.to_string()),
            other => other.into(),
        })?;
    // The games counted are finished, but the same query may later name more.
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-cache"))
        .json(statistics))
}

//! Liveness and readiness.

use actix_web::http::header;
use actix_web::{get, web, HttpResponse};
use serde_json::json;

use crate::error::{ApiError, Problem};
use crate::service::Parlour;
use crate::workers::LeaderStatus;

/// Liveness
///
/// The process is up.
#[utoipa::path(tag = "operations", operation_id = "getHealth",
    responses((status = 200, description = "The process is up: `{\"status\": \"ok\"}`", body = Object)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({"status": "ok"}))
}

/// Readiness
///
/// The database answers. The body also says whether this instance is the one leading the
/// work done once across instances (`"leader": true`), and whether the server is in sandbox
/// mode (`"sandbox": true`: games may run on test clocks, `docs/sandbox.md`).
#[utoipa::path(tag = "operations", operation_id = "getReadiness", responses(
    (status = 200, description = "The database answers: `{\"status\": \"ready\", \"leader\": true|false, \"sandbox\": true|false}`", body = Object),
    (status = 503, description = "The database does not answer", content_type = "application/problem+json"),
))]
#[get("/readyz")]
pub async fn readyz(
    service: web::Data<Parlour>,
    leadership: web::Data<LeaderStatus>,
) -> Result<HttpResponse, ApiError> {
    // The database's own words go to the log, not to whoever asks.
    service.ready().await.map_err(|e| {
        ApiError::new(Problem::Unavailable, "the database is not answering")
            .caused_by(e.to_string())
    })?;
    // A health check must reach this instance every time, never a cache.
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({
            "status": "ready",
            "leader": leadership.is_leader(),
            // An app's tests check this before relying on test clocks; a player's client may
            // warn that games here are not real ones.
            "sandbox": service.sandbox(),
        })))
}

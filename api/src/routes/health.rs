//! Liveness and readiness.

use actix_web::{get, web, HttpResponse};
use serde_json::json;

use crate::error::{ApiError, Problem};
use crate::service::Parlour;

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200, description = "The process is up")))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// The database answers.
#[utoipa::path(get, path = "/readyz", tag = "operations", responses(
    (status = 200, description = "The database answers"),
    (status = 503, description = "The database does not answer", content_type = "application/problem+json"),
))]
#[get("/readyz")]
pub async fn readyz(service: web::Data<Parlour>) -> Result<HttpResponse, ApiError> {
    service
        .ready()
        .await
        .map_err(|e| ApiError::new(Problem::Unavailable, e.to_string()))?;
    Ok(HttpResponse::Ok().json(json!({"status": "ready"})))
}

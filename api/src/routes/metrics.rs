//! `GET /metrics`: this instance's counts in the Prometheus text format (`http::metrics`).
//!
//! Operational, like `/healthz`: not part of the API document, never rate-limited. It shows
//! counts only (no game ids, tokens or addresses).

use actix_web::{get, web, HttpResponse};

use crate::http::metrics::{resident_bytes, Metrics, Snapshot, CONTENT_TYPE};
use crate::http::rate_limit::RateLimiter;
use crate::limits::StreamGate;
use crate::service::Parlour;

/// The counts, as they stand now.
#[get("/metrics")]
pub async fn metrics(
    metrics: web::Data<Metrics>,
    service: web::Data<Parlour>,
    gate: web::Data<StreamGate>,
    limiter: web::Data<RateLimiter>,
) -> HttpResponse {
    let counts = service.counts();
    let (commit_groups, commit_group_appends) = service.commit_groups();
    let (cache_bytes, cache_budget_bytes) = service.cache_bytes();
    let page = metrics.render(&Snapshot {
        moves_recorded: counts.moves_recorded,
        commit_groups,
        commit_group_appends,
        games_cached: counts.games_cached,
        games_active: counts.games_active,
        cache_bytes,
        cache_budget_bytes,
        resident_bytes: resident_bytes(),
        store_errors: counts.store_errors,
        streams_open: gate.open(),
        limits: limiter.counts(),
    });
    HttpResponse::Ok().content_type(CONTENT_TYPE).body(page)
}

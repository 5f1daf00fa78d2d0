//! The public keys receipts are signed with, at a well-known address so that a verifier needs
//! nothing but the server's origin.

use actix_web::http::header;
use actix_web::{get, web, HttpResponse};

use crate::receipts::{KeySet, Signer};

const PROBLEM: &str = "application/problem+json";

/// Get the receipt keys
///
/// The keys that sign move receipts.
///
/// A receipt's `key_id` names one of these keys; its signature covers the bytes described in
/// `docs/receipts.md`. Save the key with your receipts: a key that has been replaced is no
/// longer listed.
#[utoipa::path(tag = "receipts", operation_id = "getSigningKeys", responses(
    (status = 200, description = "The receipt signing keys", body = KeySet,
        headers(("Cache-Control" = String, description = "`public, max-age=300`"))),
))]
#[get("/.well-known/parlour-keys")]
pub async fn keys(signer: web::Data<Signer>) -> HttpResponse {
    HttpResponse::Ok()
        // The key changes only when the operator replaces it and restarts, so caches may keep
        // it a while; not for long, so a replacement is seen within minutes.
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .json(KeySet {
            keys: vec![signer.public()],
        })
}

/// Paging through the list of checkpoints.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CheckpointsQuery {
    /// A page's `next`: the checkpoints after it. Left out: from the first.
    #[param(pattern = "^(0|[1-9][0-9]{0,17})$", example = "100")]
    pub cursor: Option<String>,
    /// At most this many (default 100; 1 to 1000).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<u32>,
    /// The same as `cursor`, by its older name: only checkpoints after this position
    /// (default 0: from the first).
    #[param(minimum = 0, maximum = 9_223_372_036_854_775_807_u64)]
    pub after: Option<u64>,
}

/// List the checkpoints
///
/// The append-only public list of finished games' heads, each signed by the receipt key.
///
/// Every game that ends is added once, numbered 1, 2, 3, … with no gap, and never changed or
/// removed. Mirror it (page with `cursor`): a finished game whose log is later shorter, longer
/// or other at the signed event was rolled back or rewritten, and a checkpoint you hold that
/// the list no longer shows is itself evidence (`docs/audit.md`, "Checkpoints").
#[utoipa::path(tag = "receipts", operation_id = "listCheckpoints",
    params(CheckpointsQuery),
    responses(
        (status = 200, body = crate::dto::CheckpointPage, description = "A page of the list",
            headers(("Link" = String, description = "`<…?cursor=…&limit=…>; rel=\"next\"` while there is a next page (its cursor is `next`)"))),
        (status = 400, description = "Bad paging parameters", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/checkpoints")]
pub async fn checkpoints(
    service: web::Data<crate::service::Parlour>,
    request: actix_web::HttpRequest,
    query: web::Query<CheckpointsQuery>,
) -> Result<HttpResponse, crate::error::ApiError> {
    let older = query.after.map(|after| after.to_string());
    let cursor = super::paging::cursor(query.cursor.as_deref(), older.as_deref());
    let after = super::paging::position(cursor)?.unwrap_or(0);
    let page = service.checkpoints().page(after, query.limit).await?;
    // The list only grows; a mirror polls it, so caches must not hold a page long.
    let mut response = HttpResponse::Ok();
    response.insert_header((header::CACHE_CONTROL, "public, max-age=5"));
    super::paging::link_next(&mut response, &request, page.next.as_deref());
    Ok(response.json(page))
}

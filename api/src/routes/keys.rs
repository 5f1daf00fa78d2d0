//! The public keys receipts are signed with, at a well-known address so that a verifier needs
//! nothing but the server's origin.

use actix_web::http::header;
use actix_web::{get, web, HttpResponse};

use crate::receipts::{KeySet, Signer};

/// The keys that sign move receipts.
///
/// A receipt's `key_id` names one of these keys; its signature covers the bytes described in
/// `docs/receipts.md`. Save the key with your receipts: a key that has been replaced is no
/// longer listed.
#[utoipa::path(get, path = "/.well-known/parlour-keys", tag = "receipts", operation_id = "getSigningKeys", responses(
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

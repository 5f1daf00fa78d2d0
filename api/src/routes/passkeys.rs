//! Passkeys (`service::passkeys`): an account registers them from a signed-in device, lists
//! and removes them; a new device signs in with one, with no token at all.
//!
//! Each ceremony is two calls: the first answers a challenge for the browser's
//! `navigator.credentials.create` or `get`, the second takes what the browser gives back.

use actix_web::http::header;
use actix_web::{delete, get, post, web, HttpResponse};
use serde_json::Value;
use uuid::Uuid;

use super::accounts::{for_the_caller, object_body};
use super::Bearer;
use crate::dto::{
    CreatedAccount, NewPasskey, Passkey, PasskeyChallenge, PasskeyList, PasskeySignIn,
};
use crate::error::ApiError;
use crate::scopes::Scope;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// Begin registering a passkey
///
/// A registration ceremony for the caller's account: hand `public_key` to the browser
/// (`navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(public_key)})`)
/// and send what it gives back to `POST /v1/me/passkeys` within five minutes. The browser is
/// asked for a discoverable credential verified by its user (a passkey proper), so that it can
/// later sign in a device that knows nothing of the account.
#[utoipa::path(tag = "accounts", operation_id = "beginPasskeyRegistration",
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 201, body = PasskeyChallenge, description = "The ceremony begun",
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 422, description = "Passkeys are off on this server (`passkeys-off`), or the account holds as many as it may (`invalid-passkey`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/me/passkey-registrations")]
pub async fn begin_registration(
    service: web::Data<Parlour>,
    bearer: Bearer,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let challenge = service.passkeys().begin_registration(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(challenge))
}

/// Register a passkey
///
/// Finishes a registration: the browser's answer is checked (this server's origin, the
/// ceremony's challenge, the user verified) and the passkey kept under `name`. From now on it
/// signs this account in on any device that holds it (`POST /v1/accounts/passkey-sign-in`).
#[utoipa::path(tag = "accounts", operation_id = "createPasskey",
    request_body = NewPasskey,
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 201, body = Passkey, description = "Kept"),
        (status = 400, description = "Malformed body, or a name that is empty, too long or holds a control character (`invalid-text`)", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 409, description = "The credential is registered already (`passkey-exists`)", content_type = PROBLEM),
        (status = 422, description = "The ceremony or the browser's answer does not hold (`invalid-passkey`), or passkeys are off (`passkeys-off`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/me/passkeys")]
pub async fn register(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let request: NewPasskey = object_body(body.into_inner())?;
    let passkey = service.passkeys().register(&caller, request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(passkey))
}

/// List my passkeys
///
/// The account's passkeys, oldest first, each with when it last signed a device in; and
/// whether this server takes passkeys at all.
#[utoipa::path(tag = "accounts", operation_id = "listPasskeys",
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = PasskeyList, description = "The passkeys"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/passkeys")]
pub async fn list(service: web::Data<Parlour>, bearer: Bearer) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let list = service.passkeys().list(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(list))
}

/// Remove a passkey
///
/// The passkey signs nothing in from now on. The devices it signed in keep their tokens:
/// revoke those with `DELETE /v1/me/tokens/{token_id}`.
#[utoipa::path(tag = "accounts", operation_id = "deletePasskey",
    params(("id" = Uuid, Path, description = "The passkey's id")),
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such passkey (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/me/passkeys/{id}")]
pub async fn remove(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    service.passkeys().remove(&caller, id.into_inner()).await?;
    Ok(HttpResponse::NoContent()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish())
}

/// Begin signing in with a passkey
///
/// A sign-in ceremony, for a device with no token: hand `public_key` to the browser
/// (`navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(public_key)})`),
/// which offers the passkeys it holds for this server, and send what it gives back to
/// `POST /v1/accounts/passkey-sign-in` within five minutes.
#[utoipa::path(tag = "accounts", operation_id = "beginPasskeySignIn",
    responses(
        (status = 201, body = PasskeyChallenge, description = "The ceremony begun",
            headers(("Cache-Control" = String, description = "`no-store`"))),
        (status = 422, description = "Passkeys are off on this server (`passkeys-off`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/accounts/passkey-challenges")]
pub async fn begin_sign_in(service: web::Data<Parlour>) -> Result<HttpResponse, ApiError> {
    let challenge = service.passkeys().begin_sign_in().await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(challenge))
}

/// Sign in with a passkey
///
/// Finishes a sign-in: the browser's answer is checked against the passkey it names, and the
/// device is given a new named token of the passkey's account, shown only here. The
/// account's devices and addresses are told of the sign-in.
#[utoipa::path(tag = "accounts", operation_id = "signInWithPasskey",
    request_body = PasskeySignIn,
    responses(
        (status = 201, body = CreatedAccount, description = "Signed in: the account and this device's new token, whose `secret` is shown only here",
            headers(("Cache-Control" = String, description = "`no-store`: the answer holds a secret"))),
        (status = 400, description = "Malformed body, or a token name that is empty, too long or holds a control character (`invalid-text`)", content_type = PROBLEM),
        (status = 401, description = "The passkey did not sign in: unknown, removed, an unknown or finished ceremony, or an answer that does not hold", content_type = PROBLEM),
        (status = 422, description = "`credential` is not a WebAuthn assertion (`invalid-passkey`), or passkeys are off (`passkeys-off`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering: nothing was minted", content_type = PROBLEM),
    ))]
#[post("/v1/accounts/passkey-sign-in")]
pub async fn sign_in(
    service: web::Data<Parlour>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let request: PasskeySignIn = object_body(body.into_inner())?;
    let signed_in = service.passkeys().sign_in(request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created())
        .insert_header((header::LOCATION, "/v1/me"))
        .json(signed_in))
}

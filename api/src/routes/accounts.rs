//! Accounts and their named tokens: create an account, read it, mint and revoke tokens.

use actix_web::http::header;
use actix_web::{delete, get, post, web, HttpResponse};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Bearer;
use crate::dto::{
    CreatedAccount, EmailSignIn, EmailSignInRequested, IssuedAccountToken, Me, NewAccount,
    NewAccountToken, SignIn, SignInCode,
};
use crate::error::{ApiError, Problem};
use crate::scopes::Scope;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// An answer holding a token's secret, or depending on the token sent: for the caller alone,
/// never for a cache (`no-store`), and never one caller's answer given to another (`Vary`).
pub(super) fn for_the_caller(
    response: &mut actix_web::HttpResponseBuilder,
) -> &mut actix_web::HttpResponseBuilder {
    response
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::VARY, "Authorization"))
}

/// A body that must be a JSON object of `T`'s fields. serde would also read a struct from an
/// array of its fields in order (`["Ann"]`), which the document does not allow and no client
/// means: only an object is read.
pub(super) fn object_body<T: DeserializeOwned>(body: Value) -> Result<T, ApiError> {
    if !body.is_object() {
        return Err(ApiError::new(
            Problem::MalformedRequest,
            "bad JSON body: the body must be a JSON object",
        ));
    }
    serde_json::from_value(body)
        .map_err(|e| ApiError::new(Problem::MalformedRequest, format!("bad JSON body: {e}")))
}

/// Create an account
///
/// Creates an account and its first token. The token's secret is in this answer only: the
/// server keeps its hash.
#[utoipa::path(tag = "accounts", operation_id = "createAccount", request_body = NewAccount,
    responses(
        (status = 201, body = CreatedAccount, description = "Created: the account and its first token, whose `secret` is shown only here",
            headers(("Location" = String, description = "`/v1/me`, where the account is read with the token"),
                ("Cache-Control" = String, description = "`no-store`: the answer holds a secret"))),
        (status = 400, description = "Malformed body (an unknown field, say), or a name that is empty, longer than 64 characters or holds a control character (`invalid-text`, `field` says which)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering: nothing was created", content_type = PROBLEM),
    ))]
#[post("/v1/accounts")]
pub async fn create(
    service: web::Data<Parlour>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let request: NewAccount = object_body(body.into_inner())?;
    let created = service.accounts().create(request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created())
        .insert_header((header::LOCATION, "/v1/me"))
        .json(created))
}

/// Get my account
///
/// The account the token opens, and its live tokens (never their secrets).
#[utoipa::path(tag = "accounts", operation_id = "getMe",
    security(("account_token" = [])),
    responses(
        (status = 200, body = Me, description = "The account and its tokens not revoked; `current` marks the one this request carries",
            headers(("Cache-Control" = String, description = "`no-store`"),
                ("Vary" = String, description = "`Authorization`"))),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me")]
pub async fn me(service: web::Data<Parlour>, bearer: Bearer) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate_any(bearer.0.as_deref())
        .await?;
    let me = service.accounts().me(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(me))
}

/// Mint a token
///
/// Mints another named token for the account (one per device or app). Its secret is in this
/// answer only.
#[utoipa::path(tag = "accounts", operation_id = "createAccountToken", request_body = NewAccountToken,
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 201, body = IssuedAccountToken, description = "Minted: the new token, whose `secret` is shown only here",
            headers(("Cache-Control" = String, description = "`no-store`: the answer holds a secret"))),
        (status = 400, description = "Malformed body, or a name that is empty, longer than 64 characters or holds a control character (`invalid-text`)", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering: nothing was minted", content_type = PROBLEM),
    ))]
#[post("/v1/me/tokens")]
pub async fn mint(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    // Who is asking first: a request without a live account token is 401 whatever its body.
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let request: NewAccountToken = object_body(body.into_inner())?;
    let issued = service.accounts().mint_token(&caller, request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(issued))
}

/// Revoke a token
///
/// Revokes one of the account's tokens, the one this request carries included: from the
/// answer on, it is refused everywhere (401), on every instance.
#[utoipa::path(tag = "accounts", operation_id = "revokeAccountToken",
    params(("token_id" = String, Path, description = "The token's id, as `GET /v1/me` lists it")),
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no live token with this id (`token-not-found`): none, already revoked, or another account's", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/me/tokens/{token_id}")]
pub async fn revoke(
    service: web::Data<Parlour>,
    bearer: Bearer,
    token_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    service.accounts().revoke_token(&caller, &token_id).await?;
    Ok(HttpResponse::NoContent()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish())
}

/// Make a sign-in code
///
/// A one-time code to sign this account in on another device: show it there (or send its
/// link), and the new device trades it for a token of its own. It works once, for ten
/// minutes, and only while the token asking for it is live.
#[utoipa::path(tag = "accounts", operation_id = "createSignInCode",
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 201, body = SignInCode, description = "The code, shown only here",
            headers(("Cache-Control" = String, description = "`no-store`: the answer holds a secret"))),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/me/sign-in-codes")]
pub async fn sign_in_code(
    service: web::Data<Parlour>,
    bearer: Bearer,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let code = service.accounts().issue_sign_in_code(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(code))
}

/// Mail me a sign-in link
///
/// A way back for a player with no signed-in device and no passkey: each account here that
/// has verified `address` (with its notices on) is mailed a link that signs a device in, once,
/// within 15 minutes (its code is redeemed at `POST /v1/accounts/sign-in`). The answer is
/// the same whether or not any account has: it tells nobody who plays here. No token is
/// needed. Answers 422 `email-off` on a server that sends no mail.
#[utoipa::path(tag = "accounts", operation_id = "requestEmailSignIn", request_body = EmailSignIn,
    responses(
        (status = 202, body = EmailSignInRequested, description = "A link is mailed to each account that verified the address, if any did"),
        (status = 400, description = "Malformed body", content_type = PROBLEM),
        (status = 422, description = "Not an address (`invalid-email-address`), or no mail on this server (`email-off`)", content_type = PROBLEM),
        (status = 429, description = "Too many sign-in attempts from this address (`rate-limited`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/accounts/email-sign-in")]
pub async fn email_sign_in(
    service: web::Data<Parlour>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let request: EmailSignIn = object_body(body.into_inner())?;
    let requested = service.sign_in_links().request(request).await?;
    Ok(for_the_caller(&mut HttpResponse::Accepted()).json(requested))
}

/// Sign in with a one-time code
///
/// Signs in on a new device with a one-time code from a signed-in one: a new named token for
/// the account, shown only here. No bearer token is needed: the code is the credential.
#[utoipa::path(tag = "accounts", operation_id = "signIn", request_body = SignIn,
    responses(
        (status = 201, body = CreatedAccount, description = "Signed in: the account and this device's new token, whose `secret` is shown only here",
            headers(("Cache-Control" = String, description = "`no-store`: the answer holds a secret"))),
        (status = 400, description = "Malformed body, or a token name that is empty, too long or holds a control character (`invalid-text`)", content_type = PROBLEM),
        (status = 401, description = "The code is unknown, used, expired, or its device's token was revoked", content_type = PROBLEM),
        (status = 503, description = "The database is not answering: nothing was minted", content_type = PROBLEM),
    ))]
#[post("/v1/accounts/sign-in")]
pub async fn sign_in(
    service: web::Data<Parlour>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let request: SignIn = object_body(body.into_inner())?;
    let signed_in = service.accounts().sign_in(request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created())
        .insert_header((header::LOCATION, "/v1/me"))
        .json(signed_in))
}

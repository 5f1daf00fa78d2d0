//! Apps acting for players (`service::apps`): OAuth 2.0's authorization code flow with PKCE.
//!
//! Two kinds of route. The consent page's and the account page's calls (`/v1/oauth/…`,
//! `/v1/me/apps…`) are API operations like any other. The protocol's own endpoints (the token
//! endpoint, revocation, the metadata) speak RFC 6749, 7009 and 8414: form-encoded requests,
//! `application/json` answers, errors as `{"error", "error_description"}` (with a problem's
//! members beside them); they sit outside the API document, which names them in its `oauth2`
//! security scheme, and the metadata lists them.

use std::collections::BTreeMap;

use actix_web::http::header;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};
use utoipa::IntoParams;

use super::accounts::{for_the_caller, object_body};
use super::Bearer;
use crate::dto::{AppList, Authorization, AuthorizationRequest, AuthorizationRequestCheck};
use crate::error::{ApiError, Problem};
use crate::scopes::{Scope, Scopes};
use crate::service::apps::{OAuthRefusal, CODE_LIFETIME};
use crate::service::{Parlour, ServiceError};

const PROBLEM: &str = "application/problem+json";

/// The pairs of a form or query string, each name once (RFC 6749 §3.1: a parameter sent twice
/// is an invalid request).
fn pairs(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut pairs = BTreeMap::new();
    for (name, value) in url::form_urlencoded::parse(text.as_bytes()) {
        if pairs.insert(name.to_string(), value.to_string()).is_some() {
            return Err(format!("`{name}` is sent more than once"));
        }
    }
    Ok(pairs)
}

/// The request's query as an authorization request. Parameters it does not know are ignored
/// (RFC 6749 §3.1).
fn authorization_request(query: &str) -> Result<AuthorizationRequest, ApiError> {
    let pairs = pairs(query).map_err(|detail| {
        ApiError::from(ServiceError::BadAuthorization {
            detail,
            redirect_to: None,
        })
    })?;
    let take = |name: &str| pairs.get(name).cloned();
    Ok(AuthorizationRequest {
        response_type: take("response_type"),
        client_id: take("client_id"),
        redirect_uri: take("redirect_uri"),
        scope: take("scope"),
        state: take("state"),
        code_challenge: take("code_challenge"),
        code_challenge_method: take("code_challenge_method"),
    })
}

/// Check an app's request
///
/// What the consent page (`/play/authorize`) asks first, with the query the app sent the
/// player there with: whether the request can be approved, and what to show the player —
/// the app, the site it sends them back to, the scopes it asks for, and where a "no" goes.
/// No token is needed: nothing here depends on the account.
#[utoipa::path(tag = "apps", operation_id = "checkAuthorizationRequest",
    params(AuthorizationRequest),
    responses(
        (status = 200, body = AuthorizationRequestCheck, description = "The request can be approved"),
        (status = 400, description = "The request cannot be approved (`invalid-authorization-request`); `redirect_to`, when present, tells the app (RFC 6749 §4.1.2.1), and without it the player must not be sent back", content_type = PROBLEM),
    ))]
#[get("/v1/oauth/authorize")]
pub async fn check(
    service: web::Data<Parlour>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let request = authorization_request(req.query_string())?;
    let checked = service.apps().check(&request)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(checked))
}

/// Approve an app's request
///
/// The player says yes on the consent page: an authorization code for the app, and the
/// address to send the player's browser to with it (`redirect_uri` with `code` and `state`).
/// The code works once, for ten minutes, at `POST /oauth/token` with the request's PKCE
/// verifier. The approving token must hold every scope it grants.
#[utoipa::path(tag = "apps", operation_id = "approveAuthorizationRequest",
    request_body = AuthorizationRequest,
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 201, body = Authorization, description = "Approved: send the player to `redirect_to`",
            headers(("Cache-Control" = String, description = "`no-store`: the answer holds a code"))),
        (status = 400, description = "Malformed body, or a request that cannot be approved (`invalid-authorization-request`, as for `GET /v1/oauth/authorize`)", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 403, description = "The token does not hold a scope the app asks for (`insufficient-scope`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering: nothing was approved", content_type = PROBLEM),
    ))]
#[post("/v1/oauth/authorizations")]
pub async fn approve(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let request: AuthorizationRequest = object_body(body.into_inner())?;
    let approved = service.apps().approve(&caller, &request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(approved))
}

/// List my apps
///
/// The apps that hold a live token of the account: each with the scopes its tokens hold,
/// when it was first let in, and how many tokens it holds.
#[utoipa::path(tag = "apps", operation_id = "listApps",
    params(AppsQuery),
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = AppList, description = "The apps, oldest grant first",
            headers(("Cache-Control" = String, description = "`no-store`"),
                ("Vary" = String, description = "`Authorization`"),
                ("Link" = String, description = "`<…?cursor=…&limit=…>; rel=\"next\"` while there is a next page (its cursor is `next`)"))),
        (status = 400, description = "A `cursor` that is no page's `next`, or a bad `limit`", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/apps")]
pub async fn list(
    service: web::Data<Parlour>,
    request: HttpRequest,
    bearer: Bearer,
    query: web::Query<AppsQuery>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let limit = super::paging::limit(query.limit, 100, 100)?;
    let apps = service
        .apps()
        .list(&caller, query.cursor.as_deref(), limit)
        .await?;
    let mut response = HttpResponse::Ok();
    super::paging::link_next(&mut response, &request, apps.next.as_deref());
    Ok(for_the_caller(&mut response).json(apps))
}

/// A page of `GET /v1/me/apps`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AppsQuery {
    /// A page's `next`: the apps after it. Left out: from the first.
    #[param(max_length = 200, pattern = "^[0-9]{1,18}[.]")]
    pub cursor: Option<String>,
    /// At most this many (default 100; 1 to 100).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
}

/// Remove an app
///
/// Revokes every token the app holds for the account: from the answer on, each is refused
/// everywhere (401), and the streams and long-polls they hold end.
#[utoipa::path(tag = "apps", operation_id = "deleteApp",
    params(("client_id" = String, Path, description = "The app's `client_id`, as `GET /v1/me/apps` lists it")),
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 204, description = "Removed: its tokens are revoked"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "No app of this name holds a live token of the account (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/me/apps/{client_id}")]
pub async fn remove(
    service: web::Data<Parlour>,
    bearer: Bearer,
    client_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    service.apps().forget(&caller, &client_id).await?;
    Ok(HttpResponse::NoContent()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish())
}

/// An OAuth endpoint's answer: JSON, never cached (RFC 6749 §5.1).
fn oauth_answer(status: actix_web::http::StatusCode, body: Value) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"))
        .json(body)
}

/// A refusal in RFC 6749 §5.2's form, with a problem's members beside its own.
fn oauth_refusal(error: &str, description: &str) -> HttpResponse {
    let problem = Problem::OAuthRefused;
    oauth_answer(
        problem.status(),
        json!({
            "error": error,
            "error_description": description,
            "type": format!("/problems/{}", problem.code()),
            "title": problem.title(),
            "status": problem.status().as_u16(),
            "detail": description,
        }),
    )
}

/// The form of a token or revocation request: `application/x-www-form-urlencoded`, each
/// parameter once.
fn form(req: &HttpRequest, body: &[u8]) -> Result<BTreeMap<String, String>, OAuthRefusal> {
    let form_typed = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| {
            media
                .trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    let refused = |description: String| OAuthRefusal {
        error: "invalid_request",
        description,
    };
    if !form_typed {
        return Err(refused(
            "the body must be `application/x-www-form-urlencoded` (RFC 6749 §4.1.3)".into(),
        ));
    }
    let text = std::str::from_utf8(body).map_err(|_| refused("the body is not UTF-8".into()))?;
    pairs(text).map_err(refused)
}

/// An error of the service at an OAuth endpoint: a refusal in RFC 6749's form, anything
/// else (the database not answering) as the problem it is.
fn oauth_error(error: ServiceError) -> Result<HttpResponse, ApiError> {
    match error {
        ServiceError::OAuth(refusal) => Ok(oauth_refusal(refusal.error, &refusal.description)),
        other => Err(other.into()),
    }
}

/// The token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.5): a code and its verifier for a token.
#[post("/oauth/token")]
pub async fn token(
    service: web::Data<Parlour>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let form = match form(&req, &body) {
        Ok(form) => form,
        Err(refused) => return Ok(oauth_refusal(refused.error, &refused.description)),
    };
    match service.apps().exchange(&form).await {
        Ok(granted) => Ok(oauth_answer(
            actix_web::http::StatusCode::OK,
            json!({
                "access_token": granted.access_token,
                "token_type": "Bearer",
                "scope": granted.scope,
            }),
        )),
        Err(error) => oauth_error(error),
    }
}

/// The revocation endpoint (RFC 7009 §2): `200` whether or not the token was live.
#[post("/oauth/revoke")]
pub async fn revoke(
    service: web::Data<Parlour>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let form = match form(&req, &body) {
        Ok(form) => form,
        Err(refused) => return Ok(oauth_refusal(refused.error, &refused.description)),
    };
    match service.apps().revoke(&form).await {
        Ok(()) => Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish()),
        Err(error) => oauth_error(error),
    }
}

/// The authorization server's metadata (RFC 8414), its addresses under the server's public
/// URL.
#[get("/.well-known/oauth-authorization-server")]
pub async fn metadata(service: web::Data<Parlour>) -> HttpResponse {
    let base = service.public_url().trim_end_matches('/').to_string();
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .json(json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/play/authorize"),
            "token_endpoint": format!("{base}/oauth/token"),
            "revocation_endpoint": format!("{base}/oauth/revoke"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": Scopes::all().iter().map(Scope::name).collect::<Vec<_>>(),
            "service_documentation": format!("{base}/docs"),
            "authorization_code_lifetime_seconds": CODE_LIFETIME.as_secs(),
        }))
}

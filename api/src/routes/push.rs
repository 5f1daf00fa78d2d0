//! Web Push: the server's key, and an account's browsers' subscriptions (`service::push`).

use actix_web::http::header;
use actix_web::{delete, get, post, web, HttpResponse};
use serde_json::Value;
use uuid::Uuid;

use super::accounts::{for_the_caller, object_body};
use super::Bearer;
use crate::dto::{NewPushSubscription, PushKey, PushSubscription, PushSubscriptionList};
use crate::error::ApiError;
use crate::scopes::Scope;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// Get the push key
///
/// The server's VAPID public key (RFC 8292), for a browser to subscribe with:
/// `pushManager.subscribe({userVisibleOnly: true, applicationServerKey})`. Every instance
/// of a deployment has the same key; it changes only if the operator replaces the signing
/// key file, and then every browser must subscribe again.
#[utoipa::path(tag = "push", operation_id = "getPushKey",
    responses(
        (status = 200, body = PushKey, description = "The key"),
    ))]
#[get("/v1/push/key")]
pub async fn key(service: web::Data<Parlour>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .json(service.push_subscriptions().key())
}

/// Subscribe a browser
///
/// Keeps a browser's push subscription (send what its `PushSubscription.toJSON()` gives)
/// for the device token this request carries: from now on the account's notices (your
/// move, time running out, timed out, a game begun or ended, a match ended, a seat taken)
/// are pushed to that browser, sealed so that its push service cannot read them, until the
/// subscription is deleted, the push service says it has ended, or the token is revoked.
/// The same browser subscribing again replaces its subscription.
#[utoipa::path(tag = "push", operation_id = "createPushSubscription",
    request_body = NewPushSubscription,
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 201, body = PushSubscription, description = "Kept: the subscription"),
        (status = 400, description = "Malformed body", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 422, description = "An endpoint or keys that cannot be used, or too many subscriptions (`invalid-push-subscription`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/me/push-subscriptions")]
pub async fn subscribe(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let request: NewPushSubscription = object_body(body.into_inner())?;
    let subscription = service
        .push_subscriptions()
        .subscribe(&caller, request)
        .await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(subscription))
}

/// List my push subscriptions
///
/// The account's browsers' subscriptions, oldest first, each with the device token that
/// made it and whether pushes to it are failing. Never their keys.
#[utoipa::path(tag = "push", operation_id = "listPushSubscriptions",
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = PushSubscriptionList, description = "The subscriptions"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/push-subscriptions")]
pub async fn list(service: web::Data<Parlour>, bearer: Bearer) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let list = service.push_subscriptions().list(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(list))
}

/// Delete a push subscription
///
/// Stops pushing to a browser: nothing more is sent to it, and what was waiting to be sent
/// is dropped.
#[utoipa::path(tag = "push", operation_id = "deletePushSubscription",
    params(("id" = Uuid, Path, description = "The subscription's id")),
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such subscription (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/me/push-subscriptions/{id}")]
pub async fn remove(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    service
        .push_subscriptions()
        .unsubscribe(&caller, id.into_inner())
        .await?;
    Ok(for_the_caller(&mut HttpResponse::NoContent()).finish())
}

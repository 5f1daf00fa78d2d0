//! An account's webhooks: register, list, show, change, delete, rotate the secret, ping, and
//! the delivery log (`service::webhooks`).

use actix_web::{delete, get, patch, post, web, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;
use uuid::Uuid;

use super::accounts::{for_the_caller, object_body};
use super::Bearer;
use crate::dto::{
    Delivery, DeliveryPage, NewWebhook, Webhook, WebhookChange, WebhookList, WebhookWithSecret,
};
use crate::error::ApiError;
use crate::scopes::Scope;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// Where a page of the delivery log starts.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DeliveriesQuery {
    /// A page's `next`: the deliveries before it. Left out: the newest.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    pub cursor: Option<String>,
    /// At most this many (default 20; 1 to 100).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u64>,
    /// The same as `cursor`, by its older name.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    pub before: Option<String>,
}

/// Register a webhook
///
/// Registers an endpoint to be told of my games by signed messages (Standard Webhooks). The
/// signing secret is in this answer only.
#[utoipa::path(tag = "webhooks", operation_id = "createWebhook",
    request_body = NewWebhook,
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 201, body = WebhookWithSecret, description = "Registered: the endpoint, and its secret, shown this once"),
        (status = 400, description = "Malformed body or an unknown event type", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 422, description = "A URL that is not https/http, does not resolve, or resolves to a private address; no events; too many webhooks (`invalid-webhook`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/webhooks")]
pub async fn create(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    let request: NewWebhook = object_body(body.into_inner())?;
    let created = service.webhooks().create(&caller, request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(created))
}

/// List my webhooks
///
/// My endpoints, oldest first, each with the events it is sent, whether it is sent to now and,
/// if the server disabled it, why. Never their secrets.
#[utoipa::path(tag = "webhooks", operation_id = "listWebhooks",
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 200, body = WebhookList, description = "The account's endpoints, oldest first"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/webhooks")]
pub async fn list(service: web::Data<Parlour>, bearer: Bearer) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    let list = service.webhooks().list(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(list))
}

/// Get a webhook
///
/// One of my endpoints, with why it was disabled if it was.
#[utoipa::path(tag = "webhooks", operation_id = "getWebhook",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 200, body = Webhook, description = "The endpoint"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such webhook (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/webhooks/{id}")]
pub async fn show(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    let webhook = service.webhooks().get(&caller, id.into_inner()).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(webhook))
}

/// Change a webhook
///
/// Changes an endpoint's URL, events, note, or whether it is sent to; enabling a disabled
/// one clears why it was disabled.
#[utoipa::path(tag = "webhooks", operation_id = "updateWebhook",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    request_body = WebhookChange,
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 200, body = Webhook, description = "The endpoint as it is now"),
        (status = 400, description = "Malformed body or an unknown event type", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such webhook (`not-found`)", content_type = PROBLEM),
        (status = 422, description = "A URL or event set that cannot be used (`invalid-webhook`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[patch("/v1/webhooks/{id}")]
pub async fn update(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<Uuid>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    let change: WebhookChange = object_body(body.into_inner())?;
    let webhook = service
        .webhooks()
        .change(&caller, id.into_inner(), change)
        .await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(webhook))
}

/// Delete a webhook
///
/// Deletes an endpoint, with its undelivered messages and its delivery log.
#[utoipa::path(tag = "webhooks", operation_id = "deleteWebhook",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such webhook (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/webhooks/{id}")]
pub async fn remove(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    service.webhooks().delete(&caller, id.into_inner()).await?;
    Ok(for_the_caller(&mut HttpResponse::NoContent()).finish())
}

/// Rotate a webhook's secret
///
/// A new signing secret, shown this once. The old one goes on signing beside it for a day
/// (two signatures in `webhook-signature`), so a receiver can switch without losing a message.
#[utoipa::path(tag = "webhooks", operation_id = "rotateWebhookSecret",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 200, body = WebhookWithSecret, description = "The endpoint and its new secret"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such webhook (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/webhooks/{id}/rotate-secret")]
pub async fn rotate(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    let rotated = service
        .webhooks()
        .rotate_secret(&caller, id.into_inner())
        .await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(rotated))
}

/// Send a test message
///
/// Sends the endpoint a `webhook.test` message, delivered and logged like any other.
#[utoipa::path(tag = "webhooks", operation_id = "testWebhook",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 202, body = Delivery, description = "The ping, to be sent at once"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such webhook (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/webhooks/{id}/test")]
pub async fn test(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    let delivery = service.webhooks().test(&caller, id.into_inner()).await?;
    Ok(for_the_caller(&mut HttpResponse::Accepted()).json(delivery))
}

/// List a webhook's deliveries
///
/// The endpoint's messages, newest first, each with every attempt: when, the status, the
/// latency and the answer's first bytes.
#[utoipa::path(tag = "webhooks", operation_id = "listWebhookDeliveries",
    params(("id" = Uuid, Path, description = "The webhook's id"), DeliveriesQuery),
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 200, body = DeliveryPage, description = "A page of the delivery log",
            headers(("Link" = String, description = "`<…?cursor=…&limit=…>; rel=\"next\"` while there is a next page (its cursor is `next`)"))),
        (status = 400, description = "A `cursor` that is no page's `next`, or a bad `limit`", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such webhook (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/webhooks/{id}/deliveries")]
pub async fn deliveries(
    service: web::Data<Parlour>,
    request: actix_web::HttpRequest,
    bearer: Bearer,
    id: web::Path<Uuid>,
    query: web::Query<DeliveriesQuery>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    let limit = super::paging::limit(
        query.limit,
        crate::service::webhooks::DELIVERY_PAGE as u64,
        100,
    )?;
    let cursor = super::paging::cursor(query.cursor.as_deref(), query.before.as_deref());
    let page = service
        .webhooks()
        .deliveries(&caller, id.into_inner(), cursor, limit)
        .await?;
    let mut response = HttpResponse::Ok();
    super::paging::link_next(&mut response, &request, page.next.as_deref());
    Ok(for_the_caller(&mut response).json(page))
}

/// Send a delivery again
///
/// Sends a message again now, whatever came of it before.
#[utoipa::path(tag = "webhooks", operation_id = "retryWebhookDelivery",
    params(
        ("id" = Uuid, Path, description = "The webhook's id"),
        ("delivery" = String, Path, description = "The message's `webhook-id`", pattern = "^msg_[0-9a-f]{26}$"),
    ),
    security(("account_token" = ["webhooks:manage"])),
    responses(
        (status = 202, body = Delivery, description = "The message, due again now"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such webhook, or it has no such message (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/webhooks/{id}/deliveries/{delivery}/retry")]
pub async fn retry(
    service: web::Data<Parlour>,
    bearer: Bearer,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::WebhooksManage)
        .await?;
    let (id, delivery) = path.into_inner();
    let delivery = service
        .webhooks()
        .retry_delivery(&caller, id, &delivery)
        .await?;
    Ok(for_the_caller(&mut HttpResponse::Accepted()).json(delivery))
}

//! Email: an account's addresses, its notice preferences, and the two links every mail may
//! carry (`service::email`, `service::preferences`).
//!
//! A link's token travels in the query (`?token=`), which the request log redacts
//! (`telemetry::CREDENTIAL_PARAMETERS`). Opening a link (`GET`) only shows a page with a
//! button; the button, or a mail client's one-click unsubscribe (RFC 8058), `POST`s to the same
//! URL. So a scanner that fetches every link in a mail verifies or unsubscribes nothing.

use actix_web::http::header;
use actix_web::{delete, get, patch, post, put, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;
use uuid::Uuid;

use super::accounts::{for_the_caller, object_body};
use super::Bearer;
use crate::dto::{
    EmailAddress, EmailAddressChange, EmailAddressList, NewEmailAddress, NoticePreferences,
};
use crate::error::ApiError;
use crate::scopes::Scope;
use crate::service::email::escape;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// Add an email address
///
/// Keeps an address for the account, unverified, and mails it a link that verifies it
/// (working for 24 hours). Until its owner follows the link nothing else is mailed to it;
/// from then on the account's notices are, as its notice preferences say. Answers 422
/// `email-off` on a server whose operator set no mail server.
#[utoipa::path(tag = "email", operation_id = "createEmailAddress",
    request_body = NewEmailAddress,
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 201, body = EmailAddress, description = "Kept, and the verification mail is on its way"),
        (status = 400, description = "Malformed body", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 409, description = "The account holds the address already (`email-address-exists`)", content_type = PROBLEM),
        (status = 422, description = "Not an address, too many addresses (`invalid-email-address`), or no mail on this server (`email-off`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/me/email-addresses")]
pub async fn create(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let request: NewEmailAddress = object_body(body.into_inner())?;
    let address = service.email_addresses().add(&caller, request).await?;
    Ok(for_the_caller(&mut HttpResponse::Created()).json(address))
}

/// List my email addresses
///
/// The account's addresses, oldest first, each with whether it is verified and whether
/// notices are mailed to it; and whether this server sends mail at all.
#[utoipa::path(tag = "email", operation_id = "listEmailAddresses",
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = EmailAddressList, description = "The addresses"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/email-addresses")]
pub async fn list(service: web::Data<Parlour>, bearer: Bearer) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let list = service.email_addresses().list(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(list))
}

/// Turn an address's notices on or off
///
/// `{"notices": false}` stops mailing notices to the address, as the one-click unsubscribe
/// in every mail does; `{"notices": true}` starts again (after an unsubscribe, or after its
/// mail server refused it).
#[utoipa::path(tag = "email", operation_id = "updateEmailAddress",
    params(("id" = Uuid, Path, description = "The address's id")),
    request_body = EmailAddressChange,
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = EmailAddress, description = "Changed"),
        (status = 400, description = "Malformed body", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such address (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[patch("/v1/me/email-addresses/{id}")]
pub async fn change(
    service: web::Data<Parlour>,
    bearer: Bearer,
    id: web::Path<Uuid>,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let change: EmailAddressChange = object_body(body.into_inner())?;
    let address = service
        .email_addresses()
        .change(&caller, id.into_inner(), change)
        .await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(address))
}

/// Delete an email address
///
/// Nothing more is mailed to it, and what was waiting to be is dropped.
#[utoipa::path(tag = "email", operation_id = "deleteEmailAddress",
    params(("id" = Uuid, Path, description = "The address's id")),
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 404, description = "The account has no such address (`not-found`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/me/email-addresses/{id}")]
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
        .email_addresses()
        .remove(&caller, id.into_inner())
        .await?;
    Ok(for_the_caller(&mut HttpResponse::NoContent()).finish())
}

/// Get my notice preferences
///
/// Which notices are pushed to the account's browsers and which are mailed to its verified
/// addresses; its quiet hours, in which nothing is pushed or mailed (what comes then is sent
/// when they end); whether mail comes as one daily digest; and the time zone both are read
/// in. An account that never changed them has every notice on both channels, a mail for
/// each, no quiet hours, in UTC.
#[utoipa::path(tag = "email", operation_id = "getNoticePreferences",
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = NoticePreferences, description = "The preferences"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/notice-preferences")]
pub async fn get_preferences(
    service: web::Data<Parlour>,
    bearer: Bearer,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let preferences = service.notice_preferences().get(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(preferences))
}

/// Set my notice preferences
///
/// Replaces them whole (send every field). Notices already waiting keep the time they were
/// given; apps' webhooks are not bound by these.
#[utoipa::path(tag = "email", operation_id = "setNoticePreferences",
    request_body = NoticePreferences,
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = NoticePreferences, description = "Kept: the preferences"),
        (status = 400, description = "Malformed body", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 422, description = "A notice, time zone or time that cannot be used (`invalid-notice-preferences`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[put("/v1/me/notice-preferences")]
pub async fn set_preferences(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let chosen: NoticePreferences = object_body(body.into_inner())?;
    let kept = service.notice_preferences().put(&caller, chosen).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(kept))
}

/// A mailed link's token.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LinkQuery {
    /// The token the mail's link carries.
    token: String,
}

/// Open a verification link
///
/// The page a verification mail links to: a button that confirms the address (a `POST` to
/// the same URL). Opening it changes nothing.
#[utoipa::path(tag = "email", operation_id = "showEmailVerification",
    params(LinkQuery),
    responses(
        (status = 200, content_type = "text/html", body = String, description = "The page"),
        (status = 400, description = "No token", content_type = PROBLEM),
    ))]
#[get("/v1/email/verify")]
pub async fn verify_page(query: web::Query<LinkQuery>) -> HttpResponse {
    page(
        "Confirm your address",
        "Press the button to be told of your Parlour games at this address.",
        Some(("/v1/email/verify", &query.token, "Confirm")),
    )
}

/// Verify an email address
///
/// Confirms the address the token names: from now on notices are mailed to it. A browser
/// (whose `Accept` asks for HTML) is answered with a page, anything else with the address.
/// Following the link again changes nothing.
#[utoipa::path(tag = "email", operation_id = "verifyEmailAddress",
    params(LinkQuery),
    responses(
        (status = 200, body = EmailAddress, description = "Verified"),
        (status = 422, description = "A token this server did not mail, expired, or for an address removed since (`invalid-email-link`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/email/verify")]
pub async fn verify(
    service: web::Data<Parlour>,
    request: HttpRequest,
    query: web::Query<LinkQuery>,
) -> HttpResponse {
    let outcome = service.email_addresses().verify(&query.token).await;
    answer(&request, outcome, |address| {
        (
            "Address confirmed",
            format!(
                "Parlour will tell you of your games at {}, as your notice preferences say.",
                address.address
            ),
        )
    })
}

/// Open an unsubscribe link
///
/// The page the link at the foot of every notice mail opens: a button that stops the
/// notices (a `POST` to the same URL). Opening it changes nothing.
#[utoipa::path(tag = "email", operation_id = "showEmailUnsubscribe",
    params(LinkQuery),
    responses(
        (status = 200, content_type = "text/html", body = String, description = "The page"),
        (status = 400, description = "No token", content_type = PROBLEM),
    ))]
#[get("/v1/email/unsubscribe")]
pub async fn unsubscribe_page(query: web::Query<LinkQuery>) -> HttpResponse {
    page(
        "Stop these mails",
        "Press the button and Parlour mails this address no more notices.",
        Some(("/v1/email/unsubscribe", &query.token, "Unsubscribe")),
    )
}

/// Unsubscribe an email address
///
/// One-click unsubscribe (RFC 8058): a mail client `POST`s `List-Unsubscribe=One-Click` to
/// the URL in a mail's `List-Unsubscribe` header, or its reader presses the button on the
/// page. No more notices are mailed to the address, and those waiting are dropped; its owner
/// can turn them on again (`PATCH /v1/me/email-addresses/{id}`). Any body is ignored.
#[utoipa::path(tag = "email", operation_id = "unsubscribeEmailAddress",
    params(LinkQuery),
    responses(
        (status = 200, body = EmailAddress, description = "Unsubscribed"),
        (status = 422, description = "A token this server did not mail, or for an address removed since (`invalid-email-link`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/email/unsubscribe")]
pub async fn unsubscribe(
    service: web::Data<Parlour>,
    request: HttpRequest,
    query: web::Query<LinkQuery>,
) -> HttpResponse {
    let outcome = service.email_addresses().unsubscribe(&query.token).await;
    answer(&request, outcome, |address| {
        (
            "Unsubscribed",
            format!(
                "Parlour mails {} no more notices. To have them again, turn them on in your \
                 account.",
                address.address
            ),
        )
    })
}

/// A link's outcome: a page for a browser, JSON (the address, or the problem) otherwise.
fn answer(
    request: &HttpRequest,
    outcome: Result<EmailAddress, crate::service::ServiceError>,
    said: impl FnOnce(&EmailAddress) -> (&'static str, String),
) -> HttpResponse {
    let browser = request
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    match (outcome, browser) {
        (Ok(address), false) => for_the_caller(&mut HttpResponse::Ok()).json(address),
        (Ok(address), true) => {
            let (title, text) = said(&address);
            page(title, &text, None)
        }
        (Err(error), false) => actix_web::ResponseError::error_response(&ApiError::from(error)),
        (Err(error), true) => {
            let problem = ApiError::from(error);
            let status = actix_web::ResponseError::status_code(&problem);
            let mut response = page("This link does nothing", problem.detail(), None);
            *response.status_mut() = status;
            response
        }
    }
}

/// A small page: a title, a line, and perhaps a button that posts `token` to `action`. No
/// script, no style, nothing from elsewhere; no `Referer` leaves it, since its address holds
/// the token.
fn page(title: &str, text: &str, form: Option<(&str, &str, &str)>) -> HttpResponse {
    let button = form.map_or(String::new(), |(action, token, label)| {
        format!(
            "<form method=\"post\" action=\"{action}?token={token}\">\
             <input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\
             <button type=\"submit\">{label}</button></form>",
            token = url::form_urlencoded::byte_serialize(token.as_bytes()).collect::<String>(),
        )
    });
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · Parlour</title></head><body><h1>{title}</h1><p>{text}</p>{button}\
         <p><a href=\"/play\">Parlour</a></p></body></html>",
        title = escape(title),
        text = escape(text),
    );
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ))
        .body(body)
}

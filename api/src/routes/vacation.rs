//! An account's vacation: its days left, going away, coming back early.

use actix_web::{delete, get, post, web, HttpResponse};
use serde_json::Value;

use super::accounts::{for_the_caller, object_body};
use super::Bearer;
use crate::dto::{NewVacation, VacationStatus};
use crate::error::ApiError;
use crate::scopes::Scope;
use crate::service::Parlour;

const PROBLEM: &str = "application/problem+json";

/// Get my vacation
///
/// My vacation days this calendar year, and whether I am away now.
#[utoipa::path(tag = "accounts", operation_id = "getMyVacation",
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = VacationStatus, description = "The account's vacation days, and the end of the vacation under way"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[get("/v1/me/vacation")]
pub async fn show(service: web::Data<Parlour>, bearer: Bearer) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let status = service.vacation(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(status))
}

/// Go on vacation
///
/// Goes on vacation for some whole days from now: my clocks stop in every game I sit in that
/// allows it, recorded in each game's log. Asking again while away changes nothing, except
/// to record the vacation in a game that missed it.
#[utoipa::path(tag = "accounts", operation_id = "beginVacation",
    request_body = NewVacation,
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = VacationStatus, description = "Away: the vacation's end, and the days left"),
        (status = 400, description = "Malformed body, or `days` not from 1 to 366", content_type = PROBLEM),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 409, description = "More days than are left this year (`vacation-refused`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[post("/v1/me/vacation")]
pub async fn begin(
    service: web::Data<Parlour>,
    bearer: Bearer,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let request: NewVacation = object_body(body.into_inner())?;
    let status = service.begin_vacation(&caller, request).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(status))
}

/// End my vacation
///
/// Comes back from vacation early: my clocks run again from now, and the days not used are
/// mine again.
#[utoipa::path(tag = "accounts", operation_id = "endVacation",
    security(("account_token" = ["account:manage"])),
    responses(
        (status = 200, body = VacationStatus, description = "Back: the days left"),
        (status = 401, description = "No account token, an unknown or revoked one, or a seat token", content_type = PROBLEM),
        (status = 409, description = "The account is not on vacation (`vacation-refused`)", content_type = PROBLEM),
        (status = 503, description = "The database is not answering", content_type = PROBLEM),
    ))]
#[delete("/v1/me/vacation")]
pub async fn end(service: web::Data<Parlour>, bearer: Bearer) -> Result<HttpResponse, ApiError> {
    let caller = service
        .accounts()
        .authenticate(bearer.0.as_deref(), Scope::AccountManage)
        .await?;
    let status = service.end_vacation(&caller).await?;
    Ok(for_the_caller(&mut HttpResponse::Ok()).json(status))
}

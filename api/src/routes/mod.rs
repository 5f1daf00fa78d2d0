//! HTTP handlers: extract, call one service function, map to a response.

pub mod accounts;
mod assets;
pub mod bots;
pub mod catalog;
pub mod docs;
pub mod email;
pub mod games;
pub mod health;
pub mod keys;
pub mod matches;
pub mod metrics;
pub mod oauth;
mod paging;
pub mod passkeys;
pub mod play;
pub mod push;
pub mod seating;
pub mod statistics;
pub mod stream_tickets;
pub mod tables;
pub mod vacation;
pub mod webhooks;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use std::future::{ready, Ready};
use uuid::Uuid;

use crate::error::{ApiError, Problem};

/// The bearer token of the request, if it has one.
pub struct Bearer(pub Option<String>);

impl FromRequest for Bearer {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(value) = req.headers().get(header::AUTHORIZATION) else {
            return ready(Ok(Bearer(None)));
        };
        let token = value
            .to_str()
            .ok()
            .and_then(bearer_token)
            .map(str::trim)
            .filter(|t| !t.is_empty());
        ready(match token {
            Some(token) => Ok(Bearer(Some(token.to_string()))),
            None => Err(ApiError::new(
                Problem::Unauthorized,
                "the Authorization header must be `Bearer <token>`",
            )),
        })
    }
}

/// The token of an `Authorization: Bearer <token>` value. The scheme is matched without regard
/// to case (RFC 9110 §11.1): `Bearer`, `bearer` and `BEARER` are one scheme.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim_start().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(token)
}

/// A game id from the path; anything that is not a UUID names no game.
pub fn game_id(raw: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(raw)
        .map_err(|_| ApiError::new(Problem::GameNotFound, format!("there is no game {raw:?}")))
}

/// Registers every route of the API: each is served and documented from this one call (its
/// `#[utoipa::path]` gives the document its operation, its actix attribute gives both the
/// server and the document its method and path), so the two cannot disagree.
pub fn configure(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(catalog::list)
        .service(catalog::show)
        .service(catalog::game_schemas)
        .service(games::create)
        .service(games::show)
        .service(games::stream)
        .service(stream_tickets::for_game)
        .service(stream_tickets::for_notices)
        .service(games::act)
        .service(games::events)
        .service(games::state_at)
        .service(games::audit)
        .service(games::file)
        .service(games::scorecard)
        .service(games::export)
        .service(statistics::statistics)
        .service(matches::create)
        .service(matches::show)
        .service(matches::audit)
        .service(accounts::create)
        .service(accounts::me)
        .service(accounts::mint)
        .service(accounts::revoke)
        .service(accounts::sign_in_code)
        .service(accounts::sign_in)
        .service(accounts::email_sign_in)
        .service(oauth::check)
        .service(oauth::approve)
        .service(oauth::list)
        .service(oauth::remove)
        .service(passkeys::begin_registration)
        .service(passkeys::register)
        .service(passkeys::list)
        .service(passkeys::remove)
        .service(passkeys::begin_sign_in)
        .service(passkeys::sign_in)
        .service(seating::host)
        .service(seating::inbox)
        .service(seating::claim)
        .service(tables::list)
        .service(tables::join)
        .service(seating::offer)
        .service(seating::withdraw)
        .service(seating::abort)
        .service(seating::advance_test_clock)
        .service(seating::resign)
        .service(bots::hand_over)
        .service(bots::take_back)
        .service(seating::stream)
        .service(seating::notices)
        .service(vacation::show)
        .service(vacation::begin)
        .service(vacation::end)
        .service(webhooks::create)
        .service(webhooks::list)
        .service(webhooks::show)
        .service(webhooks::update)
        .service(webhooks::remove)
        .service(webhooks::rotate)
        .service(webhooks::test)
        .service(webhooks::deliveries)
        .service(webhooks::retry)
        .service(push::key)
        .service(push::subscribe)
        .service(push::list)
        .service(push::remove)
        .service(email::create)
        .service(email::list)
        .service(email::change)
        .service(email::remove)
        .service(email::get_preferences)
        .service(email::set_preferences)
        .service(email::verify_page)
        .service(email::verify)
        .service(email::unsubscribe_page)
        .service(email::unsubscribe)
        .service(keys::keys)
        .service(keys::checkpoints);
}

/// Registers the pages outside the API document: the web client, the metrics, the document
/// itself, its viewer, the problem pages, and OAuth's own endpoints (which speak RFC 6749's
/// forms rather than the API's JSON).
pub fn configure_pages(cfg: &mut web::ServiceConfig) {
    cfg.service(oauth::token)
        .service(oauth::revoke)
        .service(oauth::metadata)
        .service(play::root)
        .service(play::play)
        .service(play::favicon)
        .service(metrics::metrics)
        .service(docs::openapi_json)
        .service(docs::docs_page)
        .service(docs::problem);
}

#[cfg(test)]
mod tests {
    use super::bearer_token;

    #[test]
    fn the_bearer_scheme_is_matched_in_any_case() {
        for value in ["Bearer abc", "bearer abc", "BEARER abc", "bEaReR abc"] {
            assert_eq!(bearer_token(value).map(str::trim), Some("abc"), "{value}");
        }
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearerabc"), None);
    }
}

//! HTTP handlers: extract, call one service function, map to a response.

pub mod accounts;
mod assets;
pub mod bots;
pub mod catalog;
pub mod docs;
pub mod games;
pub mod health;
pub mod keys;
pub mod matches;
pub mod metrics;
pub mod play;
pub mod seating;
pub mod statistics;
pub mod vacation;
pub mod webhooks;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use std::collections::HashMap;
use std::future::{ready, Ready};
use std::sync::OnceLock;
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

/// The methods a route pattern (as actix matched it, `/v1/games/{id}`) answers, for `Allow`:
/// as the API document says, and `GET` for the few pages outside it (the docs page, the
/// problem pages, the document itself).
pub fn methods_at(pattern: &str) -> Vec<String> {
    static METHODS: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    let table = METHODS.get_or_init(|| {
        let document = crate::openapi::spec();
        let Some(paths) = document.get("paths").and_then(|paths| paths.as_object()) else {
            return HashMap::new();
        };
        paths
            .iter()
            .map(|(path, item)| {
                let mut methods: Vec<String> = ["get", "post", "put", "patch", "delete"]
                    .into_iter()
                    .filter(|method| item.get(*method).is_some())
                    .map(str::to_uppercase)
                    .collect();
                // Every GET route answers HEAD too (`http::head`).
                if item.get("get").is_some() {
                    methods.insert(1, "HEAD".to_string());
                }
                (path.clone(), methods)
            })
            .collect()
    });
    table
        .get(pattern)
        .cloned()
        .unwrap_or_else(|| vec!["GET".to_string(), "HEAD".to_string()])
}

/// Registers every route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(play::root)
        .service(play::play)
        .service(play::favicon)
        .service(metrics::metrics)
        .service(docs::openapi_json)
        .service(docs::docs_page)
        .service(docs::problem)
        .service(catalog::list)
        .service(catalog::show)
        .service(catalog::game_schemas)
        .service(games::create)
        .service(games::show)
        .service(games::stream)
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
        .service(seating::host)
        .service(seating::inbox)
        .service(seating::claim)
        .service(seating::offer)
        .service(seating::withdraw)
        .service(seating::abort)
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
        .service(keys::keys)
        .service(keys::checkpoints);
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

//! One error type for the whole API, rendered as `application/problem+json` (RFC 9457).
//!
//! Every problem has a stable `type` URI, `/problems/<code>`, served by this server with a
//! description of the problem; `PROBLEMS` is the one table from codes to statuses.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use parlour_domain::{Refused, SetupError};
use serde_json::{json, Map, Value};

use crate::service::ServiceError;

/// The kinds of problem a client can meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// The request is not well formed (bad JSON, bad header, bad query).
    MalformedRequest,
    /// The body is well-formed JSON but not a move of this game.
    InvalidAction,
    /// The catalogue has no such game.
    UnknownGame,
    /// Players or options do not fit the game.
    InvalidSetup,
    /// No token or an unknown one.
    Unauthorized,
    /// The token belongs to another game.
    WrongGame,
    /// No such game.
    GameNotFound,
    /// No such resource at all.
    NotFound,
    /// Not this seat's move (or the game is over).
    NotYourMove,
    /// The rules forbid the move.
    RuleViolation,
    /// `If-Match` is out of date.
    VersionMismatch,
    /// An `Idempotency-Key` reused for another move.
    IdempotencyKeyReused,
    /// Lost a race with another move.
    Conflict,
    /// The game has no such document.
    NoSuchDocument,
    /// Something published only once the game is over.
    GameInProgress,
    /// Games chosen for statistics that are unfinished, of another kind, or listed twice.
    InvalidSelection,
    /// The database does not answer.
    Unavailable,
    /// A fault on our side.
    Internal,
}

/// Code, status and title of every problem: the one place statuses are decided.
#[rustfmt::skip]
pub const PROBLEMS: &[(Problem, &str, u16, &str)] = &[
    (Problem::MalformedRequest,     "malformed-request",      400, "The request is malformed"),
    (Problem::InvalidAction,        "invalid-action",         400, "The body is not a move of this game"),
    (Problem::Unauthorized,         "unauthorized",           401, "A valid seat token is needed"),
    (Problem::WrongGame,            "wrong-game",             403, "The token belongs to another game"),
    (Problem::GameNotFound,         "game-not-found",         404, "No such game"),
    (Problem::NotFound,             "not-found",              404, "No such resource"),
    (Problem::NoSuchDocument,       "no-such-document",       404, "The game has no such document"),
    (Problem::NotYourMove,          "not-your-move",          409, "It is not your move"),
    (Problem::Conflict,             "conflict",               409, "Another move was recorded at the same time"),
    (Problem::GameInProgress,       "game-in-progress",       409, "The game is still being played"),
    (Problem::VersionMismatch,      "version-mismatch",       412, "The game has moved on"),
    (Problem::UnknownGame,          "unknown-game",           422, "Parlour does not offer that game"),
    (Problem::InvalidSetup,         "invalid-setup",          422, "The game cannot be set up like that"),
    (Problem::RuleViolation,        "rule-violation",         422, "The rules forbid that move"),
    (Problem::IdempotencyKeyReused, "idempotency-key-reused", 422, "Idempotency-Key reused for another move"),
    (Problem::InvalidSelection,     "invalid-selection",      422, "Those games cannot be counted together"),
    (Problem::Internal,             "internal",               500, "Something went wrong on our side"),
    (Problem::Unavailable,          "unavailable",            503, "The database is not answering"),
];

impl Problem {
    fn entry(self) -> (&'static str, u16, &'static str) {
        PROBLEMS
            .iter()
            .find(|(p, ..)| *p == self)
            .map(|(_, code, status, title)| (*code, *status, *title))
            .unwrap_or(("internal", 500, "Something went wrong on our side"))
    }

    /// The stable code, as used in the `type` URI.
    pub fn code(self) -> &'static str {
        self.entry().0
    }
}

/// An error answered to a client.
#[derive(Debug)]
pub struct ApiError {
    problem: Problem,
    detail: String,
    extensions: Map<String, Value>,
}

impl ApiError {
    /// A problem with a detail message.
    pub fn new(problem: Problem, detail: impl Into<String>) -> Self {
        ApiError {
            problem,
            detail: detail.into(),
            extensions: Map::new(),
        }
    }

    fn with(mut self, key: &str, value: Value) -> Self {
        self.extensions.insert(key.to_string(), value);
        self
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.problem.code(), self.detail)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.problem.entry().1).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        let (code, status, title) = self.problem.entry();
        if status >= 500 {
            tracing::error!(problem = code, detail = %self.detail, "request failed");
        }
        let mut body = Map::new();
        body.insert("type".into(), json!(format!("/problems/{code}")));
        body.insert("title".into(), json!(title));
        body.insert("status".into(), json!(status));
        // Faults on our side are logged in full, but a client is not shown their insides.
        let detail = if status >= 500 && self.problem == Problem::Internal {
            "The server could not complete the request; it has been logged.".to_string()
        } else {
            self.detail.clone()
        };
        body.insert("detail".into(), json!(detail));
        body.extend(self.extensions.clone());
        HttpResponse::build(self.status_code())
            .content_type("application/problem+json")
            .json(Value::Object(body))
    }
}

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        let detail = error.to_string();
        match error {
            ServiceError::GameNotFound(_) => ApiError::new(Problem::GameNotFound, detail),
            ServiceError::UnknownGame(_) => ApiError::new(Problem::UnknownGame, detail),
            ServiceError::Setup(SetupError::PlayerCount { .. }) => {
                ApiError::new(Problem::InvalidSetup, detail)
            }
            ServiceError::Setup(SetupError::Options(_)) => {
                ApiError::new(Problem::InvalidSetup, detail)
            }
            ServiceError::BadRequest(_) => ApiError::new(Problem::MalformedRequest, detail),
            ServiceError::Unauthorized(_) => ApiError::new(Problem::Unauthorized, detail),
            ServiceError::WrongGame => ApiError::new(Problem::WrongGame, detail),
            ServiceError::Refused(Refused::Malformed(_)) => {
                ApiError::new(Problem::InvalidAction, detail)
            }
            ServiceError::Refused(Refused::NotYourMove { rule, .. }) => {
                ApiError::new(Problem::NotYourMove, detail).with("rule", json!(rule))
            }
            ServiceError::Refused(Refused::Forbidden { rule, .. }) => {
                ApiError::new(Problem::RuleViolation, detail).with("rule", json!(rule))
            }
            ServiceError::Stale { current, .. } => ApiError::new(Problem::VersionMismatch, detail)
                .with("current_version", json!(current)),
            ServiceError::KeyReused => ApiError::new(Problem::IdempotencyKeyReused, detail),
            ServiceError::Conflict => ApiError::new(Problem::Conflict, detail),
            ServiceError::Selection(_) => ApiError::new(Problem::InvalidSelection, detail),
            ServiceError::NoSuchDocument(_) => ApiError::new(Problem::NoSuchDocument, detail),
            ServiceError::InProgress(_) => ApiError::new(Problem::GameInProgress, detail),
            ServiceError::Internal(_) => ApiError::new(Problem::Internal, detail),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_has_one_entry_and_a_unique_code() {
        let mut codes: Vec<&str> = PROBLEMS.iter().map(|(_, code, ..)| *code).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), PROBLEMS.len());
        assert!(PROBLEMS.iter().all(|(p, code, ..)| p.code() == *code));
        // Every variant must be listed; a missing one would silently answer 500.
        let listed: Vec<Problem> = PROBLEMS.iter().map(|(p, ..)| *p).collect();
        for problem in [
            Problem::MalformedRequest,
            Problem::InvalidAction,
            Problem::UnknownGame,
            Problem::InvalidSetup,
            Problem::Unauthorized,
            Problem::WrongGame,
            Problem::GameNotFound,
            Problem::NotFound,
            Problem::NotYourMove,
            Problem::RuleViolation,
            Problem::VersionMismatch,
            Problem::IdempotencyKeyReused,
            Problem::Conflict,
            Problem::NoSuchDocument,
            Problem::GameInProgress,
            Problem::InvalidSelection,
            Problem::Unavailable,
            Problem::Internal,
        ] {
            assert!(listed.contains(&problem), "{problem:?} is not in PROBLEMS");
        }
    }
}

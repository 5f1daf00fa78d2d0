//! Structured logs: `RUST_LOG` sets the level; every line of a request carries its request id.
//!
//! Each request is logged at most once, when it ends, at a level that fits its outcome: a fault
//! on our side (5xx) at ERROR with its cause, a client's mistake (4xx) at DEBUG, so that a
//! flood of refused requests (a fuzzer, a broken client) cannot fill the disk at the default
//! level. What a client sent (the path and query) is cut to `LOGGED_TARGET_CHARS`.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, HttpMessage};
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};
use tracing_subscriber::{fmt, EnvFilter};

use crate::error::truncated;

/// Longest request target (path and query) written to the log.
pub const LOGGED_TARGET_CHARS: usize = 160;

/// Installs the global subscriber once; later calls (in tests) do nothing.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = fmt().with_env_filter(filter).with_target(false).try_init();
}

/// The span every request's log lines are written in: its id, method and (bounded) target.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let id = request
            .extensions()
            .get::<RequestId>()
            .map(|id| id.to_string())
            .unwrap_or_default();
        let target = request
            .uri()
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/");
        tracing::info_span!(
            "request",
            request_id = %id,
            method = %request.method(),
            target = %truncated(target, LOGGED_TARGET_CHARS),
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let _entered = span.enter();
        let (status, error) = match outcome {
            Ok(response) => (
                response.status(),
                response.response().error().map(ToString::to_string),
            ),
            Err(error) => (
                error.as_response_error().status_code(),
                Some(error.to_string()),
            ),
        };
        let Some(error) = error else { return };
        if status.is_server_error() {
            tracing::error!(status = status.as_u16(), "{error}");
        } else {
            // Bounded again: errors that are not ours (actix's own) may quote the request.
            let error = truncated(&error, 2 * LOGGED_TARGET_CHARS);
            tracing::debug!(status = status.as_u16(), "{error}");
        }
    }
}

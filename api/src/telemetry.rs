//! Logs and request metrics: `RUST_LOG` sets the level, `--log-format` the format; every line
//! of a request carries its request id (and its trace id when the client sent `traceparent`).
//!
//! Each request ends with one access-log line at INFO on its own target, `parlour::access`
//! (method, route pattern, status, time taken, request id), which `RUST_LOG` can silence on
//! its own (`RUST_LOG=info,parlour::access=off`). Besides it, a fault on our side (5xx) is
//! logged at ERROR with its cause, and a client's mistake (4xx) at DEBUG, so that a flood of
//! refused requests costs one short access line each, not an error report. What a client sent
//! (the path and query) is cut to `LOGGED_TARGET_CHARS`, and the value of every query
//! parameter that carries a credential (`CREDENTIAL_PARAMETERS`: an invitation's code in a
//! link, a token some client put in a URL) is written as `[redacted]`: a log is read by more
//! people, and kept longer, than any secret should be.

use std::io::IsTerminal;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{web, Error, HttpMessage};
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};
use tracing_subscriber::{fmt, EnvFilter};

use crate::error::truncated;
use crate::http::metrics::Metrics;
use crate::http::trace::{self, RequestContext, TraceContext};

/// Longest request target (path and query) written to the log.
pub const LOGGED_TARGET_CHARS: usize = 160;
/// The target of the access log's lines.
pub const ACCESS_TARGET: &str = "parlour::access";
/// The query parameters whose values are credentials, never written to a log (compared
/// without regard to case, once percent-decoded): the invitation link's code, a stream ticket, and
/// the names clients use for a bearer token in a URL.
pub const CREDENTIAL_PARAMETERS: [&str; 5] =
    ["invitation", "code", "token", "access_token", "ticket"];
/// What a credential's value is written as.
pub const REDACTED: &str = "[redacted]";

/// A request target (path and query) as it may be logged: every credential's value replaced
/// by [`REDACTED`], everything else as sent.
pub fn loggable_target(target: &str) -> String {
    let Some((path, query)) = target.split_once('?') else {
        return target.to_string();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| {
            let Some((name, _value)) = pair.split_once('=') else {
                return pair.to_string();
            };
            // Decoded as the server reads it, so `%63ode=` or `Code=` hides nothing.
            let decoded: String = url::form_urlencoded::parse(name.as_bytes())
                .map(|(key, _)| key.into_owned())
                .collect();
            let secret = CREDENTIAL_PARAMETERS
                .iter()
                .any(|c| decoded.trim().eq_ignore_ascii_case(c));
            if secret {
                format!("{name}={REDACTED}")
            } else {
                pair.to_string()
            }
        })
        .collect();
    format!("{path}?{}", pairs.join("&"))
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (coloured only when written to a terminal).
    #[default]
    Text,
    /// One JSON object a line, for log collectors.
    Json,
}

/// Installs the global subscriber once, writing text; later calls (in tests) do nothing.
pub fn init() {
    init_with(LogFormat::Text);
}

/// Installs the global subscriber once, writing `format` to standard output; later calls do
/// nothing.
pub fn init_with(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Text => builder
            .with_target(false)
            .with_ansi(std::io::stdout().is_terminal())
            .try_init(),
        // The request's span (its id, method, target, trace) rides along on every line; the
        // event's own fields sit at the top level, where collectors look for them. `spans`
        // lists every span the line was written in, outermost first: the request, then the
        // use case, the commit and the store call (those at `debug`), each with its game.
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(true)
            .try_init(),
    };
}

/// Installs the global subscriber for tests once: lines go through the test harness's capture
/// (shown only for a test that fails) instead of flooding the run's output with access logs.
pub fn init_for_tests() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(false)
        .with_test_writer()
        .try_init();
}

/// The span every request's log lines are written in: its id, method, (bounded) target, and
/// its trace when it has one. It also records the request's context for the answer.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let id = request
            .headers()
            .get(trace::REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .and_then(trace::client_request_id)
            .map(str::to_string)
            .or_else(|| {
                request
                    .extensions()
                    .get::<RequestId>()
                    .map(|id| id.to_string())
            })
            .unwrap_or_default();
        let trace = request
            .headers()
            .get(trace::TRACEPARENT)
            .and_then(|v| v.to_str().ok())
            .and_then(TraceContext::continued_from);
        let target = request
            .uri()
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/");
        let span = tracing::info_span!(
            "request",
            request_id = %id,
            method = %request.method(),
            target = %truncated(&loggable_target(target), LOGGED_TARGET_CHARS),
            trace_id = tracing::field::Empty,
            span_id = tracing::field::Empty,
            parent_span_id = tracing::field::Empty,
        );
        if let Some(trace) = &trace {
            use tracing::field::display;
            span.record("trace_id", display(&trace.trace_id));
            span.record("span_id", display(&trace.span_id));
            span.record("parent_span_id", display(&trace.parent_id));
        }
        let route = request
            .match_pattern()
            .unwrap_or_else(|| trace::UNMATCHED.to_string());
        request.extensions_mut().insert(RequestContext {
            id,
            trace,
            route,
            started: Instant::now(),
        });
        span
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let _entered = span.enter();
        let (status, error) = match outcome {
            Ok(response) => {
                let request = response.request();
                let status = response.status();
                if let Some(context) = request.extensions().get::<RequestContext>() {
                    let took = context.started.elapsed();
                    if let Some(metrics) = request.app_data::<web::Data<Metrics>>() {
                        metrics.observe(request.method(), &context.route, status.as_u16(), took);
                    }
                    tracing::info!(
                        target: ACCESS_TARGET,
                        method = %request.method(),
                        route = %context.route,
                        status = status.as_u16(),
                        // To the microsecond: finer is noise.
                        duration_ms = took.as_micros() as f64 / 1_000.0,
                        request_id = %context.id,
                        "{} {} {}",
                        request.method(),
                        context.route,
                        status.as_u16(),
                    );
                }
                (status, response.response().error().map(ToString::to_string))
            }
            Err(error) => {
                let status = error.as_response_error().status_code();
                tracing::info!(target: ACCESS_TARGET, status = status.as_u16(), "{}", status.as_u16());
                (status, Some(error.to_string()))
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_credential_in_the_query_is_logged_as_redacted_and_the_rest_as_sent() {
        assert_eq!(
            loggable_target("/play/games/abc?seat=1&invitation=inv_0123"),
            "/play/games/abc?seat=1&invitation=[redacted]"
        );
        assert_eq!(
            loggable_target("/x?code=signin_9&token=t&access_token=a&wait=60&ticket=stkt_1"),
            "/x?code=[redacted]&token=[redacted]&access_token=[redacted]&wait=60&ticket=[redacted]"
        );
    }

    #[test]
    fn a_credential_spelled_otherwise_is_redacted_all_the_same() {
        for target in [
            "/x?Invitation=inv_0123",
            "/x?%69nvitation=inv_0123",
            "/x?ACCESS_TOKEN=inv_0123",
            "/x?a=1&&code=inv_0123&b",
            "/x?code=inv_0123=more",
        ] {
            let logged = loggable_target(target);
            assert!(
                !logged.contains("inv_0123"),
                "{target} was logged as {logged}"
            );
            assert!(logged.starts_with("/x?"), "{logged}");
        }
    }

    #[test]
    fn a_target_without_credentials_is_logged_as_sent() {
        for target in [
            "/v1/catalog",
            "/v1/games/1?wait=60",
            "/x?",
            "/x?codes=1&mytoken=2",
        ] {
            assert_eq!(loggable_target(target), target);
        }
    }
}

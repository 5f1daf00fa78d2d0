//! Which request this is: its request id and the W3C trace it belongs to.
//!
//! The request id is the client's own `x-request-id` when it sent one that is safe to write
//! into a log (at most `MAX_REQUEST_ID_CHARS` characters from `SAFE_PUNCTUATION` and ASCII
//! letters and digits); otherwise one is generated. Either way it is on every log line of the
//! request and echoed in the answer's `x-request-id`.
//!
//! A valid incoming `traceparent` (W3C Trace Context) puts the request in the caller's trace:
//! its trace id and the caller's span id are recorded in the request's span, the request gets
//! a span id of its own, and the answer carries `traceparent` with the same trace id and that
//! new span id, so a client can find the server's log lines for its call. A request without
//! one (or with a malformed one) starts no trace.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};

/// The request id header, read from requests and written on every answer.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
/// The W3C Trace Context header.
pub const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
/// Longest request id taken from a client.
pub const MAX_REQUEST_ID_CHARS: usize = 128;
/// The characters besides ASCII letters and digits a client's request id may hold: enough for
/// UUIDs, ULIDs, base64 and the usual `service:host/123` shapes, and nothing that could break
/// a log line or a header.
pub const SAFE_PUNCTUATION: &str = "-_.:+=/@";
/// The route label of a request that matched no route.
pub const UNMATCHED: &str = "unmatched";

/// What the server knows about a request from its start, kept in its extensions.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The request id (the client's, or generated).
    pub id: String,
    /// The trace it is part of, if the client sent a valid `traceparent`.
    pub trace: Option<TraceContext>,
    /// The route pattern it matched (`/v1/games/{id}`), or `UNMATCHED`: never the raw path, so
    /// logs and metrics keyed by it stay bounded whatever paths clients make up.
    pub route: String,
    /// When the server began on it.
    pub started: Instant,
}

/// The client's request id, if it may be used as ours.
pub fn client_request_id(value: &str) -> Option<&str> {
    let safe = |c: char| c.is_ascii_alphanumeric() || SAFE_PUNCTUATION.contains(c);
    (!value.is_empty() && value.len() <= MAX_REQUEST_ID_CHARS && value.chars().all(safe))
        .then_some(value)
}

/// A request's place in a W3C trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// The trace id: 32 lower-case hex digits, not all zero.
    pub trace_id: String,
    /// The caller's span id: 16 lower-case hex digits.
    pub parent_id: String,
    /// This request's own span id, new for each request.
    pub span_id: String,
    /// The trace flags as sent (bit 0: sampled).
    pub flags: u8,
}

impl TraceContext {
    /// The context of a request that came with this `traceparent`, with a new span id of its
    /// own; `None` if the header is not a valid `traceparent` (W3C Trace Context §3.2: version
    /// `ff` is invalid, a later version may add fields after ours, ids must not be all zero).
    pub fn continued_from(traceparent: &str) -> Option<Self> {
        let value = traceparent.trim();
        let mut parts = value.split('-');
        let version = parts.next()?;
        let trace_id = parts.next()?;
        let parent_id = parts.next()?;
        let flags = parts.next()?;
        let later_fields = parts.next().is_some();
        if !is_hex(version, 2) || version == "ff" || (version == "00" && later_fields) {
            return None;
        }
        if !is_hex(trace_id, 32) || !is_hex(parent_id, 16) || !is_hex(flags, 2) {
            return None;
        }
        if all_zero(trace_id) || all_zero(parent_id) {
            return None;
        }
        Some(TraceContext {
            trace_id: trace_id.to_string(),
            parent_id: parent_id.to_string(),
            span_id: new_span_id(),
            flags: u8::from_str_radix(flags, 16).ok()?,
        })
    }

    /// The `traceparent` naming this request's own span, for the answer (and for any call
    /// made on its behalf).
    pub fn traceparent(&self) -> String {
        format!("00-{}-{}-{:02x}", self.trace_id, self.span_id, self.flags)
    }
}

/// `text` is exactly `len` lower-case hex digits (the spec allows no upper case).
fn is_hex(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn all_zero(text: &str) -> bool {
    text.bytes().all(|b| b == b'0')
}

/// A random, non-zero 64-bit span id as 16 hex digits (from a v4 UUID's random half, the
/// same source as generated request ids).
fn new_span_id() -> String {
    let (_, random) = uuid::Uuid::new_v4().as_u64_pair();
    format!("{:016x}", random.max(1))
}

/// Echoes the request id, and the request's own `traceparent` when it is part of a trace, on
/// the answer.
pub async fn echo(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let mut res = next.call(req).await?;
    let (id, traceparent) = match res.request().extensions().get::<RequestContext>() {
        Some(context) => (
            HeaderValue::from_str(&context.id).ok(),
            context
                .trace
                .as_ref()
                .and_then(|t| HeaderValue::from_str(&t.traceparent()).ok()),
        ),
        None => (None, None),
    };
    if let Some(id) = id {
        res.headers_mut().insert(REQUEST_ID, id);
    }
    if let Some(traceparent) = traceparent {
        res.headers_mut().insert(TRACEPARENT, traceparent);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_safe_client_request_id_is_kept() {
        for id in [
            "abc-123",
            "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
            "web:host/42",
            "aGVsbG8=",
        ] {
            assert_eq!(client_request_id(id), Some(id));
        }
    }

    #[test]
    fn an_unsafe_or_long_client_request_id_is_not_used() {
        for id in ["", "two words", "quote\"d", "new\nline", "é", "<script>"] {
            assert_eq!(client_request_id(id), None, "{id:?}");
        }
        assert_eq!(
            client_request_id(&"a".repeat(MAX_REQUEST_ID_CHARS)).map(str::len),
            Some(MAX_REQUEST_ID_CHARS)
        );
        assert_eq!(
            client_request_id(&"a".repeat(MAX_REQUEST_ID_CHARS + 1)),
            None
        );
    }

    #[test]
    fn a_valid_traceparent_is_continued_with_a_new_span_of_the_same_trace() {
        let context = TraceContext::continued_from(VALID).unwrap();
        assert_eq!(context.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(context.parent_id, "00f067aa0ba902b7");
        assert_eq!(context.flags, 1);
        assert_ne!(context.span_id, context.parent_id);
        let echoed = context.traceparent();
        assert!(
            echoed.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-"),
            "{echoed}"
        );
        assert!(echoed.ends_with("-01"), "{echoed}");
        assert_eq!(echoed.len(), VALID.len());
        let again = TraceContext::continued_from(VALID).unwrap();
        assert_ne!(again.span_id, context.span_id);
    }

    #[test]
    fn a_later_version_may_carry_more_fields() {
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next";
        let context = TraceContext::continued_from(later).unwrap();
        assert_eq!(context.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert!(context.traceparent().starts_with("00-"));
    }

    #[test]
    fn a_malformed_traceparent_starts_no_trace() {
        for bad in [
            "",
            "garbage",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceContext::continued_from(bad), None, "{bad:?}");
        }
    }
}

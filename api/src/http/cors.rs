//! Cross-origin access for browser apps (the Fetch standard's CORS protocol).
//!
//! Parlour authenticates with bearer tokens that a page sends in `Authorization` itself; it
//! sets no cookies and trusts no ambient credential (no cookie, no client certificate, no
//! address), so a cross-origin page can do nothing a script outside the browser could not
//! already do with the same token. That is why the default is any origin (`*`), without
//! credentials mode. An operator may list origins instead, or switch cross-origin access off
//! (`none`); `docs/operations.md` says when to.
//!
//! A preflight (`OPTIONS` with `Access-Control-Request-Method`) is always answered here, with
//! `204`, whatever the path (never 404 or 405): for an allowed origin with the methods and
//! headers Parlour accepts, for any other without a single `Access-Control-Allow-*` header, so
//! the browser refuses the call.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap, HeaderValue};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, Error, HttpResponse};

/// The methods Parlour's routes answer to (and a preflight allows): every method of the API
/// document (a test holds them equal), and `HEAD` on each `GET`.
pub const ALLOWED_METHODS: &str = "GET, HEAD, POST, PUT, PATCH, DELETE";
/// The request headers a cross-origin call may send: those Parlour reads, and the trace
/// headers browser instrumentation adds.
pub const ALLOWED_HEADERS: &str = "Authorization, Content-Type, Accept, If-Match, If-None-Match, \
     Idempotency-Key, X-Request-Id, Traceparent, Tracestate";
/// The answer headers a cross-origin page may read, besides the ones every page may.
pub const EXPOSED_HEADERS: &str = "ETag, Location, Link, Retry-After, RateLimit-Policy, \
     RateLimit, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Idempotent-Replayed, \
     X-Request-Id, Traceparent, WWW-Authenticate, Allow, Accept-Post";
/// How long a browser may keep a preflight's answer, in seconds (browsers cap it: Chromium at
/// two hours).
pub const MAX_AGE_SECONDS: u32 = 7_200;

/// Which origins may call the API from a browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedOrigins {
    /// No cross-origin access: nothing is added to any answer.
    None,
    /// Any origin (`Access-Control-Allow-Origin: *`).
    Any,
    /// These origins (`scheme://host[:port]`, lower case), each echoed back when it calls.
    List(Vec<String>),
}

/// The cross-origin policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorsSettings {
    /// Who may call.
    pub origins: AllowedOrigins,
    /// Whether credentials mode is allowed (`Access-Control-Allow-Credentials: true`). Parlour
    /// needs none (its tokens go in `Authorization`, which a page sends itself); never with
    /// `Any`.
    pub allow_credentials: bool,
}

impl Default for CorsSettings {
    /// Any origin, without credentials.
    fn default() -> Self {
        CorsSettings {
            origins: AllowedOrigins::Any,
            allow_credentials: false,
        }
    }
}

/// Why a CORS setting was refused at start-up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CorsError {
    /// `*` lets any page read the answers; with credentials that would include answers made
    /// with a visitor's cookies, which the Fetch standard forbids (and browsers ignore).
    #[error(
        "CORS: `*` (any origin) cannot be combined with credentials; list the origins instead"
    )]
    AnyWithCredentials,
    /// `*` or `none` listed with other origins: which was meant?
    #[error("CORS: `{0}` must be the only allowed origin given")]
    NotAlone(String),
    /// Not an origin.
    #[error("CORS: {0:?} is not an origin (scheme://host[:port], no path)")]
    NotAnOrigin(String),
}

impl CorsSettings {
    /// The policy for these `--cors-allow-origin` values: `*`, `none`, or origins such as
    /// `https://app.example.com`. Blank values are skipped; none at all means `none`.
    pub fn parse(values: &[String], allow_credentials: bool) -> Result<Self, CorsError> {
        let values: Vec<&str> = values
            .iter()
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
            .collect();
        let origins = match values.as_slice() {
            [] => AllowedOrigins::None,
            ["*"] => AllowedOrigins::Any,
            [only] if only.eq_ignore_ascii_case("none") => AllowedOrigins::None,
            many => {
                let mut list = Vec::new();
                for value in many {
                    if *value == "*" || value.eq_ignore_ascii_case("none") {
                        return Err(CorsError::NotAlone((*value).to_string()));
                    }
                    let origin = normalised_origin(value)
                        .ok_or_else(|| CorsError::NotAnOrigin((*value).to_string()))?;
                    if !list.contains(&origin) {
                        list.push(origin);
                    }
                }
                AllowedOrigins::List(list)
            }
        };
        if origins == AllowedOrigins::Any && allow_credentials {
            return Err(CorsError::AnyWithCredentials);
        }
        Ok(CorsSettings {
            origins,
            allow_credentials,
        })
    }

    /// The `Access-Control-Allow-Origin` to send to a call from `origin`, if it may call.
    fn allowed(&self, origin: Option<&HeaderValue>) -> Option<HeaderValue> {
        match &self.origins {
            AllowedOrigins::None => None,
            AllowedOrigins::Any => Some(HeaderValue::from_static("*")),
            AllowedOrigins::List(list) => {
                let origin = origin?;
                let text = origin.to_str().ok()?;
                list.iter()
                    .any(|allowed| allowed.eq_ignore_ascii_case(text))
                    .then(|| origin.clone())
            }
        }
    }

    /// Whether the answer depends on the request's `Origin` (and so must say `Vary: Origin`).
    fn varies_by_origin(&self) -> bool {
        matches!(self.origins, AllowedOrigins::List(_))
    }

    /// The answer to a preflight from `origin`.
    fn preflight(&self, origin: Option<&HeaderValue>) -> HttpResponse {
        let mut response = HttpResponse::NoContent();
        if self.varies_by_origin() {
            response.insert_header((header::VARY, "Origin"));
        }
        if let Some(allowed) = self.allowed(origin) {
            response
                .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, allowed))
                .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, ALLOWED_METHODS))
                .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOWED_HEADERS))
                .insert_header((header::ACCESS_CONTROL_MAX_AGE, MAX_AGE_SECONDS.to_string()));
            if self.allow_credentials {
                response.insert_header((header::ACCESS_CONTROL_ALLOW_CREDENTIALS, "true"));
            }
        }
        response.finish()
    }

    /// Adds what a page from `origin` needs to read this answer.
    fn decorate(&self, origin: Option<&HeaderValue>, headers: &mut HeaderMap) {
        if self.varies_by_origin() {
            // Appended: the answer may already vary by something else (`Authorization`).
            headers.append(header::VARY, HeaderValue::from_static("Origin"));
        }
        if let Some(allowed) = self.allowed(origin) {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allowed);
            headers.insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static(EXPOSED_HEADERS),
            );
            if self.allow_credentials {
                headers.insert(
                    header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
                    HeaderValue::from_static("true"),
                );
            }
        }
    }
}

/// `value` as an origin compares: `scheme://host[:port]` in lower case, without a trailing
/// `/`; `None` if it is not one (a path, a query, user info, `null`, no host).
fn normalised_origin(value: &str) -> Option<String> {
    let value = value
        .strip_suffix('/')
        .unwrap_or(value)
        .to_ascii_lowercase();
    let (scheme, rest) = value.split_once("://")?;
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_lowercase())
        && scheme
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+-.".contains(c));
    let (host, port) = match rest.rsplit_once(':') {
        // An IPv6 literal (`[::1]`) has colons of its own; a port follows its bracket.
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (rest, None),
    };
    let host_ok = !host.is_empty()
        && host.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || "-._[]:".contains(c)
                || (!c.is_ascii() && c.is_alphanumeric())
        });
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    (scheme_ok && host_ok && port_ok).then_some(value)
}

/// Whether the request is a CORS preflight rather than a call of its own.
fn is_preflight(req: &ServiceRequest) -> bool {
    req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
}

/// Answers preflights, and adds the CORS headers an allowed origin needs to every answer.
pub async fn cors(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let Some(policy) = req.app_data::<web::Data<CorsSettings>>().cloned() else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    let origin = req.headers().get(header::ORIGIN).cloned();
    if is_preflight(&req) {
        let response = policy.preflight(origin.as_ref());
        return Ok(req.into_response(response).map_into_right_body());
    }
    let mut res = next.call(req).await?;
    policy.decorate(origin.as_ref(), res.headers_mut());
    Ok(res.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(values: &[&str]) -> Result<CorsSettings, CorsError> {
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        CorsSettings::parse(&values, false)
    }

    #[test]
    fn the_default_is_any_origin_without_credentials() {
        let settings = CorsSettings::default();
        assert_eq!(settings.origins, AllowedOrigins::Any);
        assert!(!settings.allow_credentials);
        assert_eq!(parse(&["*"]).unwrap(), settings);
    }

    #[test]
    fn origins_are_compared_in_lower_case_without_a_trailing_slash() {
        let settings = parse(&["https://App.Example.com/", "http://localhost:5173"]).unwrap();
        assert_eq!(
            settings.origins,
            AllowedOrigins::List(vec![
                "https://app.example.com".into(),
                "http://localhost:5173".into()
            ])
        );
        let from = |o: &'static str| settings.allowed(Some(&HeaderValue::from_static(o)));
        assert_eq!(
            from("https://app.example.com"),
            Some(HeaderValue::from_static("https://app.example.com"))
        );
        assert_eq!(from("https://evil.example.com"), None);
        assert_eq!(from("http://app.example.com"), None);
        assert_eq!(settings.allowed(None), None);
    }

    #[test]
    fn none_or_nothing_switches_cross_origin_access_off() {
        assert_eq!(parse(&["none"]).unwrap().origins, AllowedOrigins::None);
        assert_eq!(parse(&[]).unwrap().origins, AllowedOrigins::None);
        assert_eq!(parse(&[" "]).unwrap().origins, AllowedOrigins::None);
    }

    #[test]
    fn any_origin_with_credentials_is_refused() {
        assert_eq!(
            CorsSettings::parse(&["*".to_string()], true),
            Err(CorsError::AnyWithCredentials)
        );
        let listed = CorsSettings::parse(&["https://app.example.com".to_string()], true).unwrap();
        assert!(listed.allow_credentials);
    }

    #[test]
    fn a_wildcard_or_none_among_other_origins_is_refused() {
        assert_eq!(
            parse(&["*", "https://app.example.com"]),
            Err(CorsError::NotAlone("*".into()))
        );
        assert_eq!(
            parse(&["https://app.example.com", "none"]),
            Err(CorsError::NotAlone("none".into()))
        );
    }

    #[test]
    fn what_is_not_an_origin_is_refused() {
        for bad in [
            "app.example.com",
            "https://app.example.com/path",
            "https://app.example.com?x",
            "https://user@app.example.com",
            "null",
            "https://",
            "https://app.example.com:port",
            "https://*.example.com",
        ] {
            assert!(
                matches!(parse(&[bad]), Err(CorsError::NotAnOrigin(_))),
                "{bad}"
            );
        }
        for good in [
            "capacitor://localhost",
            "http://[::1]:8080",
            "http://127.0.0.1:3000",
        ] {
            assert!(parse(&[good]).is_ok(), "{good}");
        }
    }
}

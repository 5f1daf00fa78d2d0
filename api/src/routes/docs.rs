//! The OpenAPI document, the interactive docs page and the problem-type pages.

use std::io::Write;
use std::sync::OnceLock;

use actix_web::http::header::{self, ContentType};
use actix_web::{get, web, HttpRequest, HttpResponse};
use serde_json::json;

use crate::error::{ApiError, Problem, PROBLEMS};
use crate::openapi::spec;

const SWAGGER_JS: &str = include_str!("../../static/swagger-ui/swagger-ui-bundle.js");
const SWAGGER_CSS: &str = include_str!("../../static/swagger-ui/swagger-ui.css");

const DOCS_PAGE: &str = r##"<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Parlour API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
  </script>
</body>
</html>
"##;

/// The OpenAPI 3.1 document of this server.
#[get("/openapi.json")]
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(spec())
}

/// Interactive API documentation (Swagger UI, served from this binary: no network needed).
/// Its two assets (1.9 MB) are sent gzipped (about a quarter of that) to a client that
/// accepts it: they are the same public bytes for everyone, so compressing them reveals
/// nothing (unlike an answer holding a secret beside what a client sends, BREACH).
#[get("/docs{tail:.*}")]
pub async fn docs_page(req: HttpRequest, tail: web::Path<String>) -> HttpResponse {
    static SWAGGER_JS_GZ: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    static SWAGGER_CSS_GZ: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    match tail.as_str() {
        "/swagger-ui-bundle.js" => asset(
            &req,
            "text/javascript; charset=utf-8",
            SWAGGER_JS,
            &SWAGGER_JS_GZ,
        ),
        "/swagger-ui.css" => asset(
            &req,
            "text/css; charset=utf-8",
            SWAGGER_CSS,
            &SWAGGER_CSS_GZ,
        ),
        _ => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .content_type(ContentType::html())
            .body(DOCS_PAGE),
    }
}

/// A static asset, gzipped (compressed once, on first asking) when the client accepts gzip.
fn asset(
    req: &HttpRequest,
    content_type: &str,
    text: &'static str,
    gzipped: &'static OnceLock<Option<Vec<u8>>>,
) -> HttpResponse {
    let mut response = HttpResponse::Ok();
    response
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .insert_header((header::VARY, "Accept-Encoding"));
    let accepted = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|value| value.to_str().ok())
        .is_some_and(accepts_gzip);
    match gzipped.get_or_init(|| gzip(text.as_bytes())) {
        Some(bytes) if accepted => response
            .insert_header((header::CONTENT_ENCODING, "gzip"))
            .body(bytes.as_slice()),
        // Compression failing (it cannot, in memory) only costs the bytes it would save.
        _ => response.body(text),
    }
}

/// Whether an `Accept-Encoding` value accepts gzip: named (or `*`) without `q=0`.
fn accepts_gzip(value: &str) -> bool {
    value.split(',').any(|coding| {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let refused = parts.any(|param| {
            param
                .strip_prefix("q=")
                .and_then(|q| q.parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
    })
}

fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).ok()?;
    encoder.finish().ok()
}

/// What a problem `type` means: every problem+json answer links here.
#[get("/problems/{code}")]
pub async fn problem(code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    match PROBLEMS.iter().find(|(_, c, ..)| *c == code.as_str()) {
        Some((problem, code, status, title)) => {
            let mut body = json!({
                "type": format!("/problems/{code}"),
                "title": title,
                "status": status,
            });
            if let Some(text) = crate::error::description(*problem) {
                body["description"] = json!(text);
            }
            Ok(HttpResponse::Ok()
                .insert_header((header::CACHE_CONTROL, "no-cache"))
                .json(body))
        }
        None => Err(ApiError::new(
            Problem::NotFound,
            format!(
                "there is no problem type {:?}",
                crate::error::truncated(code.as_str(), 100)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::accepts_gzip;

    #[test]
    fn gzip_is_sent_only_to_a_client_that_accepts_it() {
        assert!(accepts_gzip("gzip, deflate, br"));
        assert!(accepts_gzip("br;q=1.0, GZIP;q=0.5"));
        assert!(accepts_gzip("*"));
        assert!(!accepts_gzip("identity"));
        assert!(!accepts_gzip("gzip;q=0"));
        assert!(!accepts_gzip("br, gzip; q=0.0"));
        assert!(!accepts_gzip("gzipped"));
    }
}

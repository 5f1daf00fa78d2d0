//! The OpenAPI document, the interactive docs page and the problem-type pages.

use actix_web::http::header::{self, ContentType};
use actix_web::{get, web, HttpResponse};
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
#[get("/docs{tail:.*}")]
pub async fn docs_page(tail: web::Path<String>) -> HttpResponse {
    match tail.as_str() {
        "/swagger-ui-bundle.js" => HttpResponse::Ok()
            .content_type("text/javascript; charset=utf-8")
            .insert_header(("Cache-Control", "public, max-age=86400"))
            .body(SWAGGER_JS),
        "/swagger-ui.css" => HttpResponse::Ok()
            .content_type("text/css; charset=utf-8")
            .insert_header(("Cache-Control", "public, max-age=86400"))
            .body(SWAGGER_CSS),
        _ => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .content_type(ContentType::html())
            .body(DOCS_PAGE),
    }
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

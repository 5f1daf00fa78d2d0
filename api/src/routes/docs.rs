//! The OpenAPI document, the interactive docs page and the problem-type pages.

use actix_web::http::header::{self, ContentType};
use actix_web::{get, web, HttpRequest, HttpResponse};
use serde_json::json;

use super::assets::Asset;
use crate::error::{ApiError, Problem};

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

/// The API document as served: built once at start-up (`openapi::spec`) and handed to the
/// routes, which serve it but know nothing of how it is made.
pub struct ApiDocument(pub serde_json::Value);

/// The OpenAPI 3.1 document of this server.
#[get("/openapi.json")]
pub async fn openapi_json(document: web::Data<ApiDocument>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(&document.0)
}

/// The Swagger UI assets, a day in caches, revalidated by their `ETag` after that.
static SWAGGER_JS_ASSET: Asset = Asset::new(
    SWAGGER_JS,
    "text/javascript; charset=utf-8",
    "public, max-age=86400",
);
static SWAGGER_CSS_ASSET: Asset = Asset::new(
    SWAGGER_CSS,
    "text/css; charset=utf-8",
    "public, max-age=86400",
);

/// Interactive API documentation (Swagger UI, served from this binary: no network needed).
/// Its two assets (1.9 MB) are sent compressed (brotli or gzip) to a client that accepts it.
#[get("/docs{tail:.*}")]
pub async fn docs_page(req: HttpRequest, tail: web::Path<String>) -> HttpResponse {
    match tail.as_str() {
        "/swagger-ui-bundle.js" => SWAGGER_JS_ASSET.serve(&req, &[]),
        "/swagger-ui.css" => SWAGGER_CSS_ASSET.serve(&req, &[]),
        _ => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .content_type(ContentType::html())
            .body(DOCS_PAGE),
    }
}

/// What a problem `type` means: every problem+json answer links here.
#[get("/problems/{code}")]
pub async fn problem(code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    match Problem::from_code(code.as_str()) {
        Some(problem) => {
            let body = json!({
                "type": format!("/problems/{}", problem.code()),
                "title": problem.title(),
                "status": problem.status().as_u16(),
                "description": crate::error::description(problem),
            });
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

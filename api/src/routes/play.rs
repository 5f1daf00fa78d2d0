//! The web client at `/play`: a page and two assets built from `web/` (TypeScript, bundled
//! with esbuild; the bundle is committed so a fresh machine serves it without Node), embedded
//! in the binary so nothing is loaded from elsewhere. It uses only the public API.

use actix_web::http::header::{self, EntityTag, IfNoneMatch};
use actix_web::{get, web, HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

use crate::error::{ApiError, Problem};

const PAGE: &str = include_str!("../../../web/index.html");
const SCRIPT: &str = include_str!("../../../web/dist/play.js");
const STYLE: &str = include_str!("../../../web/dist/play.css");

/// The page may run only its own script and style and talk only to this server; no other
/// site may frame it; and it sends no `Referer`, since its address can hold an invitation
/// code.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                      connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// One embedded file with its validator, computed once from its bytes.
struct Asset {
    body: &'static str,
    content_type: &'static str,
    tag: OnceLock<EntityTag>,
}

impl Asset {
    const fn new(body: &'static str, content_type: &'static str) -> Self {
        Asset {
            body,
            content_type,
            tag: OnceLock::new(),
        }
    }

    fn tag(&self) -> &EntityTag {
        self.tag.get_or_init(|| {
            let digest = Sha256::digest(self.body.as_bytes());
            EntityTag::new_strong(hex::encode(&digest[..16]))
        })
    }

    /// The file, or 304 when the client's copy is this one. `no-cache` makes every load
    /// revalidate, so a new release is picked up at once without hashed file names.
    fn serve(&self, req: &HttpRequest) -> HttpResponse {
        let tag = self.tag().clone();
        let fresh = match req
            .headers()
            .get(header::IF_NONE_MATCH)
            .map(|_| <IfNoneMatch as actix_web::http::header::Header>::parse(req))
        {
            Some(Ok(IfNoneMatch::Any)) => true,
            Some(Ok(IfNoneMatch::Items(tags))) => tags.iter().any(|t| t.weak_eq(&tag)),
            _ => false,
        };
        let mut response = if fresh {
            HttpResponse::NotModified()
        } else {
            HttpResponse::Ok()
        };
        response
            .insert_header((header::ETAG, tag))
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .insert_header((header::CONTENT_SECURITY_POLICY, POLICY))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .insert_header((header::REFERRER_POLICY, "no-referrer"));
        if fresh {
            return response.finish();
        }
        response.content_type(self.content_type).body(self.body)
    }
}

static PAGE_ASSET: Asset = Asset::new(PAGE, "text/html; charset=utf-8");
static SCRIPT_ASSET: Asset = Asset::new(SCRIPT, "text/javascript; charset=utf-8");
static STYLE_ASSET: Asset = Asset::new(STYLE, "text/css; charset=utf-8");

/// The root leads a visitor to the tables (the API documentation is at `/docs`).
#[get("/")]
pub async fn root() -> HttpResponse {
    HttpResponse::Found()
        .insert_header((header::LOCATION, "/play"))
        .finish()
}

/// The web client: its two assets, and the one page for every other address under `/play`
/// (the client routes by the address itself, so an invitation link opens at its table).
#[get("/play{tail:.*}")]
pub async fn play(req: HttpRequest, tail: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let tail = tail.into_inner();
    match tail.as_str() {
        "/assets/play.js" => Ok(SCRIPT_ASSET.serve(&req)),
        "/assets/play.css" => Ok(STYLE_ASSET.serve(&req)),
        other if other.starts_with("/assets/") => Err(ApiError::new(
            Problem::NotFound,
            format!(
                "there is no asset {:?}",
                crate::error::truncated(other, 100)
            ),
        )),
        "" => Ok(PAGE_ASSET.serve(&req)),
        other if other.starts_with('/') => Ok(PAGE_ASSET.serve(&req)),
        // `/playground` and the like are not the client's.
        _ => Err(ApiError::new(Problem::NotFound, "there is nothing here")),
    }
}

#[cfg(test)]
mod tests {
    use super::PAGE;

    #[test]
    fn the_page_loads_only_its_own_assets() {
        assert!(PAGE.contains("src=\"/play/assets/play.js\""));
        assert!(PAGE.contains("href=\"/play/assets/play.css\""));
        assert!(!PAGE.contains("http://") && !PAGE.contains("https://"));
    }
}

//! The web client at `/play`: a page and its assets built from `web/` (TypeScript, bundled
//! with esbuild; the bundle is committed so a fresh machine serves it without Node), embedded
//! in the binary so nothing is loaded from elsewhere. It uses only the public API. A web app
//! manifest makes it installable, and a service worker at `/play/sw.js` (scope `/play/`) shows
//! pushed notices while no tab is open (`docs/playing-across-days.md`).

use actix_web::http::header::{self, HeaderName};
use actix_web::{get, web, HttpRequest, HttpResponse};

use super::assets::Asset;
use crate::error::{ApiError, Problem};

const PAGE: &str = include_str!("../../../web/index.html");
const SCRIPT: &str = include_str!("../../../web/dist/play.js");
const STYLE: &str = include_str!("../../../web/dist/play.css");
const ICON: &str = include_str!("../../../web/public/icon.svg");
// The SVG drawn as PNGs (`web/tools/icons.mjs`): phones install a web app only with these.
const ICON_192: &[u8] = include_bytes!("../../../web/public/icon-192.png");
const ICON_512: &[u8] = include_bytes!("../../../web/public/icon-512.png");
const ICON_MASKABLE: &[u8] = include_bytes!("../../../web/public/icon-maskable-512.png");
const WORKER: &str = include_str!("../../../web/dist/sw.js");
const MANIFEST: &str = include_str!("../../../web/public/manifest.webmanifest");

/// The page may run only its own script, style, worker and manifest and talk only to this
/// server; no other site may frame it; and it sends no `Referer`, since its address can hold
/// an invitation code.
const POLICY: &str =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                      connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; \
                      form-action 'self'; frame-ancestors 'none'";

/// Headers every file of the client is sent with.
const HEADERS: [(HeaderName, &str); 3] = [
    (header::CONTENT_SECURITY_POLICY, POLICY),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::REFERRER_POLICY, "no-referrer"),
];

/// `no-cache` makes every load revalidate (a 304 when nothing changed), so a new release is
/// picked up at once without hashed file names.
const REVALIDATE: &str = "no-cache";

static PAGE_ASSET: Asset = Asset::new(PAGE, "text/html; charset=utf-8", REVALIDATE);
static SCRIPT_ASSET: Asset = Asset::new(SCRIPT, "text/javascript; charset=utf-8", REVALIDATE);
static STYLE_ASSET: Asset = Asset::new(STYLE, "text/css; charset=utf-8", REVALIDATE);
static ICON_ASSET: Asset = Asset::new(ICON, "image/svg+xml", REVALIDATE);
static ICON_192_ASSET: Asset = Asset::binary(ICON_192, "image/png", REVALIDATE);
static ICON_512_ASSET: Asset = Asset::binary(ICON_512, "image/png", REVALIDATE);
static ICON_MASKABLE_ASSET: Asset = Asset::binary(ICON_MASKABLE, "image/png", REVALIDATE);
// A browser checks a service worker's script for a new version itself (at most a day apart,
// and on every navigation, bypassing the HTTP cache by default); `no-cache` keeps any other
// cache out of the way too.
static WORKER_ASSET: Asset = Asset::new(WORKER, "text/javascript; charset=utf-8", REVALIDATE);
static MANIFEST_ASSET: Asset = Asset::new(MANIFEST, "application/manifest+json", REVALIDATE);

/// The root leads a visitor to the tables (the API documentation is at `/docs`).
#[get("/")]
pub async fn root() -> HttpResponse {
    HttpResponse::Found()
        .insert_header((header::LOCATION, "/play"))
        .finish()
}

/// The icon a browser asks for at `/favicon.ico` by custom: Parlour's, as SVG (which every
/// current browser takes from that address too; the page itself names it with `rel=icon`).
#[get("/favicon.ico")]
pub async fn favicon(req: HttpRequest) -> HttpResponse {
    ICON_ASSET.serve(&req, &HEADERS)
}

/// The web client: its assets, its service worker and manifest, and the one page for every
/// other address under `/play` (the client routes by the address itself, so an invitation
/// link opens at its table).
#[get("/play{tail:.*}")]
pub async fn play(req: HttpRequest, tail: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let tail = tail.into_inner();
    match tail.as_str() {
        "/assets/play.js" => Ok(SCRIPT_ASSET.serve(&req, &HEADERS)),
        "/assets/play.css" => Ok(STYLE_ASSET.serve(&req, &HEADERS)),
        "/assets/icon.svg" => Ok(ICON_ASSET.serve(&req, &HEADERS)),
        "/assets/icon-192.png" => Ok(ICON_192_ASSET.serve(&req, &HEADERS)),
        "/assets/icon-512.png" => Ok(ICON_512_ASSET.serve(&req, &HEADERS)),
        "/assets/icon-maskable-512.png" => Ok(ICON_MASKABLE_ASSET.serve(&req, &HEADERS)),
        "/sw.js" => Ok(WORKER_ASSET.serve(&req, &HEADERS)),
        "/manifest.webmanifest" => Ok(MANIFEST_ASSET.serve(&req, &HEADERS)),
        other if other.starts_with("/assets/") => Err(ApiError::new(
            Problem::NotFound,
            format!(
                "there is no asset {:?}",
                crate::error::truncated(other, 100)
            ),
        )),
        "" => Ok(PAGE_ASSET.serve(&req, &HEADERS)),
        other if other.starts_with('/') => Ok(PAGE_ASSET.serve(&req, &HEADERS)),
        // `/playground` and the like are not the client's.
        _ => Err(ApiError::new(Problem::NotFound, "there is nothing here")),
    }
}

#[cfg(test)]
mod tests {
    use super::{ICON_192, ICON_512, ICON_MASKABLE, MANIFEST, PAGE};

    /// A PNG's width and height, from its IHDR chunk.
    fn png_size(png: &[u8]) -> (u32, u32) {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
        let word = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
        (word(16), word(20))
    }

    #[test]
    fn the_manifest_opens_the_client_and_names_only_its_own_icons_at_the_sizes_phones_install() {
        let manifest: serde_json::Value = serde_json::from_str(MANIFEST).unwrap();
        assert_eq!(manifest["start_url"], "/play");
        assert_eq!(manifest["scope"], "/play");
        assert_eq!(manifest["display"], "standalone");
        assert_eq!(manifest["icons"][0]["src"], "/play/assets/icon.svg");
        let icons: Vec<(&str, &str, &str)> = manifest["icons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["src"].as_str().unwrap(),
                    i["sizes"].as_str().unwrap(),
                    i["purpose"].as_str().unwrap(),
                )
            })
            .collect();
        assert!(icons.contains(&("/play/assets/icon-192.png", "192x192", "any")));
        assert!(icons.contains(&("/play/assets/icon-512.png", "512x512", "any")));
        assert!(icons.contains(&("/play/assets/icon-maskable-512.png", "512x512", "maskable")));
        assert_eq!(png_size(ICON_192), (192, 192));
        assert_eq!(png_size(ICON_512), (512, 512));
        assert_eq!(png_size(ICON_MASKABLE), (512, 512));
        assert!(!MANIFEST.contains("http://") && !MANIFEST.contains("https://"));
    }

    #[test]
    fn the_page_loads_only_its_own_assets() {
        assert!(PAGE.contains("src=\"/play/assets/play.js\""));
        assert!(PAGE.contains("href=\"/play/assets/play.css\""));
        assert!(PAGE.contains("href=\"/play/assets/icon.svg\""));
        assert!(PAGE.contains("href=\"/play/manifest.webmanifest\""));
        assert!(!PAGE.contains("http://") && !PAGE.contains("https://"));
    }
}

//! How files and heads are served: `HEAD` on every `GET` route (RFC 9110 §9.3.2), the web
//! client's and the docs' files compressed as the client accepts, each with its own `ETag`,
//! and the icon a browser asks for.

use std::io::Read;

use reqwest::{Method, Response, StatusCode};
use serde_json::json;

use crate::helpers::{new_account, spawn_app, Backend, TestApp};

/// The headers a `HEAD` must give exactly as its `GET` does.
const SAME: [&str; 6] = [
    "content-type",
    "content-length",
    "etag",
    "cache-control",
    "allow",
    "content-encoding",
];

fn headers_of(res: &Response) -> Vec<(String, Option<String>)> {
    SAME.iter()
        .map(|name| {
            let value = res
                .headers()
                .get(*name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            (name.to_string(), value)
        })
        .collect()
}

/// Every GET route of the API document, with its parameters filled in from a real game, an
/// account and a webhook-less id, and the web client's and docs' addresses besides.
fn get_routes(game: &str, account: &str) -> Vec<String> {
    let document = parlour::openapi::spec();
    let mut routes: Vec<String> = document["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, item)| item.get("get").is_some())
        .map(|(path, _)| {
            path.replace("{id}", game)
                .replace("{game}", "girl")
                .replace("{seat}", "0")
                .replace("{format}", "pgn")
                .replace("{token_id}", account)
                .replace("{delivery}", account)
        })
        // Streams are tried on their own below: their GET never ends.
        .filter(|path| !path.ends_with("/stream"))
        .collect();
    routes.extend(
        [
            "/play",
            "/play/games/x",
            "/play/assets/play.js",
            "/play/assets/play.css",
            "/play/assets/icon.svg",
            "/play/assets/icon-192.png",
            "/play/assets/icon-512.png",
            "/play/assets/icon-maskable-512.png",
            "/play/sw.js",
            "/play/manifest.webmanifest",
            "/favicon.ico",
            "/docs",
            "/docs/swagger-ui.css",
            "/openapi.json",
            "/problems/not-found",
            "/v1/no-such-thing",
        ]
        .map(str::to_string),
    );
    routes
}

async fn send(app: &TestApp, method: Method, path: &str, token: &str, encoding: &str) -> Response {
    app.client
        .request(method, format!("{}{path}", app.address))
        .bearer_auth(token)
        .header("accept-encoding", encoding)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_get_route_answers_head_with_the_same_status_and_headers_and_no_body() {
    let app = spawn_app(Backend::Sqlite).await;
    let token = new_account(&app, "Ada").await;
    let (game, _) = app.create_game("girl", 2, None, json!({})).await;
    let routes = get_routes(&game, &uuid::Uuid::nil().to_string());
    assert!(routes.len() > 30, "{routes:?}");
    for path in &routes {
        for encoding in ["identity", "gzip, br"] {
            let got = send(&app, Method::GET, path, &token, encoding).await;
            let headed = send(&app, Method::HEAD, path, &token, encoding).await;
            assert_eq!(headed.status(), got.status(), "HEAD {path}");
            assert_ne!(
                headed.status(),
                StatusCode::METHOD_NOT_ALLOWED,
                "HEAD {path}"
            );
            assert_eq!(
                headers_of(&headed),
                headers_of(&got),
                "HEAD {path} ({encoding})"
            );
            assert!(
                headed.bytes().await.unwrap().is_empty(),
                "HEAD {path} has a body"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_of_a_stream_ends_at_once_and_a_head_where_there_is_no_get_is_405() {
    let app = spawn_app(Backend::Sqlite).await;
    let token = new_account(&app, "Ada").await;
    let (game, _) = app.create_game("girl", 2, None, json!({})).await;
    for path in [
        format!("/v1/games/{game}/stream"),
        "/v1/me/stream".to_string(),
    ] {
        let headed = send(&app, Method::HEAD, &path, &token, "identity").await;
        assert_eq!(headed.status(), StatusCode::OK, "{path}");
        assert_eq!(
            headed.headers().get("content-type").unwrap(),
            "text/event-stream",
            "{path}"
        );
        // The body is empty and the answer complete: reading it returns.
        assert!(headed.bytes().await.unwrap().is_empty());
    }
    let refused = send(&app, Method::HEAD, "/v1/games", &token, "identity").await;
    assert_eq!(refused.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(refused.headers().get("allow").unwrap(), "POST");
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::BrotliDecompress(&mut &bytes[..], &mut out).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clients_files_go_compressed_as_accepted_each_form_with_its_own_etag() {
    let app = spawn_app(Backend::Sqlite).await;
    for path in [
        "/play",
        "/play/assets/play.js",
        "/play/assets/play.css",
        "/play/assets/icon.svg",
        "/docs/swagger-ui-bundle.js",
    ] {
        let plain = send(&app, Method::GET, path, "x", "identity").await;
        assert_eq!(plain.status(), StatusCode::OK);
        assert!(plain.headers().get("content-encoding").is_none());
        assert_eq!(plain.headers().get("vary").unwrap(), "Accept-Encoding");
        let plain_tag = plain.headers().get("etag").unwrap().clone();
        let original = plain.bytes().await.unwrap().to_vec();

        let mut tags = vec![plain_tag.clone()];
        for (accept, coding) in [
            ("gzip", "gzip"),
            ("gzip, deflate, br", "br"),
            ("br;q=0, gzip", "gzip"),
        ] {
            let res = send(&app, Method::GET, path, "x", accept).await;
            assert_eq!(
                res.headers().get("content-encoding").unwrap(),
                coding,
                "{path} {accept}"
            );
            let tag = res.headers().get("etag").unwrap().clone();
            let body = res.bytes().await.unwrap().to_vec();
            let decoded = if coding == "gzip" {
                gunzip(&body)
            } else {
                unbrotli(&body)
            };
            assert_eq!(decoded, original, "{path} {accept}");
            assert!(body.len() < original.len(), "{path}: {coding} is smaller");
            if !tags.contains(&tag) {
                tags.push(tag.clone());
            }
            // The client's copy of this form is fresh; a copy of another form is not.
            let fresh = app
                .client
                .get(format!("{}{path}", app.address))
                .header("accept-encoding", accept)
                .header("if-none-match", tag.clone())
                .send()
                .await
                .unwrap();
            assert_eq!(fresh.status(), StatusCode::NOT_MODIFIED, "{path} {accept}");
            let other = app
                .client
                .get(format!("{}{path}", app.address))
                .header("accept-encoding", accept)
                .header("if-none-match", plain_tag.clone())
                .send()
                .await
                .unwrap();
            assert_eq!(other.status(), StatusCode::OK, "{path} {accept}");
        }
        assert_eq!(
            tags.len(),
            3,
            "{path}: identity, gzip and br each have a tag: {tags:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_finds_the_icon_where_it_looks_and_where_the_page_names_it() {
    let app = spawn_app(Backend::Sqlite).await;
    let page = send(&app, Method::GET, "/play", "x", "identity")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains(r#"<link rel="icon" href="/play/assets/icon.svg""#));
    for path in ["/favicon.ico", "/play/assets/icon.svg"] {
        let res = send(&app, Method::GET, path, "x", "identity").await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(res.headers().get("content-type").unwrap(), "image/svg+xml");
        assert!(res.text().await.unwrap().starts_with("<svg"));
    }
    assert!(page.contains(r#"<link rel="apple-touch-icon" href="/play/assets/icon-192.png""#));
    for path in [
        "/play/assets/icon-192.png",
        "/play/assets/icon-512.png",
        "/play/assets/icon-maskable-512.png",
    ] {
        let res = send(&app, Method::GET, path, "x", "identity").await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(res.headers().get("content-type").unwrap(), "image/png");
        assert!(res.bytes().await.unwrap().starts_with(b"\x89PNG"), "{path}");
    }
}

/// The budget issue 37 set for a phone's first visit: the page, its script, style and icon,
/// as a browser that accepts brotli is sent them, under 150 kB together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_load_of_play_is_under_150_kb_compressed() {
    let app = spawn_app(Backend::Sqlite).await;
    let mut total = 0;
    for path in [
        "/play",
        "/play/assets/play.js",
        "/play/assets/play.css",
        "/play/assets/icon.svg",
        "/play/manifest.webmanifest",
    ] {
        let res = send(&app, Method::GET, path, "x", "br, gzip").await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        total += res.bytes().await.unwrap().len();
    }
    assert!(total < 150_000, "the first load is {total} bytes");
}

//! Health, documentation and the catalogue.

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{spawn_app, Backend};

#[tokio::test]
async fn health_and_readiness_answer() {
    let app = spawn_app(Backend::Sqlite).await;
    assert_eq!(app.get("/healthz", None).await.0, StatusCode::OK);
    assert_eq!(app.get("/readyz", None).await.0, StatusCode::OK);
}

#[tokio::test]
async fn the_root_leads_to_the_tables() {
    let app = spawn_app(Backend::Sqlite).await;
    let res = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{}/", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(res.headers()["location"], "/play");
}

#[tokio::test]
async fn the_web_client_is_served_from_the_binary_at_every_address_under_play() {
    let app = spawn_app(Backend::Sqlite).await;
    for (path, kind) in [
        ("/play", "text/html"),
        (
            "/play/games/01a23c20-08ca-741b-912e-94f5820297ac?seat=1&invitation=inv_x",
            "text/html",
        ),
        ("/play/assets/play.js", "text/javascript"),
        ("/play/assets/play.css", "text/css"),
        ("/play/sw.js", "text/javascript"),
        ("/play/manifest.webmanifest", "application/manifest+json"),
    ] {
        let res = app.request(reqwest::Method::GET, path, None, None).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let headers = res.headers().clone();
        assert!(
            headers["content-type"].to_str().unwrap().starts_with(kind),
            "{path}"
        );
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"));
        // The page registers its service worker and links its manifest: both from here only.
        assert!(policy.contains("worker-src 'self'") && policy.contains("manifest-src 'self'"));
        assert!(!res.bytes().await.expect("body").is_empty());
    }
}

#[tokio::test]
async fn an_unchanged_asset_is_not_sent_again_and_an_unknown_one_is_a_problem() {
    let app = spawn_app(Backend::Sqlite).await;
    let first = app
        .request(reqwest::Method::GET, "/play/assets/play.js", None, None)
        .await;
    let tag = first.headers()["etag"].to_str().unwrap().to_string();
    let again = reqwest::Client::new()
        .get(format!("{}/play/assets/play.js", app.address))
        .header("if-none-match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let missing = app
        .request(reqwest::Method::GET, "/play/assets/other.js", None, None)
        .await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert!(missing.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/problem+json"));
    let beside = app
        .request(reqwest::Method::GET, "/playground", None, None)
        .await;
    assert_eq!(beside.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_served_openapi_document_is_the_committed_one() {
    let app = spawn_app(Backend::Sqlite).await;
    let (status, served) = app.get("/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let committed: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("openapi/openapi.json"))
            .expect("openapi/openapi.json is JSON");
    assert!(
        served == committed,
        "openapi/openapi.json is out of date: run `cargo run -p parlour -- openapi > openapi/openapi.json`"
    );
}

#[tokio::test]
async fn every_endpoint_documents_its_error_responses() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, spec) = app.get("/openapi.json", None).await;
    for (path, operations) in spec["paths"].as_object().expect("paths") {
        for (method, operation) in operations.as_object().expect("operations") {
            let responses = operation["responses"].as_object().expect("responses");
            assert!(
                responses.keys().any(|s| s.starts_with('2')),
                "{method} {path} has no success response"
            );
            if path.starts_with("/v1/games/") || path == "/v1/catalog/{game}" {
                assert!(
                    responses.contains_key("404"),
                    "{method} {path} does not document 404"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_docs_page_and_its_assets_are_served_without_a_network() {
    let app = spawn_app(Backend::Sqlite).await;
    for path in [
        "/docs",
        "/docs/swagger-ui-bundle.js",
        "/docs/swagger-ui.css",
    ] {
        let res = app.request(reqwest::Method::GET, path, None, None).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert!(!res.bytes().await.expect("body").is_empty());
    }
}

#[tokio::test]
async fn the_docs_assets_are_sent_gzipped_to_a_client_that_accepts_it() {
    use std::io::Read;
    let app = spawn_app(Backend::Sqlite).await;
    for path in ["/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"] {
        let plain = app.request(reqwest::Method::GET, path, None, None).await;
        assert_eq!(plain.headers().get("content-encoding"), None, "{path}");
        let plain = plain.bytes().await.unwrap();

        let res = app
            .client
            .get(format!("{}{path}", app.address))
            // A client that takes brotli too is sent brotli (`assets::*`); this one only gzip.
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(res.headers()["content-encoding"], "gzip", "{path}");
        assert_eq!(res.headers()["vary"], "Accept-Encoding", "{path}");
        let gzipped = res.bytes().await.unwrap();
        assert!(
            gzipped.len() * 3 < plain.len(),
            "{path}: {} bytes gzipped of {}",
            gzipped.len(),
            plain.len()
        );
        let mut unzipped = Vec::new();
        flate2::read::GzDecoder::new(&gzipped[..])
            .read_to_end(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, plain, "{path}: the same asset");
    }
}

#[tokio::test]
async fn problem_types_are_described_at_their_uri() {
    let app = spawn_app(Backend::Sqlite).await;
    let (status, body) = app.get("/problems/not-your-move", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], 409);
    assert_eq!(
        app.get("/problems/no-such-thing", None).await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_catalogue_lists_the_games_and_every_card_has_a_unique_id() {
    let app = spawn_app(Backend::Sqlite).await;
    let (status, catalog) = app.get("/v1/catalog", None).await;
    assert_eq!(status, StatusCode::OK);
    let games: Vec<&str> = catalog["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| g["id"].as_str().expect("id"))
        .collect();
    for expected in ["girl", "car"] {
        assert!(
            games.contains(&expected),
            "{expected} missing from {games:?}"
        );
    }
    for game in games {
        let (status, entry) = app.get(&format!("/v1/catalog/{game}"), None).await;
        assert_eq!(status, StatusCode::OK);
        let cards = entry["cards"].as_array().expect("cards");
        let mut ids: Vec<&str> = cards
            .iter()
            .map(|c| c["id"].as_str().expect("card id"))
            .collect();
        let count = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count, "{game} has duplicate card ids");
        assert!(
            cards.iter().all(|c| c["name"].is_string()),
            "{game}: every card has a name"
        );
        assert!(entry["min_players"].as_u64() <= entry["max_players"].as_u64());
    }
    assert_eq!(
        app.get("/v1/catalog/chess", None).await.0,
        StatusCode::NOT_FOUND
    );
}

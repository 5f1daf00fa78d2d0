//! Cross-origin access: browser apps on other origins can call the API (any origin by default,
//! or the listed ones), preflights are always answered, and a page can read the headers it
//! needs.

use std::process::{Command, Stdio};
use std::time::Duration;

use parlour::http::cors::CorsSettings;
use parlour::startup::Settings;
use reqwest::{Method, Response, StatusCode};
use serde_json::json;

use crate::helpers::{fresh_database, spawn_app, spawn_app_with, Backend, TestApp};

const APP: &str = "https://app.example.com";
const EVIL: &str = "https://evil.example.com";

async fn app_allowing(origins: &[&str]) -> TestApp {
    let (url, guard) = fresh_database(Backend::Sqlite).await;
    let values: Vec<String> = origins.iter().map(|o| o.to_string()).collect();
    let settings = Settings {
        cors: CorsSettings::parse(&values, false).unwrap(),
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        ..Settings::default()
    };
    spawn_app_with(&url, guard, settings).await
}

async fn preflight(app: &TestApp, path: &str, origin: &str, method: &str) -> Response {
    app.client
        .request(Method::OPTIONS, format!("{}{path}", app.address))
        .header("Origin", origin)
        .header("Access-Control-Request-Method", method)
        .header(
            "Access-Control-Request-Headers",
            "authorization, content-type, idempotency-key, if-match",
        )
        .send()
        .await
        .unwrap()
}

fn header(res: &Response, name: &str) -> Option<String> {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
}

/// The header's comma-separated items, in lower case.
fn items(res: &Response, name: &str) -> Vec<String> {
    header(res, name)
        .unwrap_or_default()
        .split(',')
        .map(|item| item.trim().to_ascii_lowercase())
        .filter(|item| !item.is_empty())
        .collect()
}

fn allow_headers_of(res: &Response) -> Vec<String> {
    res.headers()
        .keys()
        .map(|name| name.as_str().to_string())
        .filter(|name| name.starts_with("access-control-allow-"))
        .collect()
}

#[tokio::test]
async fn a_preflight_from_any_origin_is_answered_by_default() {
    let app = spawn_app(Backend::Sqlite).await;
    let res = preflight(&app, "/v1/games", APP, "POST").await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        header(&res, "access-control-allow-origin").as_deref(),
        Some("*")
    );
    // Every method any route of the document answers to, so a page on another origin can
    // hand a seat to a bot (PUT) or edit a webhook (PATCH), and HEAD besides.
    let methods = items(&res, "access-control-allow-methods");
    let document = parlour::openapi::spec();
    let mut documented: Vec<String> = vec!["head".into()];
    for item in document["paths"].as_object().unwrap().values() {
        for method in item.as_object().unwrap().keys() {
            if !documented.contains(method) && method != "parameters" {
                documented.push(method.clone());
            }
        }
    }
    assert!(documented.len() >= 6, "{documented:?}");
    for method in &documented {
        assert!(methods.contains(method), "{method} not in {methods:?}");
    }
    let headers = items(&res, "access-control-allow-headers");
    for name in [
        "authorization",
        "content-type",
        "if-match",
        "if-none-match",
        "idempotency-key",
    ] {
        assert!(
            headers.contains(&name.to_string()),
            "{name} not in {headers:?}"
        );
    }
    assert!(header(&res, "access-control-max-age").is_some());
    assert_eq!(header(&res, "access-control-allow-credentials"), None);
}

#[tokio::test]
async fn a_preflight_is_never_404_whatever_the_path() {
    let app = spawn_app(Backend::Sqlite).await;
    let game = format!("/v1/games/{}/actions", uuid::Uuid::new_v4());
    for path in [game.as_str(), "/nothing/here", "/v1/games"] {
        let res = preflight(&app, path, APP, "POST").await;
        assert_eq!(res.status(), StatusCode::NO_CONTENT, "{path}");
        assert!(header(&res, "x-request-id").is_some(), "{path}");
    }
}

#[tokio::test]
async fn a_cross_origin_answer_lets_the_page_read_the_headers_it_needs() {
    let app = spawn_app(Backend::Sqlite).await;
    let body = json!({"game": "girl", "players": [{"name": "Ann"}, {"name": "Bea"}]});
    let res = app
        .client
        .post(format!("{}/v1/games", app.address))
        .header("Origin", APP)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(
        header(&res, "access-control-allow-origin").as_deref(),
        Some("*")
    );
    let exposed = items(&res, "access-control-expose-headers");
    for name in [
        "etag",
        "location",
        "x-request-id",
        "link",
        "retry-after",
        "ratelimit-policy",
        "ratelimit",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "idempotent-replayed",
        "www-authenticate",
        "allow",
        "accept-post",
    ] {
        assert!(
            exposed.contains(&name.to_string()),
            "{name} not in {exposed:?}"
        );
    }
    // An error answer is as readable as a success.
    let res = app
        .client
        .get(format!("{}/v1/games/{}", app.address, uuid::Uuid::new_v4()))
        .header("Origin", APP)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        header(&res, "access-control-allow-origin").as_deref(),
        Some("*")
    );
}

#[tokio::test]
async fn with_listed_origins_only_those_may_call() {
    let app = app_allowing(&[APP, "http://localhost:5173"]).await;
    let res = preflight(&app, "/v1/games", APP, "POST").await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        header(&res, "access-control-allow-origin").as_deref(),
        Some(APP)
    );
    assert!(items(&res, "vary").contains(&"origin".to_string()));

    let res = preflight(&app, "/v1/games", EVIL, "POST").await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(allow_headers_of(&res), Vec::<String>::new());

    let call = |origin: &'static str| {
        app.client
            .get(format!("{}/v1/catalog", app.address))
            .header("Origin", origin)
            .send()
    };
    let res = call(APP).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        header(&res, "access-control-allow-origin").as_deref(),
        Some(APP)
    );
    assert!(items(&res, "vary").contains(&"origin".to_string()));
    let res = call(EVIL).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "access-control-allow-origin"), None);
    assert_eq!(header(&res, "access-control-expose-headers"), None);
}

#[tokio::test]
async fn with_cross_origin_access_off_a_preflight_is_answered_without_allowing_anything() {
    let app = app_allowing(&["none"]).await;
    let res = preflight(&app, "/v1/games", APP, "POST").await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(allow_headers_of(&res), Vec::<String>::new());
    let res = app
        .client
        .get(format!("{}/v1/catalog", app.address))
        .header("Origin", APP)
        .send()
        .await
        .unwrap();
    assert_eq!(header(&res, "access-control-allow-origin"), None);
}

/// Runs the real binary with these arguments and environment; it must exit by itself (it is
/// killed if it is still running after a generous bound, and the test fails).
fn run_parlour(args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let database = format!("sqlite://{}/parlour.db", dir.path().display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_parlour"))
        .args(["--addr", "127.0.0.1:0", "--database-url", &database])
        .args(args)
        .envs(env.iter().copied())
        .env("PARLOUR_SIGNING_KEY_FILE", dir.path().join("signing.key"))
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..300 {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            return (status.success(), text);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("parlour did not stop by itself with {args:?} {env:?}");
}

#[test]
fn the_server_refuses_to_start_with_any_origin_and_credentials() {
    let (ok, output) = run_parlour(
        &["--cors-allow-origin", "*", "--cors-allow-credentials"],
        &[],
    );
    assert!(!ok, "{output}");
    assert!(output.contains("credentials"), "{output}");
}

#[test]
fn the_server_refuses_to_start_with_a_wildcard_among_origins_or_a_non_origin() {
    let (ok, output) = run_parlour(
        &[],
        &[("PARLOUR_CORS_ALLOW_ORIGINS", "https://app.example.com,*")],
    );
    assert!(!ok, "{output}");
    assert!(output.contains("CORS"), "{output}");
    let (ok, output) = run_parlour(
        &["--cors-allow-origin", "https://app.example.com/path"],
        &[],
    );
    assert!(!ok, "{output}");
    assert!(output.contains("not an origin"), "{output}");
}

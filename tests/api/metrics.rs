//! `GET /metrics`: requests by route pattern and status with latency histograms, moves, games
//! in memory, store errors and open streams, in the Prometheus text format.

use std::time::Duration;

use parlour::startup::Settings;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{fresh_database, spawn_app, spawn_app_with, Backend, TestApp};
use crate::on_both_backends;

/// The page, checked to be served as the Prometheus text format.
async fn page(app: &TestApp) -> String {
    let res = app.request(Method::GET, "/metrics", None, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let content_type = res.headers()["content-type"].to_str().unwrap().to_string();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    res.text().await.unwrap()
}

/// The value of the sample written exactly as `series`.
fn sample(page: &str, series: &str) -> Option<f64> {
    page.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn assert_sample(page: &str, series: &str, expected: f64) {
    assert_eq!(sample(page, series), Some(expected), "{series} in\n{page}");
}

async fn a_legal_move(app: &TestApp, id: &str, tokens: &[String]) -> (String, Value) {
    let view = app.view(id, None).await;
    let seat = view["to_act"][0].as_u64().expect("someone to act") as usize;
    let token = tokens[seat].clone();
    let mine = app.view(id, Some(&token)).await;
    let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(7);
    let action = parlour_domain::playout::instantiate(&mine["legal_actions"][0], &mut rng);
    (token, action)
}

async fn requests_are_counted_by_route_pattern_and_status_never_by_raw_path(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    app.view(&id, Some(&tokens[0])).await;
    app.view(&id, None).await;
    let missing = uuid::Uuid::new_v4();
    assert_eq!(
        app.get(&format!("/v1/games/{missing}"), None).await.0,
        StatusCode::NOT_FOUND
    );
    for n in 0..20 {
        let path = format!("/made-up/{n}/{}", uuid::Uuid::new_v4());
        assert_eq!(app.get(&path, None).await.0, StatusCode::NOT_FOUND);
    }
    let page = page(&app).await;
    assert_sample(
        &page,
        r#"parlour_http_requests_total{method="POST",route="/v1/games",status="201"}"#,
        1.0,
    );
    assert_sample(
        &page,
        r#"parlour_http_requests_total{method="GET",route="/v1/games/{id}",status="200"}"#,
        2.0,
    );
    assert_sample(
        &page,
        r#"parlour_http_requests_total{method="GET",route="/v1/games/{id}",status="404"}"#,
        1.0,
    );
    assert_sample(
        &page,
        r#"parlour_http_requests_total{method="GET",route="unmatched",status="404"}"#,
        20.0,
    );
    let route = r#"method="GET",route="/v1/games/{id}""#;
    assert_sample(
        &page,
        &format!("parlour_http_request_duration_seconds_count{{{route}}}"),
        3.0,
    );
    assert_sample(
        &page,
        &format!(r#"parlour_http_request_duration_seconds_bucket{{{route},le="+Inf"}}"#),
        3.0,
    );
    assert!(!page.contains(&id), "a game id is a label:\n{page}");
    assert!(!page.contains("made-up"), "a raw path is a label:\n{page}");
}

async fn moves_games_in_memory_and_open_streams_are_counted(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let (token, action) = a_legal_move(&app, &id, &tokens).await;
    let (status, view) = app.act(&id, &token, &action).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    let stream = app
        .request(Method::GET, &format!("/v1/games/{id}/stream"), None, None)
        .await;
    assert_eq!(stream.status(), StatusCode::OK);

    let page = page(&app).await;
    assert_sample(&page, "parlour_moves_recorded_total", 1.0);
    assert_sample(&page, "parlour_games_cached", 1.0);
    assert_sample(&page, "parlour_games_active", 1.0);
    assert_sample(&page, "parlour_streams_open", 1.0);
    assert_sample(
        &page,
        r#"parlour_store_errors_total{kind="unavailable"}"#,
        0.0,
    );
    assert_sample(&page, r#"parlour_store_errors_total{kind="fault"}"#, 0.0);
    for family in [
        "parlour_rate_limited_total",
        "parlour_rate_limit_keys",
        "parlour_http_request_duration_seconds",
    ] {
        assert!(page.contains(&format!("# TYPE {family} ")), "{family}");
    }
    drop(stream);
}

on_both_backends!(
    requests_are_counted_by_route_pattern_and_status_never_by_raw_path,
    moves_games_in_memory_and_open_streams_are_counted,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_errors_are_counted_when_the_database_does_not_answer() {
    let (url, guard) = fresh_database(Backend::Sqlite).await;
    let settings = Settings {
        db: parlour::store::DbSettings {
            acquire_timeout: Duration::from_secs(1),
            statement_timeout: Duration::from_secs(1),
            ..parlour::store::DbSettings::default()
        },
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        ..Settings::default()
    };
    let app = spawn_app_with(&url, guard, settings).await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let (token, action) = a_legal_move(&app, &id, &tokens).await;
    let other = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
    let mut writer = other.acquire().await.unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *writer)
        .await
        .unwrap();
    let (status, _) = app.act(&id, &token, &action).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    sqlx::query("ROLLBACK").execute(&mut *writer).await.unwrap();
    let page = page(&app).await;
    let unavailable =
        sample(&page, r#"parlour_store_errors_total{kind="unavailable"}"#).unwrap_or(0.0);
    assert!(unavailable >= 1.0, "{page}");
    assert_sample(&page, "parlour_moves_recorded_total", 0.0);
}

#[tokio::test]
async fn the_metrics_page_is_not_part_of_the_api_document() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, spec) = app.get("/openapi.json", None).await;
    assert!(spec["paths"].get("/metrics").is_none());
    assert!(
        spec["paths"].get("/healthz").is_some(),
        "the paths were read"
    );
}

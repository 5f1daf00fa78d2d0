//! Rate limits per seat token and per client address: a request past a limit is answered 429
//! with `Retry-After`, every limited answer says how its bucket stands (`RateLimit-*`), and
//! nobody else is affected. The quotas here are per day, so no refill can happen while a test
//! runs, however slowly (the refill itself is tested with a fake clock in
//! `api/src/http/rate_limit.rs`).

use std::net::IpAddr;
use std::time::Duration;

use parlour::http::rate_limit::{Quota, RateLimitSettings};
use parlour::startup::Settings;
use reqwest::{Client, Method, Response, StatusCode};
use serde_json::json;

use crate::helpers::{assert_problem, fresh_database, spawn_app, spawn_app_with, Backend, TestApp};

const DAY: Duration = Duration::from_secs(86_400);

fn per_day(requests: u32) -> Option<Quota> {
    Some(Quota { requests, per: DAY })
}

async fn app_limited(backend: Backend, rate_limits: RateLimitSettings) -> TestApp {
    let (url, guard) = fresh_database(backend).await;
    let settings = Settings {
        rate_limits,
        ..Settings::default()
    };
    spawn_app_with(&url, guard, settings).await
}

fn field<'a>(res: &'a Response, name: &str) -> Option<&'a str> {
    res.headers().get(name).map(|v| v.to_str().unwrap())
}

fn header(res: &Response, name: &str) -> Option<u64> {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().parse().unwrap())
}

/// A client whose requests come from another loopback address.
fn client_from(address: &str) -> Client {
    Client::builder()
        .local_address(address.parse::<IpAddr>().unwrap())
        .build()
        .unwrap()
}

async fn get(client: &Client, app: &TestApp, path: &str, token: Option<&str>) -> Response {
    let mut request = client.get(format!("{}{path}", app.address));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn a_client_past_its_limit_is_refused_with_429_and_told_when_to_come_back() {
    let app = app_limited(
        Backend::Sqlite,
        RateLimitSettings {
            per_client: per_day(3),
            ..RateLimitSettings::off()
        },
    )
    .await;
    for left in [2, 1, 0] {
        let res = app.request(Method::GET, "/v1/catalog", None, None).await;
        assert_eq!(res.status(), StatusCode::OK);
        // The draft's current fields: the policy (3 a day), and how it stands (a third of a
        // day until one more request is there).
        assert_eq!(
            field(&res, "ratelimit-policy"),
            Some("\"client\";q=3;w=86400")
        );
        let standing = field(&res, "ratelimit").unwrap();
        assert!(
            standing.starts_with(&format!("\"client\";r={left};t=")),
            "{standing}"
        );
        let t: u64 = standing.rsplit("t=").next().unwrap().parse().unwrap();
        assert!((1..=DAY.as_secs() / 3).contains(&t), "{standing}");
        assert_eq!(header(&res, "ratelimit-limit"), Some(3));
        assert_eq!(header(&res, "ratelimit-remaining"), Some(left));
        assert!(header(&res, "ratelimit-reset").unwrap() > 0);
        assert_eq!(header(&res, "retry-after"), None);
    }
    let res = app.request(Method::GET, "/v1/catalog", None, None).await;
    assert_eq!(header(&res, "ratelimit-limit"), Some(3));
    assert_eq!(header(&res, "ratelimit-remaining"), Some(0));
    let retry_after = header(&res, "retry-after").expect("Retry-After");
    // One request's share of the day comes back after a third of it.
    assert!(
        (1..=DAY.as_secs() / 3).contains(&retry_after),
        "{retry_after}"
    );
    // A browser page can read the refusal and its headers.
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    assert!(res.headers().contains_key("x-request-id"));
    let problem = assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("address"),
        "{problem}"
    );

    // Another client is not affected.
    let res = get(&client_from("127.0.0.2"), &app, "/v1/catalog", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "ratelimit-remaining"), Some(2));
}

async fn a_token_past_its_limit_is_refused_while_other_seats_play_on(backend: Backend) {
    let app = app_limited(
        backend,
        RateLimitSettings {
            per_token: per_day(2),
            ..RateLimitSettings::off()
        },
    )
    .await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let ann = &tokens[0];
    let path = format!("/v1/games/{id}");
    for left in [1, 0] {
        let res = app.request(Method::GET, &path, Some(ann), None).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "ratelimit-remaining"), Some(left));
    }
    let res = app.request(Method::GET, &path, Some(ann), None).await;
    assert!(header(&res, "retry-after").unwrap() >= 1);
    let problem = assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("token"),
        "{problem}"
    );
    // A refused move changes nothing.
    let res = app
        .request(
            Method::POST,
            &format!("{path}/actions"),
            Some(ann),
            Some(&json!({"type": "turn_up"})),
        )
        .await;
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    let (_, view) = app.get(&path, None).await;
    assert_eq!(view["version"], json!(1), "{view}");

    // Bea's token and spectators are not affected.
    let res = app
        .request(Method::GET, &path, Some(&tokens[1]), None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = app.request(Method::GET, &path, None, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        header(&res, "ratelimit-limit"),
        None,
        "no token, no token limit"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sqlite_a_token_past_its_limit_is_refused_while_other_seats_play_on() {
    a_token_past_its_limit_is_refused_while_other_seats_play_on(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_token_past_its_limit_is_refused_while_other_seats_play_on() {
    a_token_past_its_limit_is_refused_while_other_seats_play_on(Backend::Postgres).await;
}

/// A 304 is given back to its token (as GitHub does not count them): a client that
/// revalidates what it holds is not pushed towards fetching whole answers. Its address keeps
/// it, so a loop of revalidations from one address is still stopped.
#[tokio::test]
async fn an_answer_of_304_costs_its_token_nothing_and_its_address_one_request() {
    let app = app_limited(
        Backend::Sqlite,
        RateLimitSettings {
            per_token: per_day(2),
            per_client: per_day(10),
            ..RateLimitSettings::off()
        },
    )
    .await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let client = client_from("127.0.0.3");
    let revalidate = || {
        client
            .get(format!("{}/v1/games/{id}", app.address))
            .bearer_auth(&tokens[0])
            .header("If-None-Match", "\"1\"")
            .send()
    };
    for left in (5..10).rev() {
        let res = revalidate().await.unwrap();
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
        // The token's bucket (2 a day) is the tighter, and it is still full; the address's
        // (10 a day) was charged.
        assert_eq!(header(&res, "ratelimit-limit"), Some(2));
        assert_eq!(header(&res, "ratelimit-remaining"), Some(2));
        assert_eq!(
            field(&res, "ratelimit-policy"),
            Some("\"token\";q=2;w=86400, \"client\";q=10;w=86400")
        );
        let standing = field(&res, "ratelimit").unwrap();
        assert!(
            standing.starts_with(&format!("\"token\";r=2;t=0, \"client\";r={left};t=")),
            "{standing}"
        );
    }
    let path = format!("/v1/games/{id}");
    for left in [1, 0] {
        let res = get(&client, &app, &path, Some(&tokens[0])).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "ratelimit-remaining"), Some(left));
    }
    // Past the token's limit, a revalidation is refused like anything else.
    let res = revalidate().await.unwrap();
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;

    // From an address, revalidations are counted: the eleventh request of the day is refused.
    let spectator = client_from("127.0.0.4");
    let revalidate_anonymously = || {
        spectator
            .get(format!("{}/v1/games/{id}", app.address))
            .header("If-None-Match", "*")
            .send()
    };
    for _ in 0..10 {
        let res = revalidate_anonymously().await.unwrap();
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    }
    let res = revalidate_anonymously().await.unwrap();
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
}

#[tokio::test]
async fn health_checks_and_metrics_are_never_limited() {
    let app = app_limited(
        Backend::Sqlite,
        RateLimitSettings {
            per_client: per_day(1),
            ..RateLimitSettings::off()
        },
    )
    .await;
    assert_eq!(app.get("/v1/catalog", None).await.0, StatusCode::OK);
    assert_eq!(
        app.get("/v1/catalog", None).await.0,
        StatusCode::TOO_MANY_REQUESTS
    );
    for _ in 0..5 {
        for path in ["/healthz", "/readyz", "/metrics"] {
            let res = app.request(Method::GET, path, None, None).await;
            assert_eq!(res.status(), StatusCode::OK, "{path}");
            assert_eq!(header(&res, "ratelimit-limit"), None, "{path}");
        }
    }
}

#[tokio::test]
async fn with_the_limits_off_nothing_is_limited_or_reported() {
    let app = app_limited(Backend::Sqlite, RateLimitSettings::off()).await;
    for _ in 0..50 {
        let res = app
            .request(Method::GET, "/v1/catalog", Some("t"), None)
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "ratelimit-limit"), None);
    }
}

#[tokio::test]
async fn the_default_limits_do_not_trouble_a_busy_client() {
    let app = app_limited(Backend::Sqlite, RateLimitSettings::default()).await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let path = format!("/v1/games/{id}");
    for _ in 0..300 {
        let res = app
            .request(Method::GET, &path, Some(&tokens[0]), None)
            .await;
        assert_eq!(res.status(), StatusCode::OK);
    }
    let res = app
        .request(Method::GET, &path, Some(&tokens[0]), None)
        .await;
    assert_eq!(header(&res, "ratelimit-limit"), Some(1_200));
    assert!(header(&res, "ratelimit-remaining").unwrap() < 1_200);
}

async fn forwarded_from(app: &TestApp, client: &str) -> StatusCode {
    app.client
        .get(format!("{}/v1/catalog", app.address))
        .header("X-Forwarded-For", format!("{client}, 10.9.9.9"))
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_bucket() {
    let limits = RateLimitSettings {
        per_client: per_day(1),
        trusted_proxies: vec!["127.0.0.1".parse().unwrap(), "10.0.0.0/8".parse().unwrap()],
        ..RateLimitSettings::off()
    };
    let app = app_limited(Backend::Sqlite, limits).await;
    assert_eq!(forwarded_from(&app, "198.51.100.1").await, StatusCode::OK);
    assert_eq!(
        forwarded_from(&app, "198.51.100.1").await,
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(forwarded_from(&app, "198.51.100.2").await, StatusCode::OK);
}

#[tokio::test]
async fn without_a_trusted_proxy_x_forwarded_for_is_ignored() {
    let limits = RateLimitSettings {
        per_client: per_day(1),
        ..RateLimitSettings::off()
    };
    let app = app_limited(Backend::Sqlite, limits).await;
    assert_eq!(forwarded_from(&app, "198.51.100.1").await, StatusCode::OK);
    assert_eq!(
        forwarded_from(&app, "198.51.100.2").await,
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn the_test_servers_are_not_limited() {
    let app = spawn_app(Backend::Sqlite).await;
    let res = app.request(Method::GET, "/v1/catalog", None, None).await;
    assert_eq!(header(&res, "ratelimit-limit"), None);
}

#[test]
fn the_binary_offers_the_switches_a_benchmark_needs() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_parlour"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    // tools/bench-loadgen.sh looks for `rate-limit` in the help to know it may switch them off.
    for flag in [
        "--no-rate-limit",
        "--rate-limit-per-token",
        "--rate-limit-per-client",
        "--trusted-proxy",
    ] {
        assert!(help.contains(flag), "{flag} is not in\n{help}");
    }
}

/// Creating an account takes no token, so its only limit is the client address's: a client
/// past it creates nothing more, and another address is not affected.
#[tokio::test]
async fn account_creation_is_limited_per_client_address() {
    let app = app_limited(
        Backend::Sqlite,
        RateLimitSettings {
            per_client: per_day(2),
            ..RateLimitSettings::off()
        },
    )
    .await;
    let create = |client: Client, name: &str| {
        client
            .post(format!("{}/v1/accounts", app.address))
            .json(&json!({"name": name}))
            .send()
    };
    for name in ["Ann", "Bea"] {
        let res = create(app.client.clone(), name).await.unwrap();
        assert_eq!(res.status(), StatusCode::CREATED, "{name}");
    }
    let res = create(app.client.clone(), "Cy").await.unwrap();
    assert!(header(&res, "retry-after").unwrap() >= 1);
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
    let res = create(client_from("127.0.0.2"), "Dee").await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn sign_in_attempts_from_one_address_have_a_small_bucket_of_their_own() {
    let app = app_limited(
        Backend::Sqlite,
        RateLimitSettings {
            per_client: per_day(100),
            sign_ins: per_day(2),
            ..RateLimitSettings::off()
        },
    )
    .await;
    let guess = json!({"code": "signin_000000000000000000000000", "token_name": "guesser"});
    for left in [1, 0] {
        let res = app
            .request(Method::POST, "/v1/accounts/sign-in", None, Some(&guess))
            .await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            field(&res, "ratelimit-policy"),
            Some("\"client\";q=100;w=86400, \"sign-in\";q=2;w=86400")
        );
        assert_eq!(
            field(&res, "ratelimit-remaining"),
            Some(left.to_string().as_str())
        );
    }
    for path in [
        "/v1/accounts/sign-in",
        "/v1/accounts/passkey-challenges",
        "/v1/accounts/passkey-sign-in",
        "/oauth/token",
    ] {
        let res = app.request(Method::POST, path, None, Some(&guess)).await;
        assert!(res.headers().contains_key("retry-after"), "{path}");
        let problem = assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate-limited").await;
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("its 2 sign-in attempts"),
            "{problem}"
        );
    }
    // Everything else the address sends goes on.
    let res = app.request(Method::GET, "/v1/catalog", None, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        field(&res, "ratelimit-policy"),
        Some("\"client\";q=100;w=86400")
    );
}

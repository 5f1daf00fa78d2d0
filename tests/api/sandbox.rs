//! The sandbox's test clocks (`docs/sandbox.md`): on a server started with `--sandbox`, a
//! game created with `test_clock: true` has its time moved on by its host, and what the jump
//! makes due is recorded by the same sweep, entries, notices and webhooks as real time would
//! record it. These servers tell the real time and run every worker (the leader's sweeper,
//! the outbox, the webhook relay): nothing here is driven by hand but the jumps.

use std::time::Duration;

use parlour::service::webhooks::WebhookSettings;
use parlour::startup::{Sandbox, Settings};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::new_account as account;
use crate::helpers::{
    assert_clean_audit, assert_problem, fresh_database, spawn_app_with, Backend, TestApp,
};
use crate::webhooks::{receiver, register, types, Receiver};

const HOUR: u64 = 3600;

/// A server in sandbox mode (or not), whose webhooks may go to the loopback receiver.
async fn server(backend: Backend, sandbox: Sandbox) -> TestApp {
    let (url, guard) = fresh_database(backend).await;
    let settings = Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        webhooks: WebhookSettings {
            allow_private: true,
            ..WebhookSettings::default()
        },
        sandbox,
        ..Settings::default()
    };
    spawn_app_with(&url, guard, settings).await
}

/// Ann hosts a two-seat GIRL game on a one-day correspondence clock (defaulting a seat out
/// of time), on a test clock if `test_clock`, and Bea takes the other seat.
async fn hosted(app: &TestApp, ann: &str, bea: &str, test_clock: bool) -> (StatusCode, Value) {
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
                    "clock": {"control": {"kind": "correspondence", "days": 1},
                              "on_timeout": "default_move"},
                    "test_clock": test_clock}),
        )
        .await;
    if status != StatusCode::CREATED {
        return (status, hosted);
    }
    let id = hosted["id"].as_str().unwrap();
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/seats/1/claim"),
            Some(bea),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    (status, hosted)
}

async fn advance(app: &TestApp, id: &str, token: &str, body: &Value) -> reqwest::Response {
    app.request(
        Method::POST,
        &format!("/v1/games/{id}/test-clock/advance"),
        Some(token),
        Some(body),
    )
    .await
}

/// Waits for the receiver to hold a message of each of `kinds` (the relay runs in the
/// background a moment after each commit), or fails after a generous bound.
async fn received_all(receiver: &Receiver, kinds: &[&str]) -> Vec<String> {
    for _ in 0..1200 {
        let seen = types(&receiver.received.lock().unwrap());
        if kinds.iter().all(|kind| seen.iter().any(|t| t == kind)) {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let seen = types(&receiver.received.lock().unwrap());
    panic!("the receiver holds {seen:?}, not all of {kinds:?}");
}

async fn a_test_clock_brings_a_reminder_and_a_timeout_in_seconds_as_real_time_would(
    backend: Backend,
) {
    let app = server(backend, Sandbox::On).await;
    let (status, ready) = app.get("/readyz", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(ready["sandbox"], json!(true));
    let (receiver, url) = receiver();
    let ann = account(&app, "Ann").await;
    let bea = account(&app, "Bea").await;
    register(&app, &ann, &url, &["game.deadline_near", "game.timed_out"]).await;
    let (status, created) = hosted(&app, &ann, &bea, true).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap();
    let view = app.view(id, None).await;
    assert_eq!(view["test_clock"], json!({"advanced_seconds": 0}));
    let to_act = view["to_act"][0].as_u64().unwrap();
    let deadline = view["clock"]["seats"][to_act as usize]["deadline"].clone();

    // 20 hours of a one-day clock: past 80 %, so a reminder, recorded before the answer.
    let res = advance(&app, id, &ann, &json!({"seconds": 20 * HOUR})).await;
    assert_eq!(res.status(), StatusCode::OK);
    let jumped: Value = res.json().await.unwrap();
    assert_eq!(jumped["advanced_seconds"], json!(20 * HOUR));
    assert_eq!(
        (jumped["reminders"].clone(), jumped["timeouts"].clone()),
        (json!(1), json!(0))
    );
    let entries = app.all_events(id, None).await;
    let kinds: Vec<&str> = entries
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds[kinds.len() - 2..],
        ["table.test_clock_advanced", "table.reminded"]
    );
    assert_eq!(
        entries[kinds.len() - 2]["data"],
        json!({"seconds": 20 * HOUR})
    );
    assert_eq!(jumped["version"], json!(entries.len()));
    // The game's time leapt: the reminder is recorded 20 hours on, and the deadline stands.
    let at = |e: &Value| chrono::DateTime::parse_from_rfc3339(e["at"].as_str().unwrap()).unwrap();
    let leap = at(&entries[kinds.len() - 1]) - at(&entries[kinds.len() - 3]);
    assert!(leap >= chrono::Duration::hours(20), "{leap}");
    let view = app.view(id, None).await;
    assert_eq!(
        view["clock"]["seats"][to_act as usize]["deadline"],
        deadline
    );
    assert_eq!(view["test_clock"], json!({"advanced_seconds": 20 * HOUR}));

    // Five hours more: the deadline passes, the seat times out and its default move is made.
    let res = advance(&app, id, &ann, &json!({"seconds": 5 * HOUR})).await;
    assert_eq!(res.status(), StatusCode::OK);
    let jumped: Value = res.json().await.unwrap();
    assert_eq!(
        (jumped["reminders"].clone(), jumped["timeouts"].clone()),
        (json!(0), json!(1))
    );
    let entries = app.all_events(id, None).await;
    let timeout = entries
        .iter()
        .position(|e| e["type"] == "table.timed_out")
        .expect("a timeout in the log");
    assert_eq!(entries[timeout]["data"]["seat"], json!(to_act));
    assert_eq!(
        entries[timeout + 1]["actor"],
        json!(to_act),
        "the default move follows"
    );
    // Told as real time would tell it: the same webhooks, from the background relay.
    received_all(&receiver, &["game.deadline_near", "game.timed_out"]).await;
    // The game replays and verifies at the times it recorded, to its end.
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/resign"),
            Some(&bea),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_clean_audit(&app, id).await;
}

async fn test_clocks_are_refused_where_they_do_not_belong_and_change_nothing(backend: Backend) {
    // A server not in sandbox mode: no game on a test clock, and nothing to move on.
    let real = server(backend, Sandbox::Off).await;
    let (_, ready) = real.get("/readyz", None).await;
    assert_eq!(ready["sandbox"], json!(false));
    let ann = account(&real, "Ann").await;
    let bea = account(&real, "Bea").await;
    let res = real
        .request(
            Method::POST,
            "/v1/me/games",
            Some(&ann),
            Some(
                &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
                         "test_clock": true}),
            ),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "sandbox-off").await;
    let (_, inbox) = real.get("/v1/me/games", Some(&ann)).await;
    assert_eq!(inbox["games"], json!([]), "nothing was created");
    let (_, created) = hosted(&real, &ann, &bea, false).await;
    let id = created["id"].as_str().unwrap();
    let res = advance(&real, id, &ann, &json!({"seconds": 60})).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "sandbox-off").await;

    // A sandbox server: a game created without a test clock keeps real time.
    let app = server(backend, Sandbox::On).await;
    let ann = account(&app, "Ann").await;
    let bea = account(&app, "Bea").await;
    let (_, real_time) = hosted(&app, &ann, &bea, false).await;
    let real_time = real_time["id"].as_str().unwrap();
    let res = advance(&app, real_time, &ann, &json!({"seconds": 60})).await;
    assert_problem(res, StatusCode::CONFLICT, "no-test-clock").await;
    assert!(app.view(real_time, None).await.get("test_clock").is_none());

    // On a test clock: only its host moves it, by 1 second to 366 days, with a body.
    let (_, tested) = hosted(&app, &ann, &bea, true).await;
    let id = tested["id"].as_str().unwrap();
    let before = app.all_events(id, None).await.len();
    let res = advance(&app, id, &bea, &json!({"seconds": 60})).await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-host").await;
    for body in [
        json!({"seconds": 0}),
        json!({"seconds": 366 * 24 * HOUR + 1}),
        json!({"seconds": -5}),
        json!({"seconds": "60"}),
        json!({"seconds": 1.5}),
        json!({"minutes": 5}),
        json!({}),
    ] {
        let res = advance(&app, id, &ann, &body).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    let res = advance(&app, id, "not-a-token", &json!({"seconds": 60})).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        app.all_events(id, None).await.len(),
        before,
        "nothing was recorded"
    );
    // A whole number written with a zero fraction is that number, as JSON Schema's `integer`
    // has it (Schemathesis sends such numbers).
    let res = advance(&app, id, &ann, &json!({"seconds": 60.0})).await;
    assert_eq!(res.status(), StatusCode::OK);
    // Once the game is over, its clock stands.
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/resign"),
            Some(&ann),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = advance(&app, id, &ann, &json!({"seconds": 60})).await;
    assert_problem(res, StatusCode::CONFLICT, "not-your-move").await;
}

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(crate::helpers::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(crate::helpers::Backend::Postgres).await;
                }
            )*
        }
    };
}

on_both_backends!(
    a_test_clock_brings_a_reminder_and_a_timeout_in_seconds_as_real_time_would,
    test_clocks_are_refused_where_they_do_not_belong_and_change_nothing,
);

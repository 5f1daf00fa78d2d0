//! One real answer for every problem type: the test provokes each problem over HTTP from
//! servers it starts itself, and keeps the bodies the server gave, one per problem code, in
//! `openapi/examples/problems.json`, the examples the API document shows.
//!
//! Hand-written examples drift: a detail reworded, an extension member added, a status
//! changed, and the document still shows the old answer. These are answers, and the test
//! fails when the file no longer matches what the server says, or when a problem is declared
//! (`parlour::error::Problem::ALL`) that nobody has provoked. To take the server's answers
//! into the file after a deliberate change, run
//!
//! ```text
//! PARLOUR_CAPTURE_PROBLEMS=1 cargo test -p parlour --test api problem_examples
//! ```
//!
//! and commit the file. Each body is made the same on every run before it is compared or
//! kept (see [`normalised`]): games are dealt from fixed seeds, and what is fresh on every run
//! (ids, the time a rate limit refills in) is written as a fixed stand-in.
//!
//! A few problems cannot be brought about on purpose by a client of a working server
//! ([`RENDERED`]); their bodies are rendered by the server's own error path, from the
//! service error the server answers them for, so they are still the server's words.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use actix_web::ResponseError as _;
use parlour::error::{ApiError, Problem};
use parlour::http::rate_limit::{Quota, RateLimitSettings};
use parlour::limits::StreamLimits;
use parlour::service::{Fault, ServiceError};
use parlour::startup::{EmailConfig, Sandbox, Settings};
use reqwest::{Method, Response};
use serde_json::{json, Value};

use crate::helpers::{fresh_database, new_account, spawn_app, spawn_app_with, Backend, TestApp};

/// Where the examples are kept, beside the API document.
const EXAMPLES: &str = "../openapi/examples/problems.json";

/// Set to `1` to write the answers into [`EXAMPLES`] instead of comparing them with it.
const CAPTURE: &str = "PARLOUR_CAPTURE_PROBLEMS";

/// What every UUID in an answer is written as: ids are new on every run.
const STAND_IN_UUID: &str = "0193a7c2-5b1e-7d40-9c1a-2f4e6d8b0a13";

/// The deal of every game here (the README's: the first card turned up is a HEROINE).
const SEED: &str = "4242424242424242424242424242424242424242424242424242424242424242";

/// The quota of the rate-limited server: one request a minute from each address.
const ONE_A_MINUTE: Quota = Quota {
    requests: 1,
    per: Duration::from_secs(60),
};

/// The problems no client can bring about on purpose, each with why; their bodies are
/// rendered from the `ServiceError` the server answers them for ([`service_error_for`]).
const RENDERED: [(&str, &str); 3] = [
    (
        "conflict",
        "another instance's move took the log's next place at every one of the server's \
         retries: a race between instances that only timing could arrange",
    ),
    (
        "idempotency-key-in-flight",
        "a retry must arrive while the first request is still inside the store; \
         conventions.rs arranges it only with a store wrapper that holds the append, private \
         to that module and some 500 lines long",
    ),
    (
        "internal",
        "a fault on the server's side (a store failing otherwise than by not answering, or a \
         stored game the engine cannot read): a working server gives none",
    ),
];

/// The `ServiceError` the server answers `code` for, for the problems in [`RENDERED`].
fn service_error_for(code: &str) -> ServiceError {
    match code {
        "conflict" => ServiceError::Conflict,
        "idempotency-key-in-flight" => ServiceError::KeyInFlight,
        "internal" => ServiceError::Internal(Fault::new(
            "the stored game cannot be rebuilt",
            "an event the engine cannot read",
        )),
        other => panic!("{other} is not one of the rendered problems"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_problem_example_in_the_document_is_an_answer_the_server_gave() {
    let mut examples = Examples::default();
    refusals_of_a_plain_server(&mut examples).await;
    refusals_of_a_server_that_requires_preconditions_and_keeps_short_logs(&mut examples).await;
    refusals_of_a_server_reached_by_an_ip_address(&mut examples).await;
    refusals_of_a_rate_limited_server(&mut examples).await;
    refusals_of_a_server_with_few_streams(&mut examples).await;
    refusals_of_a_mailing_server(&mut examples).await;
    refusals_of_a_sandbox_server(&mut examples).await;
    refusals_of_a_server_whose_database_is_locked(&mut examples).await;
    for (code, _why) in RENDERED {
        examples.render(code).await;
    }

    // Every declared problem has its example, and nothing else has one.
    let declared: BTreeSet<&str> = Problem::ALL.iter().map(|p| p.code()).collect();
    let collected: BTreeSet<&str> = examples.bodies.keys().map(String::as_str).collect();
    let missing: Vec<_> = declared.difference(&collected).collect();
    let unknown: Vec<_> = collected.difference(&declared).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "problems without an example: {missing:?}; examples of no declared problem: \
         {unknown:?}; provoke each new problem in this test (or, if no client can provoke \
         it, add it to RENDERED with why)"
    );

    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(EXAMPLES);
    let captured = serde_json::to_string_pretty(&examples.bodies).unwrap() + "\n";
    if std::env::var(CAPTURE).as_deref() == Ok("1") {
        std::fs::write(&path, captured).expect("write the examples");
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    let kept: BTreeMap<String, Value> = serde_json::from_str(&kept).unwrap_or_default();
    let stale: Vec<&str> = declared
        .iter()
        .copied()
        .filter(|code| kept.get(*code) != examples.bodies.get(*code))
        .collect();
    assert!(
        stale.is_empty() && kept.len() == examples.bodies.len(),
        "{} is not what the server answers now for {stale:?}; run \
         `{CAPTURE}=1 cargo test -p parlour --test api problem_examples`, check the \
         difference and commit the file",
        path.display()
    );
}

/// The answers collected so far, by problem code.
#[derive(Default)]
struct Examples {
    bodies: BTreeMap<String, Value>,
}

impl Examples {
    /// Keeps `res` as the example of `code`, once it is sure it is one: the problem's
    /// status, `type` and title, as `application/problem+json`.
    async fn take(&mut self, code: &str, res: Response) {
        let problem = Problem::from_code(code).unwrap_or_else(|| panic!("no problem {code}"));
        let status = res.status().as_u16();
        let content_type = res
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body: Value = res.json().await.unwrap_or(Value::Null);
        assert_eq!(status, problem.status().as_u16(), "{code}: {body}");
        // The OAuth token endpoint answers as RFC 6749 §5.2 says, in `application/json`,
        // with the problem's members beside OAuth's `error` and `error_description`.
        let expected = if problem == Problem::OAuthRefused {
            "application/json"
        } else {
            "application/problem+json"
        };
        assert_eq!(content_type, expected, "{code}: {body}");
        self.keep(problem, body);
    }

    /// Renders `code` through the server's error path: `ApiError` from the `ServiceError`
    /// the server answers it for, as `error_response` writes it.
    async fn render(&mut self, code: &str) {
        let problem = Problem::from_code(code).unwrap_or_else(|| panic!("no problem {code}"));
        let error = ApiError::from(service_error_for(code));
        assert_eq!(error.problem(), problem, "{code}");
        let response = error.error_response();
        assert_eq!(response.status().as_u16(), problem.status().as_u16());
        assert_eq!(
            response
                .headers()
                .get(actix_web::http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
            Some("application/problem+json")
        );
        let bytes = actix_web::body::to_bytes(response.into_body())
            .await
            .expect("the body");
        self.keep(problem, serde_json::from_slice(&bytes).expect("JSON"));
    }

    fn keep(&mut self, problem: Problem, mut body: Value) {
        let code = problem.code();
        assert_eq!(body["type"], json!(format!("/problems/{code}")), "{body}");
        assert_eq!(body["title"], json!(problem.title()), "{body}");
        assert_eq!(body["status"], json!(problem.status().as_u16()), "{body}");
        assert!(
            body["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{body}"
        );
        normalised(problem, &mut body);
        let earlier = self.bodies.insert(code.to_string(), body);
        assert!(earlier.is_none(), "{code} was provoked twice");
    }
}

/// `body` as it is on every run: each UUID in a string is [`STAND_IN_UUID`], and the seconds
/// a rate limit says to wait are the whole quota's window (the server counts them from when
/// the first request came, so they may be a second less on a slow run).
fn normalised(problem: Problem, body: &mut Value) {
    match body {
        Value::String(text) => *text = without_uuids(text),
        Value::Array(items) => items.iter_mut().for_each(|v| normalised(problem, v)),
        Value::Object(members) => members.values_mut().for_each(|v| normalised(problem, v)),
        _ => {}
    }
    if problem == Problem::RateLimited {
        if let Some(Value::String(detail)) = body.get_mut("detail") {
            let window = ONE_A_MINUTE.per.as_secs();
            if let Some((before, _seconds)) = detail.rsplit_once("try again in ") {
                *detail = format!("{before}try again in {window} s");
            }
        }
    }
}

/// `text` with every UUID (`8-4-4-4-12` lower-case hex digits) written as [`STAND_IN_UUID`].
fn without_uuids(text: &str) -> String {
    fn is_uuid(bytes: &[u8]) -> bool {
        bytes.len() == 36
            && bytes.iter().enumerate().all(|(i, b)| match i {
                8 | 13 | 18 | 23 => *b == b'-',
                _ => b.is_ascii_digit() || (b'a'..=b'f').contains(b),
            })
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut from, mut i) = (0, 0);
    while i + 36 <= bytes.len() {
        if is_uuid(&bytes[i..i + 36]) {
            // Both ends are ASCII, so both are character boundaries.
            out.push_str(&text[from..i]);
            out.push_str(STAND_IN_UUID);
            i += 36;
            from = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[from..]);
    out
}

/// A server on a fresh SQLite database with `settings`, unlimited in requests unless they
/// say otherwise.
async fn server(settings: Settings) -> TestApp {
    let (url, guard) = fresh_database(Backend::Sqlite).await;
    spawn_app_with(&url, guard, settings).await
}

/// Settings without rate limits: the test sends many requests from one address.
fn unlimited() -> Settings {
    Settings {
        rate_limits: RateLimitSettings::off(),
        ..Settings::default()
    }
}

/// A request with a JSON body (or none), and `headers` besides.
async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Response {
    let mut req = app.client.request(method, format!("{}{path}", app.address));
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    if let Some(body) = body {
        req = req.json(body);
    }
    req.send().await.expect("an answer")
}

/// A POST of `body` as it is, with this content type.
async fn post_raw(app: &TestApp, path: &str, content_type: &str, body: String) -> Response {
    app.client
        .post(format!("{}{path}", app.address))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .expect("an answer")
}

/// A GIRL game for two from [`SEED`]: its id and the seats' tokens. Seat 0 is to turn up.
async fn girl(app: &TestApp) -> (String, Vec<String>) {
    app.create_game("girl", 2, Some(SEED), json!({})).await
}

/// The id of a new account's game of GIRL hosted by `token` for `seats`.
async fn hosted(app: &TestApp, token: &str, seats: Value) -> String {
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(token),
            &json!({"game": "girl", "seats": seats}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{hosted}");
    hosted["id"].as_str().unwrap().to_string()
}

/// Everything a server with the default settings refuses.
async fn refusals_of_a_plain_server(examples: &mut Examples) {
    let app = spawn_app(Backend::Sqlite).await;
    let turn_up = json!({"type": "turn_up"});
    let two = json!([{"name": "Ann"}, {"name": "Bea"}]);

    // The request itself.
    let res = post_raw(&app, "/v1/games", "application/json", "{not json".into()).await;
    examples.take("malformed-request", res).await;
    let body = json!({"game": "girl", "players": [{"name": ""}, {"name": "Bea"}]});
    let res = send(&app, Method::POST, "/v1/games", None, &[], Some(&body)).await;
    examples.take("invalid-text", res).await;
    let huge = json!({"game": "girl", "players": two, "options": {"x": "y".repeat(70 * 1024)}});
    let res = post_raw(&app, "/v1/games", "application/json", huge.to_string()).await;
    examples.take("payload-too-large", res).await;
    let body = json!({"game": "girl", "players": two}).to_string();
    let res = post_raw(&app, "/v1/games", "text/plain", body).await;
    examples.take("unsupported-media-type", res).await;
    let res = send(&app, Method::GET, "/v1/nothing-here", None, &[], None).await;
    examples.take("not-found", res).await;

    // Setting a game up.
    let body = json!({"game": "chess", "players": two});
    let res = send(&app, Method::POST, "/v1/games", None, &[], Some(&body)).await;
    examples.take("unknown-game", res).await;
    let body = json!({"game": "girl", "players": [{"name": "Ann"}]});
    let res = send(&app, Method::POST, "/v1/games", None, &[], Some(&body)).await;
    examples.take("invalid-setup", res).await;

    // Playing one.
    let (id, seats) = girl(&app).await;
    let (other, others) = girl(&app).await;
    let actions = format!("/v1/games/{id}/actions");
    let res = send(
        &app,
        Method::DELETE,
        &format!("/v1/games/{id}"),
        None,
        &[],
        None,
    )
    .await;
    examples.take("method-not-allowed", res).await;
    let res = send(&app, Method::POST, &actions, None, &[], Some(&turn_up)).await;
    examples.take("unauthorized", res).await;
    let res = send(
        &app,
        Method::GET,
        &format!("/v1/games/{id}"),
        Some(&others[0]),
        &[],
        None,
    )
    .await;
    examples.take("wrong-game", res).await;
    let nowhere = format!("/v1/games/{}", uuid::Uuid::nil());
    let res = send(&app, Method::GET, &nowhere, None, &[], None).await;
    examples.take("game-not-found", res).await;
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[1]),
        &[],
        Some(&turn_up),
    )
    .await;
    examples.take("not-your-move", res).await;
    let dance = json!({"type": "dance"});
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[0]),
        &[],
        Some(&dance),
    )
    .await;
    examples.take("invalid-action", res).await;
    let stale = [("If-Match", "\"0\"")];
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[0]),
        &stale,
        Some(&turn_up),
    )
    .await;
    examples.take("version-mismatch", res).await;
    let keyed = [("Idempotency-Key", "move-1")];
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[0]),
        &keyed,
        Some(&turn_up),
    )
    .await;
    assert_eq!(res.status(), reqwest::StatusCode::OK);
    let pass = json!({"type": "pass"});
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[0]),
        &keyed,
        Some(&pass),
    )
    .await;
    examples.take("idempotency-key-reused", res).await;
    // Turning up again while a HEROINE is played for breaks a rule.
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[0]),
        &[],
        Some(&turn_up),
    )
    .await;
    examples.take("rule-violation", res).await;
    let bot = format!("/v1/games/{id}/seats/1/bot");
    let steady = json!({"level": "steady"});
    let res = send(&app, Method::PUT, &bot, Some(&seats[0]), &[], Some(&steady)).await;
    examples.take("not-your-seat", res).await;
    let res = send(&app, Method::DELETE, &bot, Some(&seats[1]), &[], None).await;
    examples.take("bot-seat", res).await;

    // Its documents.
    let res = send(
        &app,
        Method::GET,
        &format!("/v1/games/{id}/scorecard"),
        None,
        &[],
        None,
    )
    .await;
    examples.take("no-such-document", res).await;
    let res = send(
        &app,
        Method::GET,
        &format!("/v1/games/{id}/file"),
        None,
        &[],
        None,
    )
    .await;
    examples.take("game-in-progress", res).await;
    let statistics = format!("/v1/statistics/googly?games={other}");
    let res = send(&app, Method::GET, &statistics, None, &[], None).await;
    examples.take("invalid-selection", res).await;

    // Accounts and their tables.
    let ann = new_account(&app, "Ann").await;
    let bea = new_account(&app, "Bea").await;
    let cat = new_account(&app, "Cat").await;
    let res = send(
        &app,
        Method::POST,
        &format!("/v1/games/{id}/abort"),
        Some(&ann),
        &[],
        None,
    )
    .await;
    examples.take("seating-closed", res).await;
    let table = hosted(&app, &ann, json!([{"kind": "me"}, {"kind": "invitation"}])).await;
    let claim = |seat: u8| format!("/v1/games/{table}/seats/{seat}/claim");
    let res = send(
        &app,
        Method::POST,
        &claim(1),
        Some(&bea),
        &[],
        Some(&json!({})),
    )
    .await;
    examples.take("not-invited", res).await;
    let res = send(
        &app,
        Method::POST,
        &claim(0),
        Some(&cat),
        &[],
        Some(&json!({})),
    )
    .await;
    examples.take("seat-taken", res).await;
    let offer = format!("/v1/games/{table}/seats/1/offer");
    let res = send(&app, Method::DELETE, &offer, Some(&bea), &[], None).await;
    examples.take("not-host", res).await;
    let clocked = json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
        "clock": {"control": {"kind": "correspondence", "days": 4}, "on_timeout": "forfeit"}});
    let res = send(
        &app,
        Method::POST,
        "/v1/me/games",
        Some(&ann),
        &[],
        Some(&clocked),
    )
    .await;
    examples.take("invalid-clock", res).await;
    let on_a_test_clock = json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
        "test_clock": true});
    let res = send(
        &app,
        Method::POST,
        "/v1/me/games",
        Some(&ann),
        &[],
        Some(&on_a_test_clock),
    )
    .await;
    examples.take("sandbox-off", res).await;
    let res = send(
        &app,
        Method::DELETE,
        "/v1/me/vacation",
        Some(&ann),
        &[],
        None,
    )
    .await;
    examples.take("vacation-refused", res).await;
    let token = format!("/v1/me/tokens/{}", uuid::Uuid::nil());
    let res = send(&app, Method::DELETE, &token, Some(&ann), &[], None).await;
    examples.take("token-not-found", res).await;
    let address = json!({"address": "ann@example.org"});
    let res = send(
        &app,
        Method::POST,
        "/v1/me/email-addresses",
        Some(&ann),
        &[],
        Some(&address),
    )
    .await;
    examples.take("email-off", res).await;

    // Webhooks and push subscriptions.
    let hook = json!({"url": "ftp://example.com/", "events": ["game.your_turn"]});
    let res = send(
        &app,
        Method::POST,
        "/v1/webhooks",
        Some(&ann),
        &[],
        Some(&hook),
    )
    .await;
    examples.take("invalid-webhook", res).await;
    let subscription = json!({"endpoint": "https://push.example.com/ann", "expirationTime": null,
        "keys": {"p256dh": "AAAA", "auth": "c2hvcnQ"}});
    let res = send(
        &app,
        Method::POST,
        "/v1/me/push-subscriptions",
        Some(&ann),
        &[],
        Some(&subscription),
    )
    .await;
    examples.take("invalid-push-subscription", res).await;

    // Apps: a token without a scope, an authorization that cannot be approved, a grant the
    // token endpoint does not know.
    let (status, mover) = app
        .post(
            "/v1/me/tokens",
            Some(&ann),
            &json!({"name": "mover", "scopes": ["games:play"]}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{mover}");
    let mover = mover["secret"].as_str().unwrap();
    let res = send(
        &app,
        Method::POST,
        "/v1/webhooks",
        Some(mover),
        &[],
        Some(&hook),
    )
    .await;
    examples.take("insufficient-scope", res).await;
    let asking = json!({
        "response_type": "code",
        "client_id": "not an id",
        "redirect_uri": "https://example.app/callback",
        "scope": "games:read",
        "state": "s-1",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256",
    });
    let res = send(
        &app,
        Method::POST,
        "/v1/oauth/authorizations",
        Some(&ann),
        &[],
        Some(&asking),
    )
    .await;
    examples.take("invalid-authorization-request", res).await;
    let res = app
        .client
        .post(format!("{}/oauth/token", app.address))
        .form(&[("grant_type", "password")])
        .send()
        .await
        .unwrap();
    examples.take("oauth-refused", res).await;

    // Passkeys: an answer that is no credential, and a credential registered already (Bea's
    // browser presents the very passkey Ann registered: a cloned authenticator).
    let begin = |token: String| {
        let app = &app;
        async move {
            let (status, ceremony) = app
                .post("/v1/me/passkey-registrations", Some(&token), &json!({}))
                .await;
            assert_eq!(status, reqwest::StatusCode::CREATED, "{ceremony}");
            ceremony
        }
    };
    let finish = |token: String, ceremony: Value, credential: Value| {
        let app = &app;
        async move {
            let body = json!({"ceremony": ceremony["ceremony"], "name": "phone",
                              "credential": credential});
            send(
                app,
                Method::POST,
                "/v1/me/passkeys",
                Some(&token),
                &[],
                Some(&body),
            )
            .await
        }
    };
    let ceremony = begin(ann.clone()).await;
    let res = finish(ann.clone(), ceremony, json!({"id": "x"})).await;
    examples.take("invalid-passkey", res).await;
    let mut authenticator = crate::passkeys::Authenticator::for_app(&app, 9);
    crate::passkeys::register(&app, &ann, &mut authenticator, "phone").await;
    let ceremony = begin(bea.clone()).await;
    let mut clone = crate::passkeys::Authenticator::for_app(&app, 9);
    let credential = clone.create(&ceremony["public_key"]);
    let res = finish(bea.clone(), ceremony, credential).await;
    examples.take("passkey-exists", res).await;
}

/// A move without `If-Match` where the operator requires one, and a move past a log that may
/// hold one event (a GIRL game's deal).
async fn refusals_of_a_server_that_requires_preconditions_and_keeps_short_logs(
    examples: &mut Examples,
) {
    let app = server(Settings {
        require_preconditions: true,
        max_events_per_game: 1,
        ..unlimited()
    })
    .await;
    let (id, seats) = girl(&app).await;
    let actions = format!("/v1/games/{id}/actions");
    let turn_up = json!({"type": "turn_up"});
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[0]),
        &[],
        Some(&turn_up),
    )
    .await;
    examples.take("precondition-required", res).await;
    let current = [("If-Match", "\"1\"")];
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[0]),
        &current,
        Some(&turn_up),
    )
    .await;
    examples.take("log-full", res).await;
}

/// Passkeys on a server its players reach by an IP address, which WebAuthn does not allow.
async fn refusals_of_a_server_reached_by_an_ip_address(examples: &mut Examples) {
    let mut settings = unlimited();
    settings.email.public_url = Some("http://192.0.2.7:8080".into());
    let app = server(settings).await;
    let ann = new_account(&app, "Ann").await;
    let res = send(
        &app,
        Method::POST,
        "/v1/me/passkey-registrations",
        Some(&ann),
        &[],
        Some(&json!({})),
    )
    .await;
    examples.take("passkeys-off", res).await;
}

/// The second request from an address that may send one a minute.
async fn refusals_of_a_rate_limited_server(examples: &mut Examples) {
    let app = server(Settings {
        rate_limits: RateLimitSettings {
            per_client: Some(ONE_A_MINUTE),
            ..RateLimitSettings::off()
        },
        ..Settings::default()
    })
    .await;
    let res = send(&app, Method::GET, "/v1/catalog", None, &[], None).await;
    assert_eq!(res.status(), reqwest::StatusCode::OK);
    let res = send(&app, Method::GET, "/v1/catalog", None, &[], None).await;
    examples.take("rate-limited", res).await;
}

/// A second stream for a seat token that may hold one, and a stream past the server's two.
async fn refusals_of_a_server_with_few_streams(examples: &mut Examples) {
    let app = server(Settings {
        streams: StreamLimits {
            per_token: 1,
            per_client: 10,
            total: 2,
        },
        ..unlimited()
    })
    .await;
    let (id, seats) = girl(&app).await;
    let stream = format!("/v1/games/{id}/stream");
    // The streams admitted stay open (their answers unread) until the test is done here.
    let seat = send(&app, Method::GET, &stream, Some(&seats[0]), &[], None).await;
    assert_eq!(seat.status(), reqwest::StatusCode::OK);
    let res = send(&app, Method::GET, &stream, Some(&seats[0]), &[], None).await;
    examples.take("too-many-streams", res).await;
    let spectator = send(&app, Method::GET, &stream, None, &[], None).await;
    assert_eq!(spectator.status(), reqwest::StatusCode::OK);
    let res = send(&app, Method::GET, &stream, None, &[], None).await;
    examples.take("at-capacity", res).await;
    drop((seat, spectator));
}

/// Addresses, links and notice preferences on a server that mails. Nothing is mailed: the
/// relay runs only when a test drives it (`webhooks::hooked_with`), so the SMTP URL names a
/// port nobody listens on.
async fn refusals_of_a_mailing_server(examples: &mut Examples) {
    let h = crate::webhooks::hooked_with(
        Backend::Sqlite,
        EmailConfig {
            smtp_url: Some("smtp://127.0.0.1:9".into()),
            ..EmailConfig::default()
        },
    )
    .await;
    let app = &h.app;
    let ann = new_account(app, "Ann").await;
    let addresses = "/v1/me/email-addresses";
    let bad = json!({"address": "ann@"});
    let res = send(app, Method::POST, addresses, Some(&ann), &[], Some(&bad)).await;
    examples.take("invalid-email-address", res).await;
    let good = json!({"address": "ann@example.org"});
    let res = send(app, Method::POST, addresses, Some(&ann), &[], Some(&good)).await;
    assert_eq!(res.status(), reqwest::StatusCode::CREATED);
    let again = json!({"address": "ann@EXAMPLE.org"});
    let res = send(app, Method::POST, addresses, Some(&ann), &[], Some(&again)).await;
    examples.take("email-address-exists", res).await;
    // A forged link, followed as a mail client's one-click unsubscribe follows one.
    let res = app
        .client
        .post(format!("{}/v1/email/verify?token=abc", app.address))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    examples.take("invalid-email-link", res).await;
    let (status, mut preferences) = app.get("/v1/me/notice-preferences", Some(&ann)).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{preferences}");
    preferences["time_zone"] = json!("Mars/Olympus");
    let res = send(
        app,
        Method::PUT,
        "/v1/me/notice-preferences",
        Some(&ann),
        &[],
        Some(&preferences),
    )
    .await;
    examples.take("invalid-notice-preferences", res).await;
}

/// Moving on the time of a game that keeps real time, on a server that has test clocks.
async fn refusals_of_a_sandbox_server(examples: &mut Examples) {
    let app = server(Settings {
        sandbox: Sandbox::On,
        ..unlimited()
    })
    .await;
    let ann = new_account(&app, "Ann").await;
    let table = hosted(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await;
    let advance = format!("/v1/games/{table}/test-clock/advance");
    let body = json!({"seconds": 60});
    let res = send(&app, Method::POST, &advance, Some(&ann), &[], Some(&body)).await;
    examples.take("no-test-clock", res).await;
}

/// A move while another writer holds the SQLite file's write lock: the server waits its
/// second for the database, then answers that it is not answering (as `outage.rs` does).
async fn refusals_of_a_server_whose_database_is_locked(examples: &mut Examples) {
    let app = server(Settings {
        db: parlour::store::DbSettings {
            acquire_timeout: Duration::from_secs(1),
            statement_timeout: Duration::from_secs(1),
            ..parlour::store::DbSettings::default()
        },
        ..unlimited()
    })
    .await;
    let (id, seats) = girl(&app).await;
    let other = sqlx::SqlitePool::connect(&app.database_url)
        .await
        .expect("a second writer");
    let mut writer = other.acquire().await.expect("a connection");
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *writer)
        .await
        .expect("take the write lock");
    let turn_up = json!({"type": "turn_up"});
    let actions = format!("/v1/games/{id}/actions");
    let res = send(
        &app,
        Method::POST,
        &actions,
        Some(&seats[0]),
        &[],
        Some(&turn_up),
    )
    .await;
    examples.take("unavailable", res).await;
    sqlx::query("ROLLBACK")
        .execute(&mut *writer)
        .await
        .expect("release the lock");
    drop(writer);
    other.close().await;
}

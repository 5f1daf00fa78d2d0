//! Strict input: unknown fields, control characters, over-long or empty names and numbers out
//! of range are refused with a problem naming what is wrong; oversized bodies are 413, bodies
//! that are not JSON 415, a known path with another method 405; and a refused request changes
//! nothing, on either backend.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{assert_problem, new_account, spawn_app, Backend, TestApp};
use crate::on_both_backends;

const SEED: &str = "4242424242424242424242424242424242424242424242424242424242424242";

/// The game's version and its whole log (as a spectator sees it).
async fn log_of(app: &TestApp, id: &str) -> (Value, Vec<Value>) {
    let version = app.view(id, None).await["version"].clone();
    (version, app.all_events(id, None).await)
}

async fn post_raw(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    content_type: Option<&str>,
    body: String,
) -> reqwest::Response {
    let mut req = app.client.post(format!("{}{path}", app.address)).body(body);
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(content_type) = content_type {
        req = req.header("content-type", content_type);
    }
    req.send().await.unwrap()
}

fn detail(problem: &Value) -> &str {
    problem["detail"].as_str().unwrap_or_default()
}

async fn unknown_fields_are_refused_with_the_field_named_and_nothing_is_stored(app: TestApp) {
    let players = json!([{"name": "Ann"}, {"name": "Bea"}]);
    for (body, status, code, field) in [
        (
            json!({"game": "girl", "players": players, "colour": "red"}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "colour",
        ),
        (
            json!({"game": "girl", "players": [{"name": "Ann", "age": 7}, {"name": "Bea"}]}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
            "age",
        ),
        (
            json!({"game": "girl", "players": players, "options": {"turbo": true}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-setup",
            "turbo",
        ),
    ] {
        let res = app
            .request(Method::POST, "/v1/games", None, Some(&body))
            .await;
        let problem = assert_problem(res, status, code).await;
        assert!(detail(&problem).contains(field), "{problem}");
    }

    let (id, tokens) = app.create_game("girl", 2, Some(SEED), json!({})).await;
    let before = log_of(&app, &id).await;
    let url = format!("{}/v1/games/{id}/actions", app.address);
    // Fifty kilobytes of junk in short strings, each of which would pass the text check: the
    // game refuses the field, and nothing of it reaches the log.
    let padding: Vec<String> = (0..250).map(|i| format!("{i:0>200}")).collect();
    for (junk, field) in [
        (json!({"type": "turn_up", "junk": {"a": 1}}), "junk"),
        (json!({"type": "turn_up", "padding": padding}), "padding"),
        (json!({"type": "turn_up", "ghost": null}), "ghost"),
    ] {
        let res = app
            .client
            .post(&url)
            .bearer_auth(&tokens[0])
            .header("Idempotency-Key", "first-move")
            .json(&junk)
            .send()
            .await
            .unwrap();
        let problem = assert_problem(res, StatusCode::BAD_REQUEST, "invalid-action").await;
        assert!(detail(&problem).contains(field), "{problem}");
        assert_eq!(log_of(&app, &id).await, before);
    }
    // The refused moves left no trace under their key either: it is free for the real move.
    let res = app
        .client
        .post(&url)
        .bearer_auth(&tokens[0])
        .header("Idempotency-Key", "first-move")
        .json(&json!({"type": "turn_up"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().get("idempotent-replayed").is_none());
    // What the log keeps is the move as the game read it, nothing else that was sent.
    let stored = app
        .store
        .events(uuid::Uuid::parse_str(&id).unwrap(), 0, None)
        .await
        .unwrap();
    let commands: Vec<&Value> = stored.iter().filter_map(|e| e.command.as_ref()).collect();
    assert_eq!(commands, [&json!({"type": "turn_up"})]);
}

/// Asserts that creating `body` is refused as `invalid-text`, and returns the problem.
async fn refused_text(app: &TestApp, body: Value) -> Value {
    let res = app
        .request(Method::POST, "/v1/games", None, Some(&body))
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid-text").await
}

async fn a_control_character_anywhere_in_a_body_is_refused_and_the_field_named(app: TestApp) {
    for bad in ["nul\u{0}byte", "tab\there", "del\u{7f}", "csi\u{9b}"] {
        let problem = refused_text(
            &app,
            json!({"game": "girl", "players": [{"name": "Ann"}, {"name": bad}]}),
        )
        .await;
        assert_eq!(problem["field"], json!("players[1].name"), "{problem}");
    }
    let problem = refused_text(
        &app,
        json!({"game": "girl\u{0}", "players": [{"name": "A"}, {"name": "B"}]}),
    )
    .await;
    assert_eq!(problem["field"], json!("game"), "{problem}");
    // GOOGLY's options hold free text (the sides' and players' names): the same rules.
    let problem = refused_text(
        &app,
        json!({"game": "googly", "players": [{"name": "A"}, {"name": "B"}],
        "options": {"teams": [{"name": "Gentle\u{0}men"}]}}),
    )
    .await;
    assert_eq!(
        problem["field"],
        json!("options.teams[0].name"),
        "{problem}"
    );
    let problem = refused_text(
        &app,
        json!({"game": "googly", "players": [{"name": "A"}, {"name": "B"}],
        "options": {"teams": [{"players": ["\u{1b}[31mW. G. Grace"]}]}}),
    )
    .await;
    assert_eq!(
        problem["field"],
        json!("options.teams[0].players[0]"),
        "{problem}"
    );
    let problem = refused_text(
        &app,
        json!({"game": "googly", "players": [{"name": "A"}, {"name": "B"}],
        "options": {"teams": [{"name": "x".repeat(257)}]}}),
    )
    .await;
    assert_eq!(
        problem["field"],
        json!("options.teams[0].name"),
        "{problem}"
    );
    // Well-formed text in the same places is accepted.
    app.create_game(
        "googly",
        2,
        None,
        json!({"teams": [{"name": "Gentlemen of Zoë", "players": ["W. G. Grace"]}]}),
    )
    .await;

    let (id, tokens) = app.create_game("girl", 2, Some(SEED), json!({})).await;
    let before = log_of(&app, &id).await;
    for (action, field) in [
        (
            json!({"type": "lay", "cards": ["trio-01\u{0}"]}),
            "cards[0]",
        ),
        (json!({"type": "turn_up\u{0}"}), "type"),
        (
            json!({"type": "turn_up", "note": {"deep": ["\u{7}"]}}),
            "note.deep[0]",
        ),
        (json!({"type": "turn_up", "k\u{0}": 1}), "(a field name)"),
    ] {
        let res = app
            .request(
                Method::POST,
                &format!("/v1/games/{id}/actions"),
                Some(&tokens[0]),
                Some(&action),
            )
            .await;
        let problem = assert_problem(res, StatusCode::BAD_REQUEST, "invalid-text").await;
        assert_eq!(problem["field"], json!(field), "{problem}");
        assert_eq!(log_of(&app, &id).await, before);
    }
}

async fn names_are_kept_trimmed_and_must_be_1_to_64_characters(app: TestApp) {
    let (status, created) = app
        .post(
            "/v1/games",
            None,
            &json!({"game": "girl", "players": [{"name": "  Ann \u{3000}"}, {"name": "b".repeat(64)}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["seats"][0]["name"], json!("Ann"));
    let id = created["id"].as_str().unwrap();
    assert_eq!(app.view(id, None).await["seats"][0]["name"], json!("Ann"));
    for bad in ["", "   ", "\u{3000}", &"b".repeat(65)] {
        let res = app
            .request(
                Method::POST,
                "/v1/games",
                None,
                Some(&json!({"game": "girl", "players": [{"name": bad}, {"name": "Bea"}]})),
            )
            .await;
        let problem = assert_problem(res, StatusCode::BAD_REQUEST, "invalid-text").await;
        assert_eq!(
            problem["field"],
            json!("players[0].name"),
            "{bad:?}: {problem}"
        );
    }
}

async fn numbers_in_the_query_are_range_checked_and_long_waits_cut_to_the_longest(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, Some(SEED), json!({})).await;
    for query in [
        "events?limit=0",
        "events?limit=1001",
        "events?limit=-1",
        "events?limit=ten",
        "events?after=9223372036854775808",
        "events?after=18446744073709551616",
        "events?after=-1",
        "events?colour=red",
        "state?at=9223372036854775808",
        "state?at=-1",
        "state",
    ] {
        let res = app
            .request(Method::GET, &format!("/v1/games/{id}/{query}"), None, None)
            .await;
        assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    }
    for query in [
        "events?limit=1",
        "events?limit=1000",
        "events?after=9223372036854775807",
        "state?at=0",
    ] {
        let (status, body) = app.get(&format!("/v1/games/{id}/{query}"), None).await;
        assert_eq!(status, StatusCode::OK, "{query}: {body}");
    }
    // A wait longer than 60 s (even past 64 bits) is the longest wait; with a version that is
    // already out of date the answer comes at once.
    let res = app
        .client
        .post(format!("{}/v1/games/{id}/actions", app.address))
        .bearer_auth(&tokens[0])
        .json(&json!({"type": "turn_up"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    for wait in [
        "61",
        "18446744073709551616",
        "99999999999999999999999999999999",
    ] {
        let res = app
            .client
            .get(format!("{}/v1/games/{id}?wait={wait}", app.address))
            .header("If-None-Match", "\"1\"")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "wait={wait}");
    }
    for wait in ["-1", "1.5", "soon", ""] {
        let res = app
            .client
            .get(format!("{}/v1/games/{id}?wait={wait}", app.address))
            .header("If-None-Match", "\"1\"")
            .send()
            .await
            .unwrap();
        assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    }
}

async fn an_oversized_body_is_413_and_a_body_that_is_not_json_is_415(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, Some(SEED), json!({})).await;
    let before = log_of(&app, &id).await;
    let actions = format!("/v1/games/{id}/actions");
    let huge = json!({"type": "turn_up", "padding": "x".repeat(70 * 1024)}).to_string();
    let huge_game = json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}],
        "options": {"x": "y".repeat(70 * 1024)}})
    .to_string();
    for (path, token, body) in [
        (actions.as_str(), Some(tokens[0].as_str()), huge.clone()),
        ("/v1/games", None, huge_game.clone()),
    ] {
        let res = post_raw(&app, path, token, Some("application/json"), body).await;
        let problem = assert_problem(res, StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large").await;
        assert_eq!(problem["limit"], json!(64 * 1024), "{problem}");
    }
    let turn_up = json!({"type": "turn_up"}).to_string();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        for (path, token) in [
            (actions.as_str(), Some(tokens[0].as_str())),
            ("/v1/games", None),
        ] {
            let res = post_raw(&app, path, token, content_type, turn_up.clone()).await;
            assert_eq!(
                res.headers()
                    .get("accept-post")
                    .and_then(|v| v.to_str().ok()),
                Some("application/json")
            );
            assert_problem(
                res,
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported-media-type",
            )
            .await;
        }
    }
    assert_eq!(log_of(&app, &id).await, before);
    // The same move as JSON is accepted.
    let res = post_raw(
        &app,
        &actions,
        Some(&tokens[0]),
        Some("application/json; charset=utf-8"),
        turn_up,
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
}

/// Texts no path parameter names: a NUL (which Postgres refuses in `text`, so a value that
/// reached a query answered 500), other control characters, bytes that are not UTF-8, and
/// lengths no id has.
const HOSTILE: [&str; 6] = ["a%00b", "msg_%00", "%0A", "%FF%FE", "..%2F..", "%E2%80%AE"];

async fn every_path_parameter_is_parsed_and_refused_before_any_query(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(&ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    let game = hosted["id"].as_str().unwrap().to_string();
    let (status, created) = app
        .post(
            "/v1/webhooks",
            Some(&ann),
            // A public address by its literal (nothing is resolved), never sent to: the test
            // finishes no game.
            &json!({"url": "https://93.184.216.34/hook", "events": ["game.finished"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let webhook = created["webhook"]["id"].as_str().unwrap().to_string();
    // What each parameter is when it is not the one under attack: ids the account owns, so
    // that the request gets as far as it can.
    let real = |path: &str, name: &str| -> String {
        match name {
            "id" if path.starts_with("/v1/webhooks") => webhook.clone(),
            "id" if path.starts_with("/v1/matches") => uuid::Uuid::now_v7().to_string(),
            "id" => game.clone(),
            "seat" => "1".into(),
            "game" => "girl".into(),
            "format" => "cricsheet".into(),
            "delivery" => "msg_0123456789abcdef0123456789".into(),
            "token_id" => uuid::Uuid::now_v7().to_string(),
            other => panic!("a path parameter the test does not know: {other}"),
        }
    };
    let (_, document) = app.get("/openapi.json", None).await;
    let mut tried = 0;
    for (path, operations) in document["paths"].as_object().unwrap() {
        let names: Vec<&str> = path
            .split('/')
            .filter_map(|part| part.strip_prefix('{')?.strip_suffix('}'))
            .collect();
        for method in operations.as_object().unwrap().keys() {
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            for attacked in &names {
                for hostile in HOSTILE {
                    let target = names.iter().fold(path.clone(), |target, name| {
                        let value = if name == attacked {
                            hostile.to_string()
                        } else {
                            real(path, name)
                        };
                        target.replace(&format!("{{{name}}}"), &value)
                    });
                    let mut req = app
                        .client
                        .request(method.clone(), format!("{}{target}", app.address))
                        .bearer_auth(&ann);
                    if method != Method::GET && method != Method::DELETE {
                        req = req.json(&json!({}));
                    }
                    let res = req.send().await.unwrap();
                    let status = res.status();
                    let content_type = res
                        .headers()
                        .get("content-type")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string();
                    let body = res.text().await.unwrap();
                    assert!(
                        status.is_client_error() && content_type == "application/problem+json",
                        "{method} {target}: {status} {content_type} {body}"
                    );
                    tried += 1;
                }
            }
        }
    }
    assert!(tried > 100, "only {tried} requests were tried");
    // And the webhook's delivery log, which a NUL once reached, is still whole.
    let (status, _) = app
        .get(&format!("/v1/webhooks/{webhook}/deliveries"), Some(&ann))
        .await;
    assert_eq!(status, StatusCode::OK);
}

on_both_backends!(
    every_path_parameter_is_parsed_and_refused_before_any_query,
    unknown_fields_are_refused_with_the_field_named_and_nothing_is_stored,
    a_control_character_anywhere_in_a_body_is_refused_and_the_field_named,
    names_are_kept_trimmed_and_must_be_1_to_64_characters,
    numbers_in_the_query_are_range_checked_and_long_waits_cut_to_the_longest,
    an_oversized_body_is_413_and_a_body_that_is_not_json_is_415,
);

// What follows involves no storage: one backend is enough.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_known_path_with_another_method_is_405_and_lists_the_methods_it_has() {
    let app = spawn_app(Backend::Sqlite).await;
    let id = "00000000-0000-0000-0000-000000000000";
    for (method, path, allow) in [
        (Method::GET, "/v1/games".to_string(), "POST"),
        (Method::DELETE, format!("/v1/games/{id}"), "GET, HEAD"),
        (Method::PUT, format!("/v1/games/{id}/actions"), "POST"),
        (Method::GET, format!("/v1/games/{id}/actions"), "POST"),
        (Method::POST, format!("/v1/games/{id}/events"), "GET, HEAD"),
        (Method::PATCH, "/v1/catalog/girl".to_string(), "GET, HEAD"),
        (Method::POST, "/problems/not-found".to_string(), "GET, HEAD"),
        (Method::HEAD, "/v1/games".to_string(), "POST"),
    ] {
        let res = app.request(method.clone(), &path, None, None).await;
        assert_eq!(
            res.headers().get("allow").and_then(|v| v.to_str().ok()),
            Some(allow),
            "{method} {path}"
        );
        if method == Method::HEAD {
            assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
        } else {
            assert_problem(res, StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed").await;
        }
    }
    let res = app
        .request(Method::GET, "/v1/nothing-here", None, None)
        .await;
    assert!(res.headers().get("allow").is_none());
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_challenges_the_client_for_a_bearer_token() {
    let app = spawn_app(Backend::Sqlite).await;
    let (id, _) = app.create_game("girl", 2, None, json!({})).await;
    for (path, method, token) in [
        (format!("/v1/games/{id}/actions"), Method::POST, None),
        (
            format!("/v1/games/{id}/actions"),
            Method::POST,
            Some("nobody"),
        ),
        (format!("/v1/games/{id}"), Method::GET, Some("nobody")),
    ] {
        let body = json!({"type": "turn_up"});
        let res = app.request(method, &path, token, Some(&body)).await;
        let challenge = res
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert!(challenge.starts_with("Bearer"), "{path}: {challenge:?}");
        assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
}

/// Sends `head` as the whole request on a fresh connection and reads the answer to the end.
async fn raw_request(app: &TestApp, head: &[u8]) -> String {
    let address = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(head).await.unwrap();
    let mut answer = Vec::new();
    // The server closes the connection after these answers (`Connection: close` is sent).
    stream.read_to_end(&mut answer).await.unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

/// The first line of an answer.
fn status_line(answer: &str) -> &str {
    answer.lines().next().unwrap_or_default()
}

/// A long URI that actix hands to the application is answered as a problem like any other.
/// Past what actix-http parses (a URI over 65,534 bytes, or a request head over 128 KiB)
/// actix answers by itself with an empty 400 or 431 that the application never sees and
/// cannot shape; this test pins that, so that a change in actix is noticed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_uri_is_a_problem_and_only_one_past_what_actix_parses_is_answered_bare() {
    let app = spawn_app(Backend::Sqlite).await;
    let long = format!("/{}", "a".repeat(60_000));
    let answer = raw_request(
        &app,
        format!("GET {long} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await;
    assert!(
        answer.starts_with("HTTP/1.1 404"),
        "{}",
        status_line(&answer)
    );
    assert!(answer.contains("application/problem+json"));

    let too_long = format!("/{}", "a".repeat(100_000));
    let answer = raw_request(
        &app,
        format!("GET {too_long} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(!answer.contains("problem+json"), "{answer}");

    // A head of exactly 128 KiB that has not ended yet: actix stops there and answers 431
    // (exactly, so that no byte is left unread and the connection closes cleanly).
    let mut huge_head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ".to_vec();
    huge_head.resize(128 * 1024, b'b');
    let answer = raw_request(&app, &huge_head).await;
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");

    let answer = raw_request(&app, b"NOT A REQUEST\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_problem_types_are_described() {
    let app = spawn_app(Backend::Sqlite).await;
    for (code, status) in [
        ("invalid-text", 400),
        ("method-not-allowed", 405),
        ("idempotency-key-in-flight", 409),
        ("idempotency-key-reused", 422),
        ("payload-too-large", 413),
        ("unsupported-media-type", 415),
        ("precondition-required", 428),
        ("unauthorized", 401),
        ("token-not-found", 404),
    ] {
        let (got, page) = app.get(&format!("/problems/{code}"), None).await;
        assert_eq!(got, StatusCode::OK, "{code}");
        assert_eq!(page["status"], json!(status), "{page}");
        assert!(
            page["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{page}"
        );
    }
}

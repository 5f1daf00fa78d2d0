//! Every error a client can provoke is a 4xx problem+json that changes nothing.

use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_problem, TestApp};
use crate::on_both_backends;

async fn version(app: &TestApp, id: &str) -> u64 {
    app.view(id, None).await["version"]
        .as_u64()
        .expect("version")
}

/// The seat to act and one seat that is not.
async fn seats(app: &TestApp, id: &str) -> (usize, usize) {
    let view = app.view(id, None).await;
    let to_act = view["to_act"][0].as_u64().expect("someone to act") as usize;
    let players = view["seats"].as_array().expect("seats").len();
    (to_act, (to_act + 1) % players)
}

async fn first_legal(app: &TestApp, id: &str, token: &str) -> Value {
    let view = app.view(id, Some(token)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    instantiate(&view["legal_actions"][0], &mut rng)
}

async fn bad_requests_are_400(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 3, None, json!({})).await;
    let before = version(&app, &id).await;
    let url = format!("{}/v1/games/{id}/actions", app.address);
    let res = app
        .client
        .post(&url)
        .bearer_auth(&tokens[0])
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/actions"),
            Some(&tokens[0]),
            Some(&json!({"type": "dance"})),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid-action").await;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/actions"),
            Some(&tokens[0]),
            Some(&json!([1, 2])),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid-action").await;
    let res = app
        .request(
            Method::GET,
            &format!("/v1/games/{id}/events?limit=0"),
            None,
            None,
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = app
        .request(
            Method::GET,
            &format!("/v1/games/{id}/events?after=-1"),
            None,
            None,
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = app
        .request(
            Method::GET,
            &format!("/v1/games/{id}/state?at={}", before + 1),
            None,
            None,
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = app
        .client
        .post(&url)
        .bearer_auth(&tokens[0])
        .header("If-Match", "yesterday")
        .json(&json!({"type": "turn_up"}))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = app
        .request(
            Method::POST,
            "/v1/games",
            None,
            Some(&json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}], "seed": "12"})),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = app
        .request(
            Method::POST,
            "/v1/games",
            None,
            Some(&json!({"game": "girl", "players": [{"name": ""}, {"name": "B"}]})),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "invalid-text").await;
    let res = app
        .request(
            Method::POST,
            "/v1/games",
            None,
            Some(&json!({"game": "girl", "players": [{"name": "A"}], "colour": "red"})),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    assert_eq!(version(&app, &id).await, before);
}

async fn credentials_are_checked(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let (other, other_tokens) = app.create_game("girl", 2, None, json!({})).await;
    let before = version(&app, &id).await;
    let action = first_legal(&app, &id, &tokens[0]).await;
    let path = format!("/v1/games/{id}/actions");
    assert_problem(
        app.request(Method::POST, &path, None, Some(&action)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_problem(
        app.request(Method::POST, &path, Some("not-a-token"), Some(&action))
            .await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    let res = app
        .client
        .post(format!("{}{path}", app.address))
        .header("Authorization", "Basic abc")
        .json(&action)
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    assert_problem(
        app.request(Method::POST, &path, Some(&other_tokens[0]), Some(&action))
            .await,
        StatusCode::FORBIDDEN,
        "wrong-game",
    )
    .await;
    assert_problem(
        app.request(
            Method::GET,
            &format!("/v1/games/{id}"),
            Some(&other_tokens[0]),
            None,
        )
        .await,
        StatusCode::FORBIDDEN,
        "wrong-game",
    )
    .await;
    assert_problem(
        app.request(
            Method::GET,
            &format!("/v1/games/{id}/events"),
            Some("nope"),
            None,
        )
        .await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_eq!(version(&app, &id).await, before);
    assert_eq!(version(&app, &other).await, before);
}

async fn missing_games_are_404(app: TestApp) {
    for id in ["00000000-0000-0000-0000-000000000000", "not-a-uuid"] {
        for suffix in ["", "/events", "/state?at=0", "/audit", "/scorecard"] {
            let res = app
                .request(Method::GET, &format!("/v1/games/{id}{suffix}"), None, None)
                .await;
            assert_problem(res, StatusCode::NOT_FOUND, "game-not-found").await;
        }
        let res = app
            .request(
                Method::POST,
                &format!("/v1/games/{id}/actions"),
                Some("x"),
                Some(&json!({"type": "turn_up"})),
            )
            .await;
        assert!(res.status() == StatusCode::NOT_FOUND || res.status() == StatusCode::UNAUTHORIZED);
    }
}

async fn moves_out_of_turn_are_409(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 3, None, json!({})).await;
    let before = version(&app, &id).await;
    let (to_act, other) = seats(&app, &id).await;
    let action = first_legal(&app, &id, &tokens[to_act]).await;
    let body = assert_problem(
        app.request(
            Method::POST,
            &format!("/v1/games/{id}/actions"),
            Some(&tokens[other]),
            Some(&action),
        )
        .await,
        StatusCode::CONFLICT,
        "not-your-move",
    )
    .await;
    assert!(body["rule"].is_string(), "{body}");
    assert_eq!(version(&app, &id).await, before);
}

async fn a_stale_if_match_is_412(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let (to_act, _) = seats(&app, &id).await;
    let before = version(&app, &id).await;
    let action = first_legal(&app, &id, &tokens[to_act]).await;
    let url = format!("{}/v1/games/{id}/actions", app.address);
    let res = app
        .client
        .post(&url)
        .bearer_auth(&tokens[to_act])
        .header("If-Match", format!("\"{}\"", before - 1))
        .json(&action)
        .send()
        .await
        .unwrap();
    let body = assert_problem(res, StatusCode::PRECONDITION_FAILED, "version-mismatch").await;
    assert_eq!(body["current_version"], json!(before));
    assert_eq!(version(&app, &id).await, before);
    let res = app
        .client
        .post(&url)
        .bearer_auth(&tokens[to_act])
        .header("If-Match", format!("\"{before}\""))
        .json(&action)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
}

/// Sends `action` for `token`'s seat, decided from `version`.
async fn move_decided_at(
    app: &TestApp,
    id: &str,
    token: &str,
    version: u64,
    action: &Value,
) -> reqwest::Response {
    app.client
        .post(format!("{}/v1/games/{id}/actions", app.address))
        .bearer_auth(token)
        .header("If-Match", format!("\"{version}\""))
        .json(action)
        .send()
        .await
        .unwrap()
}

/// In GIRL's simultaneous lay, a lay decided before another seat laid still stands: nothing
/// the seat could do changed. Once the last lay has revealed the trick, a move decided before
/// it is stale.
async fn an_if_match_overtaken_only_by_others_simultaneous_lays_still_holds(app: TestApp) {
    let mut rng = ChaCha8Rng::seed_from_u64(39);
    let (id, tokens) = app
        .create_game("girl", 3, Some(&"39".repeat(32)), json!({}))
        .await;
    // Turn up until a heroine is exposed and all three are to lay at once.
    loop {
        let public = app.view(&id, None).await;
        let to_act = public["to_act"].as_array().unwrap().clone();
        if to_act.len() == 3 {
            break;
        }
        let seat = to_act[0].as_u64().unwrap() as usize;
        let mine = app.view(&id, Some(&tokens[seat])).await;
        let action = instantiate(&mine["legal_actions"][0], &mut rng);
        let (status, view) = app.act(&id, &tokens[seat], &action).await;
        assert_eq!(status, StatusCode::OK, "{view}");
    }
    // All three look at the table at version v and decide.
    let seen: Vec<Value> = {
        let mut seen = Vec::new();
        for token in &tokens {
            seen.push(app.view(&id, Some(token)).await);
        }
        seen
    };
    let v = seen[0]["version"].as_u64().unwrap();
    assert!(seen.iter().all(|view| view["version"] == json!(v)));
    let lays: Vec<Value> = seen
        .iter()
        .map(|view| instantiate(&view["legal_actions"][0], &mut rng))
        .collect();
    // Bea lays first; Ann's lay, decided at v, is taken after it.
    let bea = move_decided_at(&app, &id, &tokens[1], v, &lays[1]).await;
    assert_eq!(bea.status(), StatusCode::OK);
    let ann = move_decided_at(&app, &id, &tokens[0], v, &lays[0]).await;
    assert_eq!(
        ann.status(),
        StatusCode::OK,
        "{}",
        ann.text().await.unwrap()
    );
    let after_ann = version(&app, &id).await;
    assert!(after_ann > v + 1);
    // Cat's lay, decided at v too, is the last: it reveals the trick.
    let cat = move_decided_at(&app, &id, &tokens[2], v, &lays[2]).await;
    assert_eq!(
        cat.status(),
        StatusCode::OK,
        "{}",
        cat.text().await.unwrap()
    );
    let revealed = version(&app, &id).await;
    // Whoever is to act now could not do at v what she can now: v is stale for her.
    let (to_act, _) = seats(&app, &id).await;
    let mine = app.view(&id, Some(&tokens[to_act])).await;
    let next = instantiate(&mine["legal_actions"][0], &mut rng);
    let stale = move_decided_at(&app, &id, &tokens[to_act], v, &next).await;
    let body = assert_problem(stale, StatusCode::PRECONDITION_FAILED, "version-mismatch").await;
    assert_eq!(body["current_version"], json!(revealed));
    assert_eq!(version(&app, &id).await, revealed);
    // Decided again from where the game is, it is taken.
    let fresh = move_decided_at(&app, &id, &tokens[to_act], revealed, &next).await;
    assert_eq!(fresh.status(), StatusCode::OK);
}

async fn an_empty_if_match_names_no_version_and_a_malformed_one_is_400(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let (to_act, _) = seats(&app, &id).await;
    let before = version(&app, &id).await;
    let action = first_legal(&app, &id, &tokens[to_act]).await;
    let url = format!("{}/v1/games/{id}/actions", app.address);
    let send = |if_match: &'static str| {
        app.client
            .post(&url)
            .bearer_auth(&tokens[to_act])
            .header("If-Match", if_match)
            .json(&action)
            .send()
    };
    for malformed in [
        "twelve",
        "\"\"",
        "W/",
        "\"-1\"",
        "1",
        "\"1",
        "1\"",
        "\"\"1\"\"",
    ] {
        assert_problem(
            send(malformed).await.unwrap(),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        )
        .await;
        assert_eq!(
            version(&app, &id).await,
            before,
            "{malformed} changed nothing"
        );
    }
    let not_ascii = app
        .client
        .post(&url)
        .bearer_auth(&tokens[to_act])
        .header(
            "If-Match",
            reqwest::header::HeaderValue::from_bytes(b"\"1\xc2\x84\"").unwrap(),
        )
        .json(&action)
        .send()
        .await
        .unwrap();
    assert_problem(not_ascii, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = send("").await.unwrap();
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "an empty If-Match is no precondition"
    );
    assert!(version(&app, &id).await > before);
    let res = app
        .client
        .get(format!("{}/v1/games/{id}", app.address))
        .header("If-None-Match", "")
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "an empty If-None-Match asks for the view"
    );
}

/// Plays legal moves until some seat is offered a choice of cards, then offers a card from
/// outside that choice.
async fn forbidden_moves_are_422(app: TestApp) {
    let (id, tokens) = app
        .create_game("girl", 2, Some(&"07".repeat(32)), json!({}))
        .await;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..200 {
        let (to_act, _) = seats(&app, &id).await;
        let view = app.view(&id, Some(&tokens[to_act])).await;
        let choice = view["legal_actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a.to_string().contains("\"choose\""))
            .cloned();
        if let Some(template) = choice {
            let mut action = instantiate(&template, &mut rng);
            let held: Vec<Value> = view["you"]["hand"].as_array().cloned().unwrap_or_default();
            let (_, catalog) = app.get("/v1/catalog/girl", None).await;
            let stranger = catalog["cards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].clone())
                .find(|c| !held.contains(c))
                .unwrap();
            replace_first_card(&mut action, &stranger);
            let before = version(&app, &id).await;
            let body = assert_problem(
                app.request(
                    Method::POST,
                    &format!("/v1/games/{id}/actions"),
                    Some(&tokens[to_act]),
                    Some(&action),
                )
                .await,
                StatusCode::UNPROCESSABLE_ENTITY,
                "rule-violation",
            )
            .await;
            assert!(body["rule"].is_string(), "{body}");
            assert_eq!(version(&app, &id).await, before);
            return;
        }
        let action = instantiate(&view["legal_actions"][0], &mut rng);
        assert_eq!(
            app.act(&id, &tokens[to_act], &action).await.0,
            StatusCode::OK
        );
    }
    panic!("no choice of cards was offered in 200 moves");
}

fn replace_first_card(action: &mut Value, card: &Value) -> bool {
    match action {
        Value::Array(items) if items.first().is_some_and(Value::is_string) => {
            items[0] = card.clone();
            true
        }
        Value::Array(items) => items.iter_mut().any(|v| replace_first_card(v, card)),
        Value::Object(map) => map.values_mut().any(|v| replace_first_card(v, card)),
        _ => false,
    }
}

async fn bad_setups_are_422(app: TestApp) {
    let cases = [
        (
            json!({"game": "chess", "players": [{"name": "A"}, {"name": "B"}]}),
            "unknown-game",
        ),
        (
            json!({"game": "girl", "players": [{"name": "A"}]}),
            "invalid-setup",
        ),
        (
            json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}, {"name": "E"}, {"name": "F"}]}),
            "invalid-setup",
        ),
        (
            json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}], "options": {"turbo": true}}),
            "invalid-setup",
        ),
        (
            json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}], "options": 3}),
            "invalid-setup",
        ),
    ];
    for (body, code) in cases {
        assert_problem(
            app.request(Method::POST, "/v1/games", None, Some(&body))
                .await,
            StatusCode::UNPROCESSABLE_ENTITY,
            code,
        )
        .await;
    }
}

async fn an_idempotency_key_replays_the_first_answer_and_refuses_another_move(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let (to_act, _) = seats(&app, &id).await;
    let action = first_legal(&app, &id, &tokens[to_act]).await;
    let url = format!("{}/v1/games/{id}/actions", app.address);
    let send = |body: Value| {
        app.client
            .post(&url)
            .bearer_auth(&tokens[to_act])
            .header("Idempotency-Key", "move-1")
            .json(&body)
            .send()
    };
    let first = send(action.clone()).await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let first: Value = first.json().await.unwrap();
    let after = version(&app, &id).await;
    let retry = send(action.clone()).await.unwrap();
    assert_eq!(retry.status(), StatusCode::OK);
    let retry: Value = retry.json().await.unwrap();
    assert_eq!(retry, first, "a retry returns the first answer");
    assert_eq!(version(&app, &id).await, after, "a retry appends nothing");
    let other = send(json!({"type": "pass"})).await.unwrap();
    assert_problem(
        other,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency-key-reused",
    )
    .await;
    assert_eq!(version(&app, &id).await, after);
}

async fn sequence_numbers_beyond_what_the_log_can_hold_are_400(app: TestApp) {
    let (id, _) = app.create_game("girl", 2, None, json!({})).await;
    // 2^63 and above would wrap to negative numbers in the database and show the whole log.
    for too_big in ["9223372036854775808", "18446744073709551615"] {
        for query in [
            format!("events?after={too_big}"),
            format!("state?at={too_big}"),
        ] {
            let res = app
                .request(Method::GET, &format!("/v1/games/{id}/{query}"), None, None)
                .await;
            assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
        }
    }
    let (status, page) = app
        .get(
            &format!("/v1/games/{id}/events?after=9223372036854775807"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(
        page["events"],
        json!([]),
        "nothing comes after the largest sequence number"
    );
}

async fn a_british_birds_series_is_a_match_for_new_games(app: TestApp) {
    // From rules version 3 a new game is always a single game: any `play_to`, in range or
    // not, is refused with a pointer to matches, and nothing is stored.
    let players = json!([{"name": "A"}, {"name": "B"}]);
    for play_to in [50u64, 1_000, 1_001, 4_000_000_000] {
        let body =
            json!({"game": "british-birds", "players": players, "options": {"play_to": play_to}});
        let res = app
            .request(Method::POST, "/v1/games", None, Some(&body))
            .await;
        let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid-setup").await;
        let detail = problem["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("/v1/matches"), "{detail}");
    }
    let (id, _) = app
        .create_game("british-birds", 2, None, json!({"play_to": null}))
        .await;
    assert_eq!(app.view(&id, None).await["rules_version"], json!(3));
}

async fn the_bearer_scheme_may_be_written_in_any_case(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let res = app
            .client
            .get(format!("{}/v1/games/{id}", app.address))
            .header("Authorization", format!("{scheme} {}", tokens[1]))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{scheme}");
        let view: Value = res.json().await.unwrap();
        assert_eq!(view["you"]["seat"], json!(1), "{scheme}: {view}");
    }
    let res = app
        .client
        .get(format!("{}/v1/games/{id}", app.address))
        .header("Authorization", format!("Basic {}", tokens[1]))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

async fn the_problems_a_client_must_handle_are_described(app: TestApp) {
    for (code, status) in [
        ("unavailable", 503),
        ("at-capacity", 503),
        ("too-many-streams", 429),
        ("log-full", 409),
    ] {
        let (got, page) = app.get(&format!("/problems/{code}"), None).await;
        assert_eq!(got, StatusCode::OK);
        assert_eq!(page["status"], json!(status), "{page}");
        assert!(
            page["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{page}"
        );
    }
    let (_, page) = app.get("/problems/unavailable", None).await;
    let description = page["description"].as_str().unwrap_or_default();
    assert!(description.contains("Idempotency-Key"), "{description}");

    // Every problem's page says what it means and what to do, each in its own words.
    let mut seen = std::collections::HashSet::new();
    for &problem in parlour::error::Problem::ALL {
        let (got, page) = app
            .get(&format!("/problems/{}", problem.code()), None)
            .await;
        assert_eq!(got, StatusCode::OK);
        let description = page["description"].as_str().unwrap_or_default();
        assert!(description.len() > 40, "{page}");
        assert!(seen.insert(description.to_string()), "said twice: {page}");
    }
}

on_both_backends!(
    bad_requests_are_400,
    credentials_are_checked,
    missing_games_are_404,
    moves_out_of_turn_are_409,
    a_stale_if_match_is_412,
    an_if_match_overtaken_only_by_others_simultaneous_lays_still_holds,
    an_empty_if_match_names_no_version_and_a_malformed_one_is_400,
    forbidden_moves_are_422,
    bad_setups_are_422,
    an_idempotency_key_replays_the_first_answer_and_refuses_another_move,
    sequence_numbers_beyond_what_the_log_can_hold_are_400,
    a_british_birds_series_is_a_match_for_new_games,
    the_bearer_scheme_may_be_written_in_any_case,
    the_problems_a_client_must_handle_are_described,
);

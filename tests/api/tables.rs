//! Games hosted by accounts: a host creates a game with its own seat, seats held for named
//! accounts, seats offered by invitation and seats open to anyone; the game waits until every
//! seat is taken; a seat is claimed once, also when two claims race on two instances; the host
//! withdraws and renews offers and may abort while the game waits for players; any seat may resign;
//! nobody acts for a seat it does not hold; and the inbox lists each account's games, most
//! urgent first.

use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_clean_audit, assert_problem, table_part, TestApp};
use crate::on_both_backends;
use crate::table_events::verify_file as verifies;
use crate::verify::python_present;

/// The audit of a game still waiting or in play: its chain holds and every entry replays.
async fn assert_audits(app: &TestApp, id: &str) {
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
}

/// A new account's id and token.
async fn account(app: &TestApp, name: &str) -> (String, String) {
    let (status, created) = app.post("/v1/accounts", None, &json!({"name": name})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    (
        created["account"]["id"].as_str().unwrap().to_string(),
        created["token"]["secret"].as_str().unwrap().to_string(),
    )
}

/// Hosts a game of GIRL for the seats `seats` with `token`: the answer.
async fn host(app: &TestApp, token: &str, seats: Value) -> Value {
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(token),
            &json!({"game": "girl", "seats": seats}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    hosted
}

fn id_of(hosted: &Value) -> String {
    hosted["id"].as_str().unwrap().to_string()
}

fn code_of(hosted: &Value, seat: usize) -> String {
    hosted["seats"][seat]["invitation"]["code"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn claim(app: &TestApp, token: &str, id: &str, seat: u8, body: Value) -> reqwest::Response {
    app.request(
        Method::POST,
        &format!("/v1/games/{id}/seats/{seat}/claim"),
        Some(token),
        Some(&body),
    )
    .await
}

async fn claimed(app: &TestApp, token: &str, id: &str, seat: u8, body: Value) -> Value {
    let res = claim(app, token, id, seat, body).await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.unwrap()
}

/// The first legal move of whoever must act, made with that seat's token.
async fn move_for_whoever_acts(app: &TestApp, id: &str, tokens: &[&str]) {
    let view = app.view(id, None).await;
    let seat = view["to_act"][0].as_u64().expect("someone to act") as usize;
    let mine = app.view(id, Some(tokens[seat])).await;
    let action = instantiate(&mine["legal_actions"][0], &mut ChaCha8Rng::seed_from_u64(1));
    let (status, body) = app.act(id, tokens[seat], &action).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn inbox(app: &TestApp, token: &str, query: &str) -> Vec<Value> {
    let (status, inbox) = app.get(&format!("/v1/me/games{query}"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{inbox}");
    inbox["games"].as_array().unwrap().clone()
}

async fn a_hosted_game_waits_for_its_invited_player_and_begins_when_she_claims_the_seat(
    app: TestApp,
) {
    let (ann_id, ann) = account(&app, "Ann").await;
    let (bea_id, bea) = account(&app, "Bea").await;
    let hosted = host(&app, &ann, json!([{"kind": "me"}, {"kind": "invitation"}])).await;
    assert_eq!(hosted["status"], "waiting");
    let id = id_of(&hosted);
    let code = code_of(&hosted, 1);
    assert!(code.starts_with("inv_"), "{code}");

    let waiting = app.view(&id, Some(&ann)).await;
    assert_eq!(waiting["status"], "waiting");
    assert_eq!(waiting["to_act"], json!([]));
    assert_eq!(waiting["legal_actions"], json!([]));
    assert_eq!(waiting["you"]["seat"], 0);
    assert_eq!(waiting["seating"]["host"]["id"], ann_id.as_str());
    assert_eq!(
        waiting["seating"]["seats"][1]["open_to"]["kind"],
        "invitation"
    );
    assert_eq!(waiting["seats"][1]["name"], "Seat 2");
    // The log is public: it holds the code's hash, never the code.
    let log = app.get(&format!("/v1/games/{id}/events"), None).await.1;
    assert!(!log.to_string().contains(&code));

    let (status, refused) = app.act(&id, &ann, &json!({"type": "turn_up"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["rule"], "waiting-for-players");

    let wrong = claim(&app, &bea, &id, 1, json!({"code": "inv_0000"})).await;
    assert_problem(wrong, StatusCode::FORBIDDEN, "not-invited").await;
    let none = claim(&app, &bea, &id, 1, json!({})).await;
    assert_problem(none, StatusCode::FORBIDDEN, "not-invited").await;

    let seated = claimed(&app, &bea, &id, 1, json!({"code": code})).await;
    assert_eq!(seated["status"], "active");
    assert_eq!(seated["you"]["seat"], 1);
    assert_eq!(seated["seats"][1]["name"], "Bea");
    assert_eq!(
        seated["seating"]["seats"][1]["holder"]["id"],
        bea_id.as_str()
    );
    assert!(seated["seating"]["seats"][1]["open_to"].is_null());

    // Each plays with the account's own token.
    move_for_whoever_acts(&app, &id, &[&ann, &bea]).await;
    let again = claim(&app, &bea, &id, 1, json!({"code": code})).await;
    assert_problem(again, StatusCode::CONFLICT, "seat-taken").await;
    assert_audits(&app, &id).await;

    // Finished, the game verifies independently, and a seat claimed without an offer does not.
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/resign"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_clean_audit(&app, &id).await;
    if python_present() {
        let (ok, report) = verifies(&app, &id, |_| {}).await;
        assert!(ok, "{report}");
        let (ok, report) = verifies(&app, &id, |file| {
            let events = file["events"].as_array_mut().unwrap();
            let offered = events
                .iter()
                .position(|e| e["type"] == "table.seat_offered")
                .unwrap();
            events[offered]["type"] = json!("table.offer_withdrawn");
            events[offered]["data"] = json!({"seat": 1});
        })
        .await;
        assert!(!ok, "a changed offer must fail: {report}");
    }
}

async fn an_open_seat_is_claimed_once_when_two_accounts_race_on_two_instances(app: TestApp) {
    let other = app.restart().await;
    let (_, ann) = account(&app, "Ann").await;
    for round in 0..3 {
        let (_, bea) = account(&app, &format!("Bea {round}")).await;
        let (_, cat) = account(&app, &format!("Cat {round}")).await;
        let id = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
        let (first, second) = tokio::join!(
            claim(&app, &bea, &id, 1, json!({})),
            claim(&other, &cat, &id, 1, json!({})),
        );
        let statuses = [first.status(), second.status()];
        assert!(
            statuses.contains(&StatusCode::OK) && statuses.contains(&StatusCode::CONFLICT),
            "{statuses:?}"
        );
        let loser = if first.status() == StatusCode::CONFLICT {
            first
        } else {
            second
        };
        assert_problem(loser, StatusCode::CONFLICT, "seat-taken").await;
        let view = app.view(&id, None).await;
        assert_eq!(view["status"], "active");
        // Exactly one seated event beyond the host's own.
        let events = app.all_events(&id, None).await;
        let seated = events
            .iter()
            .filter(|e| e["type"] == "table.seated")
            .count();
        assert_eq!(seated, 2, "{events:?}");
        assert_audits(&app, &id).await;
    }
}

async fn a_seat_held_for_an_account_is_offered_to_it_alone_and_waits_in_its_inbox(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (bea_id, bea) = account(&app, "Bea").await;
    let (_, cat) = account(&app, "Cat").await;
    let hosted = host(
        &app,
        &ann,
        json!([{"kind": "me"}, {"kind": "account", "account": bea_id}]),
    )
    .await;
    let id = id_of(&hosted);
    assert_eq!(app.view(&id, None).await["seats"][1]["name"], "Bea");

    let rows = inbox(&app, &bea, "").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["id"], id.as_str());
    assert_eq!(rows[0]["asked"], "claim");
    assert_eq!(rows[0]["offered_seat"], 1);
    assert!(rows[0]["seat"].is_null());
    assert!(inbox(&app, &cat, "").await.is_empty());

    let refused = claim(&app, &cat, &id, 1, json!({})).await;
    assert_problem(refused, StatusCode::FORBIDDEN, "not-invited").await;
    claimed(&app, &bea, &id, 1, json!({})).await;
    let rows = inbox(&app, &bea, "").await;
    assert_eq!(rows[0]["seat"], 1);
    assert_eq!(rows[0]["status"], "active");
    assert!(rows[0].get("offered_seat").is_none(), "{rows:?}");
}

async fn the_host_revokes_an_invitation_and_a_new_one_replaces_it(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let hosted = host(&app, &ann, json!([{"kind": "me"}, {"kind": "invitation"}])).await;
    let id = id_of(&hosted);
    let old = code_of(&hosted, 1);
    let offer = format!("/v1/games/{id}/seats/1/offer");

    let not_host = app.request(Method::DELETE, &offer, Some(&bea), None).await;
    assert_problem(not_host, StatusCode::FORBIDDEN, "not-host").await;
    let withdrawn = app.request(Method::DELETE, &offer, Some(&ann), None).await;
    assert_eq!(withdrawn.status(), StatusCode::NO_CONTENT);
    let view = app.view(&id, None).await;
    assert!(view["seating"]["seats"][1]["open_to"].is_null(), "{view}");
    let stale = claim(&app, &bea, &id, 1, json!({"code": old})).await;
    assert_problem(stale, StatusCode::FORBIDDEN, "not-invited").await;

    let res = app
        .request(
            Method::PUT,
            &offer,
            Some(&ann),
            Some(&json!({"to": {"kind": "invitation"}})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let renewed: Value = res.json().await.unwrap();
    let new = renewed["invitation"]["code"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    let stale = claim(&app, &bea, &id, 1, json!({"code": old})).await;
    assert_problem(stale, StatusCode::FORBIDDEN, "not-invited").await;
    claimed(&app, &bea, &id, 1, json!({"code": new})).await;
    assert_audits(&app, &id).await;

    // Once the game has begun, its seats are no longer offered.
    let late = app
        .request(
            Method::PUT,
            &offer,
            Some(&ann),
            Some(&json!({"to": {"kind": "anyone"}})),
        )
        .await;
    assert_problem(late, StatusCode::CONFLICT, "seating-closed").await;
}

async fn the_host_may_abort_while_the_game_waits_for_players_and_nobody_else_may(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let waiting = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    let abort = |id: &str| format!("/v1/games/{id}/abort");
    let res = app
        .request(Method::POST, &abort(&waiting), Some(&bea), None)
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-host").await;
    let res = app
        .request(Method::POST, &abort(&waiting), Some(&ann), None)
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let view = app.view(&waiting, None).await;
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"], json!({"ended_by": "abort"}));
    let late = claim(&app, &bea, &waiting, 1, json!({})).await;
    assert_problem(late, StatusCode::CONFLICT, "not-your-move").await;
    assert_clean_audit(&app, &waiting).await;

    let begun = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    claimed(&app, &bea, &begun, 1, json!({})).await;
    move_for_whoever_acts(&app, &begun, &[&ann, &bea]).await;
    let res = app
        .request(Method::POST, &abort(&begun), Some(&ann), None)
        .await;
    assert_problem(res, StatusCode::CONFLICT, "seating-closed").await;

    let (anonymous, _) = app.create_game("girl", 2, None, json!({})).await;
    let res = app
        .request(Method::POST, &abort(&anonymous), Some(&ann), None)
        .await;
    assert_problem(res, StatusCode::CONFLICT, "seating-closed").await;
}

/// The hole it closes: a host whose game began (its last seat taken, every hand dealt) looked
/// at its cards, aborted, and hosted again until it liked its hand.
async fn the_host_cannot_abort_once_every_seat_is_taken_and_the_cards_are_dealt(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let dealt = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    claimed(&app, &bea, &dealt, 1, json!({})).await;
    let before = app.view(&dealt, Some(&ann)).await;
    assert_eq!(before["status"], "active", "{before}");
    assert!(
        before["you"].is_object(),
        "the host sees its own seat: {before}"
    );
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{dealt}/abort"),
            Some(&ann),
            None,
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "seating-closed").await;
    let after = app.view(&dealt, Some(&ann)).await;
    assert_eq!(after, before, "a refused abort changes nothing");
    assert_audits(&app, &dealt).await;

    // A table the host fills with bots at once begins at once, and is no more abortable.
    let with_a_bot = host(
        &app,
        &ann,
        json!([{"kind": "me"}, {"kind": "bot", "level": "steady"}]),
    )
    .await;
    let with_a_bot = id_of(&with_a_bot);
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{with_a_bot}/abort"),
            Some(&ann),
            None,
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "seating-closed").await;
}

/// A hosted game is dealt when it is created, but while it waits for players nobody sees a
/// card, not even the host its own: else the host could look at its hand, call the game off
/// (allowed while it waits) and host again until it liked its hand.
async fn while_a_game_waits_for_players_nobody_sees_a_card_not_even_the_host(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let id = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    let hosts = app.view(&id, Some(&ann)).await;
    let anyones = app.view(&id, None).await;
    assert_eq!(hosts["status"], "waiting");
    assert_eq!(hosts["you"], json!({"seat": 0}), "{hosts}");
    assert_eq!(table_part(&hosts), table_part(&anyones));
    let data = |events: Vec<Value>| -> Vec<Value> {
        events.into_iter().map(|e| e["data"].clone()).collect()
    };
    assert_eq!(
        data(app.all_events(&id, Some(&ann)).await),
        data(app.all_events(&id, None).await)
    );
    let (status, earlier) = app
        .get(&format!("/v1/games/{id}/state?at=1"), Some(&ann))
        .await;
    assert_eq!(status, StatusCode::OK, "{earlier}");
    assert_eq!(earlier["you"], json!({"seat": 0}), "{earlier}");
    // Once the last seat is taken the game cannot be called off, and each seat sees its cards.
    claimed(&app, &bea, &id, 1, json!({})).await;
    let begun = app.view(&id, Some(&ann)).await;
    assert_eq!(begun["status"], "active");
    assert_eq!(
        begun["you"]["hand"].as_array().map(Vec::len),
        Some(7),
        "{begun}"
    );
    let deal = &app.all_events(&id, Some(&ann)).await[0];
    assert_ne!(deal["data"], app.all_events(&id, None).await[0]["data"]);
}

async fn any_seat_may_resign_and_the_game_ends_for_everyone(app: TestApp) {
    // A game of seat tokens, as before accounts.
    let (id, tokens) = app.create_game("girl", 3, None, json!({})).await;
    let resign = format!("/v1/games/{id}/resign");
    let nobody = app.request(Method::POST, &resign, None, None).await;
    assert_problem(nobody, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app
        .request(Method::POST, &resign, Some(&tokens[2]), None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let view: Value = res.json().await.unwrap();
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["ended_by"], "resignation");
    assert_eq!(view["result"]["seat"], 2);
    let again = app
        .request(Method::POST, &resign, Some(&tokens[0]), None)
        .await;
    assert_problem(again, StatusCode::CONFLICT, "not-your-move").await;
    assert_clean_audit(&app, &id).await;

    // A hosted game: with the account's token; not while it still waits for players.
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let id = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    let resign = format!("/v1/games/{id}/resign");
    let early = app.request(Method::POST, &resign, Some(&ann), None).await;
    assert_problem(early, StatusCode::CONFLICT, "seating-closed").await;
    claimed(&app, &bea, &id, 1, json!({})).await;
    let res = app.request(Method::POST, &resign, Some(&bea), None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let events = app.all_events(&id, None).await;
    let last = events.last().unwrap();
    assert_eq!(last["type"], "table.resigned");
    assert_eq!(last["actor"], 1);
}

async fn no_account_acts_claims_or_resigns_for_a_seat_it_does_not_hold(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let (_, cat) = account(&app, "Cat").await;
    let id = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    claimed(&app, &bea, &id, 1, json!({})).await;
    let before = app.view(&id, None).await["version"].clone();

    // Cat watches as a spectator: no hand, no moves.
    let seen = app.view(&id, Some(&cat)).await;
    assert!(seen.get("you").is_none() || seen["you"].is_null(), "{seen}");
    let (status, _) = app.act(&id, &cat, &json!({"type": "turn_up"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/resign"),
            Some(&cat),
            None,
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = claim(&app, &cat, &id, 0, json!({})).await;
    assert_problem(res, StatusCode::CONFLICT, "seat-taken").await;
    // A revoked-looking or made-up account token is refused outright.
    let (status, _) = app
        .get(&format!("/v1/games/{id}"), Some("acct_nothing"))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.view(&id, None).await["version"], before);
}

async fn the_inbox_lists_my_moves_first_then_others_then_waiting_then_finished(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let two = json!([{"kind": "me"}, {"kind": "anyone"}]);
    let waiting = id_of(&host(&app, &ann, two.clone()).await);
    let finished = id_of(&host(&app, &ann, two.clone()).await);
    let mine = id_of(&host(&app, &ann, two.clone()).await);
    let theirs = id_of(&host(&app, &ann, two.clone()).await);
    for id in [&finished, &mine, &theirs] {
        claimed(&app, &bea, id, 1, json!({})).await;
    }
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{finished}/resign"),
            Some(&bea),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    // Whoever acts first in `theirs` moves until it is Bea's move; in `mine`, until Ann's.
    for (id, me_seat) in [(&theirs, 1u64), (&mine, 0u64)] {
        for _ in 0..10 {
            let view = app.view(id, None).await;
            if view["to_act"].as_array().unwrap().contains(&json!(me_seat))
                && !view["to_act"]
                    .as_array()
                    .unwrap()
                    .contains(&json!(1 - me_seat))
            {
                break;
            }
            move_for_whoever_acts(&app, id, &[&ann, &bea]).await;
        }
    }
    let rows = inbox(&app, &ann, "").await;
    let order: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        order,
        vec![
            mine.as_str(),
            theirs.as_str(),
            waiting.as_str(),
            finished.as_str()
        ],
        "{rows:?}"
    );
    assert_eq!(rows[0]["asked"], "move");
    assert_eq!(rows[1]["asked"], "nothing");
    assert_eq!(rows[2]["status"], "waiting");
    assert!(rows.iter().all(|r| r["host"] == true && r["seat"] == 0));
    assert_eq!(rows[3]["result"]["ended_by"], "resignation");

    let only: Vec<Value> = inbox(&app, &ann, "?status=waiting").await;
    assert_eq!(only.len(), 1);
    assert_eq!(only[0]["id"], waiting.as_str());
    assert!(inbox(&app, &ann, "?game=googly").await.is_empty());
    assert_eq!(inbox(&app, &ann, "?game=girl").await.len(), 4);
    for bad in ["status=sleeping", "game=0.5", "game=GIRL"] {
        let (status, _) = app.get(&format!("/v1/me/games?{bad}"), Some(&ann)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    }
    let (status, _) = app.get("/v1/me/games", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn each_inbox_row_names_who_sits_where_and_when_the_game_was_made(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let before = chrono::Utc::now();
    let hosted = host(
        &app,
        &ann,
        json!([{"kind": "me"}, {"kind": "anyone"}, {"kind": "bot", "level": "steady"}]),
    )
    .await;
    let id = id_of(&hosted);
    let row = |rows: Vec<Value>| rows.into_iter().find(|r| r["id"] == id.as_str()).unwrap();
    let waiting = row(inbox(&app, &ann, "").await);
    assert_eq!(waiting["players"][0], json!({"seat": 0, "name": "Ann"}));
    // An open seat has no name yet: the page says it waits for someone.
    assert_eq!(waiting["players"][1], json!({"seat": 1}));
    assert_eq!(waiting["players"][2]["bot"], "steady");
    assert!(waiting["players"][2]["name"].is_string(), "{waiting}");
    let made: chrono::DateTime<chrono::Utc> =
        waiting["created_at"].as_str().unwrap().parse().unwrap();
    assert!(made >= before - chrono::Duration::seconds(1) && made <= chrono::Utc::now());

    claimed(&app, &bea, &id, 1, json!({})).await;
    let seen_by_bea = row(inbox(&app, &bea, "").await);
    assert_eq!(seen_by_bea["players"][1], json!({"seat": 1, "name": "Bea"}));
    assert_eq!(seen_by_bea["players"][0], json!({"seat": 0, "name": "Ann"}));
    assert_eq!(seen_by_bea["created_at"], waiting["created_at"]);
    // The last thing that happened, as the public log tells it (its type and whose move),
    // and when: checked against the log's entry at that place (the bot may have moved on).
    let told_as_logged = |row: &Value, log: &[Value]| {
        let seq = row["last"]["seq"].as_u64().expect("a last entry") as usize;
        let entry = &log[seq - 1];
        assert_eq!(row["last"]["type"], entry["type"], "{row}");
        assert_eq!(row["last"]["at"], entry["at"], "{row}");
        assert_eq!(
            row["last"].get("seat"),
            entry.get("actor").filter(|a| !a.is_null())
        );
    };
    told_as_logged(&seen_by_bea, &app.all_events(&id, None).await);
    // At a table of two people (no bot to move on), the seat taken, then a move.
    let two = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    claimed(&app, &bea, &two, 1, json!({})).await;
    let find = |rows: Vec<Value>| rows.into_iter().find(|r| r["id"] == two.as_str()).unwrap();
    let seated = find(inbox(&app, &ann, "").await);
    assert_eq!(seated["last"]["type"], "table.seated", "{seated}");
    told_as_logged(&seated, &app.all_events(&two, None).await);
    move_for_whoever_acts(&app, &two, &[ann.as_str(), bea.as_str()]).await;
    let moved = find(inbox(&app, &bea, "").await);
    assert_eq!(
        moved["last"]["seq"],
        seated["version"].as_u64().unwrap() + 1
    );
    assert!(
        moved["last"].get("seat").is_some(),
        "a move is someone's: {moved}"
    );
    told_as_logged(&moved, &app.all_events(&two, None).await);
}

async fn a_hosted_game_refuses_bad_seating_clearly_and_stores_nothing(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let post = |body: Value| {
        let app = &app;
        let ann = &ann;
        async move { app.post("/v1/me/games", Some(ann), &body).await }
    };
    let (status, body) =
        post(json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, body) = post(json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "account", "account": "0190a0b0-0000-7000-8000-000000000000"}]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, body) = post(json!({"game": "girl", "seats": [{"kind": "me"}]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, body) =
        post(json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone", "x": 1}]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) =
        post(json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}], "clock": 1}))
            .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = app
        .post(
            "/v1/me/games",
            None,
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(inbox(&app, &ann, "").await.is_empty());

    let id = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    let res = claim(&app, &ann, &id, 9, json!({})).await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/seats/x/claim"),
            Some(&ann),
            Some(&json!({})),
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    let res = claim(&app, &ann, &id, 1, json!({})).await;
    assert_problem(res, StatusCode::CONFLICT, "seat-taken").await;
    let (anonymous, _) = app.create_game("girl", 2, None, json!({})).await;
    let res = claim(&app, &ann, &anonymous, 1, json!({})).await;
    assert_problem(res, StatusCode::CONFLICT, "seating-closed").await;
}

/// The notices after `after` (from now when `None`), waiting up to `wait` seconds: the page.
async fn notices(app: &TestApp, token: &str, after: Option<&str>, wait: u64) -> Value {
    let query = match after {
        Some(after) => format!("?after={after}&wait={wait}"),
        None => format!("?wait={wait}"),
    };
    let (status, page) = app
        .get(&format!("/v1/me/notices{query}"), Some(token))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page
}

/// Notices read with long-polls from `after` until one for game `id` says `kind`.
async fn notices_until(
    app: &TestApp,
    token: &str,
    after: &str,
    id: &str,
    kind: &str,
) -> Vec<Value> {
    let mut seen = Vec::new();
    let mut after = after.to_string();
    for _ in 0..20 {
        let page = notices(app, token, Some(&after), 5).await;
        after = page["next"].as_str().unwrap().to_string();
        for notice in page["notices"].as_array().unwrap() {
            seen.push(notice.clone());
            if notice["game"] == id && notice["notices"].as_array().unwrap().contains(&json!(kind))
            {
                return seen;
            }
        }
    }
    panic!("no {kind} notice for {id}: {seen:?}");
}

async fn my_notices_say_a_seat_was_claimed_the_game_began_and_it_is_my_move_across_instances(
    app: TestApp,
) {
    let other = app.restart().await;
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let start = notices(&app, &ann, None, 0).await;
    assert_eq!(start["notices"], json!([]));
    let from = start["next"].as_str().unwrap().to_string();

    let hosted = host(&app, &ann, json!([{"kind": "me"}, {"kind": "invitation"}])).await;
    let id = id_of(&hosted);
    let code = code_of(&hosted, 1);
    // Bea claims through the other instance; Ann reads her notices through this one.
    claimed(&other, &bea, &id, 1, json!({"code": code})).await;
    let seen = notices_until(&app, &ann, &from, &id, "started").await;
    let started = seen.last().unwrap();
    assert!(started["notices"]
        .as_array()
        .unwrap()
        .contains(&json!("seat_claimed")));
    assert_eq!(started["row"]["status"], "active");
    let first_mover = started["row"]["to_act"][0].as_u64().unwrap();
    assert_eq!(
        started["notices"]
            .as_array()
            .unwrap()
            .contains(&json!("your_turn")),
        first_mover == 0,
        "{started}"
    );

    // Reading again from the same place gives the same notices, and from the last one,
    // only what came after it.
    let again = notices_until(&app, &ann, &from, &id, "started").await;
    assert_eq!(again, seen);
    let last_id = started["id"].as_str().unwrap();
    let after = notices(&app, &ann, Some(last_id), 0).await;
    assert_eq!(after["notices"], json!([]), "{after}");

    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/resign"),
            Some(&bea),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let ended = notices_until(&app, &ann, last_id, &id, "ended").await;
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(ended[0]["row"]["result"]["ended_by"], "resignation");
    // Nobody else's games reach Ann: Cat's game is not in her notices.
    let (_, cat) = account(&app, "Cat").await;
    let cats = id_of(&host(&app, &cat, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    let page = notices(&app, &ann, Some(ended[0]["id"].as_str().unwrap()), 0).await;
    assert!(!page.to_string().contains(&cats), "{page}");

    for bad in ["12", "x-1", "1-2-3"] {
        let (status, _) = app
            .get(&format!("/v1/me/notices?after={bad}"), Some(&ann))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    }
    let (status, _) = app
        .get("/v1/me/notices?after=99999999999-99999999999", Some(&ann))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// The next `event: notice` of an SSE stream.
async fn next_notice(stream: &mut reqwest::Response, buffer: &mut String) -> (String, Value) {
    loop {
        if let Some(end) = buffer.find("\n\n") {
            let message: String = buffer.drain(..end + 2).collect();
            if message.starts_with(':') {
                continue;
            }
            let field = |name: &str| {
                message
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(str::to_string)
            };
            assert_eq!(field("event: ").as_deref(), Some("notice"), "{message}");
            let id = field("id: ").expect("an id");
            let data: Value = serde_json::from_str(&field("data: ").expect("data")).unwrap();
            assert_eq!(data["id"], id.as_str());
            return (id, data);
        }
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(20), stream.chunk())
            .await
            .expect("a notice within 20 s")
            .expect("the stream")
            .expect("the stream did not end");
        buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
    }
}

async fn my_stream_resumes_after_a_reconnect_with_nothing_missed_and_nothing_twice(app: TestApp) {
    let (_, ann) = account(&app, "Ann").await;
    let (_, bea) = account(&app, "Bea").await;
    let open = |last: Option<String>| {
        let app = &app;
        let ann = ann.clone();
        async move {
            let mut req = app
                .client
                .get(format!("{}/v1/me/stream", app.address))
                .bearer_auth(&ann);
            if let Some(last) = last {
                req = req.header("Last-Event-ID", last);
            }
            let res = req.send().await.unwrap();
            assert_eq!(res.status(), StatusCode::OK);
            assert_eq!(res.headers()["content-type"], "text/event-stream");
            res
        }
    };
    let mut stream = open(None).await;
    let mut buffer = String::new();
    let id = id_of(&host(&app, &ann, json!([{"kind": "me"}, {"kind": "anyone"}])).await);
    let (hosted_id, hosted) = next_notice(&mut stream, &mut buffer).await;
    assert_eq!(hosted["game"], id.as_str());
    assert_eq!(hosted["row"]["status"], "waiting");
    drop(stream);

    // While Ann is away, Bea sits down and the game begins.
    claimed(&app, &bea, &id, 1, json!({})).await;
    let mut stream = open(Some(hosted_id.clone())).await;
    let mut buffer = String::new();
    let (resumed_id, resumed) = next_notice(&mut stream, &mut buffer).await;
    assert_ne!(resumed_id, hosted_id, "nothing twice");
    assert!(
        resumed["notices"]
            .as_array()
            .unwrap()
            .contains(&json!("started")),
        "{resumed}"
    );

    // Then live: Bea resigns, and the stream says so at once.
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/resign"),
            Some(&bea),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let (_, ended) = next_notice(&mut stream, &mut buffer).await;
    assert!(
        ended["notices"]
            .as_array()
            .unwrap()
            .contains(&json!("ended")),
        "{ended}"
    );

    let res = app
        .client
        .get(format!("{}/v1/me/stream", app.address))
        .bearer_auth(&ann)
        .header("Last-Event-ID", "yesterday")
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
}

on_both_backends!(
    while_a_game_waits_for_players_nobody_sees_a_card_not_even_the_host,
    each_inbox_row_names_who_sits_where_and_when_the_game_was_made,
    my_notices_say_a_seat_was_claimed_the_game_began_and_it_is_my_move_across_instances,
    my_stream_resumes_after_a_reconnect_with_nothing_missed_and_nothing_twice,
    a_hosted_game_waits_for_its_invited_player_and_begins_when_she_claims_the_seat,
    an_open_seat_is_claimed_once_when_two_accounts_race_on_two_instances,
    a_seat_held_for_an_account_is_offered_to_it_alone_and_waits_in_its_inbox,
    the_host_revokes_an_invitation_and_a_new_one_replaces_it,
    the_host_may_abort_while_the_game_waits_for_players_and_nobody_else_may,
    the_host_cannot_abort_once_every_seat_is_taken_and_the_cards_are_dealt,
    any_seat_may_resign_and_the_game_ends_for_everyone,
    no_account_acts_claims_or_resigns_for_a_seat_it_does_not_hold,
    the_inbox_lists_my_moves_first_then_others_then_waiting_then_finished,
    a_hosted_game_refuses_bad_seating_clearly_and_stores_nothing,
);

//! Matches through the API: a match of every game played to its target by one client per
//! seat, each deal dealt after the last with the deal passing to the left; match tokens; a
//! match whose seats accounts hold; a conceded match; bad requests; the match's audit.

use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::new_account as account;
use crate::helpers::{assert_problem, hosted_girl_match, TestApp};
use crate::on_both_backends;

/// Creates a match; its id and the players' tokens.
async fn new_match(app: &TestApp, body: Value) -> (String, Vec<String>, Value) {
    let (status, created) = app.post("/v1/matches", None, &body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let tokens = created["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_string())
        .collect();
    (created["id"].as_str().unwrap().to_string(), tokens, created)
}

async fn match_view(app: &TestApp, id: &str) -> Value {
    let (status, view) = app.get(&format!("/v1/matches/{id}"), None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    view
}

/// The match once it has a deal in play other than `done`, or once it is over: the next deal
/// is dealt by the outbox worker a moment after the commit that ended the last.
async fn next_deal(app: &TestApp, id: &str, done: Option<&str>) -> Value {
    for _ in 0..400 {
        let view = match_view(app, id).await;
        let current = view["current"].as_str();
        if view["status"] != "playing" || (current.is_some() && current != done) {
            return view;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no next deal of match {id}");
}

/// Plays deal `game` to its end, each seat by its player's own match token, random legal
/// moves from `rng`.
async fn play_deal(app: &TestApp, game: &str, tokens: &[String], rng: &mut ChaCha8Rng) {
    for _ in 0..50_000 {
        let view = app.view(game, None).await;
        if view["status"] == "finished" {
            return;
        }
        let mut moved = false;
        for token in tokens {
            let mine = app.view(game, Some(token)).await;
            let legal = mine["legal_actions"].as_array().unwrap();
            if legal.is_empty() {
                continue;
            }
            let template = &legal[rng.next_u32() as usize % legal.len()];
            let action = parlour_domain::playout::instantiate(template, rng);
            let (status, body) = app.act(game, token, &action).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            moved = true;
            break;
        }
        assert!(moved, "nobody could move in {game}");
    }
    panic!("deal {game} did not end");
}

/// Plays the whole match; its final view.
async fn play_match(app: &TestApp, id: &str, tokens: &[String], seed: u64) -> Value {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut view = match_view(app, id).await;
    loop {
        if view["status"] != "playing" {
            return view;
        }
        let current = view["current"].as_str().unwrap().to_string();
        play_deal(app, &current, tokens, &mut rng).await;
        view = next_deal(app, id, Some(&current)).await;
    }
}

/// Checks what every finished match must show: totals that are the deals' sums, every deal
/// seating the players one place further round (unless the sides keep their seats), every
/// deal's log naming the match and its number, a winner as the target says, a clean audit.
async fn assert_a_sound_match(app: &TestApp, id: &str, view: &Value, players: usize) {
    let deals = view["deals"].as_array().unwrap();
    let competitors = view["competitors"].as_array().unwrap();
    for (c, competitor) in competitors.iter().enumerate() {
        let sum: i64 = deals.iter().map(|d| d["points"][c].as_i64().unwrap()).sum();
        assert_eq!(competitor["total"].as_i64().unwrap(), sum, "{view}");
    }
    for (k, deal) in deals.iter().enumerate() {
        assert_eq!(deal["deal"], json!(k));
        assert_eq!(deal["status"], "finished");
        if view["game"] != "googly" {
            let seats: Vec<u64> = (0..players)
                .map(|p| ((p + players - k % players) % players) as u64)
                .collect();
            assert_eq!(deal["seats"], json!(seats), "deal {k}: {view}");
        }
        let game = deal["game"].as_str().unwrap();
        let log = app.all_events(game, None).await;
        assert!(
            log.iter()
                .any(|e| e["type"] == "table.match_deal"
                    && e["data"] == json!({"match": id, "deal": k})),
            "deal {k}'s log names its match"
        );
    }
    let totals: Vec<i64> = competitors
        .iter()
        .map(|c| c["total"].as_i64().unwrap())
        .collect();
    let best = *totals.iter().max().unwrap();
    let winners: Vec<u64> = (0..totals.len())
        .filter(|c| totals[*c] == best)
        .map(|c| c as u64)
        .collect();
    assert_eq!(view["winners"], json!(winners), "{view}");
    match view["target"]["kind"].as_str().unwrap() {
        "points" => {
            assert_eq!(winners.len(), 1, "a points race has one winner: {view}");
            assert!(best >= view["target"]["points"].as_i64().unwrap(), "{view}");
            // It ended at the first deal that gave it a winner: no earlier prefix did.
            for end in 1..deals.len() {
                let prefix: Vec<i64> = (0..totals.len())
                    .map(|c| {
                        deals[..end]
                            .iter()
                            .map(|d| d["points"][c].as_i64().unwrap())
                            .sum()
                    })
                    .collect();
                let top = *prefix.iter().max().unwrap();
                let decided = top >= view["target"]["points"].as_i64().unwrap()
                    && prefix.iter().filter(|t| **t == top).count() == 1;
                assert!(!decided, "the match went on past a decided deal: {view}");
            }
        }
        _ => assert_eq!(
            deals.len() as u64,
            view["target"]["deals"].as_u64().unwrap()
        ),
    }
    let (status, audit) = app.get(&format!("/v1/matches/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(audit["ok"], json!(true), "{audit}");
    assert_eq!(audit["deals"].as_array().unwrap().len(), deals.len());
}

async fn a_match_of_every_game_runs_to_its_target_with_one_client_per_seat(app: TestApp) {
    for (i, (game, players, options, target)) in [
        (
            "girl",
            2,
            json!({}),
            json!({"kind": "points", "points": 12}),
        ),
        ("car", 3, json!({}), json!({"kind": "points", "points": 10})),
        (
            "british-birds",
            2,
            json!({}),
            json!({"kind": "points", "points": 15}),
        ),
        (
            "history-of-england",
            3,
            json!({}),
            json!({"kind": "points", "points": 12}),
        ),
        (
            "googly",
            2,
            json!({"variant": "two_player"}),
            json!({"kind": "deals", "deals": 2}),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let names: Vec<Value> = (0..players)
            .map(|p| json!({"name": format!("Player {p}")}))
            .collect();
        let (id, tokens, created) = new_match(
            &app,
            json!({"game": game, "players": names, "options": options, "target": target,
                   "seed": format!("{:064x}", i + 1)}),
        )
        .await;
        assert_eq!(created["target"], target);
        let view = play_match(&app, &id, &tokens, i as u64).await;
        assert_eq!(view["status"], "finished", "{game}: {view}");
        assert!(view["current"].is_null());
        assert_a_sound_match(&app, &id, &view, players).await;
        if game == "googly" {
            let names: Vec<&str> = view["competitors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].as_str().unwrap())
                .collect();
            assert_eq!(
                names,
                ["Gentlemen", "Players"],
                "a series is between the sides"
            );
        } else {
            // Each deal's players are the match's, one place further round.
            let second = view["deals"][1]["game"].as_str();
            if let Some(second) = second {
                let seated = app.view(second, None).await;
                assert_eq!(seated["seats"][0]["name"], "Player 1", "{seated}");
            }
        }
    }
}

async fn the_sheets_targets_are_the_defaults(app: TestApp) {
    for (game, players, target) in [
        ("girl", 4, json!({"kind": "points", "points": 50})),
        ("girl", 2, json!({"kind": "points", "points": 100})),
        ("car", 3, json!({"kind": "points", "points": 65})),
        ("car", 5, json!({"kind": "points", "points": 40})),
        ("british-birds", 3, json!({"kind": "points", "points": 50})),
        (
            "history-of-england",
            4,
            json!({"kind": "points", "points": 50}),
        ),
        ("googly", 2, json!({"kind": "deals", "deals": 3})),
    ] {
        let names: Vec<Value> = (0..players)
            .map(|p| json!({"name": format!("P{p}")}))
            .collect();
        let (id, _, created) = new_match(&app, json!({"game": game, "players": names})).await;
        assert_eq!(created["target"], target, "{game} for {players}");
        let view = match_view(&app, &id).await;
        assert_eq!(view["target"], target);
        assert_eq!(view["status"], "playing");
        assert_eq!(view["current"], created["first_deal"]);
        assert_eq!(view["deals"].as_array().unwrap().len(), 1);
    }
}

async fn a_match_token_opens_its_seat_in_every_deal_and_in_no_other_game(app: TestApp) {
    let (id, tokens, created) = new_match(
        &app,
        json!({"game": "girl", "players": [{"name": "Ann"}, {"name": "Bea"}],
               "target": {"kind": "points", "points": 1000}, "seed": format!("{:064x}", 7)}),
    )
    .await;
    let first = created["first_deal"].as_str().unwrap().to_string();
    assert_eq!(app.view(&first, Some(&tokens[0])).await["you"]["seat"], 0);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    play_deal(&app, &first, &tokens, &mut rng).await;
    let view = next_deal(&app, &id, Some(&first)).await;
    let second = view["current"].as_str().unwrap().to_string();
    // Deal 1: Bea (seat 1 of the first deal) now plays first, in seat 0; Ann deals, last.
    let seen = app.view(&second, Some(&tokens[0])).await;
    assert_eq!(seen["you"]["seat"], 1, "{seen}");
    assert_eq!(app.view(&second, Some(&tokens[1])).await["you"]["seat"], 0);
    // A match token opens no other game, and a deal's seat opens to no other token.
    let (other, _) = app.create_game("girl", 2, None, json!({})).await;
    let res = app
        .request(
            Method::GET,
            &format!("/v1/games/{other}"),
            Some(&tokens[0]),
            None,
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app
        .request(
            Method::GET,
            &format!("/v1/games/{second}"),
            Some(&format!("{}0", tokens[0])),
            None,
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

/// A correspondence clock of two days a move, timing out by the default move.
fn two_days_a_move() -> Value {
    json!({"clock": {"control": {"kind": "correspondence", "days": 2}, "on_timeout": "default_move"}})
}

async fn accounts_keep_their_seats_from_deal_to_deal_and_a_resignation_concedes_the_match(
    app: TestApp,
) {
    let ann = account(&app, "Ann").await;
    let bea = account(&app, "Bea").await;
    let (id, first) = hosted_girl_match(&app, &ann, &bea, two_days_a_move()).await;
    let tokens = [ann.clone(), bea.clone()];
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    play_deal(&app, &first, &tokens, &mut rng).await;
    let view = next_deal(&app, &id, Some(&first)).await;
    let second = view["current"].as_str().unwrap().to_string();
    let seated = app.view(&second, None).await;
    // The deal passed to the left: Bea begins, Ann deals; both already seated, on the clock.
    assert_eq!(seated["status"], "active", "{seated}");
    assert_eq!(seated["seats"][0]["name"], "Bea");
    assert_eq!(seated["seats"][1]["name"], "Ann");
    assert!(
        seated["clock"].is_object(),
        "the clock carries over: {seated}"
    );
    assert_eq!(app.view(&second, Some(&bea)).await["you"]["seat"], 0);
    // Both inboxes list the new deal as a deal of the match.
    let (status, inbox) = app.get("/v1/me/games", Some(&ann)).await;
    assert_eq!(status, StatusCode::OK);
    let row = inbox["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == json!(second))
        .unwrap_or_else(|| panic!("{inbox}"));
    assert_eq!(row["deal_of"], json!({"match": id, "deal": 1}));
    // Bea resigns the second deal, and with it the match: Ann wins it.
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{second}/resign"),
            Some(&bea),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let view = next_deal(&app, &id, Some(&second)).await;
    assert_eq!(view["status"], "conceded", "{view}");
    assert_eq!(view["conceded_by"], 1);
    assert_eq!(view["winners"], json!([0]));
    assert!(view["current"].is_null());
    assert_eq!(view["deals"][1]["ended_by"], "resignation");
    // No third deal is ever dealt.
    let (status, _) = app
        .get(
            &format!("/v1/games/{}", third_deal_id(&app, &id).await),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn a_player_away_on_vacation_is_away_in_the_seat_she_claims_and_in_the_next_deal(
    app: TestApp,
) {
    let ann = account(&app, "Ann").await;
    let bea = account(&app, "Bea").await;
    let (status, away) = app
        .post("/v1/me/vacation", Some(&bea), &json!({"days": 3}))
        .await;
    assert_eq!(status, StatusCode::OK, "{away}");
    let (id, first) = hosted_girl_match(&app, &ann, &bea, two_days_a_move()).await;
    // Bea claimed seat 1 while away: her clock there is stopped until her vacation ends.
    let seated = app.view(&first, None).await;
    assert_eq!(
        seated["clock"]["seats"][1]["away_until"], away["away_until"],
        "{seated}"
    );
    assert_eq!(seated["clock"]["seats"][0]["away_until"], Value::Null);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    play_deal(&app, &first, &[ann.clone(), bea.clone()], &mut rng).await;
    let view = next_deal(&app, &id, Some(&first)).await;
    let second = view["current"].as_str().unwrap().to_string();
    // The deal passed to the left, so Bea sits in seat 0 now, and is still away.
    let dealt = app.view(&second, None).await;
    assert_eq!(dealt["seats"][0]["name"], "Bea");
    assert_eq!(
        dealt["clock"]["seats"][0]["away_until"], away["away_until"],
        "{dealt}"
    );
    assert_eq!(dealt["clock"]["seats"][1]["away_until"], Value::Null);
    let log = app.all_events(&second, None).await;
    assert!(
        log.iter().any(|e| e["type"] == "table.vacation_began"),
        "the new deal's log says so"
    );
}

/// The id deal 2 would have: the audit lists only the deals that exist, so ask the server's
/// own rule, as a client would compute it.
async fn third_deal_id(_app: &TestApp, id: &str) -> String {
    parlour::service::matches::deal_id(uuid::Uuid::parse_str(id).unwrap(), 2).to_string()
}

async fn bad_matches_are_refused_and_store_nothing(app: TestApp) {
    let ann = account(&app, "Ann").await;
    for (body, token, status, code) in [
        (
            json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}], "seats": [{"kind": "me"}]}),
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-setup",
        ),
        (
            json!({"game": "girl"}),
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-setup",
        ),
        (
            json!({"game": "googly", "players": [{"name": "A"}, {"name": "B"}], "target": {"kind": "points", "points": 50}}),
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-setup",
        ),
        (
            json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}], "target": {"kind": "points", "points": 0}}),
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-setup",
        ),
        (
            json!({"game": "british-birds", "players": [{"name": "A"}, {"name": "B"}], "options": {"play_to": 50}}),
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-setup",
        ),
        (
            json!({"game": "girl", "players": [{"name": "A"}]}),
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-setup",
        ),
        (
            json!({"game": "chess", "players": [{"name": "A"}, {"name": "B"}]}),
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-game",
        ),
        (
            json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]}),
            None,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}], "rounds": 3}),
            Some(ann.as_str()),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
    ] {
        let res = app
            .request(Method::POST, "/v1/matches", token, Some(&body))
            .await;
        assert_problem(res, status, code).await;
    }
    let (status, inbox) = app.get("/v1/me/games", Some(&ann)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(inbox["games"], json!([]), "nothing was dealt");
    for path in [
        "/v1/matches/nothing",
        "/v1/matches/0190a000-0000-7000-8000-000000000000",
        "/v1/matches/0190a000-0000-7000-8000-000000000000/audit",
    ] {
        let res = app.request(Method::GET, path, None, None).await;
        assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    }
}

/// A game's audit: its seed and salt are `null` until it is over.
async fn game_audit(app: &TestApp, game: &str) -> Value {
    let (status, audit) = app.get(&format!("/v1/games/{game}/audit"), None).await;
    assert_eq!(status, StatusCode::OK, "{audit}");
    audit
}

/// What deal `deal`'s seed was before deals were keyed: SHA-256 of a public prefix, the
/// match's seed and the deal's number, which anyone holding (or guessing) the seed could work
/// out, and check a guess against deal 0's revealed seed.
fn public_deal_seed(match_seed: &str, deal: u32) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"parlour match seed\0");
    hash.update(hex::decode(match_seed).unwrap());
    hash.update(deal.to_be_bytes());
    hex::encode(hash.finalize())
}

/// The attack: a spectator who knows (or guesses from a dictionary) a match's chosen seed, and
/// sees deal 0's seed revealed at its end, worked out deal 1's seed, and so every hand of deal
/// 1, while it was played. Deal seeds are now keyed by the server: neither the match's seed nor
/// any revealed seed gives a deal away before it ends, each deal's commitment published at its
/// start opens to the seed revealed at its end, and the same chosen seed still deals the same
/// cards at another table (duplicate play).
async fn a_chosen_seed_gives_no_deal_away_before_it_ends_and_deals_the_same_cards_at_every_table(
    app: TestApp,
) {
    let seed = format!("{:064x}", 1);
    let body = json!({"game": "girl", "players": [{"name": "Ann"}, {"name": "Bea"}],
                      "target": {"kind": "points", "points": 1000}, "seed": seed});
    let (id, tokens, created) = new_match(&app, body.clone()).await;
    let first = created["first_deal"].as_str().unwrap().to_string();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    play_deal(&app, &first, &tokens, &mut rng).await;
    let revealed_first = game_audit(&app, &first).await;
    let first_seed = revealed_first["seed"].as_str().unwrap().to_string();
    assert_ne!(
        first_seed,
        public_deal_seed(&seed, 0),
        "deal 0's revealed seed confirms no guess of the match's seed"
    );

    let view = next_deal(&app, &id, Some(&first)).await;
    let second = view["current"].as_str().unwrap().to_string();
    let during = game_audit(&app, &second).await;
    assert!(
        during["seed"].is_null() && during["salt"].is_null(),
        "{during}"
    );
    let commitment = during["seed_commitment"].as_str().unwrap().to_string();
    // Everything public while deal 1 is played: the match's seed (given away), deal 0's seed,
    // and deal 1's commitment. The old derivation would have opened the commitment at once.
    let predicted = public_deal_seed(&seed, 1);
    play_deal(&app, &second, &tokens, &mut rng).await;
    let after = game_audit(&app, &second).await;
    let second_seed = after["seed"].as_str().unwrap().to_string();
    assert_ne!(second_seed, predicted, "deal 1 was not predictable");
    assert_ne!(second_seed, first_seed);
    crate::helpers::assert_clean_audit(&app, &second).await;
    assert_eq!(
        after["seed_commitment"], commitment,
        "deal 1's commitment, published at its start, opens to the seed revealed at its end"
    );

    // Duplicate play: another match with the same seed is dealt the same cards, deal by deal.
    let (other, other_tokens, other_created) = new_match(&app, body).await;
    let other_first = other_created["first_deal"].as_str().unwrap().to_string();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    play_deal(&app, &other_first, &other_tokens, &mut rng).await;
    assert_eq!(
        game_audit(&app, &other_first).await["seed"],
        json!(first_seed)
    );
    let dealt = |log: &[Value]| log.iter().find(|e| e["seq"] == 1).cloned().unwrap();
    assert_eq!(
        dealt(&app.all_events(&other_first, None).await)["data"],
        dealt(&app.all_events(&first, None).await)["data"],
        "the same opening deal"
    );
    let view = next_deal(&app, &other, Some(&other_first)).await;
    let other_second = view["current"].as_str().unwrap().to_string();
    play_deal(&app, &other_second, &other_tokens, &mut rng).await;
    assert_eq!(
        game_audit(&app, &other_second).await["seed"],
        json!(second_seed)
    );
    let audit = app.get(&format!("/v1/matches/{id}/audit"), None).await.1;
    assert_eq!(audit["ok"], json!(true), "{audit}");
}

on_both_backends!(
    a_chosen_seed_gives_no_deal_away_before_it_ends_and_deals_the_same_cards_at_every_table,
    a_match_of_every_game_runs_to_its_target_with_one_client_per_seat,
    the_sheets_targets_are_the_defaults,
    a_match_token_opens_its_seat_in_every_deal_and_in_no_other_game,
    accounts_keep_their_seats_from_deal_to_deal_and_a_resignation_concedes_the_match,
    a_player_away_on_vacation_is_away_in_the_seat_she_claims_and_in_the_next_deal,
    bad_matches_are_refused_and_store_nothing,
);

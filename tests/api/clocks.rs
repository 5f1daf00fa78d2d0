//! Move clocks, played across simulated days: the time is a clock the test moves, and the
//! sweep that records what falls due is driven by the test, so a week passes in milliseconds
//! and no test waits for a deadline.
//!
//! Each seat's deadline is in the view and the inbox; at 80 % of a seat's time a reminder is
//! recorded once and its player told; when time runs out the game's policy applies — the
//! seat's default move, or a forfeit with its concession; a move after the deadline is
//! refused; a vacation stops the clock; a deadline that passed while no server ran is applied
//! by the next leader; two sweepers on one database record a timeout once; and the audit
//! holds after all of it.

use std::sync::Arc;
use std::time::Duration;

use parlour::service::{ManualClock, Parlour};
use parlour::startup::Settings;
use parlour::store;
use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::new_account as account;
use crate::helpers::{assert_problem, fresh_database, serve_with_clock, Backend, Guard, TestApp};

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(24 * 3600);

/// A server whose time is `clock`, and its service (to sweep the clocks on demand).
struct Clocked {
    app: TestApp,
    service: Arc<Parlour>,
    clock: Arc<ManualClock>,
    url: String,
    running: tokio::task::JoinHandle<std::io::Result<()>>,
    _guard: Guard,
}

/// A server on `url` telling the time by `clock`. The tests sweep its clocks themselves,
/// so that what a sweep records is what the test drove, unless `leader_sweeps`.
async fn instance(
    url: &str,
    clock: Arc<ManualClock>,
    leader_sweeps: bool,
) -> (
    TestApp,
    Arc<Parlour>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let settings = Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        sweep_clocks: leader_sweeps,
        ..Settings::default()
    };
    serve_with_clock(url, clock, settings).await
}

async fn clocked(backend: Backend) -> Clocked {
    let (url, guard) = fresh_database(backend).await;
    // A fixed day, so that a year's vacation days do not depend on when the test runs.
    let start = chrono::DateTime::parse_from_rfc3339("2027-03-01T12:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let clock = Arc::new(ManualClock::at(start));
    let (app, service, running) = instance(&url, clock.clone(), false).await;
    Clocked {
        app,
        service,
        clock,
        url,
        running,
        _guard: guard,
    }
}

/// Ann hosts a two-seat GIRL game on `clock` and Bea takes the other seat: the game's id
/// and both tokens.
async fn girl_on(app: &TestApp, clock: Value) -> (String, [String; 2]) {
    let ann = account(app, "Ann").await;
    let bea = account(app, "Bea").await;
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(&ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}], "clock": clock}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    let id = hosted["id"].as_str().unwrap().to_string();
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/seats/1/claim"),
            Some(&bea),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    (id, [ann, bea])
}

fn correspondence(days: u8, on_timeout: &str) -> Value {
    json!({"control": {"kind": "correspondence", "days": days}, "on_timeout": on_timeout})
}

fn deadline_of(view: &Value, seat: u64) -> Option<String> {
    view["clock"]["seats"][seat as usize]["deadline"]
        .as_str()
        .map(str::to_string)
}

async fn first_to_act(app: &TestApp, id: &str) -> u64 {
    app.view(id, None).await["to_act"][0]
        .as_u64()
        .expect("someone to act")
}

async fn a_legal_move(app: &TestApp, id: &str, token: &str) -> Value {
    let mine = app.view(id, Some(token)).await;
    instantiate(&mine["legal_actions"][0], &mut ChaCha8Rng::seed_from_u64(1))
}

/// The notice of the commit that took the account's `game` to `version`, read from its
/// long-poll from the start of the feed (a commit reaches the feed a moment after it is made).
async fn notice_at(app: &TestApp, token: &str, game: &str, version: u64) -> Value {
    let mut after = "0-0".to_string();
    for _ in 0..50 {
        let (status, page) = app
            .get(
                &format!("/v1/me/notices?after={after}&wait=10"),
                Some(token),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{page}");
        if let Some(notice) = page["notices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["game"] == json!(game) && n["version"] == json!(version))
        {
            return notice.clone();
        }
        after = page["next"].as_str().unwrap().to_string();
    }
    panic!("no notice of version {version}");
}

async fn log(app: &TestApp, id: &str) -> Vec<Value> {
    app.all_events(id, None).await
}

async fn assert_audits(app: &TestApp, id: &str) {
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
}

async fn a_clocked_game_shows_every_deadline_in_the_view_and_the_inbox(c: Clocked) {
    let (id, tokens) = girl_on(&c.app, correspondence(3, "forfeit")).await;
    let view = c.app.view(&id, None).await;
    assert_eq!(
        view["clock"]["control"],
        json!({"kind": "correspondence", "days": 3})
    );
    assert_eq!(view["clock"]["on_timeout"], "forfeit");
    let seat = first_to_act(&c.app, &id).await;
    let deadline = deadline_of(&view, seat).expect("the seat to act has a deadline");
    let (_, inbox) = c
        .app
        .get("/v1/me/games", Some(&tokens[seat as usize]))
        .await;
    assert_eq!(inbox["games"][0]["asked"], "move");
    assert_eq!(
        inbox["games"][0]["deadline"].as_str(),
        Some(deadline.as_str())
    );
    // The seat not asked to move has no deadline, in the view or its inbox.
    let other = 1 - seat;
    if !view["to_act"].as_array().unwrap().contains(&json!(other)) {
        assert_eq!(deadline_of(&view, other), None);
        let (_, theirs) = c
            .app
            .get("/v1/me/games", Some(&tokens[other as usize]))
            .await;
        assert_eq!(theirs["games"][0]["deadline"], Value::Null);
    }
    // The log records the clock with the table's opening entries.
    let entries = log(&c.app, &id).await;
    assert!(entries
        .iter()
        .any(|e| e["type"] == "table.clock_set" && e["data"]["control"]["days"] == 3));
}

async fn a_reminder_is_recorded_once_at_eighty_percent_and_only_its_player_is_told(c: Clocked) {
    let (id, tokens) = girl_on(&c.app, correspondence(5, "forfeit")).await;
    let seat = first_to_act(&c.app, &id).await;

    c.clock.advance(4 * DAY - HOUR);
    assert_eq!(c.service.sweep_clocks().await.unwrap().reminders, 0);
    c.clock.advance(HOUR);
    assert_eq!(c.service.sweep_clocks().await.unwrap().reminders, 1);
    assert_eq!(
        c.service.sweep_clocks().await.unwrap().reminders,
        0,
        "once per move"
    );

    let entries = log(&c.app, &id).await;
    let reminders: Vec<&Value> = entries
        .iter()
        .filter(|e| e["type"] == "table.reminded")
        .collect();
    assert_eq!(reminders.len(), 1);
    assert_eq!(reminders[0]["data"]["seat"], json!(seat));
    let view = c.app.view(&id, None).await;
    assert_eq!(view["clock"]["seats"][seat as usize]["reminded"], true);

    let version = reminders[0]["seq"].as_u64().unwrap();
    let told = notice_at(&c.app, &tokens[seat as usize], &id, version).await;
    assert_eq!(told["notices"], json!(["deadline_near"]), "{told}");
    let other = notice_at(&c.app, &tokens[1 - seat as usize], &id, version).await;
    assert_eq!(other["notices"], json!([]), "{other}");
    assert_audits(&c.app, &id).await;
}

async fn a_move_after_the_deadline_is_refused_and_the_default_move_is_played_for_the_seat(
    c: Clocked,
) {
    let (id, tokens) = girl_on(&c.app, correspondence(1, "default_move")).await;
    let seat = first_to_act(&c.app, &id).await;
    let token = &tokens[seat as usize];
    let action = a_legal_move(&c.app, &id, token).await;
    let before = c.app.view(&id, None).await["version"].clone();

    c.clock.advance(DAY);
    let (status, refused) = c.app.act(&id, token, &action).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["rule"], "out-of-time");
    assert_eq!(
        c.app.view(&id, None).await["version"],
        before,
        "nothing was recorded"
    );

    let sweep = c.service.sweep_clocks().await.unwrap();
    assert_eq!(sweep.timeouts, 1, "{sweep:?}");
    let entries = log(&c.app, &id).await;
    let at = entries
        .iter()
        .position(|e| e["type"] == "table.timed_out")
        .expect("the timeout is in the log");
    assert_eq!(entries[at]["data"]["seat"], json!(seat));
    // Its default move follows at once, as the seat's own move.
    assert_eq!(entries[at + 1]["actor"], json!(seat), "{}", entries[at + 1]);
    let view = c.app.view(&id, None).await;
    assert_eq!(view["status"], "active", "play goes on");
    assert_audits(&c.app, &id).await;
    let version = entries[at + 1]["seq"].as_u64().unwrap();
    let told = notice_at(&c.app, token, &id, version).await;
    assert!(
        told["notices"]
            .as_array()
            .unwrap()
            .contains(&json!("timed_out")),
        "{told}"
    );
    // The notice says which move was made for the seat: the one the log records.
    let made = store::connect(&c.url)
        .await
        .unwrap()
        .events(id.parse().unwrap(), version - 1, Some(1))
        .await
        .unwrap();
    assert_eq!(made[0].actor, Some(seat as u8));
    assert_eq!(
        told["timed_out"],
        json!({"seat": seat, "then": "default_move", "action": made[0].command.clone().unwrap()}),
        "{told}"
    );
    // The other player is told nothing of it.
    let other = notice_at(&c.app, &tokens[1 - seat as usize], &id, version).await;
    assert_eq!(other.get("timed_out"), None, "{other}");
}

async fn under_forfeit_the_seat_out_of_time_loses_with_its_concession(c: Clocked) {
    let (id, tokens) = girl_on(&c.app, correspondence(2, "forfeit")).await;
    let seat = first_to_act(&c.app, &id).await;
    c.clock.advance(2 * DAY - Duration::from_secs(1));
    assert_eq!(c.service.sweep_clocks().await.unwrap().timeouts, 0);
    c.clock.advance(Duration::from_secs(1));
    assert_eq!(c.service.sweep_clocks().await.unwrap().timeouts, 1);
    let view = c.app.view(&id, None).await;
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["ended_by"], "forfeit");
    assert_eq!(view["result"]["seat"], json!(seat));
    let ranking = view["result"]["concession"]["ranking"].as_array().unwrap();
    assert_eq!(ranking.last(), Some(&json!([seat])));
    assert_eq!(
        deadline_of(&view, seat),
        None,
        "a finished game has no deadline"
    );
    let (_, inbox) = c.app.get("/v1/me/games", Some(&tokens[0])).await;
    assert_eq!(inbox["games"][0]["status"], "finished");
    // The seat's player is told its seat was forfeited.
    let version = view["version"].as_u64().unwrap();
    let told = notice_at(&c.app, &tokens[seat as usize], &id, version).await;
    assert_eq!(
        told["timed_out"],
        json!({"seat": seat, "then": "forfeit"}),
        "{told}"
    );
    crate::helpers::assert_clean_audit(&c.app, &id).await;
    assert_eq!(
        c.service.sweep_clocks().await.unwrap().games,
        0,
        "nothing left to watch"
    );
}

async fn under_bot_a_steady_bot_plays_the_seat_that_ran_out_until_its_player_takes_it_back(
    c: Clocked,
) {
    let (id, tokens) = girl_on(&c.app, correspondence(1, "bot")).await;
    let seat = first_to_act(&c.app, &id).await;
    let token = &tokens[seat as usize];
    c.clock.advance(DAY);
    let sweep = c.service.sweep_clocks().await.unwrap();
    assert_eq!(sweep.timeouts, 1, "{sweep:?}");
    let entries = log(&c.app, &id).await;
    let at = entries
        .iter()
        .position(|e| e["type"] == "table.timed_out")
        .expect("the timeout is in the log");
    assert_eq!(entries[at]["data"]["seat"], json!(seat));
    // In the same commit, a steady bot takes the seat.
    assert_eq!(entries[at + 1]["type"], "table.bot_seated");
    assert_eq!(
        entries[at + 1]["data"],
        json!({"seat": seat, "level": "steady"})
    );
    assert_eq!(entries[at + 1]["at"], entries[at]["at"]);
    // The seat's player is told a bot took the seat.
    let version = entries[at + 1]["seq"].as_u64().unwrap();
    let told = notice_at(&c.app, token, &id, version).await;
    assert_eq!(
        told["timed_out"],
        json!({"seat": seat, "then": "bot", "bot": "steady"}),
        "{told}"
    );
    // The bot plays the seat's move soon after, and its clock no longer runs.
    let mut view = c.app.view(&id, None).await;
    for _ in 0..100 {
        if !view["to_act"].as_array().unwrap().contains(&json!(seat)) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        view = c.app.view(&id, None).await;
    }
    assert!(
        !view["to_act"].as_array().unwrap().contains(&json!(seat)),
        "the bot moved: {view}"
    );
    assert_eq!(view["seats"][seat as usize]["bot"], "steady", "{view}");
    assert_eq!(view["status"], "active", "play goes on");
    let (status, refused) = c.app.act(&id, token, &json!({"type": "turn_up"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["type"], "/problems/bot-seat");

    // Back from wherever they were, the player takes the seat back with their account.
    let res = c
        .app
        .request(
            Method::DELETE,
            &format!("/v1/games/{id}/seats/{seat}/bot"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let back: Value = res.json().await.unwrap();
    assert!(back["seats"][seat as usize].get("bot").is_none(), "{back}");
    assert_audits(&c.app, &id).await;
}

async fn a_clock_that_cannot_be_kept_is_refused_with_a_clear_problem(c: Clocked) {
    let ann = account(&c.app, "Ann").await;
    for (clock, code) in [
        (correspondence(4, "forfeit"), "invalid-clock"),
        (
            json!({"control": {"kind": "bank", "initial_hours": 48, "increment_hours": 1, "max_hours": 24}, "on_timeout": "forfeit"}),
            "invalid-clock",
        ),
    ] {
        let res = c
            .app
            .request(
                Method::POST,
                "/v1/me/games",
                Some(&ann),
                Some(&json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}], "clock": clock})),
            )
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, code).await;
    }
    let (_, inbox) = c.app.get("/v1/me/games", Some(&ann)).await;
    assert_eq!(inbox["games"], json!([]), "nothing was created");
    // A whole number is a whole number however it is written; a fraction is no number of days.
    let clock = |days: Value| {
        json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}],
            "clock": {"control": {"kind": "correspondence", "days": days}, "on_timeout": "forfeit"}})
    };
    let (status, body) = c.app.post("/v1/games", None, &clock(json!(3.0))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let res = c
        .app
        .request(Method::POST, "/v1/games", None, Some(&clock(json!(3.5))))
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    let res = c
        .app
        .request(
            Method::POST,
            "/v1/games",
            None,
            Some(&json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}],
                "clock": {"control": {"kind": "correspondence", "days": 3}, "on_timeout": "forfeit", "extra": 1}})),
        )
        .await;
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
}

async fn a_bank_clock_charges_the_time_used_and_credits_the_increment(c: Clocked) {
    let (status, created) = c
        .app
        .post(
            "/v1/games",
            None,
            &json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}],
                "clock": {"control": {"kind": "bank", "initial_hours": 10, "increment_hours": 2, "max_hours": 11},
                          "on_timeout": "forfeit"}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> = created["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_string())
        .collect();
    let seat = first_to_act(&c.app, &id).await as usize;
    let view = c.app.view(&id, None).await;
    assert_eq!(
        view["clock"]["seats"][seat]["time_left_seconds"],
        json!(10 * 3600)
    );
    c.clock.advance(3 * HOUR);
    let action = a_legal_move(&c.app, &id, &tokens[seat]).await;
    let (status, body) = c.app.act(&id, &tokens[seat], &action).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let view = c.app.view(&id, None).await;
    // 10 h less 3 used is 7, and 2 more after the move: 9.
    // Whether it must move again at once or not, its bank now holds 9 h.
    let left = view["clock"]["seats"][seat]["time_left_seconds"].clone();
    assert_eq!(left, json!(9 * 3600), "{view}");
    assert_audits(&c.app, &id).await;
}

async fn a_vacation_stops_the_clock_in_every_game_and_an_early_return_restarts_it(c: Clocked) {
    let (id, tokens) = girl_on(&c.app, correspondence(2, "forfeit")).await;
    let seat = first_to_act(&c.app, &id).await;
    let token = &tokens[seat as usize];
    let (status, days) = c.app.get("/v1/me/vacation", Some(token)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(days["days_left"], 30);
    assert_eq!(days["away_until"], Value::Null);

    c.clock.advance(DAY);
    let (status, away) = c
        .app
        .post("/v1/me/vacation", Some(token), &json!({"days": 5}))
        .await;
    assert_eq!(status, StatusCode::OK, "{away}");
    assert_eq!(away["days_left"], 25);
    let view = c.app.view(&id, None).await;
    assert_eq!(
        view["clock"]["seats"][seat as usize]["away_until"],
        away["away_until"]
    );
    // A day was used; the other day runs from the vacation's end, five days on. Four days
    // into it, nothing is due.
    c.clock.advance(4 * DAY);
    assert_eq!(c.service.sweep_clocks().await.unwrap().timeouts, 0);
    let (status, again) = c
        .app
        .post("/v1/me/vacation", Some(token), &json!({"days": 40}))
        .await;
    assert_eq!(status, StatusCode::OK, "still away: {again}");
    assert_eq!(
        again["away_until"], away["away_until"],
        "asking again changes nothing"
    );

    // Back early, a day before the vacation's end: the day left runs from now.
    let res = c
        .app
        .request(Method::DELETE, "/v1/me/vacation", Some(token), None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let back: Value = res.json().await.unwrap();
    assert_eq!(back["away_until"], Value::Null, "{back}");
    assert_eq!(back["days_left"], 26, "four days were used: {back}");
    let res = c
        .app
        .request(Method::DELETE, "/v1/me/vacation", Some(token), None)
        .await;
    assert_problem(res, StatusCode::CONFLICT, "vacation-refused").await;
    c.clock.advance(DAY - Duration::from_secs(1));
    assert_eq!(c.service.sweep_clocks().await.unwrap().timeouts, 0);
    c.clock.advance(Duration::from_secs(1));
    assert_eq!(c.service.sweep_clocks().await.unwrap().timeouts, 1);
    let entries = log(&c.app, &id).await;
    let kinds: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["type"].as_str())
        .filter(|k| k.starts_with("table.vacation") || *k == "table.timed_out")
        .collect();
    assert_eq!(
        kinds,
        [
            "table.vacation_began",
            "table.vacation_ended",
            "table.timed_out"
        ]
    );
    crate::helpers::assert_clean_audit(&c.app, &id).await;

    let res = c
        .app
        .request(
            Method::POST,
            "/v1/me/vacation",
            Some(token),
            Some(&json!({"days": 27})),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "vacation-refused").await;
    for days in [0, 367] {
        let res = c
            .app
            .request(
                Method::POST,
                "/v1/me/vacation",
                Some(token),
                Some(&json!({"days": days})),
            )
            .await;
        assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    }
}

async fn a_game_whose_host_disallows_vacation_keeps_its_clock_running(c: Clocked) {
    let clock = json!({"control": {"kind": "correspondence", "days": 1}, "on_timeout": "forfeit", "vacation": false});
    let (id, tokens) = girl_on(&c.app, clock).await;
    let seat = first_to_act(&c.app, &id).await;
    let (status, _) = c
        .app
        .post(
            "/v1/me/vacation",
            Some(&tokens[seat as usize]),
            &json!({"days": 3}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    c.clock.advance(DAY);
    assert_eq!(c.service.sweep_clocks().await.unwrap().timeouts, 1);
    assert!(!log(&c.app, &id)
        .await
        .iter()
        .any(|e| e["type"] == "table.vacation_began"));
}

async fn a_deadline_that_passed_while_no_server_ran_is_applied_by_the_next_leader(c: Clocked) {
    let (id, _tokens) = girl_on(&c.app, correspondence(1, "forfeit")).await;
    // The server stops, and its note of when the game next needs a look is lost with it (as
    // if it died between a commit and the note): only a look at every clocked game finds it.
    c.running.abort();
    let never = chrono::DateTime::parse_from_rfc3339("9000-01-01T00:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    // Through a store of the test's own: the stopped server's connections stopped with it.
    store::connect(&c.url)
        .await
        .unwrap()
        .set_attention(id.parse().unwrap(), Some(never))
        .await
        .expect("the note is rewritten");
    c.clock.advance(2 * DAY);
    // A new server on the same database, with its leader's sweeper on: when it takes the
    // lead, it applies the deadline without the test driving it.
    let (second, _service, _running) = instance(&c.url, c.clock.clone(), true).await;
    // Bounded generously: at the start of the whole suite two cores run every test at once.
    let mut finished = false;
    for _ in 0..600 {
        if second.view(&id, None).await["status"] == "finished" {
            finished = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(finished, "the leader applied the deadline");
    let timeouts = log(&second, &id)
        .await
        .iter()
        .filter(|e| e["type"] == "table.timed_out")
        .count();
    assert_eq!(timeouts, 1);
}

async fn a_clocked_game_whose_note_was_lost_is_found_by_the_next_leader_from_its_log(c: Clocked) {
    let (id, _tokens) = girl_on(&c.app, correspondence(1, "forfeit")).await;
    // The note of when the game next needs a look is gone (as a sweep racing its creation
    // once dropped it): the sweeps that read the notes cannot see the game any more.
    let store = store::connect(&c.url).await.unwrap();
    store
        .set_attention(id.parse().unwrap(), None)
        .await
        .expect("the note is dropped");
    c.clock.advance(2 * DAY);
    assert_eq!(c.service.sweep_clocks().await.unwrap().games, 0);
    // A leader taking over reads the clocked games from the logs, and finds it.
    let look = c.service.sweep_every_clock().await.unwrap();
    assert_eq!((look.games, look.timeouts), (1, 1), "{look:?}");
    let view = c.app.view(&id, None).await;
    assert_eq!(view["result"]["ended_by"], "forfeit");
    // A game seen to end is not looked at again by the next leader.
    assert_eq!(c.service.sweep_every_clock().await.unwrap().games, 0);
}

async fn a_takeover_notes_again_when_a_game_whose_note_was_lost_next_needs_a_look(c: Clocked) {
    let (id, _tokens) = girl_on(&c.app, correspondence(5, "forfeit")).await;
    let store = store::connect(&c.url).await.unwrap();
    store
        .set_attention(id.parse().unwrap(), None)
        .await
        .unwrap();
    // Nothing is due yet: the leader's look records nothing, but notes the game again ...
    let look = c.service.sweep_every_clock().await.unwrap();
    assert_eq!((look.games, look.reminders, look.timeouts), (1, 0, 0));
    // ... so the sweep of each tick finds its reminder and its timeout when they fall due.
    c.clock.advance(4 * DAY);
    assert_eq!(c.service.sweep_clocks().await.unwrap().reminders, 1);
    c.clock.advance(DAY);
    assert_eq!(c.service.sweep_clocks().await.unwrap().timeouts, 1);
}

async fn a_sweep_drops_only_the_note_it_read_never_one_written_since(c: Clocked) {
    let store = store::connect(&c.url).await.unwrap();
    let game = uuid::Uuid::now_v7();
    let now = parlour::service::Clock::now(&*c.clock);
    store.set_attention(game, Some(now)).await.unwrap();
    let read = store
        .attention_due(now, uuid::Uuid::nil(), 10)
        .await
        .unwrap();
    assert_eq!(read.len(), 1);
    // Between the sweep's read and its delete, the game is noted again (its creation, or a
    // commit to it): the sweep's delete of the note it read removes nothing.
    let later = now + chrono::Duration::hours(1);
    store.set_attention(game, Some(later)).await.unwrap();
    assert!(!store.clear_attention_read(&read[0]).await.unwrap());
    let kept = store
        .attention_due(later, uuid::Uuid::nil(), 10)
        .await
        .unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].game, kept[0].due), (game, later));
    // The note as read is dropped.
    assert!(store.clear_attention_read(&kept[0]).await.unwrap());
    assert!(store
        .attention_due(later, uuid::Uuid::nil(), 10)
        .await
        .unwrap()
        .is_empty());
    // And a sweep that finds no game for a note drops it.
    store.set_attention(game, Some(now)).await.unwrap();
    assert_eq!(c.service.sweep_clocks().await.unwrap().games, 1);
    assert_eq!(c.service.sweep_clocks().await.unwrap().games, 0);
}

/// How many clocked games the concurrency test creates at once.
const CONCURRENT_GAMES: usize = 40;

async fn clocked_games_created_at_once_beside_every_tick_of_the_sweeper_and_a_leader_change_all_time_out(
    c: Clocked,
) {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let (second_app, second, _running) = instance(&c.url, c.clock.clone(), false).await;
    let created = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    // The first leader sweeps at every tick until half the games are created; then the
    // second takes over (its look at every clocked game) and sweeps every tick after.
    let sweeper = {
        let (first, second, created, stop) = (
            c.service.clone(),
            second.clone(),
            created.clone(),
            stop.clone(),
        );
        tokio::spawn(async move {
            let mut leader = first;
            let mut looked = false;
            let mut ticks_after_the_last_creation = 0;
            // Until every game is created, and the second leader has looked (at most a
            // hundred ticks more, should every look fail).
            while !(looked && stop.load(Ordering::SeqCst)) && ticks_after_the_last_creation < 100 {
                if stop.load(Ordering::SeqCst) {
                    ticks_after_the_last_creation += 1;
                }
                if created.load(Ordering::SeqCst) >= CONCURRENT_GAMES / 2 {
                    leader = second.clone();
                    // As the leader's job does: a look that failed is tried again next tick.
                    looked = looked || leader.sweep_every_clock().await.is_ok();
                }
                // A tick that fails (a busy database) is the next tick's to do again.
                let _ = leader.sweep_clocks().await;
                tokio::task::yield_now().await;
            }
            looked
        })
    };
    let creations = (0..CONCURRENT_GAMES).map(|i| {
        let app = if i % 2 == 0 { &c.app } else { &second_app };
        let created = created.clone();
        async move {
            let (status, game) = app
                .post(
                    "/v1/games",
                    None,
                    &json!({
                        "game": "girl",
                        "players": [{"name": "Ann"}, {"name": "Bea"}],
                        "clock": correspondence(1, "forfeit"),
                    }),
                )
                .await;
            assert_eq!(status, StatusCode::CREATED, "{game}");
            created.fetch_add(1, Ordering::SeqCst);
            game["id"].as_str().unwrap().to_string()
        }
    });
    let games = futures_util::future::join_all(creations).await;
    stop.store(true, Ordering::SeqCst);
    assert!(
        sweeper.await.unwrap(),
        "the second leader looked at every clocked game"
    );

    // A day later every game's seat to move is out of time, and the tick's sweep (reading
    // the notes alone) forfeits every one of them: none lost its note.
    c.clock.advance(DAY);
    let sweep = second.sweep_clocks().await.unwrap();
    assert_eq!(sweep.timeouts, CONCURRENT_GAMES as u64, "{sweep:?}");
    for id in &games {
        let view = c.app.view(id, None).await;
        assert_eq!(
            view["result"]["ended_by"], "forfeit",
            "{id} never timed out"
        );
    }
    assert_eq!(
        second.sweep_clocks().await.unwrap().games,
        0,
        "nothing left to watch"
    );
}

fn bank(initial_hours: u32, increment_hours: u32, max_hours: u32, on_timeout: &str) -> Value {
    json!({
        "control": {
            "kind": "bank",
            "initial_hours": initial_hours,
            "increment_hours": increment_hours,
            "max_hours": max_hours,
        },
        "on_timeout": on_timeout,
    })
}

async fn an_empty_bank_with_no_increment_gives_each_move_an_hour_so_absent_seats_are_not_played_out_at_once(
    c: Clocked,
) {
    // Nobody at the table moves: both banks empty, and every move is a timeout's.
    let (id, tokens) = girl_on(&c.app, bank(1, 0, 1, "default_move")).await;
    let view = c.app.view(&id, None).await;
    assert_eq!(view["clock"]["empty_bank_hours"], 1);
    let entries = log(&c.app, &id).await;
    let set = entries
        .iter()
        .find(|e| e["type"] == "table.clock_set")
        .unwrap();
    assert_eq!(
        set["data"]["empty_bank_hours"], 1,
        "the rule is recorded with the clock"
    );
    let mut timeouts = 0;
    for hour in 1..=6 {
        c.clock.advance(HOUR);
        let sweep = c.service.sweep_clocks().await.unwrap();
        // Each seat owing a move times out at most once an hour, never in a storm.
        assert!(sweep.timeouts <= 2, "hour {hour}: {sweep:?}");
        timeouts += sweep.timeouts;
        let view = c.app.view(&id, None).await;
        assert_eq!(view["status"], "active", "hour {hour}: not played out");
        let now = parlour::service::Clock::now(&*c.clock);
        for seat in view["to_act"].as_array().unwrap() {
            let deadline = deadline_of(&view, seat.as_u64().unwrap()).expect("a deadline");
            let deadline = chrono::DateTime::parse_from_rfc3339(&deadline).unwrap();
            assert!(
                deadline >= now + chrono::Duration::minutes(59),
                "hour {hour}: seat {seat} has until {deadline}, it is {now}"
            );
        }
    }
    assert!(timeouts >= 5, "the absent seats did time out: {timeouts}");
    // Each timeout's notice tells its player which move was made for them.
    let entries = log(&c.app, &id).await;
    let first = entries
        .iter()
        .position(|e| e["type"] == "table.timed_out")
        .unwrap();
    let seat = entries[first]["data"]["seat"].as_u64().unwrap();
    let version = entries[first + 1]["seq"].as_u64().unwrap();
    let told = notice_at(&c.app, &tokens[seat as usize], &id, version).await;
    assert_eq!(told["timed_out"]["then"], "default_move", "{told}");
    assert!(told["timed_out"]["action"]["type"].is_string(), "{told}");
    assert_audits(&c.app, &id).await;
}

async fn a_correspondence_clock_records_no_empty_bank_hour(c: Clocked) {
    let (id, _tokens) = girl_on(&c.app, correspondence(1, "default_move")).await;
    let view = c.app.view(&id, None).await;
    assert_eq!(view["clock"].get("empty_bank_hours"), None);
    let entries = log(&c.app, &id).await;
    let set = entries
        .iter()
        .find(|e| e["type"] == "table.clock_set")
        .unwrap();
    assert_eq!(
        set["data"],
        json!({"control": {"kind": "correspondence", "days": 1}, "on_timeout": "default_move", "vacation": true})
    );
}

async fn two_sweepers_on_one_database_record_a_timeout_once(c: Clocked) {
    let (id, _tokens) = girl_on(&c.app, correspondence(1, "forfeit")).await;
    let (_other, other, _running) = instance(&c.url, c.clock.clone(), false).await;
    c.clock.advance(DAY);
    let (a, b) = tokio::join!(c.service.sweep_clocks(), other.sweep_clocks());
    let total = a.unwrap().timeouts + b.unwrap().timeouts;
    let recorded = log(&c.app, &id)
        .await
        .iter()
        .filter(|e| e["type"] == "table.timed_out")
        .count() as u64;
    assert_eq!((recorded, total), (1, 1), "a forfeit is recorded once");
    // Each timeout in the log was due when recorded: the audit replays every one.
    assert_audits(&c.app, &id).await;
}

async fn an_idle_unclocked_game_is_abandoned_only_when_the_operator_asks(c: Clocked) {
    let (idle, _) = girl_on(
        &c.app,
        json!({"control": {"kind": "none"}, "on_timeout": "forfeit"}),
    )
    .await;
    let (clocked, _) = girl_on(&c.app, correspondence(14, "default_move")).await;
    let (fresh, tokens) = girl_on(&c.app, json!(null)).await;
    assert_eq!(
        c.app.view(&idle, None).await.get("clock"),
        None,
        "`none` is no clock"
    );
    c.clock.advance(31 * DAY);
    // Nothing happens by itself: the sweeper leaves unclocked games alone.
    c.service.sweep_clocks().await.unwrap();
    assert_eq!(c.app.view(&idle, None).await["status"], "active");
    // A move today: that game is not idle.
    let seat = first_to_act(&c.app, &fresh).await as usize;
    let action = a_legal_move(&c.app, &fresh, &tokens[seat]).await;
    assert_eq!(
        c.app.act(&fresh, &tokens[seat], &action).await.0,
        StatusCode::OK
    );

    let listed = c.service.abandon_idle(30 * DAY, true).await.unwrap();
    assert_eq!(
        listed.abandoned,
        vec![idle.parse::<uuid::Uuid>().unwrap()],
        "{listed:?}"
    );
    assert_eq!(
        c.app.view(&idle, None).await["status"],
        "active",
        "a dry run changes nothing"
    );
    let done = c.service.abandon_idle(30 * DAY, false).await.unwrap();
    assert_eq!(done.abandoned, listed.abandoned);
    let view = c.app.view(&idle, None).await;
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["ended_by"], "abandonment");
    assert!(view["result"]["reason"]
        .as_str()
        .unwrap()
        .contains("30 days"));
    for other in [&clocked, &fresh] {
        assert_ne!(
            c.app.view(other, None).await["result"]["ended_by"],
            "abandonment"
        );
    }
    crate::helpers::assert_clean_audit(&c.app, &idle).await;
    let again = c.service.abandon_idle(30 * DAY, false).await.unwrap();
    assert!(again.abandoned.is_empty(), "{again:?}");
}

/// Ann hosts a three-seat GIRL game on `clock` for herself, Bea and Cat, who claim their
/// seats: its id.
async fn girl_for_three(
    app: &TestApp,
    tokens: &[String; 3],
    ids: &[String; 3],
    clock: Value,
) -> String {
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(&tokens[0]),
            &json!({"game": "girl", "clock": clock, "seats": [
                {"kind": "me"},
                {"kind": "account", "account": ids[1]},
                {"kind": "account", "account": ids[2]},
            ]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    let id = hosted["id"].as_str().unwrap().to_string();
    for (seat, token) in tokens.iter().enumerate().skip(1) {
        let res = app
            .request(
                Method::POST,
                &format!("/v1/games/{id}/seats/{seat}/claim"),
                Some(token),
                Some(&json!({})),
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK);
    }
    id
}

/// After a step of play: for every player, the view, the inbox, the stream and the audit
/// say the same about whose move it is and by when.
async fn everyone_agrees(app: &TestApp, id: &str, tokens: &[String; 3]) {
    let view = app.view(id, None).await;
    let version = view["version"].as_u64().unwrap();
    let to_act = view["to_act"].as_array().unwrap().clone();
    for (seat, token) in tokens.iter().enumerate() {
        let (_, inbox) = app.get("/v1/me/games", Some(token)).await;
        let row = inbox["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == json!(id))
            .expect("the game is in the inbox")
            .clone();
        assert_eq!(row["version"], json!(version), "{row}");
        assert_eq!(row["status"], view["status"]);
        let asked = to_act.contains(&json!(seat));
        assert_eq!(row["asked"] == "move", asked, "{row} {view}");
        let deadline = view["clock"]["seats"][seat]["deadline"].clone();
        assert_eq!(
            row["deadline"],
            if asked { deadline } else { Value::Null },
            "{row}"
        );
        // The stream's notice of the last commit carries the same row.
        let notice = notice_at(app, token, id, version).await;
        assert_eq!(notice["row"], row, "seat {seat}");
    }
    assert_audits(app, id).await;
}

/// Every seat the game waits for makes its first legal move.
async fn everyone_owing_moves(app: &TestApp, id: &str, tokens: &[String; 3]) {
    let to_act = app.view(id, None).await["to_act"].clone();
    for seat in to_act.as_array().unwrap() {
        let token = &tokens[seat.as_u64().unwrap() as usize];
        let action = a_legal_move(app, id, token).await;
        let (status, body) = app.act(id, token, &action).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
}

async fn a_week_of_play_across_vacation_timeouts_and_a_resignation(c: Clocked) {
    let mut tokens = Vec::new();
    let mut ids = Vec::new();
    for name in ["Ann", "Bea", "Cat"] {
        let (status, created) = c
            .app
            .post("/v1/accounts", None, &json!({"name": name}))
            .await;
        assert_eq!(status, StatusCode::CREATED);
        tokens.push(created["token"]["secret"].as_str().unwrap().to_string());
        ids.push(created["account"]["id"].as_str().unwrap().to_string());
    }
    let tokens: [String; 3] = tokens.try_into().unwrap();
    let ids: [String; 3] = ids.try_into().unwrap();
    let patient = girl_for_three(&c.app, &tokens, &ids, correspondence(2, "default_move")).await;
    let strict = girl_for_three(&c.app, &tokens, &ids, correspondence(1, "forfeit")).await;
    everyone_agrees(&c.app, &patient, &tokens).await;
    everyone_agrees(&c.app, &strict, &tokens).await;

    // Monday: everyone owing a move in the patient game makes it.
    c.clock.advance(HOUR);
    everyone_owing_moves(&c.app, &patient, &tokens).await;
    everyone_agrees(&c.app, &patient, &tokens).await;

    // Whoever is to act there goes on holiday for three days: the game waits for them.
    let away = first_to_act(&c.app, &patient).await as usize;
    let (status, _) = c
        .app
        .post("/v1/me/vacation", Some(&tokens[away]), &json!({"days": 3}))
        .await;
    assert_eq!(status, StatusCode::OK);
    everyone_agrees(&c.app, &patient, &tokens).await;
    c.clock.advance(2 * DAY);
    c.service.sweep_clocks().await.unwrap();
    let timed_out = |entries: &[Value]| {
        entries
            .iter()
            .any(|e| e["type"] == "table.timed_out" && e["data"]["seat"] == json!(away))
    };
    assert!(
        !timed_out(&log(&c.app, &patient).await),
        "nobody times out on holiday"
    );
    // The strict game allows vacation too, so its clock stood still as well for that seat;
    // whoever else owed a move there has timed out and the game is over.
    let strict_view = c.app.view(&strict, None).await;
    everyone_agrees(&c.app, &strict, &tokens).await;

    // Thursday: back from holiday, the seat's clock runs again, and two days later it has
    // run out: its default move is played for it.
    c.clock.advance(DAY + 2 * DAY);
    c.service.sweep_clocks().await.unwrap();
    assert!(
        timed_out(&log(&c.app, &patient).await),
        "the default move was played"
    );
    everyone_agrees(&c.app, &patient, &tokens).await;
    let strict_view_later = c.app.view(&strict, None).await;
    assert_eq!(strict_view_later["status"], "finished", "{strict_view}");
    assert_eq!(strict_view_later["result"]["ended_by"], "forfeit");
    everyone_agrees(&c.app, &strict, &tokens).await;

    // Sunday: Cat has had enough and resigns from the patient game.
    c.clock.advance(DAY);
    let res = c
        .app
        .request(
            Method::POST,
            &format!("/v1/games/{patient}/resign"),
            Some(&tokens[2]),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let view = c.app.view(&patient, None).await;
    assert_eq!(view["result"]["ended_by"], "resignation");
    assert_eq!(view["result"]["seat"], 2);
    everyone_agrees(&c.app, &patient, &tokens).await;
    crate::helpers::assert_clean_audit(&c.app, &patient).await;
    crate::helpers::assert_clean_audit(&c.app, &strict).await;
}

async fn new_sign_in_code(app: &TestApp, token: &str) -> String {
    let res = app
        .request(Method::POST, "/v1/me/sign-in-codes", Some(token), None)
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    res.json::<Value>().await.unwrap()["code"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn signs_in(app: &TestApp, code: &str) -> StatusCode {
    app.request(
        Method::POST,
        "/v1/accounts/sign-in",
        None,
        Some(&json!({"code": code, "token_name": "laptop"})),
    )
    .await
    .status()
}

async fn a_sign_in_code_works_for_ten_minutes_and_no_longer(c: Clocked) {
    let phone = account(&c.app, "Ann").await;
    let in_time = new_sign_in_code(&c.app, &phone).await;
    let too_late = new_sign_in_code(&c.app, &phone).await;
    c.clock.advance(Duration::from_secs(10 * 60 - 1));
    assert_eq!(signs_in(&c.app, &in_time).await, StatusCode::CREATED);
    c.clock.advance(Duration::from_secs(1));
    assert_eq!(signs_in(&c.app, &too_late).await, StatusCode::UNAUTHORIZED);
}

macro_rules! clocked_on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::clocked(crate::helpers::Backend::Sqlite).await).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::clocked(crate::helpers::Backend::Postgres).await).await;
                }
            )*
        }
    };
}

clocked_on_both_backends!(
    a_clocked_game_shows_every_deadline_in_the_view_and_the_inbox,
    a_reminder_is_recorded_once_at_eighty_percent_and_only_its_player_is_told,
    a_move_after_the_deadline_is_refused_and_the_default_move_is_played_for_the_seat,
    under_forfeit_the_seat_out_of_time_loses_with_its_concession,
    under_bot_a_steady_bot_plays_the_seat_that_ran_out_until_its_player_takes_it_back,
    a_clock_that_cannot_be_kept_is_refused_with_a_clear_problem,
    a_bank_clock_charges_the_time_used_and_credits_the_increment,
    a_vacation_stops_the_clock_in_every_game_and_an_early_return_restarts_it,
    a_game_whose_host_disallows_vacation_keeps_its_clock_running,
    a_deadline_that_passed_while_no_server_ran_is_applied_by_the_next_leader,
    two_sweepers_on_one_database_record_a_timeout_once,
    a_clocked_game_whose_note_was_lost_is_found_by_the_next_leader_from_its_log,
    a_takeover_notes_again_when_a_game_whose_note_was_lost_next_needs_a_look,
    a_sweep_drops_only_the_note_it_read_never_one_written_since,
    clocked_games_created_at_once_beside_every_tick_of_the_sweeper_and_a_leader_change_all_time_out,
    an_empty_bank_with_no_increment_gives_each_move_an_hour_so_absent_seats_are_not_played_out_at_once,
    a_correspondence_clock_records_no_empty_bank_hour,
    an_idle_unclocked_game_is_abandoned_only_when_the_operator_asks,
    a_week_of_play_across_vacation_timeouts_and_a_resignation,
    a_sign_in_code_works_for_ten_minutes_and_no_longer,
);

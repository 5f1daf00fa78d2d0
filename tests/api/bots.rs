//! Bots in seats, through the API: games of every kind played to the end by one person and
//! bots, seats handed over and taken back, a host filling an empty seat, and two instances
//! sharing the bots of one database.

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::new_account as account;
use crate::helpers::{assert_clean_audit, assert_problem, TestApp};
use crate::on_both_backends;

/// A game of `game` with a person in seat 0 and `bots[i]` in seat `i + 1`: its id and the
/// seats' tokens (a bot's seat has one too).
async fn with_bots(
    app: &TestApp,
    game: &str,
    options: Value,
    bots: &[&str],
) -> (String, Vec<String>) {
    let mut players = vec![json!({"name": "Ann"})];
    players.extend(bots.iter().map(|level| json!({"bot": level})));
    let (status, created) = app
        .post(
            "/v1/games",
            None,
            &json!({"game": game, "players": players, "options": options}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    for (i, level) in bots.iter().enumerate() {
        assert_eq!(created["seats"][i + 1]["bot"], json!(level), "{created}");
    }
    assert!(created["seats"][0].get("bot").is_none(), "{created}");
    let tokens = created["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_string())
        .collect();
    (created["id"].as_str().unwrap().to_string(), tokens)
}

/// The game as `token` sees it once its version is past `known` (a long-poll).
async fn after(app: &TestApp, id: &str, token: &str, known: u64) -> Value {
    let res = app
        .client
        .get(format!("{}/v1/games/{id}?wait=30", app.address))
        .bearer_auth(token)
        .header("If-None-Match", format!("\"{known}\""))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "nothing happened in 30 s after version {known}: a bot did not move"
    );
    res.json().await.unwrap()
}

/// Plays random legal moves for seat 0 whenever it is its turn, waiting for the bots
/// otherwise, until the game ends: the number of the person's moves. Like `random`, it does
/// not declare while it may do anything else: a GOOGLY captain who declares at once can end
/// the match before a seat that only strikes is ever asked to move, and then that seat's bot
/// has nothing to show it played.
async fn play_seat_zero_to_the_end(app: &TestApp, id: &str, token: &str, seed: u64) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut view = app.view(id, Some(token)).await;
    let mut moves = 0;
    for _ in 0..20_000 {
        if view["status"] == "finished" {
            return moves;
        }
        let version = view["version"].as_u64().unwrap();
        let legal = view["legal_actions"].as_array().unwrap();
        if legal.is_empty() {
            view = after(app, id, token, version).await;
            continue;
        }
        let patient: Vec<&Value> = legal.iter().filter(|a| a["type"] != "declare").collect();
        let choices: Vec<&Value> = if patient.is_empty() {
            legal.iter().collect()
        } else {
            patient
        };
        let template = choices[rand_core::RngCore::next_u32(&mut rng) as usize % choices.len()];
        let action = parlour_domain::playout::instantiate(template, &mut rng);
        let (status, answer) = app.act(id, token, &action).await;
        match status {
            StatusCode::OK => {
                moves += 1;
                view = answer;
            }
            // A bot moved in between and the move no longer fits: look again.
            StatusCode::CONFLICT | StatusCode::UNPROCESSABLE_ENTITY => {
                view = app.view(id, Some(token)).await;
            }
            other => panic!("{other}: {answer}"),
        }
    }
    panic!("the game did not end");
}

/// The audit of a game still being played: the chain holds and the replay matches.
async fn assert_audits(app: &TestApp, id: &str) {
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
}

/// Every seat's moves in the log, once it is public.
fn moves_by(log: &[Value], seat: u64) -> usize {
    log.iter()
        .filter(|e| e["actor"] == json!(seat) && e.get("command").is_some())
        .count()
}

async fn a_game_of_each_kind_with_bots_in_every_seat_but_one_plays_to_the_end(app: TestApp) {
    for (i, (game, options, bots)) in [
        ("girl", json!({}), vec!["steady", "random"]),
        ("car", json!({}), vec!["steady", "steady", "random"]),
        ("british-birds", json!({}), vec!["steady", "random"]),
        ("history-of-england", json!({}), vec!["steady", "steady"]),
        (
            "history-of-england",
            json!({"series": 2}),
            vec!["random", "steady"],
        ),
        (
            "history-of-england",
            json!({"series": 3}),
            vec!["steady", "expert"],
        ),
        ("googly", json!({}), vec!["steady"]),
        ("googly", json!({}), vec!["random", "steady", "random"]),
    ]
    .into_iter()
    .enumerate()
    {
        let (id, tokens) = with_bots(&app, game, options, &bots).await;
        play_seat_zero_to_the_end(&app, &id, &tokens[0], i as u64).await;
        let view = app.view(&id, None).await;
        assert_eq!(view["status"], "finished", "{game}");
        for (seat, level) in bots.iter().enumerate() {
            assert_eq!(
                view["seats"][seat + 1]["bot"],
                json!(level),
                "{game}: {view}"
            );
        }
        let log = app.all_events(&id, None).await;
        for (seat, level) in bots.iter().enumerate() {
            let seat = seat as u64 + 1;
            assert!(
                log.iter().any(|e| e["type"] == "table.bot_seated"
                    && e["data"] == json!({"seat": seat, "level": level})),
                "{game}: the log says which bot plays seat {seat}"
            );
            assert!(
                moves_by(&log, seat) > 0,
                "{game}: the bot in seat {seat} moved: {}",
                serde_json::to_string(&log).unwrap()
            );
        }
        assert_clean_audit(&app, &id).await;
        // The independent verifier knows who plays each seat too.
        let (ok, text) = crate::verify::run_verifier(vec![app.address.clone(), id.clone()]).await;
        assert!(ok && text.contains("\nVERIFIED"), "{game}: {text}");
    }
}

async fn a_player_hands_their_seat_to_a_bot_cannot_move_in_it_and_takes_it_back(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let path = format!("/v1/games/{id}/seats/1/bot");
    let hand_over = |token: Option<String>, body: Value| {
        let app = &app;
        let path = path.clone();
        async move {
            app.request(Method::PUT, &path, token.as_deref(), Some(&body))
                .await
        }
    };
    // Only the seat's player may hand it over.
    assert_problem(
        hand_over(Some(tokens[0].clone()), json!({"level": "steady"})).await,
        StatusCode::FORBIDDEN,
        "not-your-seat",
    )
    .await;
    assert_problem(
        hand_over(None, json!({"level": "steady"})).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_problem(
        hand_over(Some(tokens[1].clone()), json!({"level": "grandmaster"})).await,
        StatusCode::BAD_REQUEST,
        "malformed-request",
    )
    .await;
    let before = app.view(&id, None).await["version"].as_u64().unwrap();
    assert_eq!(
        app.view(&id, None).await["version"].as_u64().unwrap(),
        before,
        "nothing refused was recorded"
    );
    let res = hand_over(Some(tokens[1].clone()), json!({"level": "steady"})).await;
    assert_eq!(res.status(), StatusCode::OK);
    let mine: Value = res.json().await.unwrap();
    assert_eq!(mine["seats"][1]["bot"], "steady", "{mine}");
    assert_eq!(
        mine["legal_actions"],
        json!([]),
        "the seat's moves are the bot's"
    );
    assert_problem(
        hand_over(Some(tokens[1].clone()), json!({"level": "random"})).await,
        StatusCode::CONFLICT,
        "bot-seat",
    )
    .await;
    // Its player's own move is refused, whatever it is, while the bot plays the seat.
    let (status, refused) = app.act(&id, &tokens[1], &json!({"type": "turn_up"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["type"], "/problems/bot-seat", "{refused}");

    // Seat 0 plays on; the bot answers for seat 1 whenever the game waits for it.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut view = app.view(&id, Some(&tokens[0])).await;
    for _ in 0..6 {
        if view["status"] == "finished" {
            break;
        }
        let version = view["version"].as_u64().unwrap();
        match view["legal_actions"].as_array().unwrap().first() {
            Some(template) => {
                let action = parlour_domain::playout::instantiate(template, &mut rng);
                let (status, answer) = app.act(&id, &tokens[0], &action).await;
                assert_eq!(status, StatusCode::OK, "{answer}");
                view = answer;
            }
            None => view = after(&app, &id, &tokens[0], version).await,
        }
    }
    let log = app.all_events(&id, Some(&tokens[0])).await;
    assert!(
        log.iter()
            .any(|e| e["actor"] == json!(1) && e["type"] != "table.bot_seated"),
        "the bot moved for seat 1"
    );

    // Taken back: the seat's moves are its player's again.
    let res = app
        .request(Method::DELETE, &path, Some(&tokens[0]), None)
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-your-seat").await;
    let res = app
        .request(Method::DELETE, &path, Some(&tokens[1]), None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let back: Value = res.json().await.unwrap();
    assert!(back["seats"][1].get("bot").is_none(), "{back}");
    let res = app
        .request(Method::DELETE, &path, Some(&tokens[1]), None)
        .await;
    assert_problem(res, StatusCode::CONFLICT, "bot-seat").await;
    let log = app.all_events(&id, Some(&tokens[1])).await;
    assert_eq!(
        log.iter().filter(|e| e["type"] == "table.bot_left").count(),
        1
    );
    assert_audits(&app, &id).await;
}

async fn a_host_seats_a_bot_at_creation_or_in_an_empty_seat_and_the_game_begins(app: TestApp) {
    let ann = account(&app, "Ann").await;
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(&ann),
            &json!({"game": "british-birds", "seats": [{"kind": "me"}, {"kind": "bot", "level": "steady"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    assert_eq!(hosted["status"], "active", "a bot fills its seat: {hosted}");
    assert_eq!(hosted["seats"][1]["bot"], "steady", "{hosted}");
    let id = hosted["id"].as_str().unwrap();
    let view = app.view(id, Some(&ann)).await;
    assert_eq!(view["seats"][1]["name"], "Steady bot", "{view}");
    assert_eq!(view["seating"]["seats"][1]["bot"], "steady", "{view}");
    // It has been a bot's from the start: there is nobody to hand it back to.
    let res = app
        .request(
            Method::DELETE,
            &format!("/v1/games/{id}/seats/1/bot"),
            Some(&ann),
            None,
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "not-your-seat").await;

    // A seat left open is the host's to fill with a bot, and nobody else's.
    let bea = account(&app, "Bea").await;
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(&ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}, {"kind": "invitation"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    let id = hosted["id"].as_str().unwrap();
    let fill = |token: String, seat: u8| {
        let app = &app;
        async move {
            app.request(
                Method::PUT,
                &format!("/v1/games/{id}/seats/{seat}/bot"),
                Some(&token),
                Some(&json!({"level": "random"})),
            )
            .await
        }
    };
    assert_problem(
        fill(bea.clone(), 1).await,
        StatusCode::FORBIDDEN,
        "not-host",
    )
    .await;
    assert_eq!(fill(ann.clone(), 1).await.status(), StatusCode::OK);
    assert_eq!(
        app.view(id, None).await["status"],
        "waiting",
        "seat 2 is still open"
    );
    assert_eq!(fill(ann.clone(), 2).await.status(), StatusCode::OK);
    let view = app.view(id, None).await;
    assert_eq!(view["status"], "active", "{view}");
    assert_eq!(
        view["seating"]["seats"][2]["open_to"],
        Value::Null,
        "no longer offered"
    );
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/seats/1/claim"),
            Some(&bea),
            Some(&json!({})),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "seat-taken").await;
    assert_audits(&app, id).await;
}

/// Two servers on one database both work the bots' messages: every bot move is made once
/// (each is appended at the version it was decided from), and the game ends.
async fn two_instances_on_one_database_play_a_tables_bots_once_each_turn(app_a: TestApp) {
    let app_b = app_a.restart().await;
    let (id, tokens) = with_bots(&app_a, "car", json!({}), &["steady", "random", "steady"]).await;
    // The person moves through each instance in turn.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut view = app_b.view(&id, Some(&tokens[0])).await;
    for turn in 0..20_000 {
        if view["status"] == "finished" {
            break;
        }
        let app = if turn % 2 == 0 { &app_a } else { &app_b };
        let version = view["version"].as_u64().unwrap();
        match view["legal_actions"].as_array().unwrap().first() {
            Some(template) => {
                let action = parlour_domain::playout::instantiate(template, &mut rng);
                let (status, answer) = app.act(&id, &tokens[0], &action).await;
                view = match status {
                    StatusCode::OK => answer,
                    _ => app.view(&id, Some(&tokens[0])).await,
                };
            }
            None => view = after(app, &id, &tokens[0], version).await,
        }
    }
    assert_eq!(view["status"], "finished");
    let log = app_a.all_events(&id, None).await;
    let seqs: Vec<u64> = log.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    for seat in 1..4 {
        assert!(moves_by(&log, seat) > 0, "seat {seat}'s bot moved");
    }
    assert_clean_audit(&app_a, &id).await;
    assert_clean_audit(&app_b, &id).await;
}

async fn a_person_needs_a_name_and_a_bot_does_not(app: TestApp) {
    let res = app
        .request(
            Method::POST,
            "/v1/games",
            None,
            Some(&json!({"game": "girl", "players": [{"name": "Ann"}, {}]})),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid-setup").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("players[1].name"),
        "{problem}"
    );
    let (status, created) = app
        .post(
            "/v1/games",
            None,
            &json!({"game": "girl", "players": [{"name": "Ann"}, {"bot": "expert"}, {"name": "Robin", "bot": "random"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["seats"][1]["name"], "Expert bot");
    assert_eq!(created["seats"][2]["name"], "Robin");
    assert_eq!(created["seats"][2]["bot"], "random");
}

/// How long a bot thought depends on its hand; its moves wait out the pace, so each comes at
/// least that long after the bot was given its turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_moves_wait_out_the_pace_however_quickly_it_thought() {
    let (url, guard) = crate::helpers::fresh_database(crate::helpers::Backend::Sqlite).await;
    let pace = std::time::Duration::from_millis(300);
    let settings = parlour::startup::Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        bot_pace: pace,
        ..parlour::startup::Settings::default()
    };
    let app = crate::helpers::spawn_app_with(&url, guard, settings).await;
    let (status, created) = app
        .post(
            "/v1/games",
            None,
            &json!({"game": "girl", "players": [{"bot": "random"}, {"bot": "random"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap();
    let mut version = created["version"].as_u64().unwrap();
    let opening = version;
    while version < opening + 4 {
        let res = app
            .client
            .get(format!("{}/v1/games/{id}?wait=30", app.address))
            .header("If-None-Match", format!("\"{version}\""))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "the bots stopped");
        version = res.json::<Value>().await.unwrap()["version"]
            .as_u64()
            .unwrap();
    }
    let log = app.all_events(id, None).await;
    // Every commit's entries share its time; every commit after the opening one is a bot's move.
    let mut commits: Vec<chrono::DateTime<chrono::FixedOffset>> = log
        .iter()
        .map(|e| chrono::DateTime::parse_from_rfc3339(e["at"].as_str().unwrap()).unwrap())
        .collect();
    commits.dedup();
    let mut counted = 0;
    for pair in commits.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= chrono::Duration::from_std(pace).unwrap(),
            "a bot moved {gap} after the commit before it"
        );
        counted += 1;
    }
    assert!(counted >= 2, "{log:?}");
}

/// Busy threads, one per core, until dropped: a loaded machine, made by the test itself.
struct LoadedCpu {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl LoadedCpu {
    fn start() -> LoadedCpu {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let threads = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        for _ in 0..10_000 {
                            x = std::hint::black_box(x.wrapping_mul(6364136223846793005) ^ 1);
                        }
                    }
                })
            })
            .collect();
        LoadedCpu { stop, threads }
    }
}

impl Drop for LoadedCpu {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// The attack: an expert's search ran past the pace whenever the machine was busy, for as long
/// as its hand took to weigh, and its move's public `at` showed it. Now the search stops
/// half-way through the pace and the move is recorded exactly the pace after the entry it
/// answers: on a machine the test loads itself, in a test build, every expert move of a History of England table comes exactly the pace after the
/// move before, whatever each bot held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expert_bots_moves_come_the_pace_after_the_move_before_whatever_they_hold_on_a_loaded_machine(
) {
    let (url, guard) = crate::helpers::fresh_database(crate::helpers::Backend::Sqlite).await;
    let pace = std::time::Duration::from_secs(2);
    let settings = parlour::startup::Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        bot_pace: pace,
        ..parlour::startup::Settings::default()
    };
    let app = crate::helpers::spawn_app_with(&url, guard, settings).await;
    let load = LoadedCpu::start();
    let (status, created) = app
        .post(
            "/v1/games",
            None,
            &json!({"game": "history-of-england",
                    "players": [{"bot": "expert"}, {"bot": "expert"}, {"bot": "expert"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap();
    let mut version = created["version"].as_u64().unwrap();
    let mut commits = 0;
    while commits < 5 {
        let res = app
            .client
            .get(format!("{}/v1/games/{id}?wait=30", app.address))
            .header("If-None-Match", format!("\"{version}\""))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "the bots stopped");
        let view = res.json::<Value>().await.unwrap();
        version = view["version"].as_u64().unwrap();
        commits += 1;
        if view["status"] == "finished" {
            break;
        }
    }
    drop(load);
    let log = app.all_events(id, None).await;
    // Every commit's entries share its time; every commit after the opening one is a bot's move.
    let mut times: Vec<chrono::DateTime<chrono::FixedOffset>> = log
        .iter()
        .map(|e| chrono::DateTime::parse_from_rfc3339(e["at"].as_str().unwrap()).unwrap())
        .collect();
    times.dedup();
    let gaps: Vec<chrono::Duration> = times.windows(2).map(|pair| pair[1] - pair[0]).collect();
    assert!(gaps.len() >= 3, "{log:?}");
    let paced = chrono::Duration::from_std(pace).unwrap();
    assert!(
        gaps.iter().all(|gap| *gap == paced),
        "each move comes the pace ({paced}) after the one before: {gaps:?}"
    );
}

on_both_backends!(
    a_person_needs_a_name_and_a_bot_does_not,
    a_game_of_each_kind_with_bots_in_every_seat_but_one_plays_to_the_end,
    a_player_hands_their_seat_to_a_bot_cannot_move_in_it_and_takes_it_back,
    a_host_seats_a_bot_at_creation_or_in_an_empty_seat_and_the_game_begins,
    two_instances_on_one_database_play_a_tables_bots_once_each_turn,
);

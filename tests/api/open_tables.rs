//! Open tables (`GET /v1/tables`, `POST /v1/games/{id}/join`): a host lists a table for
//! strangers; anyone finds it, filtered by game, seats and clock, newest first and paged; a
//! stranger joins it in one request, as a claim of its first open seat; two joins at once on
//! two instances take two seats; a table leaves the list when it fills, is aborted or its
//! listing's hours pass (its links still work), and the purge forgets the ended listings; a
//! listing that could list nothing is refused and stores nothing; and the list shows nothing
//! of a table's hidden deal.

use std::sync::Arc;
use std::time::Duration;

use parlour::service::{ManualClock, Parlour};
use parlour::startup::Settings;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{assert_problem, fresh_database, serve_with_clock, Backend, Guard, TestApp};
use crate::table_events::verify_file as verifies;
use crate::verify::python_present;

const HOUR: Duration = Duration::from_secs(3600);

/// A server whose time is `clock`, and its service (to purge on demand).
struct Lobby {
    app: TestApp,
    service: Arc<Parlour>,
    clock: Arc<ManualClock>,
    url: String,
    _running: tokio::task::JoinHandle<std::io::Result<()>>,
    _guard: Guard,
}

async fn instance(
    url: &str,
    clock: Arc<ManualClock>,
) -> (
    TestApp,
    Arc<Parlour>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let settings = Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        ..Settings::default()
    };
    serve_with_clock(url, clock, settings).await
}

async fn lobby(backend: Backend) -> Lobby {
    let (url, guard) = fresh_database(backend).await;
    let clock = Arc::new(ManualClock::at(chrono::Utc::now()));
    let (app, service, running) = instance(&url, clock.clone()).await;
    Lobby {
        app,
        service,
        clock,
        url,
        _running: running,
        _guard: guard,
    }
}

/// The audit of a game still waiting or in play: its chain holds and every entry replays.
async fn assert_audits(app: &TestApp, id: &str) {
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
}

/// A new account's token.
async fn account(app: &TestApp, name: &str) -> String {
    let (status, created) = app.post("/v1/accounts", None, &json!({"name": name})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["token"]["secret"].as_str().unwrap().to_string()
}

/// Hosts `body` (`game` and `seats` at least) with `token`: the answer.
async fn host(app: &TestApp, token: &str, body: Value) -> Value {
    let (status, hosted) = app.post("/v1/me/games", Some(token), &body).await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    hosted
}

/// Hosts a listed GIRL table of `seats` seats, the host in seat 0 and every other seat open
/// to anyone, with `extra` fields: its id.
async fn listed(app: &TestApp, token: &str, seats: usize, extra: Value) -> String {
    let mut plan = vec![json!({"kind": "me"})];
    plan.resize(seats, json!({"kind": "anyone"}));
    let mut body = json!({"game": "girl", "seats": plan, "listing": {"hours": 24}});
    for (name, value) in extra.as_object().unwrap() {
        body[name] = value.clone();
    }
    host(app, token, body).await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The open tables `query` asks for: the page.
async fn tables(app: &TestApp, query: &str) -> Value {
    let (status, page) = app.get(&format!("/v1/tables{query}"), None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page
}

fn table_ids(page: &Value) -> Vec<String> {
    page["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|table| table["id"].as_str().unwrap().to_string())
        .collect()
}

async fn join(app: &TestApp, token: &str, id: &str) -> reqwest::Response {
    app.request(
        Method::POST,
        &format!("/v1/games/{id}/join"),
        Some(token),
        None,
    )
    .await
}

async fn a_stranger_finds_a_listed_table_and_joins_it_in_one_request(lobby: Lobby) {
    let app = &lobby.app;
    let ann = account(app, "Ann").await;
    let bea = account(app, "Bea").await;
    let id = listed(app, &ann, 2, json!({})).await;
    // A table found only through its links is not listed.
    let unlisted = host(
        app,
        &ann,
        json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]}),
    )
    .await;
    assert!(unlisted.get("listed_until").is_none(), "{unlisted}");

    let page = tables(app, "").await;
    assert_eq!(table_ids(&page), vec![id.clone()], "{page}");
    assert_eq!(page["next"], Value::Null);
    let table = &page["tables"][0];
    assert_eq!(table["game"], "girl");
    assert_eq!(table["name"], "GIRL");
    assert_eq!(table["players"], 2);
    assert_eq!(table["open_seats"], json!([1]));
    assert_eq!(table["seating"]["host"]["name"], "Ann");
    assert_eq!(table["seating"]["seats"][1]["open_to"]["kind"], "anyone");
    assert_eq!(table["clock"], json!({"kind": "none"}));
    assert_eq!(table["href"], format!("/v1/games/{id}"));
    let until =
        chrono::DateTime::parse_from_rfc3339(table["listed_until"].as_str().unwrap()).unwrap();
    let made = chrono::DateTime::parse_from_rfc3339(table["created_at"].as_str().unwrap()).unwrap();
    assert_eq!(until - made, chrono::Duration::hours(24));
    // The table's own view says it is listed, and the log says since when and until when.
    let view = app.view(&id, None).await;
    assert_eq!(view["seating"]["listed_until"], table["listed_until"]);
    let events = app.all_events(&id, None).await;
    let listing = events
        .iter()
        .find(|event| event["type"] == "table.listed")
        .expect("a table.listed entry");
    assert!(listing["data"]["until"].is_i64(), "{listing}");

    let res = join(app, &bea, &id).await;
    assert_eq!(res.status(), StatusCode::OK);
    let seated: Value = res.json().await.unwrap();
    assert_eq!(seated["you"]["seat"], 1, "{seated}");
    assert_eq!(seated["status"], "active");
    // Full, it has left the list.
    assert_eq!(table_ids(&tables(app, "").await), Vec::<String>::new());
    assert_audits(app, &id).await;

    // Finished, it verifies independently, and a log listing its table twice does not.
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/resign"),
            Some(&bea),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    crate::helpers::assert_clean_audit(app, &id).await;
    if python_present() {
        let (ok, report) = verifies(app, &id, |_| {}).await;
        assert!(ok, "{report}");
        let (ok, report) = verifies(app, &id, |file| {
            let events = file["events"].as_array_mut().unwrap();
            let listed = events
                .iter()
                .position(|e| e["type"] == "table.listed")
                .unwrap();
            let seated = events
                .iter()
                .position(|e| e["type"] == "table.seated")
                .unwrap();
            events[seated]["type"] = json!("table.listed");
            events[seated]["data"] = events[listed]["data"].clone();
        })
        .await;
        assert!(!ok, "a table listed twice must fail: {report}");
    }
}

async fn the_list_filters_by_game_seats_and_clock_and_pages_newest_first(lobby: Lobby) {
    let app = &lobby.app;
    let ann = account(app, "Ann").await;
    let two = listed(app, &ann, 2, json!({})).await;
    let three = listed(app, &ann, 3, json!({})).await;
    let clocked = listed(
        app,
        &ann,
        2,
        json!({"clock": {"control": {"kind": "correspondence", "days": 3}, "on_timeout": "default_move"}}),
    )
    .await;
    let birds = host(
        app,
        &ann,
        json!({"game": "british-birds", "seats": [{"kind": "me"}, {"kind": "anyone"}],
               "listing": {"hours": 2}}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string();

    let everything = table_ids(&tables(app, "").await);
    assert_eq!(
        everything,
        vec![birds.clone(), clocked.clone(), three.clone(), two.clone()]
    );
    assert_eq!(
        table_ids(&tables(app, "?game=girl").await),
        vec![clocked.clone(), three.clone(), two.clone()]
    );
    assert_eq!(
        table_ids(&tables(app, "?players=3").await),
        vec![three.clone()]
    );
    assert_eq!(
        table_ids(&tables(app, "?clock=correspondence").await),
        vec![clocked.clone()]
    );
    assert_eq!(
        table_ids(&tables(app, "?game=girl&players=2&clock=none").await),
        vec![two.clone()]
    );
    assert_eq!(
        table_ids(&tables(app, "?game=history-of-england").await),
        Vec::<String>::new()
    );

    // Two at a time: the next page goes on where the first stopped, by `next` and by `Link`.
    let res = app
        .request(Method::GET, "/v1/tables?limit=2", None, None)
        .await;
    let link = res.headers()["link"].to_str().unwrap().to_string();
    let first: Value = res.json().await.unwrap();
    assert_eq!(table_ids(&first), vec![birds, clocked]);
    let next = first["next"].as_str().unwrap();
    assert!(link.contains(&format!("cursor={next}")), "{link}");
    assert!(link.contains("limit=2"), "{link}");
    let second = tables(app, &format!("?limit=2&cursor={next}")).await;
    assert_eq!(table_ids(&second), vec![three, two]);
    let last = tables(
        app,
        &format!("?limit=2&cursor={}", second["next"].as_str().unwrap()),
    )
    .await;
    assert_eq!(table_ids(&last), Vec::<String>::new());
    assert_eq!(last["next"], Value::Null);
}

async fn a_table_leaves_the_list_when_its_hours_pass_or_it_is_aborted_and_its_links_still_work(
    lobby: Lobby,
) {
    let app = &lobby.app;
    let ann = account(app, "Ann").await;
    let bea = account(app, "Bea").await;
    let brief = host(
        app,
        &ann,
        json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
               "listing": {"hours": 1}}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let long = listed(app, &ann, 2, json!({})).await;
    let aborted = listed(app, &ann, 2, json!({})).await;
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{aborted}/abort"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        table_ids(&tables(app, "").await),
        vec![long.clone(), brief.clone()]
    );

    // Nothing has ended yet: the purge forgets nothing.
    assert_eq!(
        lobby.service.housekeeping().purge().await.unwrap().listings,
        0
    );
    lobby.clock.advance(HOUR);
    assert_eq!(
        lobby.service.housekeeping().purge().await.unwrap().listings,
        1
    );
    assert_eq!(table_ids(&tables(app, "").await), vec![long]);
    // Unlisted is not closed: whoever has its link still joins.
    let res = join(app, &bea, &brief).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_audits(app, &brief).await;
}

async fn two_strangers_joining_at_once_on_two_instances_take_two_seats(lobby: Lobby) {
    let other = instance(&lobby.url, lobby.clock.clone()).await.0;
    let app = &lobby.app;
    let ann = account(app, "Ann").await;
    for round in 0..3 {
        let bea = account(app, &format!("Bea {round}")).await;
        let cat = account(app, &format!("Cat {round}")).await;
        let dan = account(app, &format!("Dan {round}")).await;
        let id = listed(app, &ann, 3, json!({})).await;
        let (first, second) = tokio::join!(join(app, &bea, &id), join(&other, &cat, &id));
        assert_eq!(first.status(), StatusCode::OK);
        assert_eq!(second.status(), StatusCode::OK);
        let first: Value = first.json().await.unwrap();
        let second: Value = second.json().await.unwrap();
        let mut seats = [first["you"]["seat"].clone(), second["you"]["seat"].clone()];
        seats.sort_by_key(|seat| seat.as_u64());
        assert_eq!(seats, [json!(1), json!(2)]);
        // Nothing is left to join: full, the game has begun.
        assert_problem(
            join(app, &dan, &id).await,
            StatusCode::CONFLICT,
            "seating-closed",
        )
        .await;
        assert_audits(app, &id).await;
    }
}

async fn a_listing_that_could_list_nothing_is_refused_and_stores_nothing(lobby: Lobby) {
    let app = &lobby.app;
    let ann = account(app, "Ann").await;
    let refused = |body: Value| {
        let ann = ann.clone();
        async move {
            app.request(Method::POST, "/v1/me/games", Some(&ann), Some(&body))
                .await
        }
    };
    let invited = json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "invitation"}],
                         "listing": {"hours": 24}});
    assert_problem(
        refused(invited).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-setup",
    )
    .await;
    for hours in [json!(0), json!(169), json!(1.5), json!("24")] {
        let body = json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
                          "listing": {"hours": hours}});
        let res = refused(body).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "hours {hours}");
    }
    let (_, inbox) = app.get("/v1/me/games", Some(&ann)).await;
    assert_eq!(inbox["games"], json!([]), "{inbox}");
    assert_eq!(table_ids(&tables(app, "").await), Vec::<String>::new());

    for query in [
        "?players=0",
        "?players=9",
        "?clock=hourglass",
        "?game=GIRL",
        "?cursor=somewhere",
        "?limit=0",
        "?limit=101",
        "?colour=red",
    ] {
        let res = app
            .request(Method::GET, &format!("/v1/tables{query}"), None, None)
            .await;
        assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    }
    // Joining what cannot be joined: a game whose seats hold tokens, one that has begun, one
    // whose every empty seat is by invitation, no game, no account.
    let invited = host(
        app,
        &ann,
        json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "invitation"}]}),
    )
    .await;
    let bea = account(app, "Bea").await;
    let invited = invited["id"].as_str().unwrap();
    assert_problem(
        join(app, &bea, invited).await,
        StatusCode::CONFLICT,
        "seat-taken",
    )
    .await;
    let begun = listed(app, &ann, 2, json!({})).await;
    assert_eq!(join(app, &bea, &begun).await.status(), StatusCode::OK);
    let cat = account(app, "Cat").await;
    assert_problem(
        join(app, &cat, &begun).await,
        StatusCode::CONFLICT,
        "seating-closed",
    )
    .await;
    let (id, _) = app.create_game("girl", 2, None, json!({})).await;
    let id = id.as_str();
    assert_problem(
        join(app, &ann, id).await,
        StatusCode::CONFLICT,
        "seating-closed",
    )
    .await;
    let nowhere = uuid::Uuid::now_v7();
    assert_problem(
        join(app, &ann, &nowhere.to_string()).await,
        StatusCode::NOT_FOUND,
        "game-not-found",
    )
    .await;
    let res = app
        .request(Method::POST, &format!("/v1/games/{id}/join"), None, None)
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

async fn the_list_shows_nothing_of_a_tables_hidden_deal(lobby: Lobby) {
    let app = &lobby.app;
    let ann = account(app, "Ann").await;
    let seeds = ["11".repeat(32), "22".repeat(32)];
    let mut seen = Vec::new();
    for seed in &seeds {
        listed(app, &ann, 2, json!({"seed": seed})).await;
        let mut table = tables(app, "?limit=1").await["tables"][0].clone();
        for varies in ["id", "href", "created_at", "listed_until"] {
            table.as_object_mut().unwrap().remove(varies);
        }
        seen.push(table.to_string());
    }
    // Two tables differing only in their deal look alike, to the byte.
    assert_eq!(seen[0], seen[1]);
}

macro_rules! lobby_on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::lobby(crate::helpers::Backend::Sqlite).await).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::lobby(crate::helpers::Backend::Postgres).await).await;
                }
            )*
        }
    };
}

lobby_on_both_backends!(
    a_stranger_finds_a_listed_table_and_joins_it_in_one_request,
    the_list_filters_by_game_seats_and_clock_and_pages_newest_first,
    a_table_leaves_the_list_when_its_hours_pass_or_it_is_aborted_and_its_links_still_work,
    two_strangers_joining_at_once_on_two_instances_take_two_seats,
    a_listing_that_could_list_nothing_is_refused_and_stores_nothing,
    the_list_shows_nothing_of_a_tables_hidden_deal,
);

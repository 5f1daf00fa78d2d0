//! Stream tickets (issue 39): a browser's `EventSource` cannot send `Authorization`, so a
//! client trades its token for a ticket that opens one stream, once, within a minute, as that
//! token. These tests hold a ticket to each of those words: it opens only its stream, only
//! once (also across two instances racing for it), only for a minute, only while its token is
//! live, and what it opens ends when the token is revoked. `logs.rs` shows it never reaches a
//! log; `web/tests/oauth.test.mjs` has an app on another origin follow a game with one in a
//! real `EventSource`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::{Response, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{
    assert_problem, fresh_database, serve_with_clock, spawn_app_with, Backend, TestApp,
};
use crate::on_both_backends;
use crate::revocation::{
    a_table, read_to_the_end, read_until, revoke_the_phone, someone_moves, WITHIN,
};

/// `token` asks for a ticket to `stream` (`/v1/games/{id}/stream` or `/v1/me/stream`): the
/// answer's status and body.
async fn ask(app: &TestApp, stream: &str, token: Option<&str>) -> (StatusCode, Value) {
    app.post(&format!("{stream}/tickets"), token, &json!({}))
        .await
}

/// A ticket for `stream`, asked for with `token`.
async fn ticket(app: &TestApp, stream: &str, token: &str) -> String {
    let (status, answer) = ask(app, stream, Some(token)).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let ticket = answer["ticket"].as_str().unwrap().to_string();
    assert!(ticket.starts_with("stkt_"), "{answer}");
    assert_eq!(answer["url"], format!("{stream}?ticket={ticket}"));
    ticket
}

/// Opens `stream` with `ticket` and no `Authorization`, as an `EventSource` does.
async fn open_with(app: &TestApp, stream: &str, ticket: &str) -> Response {
    app.client
        .get(format!("{}{stream}?ticket={ticket}", app.address))
        .header("Accept", "text/event-stream")
        .send()
        .await
        .unwrap()
}

/// The data of the first `view` event `stream` sends.
async fn first_view(stream: &mut Response) -> Value {
    let sent = read_until(stream, "\n\n").await;
    let data = sent
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or_else(|| panic!("no data in {sent:?}"));
    serde_json::from_str(data).unwrap()
}

async fn a_ticket_opens_the_game_stream_once_as_the_seat_that_asked_for_it(a: TestApp) {
    let b = a.restart().await;
    let table = a_table(&a).await;
    let path = format!("/v1/games/{}/stream", table.id);
    let ticket = ticket(&a, &path, &table.phone).await;
    let mut stream = open_with(&a, &path, &ticket).await;
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    // Ann's seat, hand and all, as her token sees it; not a spectator's view.
    let view = first_view(&mut stream).await;
    let mine = a.view(&table.id, Some(&table.phone)).await;
    assert_eq!(view["you"]["seat"], 0, "{view}");
    assert_eq!(view["you"], mine["you"]);
    // Spent: neither this instance nor another opens anything with it again.
    for app in [&a, &b] {
        let again = open_with(app, &path, &ticket).await;
        assert_problem(again, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    // The stream it opened goes on, and shows the next move.
    let moved = someone_moves(&b, &table).await;
    read_until(&mut stream, &format!("id: {moved}\n")).await;
}

async fn a_seat_token_s_ticket_opens_its_seat_s_stream(app: TestApp) {
    let (id, tokens) = app.create_game("girl", 3, None, json!({})).await;
    let path = format!("/v1/games/{id}/stream");
    let ticket = ticket(&app, &path, &tokens[2]).await;
    let mut stream = open_with(&app, &path, &ticket).await;
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(first_view(&mut stream).await["you"]["seat"], 2);
}

async fn a_ticket_opens_only_the_stream_it_was_made_for_and_trying_another_does_not_spend_it(
    app: TestApp,
) {
    let table = a_table(&app).await;
    let other = a_table(&app).await;
    let game = format!("/v1/games/{}/stream", table.id);
    let game_ticket = ticket(&app, &game, &table.laptop).await;
    let notices_ticket = ticket(&app, "/v1/me/stream", &table.laptop).await;
    for (stream, ticket) in [
        (format!("/v1/games/{}/stream", other.id), &game_ticket),
        (String::from("/v1/me/stream"), &game_ticket),
        (game.clone(), &notices_ticket),
    ] {
        let res = open_with(&app, &stream, ticket).await;
        assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    // Both still open their own.
    assert_eq!(
        open_with(&app, &game, &game_ticket).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        open_with(&app, "/v1/me/stream", &notices_ticket)
            .await
            .status(),
        StatusCode::OK
    );
}

async fn revoking_the_token_ends_the_stream_its_ticket_opened_and_its_unused_tickets_open_nothing(
    a: TestApp,
) {
    let b = a.restart().await;
    let table = a_table(&a).await;
    let game = format!("/v1/games/{}/stream", table.id);
    let used = ticket(&a, "/v1/me/stream", &table.phone).await;
    let unused = ticket(&a, &game, &table.phone).await;
    let mut notices = open_with(&a, "/v1/me/stream", &used).await;
    assert_eq!(notices.status(), StatusCode::OK);
    // A notice comes through before the revocation: the stream is live.
    someone_moves(&b, &table).await;
    read_until(&mut notices, "event: notice").await;

    revoke_the_phone(&b, &table).await;
    let revoked = Instant::now();
    let (_, ended) = read_to_the_end(&mut notices).await;
    assert!(
        ended - revoked <= WITHIN,
        "the ticket's stream ran on for {:?} after its token was revoked",
        ended - revoked
    );
    let res = open_with(&a, &game, &unused).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    // And the revoked token gets no new ticket.
    let (status, _) = ask(&a, &game, Some(&table.phone)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn of_two_instances_presented_one_ticket_at_once_only_one_opens_a_stream(a: TestApp) {
    let b = a.restart().await;
    let table = a_table(&a).await;
    let path = format!("/v1/games/{}/stream", table.id);
    for _ in 0..5 {
        let ticket = ticket(&a, &path, &table.bea).await;
        let (one, two) = tokio::join!(open_with(&a, &path, &ticket), open_with(&b, &path, &ticket));
        let mut statuses = [one.status(), two.status()];
        statuses.sort();
        assert_eq!(
            statuses,
            [StatusCode::OK, StatusCode::UNAUTHORIZED],
            "a ticket opened {statuses:?}"
        );
    }
}

async fn a_ticket_is_made_only_for_a_token_that_could_open_the_stream(app: TestApp) {
    let table = a_table(&app).await;
    let game = format!("/v1/games/{}/stream", table.id);
    let (_, seats) = app.create_game("girl", 2, None, json!({})).await;
    let (status, reader) = app
        .post(
            "/v1/me/tokens",
            Some(&table.laptop),
            &json!({"name": "mover", "scopes": ["games:play"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{reader}");
    let unread = reader["secret"].as_str().unwrap().to_string();
    let nowhere = format!("/v1/games/{}/stream", uuid::Uuid::new_v4());
    let cases: [(&str, Option<&str>, StatusCode, &str); 7] = [
        // A spectator needs none, and there is nothing to stand for.
        (&game, None, StatusCode::UNAUTHORIZED, "unauthorized"),
        (
            &game,
            Some("not-a-token"),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (&game, Some(&seats[0]), StatusCode::FORBIDDEN, "wrong-game"),
        (
            &game,
            Some(&unread),
            StatusCode::FORBIDDEN,
            "insufficient-scope",
        ),
        (
            &nowhere,
            Some(&table.laptop),
            StatusCode::NOT_FOUND,
            "game-not-found",
        ),
        (
            "/v1/me/stream",
            Some(&seats[0]),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            "/v1/me/stream",
            Some(&unread),
            StatusCode::FORBIDDEN,
            "insufficient-scope",
        ),
    ];
    for (stream, token, status, code) in cases {
        let res = app
            .request(
                reqwest::Method::POST,
                &format!("{stream}/tickets"),
                token,
                None,
            )
            .await;
        assert_problem(res, status, code).await;
    }
    // A ticket and a token together are refused, and the ticket is not spent by it.
    let ticket = ticket(&app, &game, &table.laptop).await;
    let res = app
        .client
        .get(format!("{}{game}?ticket={ticket}", app.address))
        .bearer_auth(&table.laptop)
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    for forged in ["stkt_", "stkt_00", "acct_123", ""] {
        let res = open_with(&app, &game, forged).await;
        assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    assert_eq!(
        open_with(&app, &game, &ticket).await.status(),
        StatusCode::OK
    );
}

on_both_backends!(
    a_ticket_opens_the_game_stream_once_as_the_seat_that_asked_for_it,
    a_seat_token_s_ticket_opens_its_seat_s_stream,
    a_ticket_opens_only_the_stream_it_was_made_for_and_trying_another_does_not_spend_it,
    revoking_the_token_ends_the_stream_its_ticket_opened_and_its_unused_tickets_open_nothing,
    of_two_instances_presented_one_ticket_at_once_only_one_opens_a_stream,
    a_ticket_is_made_only_for_a_token_that_could_open_the_stream,
);

/// A token's streams are counted together however they were opened: with its cap reached
/// through `Authorization`, a ticket it asked for opens nothing more.
async fn a_ticket_s_stream_counts_against_its_token_s_cap(backend: Backend) {
    let (url, guard) = fresh_database(backend).await;
    let settings = parlour::startup::Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        streams: parlour::limits::StreamLimits {
            per_token: 1,
            per_client: 100,
            total: 100,
        },
        ..parlour::startup::Settings::default()
    };
    let app = spawn_app_with(&url, guard, settings).await;
    let table = a_table(&app).await;
    let path = format!("/v1/games/{}/stream", table.id);
    let laptops = ticket(&app, &path, &table.laptop).await;
    let open = app
        .client
        .get(format!("{}{path}", app.address))
        .bearer_auth(&table.laptop)
        .send()
        .await
        .unwrap();
    assert_eq!(open.status(), StatusCode::OK);
    let refused = open_with(&app, &path, &laptops).await;
    assert_problem(refused, StatusCode::TOO_MANY_REQUESTS, "too-many-streams").await;
    // Another token's ticket is counted against its own.
    let beas = ticket(&app, &path, &table.bea).await;
    assert_eq!(open_with(&app, &path, &beas).await.status(), StatusCode::OK);
    drop(open);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_s_stream_counts_against_its_token_s_cap_on_sqlite() {
    a_ticket_s_stream_counts_against_its_token_s_cap(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_s_stream_counts_against_its_token_s_cap_on_postgres() {
    a_ticket_s_stream_counts_against_its_token_s_cap(Backend::Postgres).await;
}

async fn a_ticket_is_worthless_a_minute_after_it_was_made(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    let clock = Arc::new(parlour::service::ManualClock::new());
    let (app, _, _running) =
        serve_with_clock(&url, clock.clone(), parlour::startup::Settings::default()).await;
    let table = a_table(&app).await;
    let path = format!("/v1/games/{}/stream", table.id);
    let (status, asked) = ask(&app, &path, Some(&table.laptop)).await;
    assert_eq!(status, StatusCode::CREATED);
    let made: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(asked["expires_at"].clone()).unwrap();
    use parlour::service::Clock;
    assert_eq!(made - clock.recorded_now(), chrono::Duration::seconds(60));
    clock.advance(Duration::from_secs(60));
    let stale = open_with(&app, &path, asked["ticket"].as_str().unwrap()).await;
    assert_problem(stale, StatusCode::UNAUTHORIZED, "unauthorized").await;
    // One used a second before its minute is up still opens its stream.
    let fresh = ticket(&app, &path, &table.laptop).await;
    clock.advance(Duration::from_secs(59));
    assert_eq!(
        open_with(&app, &path, &fresh).await.status(),
        StatusCode::OK
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_is_worthless_a_minute_after_it_was_made_on_sqlite() {
    a_ticket_is_worthless_a_minute_after_it_was_made(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_is_worthless_a_minute_after_it_was_made_on_postgres() {
    a_ticket_is_worthless_a_minute_after_it_was_made(Backend::Postgres).await;
}

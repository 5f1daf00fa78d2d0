//! Revoking an account token ends what it already holds (issue 35, item 3): a device whose
//! token is revoked through one instance stops receiving its seat's hand and its account's
//! notices on another within one second, and its long-polls answer 401, never a view; the
//! account's other tokens keep theirs.

use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::{Method, Response, StatusCode};
use serde_json::json;

use parlour_domain::playout::instantiate;

use crate::helpers::TestApp;
use crate::on_both_backends;

/// What issue 35 promises: a revocation reaches every stream and long-poll within this.
pub(crate) const WITHIN: Duration = Duration::from_secs(1);
/// How long a test waits for what should come much sooner, before it fails.
pub(crate) const GENEROUS: Duration = Duration::from_secs(20);

/// Ann's account, signed in on a laptop and a phone, plays Bea in a hosted game of GIRL.
pub(crate) struct Table {
    pub id: String,
    pub laptop: String,
    pub phone: String,
    pub phone_id: String,
    pub bea: String,
}

async fn account(app: &TestApp, name: &str) -> String {
    let (status, created) = app.post("/v1/accounts", None, &json!({"name": name})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["token"]["secret"].as_str().unwrap().to_string()
}

pub(crate) async fn a_table(app: &TestApp) -> Table {
    let laptop = account(app, "Ann").await;
    let bea = account(app, "Bea").await;
    let (status, phone) = app
        .post("/v1/me/tokens", Some(&laptop), &json!({"name": "phone"}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{phone}");
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(&laptop),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    let id = hosted["id"].as_str().unwrap().to_string();
    let (status, claimed) = app
        .post(
            &format!("/v1/games/{id}/seats/1/claim"),
            Some(&bea),
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{claimed}");
    Table {
        id,
        laptop,
        phone: phone["secret"].as_str().unwrap().to_string(),
        phone_id: phone["id"].as_str().unwrap().to_string(),
        bea,
    }
}

/// Revokes the phone's token with the laptop's, through `app`.
pub(crate) async fn revoke_the_phone(app: &TestApp, table: &Table) {
    let res = app
        .request(
            Method::DELETE,
            &format!("/v1/me/tokens/{}", table.phone_id),
            Some(&table.laptop),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
}

/// Whoever is to act makes a move through `app` (Ann with her laptop's token).
pub(crate) async fn someone_moves(app: &TestApp, table: &Table) -> u64 {
    let public = app.view(&table.id, None).await;
    let seat = public["to_act"][0].as_u64().expect("someone to act");
    let token = if seat == 0 { &table.laptop } else { &table.bea };
    let mine = app.view(&table.id, Some(token)).await;
    let action = instantiate(&mine["legal_actions"][0], &mut ChaCha8Rng::seed_from_u64(3));
    let (status, view) = app.act(&table.id, token, &action).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    view["version"].as_u64().unwrap()
}

async fn open(app: &TestApp, path: &str, token: &str) -> Response {
    let res = app
        .client
        .get(format!("{}{path}", app.address))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    res
}

/// Reads `stream` until the server ends it: everything it sent, and when it ended. Fails if
/// it has not ended within `GENEROUS`.
pub(crate) async fn read_to_the_end(stream: &mut Response) -> (String, Instant) {
    let mut sent = String::new();
    let read = tokio::time::timeout(GENEROUS, async {
        while let Ok(Some(chunk)) = stream.chunk().await {
            sent.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    assert!(read.is_ok(), "the stream was not ended; it sent {sent:?}");
    (sent, Instant::now())
}

/// Reads `stream` until it has sent `wanted`; fails if that does not come within `GENEROUS`.
pub(crate) async fn read_until(stream: &mut Response, wanted: &str) -> String {
    let mut sent = String::new();
    let found = tokio::time::timeout(GENEROUS, async {
        while !sent.contains(wanted) {
            match stream.chunk().await {
                Ok(Some(chunk)) => sent.push_str(&String::from_utf8_lossy(&chunk)),
                _ => return false,
            }
        }
        true
    })
    .await;
    assert_eq!(
        found,
        Ok(true),
        "{wanted:?} never came; the stream sent {sent:?}"
    );
    sent
}

async fn a_revoked_phone_s_game_stream_on_another_instance_ends_within_a_second_and_shows_no_later_move(
    a: TestApp,
) {
    let b = a.restart().await;
    let table = a_table(&a).await;
    let path = format!("/v1/games/{}/stream", table.id);
    let mut phone = open(&a, &path, &table.phone).await;
    let mut laptop = open(&a, &path, &table.laptop).await;
    // Both devices see Ann's seat, hand and all, as the game stands.
    let dealt = a.view(&table.id, None).await["version"].as_u64().unwrap();
    read_until(&mut phone, &format!("id: {dealt}\n")).await;
    read_until(&mut laptop, &format!("id: {dealt}\n")).await;

    revoke_the_phone(&b, &table).await;
    let revoked = Instant::now();
    // A move made the moment the revocation is answered, before any instance may have looked.
    let moved = someone_moves(&b, &table).await;
    let (sent, ended) = read_to_the_end(&mut phone).await;
    assert!(
        ended - revoked <= WITHIN,
        "the phone's stream ran on for {:?} after its token was revoked",
        ended - revoked
    );
    assert!(
        !sent.contains("event: view"),
        "the revoked phone was sent a view after the revocation: {sent:?}"
    );
    // The laptop's token was not revoked: its stream goes on, and shows the move.
    read_until(&mut laptop, &format!("id: {moved}\n")).await;
    // And the phone cannot open another.
    let res = a
        .client
        .get(format!("{}{path}", a.address))
        .bearer_auth(&table.phone)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

async fn a_revoked_phone_s_long_poll_on_another_instance_answers_401_and_never_the_view(
    a: TestApp,
) {
    let b = a.restart().await;
    let table = a_table(&a).await;
    let known = a.view(&table.id, None).await["version"].as_u64().unwrap();
    let poll = {
        let (client, url, phone) = (
            a.client.clone(),
            format!("{}/v1/games/{}?wait=30", a.address, table.id),
            table.phone.clone(),
        );
        tokio::spawn(async move {
            let res = client
                .get(url)
                .bearer_auth(phone)
                .header("If-None-Match", format!("\"{known}\""))
                .send()
                .await
                .unwrap();
            (res.status(), res.text().await.unwrap(), Instant::now())
        })
    };
    revoke_the_phone(&b, &table).await;
    let revoked = Instant::now();
    // The game moves past what the phone knew: a view is there to be shown, and must not be.
    someone_moves(&b, &table).await;
    let (status, body, answered) = tokio::time::timeout(GENEROUS, poll)
        .await
        .expect("the long-poll was answered")
        .unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(!body.contains("legal_actions"), "{body}");
    assert!(
        answered.saturating_duration_since(revoked) <= WITHIN,
        "the long-poll was answered {:?} after the revocation",
        answered.saturating_duration_since(revoked)
    );
    // A long-poll begun after the revocation is refused at once, also where a view is ready.
    let res = a
        .client
        .get(format!("{}/v1/games/{}?wait=30", a.address, table.id))
        .bearer_auth(&table.phone)
        .header("If-None-Match", format!("\"{known}\""))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

async fn a_revoked_phone_s_notices_end_on_another_instance_within_a_second(a: TestApp) {
    let b = a.restart().await;
    let table = a_table(&a).await;
    let mut stream = open(&a, "/v1/me/stream", &table.phone).await;
    let notices = {
        let (client, url, phone) = (
            a.client.clone(),
            format!("{}/v1/me/notices?wait=30", a.address),
            table.phone.clone(),
        );
        tokio::spawn(async move {
            let res = client.get(url).bearer_auth(phone).send().await.unwrap();
            (res.status(), res.text().await.unwrap(), Instant::now())
        })
    };
    revoke_the_phone(&b, &table).await;
    let revoked = Instant::now();
    // Something the account is told of: a move in its game.
    someone_moves(&b, &table).await;

    let (sent, ended) = read_to_the_end(&mut stream).await;
    assert!(
        ended - revoked <= WITHIN,
        "the phone's notices ran on for {:?} after its token was revoked",
        ended - revoked
    );
    assert!(
        !sent.contains("event: notice"),
        "the revoked phone was sent a notice: {sent:?}"
    );
    let (status, body, answered) = tokio::time::timeout(GENEROUS, notices)
        .await
        .expect("the long-poll was answered")
        .unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(
        answered.saturating_duration_since(revoked) <= WITHIN,
        "the notices' long-poll was answered {:?} after the revocation",
        answered.saturating_duration_since(revoked)
    );
    // The laptop's token was not revoked: it still reads the account's games.
    let (status, inbox) = a.get("/v1/me/games", Some(&table.laptop)).await;
    assert_eq!(status, StatusCode::OK, "{inbox}");
    assert_eq!(inbox["games"][0]["id"], table.id.as_str(), "{inbox}");
}

/// A seat token cannot be revoked, and an account token's revocation ends nothing else: a
/// spectator's and a seat's streams go on.
async fn revoking_one_token_leaves_every_other_stream_open(a: TestApp) {
    let b = a.restart().await;
    let table = a_table(&a).await;
    let path = format!("/v1/games/{}/stream", table.id);
    let mut bea = open(&a, &path, &table.bea).await;
    let mut spectator = a
        .client
        .get(format!("{}{path}", a.address))
        .send()
        .await
        .unwrap();
    let mut phone = open(&a, &path, &table.phone).await;
    revoke_the_phone(&b, &table).await;
    read_to_the_end(&mut phone).await;
    let moved = someone_moves(&b, &table).await;
    read_until(&mut bea, &format!("id: {moved}\n")).await;
    read_until(&mut spectator, &format!("id: {moved}\n")).await;
}

on_both_backends!(
    a_revoked_phone_s_game_stream_on_another_instance_ends_within_a_second_and_shows_no_later_move,
    a_revoked_phone_s_long_poll_on_another_instance_answers_401_and_never_the_view,
    a_revoked_phone_s_notices_end_on_another_instance_within_a_second,
    revoking_one_token_leaves_every_other_stream_open,
);

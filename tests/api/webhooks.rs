//! Webhooks against a real receiver on loopback that answers, fails, hangs or says `410 Gone`
//! on demand. The server's time is a clock the test moves and the relay is driven by the
//! test, so the retry schedule is followed to the second without waiting for it.
//!
//! Every message is checked with the receiver's own Standard Webhooks verification (the
//! secret the owner was shown, the headers and the exact body); CI checks the same messages
//! again with the independent `standardwebhooks` Python package (`tools/webhooks-verify.py`).

use std::collections::VecDeque;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use parlour::receipts::Signer;
use parlour::service::webhooks::WebhookSettings;
use parlour::service::{ManualClock, Parlour};
use parlour::startup::{Application, EmailConfig, Hooks, Settings};
use parlour::store;
use parlour::webhooks::Secret;
use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::new_account as account;
use crate::helpers::{assert_problem, fresh_database, hosted_girl_match, Backend, Guard, TestApp};

/// What the receiver does with the next request.
#[derive(Debug, Clone, Copy)]
enum Reply {
    Status(u16),
    /// Answers only after the relay has given up waiting.
    Hang,
}

/// One request the receiver was sent.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    id: String,
    timestamp: i64,
    signature: String,
    body: String,
}

impl Received {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

#[derive(Default)]
pub(crate) struct Receiver {
    replies: Mutex<VecDeque<Reply>>,
    pub(crate) received: Mutex<Vec<Received>>,
}

async fn receive(req: HttpRequest, body: web::Bytes, state: web::Data<Receiver>) -> HttpResponse {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    state.received.lock().unwrap().push(Received {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp").parse().unwrap_or(0),
        signature: header("webhook-signature"),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let reply = state
        .replies
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or(Reply::Status(200));
    match reply {
        Reply::Status(code) => {
            HttpResponse::build(actix_web::http::StatusCode::from_u16(code).unwrap())
                .body(format!("answered {code}"))
        }
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            HttpResponse::Ok().finish()
        }
    }
}

/// A receiver on a random loopback port, and its URL.
pub(crate) fn receiver() -> (Arc<Receiver>, String) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/hooks",
        listener.local_addr().unwrap().port()
    );
    let state = web::Data::new(Receiver::default());
    let shared = state.clone().into_inner();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .default_service(web::to(receive))
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    (shared, url)
}

/// One Parlour instance on `url` telling the time by `clock`, with the receipts key every
/// instance of a deployment shares (it seals the webhook secrets).
async fn instance(
    url: &str,
    clock: Arc<ManualClock>,
    relay: bool,
) -> (
    TestApp,
    Arc<Parlour>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    instance_allowing(url, clock, relay, true).await
}

/// As [`instance`], saying whether private addresses may be sent to.
async fn instance_allowing(
    url: &str,
    clock: Arc<ManualClock>,
    relay: bool,
    allow_private: bool,
) -> (
    TestApp,
    Arc<Parlour>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    instance_mailing(url, clock, relay, allow_private, EmailConfig::default()).await
}

/// As [`instance_allowing`], mailing as `email` says.
pub(crate) async fn instance_mailing(
    url: &str,
    clock: Arc<ManualClock>,
    relay: bool,
    allow_private: bool,
    email: EmailConfig,
) -> (
    TestApp,
    Arc<Parlour>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    parlour::telemetry::init_for_tests();
    let settings = Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        sweep_clocks: false,
        // A fan-out claimed by an instance that dies comes back when its lease runs out.
        outbox: parlour::workers::OutboxSettings {
            lease: Duration::from_secs(1),
            ..parlour::workers::OutboxSettings::default()
        },
        webhooks: WebhookSettings {
            allow_private,
            timeout: Duration::from_secs(1),
            relay,
            ..WebhookSettings::default()
        },
        email,
        ..Settings::default()
    };
    let store = store::connect_with(url, &settings.db).await.unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let app = Application::serve_with_hooks(
        listener,
        store.clone(),
        Signer::from_seed([9; 32]),
        settings,
        Hooks {
            clock: Some(clock),
            ..Hooks::default()
        },
    )
    .unwrap();
    let service = app.service();
    let address = format!("http://127.0.0.1:{}", app.port());
    let running = tokio::spawn(app.run_until_stopped());
    (
        TestApp::new(address, url.to_string(), store),
        service,
        running,
    )
}

/// A server whose clock the test moves and whose relay the test drives (the push tests'
/// too).
pub(crate) struct Hooked {
    pub(crate) app: TestApp,
    pub(crate) service: Arc<Parlour>,
    pub(crate) clock: Arc<ManualClock>,
    url: String,
    running: tokio::task::JoinHandle<std::io::Result<()>>,
    _guard: Guard,
}

impl Hooked {
    /// The database the server under test writes to.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }
}

pub(crate) async fn hooked(backend: Backend) -> Hooked {
    hooked_with(backend, EmailConfig::default()).await
}

/// As [`hooked`], mailing as `email` says.
pub(crate) async fn hooked_with(backend: Backend, email: EmailConfig) -> Hooked {
    let (url, guard) = fresh_database(backend).await;
    let start = chrono::DateTime::parse_from_rfc3339("2027-05-01T09:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let clock = Arc::new(ManualClock::at(start));
    let (app, service, running) = instance_mailing(&url, clock.clone(), false, true, email).await;
    Hooked {
        app,
        service,
        clock,
        url,
        running,
        _guard: guard,
    }
}

const ALL_EVENTS: [&str; 6] = [
    "game.started",
    "game.your_turn",
    "game.deadline_near",
    "game.timed_out",
    "game.finished",
    "invitation.accepted",
];

/// Registers a webhook to `url` for `events`: its id and secret.
pub(crate) async fn register(
    app: &TestApp,
    token: &str,
    url: &str,
    events: &[&str],
) -> (String, Secret) {
    let (status, created) = app
        .post(
            "/v1/webhooks",
            Some(token),
            &json!({"url": url, "events": events, "description": "test"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let secret = Secret::parse(created["secret"].as_str().unwrap()).unwrap();
    (
        created["webhook"]["id"].as_str().unwrap().to_string(),
        secret,
    )
}

/// Ann hosts a clocked two-seat GIRL game and Bea takes the other seat.
pub(crate) async fn girl(app: &TestApp, ann: &str, bea: &str) -> String {
    dealt_girl(app, ann, bea, None).await
}

/// As [`girl`], dealt from `seed` when one is given.
pub(crate) async fn dealt_girl(app: &TestApp, ann: &str, bea: &str, seed: Option<&str>) -> String {
    let (status, hosted) = app
        .post(
            "/v1/me/games",
            Some(ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}], "seed": seed,
                    "clock": {"control": {"kind": "correspondence", "days": 1}, "on_timeout": "default_move"}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    let id = hosted["id"].as_str().unwrap().to_string();
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/seats/1/claim"),
            Some(bea),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    id
}

/// Runs the relay until `receiver` holds at least `count` requests (the fan-out runs in the
/// outbox worker a moment after each commit).
async fn relay_until(service: &Parlour, receiver: &Receiver, count: usize) {
    for _ in 0..200 {
        service.webhooks().relay().await.unwrap();
        if receiver.received.lock().unwrap().len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "the receiver holds {} messages, not {count}",
        receiver.received.lock().unwrap().len()
    );
}

pub(crate) fn types(received: &[Received]) -> Vec<String> {
    received
        .iter()
        .map(|r| r.json()["type"].as_str().unwrap().to_string())
        .collect()
}

/// Plays the game to its end, each seat by its own token.
pub(crate) async fn play_to_the_end(app: &TestApp, id: &str, tokens: &[String; 2]) {
    for _ in 0..500 {
        let view = app.view(id, None).await;
        if view["status"] == "finished" {
            return;
        }
        let seat = view["to_act"][0].as_u64().unwrap() as usize;
        let mine = app.view(id, Some(&tokens[seat])).await;
        let action = instantiate(&mine["legal_actions"][0], &mut ChaCha8Rng::seed_from_u64(3));
        let (status, body) = app.act(id, &tokens[seat], &action).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    panic!("the game did not end");
}

async fn every_event_type_arrives_signed_and_tells_only_what_the_account_may_see(h: Hooked) {
    let (receiver, url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    let (_, secret) = register(&h.app, &ann, &url, &ALL_EVENTS).await;
    let id = girl(&h.app, &ann, &bea).await;
    // The claim: Ann is told her invitation was taken and the game began; whoever is to act
    // is told it is their move.
    relay_until(&h.service, &receiver, 2).await;
    // 80 % of the day, then the deadline: a reminder, then a timeout with a default move.
    h.clock.advance(Duration::from_secs(20 * 3600));
    h.service.sweep_clocks().await.unwrap();
    h.clock.advance(Duration::from_secs(5 * 3600));
    h.service.sweep_clocks().await.unwrap();
    play_to_the_end(&h.app, &id, &[ann.clone(), bea.clone()]).await;
    let finished = h.app.all_events(&id, None).await.len();
    for _ in 0..200 {
        h.service.webhooks().relay().await.unwrap();
        let seen = types(&receiver.received.lock().unwrap());
        if seen.iter().any(|t| t == "game.finished") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let received = receiver.received.lock().unwrap().clone();
    let seen = types(&received);
    for kind in ALL_EVENTS {
        assert!(seen.iter().any(|t| t == kind), "no {kind} among {seen:?}");
    }
    // Every message is signed by the secret Ann was shown, over its id, time and exact body.
    let (_, inbox) = h.app.get("/v1/me/games", Some(&ann)).await;
    for message in &received {
        assert!(
            secret.verifies(
                &message.id,
                message.timestamp,
                message.body.as_bytes(),
                &message.signature
            ),
            "{message:?}"
        );
        assert!(message.id.starts_with("msg_"));
        let body = message.json();
        let data = &body["data"];
        assert_eq!(data["id"], json!(id));
        // Ann's own row: her seat, never anything of Bea's hand. A row has no cards at all.
        assert_eq!(data["seat"], json!(0));
        let keys: Vec<&String> = data.as_object().unwrap().keys().collect();
        let row_keys: Vec<&String> = inbox["games"][0].as_object().unwrap().keys().collect();
        assert_eq!(keys, row_keys);
    }
    // The timeout's message says which move was made for Ann's seat: the one the log
    // records (shown now that the game is over).
    let entries = h.app.all_events(&id, None).await;
    let at = entries
        .iter()
        .position(|e| e["type"] == "table.timed_out" && e["data"]["seat"] == 0)
        .expect("Ann's timeout in the log");
    let timed_out = received
        .iter()
        .map(Received::json)
        .find(|body| body["type"] == "game.timed_out")
        .expect("a game.timed_out message");
    assert_eq!(
        timed_out["timed_out"],
        json!({"seat": 0, "then": "default_move", "action": entries[at + 1]["command"]}),
        "{timed_out}"
    );
    // Each message once: a webhook-id is never reused for another message.
    let mut ids: Vec<&String> = received.iter().map(|r| &r.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), received.len());
    // A finished game's last message names its last version.
    let last = received
        .iter()
        .rev()
        .find(|r| r.json()["type"] == "game.finished")
        .unwrap();
    assert_eq!(last.json()["data"]["version"], json!(finished as u64));
    assert_eq!(last.json()["data"]["status"], "finished");
    // The delivery log shows each attempt with its status.
    let hook = h.app.get("/v1/webhooks", Some(&ann)).await.1["webhooks"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, page) = h
        .app
        .get(&format!("/v1/webhooks/{hook}/deliveries"), Some(&ann))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let first = &page["deliveries"][0];
    assert_eq!(first["state"], "delivered");
    assert_eq!(first["attempts"][0]["status"], json!(200));
    assert_eq!(first["attempts"][0]["response"], "answered 200");
    // Read three at a time by its links, the delivery log is every message sent, once each,
    // newest first.
    let pages = crate::paging::every_page(
        &h.app,
        &format!("/v1/webhooks/{hook}/deliveries?limit=3"),
        Some(&ann),
    )
    .await;
    assert!(pages.len() > 2, "{} pages", pages.len());
    let paged: Vec<Value> = pages
        .iter()
        .flat_map(|page| page["deliveries"].as_array().unwrap().clone())
        .collect();
    assert!(pages
        .iter()
        .all(|page| page["deliveries"].as_array().unwrap().len() <= 3));
    let mut sent: Vec<&String> = received.iter().map(|r| &r.id).collect();
    let mut listed: Vec<&str> = paged.iter().map(|d| d["id"].as_str().unwrap()).collect();
    let times: Vec<chrono::DateTime<chrono::Utc>> = paged
        .iter()
        .map(|d| serde_json::from_value(d["created_at"].clone()).unwrap())
        .collect();
    assert!(times.windows(2).all(|pair| pair[0] >= pair[1]), "{times:?}");
    sent.sort();
    listed.sort_unstable();
    assert_eq!(
        listed,
        sent.iter().map(|id| id.as_str()).collect::<Vec<_>>()
    );
    // Bea registered nothing and is sent nothing; her game is told to Ann only.
    assert!(received
        .iter()
        .all(|r| r.json()["data"]["seat"] == json!(0)));
    h.running.abort();
}

async fn failures_are_retried_on_the_schedule_and_410_disables_the_endpoint(h: Hooked) {
    let (receiver, url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let (hook, _) = register(&h.app, &ann, &url, &["game.your_turn"]).await;
    receiver
        .replies
        .lock()
        .unwrap()
        .extend([Reply::Status(500), Reply::Hang, Reply::Status(503)]);
    let res = h
        .app
        .request(
            Method::POST,
            &format!("/v1/webhooks/{hook}/test"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let ping: Value = res.json().await.unwrap();
    let message = ping["id"].as_str().unwrap().to_string();
    let attempts = |r: &Receiver| r.received.lock().unwrap().len();
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(attempts(&receiver), 1, "sent at once");
    // Not again before the first retry's delay (5 s, up to a tenth more)...
    h.clock.advance(Duration::from_secs(4));
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(attempts(&receiver), 1);
    // ...and again once it has passed: this one hangs past the timeout.
    h.clock.advance(Duration::from_millis(1600));
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(attempts(&receiver), 2);
    // The third after about five minutes.
    h.clock.advance(Duration::from_secs(4 * 60));
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(attempts(&receiver), 2);
    h.clock.advance(Duration::from_secs(100));
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(attempts(&receiver), 3);
    let (_, page) = h
        .app
        .get(&format!("/v1/webhooks/{hook}/deliveries"), Some(&ann))
        .await;
    let delivery = &page["deliveries"][0];
    assert_eq!(delivery["id"], json!(message));
    assert_eq!(delivery["state"], "pending");
    let statuses: Vec<Value> = delivery["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].clone())
        .collect();
    assert_eq!(statuses, vec![json!(500), Value::Null, json!(503)]);
    assert_eq!(delivery["attempts"][1]["response"], "no answer in time");
    // Every attempt carried the same webhook-id.
    assert!(receiver
        .received
        .lock()
        .unwrap()
        .iter()
        .all(|r| r.id == message));
    // The failures show on the endpoint; a 410 then disables it at once.
    let (_, shown) = h.app.get(&format!("/v1/webhooks/{hook}"), Some(&ann)).await;
    assert!(shown["failing_since"].is_string(), "{shown}");
    receiver
        .replies
        .lock()
        .unwrap()
        .push_back(Reply::Status(410));
    h.clock.advance(Duration::from_secs(34 * 60));
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(attempts(&receiver), 4);
    let (_, shown) = h.app.get(&format!("/v1/webhooks/{hook}"), Some(&ann)).await;
    assert_eq!(shown["enabled"], json!(false));
    assert!(
        shown["disabled_reason"].as_str().unwrap().contains("410"),
        "{shown}"
    );
    // Nothing more is sent to a disabled endpoint, however long one waits.
    h.clock.advance(Duration::from_secs(48 * 3600));
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(attempts(&receiver), 4);
    // Its owner enables it again and retries the message by hand: it is delivered.
    let res = h
        .app
        .request(
            Method::PATCH,
            &format!("/v1/webhooks/{hook}"),
            Some(&ann),
            Some(&json!({"enabled": true})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = h
        .app
        .request(
            Method::POST,
            &format!("/v1/webhooks/{hook}/deliveries/{message}/retry"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(attempts(&receiver), 5);
    let (_, page) = h
        .app
        .get(&format!("/v1/webhooks/{hook}/deliveries"), Some(&ann))
        .await;
    assert_eq!(page["deliveries"][0]["state"], "delivered");
    h.running.abort();
}

async fn an_endpoint_that_fails_for_three_days_is_disabled_and_its_owner_sees_why(h: Hooked) {
    let (receiver, url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let (hook, _) = register(&h.app, &ann, &url, &["game.your_turn"]).await;
    receiver
        .replies
        .lock()
        .unwrap()
        .extend(std::iter::repeat_n(Reply::Status(500), 20));
    h.app
        .request(
            Method::POST,
            &format!("/v1/webhooks/{hook}/test"),
            Some(&ann),
            None,
        )
        .await;
    let mut sent = 0;
    for _ in 0..12 {
        h.service.webhooks().relay().await.unwrap();
        sent = receiver.received.lock().unwrap().len();
        h.clock.advance(Duration::from_secs(27 * 3600));
    }
    let (_, shown) = h.app.get(&format!("/v1/webhooks/{hook}"), Some(&ann)).await;
    assert_eq!(shown["enabled"], json!(false), "{shown}");
    assert!(
        shown["disabled_reason"]
            .as_str()
            .unwrap()
            .contains("every delivery failed"),
        "{shown}"
    );
    // The attempts stopped once three days had passed: day 0, 1.1, 2.2 and 3.4.
    assert!((3..=5).contains(&sent), "{sent}");
    h.running.abort();
}

async fn a_message_committed_before_a_crash_is_delivered_after_the_restart_under_its_id(h: Hooked) {
    let (receiver, url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    register(&h.app, &ann, &url, &["game.started"]).await;
    // The instance dies right after the claim's commit: no relay ran, perhaps no fan-out.
    let id = girl(&h.app, &ann, &bea).await;
    h.running.abort();
    let _ = h.running.await;
    assert!(receiver.received.lock().unwrap().is_empty());
    // A new instance on the same database, relaying by itself as a deployment does.
    let (_app, service, running) = instance(&h.url, h.clock.clone(), true).await;
    for _ in 0..800 {
        if !receiver.received.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // The fan-out again (as a lease that ran out would) writes nothing new.
    let received = receiver.received.lock().unwrap().clone();
    assert_eq!(types(&received), vec!["game.started".to_string()]);
    assert_eq!(received[0].json()["data"]["id"], json!(id));
    let before = received[0].id.clone();
    let version = received[0].json()["data"]["version"].as_u64().unwrap();
    service
        .fan_out_webhooks(
            id.parse().unwrap(),
            &json!({"first": version, "last": version}).to_string(),
        )
        .await
        .unwrap();
    service.webhooks().relay().await.unwrap();
    let ids: Vec<String> = receiver
        .received
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.id.clone())
        .collect();
    assert!(ids.iter().all(|i| *i == before), "{ids:?}");
    running.abort();
}

async fn one_endpoints_messages_keep_the_order_of_their_events(h: Hooked) {
    let (receiver, url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    register(
        &h.app,
        &ann,
        &url,
        &["game.your_turn", "game.finished", "game.started"],
    )
    .await;
    let id = girl(&h.app, &ann, &bea).await;
    play_to_the_end(&h.app, &id, &[ann.clone(), bea.clone()]).await;
    for _ in 0..200 {
        h.service.webhooks().relay().await.unwrap();
        if types(&receiver.received.lock().unwrap())
            .iter()
            .any(|t| t == "game.finished")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let versions: Vec<u64> = receiver
        .received
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.json()["data"]["version"].as_u64().unwrap())
        .collect();
    let mut sorted = versions.clone();
    sorted.sort();
    assert_eq!(versions, sorted);
    assert!(versions.len() >= 2);
    h.running.abort();
}

/// Relays until `receiver` has been told of game `barrier`. The relay sends an endpoint's
/// messages in the order they were made, but two games' fan-outs may finish in either order:
/// a message about an earlier commit of another game may still be to come (wait for the
/// outbox to drain, then relay, for those).
async fn relay_past(service: &Parlour, receiver: &Receiver, barrier: &str) {
    for _ in 0..400 {
        service.webhooks().relay().await.unwrap();
        if receiver
            .received
            .lock()
            .unwrap()
            .iter()
            .any(|r| r.json()["data"]["id"] == json!(barrier))
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("nothing about {barrier} arrived");
}

/// What `receiver` was told of game `id`: each body's length, and the body without the
/// game's id and the time the message was made (the only parts that may differ).
fn told_of(receiver: &Receiver, id: &str) -> Vec<(usize, Value)> {
    receiver
        .received
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.json()["data"]["id"] == json!(id))
        .map(|r| {
            let mut body = r.json();
            body["data"]["id"] = Value::Null;
            body["timestamp"] = Value::Null;
            (r.body.len(), body)
        })
        .collect()
}

/// Two games that differ only in the cards Ann laid face down send both accounts the same
/// messages, byte for byte but for the game's id and the time: nothing in a webhook, not even
/// its size, depends on a card its account cannot see.
async fn games_differing_only_in_a_hidden_lay_send_the_same_messages(h: Hooked) {
    let (to_ann, ann_url) = receiver();
    let (to_bea, bea_url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    register(&h.app, &ann, &ann_url, &ALL_EVENTS).await;
    register(&h.app, &bea, &bea_url, &ALL_EVENTS).await;
    let tokens = [ann.clone(), bea.clone()];
    let mut told = Vec::new();
    for choice in [[0, 1, 2], [3, 4, 5]] {
        let id = dealt_girl(&h.app, &ann, &bea, Some(&"5a".repeat(32))).await;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        while h.app.view(&id, None).await["public"]["phase"] != json!("trick") {
            crate::client::random_move(&h.app, &id, &tokens, &mut rng, |_| true)
                .await
                .unwrap();
        }
        let hand = crate::helpers::hand(&h.app, &id, &ann).await;
        let cards: Vec<&String> = choice.iter().map(|i| &hand[*i]).collect();
        let (status, body) = h
            .app
            .act(&id, &ann, &json!({"type": "lay", "cards": cards}))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        // Every commit fanned out (the fan-outs of two games may finish in either order, so a
        // later game is no barrier), then every message made sent.
        outbox_drained(&h.url).await;
        all_relayed(&h.service, &h.url).await;
        told.push((told_of(&to_ann, &id), told_of(&to_bea, &id)));
    }
    assert!(!told[0].0.is_empty() && !told[0].1.is_empty(), "{told:?}");
    assert_eq!(told[0], told[1]);
    h.running.abort();
}

/// Two instances on one database, both relaying as a deployment does: the leader alone
/// sends, so every message arrives once, after one attempt, whichever instance took the move.
async fn two_relaying_instances_send_each_message_once(h: Hooked) {
    h.running.abort();
    let _ = h.running.await;
    let (first, _, first_running) = instance(&h.url, h.clock.clone(), true).await;
    let (second, _, second_running) = instance(&h.url, h.clock.clone(), true).await;
    let (receiver, url) = receiver();
    let ann = account(&first, "Ann").await;
    let bea = account(&second, "Bea").await;
    let (hook, _) = register(&second, &ann, &url, &ALL_EVENTS).await;
    let id = girl(&first, &ann, &bea).await;
    let tokens = [ann.clone(), bea.clone()];
    for turn in 0..500 {
        let app = if turn % 2 == 0 { &first } else { &second };
        let view = app.view(&id, None).await;
        if view["status"] == "finished" {
            break;
        }
        let seat = view["to_act"][0].as_u64().unwrap() as usize;
        let mine = app.view(&id, Some(&tokens[seat])).await;
        let action = instantiate(&mine["legal_actions"][0], &mut ChaCha8Rng::seed_from_u64(3));
        let (status, body) = app.act(&id, &tokens[seat], &action).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // Through a store of the test's own: the stopped servers' connections may have stopped
    // with them.
    let store = store::connect(&h.url).await.unwrap();
    let hook_id = hook.parse().unwrap();
    // Wait until the end has been sent and every message sent has its attempt recorded: a
    // relay stopped between the receiver's answer and that record leaves a message it did
    // send still owed, which a relay sends again later (at least once), and which this test
    // would count as never attempted. The bound is far above what this takes alone (about 5 s):
    // on a loaded machine the lease of the stopped first instance, the hand-over to one of these
    // two and the whole game's messages took more than 20 s once, and the test then counted a
    // relay that had not yet begun.
    for _ in 0..4800 {
        let received = receiver.received.lock().unwrap().len();
        let finished = types(&receiver.received.lock().unwrap())
            .iter()
            .any(|t| t == "game.finished");
        let recorded = store
            .messages_of(hook_id, None, 1000)
            .await
            .unwrap()
            .iter()
            .filter(|m| m.attempts > 0)
            .count();
        if finished && recorded >= received {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // Both stop, so nothing more is sent while the receiver is counted.
    for running in [first_running, second_running] {
        running.abort();
        let _ = running.await;
    }
    let received = receiver.received.lock().unwrap().clone();
    assert!(
        types(&received).iter().any(|t| t == "game.finished"),
        "{:?}",
        types(&received)
    );
    let mut ids: Vec<&String> = received.iter().map(|r| &r.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), received.len(), "a message was sent twice");
    let deliveries = store.messages_of(hook_id, None, 1000).await.unwrap();
    assert_eq!(deliveries.len(), received.len());
    assert!(deliveries.iter().all(|m| m.attempts == 1), "{deliveries:?}");
}

/// The purge deletes done outbox work after a week, spent idempotency keys after their
/// lifetime and delivered messages after a month, by the service's clock, and never a log.
async fn rows_kept_long_enough_are_purged_and_the_logs_are_not(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    // Outbox rows are stamped by the store's own clock: start the service's there.
    let clock = Arc::new(ManualClock::at(chrono::Utc::now()));
    let (app, service, running) = instance(&url, clock.clone(), false).await;
    let (receiver, hook_url) = receiver();
    let ann = account(&app, "Ann").await;
    let bea = account(&app, "Bea").await;
    let (hook, _) = register(&app, &ann, &hook_url, &ALL_EVENTS).await;
    let id = girl(&app, &ann, &bea).await;
    let seat = app.view(&id, None).await["to_act"][0].as_u64().unwrap() as usize;
    let token = [&ann, &bea][seat];
    let mine = app.view(&id, Some(token)).await;
    let action = instantiate(&mine["legal_actions"][0], &mut ChaCha8Rng::seed_from_u64(3));
    let moved = reqwest::Client::new()
        .post(format!("{}/v1/games/{id}/actions", app.address))
        .bearer_auth(token)
        .header("Idempotency-Key", "purge-me")
        .json(&action)
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), StatusCode::OK);
    let barrier = girl(&app, &ann, &bea).await;
    relay_past(&service, &receiver, &barrier).await;
    outbox_drained(&url).await;
    // A fan-out done after the barrier was heard wrote messages the relay has not sent yet:
    // sent now, every message is delivered, and so old enough to purge a month on.
    service.webhooks().relay().await.unwrap();
    let game: uuid::Uuid = id.parse().unwrap();
    let log = app.all_events(&id, None).await;
    let messages = deliveries(&app, &ann, &hook).await;
    assert!(messages >= 2);

    // Nothing is old enough yet.
    assert_eq!(
        service.housekeeping().purge().await.unwrap(),
        store::Purged::default()
    );
    // A week on: the outbox's done work and the spent key go; the delivery log stays.
    clock.advance(Duration::from_secs(8 * 24 * 3600));
    let purged = service.housekeeping().purge().await.unwrap();
    assert!(purged.outbox >= 3, "{purged:?}");
    assert_eq!(purged.idempotency_keys, 1, "{purged:?}");
    assert_eq!(purged.webhook_messages, 0, "{purged:?}");
    assert_eq!(
        app.store
            .idempotent_move(game, seat as u8, "purge-me")
            .await
            .unwrap(),
        None
    );
    assert_eq!(deliveries(&app, &ann, &hook).await, messages);
    // A month on: the delivered messages go, with their attempts.
    clock.advance(Duration::from_secs(23 * 24 * 3600));
    let purged = service.housekeeping().purge().await.unwrap();
    assert_eq!(purged.webhook_messages as usize, messages, "{purged:?}");
    assert_eq!(deliveries(&app, &ann, &hook).await, 0);
    // The log is whole and still audits.
    assert_eq!(app.all_events(&id, None).await, log);
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK, "{audit}");
    assert_eq!(
        (&audit["chain_ok"], &audit["replay_ok"]),
        (&json!(true), &json!(true)),
        "{audit}"
    );
    running.abort();
}

/// A connection to the test's database, of either backend, to count rows with.
enum Counter {
    Lite(sqlx::SqlitePool),
    Pg(sqlx::PgPool),
}

impl Counter {
    async fn connect(url: &str) -> Counter {
        if url.starts_with("sqlite") {
            Counter::Lite(sqlx::SqlitePool::connect(url).await.unwrap())
        } else {
            Counter::Pg(sqlx::PgPool::connect(url).await.unwrap())
        }
    }

    async fn count(&self, sql: &str) -> i64 {
        match self {
            Counter::Lite(pool) => sqlx::query_scalar(sql).fetch_one(pool).await.unwrap(),
            Counter::Pg(pool) => sqlx::query_scalar(sql).fetch_one(pool).await.unwrap(),
        }
    }
}

/// Relays until no webhook message is left pending: the test's own `relay` sends what is due,
/// and one that another relay (the server's worker) is sending now is pending until its
/// attempt is recorded, so an empty `relay` alone does not mean everything has arrived.
pub(crate) async fn all_relayed(service: &Parlour, url: &str) {
    const PENDING: &str = "SELECT COUNT(*) FROM webhook_messages m \
        JOIN webhooks w ON w.id = m.webhook_id WHERE m.state = 'pending' AND w.enabled";
    let counter = Counter::connect(url).await;
    for _ in 0..400 {
        service.webhooks().relay().await.unwrap();
        if counter.count(PENDING).await == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("webhook messages are still pending after 10 s");
}

/// Waits until every outbox message is done. A fan-out's messages are written, and may be
/// relayed, before its outbox row is marked done, so hearing of the barrier game does not mean
/// that its row is done yet.
pub(crate) async fn outbox_drained(url: &str) {
    const LEFT: &str = "SELECT COUNT(*) FROM outbox WHERE done_at IS NULL";
    let counter = Counter::connect(url).await;
    for _ in 0..400 {
        if counter.count(LEFT).await == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the outbox still has work after 10 s");
}

/// How many messages the delivery log of `hook` lists.
async fn deliveries(app: &TestApp, token: &str, hook: &str) -> usize {
    let (status, page) = app
        .get(&format!("/v1/webhooks/{hook}/deliveries"), Some(token))
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["deliveries"].as_array().unwrap().len()
}

/// Asks for a `webhook.test` message.
async fn ping(app: &TestApp, token: &str, hook: &str) {
    let res = app
        .request(
            Method::POST,
            &format!("/v1/webhooks/{hook}/test"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
}

async fn a_rotated_secret_signs_beside_the_old_one_for_a_day(h: Hooked) {
    let (receiver, url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let (hook, old) = register(&h.app, &ann, &url, &["game.your_turn"]).await;
    let res = h
        .app
        .request(
            Method::POST,
            &format!("/v1/webhooks/{hook}/rotate-secret"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let rotated: Value = res.json().await.unwrap();
    let new = Secret::parse(rotated["secret"].as_str().unwrap()).unwrap();
    assert!(rotated["webhook"]["previous_secret_until"].is_string());
    ping(&h.app, &ann, &hook).await;
    relay_until(&h.service, &receiver, 1).await;
    let during = receiver.received.lock().unwrap()[0].clone();
    assert_eq!(during.signature.split(' ').count(), 2);
    for secret in [&old, &new] {
        assert!(secret.verifies(
            &during.id,
            during.timestamp,
            during.body.as_bytes(),
            &during.signature
        ));
    }
    // A day later the old secret signs no more.
    h.clock.advance(Duration::from_secs(25 * 3600));
    ping(&h.app, &ann, &hook).await;
    relay_until(&h.service, &receiver, 2).await;
    let after = receiver.received.lock().unwrap()[1].clone();
    assert_eq!(after.signature.split(' ').count(), 1);
    assert!(new.verifies(
        &after.id,
        after.timestamp,
        after.body.as_bytes(),
        &after.signature
    ));
    assert!(!old.verifies(
        &after.id,
        after.timestamp,
        after.body.as_bytes(),
        &after.signature
    ));
    h.running.abort();
}

async fn bad_registrations_are_refused_and_nobody_else_sees_an_endpoint(h: Hooked) {
    let ann = account(&h.app, "Ann").await;
    let cat = account(&h.app, "Cat").await;
    for (body, status, code) in [
        (
            json!({"url": "ftp://example.com/", "events": ["game.your_turn"]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-webhook",
        ),
        (
            json!({"url": "https://user:pw@example.com/", "events": ["game.your_turn"]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-webhook",
        ),
        (
            json!({"url": "https://example.com/", "events": []}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-webhook",
        ),
        (
            json!({"url": "https://example.com/", "events": ["game.moved"]}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            json!({"url": "https://example.com/", "events": ["game.your_turn"], "secret": "x"}),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
        (
            json!(["https://example.com/"]),
            StatusCode::BAD_REQUEST,
            "malformed-request",
        ),
    ] {
        let res = h
            .app
            .request(Method::POST, "/v1/webhooks", Some(&ann), Some(&body))
            .await;
        assert_problem(res, status, code).await;
    }
    let (_, list) = h.app.get("/v1/webhooks", Some(&ann)).await;
    assert_eq!(list["webhooks"], json!([]), "a refusal changes nothing");
    // Another account's endpoint is not told apart from none.
    let (receiver_state, url) = receiver();
    let (hook, _) = register(&h.app, &ann, &url, &["game.your_turn"]).await;
    for method in [Method::GET, Method::DELETE] {
        let res = h
            .app
            .request(method, &format!("/v1/webhooks/{hook}"), Some(&cat), None)
            .await;
        assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    }
    let res = h
        .app
        .request(
            Method::POST,
            &format!("/v1/webhooks/{hook}/test"),
            Some(&cat),
            None,
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    let res = h.app.request(Method::GET, "/v1/webhooks", None, None).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    // Deleting it stops its messages.
    let res = h
        .app
        .request(
            Method::DELETE,
            &format!("/v1/webhooks/{hook}"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    h.service.webhooks().relay().await.unwrap();
    assert!(receiver_state.received.lock().unwrap().is_empty());
    h.running.abort();
}

/// Destinations are checked again at every attempt, after the name is resolved: an endpoint
/// registered when its address was allowed, sent to by an instance where it is not (as when a
/// name comes to resolve to a private address), gets nothing, and the attempt says why.
async fn a_destination_that_is_no_longer_public_is_refused_at_the_attempt(h: Hooked) {
    let (receiver, url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let (hook, _) = register(&h.app, &ann, &url, &["game.your_turn"]).await;
    let (strict, strict_service, strict_running) =
        instance_allowing(&h.url, h.clock.clone(), false, false).await;
    let res = strict
        .request(
            Method::POST,
            &format!("/v1/webhooks/{hook}/test"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    strict_service.webhooks().relay().await.unwrap();
    assert!(receiver.received.lock().unwrap().is_empty());
    let (_, page) = strict
        .get(&format!("/v1/webhooks/{hook}/deliveries"), Some(&ann))
        .await;
    let attempt = &page["deliveries"][0]["attempts"][0];
    assert_eq!(attempt["status"], Value::Null, "{page}");
    assert!(
        attempt["response"]
            .as_str()
            .is_some_and(|r| r.contains("public addresses only")),
        "{page}"
    );
    strict_running.abort();
    h.running.abort();
}

/// A server that does not allow private addresses refuses them, by literal and by name.
async fn private_addresses_are_refused_unless_the_operator_allows_them(backend: Backend) {
    let app = crate::helpers::spawn_app(backend).await;
    let ann = account(&app, "Ann").await;
    for url in [
        "http://127.0.0.1:9/hooks",
        "http://localhost:9/hooks",
        "http://[::1]:9/hooks",
        "http://169.254.169.254/latest",
        "http://10.0.0.1/hooks",
    ]
    .into_iter()
    .chain(SPECIAL_PURPOSE_IPV6)
    {
        let res = app
            .request(
                Method::POST,
                "/v1/webhooks",
                Some(&ann),
                Some(&json!({"url": url, "events": ["game.your_turn"]})),
            )
            .await;
        let problem =
            assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid-webhook").await;
        assert!(
            problem["detail"].as_str().unwrap().contains("address")
                || problem["detail"].as_str().unwrap().contains("resolve"),
            "{url}: {problem}"
        );
    }
    // A public endpoint cannot be moved onto one of them either.
    let (status, created) = app
        .post(
            "/v1/webhooks",
            Some(&ann),
            &json!({"url": "https://93.184.216.34/hooks", "events": ["game.your_turn"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let hook = created["webhook"]["id"].as_str().unwrap().to_string();
    for url in SPECIAL_PURPOSE_IPV6 {
        let res = app
            .request(
                Method::PATCH,
                &format!("/v1/webhooks/{hook}"),
                Some(&ann),
                Some(&json!({ "url": url })),
            )
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid-webhook").await;
    }
    let (_, shown) = app.get(&format!("/v1/webhooks/{hook}"), Some(&ann)).await;
    assert_eq!(
        shown["url"],
        json!("https://93.184.216.34/hooks"),
        "{shown}"
    );
}

/// IPv6 forms that embed or reach an IPv4 address (here a loopback or private one), and the
/// other special-purpose IPv6 ranges: once accepted as public.
const SPECIAL_PURPOSE_IPV6: [&str; 9] = [
    "http://[2002:7f00:1::1]:9/hooks", // 6to4 of 127.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", // Teredo
    "http://[::127.0.0.1]:9/hooks",    // IPv4-compatible
    "http://[::ffff:0:127.0.0.1]:9/hooks", // IPv4-translated
    "http://[100::1]/hooks",           // discard-only
    "http://[64:ff9b:1::a00:1]/hooks", // local-use NAT64 of 10.0.0.1
    "http://[2001:2::1]/hooks",        // benchmarking
    "http://[3fff::1]/hooks",          // documentation
    "http://[fd12::1]/hooks",          // unique local
];

macro_rules! hooked_on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::hooked(crate::helpers::Backend::Sqlite).await).await;
                }
            )*
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn private_addresses_are_refused_unless_the_operator_allows_them() {
                super::private_addresses_are_refused_unless_the_operator_allows_them(crate::helpers::Backend::Sqlite).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn rows_kept_long_enough_are_purged_and_the_logs_are_not() {
                super::rows_kept_long_enough_are_purged_and_the_logs_are_not(crate::helpers::Backend::Sqlite).await;
            }
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::hooked(crate::helpers::Backend::Postgres).await).await;
                }
            )*
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn private_addresses_are_refused_unless_the_operator_allows_them() {
                super::private_addresses_are_refused_unless_the_operator_allows_them(crate::helpers::Backend::Postgres).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn rows_kept_long_enough_are_purged_and_the_logs_are_not() {
                super::rows_kept_long_enough_are_purged_and_the_logs_are_not(crate::helpers::Backend::Postgres).await;
            }
        }
    };
}

hooked_on_both_backends!(
    every_event_type_arrives_signed_and_tells_only_what_the_account_may_see,
    failures_are_retried_on_the_schedule_and_410_disables_the_endpoint,
    an_endpoint_that_fails_for_three_days_is_disabled_and_its_owner_sees_why,
    a_message_committed_before_a_crash_is_delivered_after_the_restart_under_its_id,
    one_endpoints_messages_keep_the_order_of_their_events,
    a_rotated_secret_signs_beside_the_old_one_for_a_day,
    bad_registrations_are_refused_and_nobody_else_sees_an_endpoint,
    games_differing_only_in_a_hidden_lay_send_the_same_messages,
    two_relaying_instances_send_each_message_once,
    the_end_of_a_match_is_sent_as_match_finished_with_its_standings,
    a_destination_that_is_no_longer_public_is_refused_at_the_attempt,
);

async fn the_end_of_a_match_is_sent_as_match_finished_with_its_standings(h: Hooked) {
    let (receiver, url) = receiver();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    register(&h.app, &ann, &url, &["game.finished", "match.finished"]).await;
    let (id, first) = hosted_girl_match(&h.app, &ann, &bea, json!({})).await;
    play_to_the_end(&h.app, &first, &[ann.clone(), bea.clone()]).await;
    // The first deal's end is a game's end, not the match's: the match goes on.
    relay_until(&h.service, &receiver, 1).await;
    assert_eq!(types(&receiver.received.lock().unwrap()), ["game.finished"]);
    let mut second = None;
    for _ in 0..400 {
        let (_, view) = h.app.get(&format!("/v1/matches/{id}"), None).await;
        if let Some(current) = view["current"].as_str().filter(|c| *c != first) {
            second = Some(current.to_string());
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let second = second.expect("the next deal was dealt");
    let res = h
        .app
        .request(
            Method::POST,
            &format!("/v1/games/{second}/resign"),
            Some(&bea),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    relay_until(&h.service, &receiver, 3).await;
    let received = receiver.received.lock().unwrap().clone();
    assert_eq!(
        types(&received),
        ["game.finished", "game.finished", "match.finished"]
    );
    let message = received[2].json();
    assert_eq!(message["data"]["id"], json!(second));
    assert_eq!(message["data"]["deal_of"], json!({"match": id, "deal": 1}));
    assert_eq!(message["match"]["id"], json!(id));
    assert_eq!(message["match"]["status"], "conceded");
    assert_eq!(message["match"]["winners"], json!([0]));
    let (_, view) = h.app.get(&format!("/v1/matches/{id}"), None).await;
    assert_eq!(message["match"]["competitors"], view["competitors"]);
}

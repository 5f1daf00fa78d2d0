//! One real request and answer for every operation of the API document: the test calls each
//! operation that takes or answers JSON, once and successfully, on a server it starts itself,
//! and keeps what was sent and answered, one per operation id, in
//! `openapi/examples/operations.json`, which the document shows as the operations' examples.
//!
//! Hand-written examples drift: a member added, renamed or dropped, and the document still
//! shows the old shape. These are answers, and the test fails when the file no longer holds
//! what the server says, when an operation of the document that should have an example has
//! none (so a new operation brings its example with it), or when the file keeps an example of
//! an operation the document no longer has. To take the server's answers into the file after
//! a deliberate change, run
//!
//! ```text
//! PARLOUR_CAPTURE_OPERATIONS=1 cargo test -p parlour --test api operation_examples
//! ```
//!
//! and commit the file. Each request and answer is made the same on every run before it is
//! compared or kept ([`normalised`]): the games are dealt from fixed seeds and the server tells
//! the time by a clock that does not move unless the test moves it, and what is still fresh on
//! every run (ids, secrets, codes, hashes, ports) is written as a fixed stand-in of its shape.
//!
//! The scenario is one afternoon at one server with every feature on (sandbox test clocks, a
//! mail server, webhooks to a loopback receiver): Ann and Bea open accounts, play the README's
//! GIRL game and a few hosted ones, a GOOGLY match to its end, and set up their mail, push,
//! passkeys, apps and webhooks.

use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener as StdListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use parlour::receipts::Signer;
use parlour::service::webhooks::WebhookSettings;
use parlour::service::{ManualClock, Parlour};
use parlour::startup::{Application, EmailConfig, Hooks, Sandbox, Settings};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::email::{sink, Sink, Sunk};
use crate::helpers::{fresh_database, Backend, Guard, TestApp};
use crate::passkeys::Authenticator;

/// Where the examples are kept, beside the API document.
const EXAMPLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../openapi/examples/operations.json"
);

/// Set to `1` to write the examples into [`EXAMPLES`] instead of comparing them with it.
const CAPTURE: &str = "PARLOUR_CAPTURE_OPERATIONS";

/// The deal of the GIRL games (the README's: the first card turned up is a HEROINE).
const SEED: &str = "4242424242424242424242424242424242424242424242424242424242424242";

/// The deal of the GOOGLY match.
const GOOGLY_SEED: &str = "2121212121212121212121212121212121212121212121212121212121212121";

/// What every UUID is written as: ids are new on every run.
const STAND_IN_UUID: &str = "0193a7c2-5b1e-7d40-9c1a-2f4e6d8b0a13";

/// What every timestamp is written as.
const STAND_IN_TIME: &str = "2026-12-07T12:00:00Z";

/// What every loopback port is written as: the servers here listen on random ones.
const STAND_IN_PORT: &str = "8080";

/// The characters a random hex string is written with, in turn.
const STAND_IN_HEX: &str = "5f0c8e2d9a4b7163";

/// The characters any other random string (base64, base64url, base58) is written with.
const STAND_IN_TEXT: &str = "5f0c8e2dQx7bLm3Ka9ZtRw4Ny6Hv1Jp8";

/// The operations that answer JSON but have no example here, each with why (none so far).
const LEFT_OUT: [(&str, &str); 0] = [];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_s_example_in_the_document_is_an_answer_the_server_gave() {
    let server = Server::start().await;
    let mut examples = Examples::default();
    afternoon(&server, &mut examples).await;
    drop(server);

    let document = parlour::openapi::spec();
    let expected = operations_with_json(&document);
    let collected: BTreeSet<&str> = examples.taken.keys().map(String::as_str).collect();
    let left_out: BTreeSet<&str> = LEFT_OUT.iter().map(|(id, _)| *id).collect();
    let missing: Vec<&&str> = expected
        .keys()
        .filter(|id| !collected.contains(**id) && !left_out.contains(**id))
        .collect();
    let unknown: Vec<&&str> = collected
        .iter()
        .filter(|id| !expected.contains_key(**id))
        .collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "operations answering JSON without an example: {missing:?}; examples of no operation \
         of the document: {unknown:?}; call each new operation in this test (or, if it cannot \
         be called, add it to LEFT_OUT with why)"
    );
    for (id, example) in &examples.taken {
        let (statuses, takes_json) = &expected[id.as_str()];
        let status = example["status"].as_str().unwrap();
        assert!(
            statuses.contains(status),
            "{id} answered {status}, which its document does not give as a JSON success \
             ({statuses:?})"
        );
        assert_eq!(
            example.get("request").is_some(),
            *takes_json,
            "{id}: a request example exactly when the document says it takes a JSON body"
        );
    }

    let captured = serde_json::to_string_pretty(&examples.taken).unwrap() + "\n";
    let path = PathBuf::from(EXAMPLES);
    if std::env::var(CAPTURE).as_deref() == Ok("1") {
        std::fs::write(&path, captured).expect("write the examples");
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    let kept: BTreeMap<String, Value> = serde_json::from_str(&kept).unwrap_or_default();
    let stale: Vec<&String> = examples
        .taken
        .keys()
        .chain(kept.keys())
        .filter(|id| kept.get(*id) != examples.taken.get(*id))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(
        stale.is_empty(),
        "{} is not what the server sends and answers now for {stale:?}; run \
         `{CAPTURE}=1 cargo test -p parlour --test api operation_examples`, check the \
         difference and commit the file",
        path.display()
    );
}

/// Every operation of `document` with a JSON success answer: its JSON success statuses, and
/// whether it takes a JSON body.
fn operations_with_json(document: &Value) -> BTreeMap<&str, (BTreeSet<&str>, bool)> {
    let mut found = BTreeMap::new();
    for item in document["paths"].as_object().expect("paths").values() {
        for method in ["get", "post", "put", "patch", "delete"] {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let id = operation["operationId"].as_str().expect("an operation id");
            let statuses: BTreeSet<&str> = operation["responses"]
                .as_object()
                .expect("responses")
                .iter()
                .filter(|(status, _)| status.starts_with('2'))
                .filter(|(_, answer)| answer.pointer("/content/application~1json").is_some())
                .map(|(status, _)| status.as_str())
                .collect();
            let takes_json = operation
                .pointer("/requestBody/content/application~1json")
                .is_some();
            if !statuses.is_empty() {
                found.insert(id, (statuses, takes_json));
            }
        }
    }
    found
}

/// The examples taken so far, by operation id.
#[derive(Default)]
struct Examples {
    taken: BTreeMap<String, Value>,
}

impl Examples {
    /// Calls `operation` (`method path`, with `token` and `body`), which must succeed with a
    /// JSON answer, keeps the request and answer as its example, and gives the answer.
    async fn call(
        &mut self,
        app: &TestApp,
        operation: &str,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Value {
        let res = app.request(method, path, token, body.as_ref()).await;
        self.take(operation, body, res).await
    }

    /// [`Examples::call`] for a `GET`.
    async fn get(
        &mut self,
        app: &TestApp,
        operation: &str,
        path: &str,
        token: Option<&str>,
    ) -> Value {
        self.call(app, operation, Method::GET, path, token, None)
            .await
    }

    /// Keeps `res`, the answer to `body`, as the example of `operation`.
    async fn take(
        &mut self,
        operation: &str,
        body: Option<Value>,
        res: reqwest::Response,
    ) -> Value {
        let status = res.status();
        let content_type = res
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let answer: Value = res.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{operation}: {status} {answer}");
        assert!(
            content_type.starts_with("application/json"),
            "{operation}: answered {content_type}"
        );
        let mut example = serde_json::Map::new();
        if let Some(body) = body {
            example.insert("request".into(), normalised(None, &body));
        }
        example.insert("status".into(), json!(status.as_str()));
        example.insert("response".into(), normalised(None, &answer));
        let again = self
            .taken
            .insert(operation.to_string(), Value::Object(example));
        assert!(again.is_none(), "{operation} was taken twice");
        answer
    }
}

/// A server with every feature on, on a fresh SQLite database: test clocks allowed
/// (`--sandbox`), mail sent to a sink on loopback, webhooks allowed to loopback receivers.
/// It tells the time by a clock only the test moves and its relay (webhooks, mail, pushes) is
/// driven by the test; its signing key is the same on every run.
struct Server {
    app: TestApp,
    service: Arc<Parlour>,
    sink: Arc<Sink>,
    running: tokio::task::JoinHandle<std::io::Result<()>>,
    _guard: Guard,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.running.abort();
    }
}

impl Server {
    async fn start() -> Server {
        parlour::telemetry::init_for_tests();
        let (sink, smtp_url) = sink().await;
        let (url, guard) = fresh_database(Backend::Sqlite).await;
        let settings = Settings {
            rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
            bot_pace: Duration::ZERO,
            sweep_clocks: false,
            webhooks: WebhookSettings {
                allow_private: true,
                timeout: Duration::from_secs(5),
                relay: false,
                ..WebhookSettings::default()
            },
            email: EmailConfig {
                smtp_url: Some(smtp_url),
                ..EmailConfig::default()
            },
            sandbox: Sandbox::On,
            db: parlour::store::DbSettings {
                max_connections: crate::helpers::TEST_DB_CONNECTIONS,
                ..parlour::store::DbSettings::default()
            },
            ..Settings::default()
        };
        let store = parlour::store::connect_with(&url, &settings.db)
            .await
            .expect("open the store");
        let listener = StdListener::bind("127.0.0.1:0").expect("bind");
        let start = chrono::DateTime::parse_from_rfc3339(STAND_IN_TIME)
            .unwrap()
            .with_timezone(&chrono::Utc);
        let application = Application::serve_with_hooks(
            listener,
            store.clone(),
            Signer::from_seed([7; 32]),
            settings,
            Hooks {
                clock: Some(Arc::new(ManualClock::at(start))),
                ..Hooks::default()
            },
        )
        .expect("build the server");
        let service = application.service();
        let leadership = application.leadership();
        let address = format!("http://127.0.0.1:{}", application.port());
        let running = tokio::spawn(application.run_until_stopped());
        // `/readyz` says whether the server leads its deployment's once-only work, which it
        // takes a moment after it starts.
        for _ in 0..400 {
            if leadership.is_leader() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(leadership.is_leader(), "the only server never led");
        Server {
            app: TestApp::new(address, url, store),
            service,
            sink,
            running,
            _guard: guard,
        }
    }

    /// Runs the relay until `found` finds what it looks for in the mail to `address` (the
    /// fan-out that writes a mail runs in the background a moment after its commit), or fails
    /// after a generous bound.
    async fn mailed<T>(&self, address: &str, found: impl Fn(&[Sunk]) -> Option<T>) -> T {
        for _ in 0..400 {
            self.service.webhooks().relay().await.expect("relay");
            if let Some(found) = found(&self.sink.to(address)) {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("no such mail to {address}: {:?}", self.sink.to(address));
    }

    /// Runs the relay until the receiver holds `count` requests.
    async fn relayed(&self, receiver: &crate::webhooks::Receiver, count: usize) {
        for _ in 0..400 {
            self.service.webhooks().relay().await.expect("relay");
            if receiver.received.lock().unwrap().len() >= count {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the receiver was sent fewer than {count} requests");
    }
}

/// The scenario: every operation called once, in an order a player could call them in.
async fn afternoon(server: &Server, x: &mut Examples) {
    without_accounts(server, x).await;
    let (ann, bea, bea_id) = accounts(server, x).await;
    hosted_tables(server, x, &ann, &bea, &bea_id).await;
    mail_and_settings(server, x, &ann, &bea).await;
    push_and_webhooks(server, x, &ann, &bea).await;
}

/// The server, its catalogue, and games played with seat tokens: the README's, and a GOOGLY
/// match to its end.
async fn without_accounts(server: &Server, x: &mut Examples) {
    let app = &server.app;
    use Method as M;

    // The server and its games.
    x.get(app, "getHealth", "/healthz", None).await;
    x.get(app, "getReadiness", "/readyz", None).await;
    x.get(app, "getSigningKeys", "/.well-known/parlour-keys", None)
        .await;
    x.get(app, "listCatalog", "/v1/catalog", None).await;
    x.get(app, "getCatalogGame", "/v1/catalog/girl", None).await;
    x.get(
        app,
        "getCatalogGameSchemas",
        "/v1/catalog/girl/schemas",
        None,
    )
    .await;

    // The README's game, with seat tokens and no accounts.
    let created = x
        .call(
            app,
            "createGame",
            M::POST,
            "/v1/games",
            None,
            Some(
                json!({"game": "girl", "players": [{"name": "Ann"}, {"name": "Bea"}],
                        "seed": SEED}),
            ),
        )
        .await;
    let id = created["id"].as_str().unwrap().to_string();
    let seat = |i: usize| created["seats"][i]["token"].as_str().unwrap().to_string();
    let (ann_seat, bea_seat) = (seat(0), seat(1));
    let game = format!("/v1/games/{id}");
    x.get(app, "getGame", &game, Some(&ann_seat)).await;
    // Bea hands her seat to a bot while it is Ann's move, and takes it back.
    x.call(
        app,
        "handSeatToBot",
        M::PUT,
        &format!("{game}/seats/1/bot"),
        Some(&bea_seat),
        Some(json!({"level": "steady"})),
    )
    .await;
    x.call(
        app,
        "takeSeatBack",
        M::DELETE,
        &format!("{game}/seats/1/bot"),
        Some(&bea_seat),
        None,
    )
    .await;
    x.call(
        app,
        "postAction",
        M::POST,
        &format!("{game}/actions"),
        Some(&ann_seat),
        Some(json!({"type": "turn_up"})),
    )
    .await;
    let (status, laid) = app
        .act(
            &id,
            &ann_seat,
            &json!({"type": "lay", "cards": ["trio-01", "trio-15", "trio-08"]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{laid}");
    x.call(
        app,
        "createGameStreamTicket",
        M::POST,
        &format!("{game}/stream/tickets"),
        Some(&bea_seat),
        None,
    )
    .await;
    x.get(
        app,
        "listGameEvents",
        &format!("{game}/events"),
        Some(&bea_seat),
    )
    .await;
    x.get(app, "getGameState", &format!("{game}/state?at=2"), None)
        .await;
    x.call(
        app,
        "resign",
        M::POST,
        &format!("{game}/resign"),
        Some(&bea_seat),
        None,
    )
    .await;
    x.get(app, "getGameAudit", &format!("{game}/audit"), None)
        .await;
    x.get(app, "getGameFile", &format!("{game}/file"), None)
        .await;

    // A GOOGLY match played to its end on both seats' standing preferences: its scorecard,
    // its export and the statistics of it.
    let googly = googly_match(app).await;
    x.get(
        app,
        "getGameScorecard",
        &format!("/v1/games/{googly}/scorecard"),
        None,
    )
    .await;
    x.get(
        app,
        "getGameExport",
        &format!("/v1/games/{googly}/exports/cricsheet"),
        None,
    )
    .await;
    x.get(
        app,
        "getStatistics",
        &format!("/v1/statistics/googly?games={googly}"),
        None,
    )
    .await;
    x.get(app, "listCheckpoints", "/v1/checkpoints", None).await;
}

/// Ann's and Bea's accounts, Ann's tokens: Ann's token, Bea's, and Bea's account id.
async fn accounts(server: &Server, x: &mut Examples) -> (String, String, String) {
    let app = &server.app;
    use Method as M;

    // Accounts.
    let opened = x
        .call(
            app,
            "createAccount",
            M::POST,
            "/v1/accounts",
            None,
            Some(json!({"name": "Ann", "token_name": "laptop"})),
        )
        .await;
    let ann = opened["token"]["secret"].as_str().unwrap().to_string();
    let bea = crate::helpers::new_account(app, "Bea").await;
    let (_, beas) = app.get("/v1/me", Some(&bea)).await;
    let bea_id = beas["account"]["id"].as_str().unwrap().to_string();
    x.call(
        app,
        "createAccountToken",
        M::POST,
        "/v1/me/tokens",
        Some(&ann),
        Some(json!({"name": "scoreboard", "scopes": ["games:read"]})),
    )
    .await;
    let code = x
        .call(
            app,
            "createSignInCode",
            M::POST,
            "/v1/me/sign-in-codes",
            Some(&ann),
            None,
        )
        .await;
    x.call(
        app,
        "signIn",
        M::POST,
        "/v1/accounts/sign-in",
        None,
        Some(json!({"code": code["code"], "token_name": "phone"})),
    )
    .await;
    x.get(app, "getMe", "/v1/me", Some(&ann)).await;
    (ann, bea, bea_id)
}

/// Ann's mail address, her hosted tables (Bea takes a seat, is offered one, and is warned
/// of a deadline on a test clock), and a match.
async fn hosted_tables(server: &Server, x: &mut Examples, ann: &str, bea: &str, bea_id: &str) {
    let app = &server.app;
    use Method as M;

    // Mail: Ann adds an address and follows the link mailed to it.
    x.call(
        app,
        "createEmailAddress",
        M::POST,
        "/v1/me/email-addresses",
        Some(ann),
        Some(json!({"address": "ann@example.org"})),
    )
    .await;
    let verify = server
        .mailed("ann@example.org", |mails| {
            mails
                .iter()
                .find_map(|m| link_in(m, "/v1/email/verify?token="))
        })
        .await;
    let res = post_link(&verify).await;
    x.take("verifyEmailAddress", None, res).await;

    // Ann hosts the README's game for anyone (her address hears Bea took the seat), then a
    // second with a seat for whoever has its invitation, which she offers to Bea instead,
    // and a third on a test clock.
    let hosted = x
        .call(
            app,
            "hostGame",
            M::POST,
            "/v1/me/games",
            Some(ann),
            Some(
                json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
                        "seed": SEED,
                        "clock": {"control": {"kind": "correspondence", "days": 3},
                                  "on_timeout": "default_move"}}),
            ),
        )
        .await;
    let table = hosted["id"].as_str().unwrap().to_string();
    x.call(
        app,
        "claimSeat",
        M::POST,
        &format!("/v1/games/{table}/seats/1/claim"),
        Some(bea),
        Some(json!({})),
    )
    .await;
    let (status, moved) = app.act(&table, ann, &json!({"type": "turn_up"})).await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    x.get(app, "getMyGames", "/v1/me/games", Some(bea)).await;
    x.call(
        app,
        "createNoticeStreamTicket",
        M::POST,
        "/v1/me/stream/tickets",
        Some(bea),
        None,
    )
    .await;
    let (status, invited) = app
        .post(
            "/v1/me/games",
            Some(ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "invitation"}],
                    "seed": SEED}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{invited}");
    let invited = invited["id"].as_str().unwrap().to_string();
    x.call(
        app,
        "offerSeat",
        M::PUT,
        &format!("/v1/games/{invited}/seats/1/offer"),
        Some(ann),
        Some(json!({"to": {"kind": "account", "account": bea_id}})),
    )
    .await;
    let (status, sandboxed) = app
        .post(
            "/v1/me/games",
            Some(ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
                    "seed": SEED, "test_clock": true,
                    "clock": {"control": {"kind": "correspondence", "days": 1},
                              "on_timeout": "default_move"}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{sandboxed}");
    let sandboxed = sandboxed["id"].as_str().unwrap().to_string();
    let res = app
        .request(
            M::POST,
            &format!("/v1/games/{sandboxed}/seats/1/claim"),
            Some(bea),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    x.call(
        app,
        "advanceTestClock",
        M::POST,
        &format!("/v1/games/{sandboxed}/test-clock/advance"),
        Some(ann),
        Some(json!({"seconds": 72000})),
    )
    .await;
    // What Bea has been told since the feed began: her seats taken, her move, a seat offered.
    x.get(app, "getMyNotices", "/v1/me/notices?cursor=0-0", Some(bea))
        .await;

    // Ann lists a table for anyone; Bea finds it among the open tables and joins it.
    let (status, listed) = app
        .post(
            "/v1/me/games",
            Some(ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
                    "seed": SEED, "listing": {"hours": 24}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{listed}");
    let listed = listed["id"].as_str().unwrap().to_string();
    x.get(app, "listOpenTables", "/v1/tables?game=girl&limit=10", None)
        .await;
    x.call(
        app,
        "joinGame",
        M::POST,
        &format!("/v1/games/{listed}/join"),
        Some(bea),
        None,
    )
    .await;

    // A match to 1,000 points, its first deal's seat taken by Bea.
    let matched = x
        .call(
            app,
            "createMatch",
            M::POST,
            "/v1/matches",
            Some(ann),
            Some(
                json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
                        "target": {"kind": "points", "points": 1000}, "seed": SEED}),
            ),
        )
        .await;
    let match_id = matched["id"].as_str().unwrap().to_string();
    let first = matched["first_deal"].as_str().unwrap().to_string();
    let res = app
        .request(
            M::POST,
            &format!("/v1/games/{first}/seats/1/claim"),
            Some(bea),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    x.get(app, "getMatch", &format!("/v1/matches/{match_id}"), None)
        .await;
    x.get(
        app,
        "getMatchAudit",
        &format!("/v1/matches/{match_id}/audit"),
        None,
    )
    .await;
}

/// Ann's mail, her notice preferences, Bea's vacation, Ann's passkey and an app she lets in.
async fn mail_and_settings(server: &Server, x: &mut Examples, ann: &str, bea: &str) {
    let app = &server.app;
    use Method as M;

    // Mail again: the notice of Bea's taking the seat, its one-click unsubscribe, and Ann's
    // turning the notices on again; her preferences; a sign-in link.
    let unsubscribe = server
        .mailed("ann@example.org", |mails| {
            mails.iter().find_map(|m| {
                m.header("List-Unsubscribe")
                    .map(|h| h.trim_start_matches('<').trim_end_matches('>').to_string())
            })
        })
        .await;
    let res = post_link(&unsubscribe).await;
    x.take("unsubscribeEmailAddress", None, res).await;
    let listed = x
        .call(
            app,
            "listEmailAddresses",
            M::GET,
            "/v1/me/email-addresses",
            Some(ann),
            None,
        )
        .await;
    let address = listed["addresses"][0]["id"].as_str().unwrap().to_string();
    x.call(
        app,
        "updateEmailAddress",
        M::PATCH,
        &format!("/v1/me/email-addresses/{address}"),
        Some(ann),
        Some(json!({"notices": true})),
    )
    .await;
    let mut preferences = x
        .call(
            app,
            "getNoticePreferences",
            M::GET,
            "/v1/me/notice-preferences",
            Some(ann),
            None,
        )
        .await;
    preferences["quiet_hours"] = json!({"from": "22:00", "until": "07:30"});
    preferences["time_zone"] = json!("Europe/London");
    x.call(
        app,
        "setNoticePreferences",
        M::PUT,
        "/v1/me/notice-preferences",
        Some(ann),
        Some(preferences),
    )
    .await;
    x.call(
        app,
        "requestEmailSignIn",
        M::POST,
        "/v1/accounts/email-sign-in",
        None,
        Some(json!({"address": "ann@example.org"})),
    )
    .await;

    // Vacation.
    x.get(app, "getMyVacation", "/v1/me/vacation", Some(bea))
        .await;
    x.call(
        app,
        "beginVacation",
        M::POST,
        "/v1/me/vacation",
        Some(bea),
        Some(json!({"days": 3})),
    )
    .await;
    x.call(
        app,
        "endVacation",
        M::DELETE,
        "/v1/me/vacation",
        Some(bea),
        None,
    )
    .await;

    // Passkeys: Ann makes one on her laptop and signs in with it on a new device.
    let mut authenticator = Authenticator::for_app(app, 1);
    let ceremony = x
        .call(
            app,
            "beginPasskeyRegistration",
            M::POST,
            "/v1/me/passkey-registrations",
            Some(ann),
            None,
        )
        .await;
    let credential = authenticator.create(&ceremony["public_key"]);
    x.call(
        app,
        "createPasskey",
        M::POST,
        "/v1/me/passkeys",
        Some(ann),
        Some(
            json!({"ceremony": ceremony["ceremony"], "name": "password manager",
                    "credential": credential}),
        ),
    )
    .await;
    x.get(app, "listPasskeys", "/v1/me/passkeys", Some(ann))
        .await;
    let challenge = x
        .call(
            app,
            "beginPasskeySignIn",
            M::POST,
            "/v1/accounts/passkey-challenges",
            None,
            None,
        )
        .await;
    let credential = authenticator.get(&challenge["public_key"]);
    x.call(
        app,
        "signInWithPasskey",
        M::POST,
        "/v1/accounts/passkey-sign-in",
        None,
        Some(
            json!({"ceremony": challenge["ceremony"], "token_name": "tablet",
                    "credential": credential}),
        ),
    )
    .await;

    // An app Ann lets act for her (OAuth 2.0 with PKCE).
    let verifier = "a-verifier-of-forty-three-or-more-unreserved-characters";
    let pkce = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let query = format!(
        "response_type=code&client_id=example.app&redirect_uri=\
         https%3A%2F%2Fexample.app%2Fcallback&scope=games%3Aread%20games%3Aplay&state=s-1\
         &code_challenge={pkce}&code_challenge_method=S256"
    );
    x.get(
        app,
        "checkAuthorizationRequest",
        &format!("/v1/oauth/authorize?{query}"),
        None,
    )
    .await;
    let approved = x
        .call(
            app,
            "approveAuthorizationRequest",
            M::POST,
            "/v1/oauth/authorizations",
            Some(ann),
            Some(json!({"response_type": "code", "client_id": "example.app",
                        "redirect_uri": "https://example.app/callback",
                        "scope": "games:read games:play", "state": "s-1",
                        "code_challenge": pkce, "code_challenge_method": "S256"})),
        )
        .await;
    let res = app
        .client
        .post(format!("{}/oauth/token", app.address))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", approved["code"].as_str().unwrap()),
            ("redirect_uri", "https://example.app/callback"),
            ("client_id", "example.app"),
            ("code_verifier", verifier),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    x.get(app, "listApps", "/v1/me/apps", Some(ann)).await;
}

/// Bea's browser subscribed to pushes, and Ann's webhook endpoint.
async fn push_and_webhooks(server: &Server, x: &mut Examples, ann: &str, bea: &str) {
    let app = &server.app;
    use Method as M;

    // What the games above tell their players is sent before the browser and the endpoint
    // below are made, so that nothing but the test message below goes to them.
    crate::webhooks::outbox_drained(&app.database_url).await;

    // Push: Bea's browser subscribes (at the receiver below, which takes anything).
    let (receiver, hooks_url) = crate::webhooks::receiver();
    let origin = hooks_url.trim_end_matches("/hooks").to_string();
    x.get(app, "getPushKey", "/v1/push/key", None).await;
    x.call(
        app,
        "createPushSubscription",
        M::POST,
        "/v1/me/push-subscriptions",
        Some(bea),
        Some(browser_subscription(&format!("{origin}/push/bea"))),
    )
    .await;
    x.get(
        app,
        "listPushSubscriptions",
        "/v1/me/push-subscriptions",
        Some(bea),
    )
    .await;

    // Webhooks: Ann's endpoint, changed, its secret rotated, tested, and the test sent again.
    let created = x
        .call(
            app,
            "createWebhook",
            M::POST,
            "/v1/webhooks",
            Some(ann),
            Some(
                json!({"url": hooks_url, "events": ["game.your_turn", "game.finished"],
                        "description": "the club's scoreboard"}),
            ),
        )
        .await;
    let hook = format!(
        "/v1/webhooks/{}",
        created["webhook"]["id"].as_str().unwrap()
    );
    x.get(app, "listWebhooks", "/v1/webhooks", Some(ann)).await;
    x.get(app, "getWebhook", &hook, Some(ann)).await;
    x.call(
        app,
        "updateWebhook",
        M::PATCH,
        &hook,
        Some(ann),
        Some(json!({"events": ["game.your_turn", "game.finished", "game.timed_out"]})),
    )
    .await;
    x.call(
        app,
        "rotateWebhookSecret",
        M::POST,
        &format!("{hook}/rotate-secret"),
        Some(ann),
        None,
    )
    .await;
    let test = x
        .call(
            app,
            "testWebhook",
            M::POST,
            &format!("{hook}/test"),
            Some(ann),
            None,
        )
        .await;
    let before = receiver.received.lock().unwrap().len();
    server.relayed(&receiver, before + 1).await;
    let deliveries = x
        .call(
            app,
            "listWebhookDeliveries",
            M::GET,
            &format!("{hook}/deliveries"),
            Some(ann),
            None,
        )
        .await;
    let delivery = test["id"]
        .as_str()
        .or(deliveries["deliveries"][0]["id"].as_str())
        .unwrap()
        .to_string();
    x.call(
        app,
        "retryWebhookDelivery",
        M::POST,
        &format!("{hook}/deliveries/{delivery}/retry"),
        Some(ann),
        None,
    )
    .await;
}

/// A GOOGLY match between Kent and Surrey, both seats playing on their standing preferences
/// to its end: its id.
async fn googly_match(app: &TestApp) -> String {
    let teams = json!({"teams": [
        {"name": "Kent", "players": ["Woolley", "Ames", "Hardinge", "Chapman", "Freeman"]},
        {"name": "Surrey", "players": ["Hobbs", "Sandham", "Ducat", "Fender"]},
    ]});
    let (id, tokens) = app.create_game("googly", 2, Some(GOOGLY_SEED), teams).await;
    let offer = |view: &Value, kind: &str| {
        view["legal_actions"]
            .as_array()
            .and_then(|a| a.iter().find(|t| t["type"] == kind).cloned())
    };
    let mut preferred = [false, false];
    for _ in 0..50 {
        let public = app.view(&id, None).await;
        if public["status"] == "finished" {
            return id;
        }
        let seat = public["to_act"][0].as_u64().unwrap() as usize;
        let mine = app.view(&id, Some(&tokens[seat])).await;
        let body = if !preferred[seat] {
            preferred[seat] = true;
            json!({"type": "prefer", "auto_bowl": true, "accept_defaults": true,
                   "keep_playing_on": true})
        } else {
            offer(&mine, "play_on")
                .or_else(|| offer(&mine, "accept_defaults"))
                .unwrap_or_else(|| panic!("seat {seat} has nothing to take: {mine}"))
        };
        let (status, answer) = app.act(&id, &tokens[seat], &body).await;
        assert_eq!(status, StatusCode::OK, "{body}: {answer}");
    }
    panic!("the GOOGLY match did not play itself to its end");
}

/// What a browser's `PushSubscription.toJSON()` gives for `endpoint`, its keys made from a
/// fixed seed.
fn browser_subscription(endpoint: &str) -> Value {
    use p256::elliptic_curve::sec1::ToEncodedPoint as _;
    use rand_core::{RngCore as _, SeedableRng as _};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let key = loop {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        if let Ok(key) = p256::SecretKey::from_slice(&bytes) {
            break key;
        }
    };
    let mut auth = [0u8; 16];
    rng.fill_bytes(&mut auth);
    json!({
        "endpoint": endpoint,
        "expirationTime": null,
        "keys": {
            "p256dh": URL_SAFE_NO_PAD.encode(key.public_key().to_encoded_point(false).as_bytes()),
            "auth": URL_SAFE_NO_PAD.encode(auth),
        },
    })
}

/// Posts to a mailed link as a mail client's one-click unsubscribe does (RFC 8058), which is
/// also how a program follows one (no `Accept: text/html`, so the answer is JSON).
async fn post_link(link: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(link)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap()
}

/// `value` as it is kept: the same on every run. The rules, applied to every string and
/// every member name, whatever member it is found in:
///
/// - a UUID (8-4-4-4-12 lower-case hex digits) is [`STAND_IN_UUID`];
/// - an RFC 3339 timestamp is [`STAND_IN_TIME`];
/// - the port of a loopback address (`127.0.0.1:…`, `localhost:…`) is [`STAND_IN_PORT`];
/// - a run of 32 or more hex digits (a hash, a salt, a signature) is written with
///   [`STAND_IN_HEX`]'s digits, but for the seeds this test chose, which are the same on
///   every run;
/// - a token, code or secret the server made (`acct_…`, `inv_…`, `whsec_…`: a lower-case
///   prefix and `_`, then 16 or more random characters) keeps its prefix, and its random part
///   is written with [`STAND_IN_TEXT`]'s characters;
/// - a string that is a version-7 UUID in base64url (a WebAuthn user id or handle) is the
///   stand-in UUID in base64url;
/// - a `challenge` (random base64url) is written with [`STAND_IN_TEXT`]'s characters, a
///   `signature` that is not hex (a WebAuthn one, DER in base64url) as [`SIGNATURE_LENGTH`]
///   of them, and the client data a browser sends (`clientDataJSON`,
///   base64url of JSON naming the challenge and the origin) is read, made the same by these
///   rules and written again;
/// - a measured time (`latency_ms`) is [`STAND_IN_MILLISECONDS`].
///
/// Each stand-in has the length of what it replaces.
fn normalised(key: Option<&str>, value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(normalised_string(key, text)),
        Value::Array(items) => Value::Array(items.iter().map(|v| normalised(key, v)).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (normalised_text(k), normalised(Some(k), v)))
                .collect(),
        ),
        Value::Number(_) if key.is_some_and(|k| MEASURED_MEMBERS.contains(&k)) => {
            json!(STAND_IN_MILLISECONDS)
        }
        other => other.clone(),
    }
}

/// The member names whose values are random base64url (a WebAuthn challenge).
const RANDOM_MEMBERS: [&str; 1] = ["challenge"];

/// How long a WebAuthn signature (ECDSA P-256 in DER, in base64url) is written: the
/// length of the longest, since a DER signature's length varies with its value.
const SIGNATURE_LENGTH: usize = 96;

/// The member names whose values are measured times, in milliseconds.
const MEASURED_MEMBERS: [&str; 1] = ["latency_ms"];

/// What every measured time is written as.
const STAND_IN_MILLISECONDS: u64 = 12;

fn normalised_string(key: Option<&str>, text: &str) -> String {
    match key {
        Some("clientDataJSON") => {
            let decoded = URL_SAFE_NO_PAD
                .decode(text)
                .expect("client data in base64url");
            let data: Value = serde_json::from_slice(&decoded).expect("client data in JSON");
            let data = normalised(None, &data);
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&data).unwrap())
        }
        Some(key) if RANDOM_MEMBERS.contains(&key) => stand_in(text, STAND_IN_TEXT),
        Some("signature") if !text.bytes().all(is_lower_hex) => {
            stand_in(&"x".repeat(SIGNATURE_LENGTH), STAND_IN_TEXT)
        }
        _ if is_base64_uuid(text) => {
            let uuid = uuid::Uuid::parse_str(STAND_IN_UUID).unwrap();
            URL_SAFE_NO_PAD.encode(uuid.as_bytes())
        }
        _ => normalised_text(text),
    }
}

/// `text` with the rules of [`normalised`] applied.
fn normalised_text(text: &str) -> String {
    let text = replace_all(text, uuid_at);
    let text = replace_all(&text, timestamp_at);
    let text = replace_all(&text, port_at);
    let text = replace_all(&text, hex_at);
    replace_all(&text, token_at)
}

/// `text` with each match `found` finds (its length, and what to write instead) replaced.
fn replace_all(text: &str, found: fn(&str) -> Option<(usize, String)>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut boundary = true;
    while let Some(c) = rest.chars().next() {
        if boundary {
            if let Some((len, instead)) = found(rest) {
                out.push_str(&instead);
                rest = &rest[len..];
                boundary = !out.ends_with(|c: char| c.is_ascii_alphanumeric());
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
        boundary = !c.is_ascii_alphanumeric() && c != '_';
    }
    out
}

/// `text` written with the characters of `pattern` in turn, keeping any `=` padding.
fn stand_in(text: &str, pattern: &str) -> String {
    let pattern: Vec<char> = pattern.chars().collect();
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            if c == '=' {
                c
            } else {
                pattern[i % pattern.len()]
            }
        })
        .collect()
}

/// Whether `text` is a version-7 UUID's 16 bytes in base64url (a WebAuthn user handle).
fn is_base64_uuid(text: &str) -> bool {
    text.len() == 22
        && URL_SAFE_NO_PAD
            .decode(text)
            .is_ok_and(|bytes| bytes.len() == 16 && bytes[6] >> 4 == 7 && bytes[8] >> 6 == 2)
}

fn is_lower_hex(c: u8) -> bool {
    c.is_ascii_digit() || (b'a'..=b'f').contains(&c)
}

fn uuid_at(text: &str) -> Option<(usize, String)> {
    let bytes = text.as_bytes().get(..36)?;
    bytes
        .iter()
        .enumerate()
        .all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => is_lower_hex(*b),
        })
        .then(|| (36, STAND_IN_UUID.to_string()))
}

/// `YYYY-MM-DDTHH:MM:SS`, a fraction, and `Z` or an offset.
fn timestamp_at(text: &str) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd:dd";
    if bytes.len() < shape.len()
        || !shape.iter().zip(bytes).all(|(s, b)| match s {
            b'd' => b.is_ascii_digit(),
            _ => s == b,
        })
    {
        return None;
    }
    let mut len = shape.len();
    if bytes.get(len) == Some(&b'.') {
        len += 1;
        while bytes.get(len).is_some_and(u8::is_ascii_digit) {
            len += 1;
        }
    }
    match bytes.get(len) {
        Some(b'Z') => len += 1,
        Some(b'+' | b'-') if bytes.len() >= len + 6 => len += 6,
        _ => return None,
    }
    Some((len, STAND_IN_TIME.to_string()))
}

fn port_at(text: &str) -> Option<(usize, String)> {
    for host in ["127.0.0.1:", "localhost:"] {
        if let Some(rest) = text.strip_prefix(host) {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 {
                return Some((host.len() + digits, format!("{host}{STAND_IN_PORT}")));
            }
        }
    }
    None
}

fn hex_at(text: &str) -> Option<(usize, String)> {
    let run = text.bytes().take_while(|b| is_lower_hex(*b)).count();
    let ends = !text[run..].starts_with(|c: char| c.is_ascii_alphanumeric());
    let chosen = [SEED, GOOGLY_SEED].contains(&&text[..run]);
    (run >= 32 && ends && !chosen).then(|| (run, stand_in(&text[..run], STAND_IN_HEX)))
}

/// A lower-case prefix of two to eight letters, `_`, and 16 or more characters of base64 or
/// base64url.
fn token_at(text: &str) -> Option<(usize, String)> {
    let prefix = text.bytes().take_while(u8::is_ascii_lowercase).count();
    if !(2..=8).contains(&prefix) || text.as_bytes().get(prefix) != Some(&b'_') {
        return None;
    }
    let start = prefix + 1;
    let run = text[start..]
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || b"-_+/=".contains(b))
        .count();
    let random = &text[start..start + run];
    // Words joined by `_` (`game_your_turn`) are names, not randomness: a random part has a
    // digit.
    (run >= 16 && random.bytes().any(|b| b.is_ascii_digit())).then(|| {
        (
            start + run,
            format!("{}{}", &text[..start], stand_in(random, STAND_IN_TEXT)),
        )
    })
}

/// The first URL in `mail`'s plain-text part that contains `path`.
fn link_in(mail: &Sunk, path: &str) -> Option<String> {
    mail.text()
        .split_whitespace()
        .find(|word| word.contains(path) && word.starts_with("http"))
        .map(str::to_string)
}

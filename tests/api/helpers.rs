//! `spawn_app()` and the HTTP client the API tests share.

use std::net::TcpListener;
use std::sync::Arc;

use parlour::startup::{Application, Settings};
use parlour::store::{self, EventStore};
use reqwest::{Client, Method, Response, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::pg_server;

/// Which backend a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A server under test and everything needed to talk to it or restart it.
pub struct TestApp {
    pub address: String,
    pub database_url: String,
    pub store: Arc<dyn EventStore>,
    pub client: Client,
    _guard: Guard,
    /// Stops the server (and its workers, and so its pool) when the `TestApp` goes: a test that
    /// restarts ten times holds one server at a time, not ten servers' connections.
    _server: Option<Stopper>,
}

/// Aborts a spawned server when dropped.
struct Stopper(tokio::task::AbortHandle);

impl Drop for Stopper {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A fresh database for one test: a new SQLite file, or a new database on the Postgres server
/// the tests use (`pg_server`), dropped when the test ends, passed or failed.
pub async fn fresh_database(backend: Backend) -> (String, Guard) {
    match backend {
        Backend::Sqlite => {
            let dir = tempfile::tempdir().expect("temp dir");
            let url = format!("sqlite://{}/parlour.db", dir.path().display());
            (url, Some(Arc::new(dir)))
        }
        Backend::Postgres => {
            let source = pg_server::source().unwrap_or_else(|tried| panic!("{tried}"));
            let (server_url, container) = match source.url() {
                Some(url) => (url.to_string(), None),
                None => pg_server::start_container()
                    .await
                    .unwrap_or_else(|why| panic!("Docker could not start a Postgres: {why}")),
            };
            let name = format!("parlour_test_{}", uuid::Uuid::new_v4().simple());
            let admin = sqlx::PgPool::connect(&server_url)
                .await
                .expect("connect to Postgres");
            sqlx::query(&format!("CREATE DATABASE {name}"))
                .execute(&admin)
                .await
                .expect("create test database");
            admin.close().await;
            let url = with_database(&server_url, &name);
            let database = pg_server::TestDatabase { server_url, name };
            // The database is dropped before its container (if any) goes.
            let guard: Guard = Some(Arc::new((database, container)));
            (url, guard)
        }
    }
}

/// The same server URL naming another database: `postgres://u@h:p/db?x` → `postgres://u@h:p/name?x`.
pub fn with_database(server_url: &str, name: &str) -> String {
    let (base, query) = match server_url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (server_url, String::new()),
    };
    let (scheme, rest) = base.split_once("://").unwrap_or(("postgres", base));
    let authority = rest.split('/').next().unwrap_or(rest);
    format!("{scheme}://{authority}/{name}{query}")
}

/// What keeps a test database alive (a temp dir, a container) for as long as its server runs,
/// and drops it when the last clone goes.
pub type Guard = Option<Arc<dyn std::any::Any + Send + Sync>>;

/// Starts the server on a random port against a fresh database.
pub async fn spawn_app(backend: Backend) -> TestApp {
    let (url, guard) = fresh_database(backend).await;
    spawn_app_on(&url, guard).await
}

/// Starts another server on an existing database (a restart, or a second instance), with
/// no rate limits: the tests send thousands of requests a second from one address.
pub async fn spawn_app_on(url: &str, guard: Guard) -> TestApp {
    let settings = Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        // Bots answer at once: games with bots in them play to the end in seconds.
        bot_pace: std::time::Duration::ZERO,
        ..Settings::default()
    };
    spawn_app_with(url, guard, settings).await
}

/// The most Postgres connections one test server holds. The tests run side by side, some with
/// several servers on one database, all on one Postgres whose stock `max_connections` is 100:
/// the default share of 32 each would let two busy tests lock a third out of the server.
pub const TEST_DB_CONNECTIONS: u32 = 10;

/// `url` naming the running test as the connections' `application_name` (Postgres), so
/// `pg_stat_activity` and the server's log say which test holds a connection.
fn labelled(url: &str) -> String {
    if !url.starts_with("postgres") {
        return url.to_string();
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("parlour-test")
        .chars()
        .rev()
        .take(63)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '.'
            }
        })
        .collect::<String>();
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}application_name={test}")
}

/// `settings` with the database share cut to a test's (see [`TEST_DB_CONNECTIONS`]).
fn test_share(settings: Settings) -> Settings {
    let db = parlour::store::DbSettings {
        max_connections: settings.db.max_connections.min(TEST_DB_CONNECTIONS),
        ..settings.db
    };
    Settings { db, ..settings }
}

/// Starts a server on an existing database with these settings.
pub async fn spawn_app_with(url: &str, guard: Guard, settings: Settings) -> TestApp {
    parlour::telemetry::init_for_tests();
    let settings = test_share(settings);
    let store = store::connect_with(&labelled(url), &settings.db)
        .await
        .expect("open the store");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let app =
        Application::serve(listener, store.clone(), signer_for(url), settings).expect("build app");
    let address = format!("http://127.0.0.1:{}", app.port());
    let running = tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        database_url: url.to_string(),
        store,
        client: Client::new(),
        _guard: guard,
        _server: Some(Stopper(running.abort_handle())),
    }
}

/// The signing key of every server the tests start on the database at `url`: instances of one
/// deployment share one key file, and what is derived from it (snapshots' MACs, webhook
/// secrets' sealing) must hold across a restart; each database has its own.
pub fn signer_for(url: &str) -> parlour::receipts::Signer {
    let mut seed = Sha256::new();
    seed.update(b"parlour test signing key\0");
    seed.update(url.as_bytes());
    parlour::receipts::Signer::from_seed(seed.finalize().into())
}

impl TestApp {
    /// The signing key the servers on this database sign with (see [`signer_for`]).
    pub fn signer(&self) -> parlour::receipts::Signer {
        signer_for(&self.database_url)
    }

    /// A client for a server started some other way, on `database_url` through `store`.
    pub fn new(address: String, database_url: String, store: Arc<dyn EventStore>) -> TestApp {
        TestApp {
            address,
            database_url,
            store,
            client: Client::new(),
            _guard: None,
            _server: None,
        }
    }

    /// A second server on the same database, sharing nothing in memory with this one.
    pub async fn restart(&self) -> TestApp {
        spawn_app_on(&self.database_url, self._guard.clone()).await
    }

    /// A second server on the same database with these settings (no rate limits, bots at
    /// once, as `spawn_app_on`, whatever `settings` says of them).
    pub async fn restart_with(&self, settings: Settings) -> TestApp {
        let settings = Settings {
            rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
            bot_pace: std::time::Duration::ZERO,
            ..settings
        };
        spawn_app_with(&self.database_url, self._guard.clone(), settings).await
    }

    pub async fn request(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Response {
        let mut req = self
            .client
            .request(method, format!("{}{}", self.address, path));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            req = req.json(body);
        }
        req.send().await.expect("request failed")
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        let res = self.request(Method::GET, path, token, None).await;
        let status = res.status();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> (StatusCode, Value) {
        let res = self.request(Method::POST, path, token, Some(body)).await;
        let status = res.status();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// Creates a game and returns its id and the seats' tokens.
    pub async fn create_game(
        &self,
        game: &str,
        players: usize,
        seed: Option<&str>,
        options: Value,
    ) -> (String, Vec<String>) {
        let players: Vec<Value> = (0..players)
            .map(|i| json!({"name": format!("Player {i}")}))
            .collect();
        let mut body = json!({"game": game, "players": players, "options": options});
        if let Some(seed) = seed {
            body["seed"] = json!(seed);
        }
        let (status, created) = self.post("/v1/games", None, &body).await;
        assert_eq!(status, StatusCode::CREATED, "creating {game}: {created}");
        let id = created["id"].as_str().expect("id").to_string();
        let tokens = created["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| s["token"].as_str().expect("token").to_string())
            .collect();
        (id, tokens)
    }

    pub async fn act(&self, id: &str, token: &str, action: &Value) -> (StatusCode, Value) {
        self.post(&format!("/v1/games/{id}/actions"), Some(token), action)
            .await
    }

    pub async fn view(&self, id: &str, token: Option<&str>) -> Value {
        let (status, view) = self.get(&format!("/v1/games/{id}"), token).await;
        assert_eq!(status, StatusCode::OK, "{view}");
        view
    }

    /// The whole log as `token`'s seat sees it.
    pub async fn all_events(&self, id: &str, token: Option<&str>) -> Vec<Value> {
        let mut after = 0;
        let mut events = Vec::new();
        loop {
            let (status, page) = self
                .get(
                    &format!("/v1/games/{id}/events?after={after}&limit=1000"),
                    token,
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{page}");
            events.extend(page["events"].as_array().expect("events").iter().cloned());
            match page["next_after"].as_u64() {
                Some(next) => after = next,
                None => return events,
            }
        }
    }
}

/// Asserts a problem+json answer with this status and `type`.
pub async fn assert_problem(res: Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(res.status(), status);
    let content_type = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert_eq!(content_type, "application/problem+json");
    let body: Value = res.json().await.expect("problem body");
    assert_eq!(body["type"], json!(format!("/problems/{code}")), "{body}");
    assert_eq!(body["status"], json!(status.as_u16()));
    assert!(
        body["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{body}"
    );
    body
}

/// Asserts the audit is clean: the chain holds, the replay matches and, once the game is
/// over, the revealed seed and salt hash to the commitment and re-run every shuffle.
pub async fn assert_clean_audit(app: &TestApp, id: &str) {
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
    assert_eq!(audit["seed_ok"], json!(true), "{audit}");
    let seed = hex::decode(audit["seed"].as_str().expect("seed revealed")).expect("hex seed");
    let salt = hex::decode(audit["salt"].as_str().expect("salt revealed")).expect("hex salt");
    assert_eq!(
        hex::encode(Sha256::digest([seed, salt].concat())),
        audit["seed_commitment"].as_str().unwrap()
    );
}

/// Runs a test body once on SQLite and once on Postgres.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::helpers::spawn_app($crate::helpers::Backend::Sqlite).await).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::helpers::spawn_app($crate::helpers::Backend::Postgres).await).await;
                }
            )*
        }
    };
}

/// Signs the account of `token` in on a new device called `device` with a one-time code: the
/// new device's token.
pub async fn sign_in_with_code(app: &TestApp, token: &str, device: &str) -> String {
    let (status, code) = app
        .post("/v1/me/sign-in-codes", Some(token), &json!({}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{code}");
    let (status, signed_in) = app
        .post(
            "/v1/accounts/sign-in",
            None,
            &json!({"code": code["code"], "token_name": device}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{signed_in}");
    signed_in["token"]["secret"].as_str().unwrap().to_string()
}

/// Creates an account called `name`: its token.
pub async fn new_account(app: &TestApp, name: &str) -> String {
    let (status, created) = app.post("/v1/accounts", None, &json!({"name": name})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["token"]["secret"].as_str().unwrap().to_string()
}

/// A JSON list of card ids as strings.
pub fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list of cards")
        .iter()
        .map(|c| c.as_str().expect("a card id").to_string())
        .collect()
}

/// The caller's hand.
pub async fn hand(app: &TestApp, id: &str, token: &str) -> Vec<String> {
    ids(&app.view(id, Some(token)).await["you"]["hand"])
}

/// The events after `after`, as `token`'s seat (or a spectator) sees them.
pub async fn events_after(app: &TestApp, id: &str, token: Option<&str>, after: u64) -> Vec<Value> {
    let (status, page) = app
        .get(&format!("/v1/games/{id}/events?after={after}"), token)
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["events"].as_array().expect("events").clone()
}

/// The view as everyone at the table sees it: without the caller's own hand and moves.
pub fn table_part(view: &Value) -> Value {
    let mut view = view.clone();
    view.as_object_mut().expect("a view").remove("you");
    view["legal_actions"] = json!([]);
    view
}

/// A server running on `url` (until the handle is aborted) whose service tells the time by
/// `clock`, and that service itself (tests drive its clock sweep).
pub async fn serve_with_clock(
    url: &str,
    clock: Arc<parlour::service::ManualClock>,
    settings: Settings,
) -> (
    TestApp,
    Arc<parlour::service::Parlour>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    parlour::telemetry::init_for_tests();
    let settings = test_share(settings);
    let store = store::connect_with(&labelled(url), &settings.db)
        .await
        .expect("open the store");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let hooks = parlour::startup::Hooks {
        clock: Some(clock),
        ..parlour::startup::Hooks::default()
    };
    let app = Application::serve_with_hooks(
        listener,
        store.clone(),
        parlour::receipts::Signer::generate().expect("signing key"),
        settings,
        hooks,
    )
    .expect("build app");
    let service = app.service();
    let address = format!("http://127.0.0.1:{}", app.port());
    let running = tokio::spawn(app.run_until_stopped());
    (
        TestApp::new(address, url.to_string(), store),
        service,
        running,
    )
}

/// Ann (`host`) hosts a two-seat GIRL match to 1,000 points with the `extra` fields (a
/// clock, ...), and Bea (`guest`) takes the other seat of its first deal: the match's id and
/// the first deal's.
pub async fn hosted_girl_match(
    app: &TestApp,
    host: &str,
    guest: &str,
    extra: Value,
) -> (String, String) {
    let mut body = json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}],
                          "target": {"kind": "points", "points": 1000}});
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    let (status, created) = app.post("/v1/matches", Some(host), &body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let first = created["first_deal"].as_str().unwrap().to_string();
    assert_eq!(created["hosted"]["id"], json!(first));
    let res = app
        .request(
            Method::POST,
            &format!("/v1/games/{first}/seats/1/claim"),
            Some(guest),
            Some(&json!({})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    (id, first)
}

//! Outages: with the database stopped or frozen every request that needs it answers 503
//! problem+json with `Retry-After` promptly (never hangs, never 500), nothing acknowledged is
//! lost, and a move whose outcome the server could not learn is said to be unknown and is
//! recorded exactly once when retried with its Idempotency-Key.
//!
//! The server reaches Postgres through `Proxy`, a TCP proxy the test controls, so the test can
//! stop the database (connections dropped and refused), freeze it (connections accepted and
//! held but nothing ever answered, as with a hung host or a network black hole), and lose the
//! answer to a write that the database did commit.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::watch;

use parlour::limits::StreamLimits;
use parlour::startup::Settings;

use crate::helpers::{
    assert_problem, fresh_database, spawn_app_on, spawn_app_with, Backend, TestApp,
};

/// What the proxy does with the traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Passes everything through.
    Forward,
    /// The database is down: open connections are dropped and new ones refused.
    Stopped,
    /// The database is frozen: connections are accepted and kept, nothing passes either way.
    Frozen,
    /// Passes everything, but drops the connection instead of passing on the answer to the
    /// next INSERT, which the database has committed by then; then forwards again.
    LoseAnInsertAnswer,
}

/// The most any answer may take: generous, only to tell an answer from a hang.
const NO_HANG: Duration = Duration::from_secs(10);

/// A TCP proxy in front of Postgres that the test switches between modes.
struct Proxy {
    address: SocketAddr,
    mode: Arc<watch::Sender<Mode>>,
}

impl Proxy {
    async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let address = listener.local_addr().expect("proxy address");
        let mode = Arc::new(watch::channel(Mode::Forward).0);
        tokio::spawn(accept_loop(listener, address, upstream, mode.clone()));
        Proxy { address, mode }
    }

    fn set(&self, mode: Mode) {
        self.mode.send_replace(mode);
    }
}

/// Accepts connections, except while stopped: then the port is closed, so connecting is
/// refused as it is when the database is down, and it is opened again afterwards.
async fn accept_loop(
    listener: TcpListener,
    address: SocketAddr,
    upstream: SocketAddr,
    mode: Arc<watch::Sender<Mode>>,
) {
    let mut listener = Some(listener);
    let mut watching = mode.subscribe();
    loop {
        let current = *watching.borrow_and_update();
        match (&listener, current) {
            (Some(_), Mode::Stopped) => listener = None,
            (None, Mode::Stopped) => {}
            (None, _) => listener = Some(rebind(address).await),
            (Some(_), _) => {}
        }
        match &listener {
            None => {
                if watching.changed().await.is_err() {
                    return;
                }
            }
            Some(open) => {
                tokio::select! {
                    accepted = open.accept() => {
                        if let Ok((client, _)) = accepted {
                            tokio::spawn(serve(client, upstream, mode.clone()));
                        }
                    }
                    changed = watching.changed() => {
                        if changed.is_err() {
                            return;
                        }
                    }
                }
            }
        }
    }
}

async fn rebind(address: SocketAddr) -> TcpListener {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.set_reuseaddr(true).expect("reuseaddr");
    socket.bind(address).expect("rebind the proxy's port");
    socket.listen(1024).expect("listen")
}

/// Waits while frozen; false once stopped (the connection must be dropped).
async fn wait_to_forward(mode: &mut watch::Receiver<Mode>) -> bool {
    loop {
        let current = *mode.borrow_and_update();
        match current {
            Mode::Forward | Mode::LoseAnInsertAnswer => return true,
            Mode::Stopped => return false,
            Mode::Frozen => {
                if mode.changed().await.is_err() {
                    return false;
                }
            }
        }
    }
}

async fn serve(client: TcpStream, upstream: SocketAddr, mode: Arc<watch::Sender<Mode>>) {
    if !wait_to_forward(&mut mode.subscribe()).await {
        return;
    }
    let Ok(server) = TcpStream::connect(upstream).await else {
        return;
    };
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    // When either direction ends, both sockets are dropped: the connection is gone.
    tokio::select! {
        _ = pump(client_read, server_write, mode.clone(), false) => {}
        _ = pump(server_read, client_write, mode.clone(), true) => {}
    }
}

async fn pump(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    mode: Arc<watch::Sender<Mode>>,
    answers: bool,
) {
    let mut watching = mode.subscribe();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        if !wait_to_forward(&mut watching).await {
            return;
        }
        tokio::select! {
            read = from.read(&mut buffer) => {
                let n = match read {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                // A frozen server sends nothing more, even what it had read before freezing.
                if !wait_to_forward(&mut watching).await {
                    return;
                }
                let chunk = &buffer[..n];
                // Postgres sends an INSERT's `CommandComplete` ("INSERT 0 <rows>") only after
                // the implicit transaction has committed, at `Sync`.
                if answers
                    && *watching.borrow() == Mode::LoseAnInsertAnswer
                    && chunk.windows(9).any(|w| w == b"INSERT 0 ")
                {
                    mode.send_replace(Mode::Forward);
                    return;
                }
                if to.write_all(chunk).await.is_err() {
                    return;
                }
            }
            changed = watching.changed() => {
                if changed.is_err() {
                    return;
                }
            }
        }
    }
}

/// A server on a fresh Postgres database reached through a proxy the test controls.
async fn app_behind_proxy() -> (TestApp, Proxy) {
    let (direct_url, guard) = fresh_database(Backend::Postgres).await;
    // The proxy speaks TCP: the private cluster's own URL is a Unix socket.
    let direct_url = crate::pg_server::source().unwrap().over_tcp(&direct_url);
    let (scheme, rest) = direct_url.split_once("://").expect("a URL");
    let (authority, path) = rest.split_once('/').expect("a database name");
    let (user, host) = match authority.rsplit_once('@') {
        Some((user, host)) => (format!("{user}@"), host),
        None => (String::new(), authority),
    };
    let host = if host.contains(':') {
        host.to_string()
    } else {
        format!("{host}:5432")
    };
    let upstream = tokio::net::lookup_host(&host)
        .await
        .expect("resolve Postgres")
        .find(SocketAddr::is_ipv4)
        .expect("an IPv4 address for Postgres");
    let proxy = Proxy::start(upstream).await;
    // Plaintext through the proxy: it recognises an INSERT's answer on the wire to lose it,
    // which it cannot do once the server and Postgres speak TLS (`prefer`, the default).
    let separator = if path.contains('?') { '&' } else { '?' };
    let proxied = format!(
        "{scheme}://{user}{}/{path}{separator}sslmode=disable",
        proxy.address
    );
    (spawn_app_on(&proxied, guard).await, proxy)
}

/// Sends a request and insists the answer comes back without hanging.
async fn timed(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> Response {
    let started = Instant::now();
    let mut request = app
        .client
        .request(method, format!("{}{path}", app.address))
        .timeout(NO_HANG * 2);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.expect("an answer, not a hang");
    let took = started.elapsed();
    assert!(took < NO_HANG, "{path} took {took:?}");
    response
}

/// Asserts a 503 problem+json with `Retry-After`, and returns its body.
async fn assert_unavailable(response: Response) -> Value {
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    assert!(retry_after.is_some_and(|s| s > 0), "Retry-After in seconds");
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert_eq!(content_type, "application/problem+json");
    let body: Value = response.json().await.expect("a problem body");
    assert_eq!(body["type"], json!("/problems/unavailable"), "{body}");
    assert_eq!(body["status"], json!(503));
    body
}

/// The first legal action of the seat to act, and that seat's token.
async fn a_legal_move(app: &TestApp, id: &str, tokens: &[String]) -> (String, Value) {
    let view = app.view(id, None).await;
    let seat = view["to_act"][0].as_u64().expect("someone to act") as usize;
    let token = tokens[seat].clone();
    let mine = app.view(id, Some(&token)).await;
    let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(7);
    let action = parlour_domain::playout::instantiate(&mine["legal_actions"][0], &mut rng);
    (token, action)
}

async fn every_database_path_answers_503_promptly_and_recovers(outage: Mode) {
    let (app, proxy) = app_behind_proxy().await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let before = app.view(&id, None).await["version"]
        .as_u64()
        .expect("version");
    let (token, action) = a_legal_move(&app, &id, &tokens).await;
    // A second server on the same database has nothing in memory: every request needs it.
    let cold = app.restart().await;

    proxy.set(outage);
    let game = format!("/v1/games/{id}");
    let paths = [
        game.clone(),
        format!("{game}/events"),
        format!("{game}/stream"),
    ];
    for path in &paths {
        let response = timed(&cold, Method::GET, path, Some(&token), None).await;
        assert_unavailable(response).await;
    }
    let actions = format!("{game}/actions");
    let response = timed(&cold, Method::POST, &actions, Some(&token), Some(&action)).await;
    assert_unavailable(response).await;
    // The warm server knows the game and the token: only the append needs the database.
    let response = timed(&app, Method::POST, &actions, Some(&token), Some(&action)).await;
    let problem = assert_unavailable(response).await;
    // A connection that could not even be had wrote nothing, and says so by not saying
    // the outcome is unknown.
    assert_eq!(problem.get("outcome"), None, "{problem}");
    let response = timed(&app, Method::GET, "/readyz", None, None).await;
    assert_unavailable(response).await;
    let response = timed(&app, Method::GET, "/healthz", None, None).await;
    assert_eq!(response.status(), StatusCode::OK);

    proxy.set(Mode::Forward);
    // Nothing was recorded while the database was away, and everything works again.
    assert_eq!(cold.view(&id, None).await["version"], json!(before));
    let (status, moved) = app.act(&id, &token, &action).await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    let after = moved["version"].as_u64().expect("version");
    assert!(after > before);
    // Read back through a server that has not seen the move, so the answer is the log's.
    let reader = app.restart().await;
    assert_eq!(
        reader.view(&id, Some(&token)).await["version"],
        json!(after)
    );
    assert_eq!(reader.all_events(&id, None).await.len() as u64, after);
    let response = timed(&reader, Method::GET, &paths[2], Some(&token), None).await;
    assert_eq!(response.status(), StatusCode::OK);
    drop(response);
    assert_eq!(app.get("/readyz", None).await.0, StatusCode::OK);
    let (_, audit) = app.get(&format!("{game}/audit"), None).await;
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_database_stopped_requests_answer_503_with_retry_after_and_nothing_is_lost() {
    every_database_path_answers_503_promptly_and_recovers(Mode::Stopped).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_database_frozen_requests_answer_503_with_retry_after_instead_of_hanging() {
    every_database_path_answers_503_promptly_and_recovers(Mode::Frozen).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_whose_answer_was_lost_is_unknown_and_its_retry_records_it_exactly_once() {
    let (app, proxy) = app_behind_proxy().await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let before = app.view(&id, None).await["version"]
        .as_u64()
        .expect("version");
    let (token, action) = a_legal_move(&app, &id, &tokens).await;
    let actions = format!("{}/v1/games/{id}/actions", app.address);
    let send = || {
        app.client
            .post(&actions)
            .bearer_auth(&token)
            .header("Idempotency-Key", "move-1")
            .timeout(NO_HANG * 2)
            .json(&action)
            .send()
    };

    proxy.set(Mode::LoseAnInsertAnswer);
    let started = Instant::now();
    let response = send().await.expect("an answer, not a hang");
    assert!(started.elapsed() < NO_HANG);
    let problem = assert_unavailable(response).await;
    assert_eq!(problem["outcome"], json!("unknown"), "{problem}");
    let detail = problem["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("same Idempotency-Key"), "{detail}");

    // The database did commit it, and the server now says so rather than its stale memory.
    let recorded = app.view(&id, None).await["version"]
        .as_u64()
        .expect("version");
    assert!(recorded > before, "the lost answer's move was committed");

    // The retry answers as the first attempt would have, and records nothing more.
    let response = send().await.expect("an answer");
    assert_eq!(response.status(), StatusCode::OK);
    let retried: Value = response.json().await.expect("a view");
    assert_eq!(retried["version"], json!(recorded));
    let response = send().await.expect("an answer");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(app.all_events(&id, None).await.len() as u64, recorded);
    let fresh = app.restart().await;
    assert_eq!(fresh.view(&id, None).await["version"], json!(recorded));
    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
}

/// A server on a fresh database of `backend` with these settings.
async fn app_with(backend: Backend, settings: Settings) -> TestApp {
    let (url, guard) = fresh_database(backend).await;
    spawn_app_with(&url, guard, settings).await
}

/// An HTTP/1.1 GET on a raw connection from `local`, kept open; returns the status line's code,
/// the head (lower-cased) and the connection, which holds the stream open while it lives.
async fn open(
    server: SocketAddr,
    local: IpAddr,
    path: &str,
    token: Option<&str>,
) -> (u16, String, TcpStream) {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::new(local, 0))
        .expect("bind a local address");
    let mut connection = socket.connect(server).await.expect("connect");
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let request = format!("GET {path} HTTP/1.1\r\nHost: parlour\r\n{auth}\r\n");
    connection
        .write_all(request.as_bytes())
        .await
        .expect("send");
    let mut head = Vec::new();
    let mut byte = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(NO_HANG, connection.read(&mut byte))
            .await
            .expect("an answer, not a hang")
            .expect("read");
        assert!(n > 0, "the server closed the connection: {head:?}");
        head.extend_from_slice(&byte[..n]);
    }
    let head = String::from_utf8_lossy(&head).to_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    (status, head, connection)
}

/// Opens `count` streams that must all be admitted.
async fn open_many(
    server: SocketAddr,
    local: IpAddr,
    path: &str,
    token: Option<&str>,
    count: usize,
) -> Vec<TcpStream> {
    let mut streams = Vec::with_capacity(count);
    for i in 0..count {
        let (status, head, connection) = open(server, local, path, token).await;
        assert_eq!(status, 200, "stream {i}: {head}");
        streams.push(connection);
    }
    streams
}

/// A refused stream: this status, problem+json, and `Retry-After`.
fn assert_refused(status: u16, head: &str, expected: u16) {
    assert_eq!(status, expected, "{head}");
    assert!(
        head.contains("content-type: application/problem+json"),
        "{head}"
    );
    assert!(head.contains("retry-after: "), "{head}");
}

async fn streams_are_capped_per_token_per_client_and_in_total_and_healthz_still_answers(
    backend: Backend,
) {
    let limits = StreamLimits {
        per_token: 100,
        per_client: 1_500,
        total: 2_000,
    };
    let app = app_with(
        backend,
        Settings {
            streams: limits,
            ..Settings::default()
        },
    )
    .await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let server: SocketAddr = app
        .address
        .trim_start_matches("http://")
        .parse()
        .expect("the server's address");
    let path = format!("/v1/games/{id}/stream");
    let here = IpAddr::from([127, 0, 0, 1]);
    let elsewhere = IpAddr::from([127, 0, 0, 2]);

    let seat = open_many(server, here, &path, Some(&tokens[0]), limits.per_token).await;
    let (status, head, _) = open(server, here, &path, Some(&tokens[0])).await;
    assert_refused(status, &head, 429);
    let mut everyone = open_many(
        server,
        here,
        &path,
        None,
        limits.per_client - limits.per_token,
    )
    .await;
    let (status, head, _) = open(server, here, &path, Some(&tokens[1])).await;
    assert_refused(status, &head, 429);
    everyone.extend(
        open_many(
            server,
            elsewhere,
            &path,
            None,
            limits.total - limits.per_client,
        )
        .await,
    );
    let (status, head, _) = open(server, IpAddr::from([127, 0, 0, 3]), &path, None).await;
    assert_refused(status, &head, 503);

    // At the cap the server still answers everything else.
    let response = timed(&app, Method::GET, "/healthz", None, None).await;
    assert_eq!(response.status(), StatusCode::OK);
    let response = timed(&app, Method::GET, &format!("/v1/games/{id}"), None, None).await;
    assert_eq!(response.status(), StatusCode::OK);

    // Closing streams frees their slots (the server notices the closed connections).
    drop(seat);
    let started = Instant::now();
    loop {
        let (status, head, _connection) = open(server, here, &path, Some(&tokens[0])).await;
        if status == 200 {
            break;
        }
        assert_refused(status, &head, 503);
        assert!(
            started.elapsed() < NO_HANG * 3,
            "closed streams were never freed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(everyone);
}

async fn a_move_past_the_log_limit_is_refused_and_changes_nothing(backend: Backend) {
    let app = app_with(
        backend,
        Settings {
            max_events_per_game: 1,
            ..Settings::default()
        },
    )
    .await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let before = app.view(&id, None).await["version"].clone();
    assert_eq!(before, json!(1), "GIRL opens with one event, the deal");
    let (token, action) = a_legal_move(&app, &id, &tokens).await;
    let response = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/actions"),
            Some(&token),
            Some(&action),
        )
        .await;
    let problem = assert_problem(response, StatusCode::CONFLICT, "log-full").await;
    assert_eq!(problem["limit"], json!(1), "{problem}");
    assert_eq!(app.view(&id, None).await["version"], before);
}

mod sqlite {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn streams_are_capped_per_token_per_client_and_in_total_and_healthz_still_answers() {
        super::streams_are_capped_per_token_per_client_and_in_total_and_healthz_still_answers(
            Backend::Sqlite,
        )
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_move_past_the_log_limit_is_refused_and_changes_nothing() {
        super::a_move_past_the_log_limit_is_refused_and_changes_nothing(Backend::Sqlite).await;
    }
}

mod postgres {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn streams_are_capped_per_token_per_client_and_in_total_and_healthz_still_answers() {
        super::streams_are_capped_per_token_per_client_and_in_total_and_healthz_still_answers(
            Backend::Postgres,
        )
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_move_past_the_log_limit_is_refused_and_changes_nothing() {
        super::a_move_past_the_log_limit_is_refused_and_changes_nothing(Backend::Postgres).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_sqlite_file_locked_by_another_writer_a_move_answers_503_and_writes_nothing() {
    let settings = Settings {
        db: parlour::store::DbSettings {
            acquire_timeout: Duration::from_secs(1),
            statement_timeout: Duration::from_secs(1),
            ..parlour::store::DbSettings::default()
        },
        ..Settings::default()
    };
    let app = app_with(Backend::Sqlite, settings).await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let before = app.view(&id, None).await["version"].clone();
    let (token, action) = a_legal_move(&app, &id, &tokens).await;

    let other = sqlx::SqlitePool::connect(&app.database_url)
        .await
        .expect("a second writer");
    let mut writer = other.acquire().await.expect("a connection");
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *writer)
        .await
        .expect("take the write lock");
    let actions = format!("/v1/games/{id}/actions");
    let response = timed(&app, Method::POST, &actions, Some(&token), Some(&action)).await;
    let problem = assert_unavailable(response).await;
    assert_eq!(
        problem.get("outcome"),
        None,
        "a busy database wrote nothing"
    );
    sqlx::query("ROLLBACK")
        .execute(&mut *writer)
        .await
        .expect("release the lock");
    drop(writer);

    assert_eq!(app.view(&id, None).await["version"], before);
    let (status, moved) = app.act(&id, &token, &action).await;
    assert_eq!(status, StatusCode::OK, "{moved}");
}

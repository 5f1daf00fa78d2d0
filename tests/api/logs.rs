//! Request ids, traces and logs: a client's `x-request-id` is kept (when safe) and echoed, a
//! `traceparent` is continued, and the real binary writes one access line per request, as
//! JSON with `--log-format json`, and without colour when its output is not a terminal.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use reqwest::{Client, StatusCode};
use serde_json::Value;

use crate::helpers::{spawn_app, Backend, TestApp};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

async fn catalog_with(app: &TestApp, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = app.client.get(format!("{}/v1/catalog", app.address));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

fn header(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
}

#[tokio::test]
async fn a_safe_request_id_from_the_client_is_echoed() {
    let app = spawn_app(Backend::Sqlite).await;
    let res = catalog_with(&app, &[("x-request-id", "client-42:abc/7")]).await;
    assert_eq!(
        header(&res, "x-request-id").as_deref(),
        Some("client-42:abc/7")
    );
}

#[tokio::test]
async fn an_unsafe_or_overlong_request_id_is_replaced_by_a_generated_one() {
    let app = spawn_app(Backend::Sqlite).await;
    let long = "a".repeat(129);
    for sent in ["two words", "<script>", long.as_str()] {
        let res = catalog_with(&app, &[("x-request-id", sent)]).await;
        let echoed = header(&res, "x-request-id").expect("an id");
        assert_ne!(echoed, sent);
        assert!(uuid::Uuid::parse_str(&echoed).is_ok(), "{echoed}");
    }
    let res = catalog_with(&app, &[]).await;
    let generated = header(&res, "x-request-id").expect("an id");
    assert!(uuid::Uuid::parse_str(&generated).is_ok(), "{generated}");
}

#[tokio::test]
async fn a_traceparent_is_continued_in_a_new_span_of_the_same_trace() {
    let app = spawn_app(Backend::Sqlite).await;
    let res = catalog_with(&app, &[("traceparent", TRACEPARENT)]).await;
    let echoed = header(&res, "traceparent").expect("a traceparent");
    let parts: Vec<&str> = echoed.split('-').collect();
    assert_eq!(parts.len(), 4, "{echoed}");
    assert_eq!(parts[0], "00");
    assert_eq!(parts[1], TRACE_ID);
    assert_eq!(parts[2].len(), 16);
    assert_ne!(parts[2], "00f067aa0ba902b7", "the server's own span");
    assert_eq!(parts[3], "01");
}

#[tokio::test]
async fn a_malformed_traceparent_starts_no_trace() {
    let app = spawn_app(Backend::Sqlite).await;
    for sent in [
        "garbage",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
    ] {
        let res = catalog_with(&app, &[("traceparent", sent)]).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "traceparent"), None, "{sent}");
    }
}

/// The real `parlour` binary with its standard output read line by line.
struct LoggingServer {
    child: Child,
    address: String,
    lines: mpsc::Receiver<String>,
    _dir: tempfile::TempDir,
}

impl LoggingServer {
    async fn start(args: &[&str], rust_log: &str) -> LoggingServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = tempfile::tempdir().unwrap();
        let database = format!("sqlite://{}/parlour.db", dir.path().display());
        let mut child = Command::new(env!("CARGO_BIN_EXE_parlour"))
            .args(["--addr", &format!("127.0.0.1:{port}")])
            .args(["--database-url", &database])
            .args(args)
            .env("RUST_LOG", rust_log)
            .env("PARLOUR_SIGNING_KEY_FILE", dir.path().join("signing.key"))
            .env_remove("PARLOUR_LOG_FORMAT")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start parlour");
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let server = LoggingServer {
            child,
            address: format!("http://127.0.0.1:{port}"),
            lines,
            _dir: dir,
        };
        assert!(
            crate::crash::ready_soon(&server.address).await,
            "parlour did not become ready"
        );
        server
    }

    /// Lines written until one satisfies `wanted` (which is returned last); fails if none
    /// comes within a bound far above what it takes.
    fn lines_until(&self, wanted: impl Fn(&str) -> bool) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(20)) {
                Ok(line) => {
                    let done = wanted(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no such line; the server wrote:\n{}", seen.join("\n")),
            }
        }
    }
}

impl LoggingServer {
    /// Kills the server and returns every line it wrote that was not read yet.
    fn stop_and_read_the_rest(mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(20)) {
            rest.push(line);
        }
        rest
    }
}

impl Drop for LoggingServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn json_logs_have_an_access_line_per_request_with_route_status_time_and_ids() {
    let server = LoggingServer::start(&["--log-format", "json"], "info").await;
    let missing = uuid::Uuid::new_v4();
    let res = Client::new()
        .get(format!("{}/v1/games/{missing}", server.address))
        .header("x-request-id", "logs-json-1")
        .header("traceparent", TRACEPARENT)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let lines =
        server.lines_until(|line| line.contains("logs-json-1") && line.contains("parlour::access"));
    for line in &lines {
        let _: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    let access: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(access["level"], "INFO", "{access}");
    assert_eq!(access["target"], "parlour::access", "{access}");
    assert_eq!(access["method"], "GET", "{access}");
    assert_eq!(access["route"], "/v1/games/{id}", "{access}");
    assert_eq!(access["status"], 404, "{access}");
    assert_eq!(access["request_id"], "logs-json-1", "{access}");
    assert!(access["duration_ms"].as_f64().is_some(), "{access}");
    assert_eq!(access["span"]["trace_id"], TRACE_ID, "{access}");
    // The line names the route; the raw path is in the request's span, cut to a bound.
    assert_eq!(access["message"], "GET /v1/games/{id} 404", "{access}");
    assert_eq!(
        access["span"]["target"],
        format!("/v1/games/{missing}"),
        "{access}"
    );
}

#[tokio::test]
async fn text_logs_written_to_a_pipe_have_no_colour() {
    let server = LoggingServer::start(&[], "info").await;
    Client::new()
        .get(format!("{}/v1/catalog", server.address))
        .header("x-request-id", "logs-text-1")
        .send()
        .await
        .unwrap();
    let lines =
        server.lines_until(|line| line.contains("logs-text-1") && line.contains("/v1/catalog 200"));
    for line in &lines {
        assert!(!line.contains('\u{1b}'), "a colour code in {line:?}");
    }
}

#[tokio::test]
async fn the_access_log_can_be_silenced_on_its_own() {
    let server = LoggingServer::start(&["--log-format", "json"], "info,parlour::access=off").await;
    let res = Client::new()
        .get(format!("{}/v1/catalog", server.address))
        .header("x-request-id", "logs-silent-1")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    // A line is written before its answer is sent, so once the answer is in, everything the
    // request logged is in the pipe.
    let lines = server.stop_and_read_the_rest();
    assert!(
        lines.iter().any(|line| line.contains("parlour is serving")),
        "other info lines are still written: {lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|line| line.contains("play at /play") && line.contains("API docs at /docs")),
        "the start-up line says where to play and where the docs are: {lines:?}"
    );
    assert!(
        lines.iter().all(|line| !line.contains("parlour::access")),
        "{lines:?}"
    );
}

#[tokio::test]
async fn a_credential_in_a_query_never_reaches_the_log_though_the_route_does() {
    let server = LoggingServer::start(&["--log-format", "json"], "info").await;
    let game = uuid::Uuid::new_v4();
    let secrets = [
        ("invitation", "inv_5ec12e7a11ce0000000000000000beef"),
        ("code", "signin_5ec12e7a11ce00000000c0de"),
        (
            "token",
            "acct_5ec12e7a11ce0000000000000000000000000000000000000000000000007043",
        ),
        (
            "access_token",
            "5ec12e7a11ce000000000000000000000000000000000000000000000000acce",
        ),
        (
            "ticket",
            "stkt_5ec12e7a11ce00000000000000000000000000000000000000000000000071c7",
        ),
    ];
    let client = Client::new();
    for (i, (name, secret)) in secrets.iter().enumerate() {
        // The invitation's own link, a ticket on the stream that reads it, and the other names
        // on a route that reads no query.
        let url = if *name == "invitation" {
            format!(
                "{}/play/games/{game}?seat=1&{name}={secret}",
                server.address
            )
        } else if *name == "ticket" {
            format!("{}/v1/games/{game}/stream?{name}={secret}", server.address)
        } else {
            format!("{}/v1/games/{game}?{name}={secret}&wait=1", server.address)
        };
        client
            .get(url)
            .header("x-request-id", format!("logs-secret-{i}"))
            .send()
            .await
            .unwrap();
    }
    let last = format!("logs-secret-{}", secrets.len() - 1);
    let lines = server.lines_until(|line| line.contains(&last) && line.contains("parlour::access"));
    for (i, (name, secret)) in secrets.iter().enumerate() {
        for line in &lines {
            assert!(!line.contains(secret), "the {name} is in the log: {line}");
        }
        let id = format!("logs-secret-{i}");
        let access = lines
            .iter()
            .filter(|line| line.contains(&id) && line.contains("parlour::access"))
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .next()
            .unwrap_or_else(|| panic!("no access line for {id}: {lines:?}"));
        // The web client's pages are one route: `/play` and whatever follows.
        let route = if *name == "invitation" {
            "/play{tail:.*}"
        } else if *name == "ticket" {
            "/v1/games/{id}/stream"
        } else {
            "/v1/games/{id}"
        };
        assert_eq!(access["route"], route, "{access}");
        let target = access["span"]["target"].as_str().unwrap_or_default();
        assert!(
            target.contains(&format!("{name}=[redacted]")),
            "the request's target says a {name} was there: {target}"
        );
    }
}

#[tokio::test]
async fn at_debug_a_moves_lines_follow_it_from_its_request_through_the_use_case_to_each_store_call()
{
    let server = LoggingServer::start(&["--log-format", "json"], "debug").await;
    let client = Client::new();
    let created: Value = client
        .post(format!("{}/v1/games", server.address))
        .json(&serde_json::json!({"game": "girl", "players": [{"name": "Ada"}, {"name": "Bea"}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let game = created["id"].as_str().unwrap().to_string();
    let token = created["seats"][0]["token"].as_str().unwrap().to_string();
    // A keyed move: the commit path looks its key up in the store before deciding, so a store
    // call is made inside the move's spans whatever the rules then say of it.
    let res = client
        .post(format!("{}/v1/games/{game}/actions", server.address))
        .bearer_auth(&token)
        .header("idempotency-key", "logs-spans-1")
        .header("x-request-id", "logs-spans-1")
        .json(&serde_json::json!({"type": "turn_up"}))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success() || res.status().is_client_error());
    let names = |line: &Value| -> Vec<String> {
        line["spans"]
            .as_array()
            .map(|spans| {
                spans
                    .iter()
                    .map(|s| s["name"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let lines = server.lines_until(|line| {
        let Ok(line) = serde_json::from_str::<Value>(line) else {
            return false;
        };
        let names = names(&line);
        names.iter().any(|n| n == "store") && names.iter().any(|n| n == "act")
    });
    let seen_before = lines.clone();
    let line: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    let spans = line["spans"].as_array().unwrap();
    let order = names(&line);
    let at = |name: &str| order.iter().position(|n| n == name).unwrap();
    // Outermost first: the request, the move, its commit, the store call.
    assert!(
        at("act") < at("commit") && at("commit") < at("store"),
        "{line}"
    );
    assert_eq!(spans[0]["request_id"], "logs-spans-1", "{line}");
    assert_eq!(spans[at("act")]["game"], game.as_str(), "{line}");
    assert_eq!(spans[at("commit")]["game"], game.as_str(), "{line}");
    assert_eq!(spans[at("store")]["call"], "idempotent_move", "{line}");

    // The bus hands the game's entries on, each in a line of its own within a `bus` span
    // (the game's creation is enough: it is committed before the move is sent), whether
    // before the move's lines or after them.
    let handed_on = |line: &str| {
        serde_json::from_str::<Value>(line)
            .is_ok_and(|line| line["message"] == "handed on" && line["game"] == game.as_str())
    };
    let line = match seen_before.iter().find(|line| handed_on(line)) {
        Some(line) => line.clone(),
        None => server.lines_until(handed_on).pop().unwrap(),
    };
    let line: Value = serde_json::from_str(&line).unwrap();
    assert!(names(&line).iter().any(|n| n == "bus"), "{line}");
    assert_eq!(line["seq"], 1, "{line}");
}

//! Killing the server at any moment loses nothing that was acknowledged: the real `parlour`
//! binary is killed with SIGKILL in the middle of a stream of moves, restarted on the same
//! database, and every move it answered 200 to must still be in the log.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{fresh_database, Backend};

/// Whether the server at `address` answers `/readyz` with 200 within ten seconds (a bound on
/// how long a broken start hangs a test, not a claim about speed).
pub(crate) async fn ready_soon(address: &str) -> bool {
    let client = Client::new();
    for _ in 0..200 {
        if let Ok(res) = client.get(format!("{address}/readyz")).send().await {
            if res.status() == StatusCode::OK {
                return true;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

pub(crate) struct Server {
    child: Child,
    pub(crate) address: String,
    /// Holds the receipt signing key the server creates, so none is left in the working tree.
    _key_dir: tempfile::TempDir,
}

impl Server {
    pub(crate) async fn start(database_url: &str) -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let address = format!("127.0.0.1:{port}");
        let key_dir = tempfile::tempdir().expect("temp dir");
        let child = Command::new(env!("CARGO_BIN_EXE_parlour"))
            .args(["--addr", &address, "--database-url", database_url])
            .env("RUST_LOG", "warn")
            .env(
                "PARLOUR_DB_CONNECTIONS",
                crate::helpers::TEST_DB_CONNECTIONS.to_string(),
            )
            .env(
                "PARLOUR_SIGNING_KEY_FILE",
                key_dir.path().join("signing.key"),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start parlour");
        let server = Server {
            child,
            address: format!("http://{address}"),
            _key_dir: key_dir,
        };
        if !ready_soon(&server.address).await {
            server.kill();
            panic!("parlour did not become ready");
        }
        server
    }

    pub(crate) fn kill(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    // A failing test must not leave a server running.
    fn drop(&mut self) {
        self.stop();
    }
}

/// Plays random moves on several games until the server stops answering; returns, per game,
/// the highest version the server acknowledged.
async fn play_until_killed(
    address: &str,
    games: &[(String, Vec<String>)],
    acknowledged: &mut [u64],
    seed: u64,
) {
    let client = Client::new();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    loop {
        let g = (rng.next_u64() % games.len() as u64) as usize;
        let (id, tokens) = &games[g];
        let Ok(res) = client.get(format!("{address}/v1/games/{id}")).send().await else {
            return;
        };
        let Ok(public) = res.json::<Value>().await else {
            return;
        };
        if public["status"] == json!("finished") {
            continue;
        }
        let seat = public["to_act"][0].as_u64().unwrap_or(0) as usize;
        let Ok(res) = client
            .get(format!("{address}/v1/games/{id}"))
            .bearer_auth(&tokens[seat])
            .send()
            .await
        else {
            return;
        };
        let Ok(mine) = res.json::<Value>().await else {
            return;
        };
        let body = instantiate(&mine["legal_actions"][0], &mut rng);
        let Ok(res) = client
            .post(format!("{address}/v1/games/{id}/actions"))
            .bearer_auth(&tokens[seat])
            .json(&body)
            .send()
            .await
        else {
            return;
        };
        if res.status() != StatusCode::OK {
            return;
        }
        let Ok(view) = res.json::<Value>().await else {
            return;
        };
        acknowledged[g] = acknowledged[g].max(view["version"].as_u64().unwrap_or(0));
    }
}

async fn a_killed_server_loses_no_acknowledged_move(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    let server = Server::start(&url).await;
    let client = Client::new();
    let mut games = Vec::new();
    for (i, game) in ["girl", "british-birds", "history-of-england", "googly"]
        .iter()
        .enumerate()
    {
        let players: Vec<Value> = (0..3).map(|p| json!({"name": format!("P{p}")})).collect();
        let created: Value = client
            .post(format!("{}/v1/games", server.address))
            .json(&json!({"game": game, "players": players, "seed": format!("{:02x}", i + 1).repeat(32)}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let tokens = created["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["token"].as_str().unwrap().to_string())
            .collect();
        games.push((created["id"].as_str().unwrap().to_string(), tokens));
    }
    let mut acknowledged = vec![0u64; games.len()];
    let address = server.address.clone();
    let killer = async {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        server.kill();
    };
    tokio::join!(
        play_until_killed(&address, &games, &mut acknowledged, 9),
        killer
    );
    assert!(
        acknowledged.iter().sum::<u64>() > 10,
        "too few moves before the kill: {acknowledged:?}"
    );

    let restarted = Server::start(&url).await;
    for ((id, _), acked) in games.iter().zip(&acknowledged) {
        let view: Value = client
            .get(format!("{}/v1/games/{id}", restarted.address))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let version = view["version"].as_u64().unwrap();
        assert!(
            version >= *acked,
            "game {id}: acknowledged version {acked} but only {version} survived"
        );
        let audit: Value = client
            .get(format!("{}/v1/games/{id}/audit", restarted.address))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(audit["chain_ok"], json!(true), "{audit}");
        assert_eq!(audit["replay_ok"], json!(true), "{audit}");
    }
    restarted.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_killed_server_loses_no_acknowledged_move() {
    a_killed_server_loses_no_acknowledged_move(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_killed_server_loses_no_acknowledged_move() {
    a_killed_server_loses_no_acknowledged_move(Backend::Postgres).await;
}

//! A load generator for a running Parlour: plays many random games at once over HTTP, one
//! task per game, and reports durable moves per second and latencies. See docs/performance.md.
//!
//! `cargo run --release -p parlour --example loadgen -- http://127.0.0.1:8080 girl 2 64 20`
//! (server, game, players, concurrent games, seconds, and optionally how the games are made):
//! - `seats` (the default): `POST /v1/games`, one token per seat, no accounts;
//! - `hosted`: one account per seat hosts or claims each game (`POST /v1/me/games`), no
//!   webhook endpoints;
//! - `hooked`: as `hosted`, and each table's host has an endpoint on a receiver this program
//!   runs on 127.0.0.1 (the server must be started with `PARLOUR_WEBHOOKS_ALLOW_PRIVATE=1`),
//!   so every move also writes a fan-out row, fans it out and is delivered.
//!
//! The server may be several, separated by commas (instances on one database, as behind a load
//! balancer): each game task sends its requests to them in turn, so most requests reach an
//! instance that did not serve the one before (the hardest case for a cache), or with
//! `LOADGEN_SPREAD=game` sends every request of one game to one instance (sticky sessions).

// Issue 9 lints: tools fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::Client;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// How the games are made (see the module's doc).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Seats,
    Hosted,
    Hooked,
}

#[derive(Default)]
struct Tally {
    moves: u64,
    reads: u64,
    games: u64,
    latencies: Vec<Duration>,
}

async fn get_json(client: &Client, url: String, token: &str) -> Result<Value, String> {
    client
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| e.to_string())
}

async fn post_json(
    client: &Client,
    url: String,
    token: Option<&str>,
    body: &Value,
) -> Result<Value, String> {
    let mut request = client.post(url).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let res = request.send().await.map_err(|e| e.to_string())?;
    let status = res.status();
    let body: Value = res.json().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("{status}: {body}"));
    }
    Ok(body)
}

/// The accounts a task's hosted games are played by, one per seat; with `hook`, the first
/// (every table's host) has an endpoint there.
async fn accounts(
    client: &Client,
    base: &str,
    players: usize,
    hook: Option<&str>,
) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    for i in 0..players {
        let created = post_json(
            client,
            format!("{base}/v1/accounts"),
            None,
            &json!({"name": format!("P{i}")}),
        )
        .await?;
        tokens.push(
            created["token"]["secret"]
                .as_str()
                .ok_or("no token")?
                .to_string(),
        );
    }
    if let Some(url) = hook {
        post_json(
            client,
            format!("{base}/v1/webhooks"),
            Some(&tokens[0]),
            &json!({"url": url, "events": ["game.started", "game.your_turn", "game.finished"]}),
        )
        .await?;
    }
    Ok(tokens)
}

/// A new game and the token each seat moves with.
async fn new_game(
    client: &Client,
    base: &str,
    game: &str,
    players: usize,
    accounts: &[String],
) -> Result<(String, Vec<String>), String> {
    if accounts.is_empty() {
        let names: Vec<Value> = (0..players)
            .map(|i| json!({"name": format!("P{i}")}))
            .collect();
        let created = post_json(
            client,
            format!("{base}/v1/games"),
            None,
            &json!({"game": game, "players": names}),
        )
        .await?;
        let id = created["id"].as_str().ok_or("no id")?.to_string();
        let tokens = created["seats"]
            .as_array()
            .ok_or("no seats")?
            .iter()
            .filter_map(|s| s["token"].as_str().map(String::from))
            .collect();
        return Ok((id, tokens));
    }
    let mut seats = vec![json!({"kind": "me"})];
    seats.resize(players, json!({"kind": "anyone"}));
    let hosted = post_json(
        client,
        format!("{base}/v1/me/games"),
        Some(&accounts[0]),
        &json!({"game": game, "seats": seats}),
    )
    .await?;
    let id = hosted["id"].as_str().ok_or("no id")?.to_string();
    for (seat, token) in accounts.iter().enumerate().skip(1) {
        post_json(
            client,
            format!("{base}/v1/games/{id}/seats/{seat}/claim"),
            Some(token),
            &json!({}),
        )
        .await?;
    }
    Ok((id, accounts.to_vec()))
}

#[allow(clippy::too_many_arguments)]
async fn play(
    client: Client,
    bases: Vec<String>,
    sticky: bool,
    game: String,
    players: usize,
    mode: Mode,
    hook: Option<String>,
    until: Instant,
    seed: u64,
) -> Result<Tally, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tally = Tally::default();
    // Which instance the next request goes to.
    let mut turn = seed as usize;
    let mut next_base = || {
        if !sticky {
            turn += 1;
        }
        bases[turn % bases.len()].clone()
    };
    let base = next_base();
    let accounts = match mode {
        Mode::Seats => Vec::new(),
        Mode::Hosted | Mode::Hooked => accounts(&client, &base, players, hook.as_deref()).await?,
    };
    while Instant::now() < until {
        let base = next_base();
        let (id, tokens) = new_game(&client, &base, &game, players, &accounts).await?;
        // The view of the seat that moved last; refreshed only when another seat must move.
        let mut viewer = 0usize;
        let base = next_base();
        let mut view = get_json(&client, format!("{base}/v1/games/{id}"), &tokens[viewer]).await?;
        while view["status"] != "finished" && Instant::now() < until {
            let to_act: Vec<usize> = view["to_act"]
                .as_array()
                .ok_or("no to_act")?
                .iter()
                .filter_map(|s| s.as_u64().map(|s| s as usize))
                .collect();
            let seat = to_act[(rng.next_u64() % to_act.len() as u64) as usize];
            if seat != viewer {
                viewer = seat;
                let base = next_base();
                view = get_json(&client, format!("{base}/v1/games/{id}"), &tokens[viewer]).await?;
                tally.reads += 1;
            }
            let offered = view["legal_actions"]
                .as_array()
                .ok_or("no legal_actions")?
                .clone();
            let body = instantiate(
                &offered[(rng.next_u64() % offered.len() as u64) as usize],
                &mut rng,
            );
            let started = Instant::now();
            let base = next_base();
            let res = client
                .post(format!("{base}/v1/games/{id}/actions"))
                .bearer_auth(&tokens[seat])
                .json(&body)
                .send()
                .await
                .map_err(|e| e.to_string())?;
            let status = res.status();
            view = res.json().await.map_err(|e| e.to_string())?;
            tally.latencies.push(started.elapsed());
            if !status.is_success() {
                return Err(format!("move refused with {status}: {view}"));
            }
            tally.moves += 1;
        }
        tally.games += 1;
    }
    Ok(tally)
}

/// A webhook receiver on 127.0.0.1 that answers every request `204` and counts them: just
/// enough HTTP/1.1 for the server's client (keep-alive, `content-length` bodies).
async fn receiver(count: Arc<AtomicU64>) -> Result<String, String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let url = format!(
        "http://127.0.0.1:{}/hooks",
        listener.local_addr().map_err(|e| e.to_string())?.port()
    );
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let count = count.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                loop {
                    let mut length = 0usize;
                    loop {
                        let mut line = String::new();
                        match stream.read_line(&mut line).await {
                            Ok(0) | Err(_) => return,
                            Ok(_) => {}
                        }
                        let lower = line.to_ascii_lowercase();
                        if let Some(value) = lower.strip_prefix("content-length:") {
                            length = value.trim().parse().unwrap_or(0);
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    let mut body = vec![0; length];
                    if stream.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                    let reply = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n";
                    if stream.get_mut().write_all(reply).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Ok(url)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let bases: Vec<String> = args
        .get(1)
        .map_or("http://127.0.0.1:8080", String::as_str)
        .split(',')
        .map(String::from)
        .collect();
    let sticky = std::env::var("LOADGEN_SPREAD").is_ok_and(|v| v == "game");
    let game = args.get(2).cloned().unwrap_or_else(|| "girl".into());
    let players: usize = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(2);
    let concurrency: usize = args.get(4).and_then(|v| v.parse().ok()).unwrap_or(64);
    let seconds: u64 = args.get(5).and_then(|v| v.parse().ok()).unwrap_or(20);
    let mode = match args.get(6).map(String::as_str) {
        None | Some("seats") => Mode::Seats,
        Some("hosted") => Mode::Hosted,
        Some("hooked") => Mode::Hooked,
        Some(other) => return Err(format!("no mode {other}: seats, hosted or hooked")),
    };
    let delivered = Arc::new(AtomicU64::new(0));
    let hook = match mode {
        Mode::Hooked => Some(receiver(delivered.clone()).await?),
        Mode::Seats | Mode::Hosted => None,
    };
    let client = Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..concurrency)
        .map(|i| {
            tokio::spawn(play(
                client.clone(),
                bases.clone(),
                sticky,
                game.clone(),
                players,
                mode,
                hook.clone(),
                until,
                i as u64,
            ))
        })
        .collect();
    let mut total = Tally::default();
    for task in tasks {
        let tally = task.await.map_err(|e| e.to_string())??;
        total.moves += tally.moves;
        total.reads += tally.reads;
        total.games += tally.games;
        total.latencies.extend(tally.latencies);
    }
    let elapsed = started.elapsed().as_secs_f64();
    total.latencies.sort();
    let percentile = |p: f64| {
        let last = total.latencies.len().saturating_sub(1) as f64;
        total
            .latencies
            .get((last * p) as usize)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    };
    println!(
        "{game} {players}p, {concurrency} concurrent games, {elapsed:.1} s: {} moves ({:.0} moves/s), {} extra views, {} games; move latency p50 {:.2} ms, p99 {:.2} ms",
        total.moves,
        total.moves as f64 / elapsed,
        total.reads,
        total.games,
        percentile(0.5),
        percentile(0.99)
    );
    if mode == Mode::Hooked {
        println!(
            "webhook messages received by then: {}",
            delivered.load(Ordering::Relaxed)
        );
    }
    Ok(())
}

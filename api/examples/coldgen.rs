//! Cold games (issue 16): measures a move on a game the server holds in memory against one it
//! must load first, over HTTP, against a running Parlour. `tools/bench-cold.sh` drives it
//! around restarts and evictions; see docs/performance.md, "Cold games".
//!
//! - `coldgen setup URL GAME PLAYERS GAMES MIN_VERSION FILE [OPTIONS_JSON]`: creates GAMES
//!   games, 16 at a time, plays each at random until its log holds MIN_VERSION entries (a game
//!   that ends first is replaced), and writes to FILE, one line each, the game, the seat to
//!   act, its token and the move it will make next (decided from its view now, so that
//!   making it later reads nothing first).
//! - `coldgen moves URL FILE`: makes each game's next move, one game at a time, timing each
//!   request; prints the median and the 90th percentile; then decides each game's following
//!   move (after the timing, so it may warm the games) and rewrites FILE.
//!   `COLDGEN_AVOID=declare,prefer` keeps those action types out of the random choice while
//!   there is another.
//! - `coldgen touch URL FILE [CONCURRENCY]`: reads each game's public view (loading it),
//!   CONCURRENCY at a time (default 16), and prints how long that took.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::Client;
use serde_json::{json, Value};

/// One game and the move it is to make next.
#[derive(Debug, Clone)]
struct Pending {
    id: String,
    tokens: Vec<String>,
    version: u64,
    seat: usize,
    action: Value,
}

impl Pending {
    fn line(&self) -> String {
        json!({"id": self.id, "tokens": self.tokens, "version": self.version, "seat": self.seat,
               "action": self.action})
        .to_string()
    }

    fn parse(line: &str) -> Pending {
        let v: Value = serde_json::from_str(line).unwrap();
        Pending {
            id: v["id"].as_str().unwrap().to_string(),
            tokens: v["tokens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_string())
                .collect(),
            version: v["version"].as_u64().unwrap(),
            seat: v["seat"].as_u64().unwrap() as usize,
            action: v["action"].clone(),
        }
    }
}

async fn get(client: &Client, url: String, token: Option<&str>) -> Value {
    let mut request = client.get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let res = request.send().await.unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    res.json().await.unwrap()
}

async fn post(client: &Client, url: String, token: Option<&str>, body: &Value) -> Value {
    let mut request = client.post(url).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let res = request.send().await.unwrap();
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    body
}

/// The move the game's first seat to act makes next, or `None` once it is over.
async fn decide(
    client: &Client,
    base: &str,
    id: &str,
    tokens: &[String],
    rng: &mut ChaCha8Rng,
) -> Option<Pending> {
    let public = get(client, format!("{base}/v1/games/{id}"), None).await;
    if public["status"] == "finished" {
        return None;
    }
    let to_act = public["to_act"].as_array()?;
    let seat = to_act[(rng.next_u64() % to_act.len() as u64) as usize].as_u64()? as usize;
    let mine = get(client, format!("{base}/v1/games/{id}"), Some(&tokens[seat])).await;
    let offered = mine["legal_actions"].as_array()?;
    if offered.is_empty() {
        return None;
    }
    // COLDGEN_AVOID lists action types not to pick while there is another (a long GOOGLY
    // match: random declarations and preferences end it within a few hundred entries).
    let avoid = std::env::var("COLDGEN_AVOID").unwrap_or_default();
    let kept: Vec<Value> = offered
        .iter()
        .filter(|a| {
            !avoid
                .split(',')
                .any(|t| !t.is_empty() && a["type"].as_str() == Some(t))
        })
        .cloned()
        .collect();
    let offered = if kept.is_empty() { offered } else { &kept };
    let action = instantiate(
        &offered[(rng.next_u64() % offered.len() as u64) as usize],
        rng,
    );
    Some(Pending {
        id: id.to_string(),
        tokens: tokens.to_vec(),
        version: mine["version"].as_u64()?,
        seat,
        action,
    })
}

async fn make(client: &Client, base: &str, p: &Pending) -> u64 {
    let view = post(
        client,
        format!("{base}/v1/games/{}/actions", p.id),
        Some(&p.tokens[p.seat]),
        &p.action,
    )
    .await;
    view["version"].as_u64().unwrap()
}

/// A game played at random until its log holds `min_version` entries, with its next move.
async fn prepared(
    client: &Client,
    base: &str,
    game: &str,
    players: usize,
    options: &Value,
    min_version: u64,
    rng: &mut ChaCha8Rng,
) -> Pending {
    loop {
        let players: Vec<Value> = (0..players)
            .map(|i| json!({"name": format!("P{i}")}))
            .collect();
        let created = post(
            client,
            format!("{base}/v1/games"),
            None,
            &json!({"game": game, "players": players, "options": options}),
        )
        .await;
        let id = created["id"].as_str().unwrap().to_string();
        let tokens: Vec<String> = created["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["token"].as_str().unwrap().to_string())
            .collect();
        let mut next = decide(client, base, &id, &tokens, rng).await;
        while let Some(p) = next.take() {
            if p.version >= min_version {
                return p;
            }
            make(client, base, &p).await;
            next = decide(client, base, &id, &tokens, rng).await;
        }
        // Over before it was long enough: another game.
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let client = Client::builder()
        .pool_max_idle_per_host(64)
        .build()
        .unwrap();
    match args.get(1).map(String::as_str) {
        Some("setup") => {
            let base = args[2].clone();
            let game = args[3].clone();
            let players: usize = args[4].parse().unwrap();
            let games: usize = args[5].parse().unwrap();
            let min_version: u64 = args[6].parse().unwrap();
            let file = args[7].clone();
            let options: Value = args
                .get(8)
                .map(|o| serde_json::from_str(o).unwrap())
                .unwrap_or(json!({}));
            let started = Instant::now();
            let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let mut tasks = Vec::new();
            for worker in 0..16u64 {
                let (client, base, game, options, next) = (
                    client.clone(),
                    base.clone(),
                    game.clone(),
                    options.clone(),
                    next.clone(),
                );
                tasks.push(tokio::spawn(async move {
                    let mut rng = ChaCha8Rng::seed_from_u64(worker);
                    let mut done = Vec::new();
                    while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < games {
                        done.push(
                            prepared(
                                &client,
                                &base,
                                &game,
                                players,
                                &options,
                                min_version,
                                &mut rng,
                            )
                            .await,
                        );
                    }
                    done
                }));
            }
            let mut lines = Vec::new();
            let mut entries = 0;
            for task in tasks {
                for p in task.await.unwrap() {
                    entries += p.version;
                    lines.push(p.line());
                }
            }
            std::fs::write(&file, lines.join("\n") + "\n").unwrap();
            println!(
                "setup {game}: {} games, {:.0} entries each on average, in {:.1} s",
                lines.len(),
                entries as f64 / lines.len().max(1) as f64,
                started.elapsed().as_secs_f64()
            );
        }
        Some("moves") => {
            let base = args[2].clone();
            let file = args[3].clone();
            let pending: Vec<Pending> = std::fs::read_to_string(&file)
                .unwrap()
                .lines()
                .filter(|l| !l.is_empty())
                .map(Pending::parse)
                .collect();
            let mut times = Vec::with_capacity(pending.len());
            for p in &pending {
                let started = Instant::now();
                make(&client, &base, p).await;
                times.push(started.elapsed());
            }
            times.sort();
            println!(
                "moves: n {} p50 {:.2} ms p90 {:.2} ms max {:.2} ms",
                times.len(),
                percentile(&times, 0.5),
                percentile(&times, 0.9),
                percentile(&times, 1.0)
            );
            let mut rng = ChaCha8Rng::seed_from_u64(99);
            let mut lines = Vec::new();
            for p in &pending {
                if let Some(next) = decide(&client, &base, &p.id, &p.tokens, &mut rng).await {
                    lines.push(next.line());
                }
            }
            std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        }
        Some("touch") => {
            let base = args[2].clone();
            let file = args[3].clone();
            let concurrency: usize = args.get(4).map_or(16, |c| c.parse().unwrap());
            let ids: Vec<String> = std::fs::read_to_string(&file)
                .unwrap()
                .lines()
                .filter(|l| !l.is_empty())
                .map(|l| Pending::parse(l).id)
                .collect();
            let ids = Arc::new(ids);
            let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let started = Instant::now();
            let mut tasks = Vec::new();
            for _ in 0..concurrency {
                let (client, base, ids, next) =
                    (client.clone(), base.clone(), ids.clone(), next.clone());
                tasks.push(tokio::spawn(async move {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(id) = ids.get(i) else { break };
                        get(&client, format!("{base}/v1/games/{id}"), None).await;
                    }
                }));
            }
            for task in tasks {
                task.await.unwrap();
            }
            println!(
                "touched {} games in {:.1} s",
                ids.len(),
                started.elapsed().as_secs_f64()
            );
        }
        _ => {
            eprintln!("usage: coldgen setup|moves|touch … (see the source's documentation)");
            std::process::exit(2);
        }
    }
}

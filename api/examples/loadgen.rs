//! A load generator for a running Parlour: plays many random games at once over HTTP, one
//! task per game, and reports durable moves per second and latencies. See docs/performance.md.
//!
//! `cargo run --release -p parlour --example loadgen -- http://127.0.0.1:8080 girl 2 64 20`
//! (server, game, players, concurrent games, seconds).

// Issue 9 lints: tools fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use std::time::{Duration, Instant};

use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::Client;
use serde_json::{json, Value};

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

async fn play(
    client: Client,
    base: String,
    game: String,
    players: usize,
    until: Instant,
    seed: u64,
) -> Result<Tally, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tally = Tally::default();
    while Instant::now() < until {
        let names: Vec<Value> = (0..players)
            .map(|i| json!({"name": format!("P{i}")}))
            .collect();
        let created: Value = client
            .post(format!("{base}/v1/games"))
            .json(&json!({"game": game, "players": names}))
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        let id = created["id"].as_str().ok_or("no id")?.to_string();
        let tokens: Vec<String> = created["seats"]
            .as_array()
            .ok_or("no seats")?
            .iter()
            .filter_map(|s| s["token"].as_str().map(String::from))
            .collect();
        // The view of the seat that moved last; refreshed only when another seat must move.
        let mut viewer = 0usize;
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

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let base = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let game = args.get(2).cloned().unwrap_or_else(|| "girl".into());
    let players: usize = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(2);
    let concurrency: usize = args.get(4).and_then(|v| v.parse().ok()).unwrap_or(64);
    let seconds: u64 = args.get(5).and_then(|v| v.parse().ok()).unwrap_or(20);
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
                base.clone(),
                game.clone(),
                players,
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
    Ok(())
}

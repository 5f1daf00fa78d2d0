//! Many idle streams and a steady trickle of moves (issue 16, target 4): opens thousands of
//! game streams (`GET /v1/games/{id}/stream`) on one or more running servers, measures what
//! each costs the server in memory and descriptors, then plays their games at a fixed rate
//! through the same servers and reports how long each stream took to be told of each move, and
//! finally closes every stream and checks the server's descriptors fall back. See
//! docs/performance.md ("Idle streams").
//!
//! `cargo run --release -p parlour --example streamgen -- BASES GAME PLAYERS STREAMS GAMES SECONDS RATE`
//! - `BASES`: one server's address, or several separated by commas (every instance on one
//!   database): streams and moves are spread over them, so a stream is usually told of a move
//!   made through another instance;
//! - `STREAMS` spectator streams over `GAMES` games (stream i follows game i mod GAMES);
//! - `RATE` moves a second in all, for `SECONDS`, after every stream is open.
//!
//! Environment: `STREAMGEN_PIDS` (the servers' process ids, to read their memory and open
//! descriptors from /proc) and `STREAMGEN_SOURCES` (how many loopback source addresses,
//! 127.0.0.2 upwards, the streams come from: the server caps the streams of one address).

// Tools fail by panicking, so unwrap/expect in their helpers is the point; the casts are over
// counts and durations of a benchmark, where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::Client;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

/// When each version of each game was acknowledged to the player who moved.
type Acknowledged = Arc<Mutex<HashMap<usize, Vec<(u64, Instant)>>>>;

/// What each stream heard: every new version and when it arrived, one list per stream.
type Heard = Arc<Vec<Mutex<Vec<(u64, Instant)>>>>;

/// Resident memory (kB) and open descriptors of a process, from /proc.
fn footprint(pid: u32) -> (u64, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0);
    (rss, fds)
}

/// How many of a process's descriptors are accepted connections on `port` (the HTTP clients
/// it holds, leaving out its database connections and anything else it has open).
fn connections_on(pid: u32, port: u16) -> usize {
    let inodes: std::collections::HashSet<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|dir| {
            dir.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
                .filter_map(|l| {
                    let l = l.to_string_lossy().into_owned();
                    Some(l.strip_prefix("socket:[")?.strip_suffix(']')?.to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    let local = format!(":{port:04X}");
    ["tcp", "tcp6"]
        .iter()
        .filter_map(|t| std::fs::read_to_string(format!("/proc/{pid}/net/{t}")).ok())
        .flat_map(|table| {
            table
                .lines()
                .skip(1)
                .map(|l| l.split_whitespace().map(String::from).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        })
        // Columns: sl, local address, remote address, state (0A = listening), …, inode (10th).
        .filter(|c| c.len() > 9 && c[1].ends_with(&local) && c[3] != "0A" && inodes.contains(&c[9]))
        .count()
}

fn footprints(pids: &[u32]) -> Vec<(u64, usize)> {
    pids.iter().map(|&p| footprint(p)).collect()
}

fn show(label: &str, pids: &[u32], ports: &[u16], at: &[(u64, usize)]) {
    for ((pid, port), (rss, fds)) in pids.iter().zip(ports).zip(at) {
        println!(
            "{label}: server {pid}: RSS {} MiB, {fds} open descriptors, {} of them HTTP connections",
            rss / 1024,
            connections_on(*pid, *port)
        );
    }
}

/// One stream: reads server-sent events until the game ends or the task is aborted, noting
/// the time each new `id:` (version) arrives. `opened` is told once the first view is in.
async fn follow(
    client: Client,
    url: String,
    stream: usize,
    opened: tokio::sync::oneshot::Sender<Result<(), String>>,
    heard: Heard,
) {
    let mut res = match client.get(&url).send().await {
        Ok(res) if res.status().is_success() => res,
        Ok(res) => {
            let _ = opened.send(Err(format!(
                "{}: {}",
                res.status(),
                res.text().await.unwrap_or_default()
            )));
            return;
        }
        Err(e) => {
            let _ = opened.send(Err(e.to_string()));
            return;
        }
    };
    let mut opened = Some(opened);
    let mut pending = String::new();
    let mut last = 0u64;
    loop {
        let chunk = match res.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) | Err(_) => break,
        };
        let now = Instant::now();
        pending.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = pending.find('\n') {
            let line: String = pending.drain(..=end).collect();
            if let Some(id) = line.trim_end().strip_prefix("id: ") {
                if let Ok(version) = id.parse::<u64>() {
                    if version > last {
                        last = version;
                        heard[stream].lock().unwrap().push((version, now));
                    }
                    if let Some(tell) = opened.take() {
                        let _ = tell.send(Ok(()));
                    }
                }
            }
        }
    }
}

/// Plays one game at `interval` between moves, spreading requests over `bases`, and notes
/// when each version was acknowledged.
#[allow(clippy::too_many_arguments)]
async fn play(
    client: Client,
    bases: Arc<Vec<String>>,
    game: usize,
    id: String,
    tokens: Vec<String>,
    interval: Duration,
    until: Instant,
    acknowledged: Acknowledged,
) -> Result<u64, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(game as u64);
    let mut moves = 0u64;
    let mut next =
        Instant::now() + Duration::from_millis(rng.next_u64() % interval.as_millis().max(1) as u64);
    let mut turn = rng.next_u64() as usize;
    while Instant::now() < until {
        tokio::time::sleep_until(next.into()).await;
        next += interval;
        turn += 1;
        let base = &bases[turn % bases.len()];
        let public: Value = client
            .get(format!("{base}/v1/games/{id}"))
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        if public["status"] == "finished" {
            break;
        }
        let to_act: Vec<usize> = public["to_act"]
            .as_array()
            .ok_or("no to_act")?
            .iter()
            .filter_map(|s| s.as_u64().map(|s| s as usize))
            .collect();
        let Some(&seat) = to_act.get(rng.next_u64() as usize % to_act.len().max(1)) else {
            break;
        };
        let mine: Value = client
            .get(format!("{base}/v1/games/{id}"))
            .bearer_auth(&tokens[seat])
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        let offered = mine["legal_actions"].as_array().ok_or("no legal_actions")?;
        if offered.is_empty() {
            continue;
        }
        let action = instantiate(&offered[rng.next_u64() as usize % offered.len()], &mut rng);
        let base = &bases[(turn + 1) % bases.len()];
        let res = client
            .post(format!("{base}/v1/games/{id}/actions"))
            .bearer_auth(&tokens[seat])
            .json(&action)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = res.status();
        let view: Value = res.json().await.map_err(|e| e.to_string())?;
        let answered = Instant::now();
        if !status.is_success() {
            return Err(format!("move refused with {status}: {view}"));
        }
        let version = view["version"].as_u64().ok_or("no version")?;
        acknowledged
            .lock()
            .unwrap()
            .entry(game)
            .or_default()
            .push((version, answered));
        moves += 1;
    }
    Ok(moves)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let last = sorted.len().saturating_sub(1) as f64;
    sorted.get((last * p) as usize).copied().unwrap_or(0.0)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let bases: Arc<Vec<String>> = Arc::new(
        arg(1, "http://127.0.0.1:8080")
            .split(',')
            .map(String::from)
            .collect(),
    );
    let game_name = arg(2, "googly");
    let players: usize = arg(3, "2").parse().map_err(|_| "PLAYERS")?;
    let streams: usize = arg(4, "10000").parse().map_err(|_| "STREAMS")?;
    let games: usize = arg(5, "500").parse().map_err(|_| "GAMES")?;
    let seconds: u64 = arg(6, "30").parse().map_err(|_| "SECONDS")?;
    let rate: f64 = arg(7, "100").parse().map_err(|_| "RATE")?;
    let pids: Vec<u32> = std::env::var("STREAMGEN_PIDS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    // The servers' ports, in the order of their process ids (STREAMGEN_PIDS lists the servers
    // in the order of BASES).
    let ports: Vec<u16> = bases
        .iter()
        .filter_map(|b| b.rsplit(':').next()?.trim_end_matches('/').parse().ok())
        .collect();
    let sources: u8 = std::env::var("STREAMGEN_SOURCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    // Every stream is a connection, and this process holds one end of each.
    let _ = rlimit::increase_nofile_limit(u64::MAX);

    let mover = Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .map_err(|e| e.to_string())?;
    let mut tables = Vec::with_capacity(games);
    for i in 0..games {
        let names: Vec<Value> = (0..players)
            .map(|p| json!({"name": format!("P{p}")}))
            .collect();
        let base = &bases[i % bases.len()];
        let res = mover
            .post(format!("{base}/v1/games"))
            .json(&json!({"game": game_name, "players": names}))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let created: Value = res.json().await.map_err(|e| e.to_string())?;
        let id = created["id"]
            .as_str()
            .ok_or(format!("no id: {created}"))?
            .to_string();
        let tokens: Vec<String> = created["seats"]
            .as_array()
            .ok_or("no seats")?
            .iter()
            .filter_map(|s| s["token"].as_str().map(String::from))
            .collect();
        tables.push((id, tokens));
    }
    println!("{games} games of {game_name} ({players} players) created");

    let before = footprints(&pids);
    show("before the streams", &pids, &ports, &before);

    // One client per source address, so each address stays under the server's per-client cap.
    let clients: Vec<Client> = (0..sources)
        .map(|i| {
            Client::builder()
                .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + i)))
                .pool_max_idle_per_host(0)
                .build()
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    let heard: Heard = Arc::new((0..streams).map(|_| Mutex::new(Vec::new())).collect());
    let opening = Arc::new(Semaphore::new(256));
    let started = Instant::now();
    let mut followers = Vec::with_capacity(streams);
    let mut waits = Vec::with_capacity(streams);
    for i in 0..streams {
        let game = i % games;
        let url = format!(
            "{}/v1/games/{}/stream",
            bases[i % bases.len()],
            tables[game].0
        );
        let (tell, told) = tokio::sync::oneshot::channel();
        let permit = opening
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| e.to_string())?;
        followers.push(tokio::spawn(follow(
            clients[i % clients.len()].clone(),
            url,
            i,
            tell,
            heard.clone(),
        )));
        waits.push(tokio::spawn(async move {
            let result = told
                .await
                .unwrap_or(Err("stream ended before its first view".into()));
            drop(permit);
            result
        }));
    }
    let mut refused = 0usize;
    let mut first_refusal = None;
    for wait in waits {
        if let Err(e) = wait.await.map_err(|e| e.to_string())? {
            refused += 1;
            first_refusal.get_or_insert(e);
        }
    }
    println!(
        "{} streams open in {:.1} s ({refused} refused{})",
        streams - refused,
        started.elapsed().as_secs_f64(),
        first_refusal
            .map(|e| format!(", the first: {e}"))
            .unwrap_or_default()
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    let open = footprints(&pids);
    show("with the streams open", &pids, &ports, &open);
    let rss_before: u64 = before.iter().map(|f| f.0).sum();
    let rss_open: u64 = open.iter().map(|f| f.0).sum();
    let open_streams = (streams - refused).max(1) as f64;
    println!(
        "memory per open stream: {:.1} KiB (RSS of every server, open minus before, over the streams)",
        rss_open.saturating_sub(rss_before) as f64 / open_streams
    );
    for stream in heard.iter() {
        stream.lock().unwrap().clear();
    }

    // The trickle of moves: each game moves every games/rate seconds.
    let acknowledged: Acknowledged = Arc::default();
    let interval = Duration::from_secs_f64(games as f64 / rate);
    let until = Instant::now() + Duration::from_secs(seconds);
    let players_tasks: Vec<_> = tables
        .iter()
        .enumerate()
        .map(|(game, (id, tokens))| {
            tokio::spawn(play(
                mover.clone(),
                bases.clone(),
                game,
                id.clone(),
                tokens.clone(),
                interval,
                until,
                acknowledged.clone(),
            ))
        })
        .collect();
    let mut moves = 0u64;
    for task in players_tasks {
        moves += task.await.map_err(|e| e.to_string())??;
    }
    println!(
        "{moves} moves in {seconds} s ({:.0} moves/s) through {} instance(s)",
        moves as f64 / seconds as f64,
        bases.len()
    );
    // Long enough for the slowest stream to hear the last move.
    tokio::time::sleep(Duration::from_secs(3)).await;

    // For every stream and every move of its game: how long after the mover's answer the
    // stream heard that version or a later one (a stream may be told of two moves at once).
    let acknowledged = acknowledged.lock().unwrap().clone();
    let mut delays = Vec::new();
    let mut never_told = 0usize;
    for (stream, versions) in heard.iter().enumerate() {
        let versions = versions.lock().unwrap();
        let Some(moves) = acknowledged.get(&(stream % games)) else {
            continue;
        };
        let mut next = 0;
        for &(version, answered) in moves {
            while next < versions.len() && versions[next].0 < version {
                next += 1;
            }
            match versions.get(next) {
                Some(&(_, at)) => {
                    delays.push(at.saturating_duration_since(answered).as_secs_f64() * 1000.0);
                }
                None => never_told += 1,
            }
        }
    }
    delays.sort_by(f64::total_cmp);
    let over_a_second = delays.iter().filter(|&&d| d > 1000.0).count();
    println!(
        "streams told of moves: {} (stream, move) pairs, {never_told} never told; delay after the mover's answer p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; {over_a_second} over a second",
        delays.len(),
        percentile(&delays, 0.5),
        percentile(&delays, 0.99),
        delays.last().copied().unwrap_or(0.0)
    );

    // The mover's own keep-alive connections are HTTP connections too: close them first.
    drop(mover);
    for follower in &followers {
        follower.abort();
    }
    drop(followers);
    drop(clients);
    // A server learns that a quiet stream's client is gone when it next writes to it, at the
    // latest with the keep-alive every 15 s: wait up to twice that for the descriptors to go.
    let closed = Instant::now();
    // A server notices that a quiet stream's client has gone when it next writes to it (the
    // keep-alive, every 15 s), so wait two of those; what is left open then is the database
    // pool's connections and the server's own files, not streams.
    tokio::time::sleep(Duration::from_secs(32)).await;
    let after = footprints(&pids);
    println!(
        "{:.0} s after the clients closed every stream:",
        closed.elapsed().as_secs_f64()
    );
    show("after every stream closed", &pids, &ports, &after);
    for ((pid, b), a) in pids.iter().zip(&before).zip(&after) {
        println!(
            "server {pid}: descriptors {} before, {} after ({} {}; its Postgres pool keeps up to 32 connections open)",
            b.1,
            a.1,
            a.1.abs_diff(b.1),
            if a.1 >= b.1 { "more" } else { "fewer" }
        );
    }
    Ok(())
}

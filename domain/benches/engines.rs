//! Engine speed: random complete games per second for every game and player count, and
//! events folded per second when a table is rebuilt from its log. See docs/performance.md.

// Issue 9 lints: tools fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parlour_domain::catalog;
use parlour_domain::playout::instantiate;
use parlour_domain::{Chance, Engine, Player, Recorded, Seat, Seed, Table, RULES_VERSION};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::json;

fn players(n: usize) -> Vec<Player> {
    (0..n)
        .map(|i| Player {
            name: format!("P{i}"),
        })
        .collect()
}

/// Plays one random game through the JSON edge, as the server does; returns its log.
fn random_game(engine: &dyn Engine, n: usize, seed: u64) -> Vec<Recorded> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let game_seed = Seed([seed as u8; 32]);
    let mut table: Box<dyn Table> = match engine.open(&players(n), &json!({}), RULES_VERSION) {
        Ok(table) => table,
        Err(e) => panic!("{e}"),
    };
    let opening = table.start(&mut Chance::new(game_seed, 1));
    let mut log = opening.events.clone();
    table.apply(opening);
    while table.outcome().is_none() && log.len() < 100_000 {
        let to_act = table.to_act();
        let seat: Seat = to_act[(rng.next_u64() % to_act.len() as u64) as usize];
        let offered = table.legal_actions(seat);
        let body = instantiate(
            &offered[(rng.next_u64() % offered.len() as u64) as usize],
            &mut rng,
        );
        let decision = match table.decide(
            seat,
            &body,
            &mut Chance::new(game_seed, log.len() as u64 + 1),
        ) {
            Ok(decision) => decision,
            Err(e) => panic!("legal move refused: {e}"),
        };
        log.extend(decision.events.iter().cloned());
        table.apply(decision);
    }
    log
}

fn games(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_game");
    group
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    for engine in catalog::engines() {
        let d = engine.describe();
        // GOOGLY seats only change who owns which role: a few counts show the range.
        let counts: Vec<usize> = (d.min_players..=d.max_players)
            .filter(|n| d.id != "googly" || [1, 2, 3, 4, 22].contains(n))
            .collect();
        for n in counts {
            group.throughput(Throughput::Elements(1));
            let mut seed = 0;
            group.bench_function(BenchmarkId::new(d.id, format!("{n}p")), |b| {
                b.iter(|| {
                    seed += 1;
                    random_game(engine, n, seed)
                })
            });
        }
    }
    group.finish();
}

fn folding(c: &mut Criterion) {
    let mut group = c.benchmark_group("fold_log");
    group
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    for engine in catalog::engines() {
        let d = engine.describe();
        let n = d.min_players.max(2).min(d.max_players);
        let log = random_game(engine, n, 42);
        group.throughput(Throughput::Elements(log.len() as u64));
        group.bench_function(BenchmarkId::new(d.id, format!("{n}p")), |b| {
            b.iter(|| {
                let mut table = match engine.open(&players(n), &json!({}), RULES_VERSION) {
                    Ok(table) => table,
                    Err(e) => panic!("{e}"),
                };
                for event in &log {
                    if let Err(e) = table.apply_recorded(event) {
                        panic!("{e}");
                    }
                }
                table
            })
        });
    }
    group.finish();
}

criterion_group!(benches, games, folding);
criterion_main!(benches);

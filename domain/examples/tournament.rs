//! The bots' tournament: seeded games per pairing, one seat of the stronger level against the
//! weaker level in every other seat (the stronger seat rotated round the table game by game),
//! printing the stronger level's share of the wins (a win shared by k seats counts 1/k to
//! each; a drawn match or a game nobody won, 1/n to every seat) with a 95% confidence interval
//! beside the share an equal player would have (one in the number of seats), and the mean
//! time per move of each level.
//!
//! ```text
//! cargo run --release -p parlour-domain --example tournament -- --games 200
//! cargo run --release -p parlour-domain --example tournament -- --games 50 --game girl
//! ```
//!
//! Options: `--games N` per pairing (default 100); `--game ID` to play one game only;
//! `--budget D,P` for expert's determinizations and playouts per determinization (by default
//! each game's own, `Budget::default_for`); `--seed S`; `--stronger LEVEL` to play only the
//! pairings whose stronger level is LEVEL (`--stronger expert`: expert vs steady alone).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use parlour_domain::bots::arena::{win_shares, Arena};
use parlour_domain::bots::{Budget, Level, LevelBot};
use parlour_domain::catalog;
use serde_json::{json, Value};

/// One game's table for the tournament: its id, seats and options.
struct Table {
    game: &'static str,
    players: usize,
    options: Value,
    /// Whether `expert` differs from `steady` in this game.
    searched: bool,
}

fn tables() -> Vec<Table> {
    vec![
        Table {
            game: "girl",
            players: 3,
            options: json!({}),
            searched: true,
        },
        Table {
            game: "car",
            players: 4,
            options: json!({}),
            searched: true,
        },
        Table {
            game: "british-birds",
            players: 3,
            options: json!({}),
            searched: true,
        },
        Table {
            game: "history-of-england",
            players: 4,
            options: json!({}),
            searched: true,
        },
        Table {
            game: "googly",
            players: 2,
            options: json!({}),
            searched: false,
        },
    ]
}

#[derive(Default)]
struct Clock {
    moves: u64,
    spent: Duration,
    longest: Duration,
}

struct Args {
    games: u64,
    game: Option<String>,
    budget: Option<Budget>,
    seed: u64,
    stronger: Option<Level>,
}

fn args() -> Result<Args, String> {
    let mut args = Args {
        games: 100,
        game: None,
        budget: None,
        seed: 0,
        stronger: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--games" => args.games = value.parse().map_err(|e| format!("--games: {e}"))?,
            "--game" => args.game = Some(value),
            "--stronger" => args.stronger = Some(value.parse().map_err(|e| format!("{e}"))?),
            "--seed" => args.seed = value.parse().map_err(|e| format!("--seed: {e}"))?,
            "--budget" => {
                let (d, p) = value
                    .split_once(',')
                    .ok_or("--budget is DETERMINIZATIONS,PLAYOUTS")?;
                args.budget = Some(Budget {
                    determinizations: d.parse().map_err(|e| format!("--budget: {e}"))?,
                    playouts: p.parse().map_err(|e| format!("--budget: {e}"))?,
                });
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(args)
}

fn main() {
    let args = match args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut clocks: BTreeMap<(&'static str, Level), Clock> = BTreeMap::new();
    println!(
        "| game | seats | pairing | games | stronger's share of wins | 95% CI | an equal player's share |"
    );
    println!("|---|---|---|---|---|---|---|");
    for table in tables() {
        if args.game.as_deref().is_some_and(|g| g != table.game) {
            continue;
        }
        let mut pairings = vec![(Level::Steady, Level::Random)];
        if table.searched {
            pairings.push((Level::Expert, Level::Steady));
        }
        pairings.retain(|(strong, _)| args.stronger.is_none_or(|s| s == *strong));
        for (strong, weak) in pairings {
            match pairing(&table, strong, weak, &args, &mut clocks) {
                Ok(shares) => {
                    let (mean, half) = interval(&shares);
                    // At most a handful of seats.
                    #[allow(clippy::cast_precision_loss)]
                    let fair = 1.0 / table.players as f64;
                    println!(
                        "| {} | {} | {strong} vs {weak} | {} | {:.3} | {:.3}–{:.3} | {fair:.3} |",
                        table.game,
                        table.players,
                        shares.len(),
                        mean,
                        mean - half,
                        mean + half,
                    );
                }
                Err(e) => {
                    eprintln!("{} {strong} vs {weak}: {e}", table.game);
                    std::process::exit(1);
                }
            }
        }
    }
    println!();
    println!("| game | level | moves | mean time per move | longest move |");
    println!("|---|---|---|---|---|");
    for ((game, level), clock) in &clocks {
        let mean = if clock.moves == 0 {
            Duration::ZERO
        } else {
            clock.spent / u32::try_from(clock.moves).unwrap_or(u32::MAX)
        };
        println!(
            "| {game} | {level} | {} | {:.3} ms | {:.1} ms |",
            clock.moves,
            mean.as_secs_f64() * 1000.0,
            clock.longest.as_secs_f64() * 1000.0
        );
    }
}

/// The stronger level's share of the wins in each game of one pairing.
fn pairing(
    table: &Table,
    strong: Level,
    weak: Level,
    args: &Args,
    clocks: &mut BTreeMap<(&'static str, Level), Clock>,
) -> Result<Vec<f64>, String> {
    let engine = catalog::engine(table.game).ok_or("no such game")?;
    let bot = |level| LevelBot {
        level,
        budget: args.budget,
        ..LevelBot::new(level)
    };
    let mut shares = Vec::new();
    for g in 0..args.games {
        let hero = usize::try_from(g).unwrap_or(0) % table.players;
        let bots: Vec<LevelBot> = (0..table.players)
            .map(|s| if s == hero { bot(strong) } else { bot(weak) })
            .collect();
        let seed = args.seed * 1_000_000 + g;
        let mut arena = Arena::open(engine, table.players, &table.options, seed)?;
        loop {
            let started = Instant::now();
            let next = arena.next_move(&bots)?;
            let spent = started.elapsed();
            let Some((seat, action)) = next else { break };
            let clock = clocks
                .entry((table.game, bots[seat.index()].level))
                .or_default();
            clock.moves += 1;
            clock.spent += spent;
            clock.longest = clock.longest.max(spent);
            arena.play(seat, &action)?;
            if arena.moves() > 50_000 {
                return Err("a game did not end".into());
            }
        }
        let outcome = arena.outcome().ok_or("no outcome")?;
        shares.push(win_shares(&outcome, table.players)[hero]);
    }
    Ok(shares)
}

/// The mean and the half-width of its 95% confidence interval (normal approximation).
fn interval(shares: &[f64]) -> (f64, f64) {
    // Game counts are far below 2^52.
    #[allow(clippy::cast_precision_loss)]
    let n = shares.len().max(1) as f64;
    let mean = shares.iter().sum::<f64>() / n;
    let var = shares.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, 1.96 * (var / n).sqrt())
}

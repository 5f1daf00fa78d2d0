//! The shared random-playout check for History of England: every series, 3 to 8 players.
//!
//! The default run plays 20 games of each kind (1,080 games); `soak` plays 200 of each (run it with
//! `cargo test --release -p parlour-domain --test playout_history_of_england -- --ignored`).

// Issue 9 lints: tests fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use parlour_domain::game::{Player, Setup, FIRST_RULES_VERSION, RULES_VERSION};
use parlour_domain::history_of_england::{HistoryOfEngland, Options};
use parlour_domain::playout::random_playout;

fn setup(players: usize, series: u8, version: u32) -> Setup<Options> {
    Setup {
        players: (0..players)
            .map(|i| Player {
                name: format!("player {i}"),
            })
            .collect(),
        options: Options { series },
        rules_version: version,
    }
}

/// Plays `seeds` random games of every series at every table size.
/// Under every rules version (a version-1 game must still play out as it always did).
fn play_every_kind(seeds: u64) {
    for version in FIRST_RULES_VERSION..=RULES_VERSION {
        for series in 1..=3 {
            for players in 3..=8 {
                let setup = setup(players, series, version);
                for seed in 0..seeds {
                    let seed = seed + 1000 * u64::from(series) + 100_000 * players as u64;
                    // The longest game: 45 turns drawing, then 7 + 64 without the pool, each
                    // turn at most one ask per card in the pack.
                    if let Err(broken) = random_playout::<HistoryOfEngland>(&setup, seed, 20_000) {
                        panic!(
                            "rules {version}, series {series}, {players} players, seed {seed}: \
                             {broken}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn random_games_of_every_series_and_table_size_end_cleanly() {
    play_every_kind(20);
}

#[test]
#[ignore = "slow: run in release"]
fn soak() {
    play_every_kind(200);
}

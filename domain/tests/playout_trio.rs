//! Random playouts of GIRL and The CAR Game for every player count, over many seeds: every
//! game ends, every card is always accounted for, no card leaks, replay rebuilds the state.

// Issue 9 lints: tests fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use parlour_domain::game::{Game, Player, Setup, FIRST_RULES_VERSION, RULES_VERSION};
use parlour_domain::playout::random_playout;
use parlour_domain::tricks::{CarGame, GirlGame, TrioOptions};

/// Seeds per theme and player count: 200 (1,600 games) takes a few seconds with the test
/// profile's optimisation.
/// Set `TRIO_PLAYOUT_SEEDS` to run more (e.g. 300 before a release: 2400 games passed).
fn seeds() -> u64 {
    std::env::var("TRIO_PLAYOUT_SEEDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200)
}
// A game has at most 44 turn-ups, 12 tricks of at most 5 lays and a few passes per trick.
const MAX_MOVES: usize = 500;

fn setup(players: usize, version: u32) -> Setup<TrioOptions> {
    Setup {
        players: (0..players)
            .map(|i| Player {
                name: format!("player {i}"),
            })
            .collect(),
        options: TrioOptions::default(),
        rules_version: version,
    }
}

/// Every player count under every rules version (each version's own rules of the game: a
/// version-1 game must still play out as it always did).
fn play_many<G: Game<Options = TrioOptions>>() {
    for version in FIRST_RULES_VERSION..=RULES_VERSION {
        for players in 2..=5 {
            let setup = setup(players, version);
            let mut longest = 0;
            for seed in 0..seeds() {
                let seed = seed * 7919 + players as u64;
                match random_playout::<G>(&setup, seed, MAX_MOVES) {
                    Ok(playout) => longest = longest.max(playout.moves),
                    Err(broken) => {
                        panic!("rules {version}, {players} players, seed {seed}: {broken}")
                    }
                }
            }
            assert!(
                longest > 12,
                "{players} players: games are implausibly short"
            );
        }
    }
}

#[test]
fn random_games_of_girl_end_with_every_card_accounted_for() {
    play_many::<GirlGame>();
}

#[test]
fn random_games_of_the_car_game_end_with_every_card_accounted_for() {
    play_many::<CarGame>();
}

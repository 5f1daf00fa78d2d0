//! The shared random-playout check for British Birds, over 2, 3 and 4 players and the three
//! kinds of standing Owl preference.

// Issue 9 lints: tests fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use parlour_domain::british_birds::{
    BritishBirds, Options, OwlPreference, LAST_RULES_VERSION_WITH_PLAY_TO,
};
use parlour_domain::playout::random_playout;
use parlour_domain::{Player, Setup, FIRST_RULES_VERSION, RULES_VERSION};

/// Far above any random game: random players pick up often enough, and once nothing is face
/// up the quiet-rounds guard ends a game, in a few thousand moves at most.
const MAX_MOVES: usize = 20_000;

fn setup(players: usize, options: Options, version: u32) -> Setup<Options> {
    Setup {
        players: (0..players)
            .map(|i| Player {
                name: format!("player {i}"),
            })
            .collect(),
        options,
        rules_version: version,
    }
}

/// Plays `seeds` under every rules version (a version-1 game must still play out as it always
/// did): the moves of all of them, the longest game, and how many games.
fn play_many(
    players: usize,
    options: Options,
    seeds: std::ops::Range<u64>,
) -> (usize, usize, usize) {
    let (mut total, mut longest, mut games) = (0, 0, 0);
    // A series in one log is a game of rules version 2 or earlier only.
    let last = if options.play_to.is_some() {
        LAST_RULES_VERSION_WITH_PLAY_TO
    } else {
        RULES_VERSION
    };
    for version in FIRST_RULES_VERSION..=last {
        let setup = setup(players, options.clone(), version);
        for seed in seeds.clone() {
            match random_playout::<BritishBirds>(&setup, seed, MAX_MOVES) {
                Ok(playout) => {
                    total += playout.moves;
                    longest = longest.max(playout.moves);
                    games += 1;
                }
                Err(error) => panic!("rules {version}, {players} players, seed {seed}: {error}"),
            }
        }
    }
    (total, longest, games)
}

fn mixed(players: usize) -> Vec<OwlPreference> {
    [
        OwlPreference::AlwaysPlayOwl,
        OwlPreference::AskMe,
        OwlPreference::AlwaysHandOver,
        OwlPreference::AlwaysPlayOwl,
    ][..players]
        .to_vec()
}

/// Seeds per configuration, multiplied by the default run's scale of 5. The ignored test below
/// runs 300 seeds per configuration (`cargo test --release -- --ignored`).
const SEEDS: [(usize, u64, u64); 3] = [(2, 30, 15), (3, 20, 10), (4, 15, 10)];

fn play_configuration(players: usize, scale: u64) {
    let (_, default_seeds, mixed_seeds) = SEEDS[players - 2];
    play_many(players, Options::default(), 0..default_seeds * scale);
    let options = Options {
        owl_preferences: mixed(players),
        ..Options::default()
    };
    play_many(players, options, 1000..1000 + mixed_seeds * scale);
}

#[test]
fn random_two_player_games_always_end_cleanly() {
    play_configuration(2, 5);
}

#[test]
fn random_three_player_games_always_end_cleanly() {
    play_configuration(3, 5);
}

#[test]
fn random_four_player_games_always_end_cleanly() {
    play_configuration(4, 5);
}

#[test]
fn random_series_to_fifty_points_always_end_cleanly() {
    for players in 2..=4 {
        let options = Options {
            play_to: Some(50),
            owl_preferences: vec![OwlPreference::AlwaysHandOver; players],
            ..Options::default()
        };
        play_many(players, options, 0..1);
    }
}

#[test]
fn random_games_stay_short() {
    // Pick-ups and, once nothing is face up, the quiet-rounds guard keep random games to a few
    // hundred moves, under either version.
    for players in 2..=4 {
        let (total, longest, games) = play_many(players, Options::default(), 500..505);
        assert!(
            total / games < 1000 && longest < 3000,
            "{players}: {total} {longest}"
        );
    }
}

#[test]
#[ignore = "long: 300 seeds per configuration, best run with --release"]
fn many_random_games_always_end_cleanly() {
    for players in 2..=4 {
        let (_, default_seeds, _) = SEEDS[players - 2];
        play_configuration(players, 300 / default_seeds);
        let options = Options {
            play_to: Some(50),
            ..Options::default()
        };
        play_many(players, options, 0..50);
    }
}

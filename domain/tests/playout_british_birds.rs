//! The shared random-playout check for British Birds, over 2, 3 and 4 players and the three
//! kinds of standing Owl preference.

use parlour_domain::british_birds::{BritishBirds, Options, OwlPreference};
use parlour_domain::playout::random_playout;
use parlour_domain::{Player, Setup};

/// Far above any random game: the quiet-rounds rule ends a game in a few thousand moves at most.
const MAX_MOVES: usize = 20_000;

fn setup(players: usize, options: Options) -> Setup<Options> {
    Setup {
        players: (0..players)
            .map(|i| Player {
                name: format!("player {i}"),
            })
            .collect(),
        options,
    }
}

fn play_many(players: usize, options: Options, seeds: std::ops::Range<u64>) -> (usize, usize) {
    let setup = setup(players, options);
    let (mut total, mut longest) = (0, 0);
    for seed in seeds {
        match random_playout::<BritishBirds>(&setup, seed, MAX_MOVES) {
            Ok(playout) => {
                total += playout.moves;
                longest = longest.max(playout.moves);
            }
            Err(error) => panic!("{players} players, seed {seed}: {error}"),
        }
    }
    (total, longest)
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

#[test]
fn random_two_player_games_always_end_cleanly() {
    play_many(2, Options::default(), 0..200);
    let options = Options {
        owl_preferences: mixed(2),
        ..Options::default()
    };
    play_many(2, options, 1000..1100);
}

#[test]
fn random_three_player_games_always_end_cleanly() {
    play_many(3, Options::default(), 0..200);
    let options = Options {
        owl_preferences: mixed(3),
        ..Options::default()
    };
    play_many(3, options, 1000..1100);
}

#[test]
fn random_four_player_games_always_end_cleanly() {
    play_many(4, Options::default(), 0..200);
    let options = Options {
        owl_preferences: mixed(4),
        ..Options::default()
    };
    play_many(4, options, 1000..1100);
}

#[test]
fn random_series_to_fifty_points_always_end_cleanly() {
    for players in 2..=4 {
        let options = Options {
            play_to: Some(50),
            owl_preferences: vec![OwlPreference::AlwaysHandOver; players],
            ..Options::default()
        };
        play_many(players, options, 0..30);
    }
}

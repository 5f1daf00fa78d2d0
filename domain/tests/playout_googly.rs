//! The shared random-playout check over every GOOGLY variant.

// Issue 9 lints: tests fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use parlour_domain::game::{Player, Setup, FIRST_RULES_VERSION, RULES_VERSION};
use parlour_domain::googly::{Googly, Options, Variant};
use parlour_domain::playout::random_playout;

fn setup(players: usize, variant: Option<Variant>, version: u32) -> Setup<Options> {
    Setup {
        players: (0..players)
            .map(|i| Player {
                name: format!("p{i}"),
            })
            .collect(),
        options: Options {
            variant,
            ..Options::default()
        },
        rules_version: version,
    }
}

/// `seeds` matches of the configuration under every rules version (a version-1 match must
/// still play out as it always did).
fn run(players: usize, variant: Option<Variant>, seeds: u64) {
    for version in FIRST_RULES_VERSION..=RULES_VERSION {
        let setup = setup(players, variant, version);
        for seed in 0..seeds {
            if let Err(e) = random_playout::<Googly>(&setup, seed, 5_000) {
                panic!("rules {version}, {players} players, {variant:?}, seed {seed}: {e}");
            }
        }
    }
}

// The default run plays a hundred-odd seeds per configuration (a few seconds with the test
// profile's optimisation); `soak` runs 250 per configuration (`cargo test --release -- --ignored soak`).

#[test]
fn patience_plays_out() {
    run(1, None, 125);
    run(3, Some(Variant::Patience), 25);
}

#[test]
fn two_player_plays_out() {
    run(2, None, 125);
}

#[test]
fn three_player_plays_out() {
    run(3, None, 75);
}

#[test]
fn team_plays_out_with_four_players() {
    run(4, None, 100);
}

#[test]
fn team_plays_out_with_two_five_and_twenty_two_players() {
    run(2, Some(Variant::Team), 30);
    run(5, Some(Variant::Team), 30);
    run(22, Some(Variant::Team), 10);
}

#[test]
#[ignore]
fn soak() {
    for (players, variant) in [
        (1, None),
        (2, None),
        (3, None),
        (4, None),
        (2, Some(Variant::Team)),
        (7, Some(Variant::Team)),
        (22, Some(Variant::Team)),
    ] {
        run(players, variant, 250);
    }
}

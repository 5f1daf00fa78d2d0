//! The games Parlour offers, by their stable ids, each with everything the framework needs of
//! it beyond its rules: its bots, how its matches are played, and the tables beyond its
//! defaults that every shared playout test plays. One entry a game, with no
//! field optional, so a game added without one of them does not compile; nothing outside this
//! file switches on a game's id.

use serde_json::Value;

use crate::bot_kit::{never_waits, LevelBot, Rng, Seen};
use crate::british_birds::BritishBirds;
use crate::engine::{Engine, EngineOf};
use crate::googly::Googly;
use crate::history_of_england::HistoryOfEngland;
use crate::matches::{fifty_points, points_shared_out, MatchRule, GOOGLY_SERIES};
use crate::tricks::{Car, CarGame, Girl, GirlGame};

static GIRL: EngineOf<GirlGame> = EngineOf::new();
static CAR: EngineOf<CarGame> = EngineOf::new();
static BRITISH_BIRDS: EngineOf<BritishBirds> = EngineOf::new();
static HISTORY_OF_ENGLAND: EngineOf<HistoryOfEngland> = EngineOf::new();
static GOOGLY: EngineOf<Googly> = EngineOf::new();

/// A game's bots, written in its own folder (`<game>/bot.rs`) with the bot kit.
#[derive(Clone, Copy)]
pub struct Bots {
    /// The move a bot chooses from what its seat has seen (`None`: it found none, and a legal
    /// move drawn at random is played instead).
    pub choose: fn(&Seen, LevelBot<'_>, &mut Rng) -> Option<Value>,
    /// Whether the bot declines every move it has now, so that the game waits for another
    /// seat (GOOGLY's batting captain who plays on; every other game: never).
    pub waits: fn(&Seen, LevelBot<'_>, &mut Rng) -> bool,
}

/// A table beyond a game's defaults: options that change its pack, its variant or its ending,
/// which every shared playout test (the domain's fuzz, the bots', the API's) plays besides each
/// player count with the defaults.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    /// The options, as a JSON object.
    pub options: &'static str,
    /// The player counts it is meant for, smallest first: the fuzz plays it at each, the
    /// quicker tests (the bots', the API's) at the first.
    pub players: &'static [usize],
    /// The rules version a table of it is created under, when not the latest: an option only
    /// older games may set, which they still play by.
    pub rules_version: Option<u32>,
}

impl Variant {
    /// The options as JSON.
    pub fn options(&self) -> Value {
        // Written in this file as JSON objects, and each is read by a test of this module.
        serde_json::from_str(self.options).unwrap_or(Value::Null)
    }

    /// The rules version a table of it is created under.
    pub fn rules_version(&self) -> u32 {
        self.rules_version.unwrap_or(crate::RULES_VERSION)
    }
}

/// One game of the catalogue.
#[derive(Clone, Copy)]
pub struct Entry {
    /// Its rules, behind the one interface the server speaks.
    pub engine: &'static dyn Engine,
    /// Its bots.
    pub bots: Bots,
    /// How its matches are played.
    pub matches: MatchRule,
    /// The tables beyond its defaults that the shared playout tests play.
    pub variants: &'static [Variant],
}

/// British Birds' variants: the series in one log of rules version 2 (`play_to`), the quiet
/// round rule, and the Owl preferences of rule 7.
const BRITISH_BIRDS_VARIANTS: &[Variant] = &[
    Variant {
        options: r#"{"play_to": 15}"#,
        players: &[2, 3, 4],
        rules_version: Some(crate::british_birds::LAST_RULES_VERSION_WITH_PLAY_TO),
    },
    Variant {
        options: r#"{"quiet_rounds": 1}"#,
        players: &[2, 3, 4],
        rules_version: None,
    },
    Variant {
        options: r#"{"owl_preferences": ["always_play_owl", "always_hand_over", "ask_me"]}"#,
        players: &[3],
        rules_version: None,
    },
    Variant {
        options: r#"{"owl_preferences": ["ask_me", "ask_me", "always_play_owl", "always_play_owl"]}"#,
        players: &[4],
        rules_version: None,
    },
];

/// History of England's second and third series, each its own pack.
const HISTORY_OF_ENGLAND_VARIANTS: &[Variant] = &[
    Variant {
        options: r#"{"series": 2}"#,
        players: &[3, 4, 5, 6, 7, 8],
        rules_version: None,
    },
    Variant {
        options: r#"{"series": 3}"#,
        players: &[3, 4, 5, 6, 7, 8],
        rules_version: None,
    },
];

/// GOOGLY's patience and team games at the seat counts that may choose them.
const GOOGLY_VARIANTS: &[Variant] = &[
    Variant {
        options: r#"{"variant": "patience"}"#,
        players: &[2, 3],
        rules_version: None,
    },
    Variant {
        options: r#"{"variant": "team"}"#,
        players: &[2, 3],
        rules_version: None,
    },
];

/// Every game offered, in catalogue order.
pub fn entries() -> [Entry; 5] {
    [
        Entry {
            engine: &GIRL,
            bots: Bots {
                choose: crate::tricks::bot::choose::<Girl>,
                waits: never_waits,
            },
            matches: MatchRule::Points {
                default: points_shared_out,
            },
            variants: &[],
        },
        Entry {
            engine: &CAR,
            bots: Bots {
                choose: crate::tricks::bot::choose::<Car>,
                waits: never_waits,
            },
            matches: MatchRule::Points {
                default: points_shared_out,
            },
            variants: &[],
        },
        Entry {
            engine: &BRITISH_BIRDS,
            bots: Bots {
                choose: crate::british_birds::bot::choose,
                waits: never_waits,
            },
            matches: MatchRule::Points {
                default: fifty_points,
            },
            variants: BRITISH_BIRDS_VARIANTS,
        },
        Entry {
            engine: &HISTORY_OF_ENGLAND,
            bots: Bots {
                choose: crate::history_of_england::bot::choose,
                waits: never_waits,
            },
            matches: MatchRule::Points {
                default: fifty_points,
            },
            variants: HISTORY_OF_ENGLAND_VARIANTS,
        },
        Entry {
            engine: &GOOGLY,
            bots: Bots {
                choose: crate::googly::bot::choose,
                waits: crate::googly::bot::waits,
            },
            matches: MatchRule::Series {
                default: GOOGLY_SERIES,
            },
            variants: GOOGLY_VARIANTS,
        },
    ]
}

/// The catalogue entry of the game with this id (`girl`, `car`, ...), if Parlour offers it.
pub fn entry(id: &str) -> Option<Entry> {
    entries()
        .into_iter()
        .find(|entry| entry.engine.describe().id == id)
}

/// Every game offered, in catalogue order.
pub fn engines() -> Vec<&'static dyn Engine> {
    entries().iter().map(|entry| entry.engine).collect()
}

/// The game with this id (`girl`, `car`, ...), if Parlour offers it.
pub fn engine(id: &str) -> Option<&'static dyn Engine> {
    entry(id).map(|entry| entry.engine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Player;

    #[test]
    fn every_variant_opens_a_table_at_each_of_its_player_counts() {
        for entry in entries() {
            let d = entry.engine.describe();
            for variant in entry.variants {
                assert!(
                    variant.options().is_object(),
                    "{}: {}",
                    d.id,
                    variant.options
                );
                assert!(!variant.players.is_empty(), "{}: {}", d.id, variant.options);
                for &players in variant.players {
                    let seated: Vec<Player> = (0..players)
                        .map(|i| Player {
                            name: format!("p{i}"),
                        })
                        .collect();
                    if let Err(e) =
                        entry
                            .engine
                            .open(&seated, &variant.options(), variant.rules_version())
                    {
                        panic!("{} {players} {}: {e}", d.id, variant.options);
                    }
                }
            }
        }
    }
}

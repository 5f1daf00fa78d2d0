//! The games Parlour offers, by their stable ids, each with everything the framework needs of
//! it beyond its rules: its bots and how its matches are played. One entry a game, with no
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

/// One game of the catalogue.
#[derive(Clone, Copy)]
pub struct Entry {
    /// Its rules, behind the one interface the server speaks.
    pub engine: &'static dyn Engine,
    /// Its bots.
    pub bots: Bots,
    /// How its matches are played.
    pub matches: MatchRule,
}

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

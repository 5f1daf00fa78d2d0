//! The bot kit: what a seat has seen, the levels, the search, and the draws every bot makes.
//!
//! A bot is given only what its seat may see, as a [`Seen`]: the seat's own view, the log as
//! redacted for that seat, and its legal actions. A `Seen` can only be made by
//! [`Seen::observe`], which asks the table for nothing but `view`, `legal_actions` and the
//! engine's `redact` for `Viewer::Seat(seat)`; its fields are private. No bot is ever handed a
//! table or a state, so none can read a hidden card: the strongest level samples the hidden
//! cards afresh from what the seat has seen (see [`search`]).
//!
//! Three levels ([`Level`]), each written per game in the game's own folder
//! (`<game>/bot.rs`):
//! - `random`: uniform over the legal actions, weighted where uniform is absurd;
//! - `steady`: a heuristic from the rule sheet's own advice;
//! - `expert`: determinized Monte Carlo search over the hidden-hand games (GOOGLY has no
//!   hidden hands, so its `expert` is `steady`).
//!
//! This is the kit every game's bot is written with (below the games' `bot.rs`); `crate::bots`
//! (above them) plays a seat with the bot the catalogue pairs with its game.

pub mod search;

use std::fmt;
use std::str::FromStr;

use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{BadEvent, Engine, Recorded, Table};
use crate::game::{Seat, View, Viewer};

/// The random numbers a bot draws: seeded, so a bot's move is a function of what it saw and
/// its seed.
pub type Rng = ChaCha8Rng;

/// How well a bot plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Uniform over the legal actions, weighted where uniform play would be absurd.
    Random,
    /// A heuristic from the rule sheet's own advice.
    Steady,
    /// Determinized Monte Carlo search (in the hidden-hand games).
    Expert,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 3] = [Level::Random, Level::Steady, Level::Expert];

    /// The level's name, as a seat's `{"bot": ...}` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Steady => "steady",
            Level::Expert => "expert",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = BotError;

    fn from_str(text: &str) -> Result<Level, BotError> {
        Level::ALL
            .into_iter()
            .find(|level| level.name() == text)
            .ok_or_else(|| BotError::UnknownLevel(text.to_string()))
    }
}

/// How much searching `expert` does: `determinizations` samples of the hidden cards, each
/// searched with `playouts` games played to the end. Counted, not timed, so a move depends on
/// the seed alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Samples of the hidden cards, each of which votes for one move.
    pub determinizations: usize,
    /// Playouts searched in each sample.
    pub playouts: usize,
}

impl Budget {
    /// The budget of a game without one of its own.
    pub const DEFAULT: Budget = Budget {
        determinizations: 24,
        playouts: 40,
    };
}

/// Why a bot could not move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    /// The level's name is not one of `random`, `steady`, `expert`.
    #[error("no bot level {0:?}: random, steady or expert")]
    UnknownLevel(String),
    /// The engine is not one of Parlour's games.
    #[error("no bots for the game {0:?}")]
    UnknownGame(String),
    /// The seat has nothing to do.
    #[error("{0} has no legal action")]
    NothingToDo(Seat),
    /// The seat's only moves are ones its bot declines now (a GOOGLY batting captain who plays
    /// on is offered only `declare` at every ball): the game waits for another seat.
    #[error("{0} waits for another seat to move")]
    Waits(Seat),
    /// A logged event does not fit the game.
    #[error(transparent)]
    BadEvent(#[from] BadEvent),
}

/// Everything one seat may see, and nothing more: the input of every bot.
///
/// Made only by [`Seen::observe`] from the seat's view, its redacted log and its legal
/// actions, so a bot cannot read a card the seat could not.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    game: &'static str,
    seat: Seat,
    rules_version: u32,
    view: View,
    log: Vec<Value>,
    legal: Vec<Value>,
}

impl Seen {
    /// What `seat` sees at `table` of `engine`, given the table's whole `log` so far: the view
    /// for `Viewer::Seat(seat)`, every event as the engine redacts it for that viewer (with its
    /// `type`, which is never secret), and the seat's legal actions. Nothing else of the table
    /// is read.
    pub fn observe(
        engine: &dyn Engine,
        table: &dyn Table,
        seat: Seat,
        log: &[Recorded],
    ) -> Result<Seen, BotError> {
        let viewer = Viewer::Seat(seat);
        let game = engine.describe().id;
        let log = log
            .iter()
            .map(|event| {
                let mut value = engine.redact(event, viewer)?;
                if let Value::Object(map) = &mut value {
                    map.insert("type".into(), Value::String(event.kind.clone()));
                }
                Ok(value)
            })
            .collect::<Result<Vec<Value>, BadEvent>>()?;
        Ok(Seen {
            game,
            seat,
            rules_version: table.rules_version(),
            view: table.view(viewer),
            log,
            legal: table.legal_actions(seat),
        })
    }

    /// The game's catalogue id.
    pub fn game(&self) -> &'static str {
        self.game
    }

    /// The seat that sees.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The rules version the game is played under, so that a search simulates those rules.
    pub fn rules_version(&self) -> u32 {
        self.rules_version
    }

    /// Players at the table.
    pub fn players(&self) -> usize {
        self.view.seats.len()
    }

    /// The seat's view.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The seat's private part of the view (`null` if it has none).
    pub fn private(&self) -> &Value {
        self.view.private.as_ref().unwrap_or(&Value::Null)
    }

    /// The log as the seat saw it, oldest first, each event with its `type`.
    pub fn log(&self) -> &[Value] {
        &self.log
    }

    /// The seat's legal actions as the table offers them (templates included).
    pub fn legal(&self) -> &[Value] {
        &self.legal
    }
}

/// A player that chooses moves from what its seat sees.
pub trait Bot {
    /// One action for the seat that saw `seen`: complete (no `choose` template) and legal.
    /// `None` when the seat has no legal action, or declines every one it has now (it waits
    /// for another seat's move).
    fn choose(&self, seen: &Seen, rng: &mut Rng) -> Option<Value>;
}

/// Whether `expert`'s search must stop now and play its best move so far. The domain tells no
/// time: the server passes a wall-clock deadline, so that how long a bot thinks cannot depend
/// on its hand beyond it, and a test passes a counter, so that a search cut short is still a
/// function of its seed. [`TimeUp::NEVER`] leaves the search to its counted [`Budget`] alone.
#[derive(Clone, Copy)]
pub struct TimeUp<'a>(Option<&'a dyn Fn() -> bool>);

impl<'a> TimeUp<'a> {
    /// A search that runs to its budget.
    pub const NEVER: TimeUp<'static> = TimeUp(None);

    /// A search that stops once `up` answers `true` (asked between rounds of playouts).
    pub fn when(up: &'a dyn Fn() -> bool) -> TimeUp<'a> {
        TimeUp(Some(up))
    }

    /// Whether the search must stop.
    pub(crate) fn is_up(&self) -> bool {
        self.0.is_some_and(|up| up())
    }
}

impl fmt::Debug for TimeUp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "TimeUp(when)"
        } else {
            "TimeUp::NEVER"
        })
    }
}

/// When a search stops is not what a bot is: two bots of one level and budget are the same.
impl PartialEq for TimeUp<'_> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for TimeUp<'_> {}

/// A bot of one level, with the search budget `expert` uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelBot<'a> {
    /// The level.
    pub level: Level,
    /// The budget of `expert`'s search (unused by the other levels); `None` for each game's
    /// default (each game's bot's `BUDGET`).
    pub budget: Option<Budget>,
    /// When `expert`'s search must stop short of its budget.
    pub time_up: TimeUp<'a>,
}

impl<'a> LevelBot<'a> {
    /// A bot of `level` with each game's default budget, searching to it.
    pub fn new(level: Level) -> LevelBot<'a> {
        LevelBot {
            level,
            budget: None,
            time_up: TimeUp::NEVER,
        }
    }

    /// The search budget: the one set, or else the game's own (`default`, its bot's
    /// `BUDGET`).
    pub fn budget_or(&self, default: Budget) -> Budget {
        self.budget.unwrap_or(default)
    }
}

/// A uniform draw from `0..len` (`len > 0`).
pub(crate) fn below(rng: &mut Rng, len: usize) -> usize {
    // The remainder is below `len`, a usize; a usize fits a u64 on every target Rust supports.
    #[allow(clippy::cast_possible_truncation)]
    let index = (rng.next_u64() % len.max(1) as u64) as usize;
    index
}

/// A draw from `[0, 1)`.
pub(crate) fn unit(rng: &mut Rng) -> f64 {
    // 53 random bits make a double exactly.
    #[allow(clippy::cast_precision_loss)]
    let x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    x
}

/// An index drawn in proportion to `weights` (uniform if none is positive).
pub(crate) fn weighted(rng: &mut Rng, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().filter(|w| **w > 0.0).sum();
    if total <= 0.0 {
        return below(rng, weights.len());
    }
    let mut x = unit(rng) * total;
    for (i, w) in weights.iter().enumerate() {
        if *w > 0.0 {
            if x < *w {
                return i;
            }
            x -= w;
        }
    }
    weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
}

/// Shuffles `items` in place (Fisher–Yates).
pub(crate) fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for top in (1..items.len()).rev() {
        let pick = below(rng, top + 1);
        items.swap(top, pick);
    }
}

/// A legal action drawn with `weight`, every `{"choose": k, "from": [...]}` in it filled with
/// k distinct items picked at random: the `random` level, and the fallback of every other.
pub(crate) fn uniform(seen: &Seen, rng: &mut Rng, weight: impl Fn(&Value) -> f64) -> Option<Value> {
    let legal = seen.legal();
    if legal.is_empty() {
        return None;
    }
    let weights: Vec<f64> = legal.iter().map(weight).collect();
    let template = &legal[weighted(rng, &weights)];
    Some(fill(template, rng))
}

/// `template` with every `{"choose": k, "from": [...]}` replaced by k distinct items of `from`,
/// picked at random.
pub(crate) fn fill(template: &Value, rng: &mut Rng) -> Value {
    match template {
        Value::Object(map) => {
            if let Some((k, from)) = choice(template) {
                let mut pool = from.to_vec();
                shuffle(rng, &mut pool);
                pool.truncate(k);
                return Value::Array(pool);
            }
            Value::Object(
                map.iter()
                    .map(|(key, value)| (key.clone(), fill(value, rng)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, rng)).collect()),
        other => other.clone(),
    }
}

/// The `(k, from)` of a `{"choose": k, "from": [...]}` template.
pub(crate) fn choice(value: &Value) -> Option<(usize, &[Value])> {
    let map = value.as_object()?;
    if map.len() != 2 {
        return None;
    }
    let k = usize::try_from(map.get("choose")?.as_u64()?).ok()?;
    let from = map.get("from")?.as_array()?;
    Some((k, from.as_slice()))
}

/// The `type` of an action or event.
pub(crate) fn kind(value: &Value) -> &str {
    value.get("type").and_then(Value::as_str).unwrap_or("")
}

/// A seat written as a number in an event or view.
pub(crate) fn seat_at(value: &Value, key: &str) -> Option<Seat> {
    value
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u8::try_from(n).ok())
        .map(Seat)
}

/// For a game whose bots never decline every move they have (every game but GOOGLY).
pub fn never_waits(_: &Seen, _: LevelBot<'_>, _: &mut Rng) -> bool {
    false
}

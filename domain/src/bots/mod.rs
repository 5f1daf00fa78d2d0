//! Bots: automatic players that fill seats and take over for absent players, in every game.
//!
//! A bot is given only what its seat may see, as a [`Seen`]: the seat's own view, the log as
//! redacted for that seat, and its legal actions (see `crate::bot_kit`, the kit each game's
//! bot is written with). The bot of each game is the one the catalogue pairs with it
//! (`catalog::Entry::bots`), so a game without a bot does not compile.
//!
//! The server calls [`play`]: a table, a seat, the log, a level and a seed in; the action to
//! submit, as JSON, out. It needs to know nothing about the games.

pub mod arena;

pub use crate::bot_kit::*;

use rand_core::SeedableRng;
use serde_json::Value;

use crate::catalog;
use crate::engine::{Engine, Recorded, Table};
use crate::game::Seat;

impl Bot for LevelBot<'_> {
    fn choose(&self, seen: &Seen, rng: &mut Rng) -> Option<Value> {
        if seen.legal().is_empty() {
            return None;
        }
        // `play_with` refuses a game the catalogue lacks before a bot is asked.
        let entry = catalog::entry(seen.game())?;
        if (entry.bots.waits)(seen, *self, rng) {
            return None;
        }
        let chosen = (entry.bots.choose)(seen, *self, rng);
        // Every game's bot answers from the legal actions; should one ever not, the first legal
        // action filled at random is still a move the table accepts.
        chosen.or_else(|| uniform(seen, rng, |_| 1.0))
    }
}

/// The move a bot of `level` makes for `seat` at `table`, given the table's whole `log` and a
/// `seed` (the same inputs give the same move): what the server calls. The action is complete
/// and legal; submit it through the same decide path as a person's. A seat with nothing to do
/// is [`BotError::NothingToDo`]; one whose bot declines every move it has now is
/// [`BotError::Waits`] (move another seat in `to_act` first).
pub fn play(
    engine: &dyn Engine,
    table: &dyn Table,
    seat: Seat,
    log: &[Recorded],
    level: Level,
    seed: u64,
) -> Result<Value, BotError> {
    play_with(engine, table, seat, log, LevelBot::new(level), seed)
}

/// As [`play`], but `expert`'s search stops once `time_up` says so and plays its best move
/// so far: what the server calls, with a wall-clock deadline.
pub fn play_until(
    engine: &dyn Engine,
    table: &dyn Table,
    seat: Seat,
    log: &[Recorded],
    level: Level,
    seed: u64,
    time_up: TimeUp<'_>,
) -> Result<Value, BotError> {
    let bot = LevelBot {
        time_up,
        ..LevelBot::new(level)
    };
    play_with(engine, table, seat, log, bot, seed)
}

/// As [`play`], with a chosen bot (and so a chosen search budget).
pub fn play_with(
    engine: &dyn Engine,
    table: &dyn Table,
    seat: Seat,
    log: &[Recorded],
    bot: LevelBot<'_>,
    seed: u64,
) -> Result<Value, BotError> {
    if catalog::entry(engine.describe().id).is_none() {
        return Err(BotError::UnknownGame(engine.describe().id.to_string()));
    }
    let seen = Seen::observe(engine, table, seat, log)?;
    let mut rng = Rng::seed_from_u64(seed);
    match bot.choose(&seen, &mut rng) {
        Some(action) => Ok(action),
        None if seen.legal().is_empty() => Err(BotError::NothingToDo(seat)),
        None => Err(BotError::Waits(seat)),
    }
}

#[cfg(test)]
mod tests;

//! A table played by bots alone, through the same JSON edge and decide path as the server's:
//! what the bots' tests and the tournament runner (`examples/tournament.rs`) play.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::Value;

use crate::bots::{play_with, BotError, LevelBot};
use crate::chance::{Chance, Seed};
use crate::engine::{Engine, Recorded, Table};
use crate::game::{Player, Seat};

/// One game in progress between bots: the table, its log, and the seeds of the deal and of
/// every bot move.
pub struct Arena {
    engine: &'static dyn Engine,
    table: Box<dyn Table>,
    log: Vec<Recorded>,
    seed: Seed,
    rng: ChaCha8Rng,
    moves: usize,
}

impl Arena {
    /// A table of `engine` for `players` with `options`, dealt from `seed`, under the latest
    /// rules.
    pub fn open(
        engine: &'static dyn Engine,
        players: usize,
        options: &Value,
        seed: u64,
    ) -> Result<Arena, String> {
        Arena::open_under(engine, players, options, seed, crate::RULES_VERSION)
    }

    /// [`Arena::open`] under rules version `rules_version`.
    pub fn open_under(
        engine: &'static dyn Engine,
        players: usize,
        options: &Value,
        seed: u64,
        rules_version: u32,
    ) -> Result<Arena, String> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        let players: Vec<Player> = (0..players)
            .map(|i| Player {
                name: format!("bot {i}"),
            })
            .collect();
        let table = engine
            .open(&players, options, rules_version)
            .map_err(|e| format!("setup refused: {e}"))?;
        let mut arena = Arena {
            engine,
            table,
            log: Vec::new(),
            seed: Seed(bytes),
            rng,
            moves: 0,
        };
        let opening = arena.table.start(&mut Chance::new(arena.seed, 1));
        arena.log.extend(opening.events.iter().cloned());
        arena.table.apply(opening);
        Ok(arena)
    }

    /// The table.
    pub fn table(&self) -> &dyn Table {
        self.table.as_ref()
    }

    /// The log so far.
    pub fn log(&self) -> &[Recorded] {
        &self.log
    }

    /// Moves made so far.
    pub fn moves(&self) -> usize {
        self.moves
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Value> {
        self.table.outcome()
    }

    /// The seats to act, in an order drawn at random (several seats may owe a move at once,
    /// and any may move first); empty once the game is over.
    pub fn seats_in_turn(&mut self) -> Vec<Seat> {
        if self.table.outcome().is_some() {
            return Vec::new();
        }
        let mut to_act = self.table.to_act();
        for top in (1..to_act.len()).rev() {
            // Below `top + 1`, a usize.
            #[allow(clippy::cast_possible_truncation)]
            let pick = (self.rng.next_u64() % (top as u64 + 1)) as usize;
            to_act.swap(top, pick);
        }
        to_act
    }

    /// The seat to move next, drawn among `to_act`; `None` once the game is over.
    pub fn next_seat(&mut self) -> Option<Seat> {
        self.seats_in_turn().first().copied()
    }

    /// The move `bot` chooses for `seat` (not yet played); `None` if it waits for another seat.
    pub fn choose(&mut self, seat: Seat, bot: LevelBot) -> Result<Option<Value>, String> {
        let seed = self.rng.next_u64();
        match play_with(self.engine, self.table.as_ref(), seat, &self.log, bot, seed) {
            Ok(action) => Ok(Some(action)),
            Err(BotError::Waits(_)) => Ok(None),
            Err(e) => Err(format!("{} bot for {seat}: {e}", bot.level)),
        }
    }

    /// The first seat in `to_act` (in an order drawn at random) whose bot moves, and its move;
    /// `None` once the game is over.
    pub fn next_move(&mut self, bots: &[LevelBot]) -> Result<Option<(Seat, Value)>, String> {
        let seats = self.seats_in_turn();
        if seats.is_empty() {
            return Ok(None);
        }
        for seat in seats {
            let bot = bots
                .get(seat.index())
                .copied()
                .ok_or_else(|| format!("no bot for {seat}"))?;
            if let Some(action) = self.choose(seat, bot)? {
                return Ok(Some((seat, action)));
            }
        }
        Err("every seat to act waits for another".into())
    }

    /// Plays `action` for `seat` through the table's decide, as the server would: a refusal is
    /// an error.
    pub fn play(&mut self, seat: Seat, action: &Value) -> Result<(), String> {
        let next_seq = self.log.len() as u64 + 1;
        let decision = self
            .table
            .decide(seat, action, &mut Chance::new(self.seed, next_seq))
            .map_err(|e| format!("{action} by {seat} was refused: {e}"))?;
        if decision.events.is_empty() {
            return Err(format!("{action} by {seat} produced no events"));
        }
        self.log.extend(decision.events.iter().cloned());
        self.table.apply(decision);
        self.moves += 1;
        Ok(())
    }

    /// Plays the game to its end with `bots[s]` in seat `s`; fails on a refused move or after
    /// `max_moves`. Returns the outcome.
    pub fn play_out(&mut self, bots: &[LevelBot], max_moves: usize) -> Result<Value, String> {
        while let Some((seat, action)) = self.next_move(bots)? {
            if self.moves >= max_moves {
                return Err(format!("no end after {max_moves} moves"));
            }
            self.play(seat, &action)?;
        }
        self.outcome()
            .ok_or_else(|| "the game is not over but no seat is to act".to_string())
    }
}

/// Each seat's share of the win in a finished game's outcome (`winners`, as every game's
/// outcome lists them): `1/k` to each of `k` winners, 0 to the rest; with no winner (a drawn
/// match, a game in which nobody completed a set) every seat shares alike.
pub fn win_shares(outcome: &Value, players: usize) -> Vec<f64> {
    let winners: Vec<usize> = outcome
        .get("winners")
        .and_then(Value::as_array)
        .map(|w| {
            w.iter()
                .filter_map(|s| s.as_u64().and_then(|n| usize::try_from(n).ok()))
                .filter(|s| *s < players)
                .collect()
        })
        .unwrap_or_default();
    // A handful of seats.
    #[allow(clippy::cast_precision_loss)]
    let alike = 1.0 / players.max(1) as f64;
    if winners.is_empty() {
        return vec![alike; players];
    }
    let mut shares = vec![0.0; players];
    // A handful of seats.
    #[allow(clippy::cast_precision_loss)]
    let share = 1.0 / winners.len() as f64;
    for w in winners {
        shares[w] += share;
    }
    shares
}

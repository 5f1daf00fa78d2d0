//! Parlour's rules: every game as a pure decider, with no async, I/O, HTTP or SQL.
//!
//! - [`game::Game`] is the shape every game has: `decide`, `evolve`, `view`, `legal_actions`,
//!   `redact`, `outcome`.
//! - [`chance`] is the seeded ChaCha20 shuffle every random outcome comes from.
//! - [`engine`] puts every game behind one JSON-speaking interface for the server.
//! - [`catalog`] lists the games; [`playout`] is the random-playout check every game passes.
//! - [`bots`] are automatic players that see only what their seat may (`docs/bots.md`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bot_kit;
pub mod bots;
pub mod british_birds;
pub mod catalog;
pub mod chance;
pub mod clocks;
pub mod engine;
pub mod game;
pub mod googly;
pub mod history_of_england;
pub mod matches;
pub mod playout;
pub mod table_events;
pub mod tricks;

pub use chance::{Chance, Seed, Shuffled};
pub use engine::{
    Decision, Engine, GameSchemas, MoveRefused, OutOfTurn, Recorded, Refused, Table, ViewSchemas,
};
pub use game::{
    check_rules_version, Choose, Concession, Description, Game, Player, Refusal, RefusalKind,
    Scoresheet, Seat, Setup, SetupError, View, ViewOf, Viewer, FIRST_RULES_VERSION, RULES_VERSION,
};

//! The games Parlour offers, by their stable ids.

use crate::engine::{Engine, EngineOf};
use crate::history_of_england::HistoryOfEngland;

static HISTORY_OF_ENGLAND: EngineOf<HistoryOfEngland> = EngineOf::new();

/// Every game offered, in catalogue order.
pub fn engines() -> Vec<&'static dyn Engine> {
    vec![&HISTORY_OF_ENGLAND]
}

/// The game with this id (`girl`, `car`, ...), if Parlour offers it.
pub fn engine(id: &str) -> Option<&'static dyn Engine> {
    engines()
        .into_iter()
        .find(|engine| engine.describe().id == id)
}

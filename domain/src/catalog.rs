//! The games Parlour offers, by their stable ids.

use crate::engine::{Engine, EngineOf};
use crate::googly::Googly;

static GOOGLY: EngineOf<Googly> = EngineOf::new();

/// Every game offered, in catalogue order.
pub fn engines() -> Vec<&'static dyn Engine> {
    vec![&GOOGLY]
}

/// The game with this id (`girl`, `car`, ...), if Parlour offers it.
pub fn engine(id: &str) -> Option<&'static dyn Engine> {
    engines()
        .into_iter()
        .find(|engine| engine.describe().id == id)
}

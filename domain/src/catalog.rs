//! The games Parlour offers, by their stable ids.

use crate::british_birds::BritishBirds;
use crate::engine::{Engine, EngineOf};
use crate::googly::Googly;
use crate::history_of_england::HistoryOfEngland;
use crate::trio::{CarGame, GirlGame};

static GIRL: EngineOf<GirlGame> = EngineOf::new();
static CAR: EngineOf<CarGame> = EngineOf::new();
static BRITISH_BIRDS: EngineOf<BritishBirds> = EngineOf::new();
static HISTORY_OF_ENGLAND: EngineOf<HistoryOfEngland> = EngineOf::new();
static GOOGLY: EngineOf<Googly> = EngineOf::new();

/// Every game offered, in catalogue order.
pub fn engines() -> Vec<&'static dyn Engine> {
    vec![&GIRL, &CAR, &BRITISH_BIRDS, &HISTORY_OF_ENGLAND, &GOOGLY]
}

/// The game with this id (`girl`, `car`, ...), if Parlour offers it.
pub fn engine(id: &str) -> Option<&'static dyn Engine> {
    engines()
        .into_iter()
        .find(|engine| engine.describe().id == id)
}

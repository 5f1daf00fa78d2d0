//! Table events: facts about the table rather than the rules of its game.
//!
//! One log per game holds two kinds of entry: the game's own events, which only its engine
//! decides and folds, and *table events* — a note, a resignation, an abandonment, and later
//! clocks, vacations and seats changing hands. Engines never see table events. The framework
//! folds them into a [`TableState`], which can narrow the seats a game waits for or end the game
//! outright with an outcome of its own.
//!
//! In the log a table event's type is its name behind [`PREFIX`] (`table.note`), which no game's
//! event type can be (those are snake_case words), so a reader tells the two apart by the type
//! alone, and the hash chain, which covers the type, binds the distinction.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chance::Chance;
use crate::engine::{BadEvent, Decision, Recorded, Refused, Table};
use crate::game::Seat;

/// What every table event's type starts with in the log.
pub const PREFIX: &str = "table.";

/// The longest note, in characters: notes are public and kept for ever.
pub const MAX_NOTE_CHARS: usize = 500;

/// A fact about the table, as recorded in the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TableEvent {
    /// A remark kept in the log; it changes nothing at the table.
    Note {
        /// The remark, shown to everyone.
        text: String,
    },
    /// The player in `seat` resigned: the game ends there.
    Resigned {
        /// The seat that resigned.
        seat: Seat,
    },
    /// The game was declared abandoned: it ends with no result for anyone.
    Abandoned {
        /// Why, in the words of whoever declared it.
        reason: String,
    },
}

/// Why a table event cannot be recorded now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableRefusal {
    /// The game is already over; nothing more happens at its table.
    #[error("the game is over")]
    GameOver,
    /// The event names a seat the table does not have.
    #[error("this table has no {0}")]
    NoSuchSeat(Seat),
    /// A note that is empty, too long, or holds control characters.
    #[error("a note must be 1 to {MAX_NOTE_CHARS} printable characters")]
    BadNote,
}

/// A stored entry whose type says it is a table event, but whose data is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} is not a table event this server knows: {reason}")]
pub struct BadTableEvent {
    /// The type as stored.
    pub kind: String,
    /// What did not fit.
    pub reason: String,
}

/// How a table event ended the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "ended_by", rename_all = "snake_case")]
pub enum TableOutcome {
    /// A player resigned.
    Resignation {
        /// The seat that resigned.
        seat: Seat,
    },
    /// The game was abandoned.
    Abandonment {
        /// Why.
        reason: String,
    },
}

impl TableEvent {
    /// The type the log records for it, e.g. `table.note`.
    pub fn kind(&self) -> String {
        format!("{PREFIX}{}", self.name())
    }

    fn name(&self) -> &'static str {
        match self {
            TableEvent::Note { .. } => "note",
            TableEvent::Resigned { .. } => "resigned",
            TableEvent::Abandoned { .. } => "abandoned",
        }
    }

    /// Whether a stored entry of type `kind` is a table event (and not the game's own).
    pub fn is_table_kind(kind: &str) -> bool {
        kind.starts_with(PREFIX)
    }

    /// The entry as the log stores it: its type and the rest of it.
    pub fn to_recorded(&self) -> Recorded {
        let mut data = match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            // An enum of plain fields always serialises to an object.
            _ => serde_json::Map::new(),
        };
        data.remove("type");
        Recorded {
            kind: self.kind(),
            data: Value::Object(data),
        }
    }

    /// Reads a stored entry back; fails on anything that is not exactly a table event.
    pub fn from_recorded(event: &Recorded) -> Result<TableEvent, BadTableEvent> {
        let bad = |reason: String| BadTableEvent {
            kind: event.kind.clone(),
            reason,
        };
        let name = event
            .kind
            .strip_prefix(PREFIX)
            .ok_or_else(|| bad("its type has no table prefix".into()))?;
        let mut object = match &event.data {
            Value::Object(map) => map.clone(),
            _ => return Err(bad("its data is not an object".into())),
        };
        object.insert("type".into(), Value::String(name.to_string()));
        serde_json::from_value(Value::Object(object)).map_err(|e| bad(e.to_string()))
    }
}

/// The table as its table events leave it: who resigned, and whether the game was ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableState {
    players: usize,
    ended: Option<TableOutcome>,
}

impl TableState {
    /// A table of `players` seats at which nothing has happened yet.
    pub fn new(players: usize) -> Self {
        TableState {
            players,
            ended: None,
        }
    }

    /// Whether `event` may be recorded now, at a table whose game is over if `game_over`.
    /// The same check runs when the event is first recorded and when an audit replays it.
    pub fn admit(&self, event: &TableEvent, game_over: bool) -> Result<(), TableRefusal> {
        if game_over || self.ended.is_some() {
            return Err(TableRefusal::GameOver);
        }
        match event {
            TableEvent::Note { text } | TableEvent::Abandoned { reason: text } => {
                let length = text.chars().count();
                if length == 0 || length > MAX_NOTE_CHARS || text.chars().any(char::is_control) {
                    return Err(TableRefusal::BadNote);
                }
            }
            TableEvent::Resigned { seat } => {
                if seat.index() >= self.players {
                    return Err(TableRefusal::NoSuchSeat(*seat));
                }
            }
        }
        Ok(())
    }

    /// Folds one table event in. Events come from [`TableState::admit`] or a log of them.
    pub fn apply(&mut self, event: &TableEvent) {
        match event {
            TableEvent::Note { .. } => {}
            TableEvent::Resigned { seat } => {
                self.ended = Some(TableOutcome::Resignation { seat: *seat });
            }
            TableEvent::Abandoned { reason } => {
                self.ended = Some(TableOutcome::Abandonment {
                    reason: reason.clone(),
                });
            }
        }
    }

    /// How a table event ended the game, if one did.
    pub fn ended(&self) -> Option<&TableOutcome> {
        self.ended.as_ref()
    }

    /// The seats the game waits for, once the table has had its say: none after the game was
    /// ended at the table.
    pub fn narrow(&self, to_act: Vec<Seat>) -> Vec<Seat> {
        if self.ended.is_some() {
            Vec::new()
        } else {
            to_act
        }
    }
}

/// A game as its whole log leaves it: the game under its rules, and the table around it.
///
/// This is where the two kinds of entry meet: each stored entry goes to the one that owns it,
/// and what the table says (the game was ended) overrides what the rules alone would say.
pub struct Sitting {
    /// The game under its own rules; it never sees a table event.
    pub rules: Box<dyn Table>,
    /// What the table events say.
    pub table: TableState,
}

/// A stored entry that fits neither the game nor the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadEntry {
    /// A game event the game cannot apply.
    #[error(transparent)]
    Game(#[from] BadEvent),
    /// A table event this server does not know.
    #[error(transparent)]
    Table(#[from] BadTableEvent),
}

impl Sitting {
    /// A game before its first entry, seated for `players`.
    pub fn new(rules: Box<dyn Table>, players: usize) -> Self {
        Sitting {
            rules,
            table: TableState::new(players),
        }
    }

    /// Applies one stored entry, to the table or to the game as its type says.
    pub fn apply_entry(&mut self, entry: &Recorded) -> Result<(), BadEntry> {
        if TableEvent::is_table_kind(&entry.kind) {
            self.table.apply(&TableEvent::from_recorded(entry)?);
        } else {
            self.rules.apply_recorded(entry)?;
        }
        Ok(())
    }

    /// Whether the game is over, by its rules or at the table.
    pub fn is_over(&self) -> bool {
        self.table.ended().is_some() || self.rules.outcome().is_some()
    }

    /// The result: how the table ended the game if it did, else what the rules give.
    pub fn outcome(&self) -> Option<Value> {
        match self.table.ended() {
            Some(ended) => serde_json::to_value(ended).ok(),
            None => self.rules.outcome(),
        }
    }

    /// The seats the game waits for.
    pub fn to_act(&self) -> Vec<Seat> {
        self.table.narrow(self.rules.to_act())
    }

    /// What `seat` may submit now: nothing once the table has ended the game.
    pub fn legal_actions(&self, seat: Seat) -> Vec<Value> {
        if self.table.ended().is_some() {
            Vec::new()
        } else {
            self.rules.legal_actions(seat)
        }
    }

    /// Decides a move: refused once the table has ended the game, else as the rules decide.
    pub fn decide(
        &self,
        seat: Seat,
        action: &Value,
        chance: &mut Chance,
    ) -> Result<Decision, Refused> {
        if self.table.ended().is_some() {
            return Err(Refused::NotYourMove {
                rule: "game-over",
                message: "the game is over".into(),
            });
        }
        self.rules.decide(seat, action, chance)
    }

    /// Whether `event` may be recorded at the table now.
    pub fn admit(&self, event: &TableEvent) -> Result<(), TableRefusal> {
        self.table.admit(event, self.rules.outcome().is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_note_is_stored_under_the_table_prefix_and_read_back_exactly() {
        let note = TableEvent::Note {
            text: "tea at four".into(),
        };
        let stored = note.to_recorded();
        assert_eq!(stored.kind, "table.note");
        assert_eq!(stored.data, json!({"text": "tea at four"}));
        assert_eq!(TableEvent::from_recorded(&stored), Ok(note));
    }

    #[test]
    fn an_entry_with_extra_fields_or_no_prefix_is_not_a_table_event() {
        let extra = Recorded {
            kind: "table.note".into(),
            data: json!({"text": "x", "card": "H7"}),
        };
        assert!(TableEvent::from_recorded(&extra).is_err());
        let game_event = Recorded {
            kind: "note".into(),
            data: json!({"text": "x"}),
        };
        assert!(TableEvent::from_recorded(&game_event).is_err());
        assert!(!TableEvent::is_table_kind("lay"));
        assert!(TableEvent::is_table_kind("table.note"));
    }

    #[test]
    fn a_resignation_ends_the_game_and_nobody_is_waited_for() {
        let mut table = TableState::new(3);
        let resign = TableEvent::Resigned { seat: Seat(1) };
        assert_eq!(table.admit(&resign, false), Ok(()));
        table.apply(&resign);
        assert_eq!(
            table.ended(),
            Some(&TableOutcome::Resignation { seat: Seat(1) })
        );
        assert!(table.narrow(vec![Seat(0), Seat(2)]).is_empty());
        let note = TableEvent::Note { text: "gg".into() };
        assert_eq!(table.admit(&note, false), Err(TableRefusal::GameOver));
    }

    #[test]
    fn nothing_is_recorded_at_a_table_whose_game_is_over() {
        let table = TableState::new(2);
        let note = TableEvent::Note { text: "hi".into() };
        assert_eq!(table.admit(&note, true), Err(TableRefusal::GameOver));
    }

    #[test]
    fn a_seat_the_table_lacks_cannot_resign() {
        let table = TableState::new(2);
        let resign = TableEvent::Resigned { seat: Seat(2) };
        assert_eq!(
            table.admit(&resign, false),
            Err(TableRefusal::NoSuchSeat(Seat(2)))
        );
    }

    #[test]
    fn notes_must_be_printable_and_short() {
        let table = TableState::new(2);
        for text in ["", "a\u{0}b", &"x".repeat(MAX_NOTE_CHARS + 1)] {
            let note = TableEvent::Note { text: text.into() };
            assert_eq!(table.admit(&note, false), Err(TableRefusal::BadNote));
        }
        let longest = TableEvent::Note {
            text: "é".repeat(MAX_NOTE_CHARS),
        };
        assert_eq!(table.admit(&longest, false), Ok(()));
    }

    fn girl_for_two() -> Sitting {
        let engine = crate::catalog::engine("girl").unwrap();
        let players = vec![
            crate::Player { name: "Ann".into() },
            crate::Player { name: "Bea".into() },
        ];
        let mut rules = engine.open(&players, &json!({})).unwrap();
        let opening = rules.start(&mut Chance::new(crate::Seed([7; 32]), 1));
        rules.apply(opening);
        Sitting::new(rules, 2)
    }

    #[test]
    fn a_sitting_gives_table_events_to_the_table_and_keeps_them_from_the_game() {
        let mut sitting = girl_for_two();
        let before = sitting.rules.to_act();
        let note = TableEvent::Note { text: "hi".into() }.to_recorded();
        assert_eq!(sitting.apply_entry(&note), Ok(()));
        assert_eq!(sitting.to_act(), before);
        assert!(!sitting.is_over());
        // The game itself would refuse the entry: it was never shown it.
        assert!(sitting.rules.clone_table().apply_recorded(&note).is_err());
    }

    #[test]
    fn once_the_table_ends_the_game_every_move_is_refused_as_game_over() {
        let mut sitting = girl_for_two();
        let seat = sitting.to_act()[0];
        let offered = sitting.legal_actions(seat);
        assert!(!offered.is_empty());
        let resign = TableEvent::Resigned { seat: Seat(1) };
        assert_eq!(sitting.admit(&resign), Ok(()));
        sitting.apply_entry(&resign.to_recorded()).unwrap();
        assert!(sitting.is_over());
        assert!(sitting.to_act().is_empty());
        assert!(sitting.legal_actions(seat).is_empty());
        assert_eq!(
            sitting.outcome(),
            Some(json!({"ended_by": "resignation", "seat": 1}))
        );
        let action = crate::playout::instantiate(
            &offered[0],
            &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(1),
        );
        let refused = sitting
            .decide(seat, &action, &mut Chance::new(crate::Seed([7; 32]), 9))
            .map(|_| ());
        assert!(
            matches!(
                refused,
                Err(Refused::NotYourMove {
                    rule: "game-over",
                    ..
                })
            ),
            "{refused:?}"
        );
    }

    #[test]
    fn the_outcome_of_a_table_ending_is_tagged_by_how_it_ended() {
        let outcome = TableOutcome::Resignation { seat: Seat(0) };
        assert_eq!(
            serde_json::to_value(outcome).unwrap(),
            json!({"ended_by": "resignation", "seat": 0})
        );
    }
}

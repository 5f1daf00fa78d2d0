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
    /// The account that created the game hosts it: it offers the seats, may withdraw an
    /// offer and may abort the game before the first move. Recorded once, right after the
    /// deal, and only in games created by an account.
    Hosted {
        /// The host's account id.
        account: String,
        /// The host's name when the game was created.
        name: String,
    },
    /// A seat is offered to whoever may claim it.
    SeatOffered {
        /// The seat.
        seat: Seat,
        /// Who may claim it.
        to: Offer,
    },
    /// The host withdrew a seat's offer (an invitation revoked): nobody can claim the seat
    /// until it is offered again.
    OfferWithdrawn {
        /// The seat.
        seat: Seat,
    },
    /// An account took a seat: from now on that account plays it.
    Seated {
        /// The seat.
        seat: Seat,
        /// The account's id.
        account: String,
        /// The account's name when it sat down.
        name: String,
    },
    /// The host called the game off before its first move: it ends with no result.
    Aborted {},
}

/// Who may claim an offered seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Offer {
    /// Any account, the first to claim it.
    Anyone {},
    /// Only this account.
    Account {
        /// The account's id.
        account: String,
    },
    /// Whoever brings the invitation's code. Only the code's SHA-256 is kept: the log is
    /// public, and the code is the invitation.
    Invitation {
        /// SHA-256 of the code, in hex.
        code_hash: String,
    },
}

/// Who sits in a seat of a hosted game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Holder {
    /// The account's id.
    pub account: String,
    /// The account's name when it sat down.
    pub name: String,
}

/// One seat of a hosted game: who holds it, and if nobody does, who may claim it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeatAtTable {
    /// The account playing the seat.
    pub holder: Option<Holder>,
    /// Who may claim the seat while it is empty.
    pub offer: Option<Offer>,
}

/// The seats of a game an account created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seating {
    /// The account that created the game.
    pub host: Holder,
    /// Every seat, in order.
    pub seats: Vec<SeatAtTable>,
    /// Whether a move has been made since the game was hosted.
    pub moved: bool,
}

impl Seating {
    /// The seat `account` holds, if any.
    pub fn seat_of(&self, account: &str) -> Option<Seat> {
        self.seats
            .iter()
            .position(|s| s.holder.as_ref().is_some_and(|h| h.account == account))
            .and_then(|i| u8::try_from(i).ok())
            .map(Seat)
    }

    /// Whether some seat is still empty: the game waits for players, and nobody moves.
    pub fn waiting(&self) -> bool {
        self.seats.iter().any(|s| s.holder.is_none())
    }
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
    /// Seats are offered, withdrawn and taken only in a game an account created.
    #[error("this game was not created by an account, so its seats are not offered")]
    NotHosted,
    /// A game is hosted once, when it is created.
    #[error("this game already has a host")]
    AlreadyHosted,
    /// The seat already has a player.
    #[error("{0} is already taken")]
    SeatTaken(Seat),
    /// The seat is not on offer (never offered, or its offer was withdrawn).
    #[error("{0} is not on offer")]
    NotOffered(Seat),
    /// The seat is offered to someone else, or the invitation's code is not this one.
    #[error("{0} is not offered to this account")]
    NotOfferedToYou(Seat),
    /// One account plays one seat of a game.
    #[error("this account already plays {0} of this game")]
    AlreadySeated(Seat),
    /// The game has begun: its seats are no longer offered, and it can no longer be aborted.
    #[error("the game has begun")]
    Begun,
    /// Nobody can resign from a game that has not begun: its host aborts it instead.
    #[error("the game is waiting for players; its host may abort it instead")]
    Waiting,
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
    /// The host aborted the game before its first move.
    Abort,
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
            TableEvent::Hosted { .. } => "hosted",
            TableEvent::SeatOffered { .. } => "seat_offered",
            TableEvent::OfferWithdrawn { .. } => "offer_withdrawn",
            TableEvent::Seated { .. } => "seated",
            TableEvent::Aborted {} => "aborted",
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
    seating: Option<Seating>,
}

impl TableState {
    /// A table of `players` seats at which nothing has happened yet.
    pub fn new(players: usize) -> Self {
        TableState {
            players,
            ended: None,
            seating: None,
        }
    }

    /// The seats of a game an account created; `None` for a game whose seats hold tokens.
    pub fn seating(&self) -> Option<&Seating> {
        self.seating.as_ref()
    }

    /// Whether the game waits for players before anyone may move.
    pub fn waiting(&self) -> bool {
        self.seating.as_ref().is_some_and(Seating::waiting)
    }

    /// Notes that a game event was applied: once a game is hosted, that is a move.
    pub fn game_event_applied(&mut self) {
        if let Some(seating) = &mut self.seating {
            seating.moved = true;
        }
    }

    fn seat(&self, seat: Seat) -> Result<&SeatAtTable, TableRefusal> {
        let seating = self.seating.as_ref().ok_or(TableRefusal::NotHosted)?;
        seating
            .seats
            .get(seat.index())
            .ok_or(TableRefusal::NoSuchSeat(seat))
    }

    fn admit_seating(&self, event: &TableEvent) -> Result<(), TableRefusal> {
        let printable = |text: &str| {
            let length = text.chars().count();
            length > 0 && length <= MAX_NOTE_CHARS && !text.chars().any(char::is_control)
        };
        match event {
            TableEvent::Hosted { name, .. } => {
                if self.seating.is_some() {
                    return Err(TableRefusal::AlreadyHosted);
                }
                if !printable(name) {
                    return Err(TableRefusal::BadNote);
                }
            }
            TableEvent::SeatOffered { seat, .. } => {
                let at = self.seat(*seat)?;
                if !self.waiting() {
                    return Err(TableRefusal::Begun);
                }
                if at.holder.is_some() {
                    return Err(TableRefusal::SeatTaken(*seat));
                }
            }
            TableEvent::OfferWithdrawn { seat } => {
                let at = self.seat(*seat)?;
                if !self.waiting() {
                    return Err(TableRefusal::Begun);
                }
                if at.holder.is_some() {
                    return Err(TableRefusal::SeatTaken(*seat));
                }
                if at.offer.is_none() {
                    return Err(TableRefusal::NotOffered(*seat));
                }
            }
            TableEvent::Seated {
                seat,
                account,
                name,
            } => {
                let at = self.seat(*seat)?;
                if at.holder.is_some() {
                    return Err(TableRefusal::SeatTaken(*seat));
                }
                let seating = self.seating.as_ref().ok_or(TableRefusal::NotHosted)?;
                if let Some(held) = seating.seat_of(account) {
                    return Err(TableRefusal::AlreadySeated(held));
                }
                if !printable(name) {
                    return Err(TableRefusal::BadNote);
                }
                // The host sits down without an offer; anyone else needs one. Whether an
                // invitation's code was right is the server's to check: only its hash is here.
                match &at.offer {
                    None if seating.host.account == *account && !seating.moved => {}
                    None => return Err(TableRefusal::NotOffered(*seat)),
                    Some(Offer::Account { account: offered }) if offered != account => {
                        return Err(TableRefusal::NotOfferedToYou(*seat));
                    }
                    Some(_) => {}
                }
            }
            TableEvent::Aborted {} => {
                let seating = self.seating.as_ref().ok_or(TableRefusal::NotHosted)?;
                if seating.moved {
                    return Err(TableRefusal::Begun);
                }
            }
            _ => {}
        }
        Ok(())
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
                if self.waiting() {
                    return Err(TableRefusal::Waiting);
                }
            }
            TableEvent::Hosted { .. }
            | TableEvent::SeatOffered { .. }
            | TableEvent::OfferWithdrawn { .. }
            | TableEvent::Seated { .. }
            | TableEvent::Aborted {} => self.admit_seating(event)?,
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
            TableEvent::Hosted { account, name } => {
                self.seating = Some(Seating {
                    host: Holder {
                        account: account.clone(),
                        name: name.clone(),
                    },
                    seats: vec![SeatAtTable::default(); self.players],
                    moved: false,
                });
            }
            TableEvent::SeatOffered { seat, to } => {
                if let Some(at) = self.seat_mut(*seat) {
                    at.offer = Some(to.clone());
                }
            }
            TableEvent::OfferWithdrawn { seat } => {
                if let Some(at) = self.seat_mut(*seat) {
                    at.offer = None;
                }
            }
            TableEvent::Seated {
                seat,
                account,
                name,
            } => {
                if let Some(at) = self.seat_mut(*seat) {
                    at.offer = None;
                    at.holder = Some(Holder {
                        account: account.clone(),
                        name: name.clone(),
                    });
                }
            }
            TableEvent::Aborted {} => self.ended = Some(TableOutcome::Abort),
        }
    }

    fn seat_mut(&mut self, seat: Seat) -> Option<&mut SeatAtTable> {
        self.seating
            .as_mut()
            .and_then(|seating| seating.seats.get_mut(seat.index()))
    }

    /// How a table event ended the game, if one did.
    pub fn ended(&self) -> Option<&TableOutcome> {
        self.ended.as_ref()
    }

    /// The seats the game waits for, once the table has had its say: none after the game was
    /// ended at the table.
    pub fn narrow(&self, to_act: Vec<Seat>) -> Vec<Seat> {
        if self.ended.is_some() || self.waiting() {
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
            self.table.game_event_applied();
        }
        Ok(())
    }

    /// Applies a move the rules decided, as [`Sitting::apply_entry`] applies its events from
    /// the log: the table learns that a move was made.
    pub fn apply_decision(&mut self, decision: Decision) {
        self.rules.apply(decision);
        self.table.game_event_applied();
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
        if self.table.ended().is_some() || self.table.waiting() {
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
        if self.table.waiting() {
            return Err(Refused::NotYourMove {
                rule: "waiting-for-players",
                message: "the game has not begun: some seats are still empty".into(),
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

    fn hosted_girl_for_two() -> Sitting {
        let mut sitting = girl_for_two();
        for event in [
            TableEvent::Hosted {
                account: "ann".into(),
                name: "Ann".into(),
            },
            TableEvent::Seated {
                seat: Seat(0),
                account: "ann".into(),
                name: "Ann".into(),
            },
            TableEvent::SeatOffered {
                seat: Seat(1),
                to: Offer::Anyone {},
            },
        ] {
            assert_eq!(sitting.admit(&event), Ok(()), "{event:?}");
            sitting.apply_entry(&event.to_recorded()).unwrap();
        }
        sitting
    }

    fn seat(seat: u8, account: &str) -> TableEvent {
        TableEvent::Seated {
            seat: Seat(seat),
            account: account.into(),
            name: account.into(),
        }
    }

    #[test]
    fn a_hosted_game_waits_with_nobody_to_act_until_every_seat_is_taken() {
        let mut sitting = hosted_girl_for_two();
        assert!(sitting.table.waiting());
        assert!(sitting.to_act().is_empty());
        assert!(sitting.legal_actions(Seat(0)).is_empty());
        sitting.apply_entry(&seat(1, "bea").to_recorded()).unwrap();
        assert!(!sitting.table.waiting());
        assert_eq!(sitting.to_act(), sitting.rules.to_act());
        assert_eq!(
            sitting.table.seating().and_then(|s| s.seat_of("bea")),
            Some(Seat(1))
        );
    }

    #[test]
    fn a_taken_seat_cannot_be_claimed_again_and_one_account_plays_one_seat() {
        let mut sitting = hosted_girl_for_two();
        assert_eq!(
            sitting.admit(&seat(1, "ann")),
            Err(TableRefusal::AlreadySeated(Seat(0)))
        );
        sitting.apply_entry(&seat(1, "bea").to_recorded()).unwrap();
        assert_eq!(
            sitting.admit(&seat(1, "cat")),
            Err(TableRefusal::SeatTaken(Seat(1)))
        );
    }

    #[test]
    fn a_seat_offered_to_one_account_is_refused_to_another() {
        let mut sitting = hosted_girl_for_two();
        let offer = TableEvent::SeatOffered {
            seat: Seat(1),
            to: Offer::Account {
                account: "bea".into(),
            },
        };
        sitting.apply_entry(&offer.to_recorded()).unwrap();
        assert_eq!(
            sitting.admit(&seat(1, "cat")),
            Err(TableRefusal::NotOfferedToYou(Seat(1)))
        );
        assert_eq!(sitting.admit(&seat(1, "bea")), Ok(()));
    }

    #[test]
    fn a_withdrawn_offer_leaves_the_seat_unclaimable_until_offered_again() {
        let mut sitting = hosted_girl_for_two();
        let withdraw = TableEvent::OfferWithdrawn { seat: Seat(1) };
        assert_eq!(sitting.admit(&withdraw), Ok(()));
        sitting.apply_entry(&withdraw.to_recorded()).unwrap();
        assert_eq!(
            sitting.admit(&seat(1, "bea")),
            Err(TableRefusal::NotOffered(Seat(1)))
        );
        assert_eq!(
            sitting.admit(&withdraw),
            Err(TableRefusal::NotOffered(Seat(1)))
        );
    }

    #[test]
    fn seats_are_offered_only_while_waiting_and_only_at_a_hosted_table() {
        let offer = TableEvent::SeatOffered {
            seat: Seat(1),
            to: Offer::Anyone {},
        };
        assert_eq!(girl_for_two().admit(&offer), Err(TableRefusal::NotHosted));
        let mut sitting = hosted_girl_for_two();
        sitting.apply_entry(&seat(1, "bea").to_recorded()).unwrap();
        assert_eq!(sitting.admit(&offer), Err(TableRefusal::Begun));
        let again = TableEvent::Hosted {
            account: "x".into(),
            name: "X".into(),
        };
        assert_eq!(sitting.admit(&again), Err(TableRefusal::AlreadyHosted));
    }

    #[test]
    fn a_game_may_be_aborted_before_its_first_move_and_not_after() {
        let mut waiting = hosted_girl_for_two();
        assert_eq!(waiting.admit(&TableEvent::Aborted {}), Ok(()));
        assert_eq!(
            waiting.admit(&TableEvent::Resigned { seat: Seat(0) }),
            Err(TableRefusal::Waiting)
        );
        waiting
            .apply_entry(&TableEvent::Aborted {}.to_recorded())
            .unwrap();
        assert!(waiting.is_over());
        assert_eq!(waiting.outcome(), Some(json!({"ended_by": "abort"})));

        let mut begun = hosted_girl_for_two();
        begun.apply_entry(&seat(1, "bea").to_recorded()).unwrap();
        let mover = begun.to_act()[0];
        let action = crate::playout::instantiate(
            &begun.legal_actions(mover)[0],
            &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(1),
        );
        let decision = begun
            .decide(mover, &action, &mut Chance::new(crate::Seed([7; 32]), 9))
            .unwrap();
        for event in decision.events {
            begun.apply_entry(&event).unwrap();
        }
        assert_eq!(
            begun.admit(&TableEvent::Aborted {}),
            Err(TableRefusal::Begun)
        );
    }

    #[test]
    fn nobody_moves_while_the_game_waits_for_players() {
        let sitting = hosted_girl_for_two();
        let refused = sitting
            .decide(
                Seat(0),
                &json!({"type": "anything"}),
                &mut Chance::new(crate::Seed([7; 32]), 9),
            )
            .map(|_| ());
        assert!(
            matches!(
                refused,
                Err(Refused::NotYourMove {
                    rule: "waiting-for-players",
                    ..
                })
            ),
            "{refused:?}"
        );
    }
}

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

use crate::bots::Level;
use crate::chance::Chance;
use crate::clocks::{ClockRules, Clocks, Due, Moment, TimeControl, TimeoutPolicy};
use crate::engine::{BadEvent, Decision, Recorded, Refused, Table};
use crate::game::{Concession, Seat};

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
    /// The host listed the table among the open tables (`GET /v1/tables`), where strangers
    /// find it, until `until` or until its game begins, whichever comes first. Recorded
    /// with the table's opening entries, after `hosted`.
    Listed {
        /// When the listing ends, in microseconds since the Unix epoch (the host chose how
        /// long; the moment is recorded so every reader agrees when it ended).
        until: Moment,
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
    /// The game is played on a move clock. Recorded once, with the table's opening entries.
    ClockSet {
        /// How much time each seat has.
        control: TimeControl,
        /// What happens when a seat's time runs out.
        on_timeout: TimeoutPolicy,
        /// Whether a player's vacation stops their clock in this game.
        vacation: bool,
        /// The hours a move gets when its seat's bank is empty as it starts: recorded for a
        /// bank clock set since issue 35 ([`crate::clocks::EMPTY_BANK_HOURS`]); absent
        /// before, and for a correspondence clock, so that older games replay as they were
        /// played.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        empty_bank_hours: Option<u32>,
    },
    /// The seat has used 80 % of its time for this move: a fact for notifications, recorded
    /// once per move.
    Reminded {
        /// The seat reminded.
        seat: Seat,
        /// When the reminder fell due, as the clock computes it from the log (so a reader
        /// without the game's rules can see it was not early).
        due: Moment,
    },
    /// The seat's time ran out. Under `default_move` its default action is recorded next, in
    /// the same commit; under `forfeit` the game ends.
    TimedOut {
        /// The seat out of time.
        seat: Seat,
        /// Its deadline, as the clock computes it from the log (so a reader without the
        /// game's rules can see the timeout was not early).
        deadline: Moment,
    },
    /// The seat's player went on vacation: its clock stops until `until`, or until it comes
    /// back early.
    VacationBegan {
        /// The seat.
        seat: Seat,
        /// When the vacation ends, in microseconds since the Unix epoch.
        until: Moment,
    },
    /// The seat's player came back from vacation before its recorded end.
    VacationEnded {
        /// The seat.
        seat: Seat,
    },
    /// A bot plays the seat from now on: a seat created for one, an empty seat the host
    /// filled with one, a seat its player handed over, or a seat that timed out under the
    /// `bot` policy. Every move of the seat until `bot_left` is the bot's, decided and logged
    /// as anyone's; its clock does not run meanwhile.
    BotSeated {
        /// The seat.
        seat: Seat,
        /// Which bot plays it.
        level: Level,
    },
    /// The seat's player took it back from its bot.
    BotLeft {
        /// The seat.
        seat: Seat,
    },
    /// The game is deal `deal` (from 0) of match `match`: recorded once, with the table's
    /// opening entries, so the match's deals are known from their own logs.
    MatchDeal {
        /// The match's id.
        #[serde(rename = "match")]
        match_id: String,
        /// Which deal of the match it is, from 0.
        deal: u32,
    },
    /// The game runs on a test clock (only on a server started in sandbox mode): its host may
    /// move its time on. Recorded once, with the table's opening entries.
    TestClock {},
    /// The host moved the game's test clock on: from this entry the game's time is
    /// `seconds` later than it would have been, and every deadline that passes by the jump
    /// falls due as it would have in real time.
    TestClockAdvanced {
        /// How far the clock was moved on, in seconds.
        seconds: u32,
    },
}

/// The furthest one advance moves a test clock: a year, more than any clock allows a move.
pub const MAX_TEST_CLOCK_ADVANCE_SECONDS: u32 = 366 * 24 * 3600;

/// The match a game is a deal of, as its `table.match_deal` entry says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchLink {
    /// The match's id.
    pub match_id: String,
    /// Which deal it is, from 0.
    pub deal: u32,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The account's id.
    pub account: String,
    /// The account's name when it sat down.
    pub name: String,
}

/// One seat of a hosted game: who holds it, and if nobody does, who may claim it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatAtTable {
    /// The account playing the seat.
    pub holder: Option<Holder>,
    /// Who may claim the seat while it is empty.
    pub offer: Option<Offer>,
}

/// The seats of a game an account created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seating {
    /// The account that created the game.
    pub host: Holder,
    /// Every seat, in order.
    pub seats: Vec<SeatAtTable>,
    /// Whether a move has been made since the game was hosted.
    pub moved: bool,
    /// Until when the table is listed among the open tables, if it is (`table.listed`).
    /// Absent from the snapshots of tables that never were, so theirs read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed_until: Option<Moment>,
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
    /// A table is listed once, when it is created.
    #[error("this table is already listed")]
    AlreadyListed,
    /// A listing must end after it begins.
    #[error("a table is listed until a time still to come")]
    ListingOver,
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
    /// A clock event at a table without a clock.
    #[error("this game has no move clock")]
    NoClock,
    /// A game's clock is chosen once, when it is created.
    #[error("this game's clock is already set")]
    AlreadyClocked,
    /// The clock asked for cannot be used.
    #[error("{0}")]
    BadClock(String),
    /// The seat is already played by a bot.
    #[error("a bot already plays {0}")]
    AlreadyBot(Seat),
    /// The seat is not played by a bot.
    #[error("no bot plays {0}")]
    NotBot(Seat),
    /// A game is a deal of one match, linked when it is created.
    #[error("this game is already a deal of a match")]
    AlreadyInMatch,
    /// A match has at most [`crate::matches::MAX_DEALS`] deals.
    #[error("a match has at most {} deals", crate::matches::MAX_DEALS)]
    TooManyDeals,
    /// The game was not created on a test clock, so its time moves only with real time.
    #[error("this game is not on a test clock")]
    NoTestClock,
    /// A game is put on a test clock once, when it is created.
    #[error("this game is already on a test clock")]
    AlreadyOnTestClock,
    /// A test clock moves on by 1 second to a year at a time.
    #[error("a test clock moves on by 1 to {MAX_TEST_CLOCK_ADVANCE_SECONDS} seconds at a time")]
    BadAdvance,
    /// The seat was a bot's from the start: nobody can take it from its bot.
    #[error("{0} has been a bot's from the start, and has no player to take it back")]
    NobodyToTakeBack(Seat),
    /// A timeout before the seat's deadline, or for a seat whose clock is not running.
    #[error("{0}'s time has not run out")]
    NotDue(Seat),
    /// A reminder before 80 % of the seat's time, or a second one in the same move.
    #[error("{0} is not due a reminder")]
    NotRemindable(Seat),
    /// Vacation does not stop the clocks of this game (its host disallowed it).
    #[error("vacation does not stop the clocks in this game")]
    NoVacation,
    /// The seat's player is already on vacation.
    #[error("{0} is already on vacation")]
    AlreadyAway(Seat),
    /// The seat's player is not on vacation.
    #[error("{0} is not on vacation")]
    NotAway(Seat),
    /// The vacation would end before it begins.
    #[error("a vacation ends after it begins")]
    BadVacation,
    /// A seat timed out under `default_move`: its default action comes next, and nothing else.
    #[error("{0}'s default move must be recorded first")]
    Defaulting(Seat),
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ended_by", rename_all = "snake_case")]
pub enum TableOutcome {
    /// A player resigned.
    Resignation {
        /// The seat that resigned.
        seat: Seat,
        /// Every seat ranked as the game stood, the resigning seat last.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        concession: Option<Concession>,
    },
    /// A seat's time ran out, and the game's clock forfeits it.
    Forfeit {
        /// The seat out of time.
        seat: Seat,
        /// Every seat ranked as the game stood, the forfeited seat last.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        concession: Option<Concession>,
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
            TableEvent::Listed { .. } => "listed",
            TableEvent::SeatOffered { .. } => "seat_offered",
            TableEvent::OfferWithdrawn { .. } => "offer_withdrawn",
            TableEvent::Seated { .. } => "seated",
            TableEvent::Aborted {} => "aborted",
            TableEvent::ClockSet { .. } => "clock_set",
            TableEvent::Reminded { .. } => "reminded",
            TableEvent::TimedOut { .. } => "timed_out",
            TableEvent::VacationBegan { .. } => "vacation_began",
            TableEvent::VacationEnded { .. } => "vacation_ended",
            TableEvent::BotSeated { .. } => "bot_seated",
            TableEvent::BotLeft { .. } => "bot_left",
            TableEvent::MatchDeal { .. } => "match_deal",
            TableEvent::TestClock {} => "test_clock",
            TableEvent::TestClockAdvanced { .. } => "test_clock_advanced",
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
/// Serialised only into a [`Sitting::snapshot`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableState {
    players: usize,
    ended: Option<TableOutcome>,
    seating: Option<Seating>,
    clocks: Option<Clocks>,
    /// A seat that timed out under `default_move`, whose default action comes next.
    defaulting: Option<Seat>,
    /// The bot playing each seat, if one does.
    bots: Vec<Option<Level>>,
    /// The match the game is a deal of.
    match_link: Option<MatchLink>,
    /// In a game on a test clock, how far its host has moved the clock on, in microseconds.
    /// Left out of a snapshot otherwise, so snapshots written before test clocks read back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    test_clock: Option<i64>,
}

impl TableState {
    /// A table of `players` seats at which nothing has happened yet.
    pub fn new(players: usize) -> Self {
        TableState {
            players,
            ended: None,
            seating: None,
            clocks: None,
            defaulting: None,
            bots: vec![None; players],
            match_link: None,
            test_clock: None,
        }
    }

    /// In a game on a test clock, how far its host has moved the clock on, in microseconds:
    /// the game's time is the real time plus this.
    pub fn test_clock(&self) -> Option<i64> {
        self.test_clock
    }

    /// The match the game is a deal of, if it is one.
    pub fn match_link(&self) -> Option<&MatchLink> {
        self.match_link.as_ref()
    }

    /// The bot playing `seat`, if one does.
    pub fn bot(&self, seat: Seat) -> Option<Level> {
        self.bots.get(seat.index()).copied().flatten()
    }

    /// Every seat a bot plays, with its bot, in seat order.
    pub fn bots(&self) -> impl Iterator<Item = (Seat, Level)> + '_ {
        self.bots
            .iter()
            .enumerate()
            .filter_map(|(i, bot)| Some((Seat(u8::try_from(i).ok()?), (*bot)?)))
    }

    /// The move clocks, in a game played on one.
    pub fn clocks(&self) -> Option<&Clocks> {
        self.clocks.as_ref()
    }

    /// The seat whose default move must be recorded next, after it timed out.
    pub fn defaulting(&self) -> Option<Seat> {
        self.defaulting
    }

    /// The seats of a game an account created; `None` for a game whose seats hold tokens.
    pub fn seating(&self) -> Option<&Seating> {
        self.seating.as_ref()
    }

    /// Whether the game waits for players before anyone may move: some seat of a hosted
    /// game has neither an account nor a bot.
    pub fn waiting(&self) -> bool {
        self.seating.as_ref().is_some_and(|seating| {
            seating
                .seats
                .iter()
                .zip(&self.bots)
                .any(|(seat, bot)| seat.holder.is_none() && bot.is_none())
        })
    }

    /// Notes that a game event was applied: once a game is hosted, that is a move.
    pub fn game_event_applied(&mut self) {
        if let Some(seating) = &mut self.seating {
            seating.moved = true;
        }
        self.defaulting = None;
    }

    fn seat(&self, seat: Seat) -> Result<&SeatAtTable, TableRefusal> {
        let seating = self.seating.as_ref().ok_or(TableRefusal::NotHosted)?;
        seating
            .seats
            .get(seat.index())
            .ok_or(TableRefusal::NoSuchSeat(seat))
    }

    fn admit_seating(&self, event: &TableEvent, at: Moment) -> Result<(), TableRefusal> {
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
                if at.holder.is_some() || self.bot(*seat).is_some() {
                    return Err(TableRefusal::SeatTaken(*seat));
                }
            }
            TableEvent::OfferWithdrawn { seat } => {
                let at = self.seat(*seat)?;
                if !self.waiting() {
                    return Err(TableRefusal::Begun);
                }
                if at.holder.is_some() || self.bot(*seat).is_some() {
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
                if at.holder.is_some() || self.bot(*seat).is_some() {
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
            // Listed once, before anyone moves, and for a time still to come: a listing that
            // had already ended would list nothing.
            TableEvent::Listed { until } => {
                let seating = self.seating.as_ref().ok_or(TableRefusal::NotHosted)?;
                if seating.moved {
                    return Err(TableRefusal::Begun);
                }
                if seating.listed_until.is_some() {
                    return Err(TableRefusal::AlreadyListed);
                }
                if *until <= at {
                    return Err(TableRefusal::ListingOver);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether `event` may be recorded at `at`, at a table whose game is over if
    /// `game_over`. The same check runs when the event is first recorded and when an audit
    /// replays it with the time the log recorded.
    pub fn admit(
        &self,
        event: &TableEvent,
        game_over: bool,
        at: Moment,
    ) -> Result<(), TableRefusal> {
        if game_over || self.ended.is_some() {
            return Err(TableRefusal::GameOver);
        }
        if let Some(seat) = self.defaulting {
            return Err(TableRefusal::Defaulting(seat));
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
            | TableEvent::Listed { .. }
            | TableEvent::SeatOffered { .. }
            | TableEvent::OfferWithdrawn { .. }
            | TableEvent::Seated { .. }
            | TableEvent::Aborted {} => self.admit_seating(event, at)?,
            TableEvent::ClockSet {
                control,
                on_timeout,
                vacation,
                empty_bank_hours,
            } => {
                if self.clocks.is_some() {
                    return Err(TableRefusal::AlreadyClocked);
                }
                ClockRules {
                    control: *control,
                    on_timeout: *on_timeout,
                    vacation: *vacation,
                    empty_bank_hours: *empty_bank_hours,
                }
                .check()
                .map_err(TableRefusal::BadClock)?;
            }
            TableEvent::Reminded { seat, due } => {
                let clock = self.clock_of(*seat)?;
                if clock.reminder_due() != Some(*due) || *due > at {
                    return Err(TableRefusal::NotRemindable(*seat));
                }
            }
            TableEvent::TimedOut { seat, deadline } => {
                let clock = self.clock_of(*seat)?;
                if clock.deadline() != Some(*deadline) || *deadline > at {
                    return Err(TableRefusal::NotDue(*seat));
                }
            }
            TableEvent::VacationBegan { seat, until } => {
                let clock = self.clock_of(*seat)?;
                if !self.clocks.as_ref().is_some_and(|c| c.rules.vacation) {
                    return Err(TableRefusal::NoVacation);
                }
                if clock.away_at(at) {
                    return Err(TableRefusal::AlreadyAway(*seat));
                }
                if *until <= at {
                    return Err(TableRefusal::BadVacation);
                }
            }
            TableEvent::VacationEnded { seat } => {
                if !self.clock_of(*seat)?.away_at(at) {
                    return Err(TableRefusal::NotAway(*seat));
                }
            }
            TableEvent::BotSeated { seat, .. } => {
                if seat.index() >= self.players {
                    return Err(TableRefusal::NoSuchSeat(*seat));
                }
                if self.bot(*seat).is_some() {
                    return Err(TableRefusal::AlreadyBot(*seat));
                }
            }
            TableEvent::MatchDeal { deal, .. } => {
                if self.match_link.is_some() {
                    return Err(TableRefusal::AlreadyInMatch);
                }
                if *deal >= crate::matches::MAX_DEALS {
                    return Err(TableRefusal::TooManyDeals);
                }
            }
            TableEvent::TestClock {} => {
                if self.test_clock.is_some() {
                    return Err(TableRefusal::AlreadyOnTestClock);
                }
            }
            TableEvent::TestClockAdvanced { seconds } => {
                if self.test_clock.is_none() {
                    return Err(TableRefusal::NoTestClock);
                }
                if *seconds == 0 || *seconds > MAX_TEST_CLOCK_ADVANCE_SECONDS {
                    return Err(TableRefusal::BadAdvance);
                }
            }
            TableEvent::BotLeft { seat } => {
                if seat.index() >= self.players {
                    return Err(TableRefusal::NoSuchSeat(*seat));
                }
                if self.bot(*seat).is_none() {
                    return Err(TableRefusal::NotBot(*seat));
                }
                // In a hosted game only an account can play a seat a bot leaves.
                if self.seat(*seat).is_ok_and(|at| at.holder.is_none()) {
                    return Err(TableRefusal::NobodyToTakeBack(*seat));
                }
            }
        }
        Ok(())
    }

    fn clock_of(&self, seat: Seat) -> Result<&crate::clocks::SeatClock, TableRefusal> {
        let clocks = self.clocks.as_ref().ok_or(TableRefusal::NoClock)?;
        clocks.seat(seat).ok_or(TableRefusal::NoSuchSeat(seat))
    }

    /// Folds one table event in, recorded at `at`. Events come from [`TableState::admit`] or
    /// a log of them.
    pub fn apply(&mut self, event: &TableEvent, at: Moment) {
        match event {
            TableEvent::Note { .. } => {}
            TableEvent::Resigned { seat } => {
                self.ended = Some(TableOutcome::Resignation {
                    seat: *seat,
                    concession: None,
                });
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
                    listed_until: None,
                });
            }
            TableEvent::Listed { until } => {
                if let Some(seating) = &mut self.seating {
                    seating.listed_until = Some(*until);
                }
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
            TableEvent::ClockSet {
                control,
                on_timeout,
                vacation,
                empty_bank_hours,
            } => {
                let rules = ClockRules {
                    control: *control,
                    on_timeout: *on_timeout,
                    vacation: *vacation,
                    empty_bank_hours: *empty_bank_hours,
                };
                self.clocks = Some(Clocks::new(rules, self.players));
            }
            TableEvent::Reminded { seat, .. } => {
                if let Some(clocks) = &mut self.clocks {
                    clocks.remind(*seat);
                }
            }
            TableEvent::TimedOut { seat, .. } => {
                if let Some(clocks) = &mut self.clocks {
                    clocks.run_out(*seat);
                    match clocks.rules.on_timeout {
                        TimeoutPolicy::DefaultMove => self.defaulting = Some(*seat),
                        // The seat's bot is seated by the next entry, in the same commit.
                        TimeoutPolicy::Bot => {}
                        TimeoutPolicy::Forfeit => {
                            self.ended = Some(TableOutcome::Forfeit {
                                seat: *seat,
                                concession: None,
                            });
                        }
                    }
                }
            }
            TableEvent::VacationBegan { seat, until } => {
                if let Some(clocks) = &mut self.clocks {
                    clocks.leave(*seat, at, *until);
                }
            }
            TableEvent::VacationEnded { seat } => {
                if let Some(clocks) = &mut self.clocks {
                    clocks.come_back(*seat, at);
                }
            }
            TableEvent::BotSeated { seat, level } => {
                if let Some(bot) = self.bots.get_mut(seat.index()) {
                    *bot = Some(*level);
                }
                // An empty seat filled by a bot is no longer on offer.
                if let Some(at) = self.seat_mut(*seat) {
                    at.offer = None;
                }
            }
            TableEvent::BotLeft { seat } => {
                if let Some(bot) = self.bots.get_mut(seat.index()) {
                    *bot = None;
                }
                if let Some(clocks) = &mut self.clocks {
                    clocks.refill(*seat);
                }
            }
            TableEvent::MatchDeal { match_id, deal } => {
                self.match_link = Some(MatchLink {
                    match_id: match_id.clone(),
                    deal: *deal,
                });
            }
            TableEvent::TestClock {} => self.test_clock = Some(0),
            TableEvent::TestClockAdvanced { seconds } => {
                let by = i64::from(*seconds) * 1_000_000;
                self.test_clock = Some(self.test_clock.unwrap_or(0).saturating_add(by));
            }
        }
    }

    /// Settles the clocks after a batch recorded at `at`: `owing` owe a move now, and
    /// `mover` just made one.
    fn settle(&mut self, owing: &[Seat], mover: Option<Seat>, at: Moment) {
        if let Some(clocks) = &mut self.clocks {
            // A bot answers at once: its seat's clock does not run.
            let owing: Vec<Seat> = owing
                .iter()
                .copied()
                .filter(|seat| self.bots.get(seat.index()).is_none_or(Option::is_none))
                .collect();
            clocks.settle(&owing, mover, at);
        }
    }

    /// Fills in the concession of a seat that resigned or was forfeited, as the game stood.
    fn conclude(&mut self, concede: impl FnOnce(Seat) -> Concession) {
        match &mut self.ended {
            Some(
                TableOutcome::Resignation { seat, concession }
                | TableOutcome::Forfeit { seat, concession },
            ) if concession.is_none() => *concession = Some(concede(*seat)),
            _ => {}
        }
    }

    /// Turns a seat's pending default move into a forfeit, when the game has no default for
    /// it (it never happens for a seat the game waits for, but the log must not stall).
    fn forfeit_defaulting(&mut self) {
        if let Some(seat) = self.defaulting.take() {
            self.ended = Some(TableOutcome::Forfeit {
                seat,
                concession: None,
            });
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

/// The shape of [`Sitting::snapshot`]: a snapshot of another shape is not restored (the
/// server ignores it and folds the log). Rises whenever the table's or a game's snapshot
/// changes shape.
pub const SNAPSHOT_FORMAT: u32 = 1;

/// A sitting as a snapshot stores it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedSitting {
    table: TableState,
    game: Value,
}

/// When, and after whose move, a batch of entries was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// When the batch was recorded.
    pub at: Moment,
    /// The seat whose move the batch is, if it is one.
    pub mover: Option<Seat>,
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

    /// Applies one batch of stored entries recorded together at `stamp.at`: a table event
    /// alone, or the events one decision gave. Each goes to the table or to the game as its
    /// type says; then the clocks see who owes a move. The clocks are settled once per batch
    /// because a batch's intermediate states are not moments anyone waited in.
    pub fn apply_batch(&mut self, entries: &[Recorded], stamp: Stamp) -> Result<(), BadEntry> {
        for entry in entries {
            if TableEvent::is_table_kind(&entry.kind) {
                self.table_event(&TableEvent::from_recorded(entry)?, stamp.at);
            } else {
                self.rules.apply_recorded(entry)?;
                self.table.game_event_applied();
            }
        }
        self.settle(stamp);
        Ok(())
    }

    /// Applies a move the rules decided, as [`Sitting::apply_batch`] applies its events from
    /// the log: the table learns that a move was made, and the clocks who owes the next one.
    pub fn apply_decision(&mut self, decision: Decision, stamp: Stamp) {
        self.rules.apply(decision);
        self.table.game_event_applied();
        self.settle(stamp);
    }

    /// The sitting as a snapshot (format [`SNAPSHOT_FORMAT`]): the table and the game's own
    /// snapshot, or `None` for a game that keeps none ([`crate::Game::snapshot`]).
    pub fn snapshot(&self) -> Option<Value> {
        // The game's first: most games keep none, and then the table is not copied.
        let game = self.rules.snapshot()?;
        let saved = SavedSitting {
            table: self.table.clone(),
            game,
        };
        serde_json::to_value(saved).ok()
    }

    /// Puts this sitting, freshly opened for its game ([`Sitting::new`]), in the state
    /// `snapshot` describes: `false`, changing nothing, when it is not a snapshot of this
    /// game in format [`SNAPSHOT_FORMAT`] (its seats must be this table's too).
    pub fn restore(&mut self, snapshot: &Value) -> bool {
        let Ok(saved) = SavedSitting::deserialize(snapshot) else {
            return false;
        };
        if saved.table.players != self.table.players || saved.table.bots.len() != self.table.players
        {
            return false;
        }
        if !self.rules.restore(&saved.game) {
            return false;
        }
        self.table = saved.table;
        true
    }

    /// Applies a table event admitted at `at` (see [`Sitting::admit`]).
    pub fn apply_table(&mut self, event: &TableEvent, at: Moment) {
        self.table_event(event, at);
        self.settle(Stamp { at, mover: None });
    }

    fn table_event(&mut self, event: &TableEvent, at: Moment) {
        self.table.apply(event, at);
        if let TableEvent::TimedOut { seat, .. } = event {
            if self.table.defaulting() == Some(*seat) && self.rules.default_action(*seat).is_none()
            {
                self.table.forfeit_defaulting();
            }
        }
        let rules = &self.rules;
        self.table.conclude(|seat| rules.concede(seat));
    }

    fn settle(&mut self, stamp: Stamp) {
        let owing = self.to_act();
        self.table.settle(&owing, stamp.mover, stamp.at);
    }

    /// What is due on the clocks at `at` (nothing once the game is over).
    pub fn due(&self, at: Moment) -> Vec<Due> {
        match self.table.clocks() {
            Some(clocks) if !self.is_over() => clocks.due(at),
            _ => Vec::new(),
        }
    }

    /// The earliest moment something falls due on the clocks, while the game goes on.
    pub fn next_due(&self) -> Option<Moment> {
        match self.table.clocks() {
            Some(clocks) if !self.is_over() => clocks.next_due(),
            _ => None,
        }
    }

    /// When `seat`'s time runs out, if its clock runs.
    pub fn deadline(&self, seat: Seat) -> Option<Moment> {
        // The clock first: most games have none, and `is_over` asks the rules for an outcome.
        let clock = self.table.clocks()?.seat(seat)?;
        if self.is_over() {
            return None;
        }
        clock.deadline()
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

    /// Decides a move made at `at`: refused once the table has ended the game, while it
    /// waits for players, after the seat's time ran out, and (after a timeout) for anything
    /// but the timed-out seat's default action; else as the rules decide.
    pub fn decide(
        &self,
        seat: Seat,
        action: &Value,
        chance: &mut Chance,
        at: Moment,
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
        if let Some(defaulting) = self.table.defaulting() {
            if seat != defaulting || self.rules.default_action(seat).as_ref() != Some(action) {
                return Err(Refused::NotYourMove {
                    rule: "default-move-pending",
                    message: format!("{defaulting} timed out: its default move comes next"),
                });
            }
        } else if self.deadline(seat).is_some_and(|deadline| deadline <= at) {
            return Err(Refused::NotYourMove {
                rule: "out-of-time",
                message: format!("{seat}'s time for this move has run out"),
            });
        }
        self.rules.decide(seat, action, chance)
    }

    /// Whether `event` may be recorded at the table at `at`.
    pub fn admit(&self, event: &TableEvent, at: Moment) -> Result<(), TableRefusal> {
        self.table.admit(event, self.rules.outcome().is_some(), at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: Moment = Moment(1_800_000_000_000_000);
    const STAMP: Stamp = Stamp {
        at: NOW,
        mover: None,
    };

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
        assert_eq!(table.admit(&resign, false, NOW), Ok(()));
        table.apply(&resign, NOW);
        assert_eq!(
            table.ended(),
            Some(&TableOutcome::Resignation {
                seat: Seat(1),
                concession: None
            })
        );
        assert!(table.narrow(vec![Seat(0), Seat(2)]).is_empty());
        let note = TableEvent::Note { text: "gg".into() };
        assert_eq!(table.admit(&note, false, NOW), Err(TableRefusal::GameOver));
    }

    #[test]
    fn nothing_is_recorded_at_a_table_whose_game_is_over() {
        let table = TableState::new(2);
        let note = TableEvent::Note { text: "hi".into() };
        assert_eq!(table.admit(&note, true, NOW), Err(TableRefusal::GameOver));
    }

    #[test]
    fn a_seat_the_table_lacks_cannot_resign() {
        let table = TableState::new(2);
        let resign = TableEvent::Resigned { seat: Seat(2) };
        assert_eq!(
            table.admit(&resign, false, NOW),
            Err(TableRefusal::NoSuchSeat(Seat(2)))
        );
    }

    #[test]
    fn notes_must_be_printable_and_short() {
        let table = TableState::new(2);
        for text in ["", "a\u{0}b", &"x".repeat(MAX_NOTE_CHARS + 1)] {
            let note = TableEvent::Note { text: text.into() };
            assert_eq!(table.admit(&note, false, NOW), Err(TableRefusal::BadNote));
        }
        let longest = TableEvent::Note {
            text: "é".repeat(MAX_NOTE_CHARS),
        };
        assert_eq!(table.admit(&longest, false, NOW), Ok(()));
    }

    fn girl_for_two() -> Sitting {
        let engine = crate::catalog::engine("girl").unwrap();
        let players = vec![
            crate::Player { name: "Ann".into() },
            crate::Player { name: "Bea".into() },
        ];
        let mut rules = engine
            .open(&players, &json!({}), crate::RULES_VERSION)
            .unwrap();
        let opening = rules.start(&mut Chance::new(crate::Seed([7; 32]), 1));
        rules.apply(opening);
        Sitting::new(rules, 2)
    }

    #[test]
    fn a_sitting_gives_table_events_to_the_table_and_keeps_them_from_the_game() {
        let mut sitting = girl_for_two();
        let before = sitting.rules.to_act();
        let note = TableEvent::Note { text: "hi".into() }.to_recorded();
        assert_eq!(
            sitting.apply_batch(std::slice::from_ref(&note), STAMP),
            Ok(())
        );
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
        assert_eq!(sitting.admit(&resign, NOW), Ok(()));
        sitting.apply_batch(&[resign.to_recorded()], STAMP).unwrap();
        assert!(sitting.is_over());
        assert!(sitting.to_act().is_empty());
        assert!(sitting.legal_actions(seat).is_empty());
        assert_eq!(
            sitting.outcome(),
            Some(json!({
                "ended_by": "resignation",
                "seat": 1,
                "concession": sitting.rules.concede(Seat(1)),
            }))
        );
        let action = crate::playout::instantiate(
            &offered[0],
            &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(1),
        );
        let refused = sitting
            .decide(
                seat,
                &action,
                &mut Chance::new(crate::Seed([7; 32]), 9),
                NOW,
            )
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
        let outcome = TableOutcome::Resignation {
            seat: Seat(0),
            concession: None,
        };
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
            assert_eq!(sitting.admit(&event, NOW), Ok(()), "{event:?}");
            sitting.apply_batch(&[event.to_recorded()], STAMP).unwrap();
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
    fn a_table_is_listed_once_before_it_begins_and_until_a_time_to_come() {
        let mut sitting = hosted_girl_for_two();
        let later = Moment(NOW.0 + 3_600_000_000);
        assert_eq!(
            sitting.admit(&TableEvent::Listed { until: NOW }, NOW),
            Err(TableRefusal::ListingOver)
        );
        let listed = TableEvent::Listed { until: later };
        assert_eq!(sitting.admit(&listed, NOW), Ok(()));
        sitting.apply_batch(&[listed.to_recorded()], STAMP).unwrap();
        assert_eq!(
            sitting.table.seating().and_then(|s| s.listed_until),
            Some(later)
        );
        assert_eq!(
            sitting.admit(&listed, NOW),
            Err(TableRefusal::AlreadyListed)
        );
        assert_eq!(
            TableEvent::from_recorded(&listed.to_recorded()),
            Ok(listed.clone())
        );
        assert_eq!(listed.kind(), "table.listed");
    }

    #[test]
    fn a_table_nobody_hosts_cannot_be_listed() {
        let sitting = girl_for_two();
        assert_eq!(
            sitting.admit(
                &TableEvent::Listed {
                    until: Moment(NOW.0 + 1)
                },
                NOW
            ),
            Err(TableRefusal::NotHosted)
        );
    }

    #[test]
    fn the_snapshot_of_a_table_never_listed_reads_as_before() {
        let sitting = hosted_girl_for_two();
        let seating = serde_json::to_value(sitting.table.seating().unwrap()).unwrap();
        assert!(seating.get("listed_until").is_none(), "{seating}");
    }

    #[test]
    fn a_hosted_game_waits_with_nobody_to_act_until_every_seat_is_taken() {
        let mut sitting = hosted_girl_for_two();
        assert!(sitting.table.waiting());
        assert!(sitting.to_act().is_empty());
        assert!(sitting.legal_actions(Seat(0)).is_empty());
        sitting
            .apply_batch(&[seat(1, "bea").to_recorded()], STAMP)
            .unwrap();
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
            sitting.admit(&seat(1, "ann"), NOW),
            Err(TableRefusal::AlreadySeated(Seat(0)))
        );
        sitting
            .apply_batch(&[seat(1, "bea").to_recorded()], STAMP)
            .unwrap();
        assert_eq!(
            sitting.admit(&seat(1, "cat"), NOW),
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
        sitting.apply_batch(&[offer.to_recorded()], STAMP).unwrap();
        assert_eq!(
            sitting.admit(&seat(1, "cat"), NOW),
            Err(TableRefusal::NotOfferedToYou(Seat(1)))
        );
        assert_eq!(sitting.admit(&seat(1, "bea"), NOW), Ok(()));
    }

    #[test]
    fn a_withdrawn_offer_leaves_the_seat_unclaimable_until_offered_again() {
        let mut sitting = hosted_girl_for_two();
        let withdraw = TableEvent::OfferWithdrawn { seat: Seat(1) };
        assert_eq!(sitting.admit(&withdraw, NOW), Ok(()));
        sitting
            .apply_batch(&[withdraw.to_recorded()], STAMP)
            .unwrap();
        assert_eq!(
            sitting.admit(&seat(1, "bea"), NOW),
            Err(TableRefusal::NotOffered(Seat(1)))
        );
        assert_eq!(
            sitting.admit(&withdraw, NOW),
            Err(TableRefusal::NotOffered(Seat(1)))
        );
    }

    #[test]
    fn seats_are_offered_only_while_waiting_and_only_at_a_hosted_table() {
        let offer = TableEvent::SeatOffered {
            seat: Seat(1),
            to: Offer::Anyone {},
        };
        assert_eq!(
            girl_for_two().admit(&offer, NOW),
            Err(TableRefusal::NotHosted)
        );
        let mut sitting = hosted_girl_for_two();
        sitting
            .apply_batch(&[seat(1, "bea").to_recorded()], STAMP)
            .unwrap();
        assert_eq!(sitting.admit(&offer, NOW), Err(TableRefusal::Begun));
        let again = TableEvent::Hosted {
            account: "x".into(),
            name: "X".into(),
        };
        assert_eq!(sitting.admit(&again, NOW), Err(TableRefusal::AlreadyHosted));
    }

    #[test]
    fn a_game_may_be_aborted_before_its_first_move_and_not_after() {
        let mut waiting = hosted_girl_for_two();
        assert_eq!(waiting.admit(&TableEvent::Aborted {}, NOW), Ok(()));
        assert_eq!(
            waiting.admit(&TableEvent::Resigned { seat: Seat(0) }, NOW),
            Err(TableRefusal::Waiting)
        );
        waiting
            .apply_batch(&[TableEvent::Aborted {}.to_recorded()], STAMP)
            .unwrap();
        assert!(waiting.is_over());
        assert_eq!(waiting.outcome(), Some(json!({"ended_by": "abort"})));

        let mut begun = hosted_girl_for_two();
        begun
            .apply_batch(&[seat(1, "bea").to_recorded()], STAMP)
            .unwrap();
        let mover = begun.to_act()[0];
        let action = crate::playout::instantiate(
            &begun.legal_actions(mover)[0],
            &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(1),
        );
        let decision = begun
            .decide(
                mover,
                &action,
                &mut Chance::new(crate::Seed([7; 32]), 9),
                NOW,
            )
            .unwrap();
        begun.apply_decision(
            decision,
            Stamp {
                at: NOW,
                mover: Some(mover),
            },
        );
        assert_eq!(
            begun.admit(&TableEvent::Aborted {}, NOW),
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
                NOW,
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

    fn clocked_girl_for_two(on_timeout: TimeoutPolicy) -> Sitting {
        let mut sitting = girl_for_two();
        let clock = TableEvent::ClockSet {
            control: TimeControl::Correspondence { days: 2 },
            on_timeout,
            vacation: true,
            empty_bank_hours: None,
        };
        assert_eq!(sitting.admit(&clock, NOW), Ok(()));
        sitting.apply_table(&clock, NOW);
        sitting
    }

    const DAY: i64 = crate::clocks::DAY;

    #[test]
    fn a_clocked_game_runs_the_clock_of_every_seat_it_waits_for() {
        let sitting = clocked_girl_for_two(TimeoutPolicy::Forfeit);
        for seat in sitting.to_act() {
            assert_eq!(sitting.deadline(seat), Some(NOW.plus(2 * DAY)));
        }
        assert_eq!(sitting.next_due(), Some(NOW.plus(2 * DAY / 5 * 4)));
    }

    #[test]
    fn only_a_game_created_on_a_test_clock_has_its_time_moved_on() {
        let mut sitting = clocked_girl_for_two(TimeoutPolicy::Forfeit);
        let advance = TableEvent::TestClockAdvanced { seconds: 3600 };
        assert_eq!(sitting.admit(&advance, NOW), Err(TableRefusal::NoTestClock));
        assert_eq!(sitting.table.test_clock(), None);
        sitting.apply_table(&TableEvent::TestClock {}, NOW);
        assert_eq!(sitting.table.test_clock(), Some(0));
        assert_eq!(
            sitting.admit(&TableEvent::TestClock {}, NOW),
            Err(TableRefusal::AlreadyOnTestClock)
        );
        assert_eq!(sitting.admit(&advance, NOW), Ok(()));
        sitting.apply_table(&advance, NOW);
        sitting.apply_table(&TableEvent::TestClockAdvanced { seconds: 60 }, NOW);
        assert_eq!(sitting.table.test_clock(), Some(3660 * 1_000_000));
    }

    #[test]
    fn a_test_clock_moves_on_by_a_second_to_a_year_and_not_after_the_game() {
        let mut sitting = clocked_girl_for_two(TimeoutPolicy::Forfeit);
        sitting.apply_table(&TableEvent::TestClock {}, NOW);
        for seconds in [0, MAX_TEST_CLOCK_ADVANCE_SECONDS + 1] {
            assert_eq!(
                sitting.admit(&TableEvent::TestClockAdvanced { seconds }, NOW),
                Err(TableRefusal::BadAdvance)
            );
        }
        let most = TableEvent::TestClockAdvanced {
            seconds: MAX_TEST_CLOCK_ADVANCE_SECONDS,
        };
        assert_eq!(sitting.admit(&most, NOW), Ok(()));
        let seat = sitting.to_act()[0];
        let resigned = TableEvent::Resigned { seat };
        sitting.apply_table(&resigned, NOW);
        assert_eq!(sitting.admit(&most, NOW), Err(TableRefusal::GameOver));
    }

    #[test]
    fn the_test_clock_events_are_stored_and_read_back_exactly() {
        for event in [
            TableEvent::TestClock {},
            TableEvent::TestClockAdvanced { seconds: 90 },
        ] {
            let stored = event.to_recorded();
            assert!(stored.kind.starts_with("table.test_clock"));
            assert_eq!(TableEvent::from_recorded(&stored), Ok(event));
        }
    }

    #[test]
    fn a_timeout_before_the_deadline_is_refused_and_one_after_it_forfeits_the_seat() {
        let mut sitting = clocked_girl_for_two(TimeoutPolicy::Forfeit);
        let seat = sitting.to_act()[0];
        let late = NOW.plus(2 * DAY);
        let timeout = TableEvent::TimedOut {
            seat,
            deadline: late,
        };
        let early = NOW.plus(2 * DAY - 1);
        assert_eq!(
            sitting.admit(&timeout, early),
            Err(TableRefusal::NotDue(seat))
        );
        let forged = TableEvent::TimedOut {
            seat,
            deadline: early,
        };
        assert_eq!(
            sitting.admit(&forged, late),
            Err(TableRefusal::NotDue(seat))
        );
        assert_eq!(sitting.due(late)[0], Due::Timeout(seat));
        assert_eq!(sitting.admit(&timeout, late), Ok(()));
        sitting.apply_table(&timeout, late);
        assert!(sitting.is_over());
        assert_eq!(
            sitting.outcome(),
            Some(json!({
                "ended_by": "forfeit",
                "seat": seat.0,
                "concession": sitting.rules.concede(seat),
            }))
        );
        assert_eq!(sitting.next_due(), None);
    }

    #[test]
    fn a_move_after_the_deadline_is_refused_as_out_of_time() {
        let sitting = clocked_girl_for_two(TimeoutPolicy::Forfeit);
        let seat = sitting.to_act()[0];
        let action = sitting.rules.default_action(seat).unwrap();
        let mut chance = Chance::new(crate::Seed([7; 32]), 9);
        let late = sitting.decide(seat, &action, &mut chance, NOW.plus(2 * DAY));
        assert!(
            matches!(
                late,
                Err(Refused::NotYourMove {
                    rule: "out-of-time",
                    ..
                })
            ),
            "{:?}",
            late.map(|_| ())
        );
        let in_time = sitting.decide(seat, &action, &mut chance, NOW.plus(2 * DAY - 1));
        assert!(in_time.is_ok());
    }

    #[test]
    fn under_default_move_only_the_seats_default_action_may_follow_its_timeout() {
        let mut sitting = clocked_girl_for_two(TimeoutPolicy::DefaultMove);
        let seat = sitting.to_act()[0];
        let late = NOW.plus(2 * DAY);
        let timeout = TableEvent::TimedOut {
            seat,
            deadline: late,
        };
        assert_eq!(sitting.admit(&timeout, late), Ok(()));
        sitting.apply_table(&timeout, late);
        assert!(!sitting.is_over());
        let note = TableEvent::Note { text: "hm".into() };
        assert_eq!(
            sitting.admit(&note, late),
            Err(TableRefusal::Defaulting(seat))
        );
        let default = sitting.rules.default_action(seat).unwrap();
        let mut chance = Chance::new(crate::Seed([7; 32]), 9);
        let others: Vec<Value> = sitting
            .legal_actions(seat)
            .iter()
            .map(|template| {
                crate::playout::instantiate(
                    template,
                    &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(3),
                )
            })
            .filter(|action| *action != default)
            .collect();
        if let Some(other) = others.first() {
            assert!(sitting.decide(seat, other, &mut chance, late).is_err());
        }
        let decision = sitting.decide(seat, &default, &mut chance, late).unwrap();
        sitting.apply_decision(
            decision,
            Stamp {
                at: late,
                mover: Some(seat),
            },
        );
        assert_eq!(sitting.table.defaulting(), None);
        assert_eq!(sitting.admit(&note, late), Ok(()));
    }

    #[test]
    fn a_reminder_is_admitted_once_per_move_and_only_from_eighty_percent() {
        let mut sitting = clocked_girl_for_two(TimeoutPolicy::Forfeit);
        let seat = sitting.to_act()[0];
        let due = NOW.plus(2 * DAY / 5 * 4);
        let reminder = TableEvent::Reminded { seat, due };
        assert_eq!(
            sitting.admit(&reminder, due.plus(-1)),
            Err(TableRefusal::NotRemindable(seat))
        );
        assert_eq!(sitting.admit(&reminder, due), Ok(()));
        sitting.apply_table(&reminder, due);
        assert_eq!(
            sitting.admit(&reminder, due.plus(1)),
            Err(TableRefusal::NotRemindable(seat))
        );
    }

    #[test]
    fn a_vacation_moves_the_deadline_and_is_refused_where_the_host_disallowed_it() {
        let mut sitting = clocked_girl_for_two(TimeoutPolicy::Forfeit);
        let seat = sitting.to_act()[0];
        let leave = NOW.plus(DAY);
        let away = TableEvent::VacationBegan {
            seat,
            until: leave.plus(7 * DAY),
        };
        assert_eq!(sitting.admit(&away, leave), Ok(()));
        sitting.apply_table(&away, leave);
        assert_eq!(sitting.deadline(seat), Some(leave.plus(8 * DAY)));
        assert_eq!(
            sitting.admit(&away, leave),
            Err(TableRefusal::AlreadyAway(seat))
        );
        let back = TableEvent::VacationEnded { seat };
        assert_eq!(sitting.admit(&back, leave.plus(DAY)), Ok(()));

        let mut strict = girl_for_two();
        let clock = TableEvent::ClockSet {
            control: TimeControl::Correspondence { days: 2 },
            on_timeout: TimeoutPolicy::Forfeit,
            vacation: false,
            empty_bank_hours: None,
        };
        strict.apply_table(&clock, NOW);
        assert_eq!(strict.admit(&away, leave), Err(TableRefusal::NoVacation));
    }

    #[test]
    fn a_bot_seated_is_stored_under_the_table_prefix_and_read_back_exactly() {
        let seated = TableEvent::BotSeated {
            seat: Seat(1),
            level: Level::Expert,
        };
        let stored = seated.to_recorded();
        assert_eq!(stored.kind, "table.bot_seated");
        assert_eq!(stored.data, json!({"seat": 1, "level": "expert"}));
        assert_eq!(TableEvent::from_recorded(&stored), Ok(seated));
    }

    #[test]
    fn a_seat_has_one_bot_at_a_time_and_only_a_bots_seat_can_be_taken_back() {
        let mut sitting = girl_for_two();
        let left = TableEvent::BotLeft { seat: Seat(1) };
        assert_eq!(
            sitting.admit(&left, NOW),
            Err(TableRefusal::NotBot(Seat(1)))
        );
        let seated = TableEvent::BotSeated {
            seat: Seat(1),
            level: Level::Steady,
        };
        assert_eq!(sitting.admit(&seated, NOW), Ok(()));
        sitting.apply_table(&seated, NOW);
        assert_eq!(sitting.table.bot(Seat(1)), Some(Level::Steady));
        assert_eq!(
            sitting.table.bots().collect::<Vec<_>>(),
            vec![(Seat(1), Level::Steady)]
        );
        assert_eq!(
            sitting.admit(&seated, NOW),
            Err(TableRefusal::AlreadyBot(Seat(1)))
        );
        let far = TableEvent::BotSeated {
            seat: Seat(2),
            level: Level::Steady,
        };
        assert_eq!(
            sitting.admit(&far, NOW),
            Err(TableRefusal::NoSuchSeat(Seat(2)))
        );
        assert_eq!(sitting.admit(&left, NOW), Ok(()));
        sitting.apply_table(&left, NOW);
        assert_eq!(sitting.table.bot(Seat(1)), None);
    }

    #[test]
    fn a_seat_a_bot_plays_has_no_running_clock_and_gets_its_time_back_when_taken_back() {
        let mut sitting = clocked_girl_for_two(TimeoutPolicy::Bot);
        let seat = sitting.to_act()[0];
        let late = NOW.plus(2 * DAY);
        let timeout = TableEvent::TimedOut {
            seat,
            deadline: late,
        };
        assert_eq!(sitting.admit(&timeout, late), Ok(()));
        sitting.apply_table(&timeout, late);
        // Under `bot` nothing is defaulted: the seat's bot is seated next and plays on.
        assert_eq!(sitting.table.defaulting(), None);
        assert!(!sitting.is_over());
        let seated = TableEvent::BotSeated {
            seat,
            level: Level::Steady,
        };
        assert_eq!(sitting.admit(&seated, late), Ok(()));
        sitting.apply_table(&seated, late);
        assert!(
            sitting.to_act().contains(&seat),
            "the game still waits for the seat"
        );
        assert_eq!(sitting.deadline(seat), None, "a bot's clock does not run");
        assert!(sitting.due(late.plus(30 * DAY)).is_empty());
        let back = late.plus(DAY);
        let left = TableEvent::BotLeft { seat };
        sitting.apply_table(&left, back);
        assert_eq!(sitting.deadline(seat), Some(back.plus(2 * DAY)));
    }

    #[test]
    fn a_hosted_seat_filled_by_a_bot_is_taken_and_cannot_be_handed_back_to_nobody() {
        let mut sitting = hosted_girl_for_two();
        assert!(sitting.table.waiting());
        let seated = TableEvent::BotSeated {
            seat: Seat(1),
            level: Level::Random,
        };
        assert_eq!(sitting.admit(&seated, NOW), Ok(()));
        sitting.apply_table(&seated, NOW);
        assert!(!sitting.table.waiting(), "a bot fills the seat");
        assert_eq!(
            sitting.table.seating().unwrap().seats[1].offer,
            None,
            "nor is it on offer any more"
        );
        assert_eq!(
            sitting.admit(&seat(1, "bea"), NOW),
            Err(TableRefusal::SeatTaken(Seat(1)))
        );
        assert_eq!(
            sitting.admit(&TableEvent::BotLeft { seat: Seat(1) }, NOW),
            Err(TableRefusal::NobodyToTakeBack(Seat(1)))
        );
    }

    #[test]
    fn in_every_game_a_clock_that_always_runs_out_plays_the_defaults_to_the_end() {
        // Nobody ever moves: every seat the game waits for times out at its deadline and has
        // its default move played, until the game ends. Each timeout is admitted, each
        // default decided at the moment recorded for it.
        for engine in crate::catalog::engines() {
            let description = engine.describe();
            for players in description.min_players..=description.max_players {
                let names: Vec<crate::Player> = (0..players)
                    .map(|i| crate::Player {
                        name: format!("P{i}"),
                    })
                    .collect();
                let mut rules = engine
                    .open(&names, &json!({}), crate::RULES_VERSION)
                    .unwrap();
                let mut seq = 1;
                let opening = rules.start(&mut Chance::new(crate::Seed([3; 32]), seq));
                seq += opening.events.len() as u64;
                rules.apply(opening);
                let mut sitting = Sitting::new(rules, players);
                let clock = TableEvent::ClockSet {
                    control: TimeControl::Correspondence { days: 1 },
                    on_timeout: TimeoutPolicy::DefaultMove,
                    vacation: true,
                    empty_bank_hours: None,
                };
                sitting.apply_table(&clock, NOW);
                seq += 1;
                let mut now = NOW;
                let mut steps = 0;
                while !sitting.is_over() {
                    steps += 1;
                    assert!(steps < 100_000, "{} never ends", description.id);
                    // The seat whose time runs out first, as the sweeper finds it.
                    let (deadline, seat) = sitting
                        .to_act()
                        .into_iter()
                        .filter_map(|seat| Some((sitting.deadline(seat)?, seat)))
                        .min()
                        .expect("a seat owed a move has a deadline");
                    now = now.max(deadline);
                    let timeout = TableEvent::TimedOut { seat, deadline };
                    assert_eq!(sitting.admit(&timeout, now), Ok(()), "{}", description.id);
                    sitting.apply_table(&timeout, now);
                    seq += 1;
                    if sitting.is_over() {
                        break;
                    }
                    let action = sitting.rules.default_action(seat).expect("a default");
                    let decision = sitting
                        .decide(
                            seat,
                            &action,
                            &mut Chance::new(crate::Seed([3; 32]), seq),
                            now,
                        )
                        .unwrap_or_else(|e| panic!("{}: {e:?}", description.id));
                    assert_eq!(
                        decision.action.as_ref(),
                        Some(&action),
                        "the default is canonical"
                    );
                    seq += decision.events.len() as u64;
                    sitting.apply_decision(
                        decision,
                        Stamp {
                            at: now,
                            mover: Some(seat),
                        },
                    );
                }
            }
        }
    }
}

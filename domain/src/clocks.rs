//! Move clocks: how long each seat has for its move, when it is reminded, and when its time
//! has run out.
//!
//! A clock is chosen when the game is created and recorded as the table's `clock_set` event.
//! From then on each seat's clock is a pure function of the log: every entry carries the
//! moment it was recorded, and after each batch of entries the table sees which seats owe a
//! move (those the game waits for) and starts, stops or restarts their clocks. So a deadline
//! is computed from recorded times alone, and an audit can tell a timeout recorded before
//! its deadline from a fair one.
//!
//! Vacation is part of the clock: a seat on vacation has its clock stopped until the
//! vacation's recorded end, or until it comes back early.

use serde::{Deserialize, Serialize};

use crate::game::Seat;

/// A moment, as microseconds since the Unix epoch: the resolution the log records times in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Moment(pub i64);

impl Moment {
    /// `self` moved on by `micros` (saturating).
    pub fn plus(self, micros: i64) -> Moment {
        Moment(self.0.saturating_add(micros))
    }

    /// How long after `earlier` this is, in microseconds; zero if it is not after it.
    pub fn since(self, earlier: Moment) -> i64 {
        self.0.saturating_sub(earlier.0).max(0)
    }
}

/// Microseconds in an hour.
pub const HOUR: i64 = 3_600_000_000;
/// Microseconds in a day.
pub const DAY: i64 = 24 * HOUR;

/// The days per move a correspondence clock may give: the usual choices of turn-based sites.
pub const CORRESPONDENCE_DAYS: [u8; 7] = [1, 2, 3, 5, 7, 10, 14];
/// The longest a bank clock may hold, in hours (90 days).
pub const MAX_BANK_HOURS: u32 = 90 * 24;
/// The time a move gets, in hours, when its seat's bank is empty as the move starts, on a
/// bank clock set since issue 35 (recorded in its `clock_set` as `empty_bank_hours`). An
/// empty bank with no increment gave a move no time at all: a seat that ran out timed out
/// again the moment it was next asked, and `default_move` played an absent player's whole
/// game out within seconds. An hour, the least a bank may start with, gives the player a
/// real chance at each move and makes the rest of the table's wait for an absent seat an
/// hour a move at most, with one timeout (and one notice) each.
pub const EMPTY_BANK_HOURS: u32 = 1;

/// How much time each seat has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeControl {
    /// At most `days` per move, afresh for every move.
    Correspondence {
        /// Days per move: one of [`CORRESPONDENCE_DAYS`].
        days: u8,
    },
    /// A bank of time that each move draws on: `initial_hours` to begin with, and
    /// `increment_hours` added after each move, never above `max_hours`.
    Bank {
        /// The bank each seat starts with.
        initial_hours: u32,
        /// Added to the bank after each move the seat makes.
        increment_hours: u32,
        /// The most the bank may hold.
        max_hours: u32,
    },
}

impl TimeControl {
    /// Why this control cannot be used, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        match *self {
            TimeControl::Correspondence { days } => {
                if CORRESPONDENCE_DAYS.contains(&days) {
                    Ok(())
                } else {
                    Err(format!(
                        "a correspondence clock gives one of {CORRESPONDENCE_DAYS:?} days per move, not {days}"
                    ))
                }
            }
            TimeControl::Bank {
                initial_hours,
                increment_hours,
                max_hours,
            } => {
                if initial_hours == 0 {
                    Err("a bank clock starts with at least one hour".into())
                } else if max_hours < initial_hours {
                    Err("a bank clock's max_hours is at least its initial_hours".into())
                } else if max_hours > MAX_BANK_HOURS {
                    Err(format!("a bank clock holds at most {MAX_BANK_HOURS} hours"))
                } else if increment_hours > max_hours {
                    Err("a bank clock's increment_hours is at most its max_hours".into())
                } else {
                    Ok(())
                }
            }
        }
    }

    /// The time a seat has when its clock first starts.
    fn first_allowance(&self) -> i64 {
        match *self {
            TimeControl::Correspondence { days } => i64::from(days) * DAY,
            TimeControl::Bank { initial_hours, .. } => i64::from(initial_hours) * HOUR,
        }
    }
}

/// What happens when a seat's time runs out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutPolicy {
    /// The seat's default action is played for it (`Table::default_action`), and the game
    /// goes on.
    DefaultMove,
    /// A bot plays the seat from then on.
    Bot,
    /// The seat loses: the game ends with its concession.
    Forfeit,
}

/// The clock a game was created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockRules {
    /// How much time each seat has.
    pub control: TimeControl,
    /// What happens when it runs out.
    pub on_timeout: TimeoutPolicy,
    /// Whether a player's vacation stops their clock in this game.
    pub vacation: bool,
    /// The time, in hours, a move gets when its seat's bank is empty as it starts (a bank
    /// clock set since issue 35: [`EMPTY_BANK_HOURS`]); `None` for a correspondence clock
    /// and for a bank set before, whose empty bank gives nothing, as it did when the game
    /// was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_bank_hours: Option<u32>,
}

impl ClockRules {
    /// Why these rules cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        self.control.check()?;
        match (self.control, self.empty_bank_hours) {
            (_, None) => Ok(()),
            (TimeControl::Correspondence { .. }, Some(_)) => {
                Err("only a bank clock gives time to a move when its bank is empty".into())
            }
            (TimeControl::Bank { .. }, Some(hours)) if !(1..=MAX_BANK_HOURS).contains(&hours) => {
                Err(format!(
                    "an empty bank gives a move from 1 to {MAX_BANK_HOURS} hours, not {hours}"
                ))
            }
            (TimeControl::Bank { .. }, Some(_)) => Ok(()),
        }
    }
}

/// One seat's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatClock {
    /// The time left: all of it while the clock is stopped, the time left at
    /// `running_since` while it runs.
    pub allowance: i64,
    /// Since when the clock runs, if the seat owes a move. It may lie in the future: a seat
    /// on vacation owes a move but its clock resumes only when the vacation ends.
    pub running_since: Option<Moment>,
    /// Whether the seat was reminded during this move.
    pub reminded: bool,
    /// Until when the seat is on vacation, as recorded when the vacation began.
    pub away_until: Option<Moment>,
}

impl SeatClock {
    /// When the seat's time runs out, if its clock runs.
    pub fn deadline(&self) -> Option<Moment> {
        self.running_since.map(|since| since.plus(self.allowance))
    }

    /// When the seat is reminded: after 80 % of the time it had when its clock (re)started.
    pub fn reminder_due(&self) -> Option<Moment> {
        match (self.running_since, self.reminded) {
            (Some(since), false) => Some(since.plus(self.allowance / 5 * 4)),
            _ => None,
        }
    }

    /// Whether the seat is on vacation at `at`.
    pub fn away_at(&self, at: Moment) -> bool {
        self.away_until.is_some_and(|until| until > at)
    }
}

/// What is due on a game's clocks at some moment, in the order to record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// The seat has used 80 % of its time for this move.
    Reminder(Seat),
    /// The seat's time has run out.
    Timeout(Seat),
}

/// Every seat's clock at one table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    /// The clock the game was created with.
    pub rules: ClockRules,
    /// Each seat's clock, in seat order.
    pub seats: Vec<SeatClock>,
}

impl Clocks {
    /// Clocks for `players` seats, none running yet.
    pub fn new(rules: ClockRules, players: usize) -> Clocks {
        let allowance = rules.control.first_allowance();
        Clocks {
            rules,
            seats: vec![
                SeatClock {
                    allowance,
                    running_since: None,
                    reminded: false,
                    away_until: None,
                };
                players
            ],
        }
    }

    /// One seat's clock.
    pub fn seat(&self, seat: Seat) -> Option<&SeatClock> {
        self.seats.get(seat.index())
    }

    /// After a batch recorded at `at`: the seats in `owing` owe a move now, and `mover` (if
    /// any) just made one. A seat that stops owing, or moved and owes again, has its clock
    /// stopped (a bank is charged and credited); a seat that starts owing has it started.
    pub fn settle(&mut self, owing: &[Seat], mover: Option<Seat>, at: Moment) {
        let control = self.rules.control;
        let empty_bank = self.rules.empty_bank_hours.map(|h| i64::from(h) * HOUR);
        for (i, clock) in self.seats.iter_mut().enumerate() {
            let seat = Seat(u8::try_from(i).unwrap_or(u8::MAX));
            let owes = owing.contains(&seat);
            if clock.running_since.is_some() && (!owes || mover == Some(seat)) {
                stop(clock, control, at);
            }
            if owes && clock.running_since.is_none() {
                match (control, empty_bank) {
                    (TimeControl::Correspondence { .. }, _) => {
                        clock.allowance = control.first_allowance();
                    }
                    (TimeControl::Bank { .. }, Some(grace)) if clock.allowance <= 0 => {
                        clock.allowance = grace;
                    }
                    (TimeControl::Bank { .. }, _) => {}
                }
                clock.reminded = false;
                clock.running_since = Some(match clock.away_until {
                    Some(until) if until > at => until,
                    _ => at,
                });
            }
        }
    }

    /// Gives `seat` the control's first allowance again if its time has run out: a player
    /// taking their seat back from the bot that played it since their timeout.
    pub fn refill(&mut self, seat: Seat) {
        let first = self.rules.control.first_allowance();
        if let Some(clock) = self.seats.get_mut(seat.index()) {
            if clock.allowance <= 0 {
                clock.allowance = first;
            }
        }
    }

    /// Stops `seat`'s clock with no time left: its time ran out.
    pub fn run_out(&mut self, seat: Seat) {
        if let Some(clock) = self.seats.get_mut(seat.index()) {
            clock.allowance = 0;
            clock.running_since = None;
            clock.reminded = false;
        }
    }

    /// Marks `seat` reminded for this move.
    pub fn remind(&mut self, seat: Seat) {
        if let Some(clock) = self.seats.get_mut(seat.index()) {
            clock.reminded = true;
        }
    }

    /// `seat` goes on vacation at `at` until `until`: a running clock is charged for the time
    /// used so far and resumes at `until`.
    pub fn leave(&mut self, seat: Seat, at: Moment, until: Moment) {
        if let Some(clock) = self.seats.get_mut(seat.index()) {
            if let Some(since) = clock.running_since {
                if since < at {
                    clock.allowance = (clock.allowance - at.since(since)).max(0);
                }
                clock.running_since = Some(until.max(since));
            }
            clock.away_until = Some(until);
        }
    }

    /// `seat` comes back from vacation early, at `at`: a clock waiting for the vacation's end
    /// resumes now.
    pub fn come_back(&mut self, seat: Seat, at: Moment) {
        if let Some(clock) = self.seats.get_mut(seat.index()) {
            if let Some(since) = clock.running_since {
                if since > at {
                    clock.running_since = Some(at);
                }
            }
            clock.away_until = None;
        }
    }

    /// The earliest moment something is due on these clocks, if anything ever is.
    pub fn next_due(&self) -> Option<Moment> {
        self.seats
            .iter()
            .flat_map(|c| [c.reminder_due(), c.deadline()])
            .flatten()
            .min()
    }

    /// What is due at `at`: every seat whose time ran out, else every seat to remind; in
    /// seat order. A seat out of time is not reminded first.
    pub fn due(&self, at: Moment) -> Vec<Due> {
        let seat = |i: usize| Seat(u8::try_from(i).unwrap_or(u8::MAX));
        let timeouts: Vec<Due> = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, c)| c.deadline().is_some_and(|d| d <= at))
            .map(|(i, _)| Due::Timeout(seat(i)))
            .collect();
        if !timeouts.is_empty() {
            return timeouts;
        }
        self.seats
            .iter()
            .enumerate()
            .filter(|(_, c)| c.reminder_due().is_some_and(|d| d <= at))
            .map(|(i, _)| Due::Reminder(seat(i)))
            .collect()
    }
}

/// Stops a running clock at `at`; a bank pays for the time used and earns its increment.
fn stop(clock: &mut SeatClock, control: TimeControl, at: Moment) {
    if let (
        Some(since),
        TimeControl::Bank {
            increment_hours,
            max_hours,
            ..
        },
    ) = (clock.running_since, control)
    {
        let left = (clock.allowance - at.since(since)).max(0);
        clock.allowance =
            (left + i64::from(increment_hours) * HOUR).min(i64::from(max_hours) * HOUR);
    }
    clock.running_since = None;
    clock.reminded = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn correspondence(days: u8) -> Clocks {
        Clocks::new(
            ClockRules {
                control: TimeControl::Correspondence { days },
                on_timeout: TimeoutPolicy::Forfeit,
                vacation: true,
                empty_bank_hours: None,
            },
            2,
        )
    }

    fn bank(initial: u32, increment: u32, max: u32) -> Clocks {
        bank_with(initial, increment, max, Some(EMPTY_BANK_HOURS))
    }

    fn bank_with(initial: u32, increment: u32, max: u32, empty_bank_hours: Option<u32>) -> Clocks {
        Clocks::new(
            ClockRules {
                control: TimeControl::Bank {
                    initial_hours: initial,
                    increment_hours: increment,
                    max_hours: max,
                },
                on_timeout: TimeoutPolicy::DefaultMove,
                vacation: true,
                empty_bank_hours,
            },
            2,
        )
    }

    const T0: Moment = Moment(1_000_000 * DAY);

    #[test]
    fn a_correspondence_clock_gives_its_days_afresh_for_every_move() {
        let mut clocks = correspondence(3);
        clocks.settle(&[Seat(0)], None, T0);
        assert_eq!(clocks.seats[0].deadline(), Some(T0.plus(3 * DAY)));
        assert_eq!(clocks.seats[1].deadline(), None);
        let later = T0.plus(2 * DAY);
        clocks.settle(&[Seat(1)], Some(Seat(0)), later);
        assert_eq!(clocks.seats[0].deadline(), None);
        assert_eq!(clocks.seats[1].deadline(), Some(later.plus(3 * DAY)));
        // Seat 0 is owed again later: a full three days again.
        let again = later.plus(DAY);
        clocks.settle(&[Seat(0)], Some(Seat(1)), again);
        assert_eq!(clocks.seats[0].deadline(), Some(again.plus(3 * DAY)));
    }

    #[test]
    fn a_bank_is_charged_for_the_time_used_and_credited_its_increment_up_to_its_cap() {
        let mut clocks = bank(10, 4, 12);
        clocks.settle(&[Seat(0)], None, T0);
        clocks.settle(&[Seat(1)], Some(Seat(0)), T0.plus(3 * HOUR));
        assert_eq!(clocks.seats[0].allowance, 11 * HOUR);
        clocks.settle(&[Seat(0)], Some(Seat(1)), T0.plus(4 * HOUR));
        // 12 hours left after 1 used and 4 credited would be 13: the cap holds it at 12.
        assert_eq!(clocks.seats[1].allowance, 12 * HOUR);
        assert_eq!(
            clocks.seats[0].deadline(),
            Some(T0.plus(4 * HOUR + 11 * HOUR))
        );
    }

    /// A seat out of time under `default_move`, as the table leaves it: run out, then its
    /// default move made for it at the same moment, then asked for its next move.
    fn time_out_and_default(clocks: &mut Clocks, seat: Seat, at: Moment) {
        clocks.run_out(seat);
        clocks.settle(&[seat], None, at);
        clocks.settle(&[Seat(1 - seat.0)], Some(seat), at);
    }

    #[test]
    fn an_empty_bank_with_no_increment_gives_each_move_an_hour() {
        let mut clocks = bank(2, 0, 2);
        clocks.settle(&[Seat(0)], None, T0);
        let out = T0.plus(2 * HOUR);
        assert_eq!(clocks.due(out), vec![Due::Timeout(Seat(0))]);
        // The default move started on an empty bank, so it had an hour, and used none of it.
        time_out_and_default(&mut clocks, Seat(0), out);
        let hour = i64::from(EMPTY_BANK_HOURS) * HOUR;
        assert_eq!(clocks.seats[0].allowance, hour);
        // Seat 1 answers at once: seat 0 is asked again, and has its hour.
        clocks.settle(&[Seat(0)], Some(Seat(1)), out);
        assert_eq!(clocks.seats[0].deadline(), Some(out.plus(hour)));
        assert!(
            clocks.due(out).is_empty(),
            "no timeout the moment it is asked"
        );
        // Still away: it times out once an hour, never faster.
        let again = out.plus(hour);
        assert_eq!(clocks.due(again), vec![Due::Timeout(Seat(0))]);
        time_out_and_default(&mut clocks, Seat(0), again);
        clocks.settle(&[Seat(0)], Some(Seat(1)), again);
        assert_eq!(clocks.seats[0].deadline(), Some(again.plus(hour)));
        // A bank with time left is not topped up: the hour is for an empty bank only.
        let mut clocks = bank(2, 0, 2);
        clocks.settle(&[Seat(0)], None, T0);
        clocks.settle(&[Seat(1)], Some(Seat(0)), T0.plus(2 * HOUR - 60_000_000));
        clocks.settle(&[Seat(0)], Some(Seat(1)), T0.plus(2 * HOUR));
        assert_eq!(clocks.seats[0].allowance, 60_000_000);
    }

    #[test]
    fn a_bank_set_before_the_empty_bank_hour_keeps_giving_an_empty_bank_nothing() {
        let mut clocks = bank_with(2, 0, 2, None);
        clocks.settle(&[Seat(0)], None, T0);
        let out = T0.plus(2 * HOUR);
        time_out_and_default(&mut clocks, Seat(0), out);
        clocks.settle(&[Seat(0)], Some(Seat(1)), out);
        assert_eq!(clocks.seats[0].deadline(), Some(out));
        assert_eq!(clocks.due(out), vec![Due::Timeout(Seat(0))]);
    }

    #[test]
    fn only_a_bank_gives_an_empty_bank_time_and_from_one_hour() {
        let rules = |control, empty_bank_hours| ClockRules {
            control,
            on_timeout: TimeoutPolicy::DefaultMove,
            vacation: true,
            empty_bank_hours,
        };
        let bank = TimeControl::Bank {
            initial_hours: 2,
            increment_hours: 0,
            max_hours: 2,
        };
        let correspondence = TimeControl::Correspondence { days: 1 };
        assert!(rules(bank, Some(1)).check().is_ok());
        assert!(rules(bank, None).check().is_ok());
        assert!(rules(bank, Some(0)).check().is_err());
        assert!(rules(bank, Some(MAX_BANK_HOURS + 1)).check().is_err());
        assert!(rules(correspondence, Some(1)).check().is_err());
        assert!(rules(correspondence, None).check().is_ok());
    }

    #[test]
    fn a_seat_that_moves_and_still_owes_starts_a_new_move() {
        let mut clocks = bank(10, 2, 20);
        clocks.settle(&[Seat(0)], None, T0);
        clocks.remind(Seat(0));
        clocks.settle(&[Seat(0)], Some(Seat(0)), T0.plus(HOUR));
        assert_eq!(clocks.seats[0].allowance, 11 * HOUR);
        assert_eq!(clocks.seats[0].running_since, Some(T0.plus(HOUR)));
        assert!(!clocks.seats[0].reminded);
    }

    #[test]
    fn simultaneous_choices_run_every_owing_seats_clock_at_once() {
        let mut clocks = correspondence(1);
        clocks.settle(&[Seat(0), Seat(1)], None, T0);
        assert_eq!(clocks.seats[0].deadline(), Some(T0.plus(DAY)));
        assert_eq!(clocks.seats[1].deadline(), Some(T0.plus(DAY)));
        // Seat 1 lays; seat 0 still owes its lay, on the same clock.
        clocks.settle(&[Seat(0)], Some(Seat(1)), T0.plus(HOUR));
        assert_eq!(clocks.seats[0].deadline(), Some(T0.plus(DAY)));
        assert_eq!(clocks.seats[1].deadline(), None);
    }

    #[test]
    fn the_reminder_falls_due_at_eighty_percent_and_the_timeout_at_the_deadline() {
        let mut clocks = correspondence(5);
        clocks.settle(&[Seat(1)], None, T0);
        assert_eq!(clocks.next_due(), Some(T0.plus(4 * DAY)));
        assert!(clocks.due(T0.plus(4 * DAY - 1)).is_empty());
        assert_eq!(clocks.due(T0.plus(4 * DAY)), vec![Due::Reminder(Seat(1))]);
        clocks.remind(Seat(1));
        assert_eq!(clocks.next_due(), Some(T0.plus(5 * DAY)));
        assert!(clocks.due(T0.plus(5 * DAY - 1)).is_empty());
        assert_eq!(clocks.due(T0.plus(5 * DAY)), vec![Due::Timeout(Seat(1))]);
    }

    #[test]
    fn a_vacation_stops_the_clock_until_it_ends_and_an_early_return_restarts_it() {
        let mut clocks = correspondence(2);
        clocks.settle(&[Seat(0)], None, T0);
        // A day used, then ten days away: one day is left, from the vacation's end.
        let leave = T0.plus(DAY);
        clocks.leave(Seat(0), leave, leave.plus(10 * DAY));
        assert_eq!(clocks.seats[0].deadline(), Some(leave.plus(11 * DAY)));
        assert!(clocks.seats[0].away_at(leave.plus(DAY)));
        // Back after three days: the day left runs from now.
        let back = leave.plus(3 * DAY);
        clocks.come_back(Seat(0), back);
        assert_eq!(clocks.seats[0].deadline(), Some(back.plus(DAY)));
        assert!(!clocks.seats[0].away_at(back));
    }

    #[test]
    fn a_seat_owed_a_move_while_away_starts_its_clock_when_the_vacation_ends() {
        let mut clocks = correspondence(1);
        let until = T0.plus(5 * DAY);
        clocks.leave(Seat(1), T0, until);
        clocks.settle(&[Seat(1)], None, T0.plus(DAY));
        assert_eq!(clocks.seats[1].deadline(), Some(until.plus(DAY)));
    }

    #[test]
    fn only_the_listed_choices_are_valid_controls() {
        assert!(TimeControl::Correspondence { days: 3 }.check().is_ok());
        assert!(TimeControl::Correspondence { days: 4 }.check().is_err());
        let bank = |initial_hours, increment_hours, max_hours| TimeControl::Bank {
            initial_hours,
            increment_hours,
            max_hours,
        };
        assert!(bank(24, 12, 72).check().is_ok());
        assert!(bank(0, 12, 72).check().is_err());
        assert!(bank(24, 12, 12).check().is_err());
        assert!(bank(24, 12, MAX_BANK_HOURS + 1).check().is_err());
    }
}

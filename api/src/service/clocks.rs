//! Move clocks as a service: choosing one when a game is created, noting when each clocked
//! game next needs attention, and the sweep that records what falls due — a reminder at 80 %
//! of a seat's time, a timeout at its deadline — exactly once, from the log.
//!
//! Exactly once needs no lock of its own: a sweep folds the game's log at its head, records
//! only what the log says is due at the sweep's moment, and appends at the next position, so
//! a second sweeper (another instance, or this one again) either loses the append race or
//! finds nothing due any more. The leader sweeps every tick (`workers::leader`); when it takes
//! over it looks at every clocked game once, which also applies every deadline that passed
//! while no server was running.

use parlour_domain::clocks::{Due, TimeControl, TimeoutPolicy, EMPTY_BANK_HOURS};
use parlour_domain::table_events::TableRefusal;

use super::write::{Batch, Step};
use super::*;
use crate::dto::{ClockView, NewClock, OnTimeout, SeatClockView, TimeControlPlan};

/// How many games one look at the attention table takes.
const SWEEP_PAGE: u64 = 200;

/// What one sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sweep {
    /// Games looked at.
    pub games: u64,
    /// Reminders recorded.
    pub reminders: u64,
    /// Timeouts recorded.
    pub timeouts: u64,
}

/// The table's opening entry for a game created with `clock`: none for no clock.
pub(super) fn clock_entry(clock: Option<&NewClock>) -> Result<Option<TableEvent>> {
    let Some(clock) = clock else { return Ok(None) };
    let (control, empty_bank_hours) = match clock.control {
        TimeControlPlan::None {} => return Ok(None),
        TimeControlPlan::Correspondence { days } => (TimeControl::Correspondence { days }, None),
        // Every bank set now gives a move an hour when the bank is empty as it starts: the
        // rule is recorded with the clock, so games set before it keep the rule they had.
        TimeControlPlan::Bank {
            initial_hours,
            increment_hours,
            max_hours,
        } => (
            TimeControl::Bank {
                initial_hours,
                increment_hours,
                max_hours,
            },
            Some(EMPTY_BANK_HOURS),
        ),
    };
    control.check().map_err(ServiceError::BadClock)?;
    let on_timeout = match clock.on_timeout {
        OnTimeout::DefaultMove => TimeoutPolicy::DefaultMove,
        OnTimeout::Forfeit => TimeoutPolicy::Forfeit,
        OnTimeout::Bot => TimeoutPolicy::Bot,
    };
    Ok(Some(TableEvent::ClockSet {
        control,
        on_timeout,
        vacation: clock.vacation,
        empty_bank_hours,
    }))
}

/// The clocks as everyone sees them (they depend only on whose move it is, which is public).
pub(super) fn clock_view(sitting: &Sitting) -> Option<ClockView> {
    let clocks = sitting.table.clocks()?;
    let control = match clocks.rules.control {
        TimeControl::Correspondence { days } => TimeControlPlan::Correspondence { days },
        TimeControl::Bank {
            initial_hours,
            increment_hours,
            max_hours,
        } => TimeControlPlan::Bank {
            initial_hours,
            increment_hours,
            max_hours,
        },
    };
    let over = sitting.is_over();
    Some(ClockView {
        control,
        on_timeout: match clocks.rules.on_timeout {
            TimeoutPolicy::DefaultMove => OnTimeout::DefaultMove,
            TimeoutPolicy::Bot => OnTimeout::Bot,
            TimeoutPolicy::Forfeit => OnTimeout::Forfeit,
        },
        vacation: clocks.rules.vacation,
        empty_bank_hours: clocks.rules.empty_bank_hours,
        seats: clocks
            .seats
            .iter()
            .enumerate()
            .map(|(i, clock)| SeatClockView {
                seat: u8::try_from(i).unwrap_or(u8::MAX),
                deadline: clock.deadline().filter(|_| !over).and_then(time_of),
                time_left_seconds: clock.allowance / 1_000_000,
                reminded: clock.reminded,
                away_until: clock.away_until.and_then(time_of),
            })
            .collect(),
    })
}

impl Parlour {
    /// Notes when the game's clocks next need the sweeper (nothing for a game without a
    /// clock), and that they never will once the game is over. Best effort, after the
    /// commit: a note lost to a crash is made good by the leader's look at every clocked game
    /// (read from the logs) when it takes over after the restart.
    pub(super) async fn attend(&self, loaded: &Loaded) {
        if loaded.sitting.table.clocks().is_none() {
            return;
        }
        let id = loaded.record.id;
        // The note is in real time, which the sweeper goes by; a game on a test clock falls
        // due that much earlier.
        let due = loaded
            .sitting
            .next_due()
            .and_then(time_of)
            .map(|due| super::test_clock::unshifted(due, loaded.sitting.table.test_clock()));
        if let Err(error) = self.store.set_attention(id, due).await {
            tracing::warn!(game = %id, %error, "the clock's next look was not noted");
        }
        if loaded.sitting.is_over() {
            if let Err(error) = self.store.clocks_ended(id, self.now()).await {
                tracing::warn!(game = %id, %error, "the clocks' end was not noted");
            }
        }
    }

    /// Records what is due on every clocked game whose noted time has come.
    pub async fn sweep_clocks(&self) -> Result<Sweep> {
        self.sweep_until(self.now()).await
    }

    /// Looks at every clocked game whose end has not been seen, due or not, and notes again
    /// when each next needs a look: what the leader does when it takes over. The games are
    /// read from the logs (every game whose opening entries set a clock), not from the
    /// notes, so a game whose note was lost is found.
    pub async fn sweep_every_clock(&self) -> Result<Sweep> {
        let mut sweep = Sweep::default();
        let mut after = Uuid::nil();
        loop {
            let games = self.store.clocked_games(after, SWEEP_PAGE).await?;
            for &game in &games {
                sweep.games += 1;
                if let Err(error) = self.sweep_game(game, &mut sweep).await {
                    tracing::warn!(%game, %error, "the clock sweep skipped a game");
                }
            }
            match games.last() {
                Some(&last) if games.len() as u64 == SWEEP_PAGE => after = last,
                _ => return Ok(sweep),
            }
        }
    }

    async fn sweep_until(&self, noted_before: DateTime<Utc>) -> Result<Sweep> {
        let mut sweep = Sweep::default();
        let mut after = Uuid::nil();
        loop {
            let notes = self
                .store
                .attention_due(noted_before, after, SWEEP_PAGE)
                .await?;
            for note in &notes {
                sweep.games += 1;
                match self.sweep_game(note.game, &mut sweep).await {
                    Ok(()) => {}
                    // A note of a game that was never stored (written, before notes were
                    // part of a game's creation, just before a creation that failed). Only
                    // the note read is dropped: one written since is a real game's.
                    Err(ServiceError::GameNotFound(_)) => {
                        self.store.clear_attention_read(note).await?;
                    }
                    Err(error) => {
                        let game = note.game;
                        tracing::warn!(%game, %error, "the clock sweep skipped a game");
                    }
                }
            }
            match notes.last() {
                Some(last) if notes.len() as u64 == SWEEP_PAGE => after = last.game,
                _ => return Ok(sweep),
            }
        }
    }

    /// Records everything due on one game's clocks now, one commit per reminder or timeout.
    #[tracing::instrument(name = "clock_sweep", level = "debug", skip_all, fields(game = %id))]
    pub(super) async fn sweep_game(&self, id: Uuid, sweep: &mut Sweep) -> Result<()> {
        let mut freshness = Freshness::AtHead;
        let mut recorded_any = false;
        loop {
            let recorded = self
                .commit(id, freshness, |loaded, _| {
                    let at = self.game_now(&loaded.sitting);
                    let Some(due) = loaded.sitting.due(moment(at)).first().copied() else {
                        // After a record, its commit noted the clocks as they now stand.
                        return Ok(if recorded_any {
                            Step::Answer(None)
                        } else {
                            Step::Renote(None)
                        });
                    };
                    let (scratch, events) = self.record_due(loaded, due, at)?;
                    Ok(Step::Append(Batch {
                        events,
                        key: None,
                        link: None,
                        then: move |loaded: &mut Loaded| {
                            loaded.sitting = scratch;
                            Some(due)
                        },
                    }))
                })
                .await?;
            match recorded {
                None => return Ok(()),
                Some(Due::Reminder(_)) => sweep.reminders += 1,
                Some(Due::Timeout(_)) => sweep.timeouts += 1,
            }
            recorded_any = true;
            // What this instance just wrote is the head: the next look needs no read.
            freshness = Freshness::Cached;
        }
    }

    /// The entries that record `due` at `at`, chained onto the log, and the game as they
    /// leave it: a reminder alone; a timeout, and in the same commit under `default_move` the
    /// seat's default action as a move of its own, under `bot` a `steady` bot seated.
    fn record_due(
        &self,
        loaded: &Loaded,
        due: Due,
        at: DateTime<Utc>,
    ) -> Result<(Sitting, Vec<StoredEvent>)> {
        let now = moment(at);
        let mut scratch = Sitting {
            rules: loaded.sitting.rules.clone_table(),
            table: loaded.sitting.table.clone(),
        };
        let clock = |seat: Seat| loaded.sitting.table.clocks().and_then(|c| c.seat(seat));
        let event = match due {
            Due::Reminder(seat) => TableEvent::Reminded {
                seat,
                due: clock(seat)
                    .and_then(|c| c.reminder_due())
                    .ok_or(TableRefusal::NotRemindable(seat))?,
            },
            Due::Timeout(seat) => TableEvent::TimedOut {
                seat,
                deadline: clock(seat)
                    .and_then(|c| c.deadline())
                    .ok_or(TableRefusal::NotDue(seat))?,
            },
        };
        scratch.admit(&event, now)?;
        scratch.apply_table(&event, now);
        let mut events = chain_events(
            &loaded.record,
            &[event.to_recorded()],
            loaded.version + 1,
            None,
            None,
            &loaded.head_hash,
            at,
        )?;
        let policy = scratch.table.clocks().map(|c| c.rules.on_timeout);
        if let (Due::Timeout(seat), Some(TimeoutPolicy::Bot)) = (due, policy) {
            // The seat's bot is seated in the same commit, so the log never shows a seat out
            // of time with nobody to play it.
            let seated = TableEvent::BotSeated {
                seat,
                level: parlour_domain::bots::Level::Steady,
            };
            scratch.admit(&seated, now)?;
            scratch.apply_table(&seated, now);
            let head = events.last().map(|e| e.hash.clone()).unwrap_or_default();
            events.extend(chain_events(
                &loaded.record,
                &[seated.to_recorded()],
                loaded.version + 2,
                None,
                None,
                &head,
                at,
            )?);
        }
        if let (Due::Timeout(seat), Some(defaulting)) = (due, scratch.table.defaulting()) {
            debug_assert_eq!(seat, defaulting);
            let action = scratch
                .rules
                .default_action(seat)
                .ok_or(TableRefusal::Defaulting(seat))?;
            let first_seq = loaded.version + 2;
            let decision = scratch.decide(
                seat,
                &action,
                &mut Chance::new(loaded.record.seed, first_seq),
                now,
            )?;
            let head = events.last().map(|e| e.hash.clone()).unwrap_or_default();
            events.extend(chain_events(
                &loaded.record,
                &decision.events,
                first_seq,
                Some(seat.0),
                decision.action.as_ref(),
                &head,
                at,
            )?);
            scratch.apply_decision(
                decision,
                Stamp {
                    at: now,
                    mover: Some(seat),
                },
            );
        }
        Ok((scratch, events))
    }
}

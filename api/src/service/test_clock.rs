//! Test clocks: on a server started in sandbox mode (`--sandbox`), a game created with
//! `test_clock` has a time of its own that its host moves on, so an app's tests see a
//! reminder and a timeout in seconds instead of days (`docs/sandbox.md`).
//!
//! A jump is a table entry (`table.test_clock_advanced`), so the log says why its times leap,
//! every instance reads the game's time from the log's head (no instance keeps a clock of its
//! own), and an audit replays the game at the times it recorded. The game's time is the real
//! time moved on by every jump; once the jump is recorded, the very sweep the leader runs is
//! run on the game at once, so what fell due is recorded (and told, by notice and webhook)
//! before the host's request is answered.

use parlour_domain::table_events::{TableEvent, MAX_TEST_CLOCK_ADVANCE_SECONDS};

use super::clocks::Sweep;
use super::*;
use crate::dto::{TestClockAdvance, TestClockAdvanced, TestClockView};

/// `at` moved on by a test clock's `advanced` microseconds (none: `at` itself).
pub(crate) fn shifted(at: DateTime<Utc>, advanced: Option<i64>) -> DateTime<Utc> {
    let by = chrono::Duration::microseconds(advanced.unwrap_or(0));
    at.checked_add_signed(by).unwrap_or(at)
}

/// The real time at which a game on a test clock moved on by `advanced` shows `at`.
pub(crate) fn unshifted(at: DateTime<Utc>, advanced: Option<i64>) -> DateTime<Utc> {
    let by = chrono::Duration::microseconds(advanced.unwrap_or(0));
    at.checked_sub_signed(by).unwrap_or(at)
}

/// The test clock as a view shows it, in a game on one.
pub(super) fn view(sitting: &Sitting) -> Option<TestClockView> {
    let advanced = sitting.table.test_clock()?;
    Some(TestClockView {
        advanced_seconds: u64::try_from(advanced / 1_000_000).unwrap_or(0),
    })
}

impl Parlour {
    /// Moves the test clock of game `id` on by `request.seconds`, then records what that made
    /// due, as the leader's sweep would have. Only the game's host may, and only on a sandbox
    /// server.
    pub async fn advance_test_clock(
        &self,
        caller: &AccountCaller,
        id: Uuid,
        request: TestClockAdvance,
    ) -> Result<TestClockAdvanced> {
        if !self.sandbox() {
            return Err(ServiceError::SandboxOff);
        }
        if !(1..=MAX_TEST_CLOCK_ADVANCE_SECONDS).contains(&request.seconds) {
            return Err(ServiceError::BadRequest(format!(
                "`seconds` is a whole number from 1 to {MAX_TEST_CLOCK_ADVANCE_SECONDS}"
            )));
        }
        let event = TableEvent::TestClockAdvanced {
            seconds: request.seconds,
        };
        self.record_table_event_if(id, None, event, None, |loaded| {
            Self::require_host(&loaded.sitting, caller)
        })
        .await?;
        let mut sweep = Sweep::default();
        self.sweep_game(id, &mut sweep).await?;
        let slot = self.slot(id);
        let mut guard = slot.game.lock().await;
        let loaded = self
            .ensure_loaded(id, &slot, &mut guard, Freshness::AtHead)
            .await?;
        let (version, now) = (loaded.version, self.game_now(&loaded.sitting));
        let advanced = loaded.sitting.table.test_clock().unwrap_or(0);
        drop(guard);
        Ok(TestClockAdvanced {
            now,
            advanced_seconds: u64::try_from(advanced / 1_000_000).unwrap_or(0),
            reminders: sweep.reminders,
            timeouts: sweep.timeouts,
            version,
        })
    }
}

//! The service's sense of time, injected so that what depends on it (an idempotency key's
//! expiry) can be tested by moving a clock instead of waiting.

use std::sync::Mutex;

use chrono::{DateTime, Utc};

/// Tells the time.
pub trait Clock: Send + Sync {
    /// Now, to the microsecond (what the stores keep).
    fn now(&self) -> DateTime<Utc>;

    /// Now, cut to the microsecond the log records: the time every entry and every clock
    /// decision uses (a clock moved by a test may hold nanoseconds).
    fn recorded_now(&self) -> DateTime<Utc> {
        let now = self.now();
        DateTime::<Utc>::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
    }
}

/// The operating system's clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        crate::store::now()
    }
}

/// A clock that stands still until it is moved on: for tests.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<DateTime<Utc>>,
}

impl ManualClock {
    /// A clock showing the system's time now.
    pub fn new() -> Self {
        Self::at(crate::store::now())
    }

    /// A clock showing `now`.
    pub fn at(now: DateTime<Utc>) -> Self {
        ManualClock {
            now: Mutex::new(now),
        }
    }

    /// Moves the clock on by `by`.
    pub fn advance(&self, by: std::time::Duration) {
        let by = chrono::Duration::from_std(by).unwrap_or(chrono::Duration::MAX);
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        *now = now
            .checked_add_signed(by)
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_stands_still_until_it_is_moved_on() {
        let clock = ManualClock::new();
        let start = clock.now();
        assert_eq!(clock.now(), start);
        clock.advance(std::time::Duration::from_secs(90));
        assert_eq!(clock.now() - start, chrono::Duration::seconds(90));
    }
}

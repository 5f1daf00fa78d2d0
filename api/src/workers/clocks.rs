//! The clock sweeper: the leader's job of recording reminders and timeouts as they fall due
//! (`service::clocks` decides what is due, from the log).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;

use super::LeaderJob;
use crate::service::Parlour;

/// Sweeps the move clocks of every game each tick, while this instance leads.
pub struct ClockSweeper {
    service: Arc<Parlour>,
    /// Whether this leadership's look at every clocked game is done: one that failed (the
    /// store did not answer) is tried again at the next tick, not left to the next leader.
    looked: AtomicBool,
}

impl ClockSweeper {
    /// A sweeper recording through `service`.
    pub fn new(service: Arc<Parlour>) -> Self {
        ClockSweeper {
            service,
            looked: AtomicBool::new(false),
        }
    }

    /// Looks at every clocked game once (see [`Parlour::sweep_every_clock`]).
    async fn look_at_every_clock(&self) -> Result<(), String> {
        let sweep = self
            .service
            .sweep_every_clock()
            .await
            .map_err(|e| e.to_string())?;
        self.looked.store(true, Ordering::SeqCst);
        tracing::info!(?sweep, "clock sweep on taking over");
        Ok(())
    }
}

#[async_trait]
impl LeaderJob for ClockSweeper {
    fn name(&self) -> &str {
        "clock-sweeper"
    }

    async fn tick(&self) -> Result<(), String> {
        if !self.looked.load(Ordering::SeqCst) {
            self.look_at_every_clock().await?;
        }
        let sweep = self
            .service
            .sweep_clocks()
            .await
            .map_err(|e| e.to_string())?;
        if sweep.reminders + sweep.timeouts > 0 {
            tracing::info!(?sweep, "clock sweep recorded what fell due");
        }
        Ok(())
    }

    async fn take_over(&self) -> Result<(), String> {
        // A commit whose note was lost, or a deadline that passed while no instance ran:
        // every clocked game is looked at once, found from the logs.
        self.looked.store(false, Ordering::SeqCst);
        self.look_at_every_clock().await
    }
}

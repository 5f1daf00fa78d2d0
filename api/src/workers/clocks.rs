//! The clock sweeper: the leader's job of recording reminders and timeouts as they fall due
//! (`service::clocks` decides what is due, from the log).

use std::sync::Arc;

use async_trait::async_trait;

use super::LeaderJob;
use crate::service::Parlour;

/// Sweeps the move clocks of every game each tick, while this instance leads.
pub struct ClockSweeper {
    service: Arc<Parlour>,
}

impl ClockSweeper {
    /// A sweeper recording through `service`.
    pub fn new(service: Arc<Parlour>) -> Self {
        ClockSweeper { service }
    }
}

#[async_trait]
impl LeaderJob for ClockSweeper {
    fn name(&self) -> &str {
        "clock-sweeper"
    }

    async fn tick(&self) -> Result<(), String> {
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
        // A commit whose note was lost to a crash, or a deadline that passed while no
        // instance ran: every clocked game is looked at once.
        let sweep = self
            .service
            .sweep_every_clock()
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!(?sweep, "clock sweep on taking over");
        Ok(())
    }
}

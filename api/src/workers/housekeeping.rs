//! The purge of rows outside the logs that have been kept long enough, a leader job run
//! every [`EVERY`] (`service::housekeeping` says what goes).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::Mutex;

use super::LeaderJob;
use crate::service::Parlour;

/// How often the leader purges: often enough that a batch stays small.
pub const EVERY: Duration = Duration::from_secs(10 * 60);

/// Purges through `service` when a purge is due, while this instance leads.
pub struct Housekeeper {
    service: Arc<Parlour>,
    last: Mutex<Option<Instant>>,
}

impl Housekeeper {
    /// A housekeeper purging through `service`, first on its first tick.
    pub fn new(service: Arc<Parlour>) -> Self {
        Housekeeper {
            service,
            last: Mutex::new(None),
        }
    }
}

#[async_trait]
impl LeaderJob for Housekeeper {
    fn name(&self) -> &str {
        "housekeeping"
    }

    async fn tick(&self) -> Result<(), String> {
        let mut last = self.last.lock().await;
        if last.is_some_and(|at| at.elapsed() < EVERY) {
            return Ok(());
        }
        *last = Some(Instant::now());
        let purged = self
            .service
            .housekeeping()
            .purge()
            .await
            .map_err(|e| e.to_string())?;
        if purged != crate::store::Purged::default() {
            tracing::info!(?purged, "purged rows kept long enough");
        }
        Ok(())
    }
}

//! Work that must happen once across every instance (a clock sweep) is done by one leader.
//!
//! Each instance keeps asking the store for the lease named [`LEASE`]; the one that holds it
//! runs every [`LeaderJob`] each `tick`, and checks on every tick that it still holds it. On
//! Postgres the lease is an advisory lock on a connection of its own, so it ends when that
//! instance dies or loses its connection, and another instance takes over within one
//! `retry`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tracing::Instrument;

use async_trait::async_trait;

use crate::store::EventStore;

/// The name of the lease the leader holds.
pub const LEASE: &str = "parlour-leader";
/// How often the leader runs its jobs and checks its lease.
const TICK: Duration = Duration::from_secs(1);
/// How long a follower waits before asking for the lease again.
const RETRY: Duration = Duration::from_secs(2);

/// Work only the leader does, once per tick.
#[async_trait]
pub trait LeaderJob: Send + Sync {
    /// The job's name, for the log.
    fn name(&self) -> &str;
    /// Does one round of the work. Errors are logged; the job runs again next tick.
    async fn tick(&self) -> Result<(), String>;
    /// Runs once each time this instance becomes the leader, before its first tick: work the
    /// previous leader may have left undone (or that fell due while no instance ran).
    async fn take_over(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Whether this instance leads now.
#[derive(Debug, Default)]
pub struct LeaderStatus {
    leading: AtomicBool,
}

impl LeaderStatus {
    /// Whether this instance holds the lease now.
    pub fn is_leader(&self) -> bool {
        self.leading.load(Ordering::SeqCst)
    }

    fn set(&self, leading: bool) {
        if self.leading.swap(leading, Ordering::SeqCst) != leading {
            tracing::info!(leading, "leadership changed");
        }
    }
}

/// Competes for the lease until the process stops, running `jobs` while it holds it.
pub async fn run_until_stopped(
    store: Arc<dyn EventStore>,
    jobs: Vec<Arc<dyn LeaderJob>>,
    leadership: Arc<LeaderStatus>,
) {
    loop {
        match store.lead(LEASE).await {
            Ok(Some(mut lease)) => {
                leadership.set(true);
                for job in &jobs {
                    let span = tracing::debug_span!("leader_take_over", job = job.name());
                    if let Err(error) = job.take_over().instrument(span).await {
                        tracing::warn!(job = job.name(), %error, "a leader job could not take over");
                    }
                }
                while lease.still_leading().await {
                    for job in &jobs {
                        let span = tracing::debug_span!("leader_tick", job = job.name());
                        if let Err(error) = job.tick().instrument(span).await {
                            tracing::warn!(job = job.name(), %error, "a leader job failed");
                        }
                    }
                    tokio::time::sleep(TICK).await;
                }
                leadership.set(false);
            }
            Ok(None) => leadership.set(false),
            Err(error) => {
                leadership.set(false);
                tracing::warn!(%error, "cannot ask the store for the leader's lease");
            }
        }
        tokio::time::sleep(RETRY).await;
    }
}

//! The workers that run inside the binary next to the HTTP server, all fed by the bus.
//!
//! - [`crate::bus::Bus`] follows the store's feed and hands every commit to subscribers;
//! - the service wakes the long-polls and streams waiting on a game ([`Parlour::follow`]);
//! - [`outbox`] does the durable work written in the same transaction as the events, at least
//!   once, after the commit: the webhooks' fan-out, [`bots`], the bots' moves, and
//!   [`matches`], the next deal of a match;
//! - [`leader`] runs the work that must happen once across all instances on the one instance
//!   that holds the store's lease for it, such as [`clocks`], the move clocks' sweeper.
//!
//! Each runs until the process stops (zero2prod's `run_until_stopped` shape), and none can stop
//! the HTTP server: a worker that cannot reach the store waits and tries again.

pub mod bots;
pub mod clocks;
pub mod housekeeping;
pub mod leader;
pub mod matches;
pub mod outbox;
pub mod webhooks;

use std::sync::Arc;

use crate::bus::{self, Bus, BusSettings};
use crate::service::Parlour;
use crate::store::EventStore;

pub use leader::{LeaderJob, LeaderStatus};
pub use outbox::{OutboxHandler, OutboxSettings};

/// Everything the workers of one instance need.
pub struct Workers {
    /// The bus they are fed from.
    pub bus: Arc<Bus>,
    /// How the bus follows the feed.
    pub bus_settings: BusSettings,
    /// Who does each topic's durable work.
    pub outbox: Vec<Arc<dyn OutboxHandler>>,
    /// How the outbox is worked.
    pub outbox_settings: OutboxSettings,
    /// The work only one instance does at a time.
    pub leader_jobs: Vec<Arc<dyn LeaderJob>>,
    /// Whether this instance leads now (shown by `/readyz`, read by tests).
    pub leadership: Arc<LeaderStatus>,
}

impl Workers {
    /// Runs every worker until the process stops.
    pub async fn run_until_stopped(self, service: Arc<Parlour>, store: Arc<dyn EventStore>) {
        // Each worker stops with this future: when the server stops, or the whole thing is
        // dropped (a test stopping an instance), its leader's lease goes with it.
        let signal = service.commit_signal();
        let _wakeups = Running(tokio::spawn(service.clone().follow(self.bus.subscribe())));
        // A waiter that arrived before the bus found the feed's end may have missed a commit
        // made in between (the bus hands out only what comes after its start): once the bus
        // has started, every waiter looks again.
        let mut started = self.bus.reached();
        let _started = Running(tokio::spawn({
            let service = service.clone();
            async move {
                if started.changed().await.is_ok() {
                    service.wake_all();
                }
            }
        }));
        // Streams and long-polls whose account token is revoked end, wherever it was revoked.
        let _revocations = Running(tokio::spawn(
            service
                .revocations()
                .watch_until_stopped(store.clone(), crate::service::REVOCATION_CHECK),
        ));
        let _outbox = Running(tokio::spawn(outbox::run_until_stopped(
            store.clone(),
            self.bus.subscribe(),
            self.outbox,
            self.outbox_settings,
        )));
        let _announcer = Running(tokio::spawn(bus::announce_until_stopped(
            signal.clone(),
            store.clone(),
            self.bus_settings,
        )));
        let _leader = Running(tokio::spawn(leader::run_until_stopped(
            store.clone(),
            self.leader_jobs,
            self.leadership,
        )));
        self.bus
            .run_until_stopped(store, signal, self.bus_settings)
            .await;
    }
}

/// A spawned worker, stopped when this is dropped.
struct Running(tokio::task::JoinHandle<()>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.abort();
    }
}

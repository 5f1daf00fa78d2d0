//! The post-commit bus: the one place where work that follows a commit learns of it.
//!
//! Nothing that follows a commit is called from the use case that committed. Instead one
//! follower per instance reads the store's feed — every entry of every game, by its store-wide
//! position, never skipping one that committed late — and hands each commit to whoever
//! subscribed: the waiting long-polls and streams of this instance, the outbox worker, and the
//! projections and workers still to come (the inbox, webhooks, bots, clocks). Because the feed
//! is the log itself, an instance learns of moves made through any other instance exactly as it
//! learns of its own.
//!
//! The follower looks at the feed as soon as this process has committed ([`CommitSignal`]), when
//! another instance announces a commit (Postgres `LISTEN parlour_events`), and otherwise every
//! [`BusSettings::poll`] (or [`BusSettings::fallback`] where announcements arrive), so a lost
//! announcement delays work, never loses it. [`announce_until_stopped`] sends this process's
//! announcements: after its commits, never inside them, and at most one per
//! [`BusSettings::min_gap`].

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, watch, Notify};

use crate::store::{Committed, EventStore, FeedCursor};

/// How many commits wait for a slow subscriber before it is told it lagged.
const CAPACITY: usize = 4096;
/// How many entries one look at the feed reads.
const BATCH: u64 = 1000;
/// The longest wait between looks while commits are held back behind a transaction in flight.
const HELD_BACK_MAX: Duration = Duration::from_millis(500);

/// How often the follower looks at the feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BusSettings {
    /// The time between two looks on a store that announces no commits (SQLite): how
    /// quickly an instance learns of a commit there.
    pub poll: Duration,
    /// The longest time between two looks on a store that announces commits (Postgres): only
    /// a fallback, should an announcement be lost.
    pub fallback: Duration,
    /// The shortest time between two looks: under load, one look then reads every commit of
    /// the last few milliseconds instead of one look per commit.
    pub min_gap: Duration,
    /// How long to wait before looking again after the store failed to answer.
    pub retry: Duration,
}

impl Default for BusSettings {
    fn default() -> Self {
        BusSettings {
            poll: Duration::from_millis(20),
            fallback: Duration::from_secs(1),
            min_gap: Duration::from_millis(5),
            retry: Duration::from_secs(1),
        }
    }
}

/// This process's word that it has just committed: the follower looks at the feed at once
/// instead of at its next poll, and the other instances are told. Only a hint: followers
/// still read the feed for what was committed, so a lost signal delays, never loses.
#[derive(Debug, Default)]
pub struct CommitSignal {
    follower: Notify,
    announcer: Notify,
}

impl CommitSignal {
    /// Something was committed here. Cheap and never blocks: signals given while nobody is
    /// waiting collapse into one.
    pub fn committed(&self) {
        self.follower.notify_one();
        self.announcer.notify_one();
    }
}

/// Tells other instances of this process's commits ([`FeedStore::announce`]) until the
/// process stops: once after the first commit of a quiet spell, then at most once per
/// `settings.min_gap` however many commits there were meanwhile.
///
/// [`FeedStore::announce`]: crate::store::FeedStore::announce
pub async fn announce_until_stopped(
    signal: Arc<CommitSignal>,
    store: Arc<dyn EventStore>,
    settings: BusSettings,
) {
    loop {
        signal.announcer.notified().await;
        if let Err(error) = store.announce().await {
            // The other instances' fallback polls find the commit anyway.
            tracing::warn!(%error, "a commit could not be announced to other instances");
        }
        tokio::time::sleep(settings.min_gap).await;
    }
}

/// One instance's view of the feed, and the subscribers it serves.
pub struct Bus {
    commits: broadcast::Sender<Committed>,
    /// The feed entry up to which every commit has been handed out.
    reached: watch::Sender<FeedCursor>,
}

impl Default for Bus {
    fn default() -> Self {
        Bus::new()
    }
}

impl Bus {
    /// A bus with no subscribers that has handed out nothing yet.
    pub fn new() -> Self {
        Bus {
            commits: broadcast::channel(CAPACITY).0,
            reached: watch::channel(FeedCursor::START).0,
        }
    }

    /// Every commit from now on, in feed order. A subscriber that falls more than a few
    /// thousand commits behind receives `Lagged` and must treat every game as changed.
    pub fn subscribe(&self) -> broadcast::Receiver<Committed> {
        self.commits.subscribe()
    }

    /// The feed entry up to which every commit has been handed out ([`FeedCursor::START`]
    /// until the follower has started; it changes once the follower has found the feed's end).
    pub fn reached(&self) -> watch::Receiver<FeedCursor> {
        self.reached.subscribe()
    }

    /// Follows the store's feed from its current end, handing every commit to the
    /// subscribers, until the process stops.
    pub async fn run_until_stopped(
        self: Arc<Self>,
        store: Arc<dyn EventStore>,
        signal: Arc<CommitSignal>,
        settings: BusSettings,
    ) {
        let mut after = loop {
            match store.latest_position().await {
                Ok(position) => break position,
                Err(error) => {
                    tracing::warn!(%error, "the bus cannot find the feed's end yet");
                    tokio::time::sleep(settings.retry).await;
                }
            }
        };
        self.reached.send_replace(after);
        let mut listener = match store.listen().await {
            Ok(listener) => listener,
            Err(error) => {
                tracing::warn!(%error, "the bus cannot listen for commits; it polls instead");
                None
            }
        };
        // How long the last look that found commits held back waited (zero: none was).
        let mut held_back = Duration::ZERO;
        loop {
            if let Some(listener) = listener.as_mut() {
                // Every announcement so far is answered by the look that follows; one that
                // comes after it stays queued and brings about the next look.
                while listener.next_buffered().is_some() {}
            }
            let mut interval = if listener.is_some() {
                settings.fallback
            } else {
                settings.poll
            };
            // Asked before the feed is read, not after: if nothing is held back now, the read
            // that follows sees every commit made so far. Asked after, a transaction ending
            // between the two questions would leave its commits unread until the next wake-up.
            let held = match store.held_back().await {
                Ok(held) => held,
                Err(error) => {
                    tracing::warn!(%error, "the bus cannot tell whether commits are held back");
                    // Look again soon rather than risk leaving a commit unheard.
                    true
                }
            };
            match store.committed_since(after, BATCH).await {
                Ok(batch) => {
                    let full = batch.len() as u64 == BATCH;
                    // What the bus hands on, in the logs at `debug` (`docs/operations.md`):
                    // one span a look that found entries, one line an entry.
                    let _look = (!batch.is_empty())
                        .then(|| tracing::debug_span!("bus", entries = batch.len()).entered());
                    for commit in batch {
                        tracing::debug!(game = %commit.game, seq = commit.seq, kind = %commit.kind, "handed on");
                        // The feed's cursor is the last entry read, not the largest position
                        // seen: on Postgres positions along the feed need not rise.
                        after = commit.cursor();
                        // No subscriber is not an error: nothing needs this commit here.
                        let _ = self.commits.send(commit);
                    }
                    self.reached.send_replace(after);
                    if full {
                        continue;
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "the bus cannot read the feed");
                    tokio::time::sleep(settings.retry).await;
                    continue;
                }
            }
            // Commits held back behind a transaction in flight are given by a look soon after
            // it ends, not at the next wake-up: the commit that woke this look may be among
            // them. Each look that finds them still held back waits twice as long, up to the
            // usual interval and never more than HELD_BACK_MAX: a transaction held open for
            // minutes elsewhere on the server must not leave this instance's own commit
            // unheard for as long.
            if held {
                held_back = (held_back * 2)
                    .max(settings.min_gap)
                    .min(interval)
                    .min(HELD_BACK_MAX);
                interval = held_back;
            } else {
                held_back = Duration::ZERO;
            }
            tokio::time::sleep(settings.min_gap).await;
            // A commit of this process, another's announcement, or the poll interval
            // (the fallback where announcements arrive; sooner while commits are held
            // back), whichever comes first.
            let announced = async {
                match listener.as_mut() {
                    Some(listener) => listener.recv().await.map(|_| ()),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = signal.follower.notified() => {}
                received = announced => {
                    if let Err(error) = received {
                        // The listener reconnects on its next call; until then, poll.
                        tracing::warn!(%error, "the bus lost its notification connection");
                        tokio::time::sleep(settings.poll).await;
                    }
                }
                () = tokio::time::sleep(interval) => {}
            }
        }
    }
}

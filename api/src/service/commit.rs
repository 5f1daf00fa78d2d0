//! Group commit: concurrent moves of different games share one transaction.
//!
//! A move's cost on the database is mostly its transaction (a statement, a commit, a flush of
//! the write-ahead log), not its rows. So every append waits in one queue, and a few writers
//! take whatever is waiting, at most one append per game, and write it as one group
//! ([`crate::store::LogStore::append_group`]): on Postgres one statement for the whole group,
//! on SQLite one transaction. Each mover is answered only once its group has committed, with
//! its own answer: an append that collides (another instance moved that game first) fails
//! alone, and the rest of its group is committed all the same.
//!
//! Nothing waits on purpose: a writer that finds the queue empty stops, and the next append
//! starts one. At one move at a time every group is one append, so a lone move costs what it
//! did without groups; under load the queue fills while the writers are busy, and the groups
//! grow with it. A group is written by a task of its own, so a request abandoned by its client
//! does not abandon the other moves of its group.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;
use uuid::Uuid;

use crate::store::{Append, LogStore, StoreError};

/// How the queue is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupCommitSettings {
    /// How many groups may be in flight at once (`PARLOUR_COMMIT_WRITERS`): more keeps a
    /// database with many cores busy; fewer makes larger groups. `None`: the store's own
    /// figure ([`crate::store::LogStore::parallel_writers`]: 2 on Postgres, one group written
    /// while the next fills; 1 on SQLite, whose one writer takes them in turn anyway).
    pub writers: Option<usize>,
    /// The most appends in one group (`PARLOUR_COMMIT_GROUP`); 1 commits each on its own.
    pub max_group: usize,
}

impl Default for GroupCommitSettings {
    fn default() -> Self {
        GroupCommitSettings {
            writers: None,
            max_group: 64,
        }
    }
}

/// An append waiting for its group, and where its answer goes.
struct Waiting {
    append: Append,
    answer: oneshot::Sender<Result<(), StoreError>>,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<Waiting>,
    /// Writers running now.
    writers: usize,
}

/// The commit pipeline every append of the service goes through.
pub struct GroupCommit {
    store: Arc<dyn LogStore>,
    /// How many groups may be in flight at once.
    writers: usize,
    /// The most appends in one group.
    max_group: usize,
    queue: Mutex<Queue>,
    /// Groups written, and appends in them, since the start (`/metrics`).
    groups: std::sync::atomic::AtomicU64,
    grouped: std::sync::atomic::AtomicU64,
}

impl GroupCommit {
    /// A pipeline writing to `store`.
    pub fn new(store: Arc<dyn LogStore>, settings: GroupCommitSettings) -> Arc<GroupCommit> {
        let writers = settings
            .writers
            .unwrap_or_else(|| store.parallel_writers())
            .max(1);
        Arc::new(GroupCommit {
            store,
            writers,
            max_group: settings.max_group.max(1),
            queue: Mutex::new(Queue::default()),
            groups: std::sync::atomic::AtomicU64::new(0),
            grouped: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// Appends `append` with whatever else is waiting, and answers once its group committed:
    /// as [`crate::store::LogStore::append_with_outbox`] would have for it alone.
    pub async fn append(self: &Arc<Self>, append: Append) -> Result<(), StoreError> {
        let (answer, answered) = oneshot::channel();
        let start = {
            let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            queue.waiting.push(Waiting { append, answer });
            let start = queue.writers < self.writers;
            if start {
                queue.writers += 1;
            }
            start
        };
        if start {
            tokio::spawn(self.clone().write_until_empty());
        }
        answered.await.unwrap_or_else(|_| {
            // The writer stopped without answering (a panic): the group may have committed.
            Err(StoreError::Unavailable {
                reason: "the commit's writer stopped before answering".into(),
                maybe_written: true,
            })
        })
    }

    /// `(groups, appends)` written since the start.
    pub fn counts(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.groups.load(Relaxed), self.grouped.load(Relaxed))
    }

    /// Writes groups until nothing waits.
    async fn write_until_empty(self: Arc<Self>) {
        let _running = Running(self.clone());
        while let Some(group) = self.next_group() {
            self.write(group).await;
        }
    }

    /// The next group: the oldest appends waiting, at most one per game (a second move of a
    /// game waits for the next group, which then sees the first's head) and at most
    /// `max_group`. `None` (and this writer stops) when nothing waits.
    fn next_group(&self) -> Option<Vec<Waiting>> {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        if queue.waiting.is_empty() {
            queue.writers -= 1;
            return None;
        }
        let mut games: HashSet<Uuid> = HashSet::new();
        let mut group = Vec::new();
        let mut later = Vec::new();
        for waiting in queue.waiting.drain(..) {
            if group.len() < self.max_group && games.insert(waiting.append.id) {
                group.push(waiting);
            } else {
                later.push(waiting);
            }
        }
        queue.waiting = later;
        Some(group)
    }

    async fn write(&self, group: Vec<Waiting>) {
        let (appends, answers): (Vec<Append>, Vec<_>) =
            group.into_iter().map(|w| (w.append, w.answer)).unzip();
        {
            use std::sync::atomic::Ordering::Relaxed;
            self.groups.fetch_add(1, Relaxed);
            self.grouped.fetch_add(appends.len() as u64, Relaxed);
        }
        match self.store.append_group(&appends).await {
            Ok(each) => {
                for (answer, result) in answers.into_iter().zip(each) {
                    // A mover that went away is not waiting for its answer.
                    let _ = answer.send(result);
                }
            }
            Err(error) => {
                for answer in answers {
                    let _ = answer.send(Err(shared(&error)));
                }
            }
        }
    }
}

/// One group's failure, told to each of its movers. Outages and conflicts keep their kind;
/// any other database error (which the store's deadline has already told from an outage)
/// keeps its words.
fn shared(error: &StoreError) -> StoreError {
    match error {
        StoreError::Conflict => StoreError::Conflict,
        StoreError::Corrupt(what) => StoreError::Corrupt(what.clone()),
        StoreError::Unavailable {
            reason,
            maybe_written,
        } => StoreError::Unavailable {
            reason: reason.clone(),
            maybe_written: *maybe_written,
        },
        StoreError::Database(db) => StoreError::Database(sqlx::Error::Protocol(format!(
            "a group commit failed: {db}"
        ))),
    }
}

/// A writer counted as running until it stops. One that stops by a panic hands what is still
/// waiting to a new writer, so no queued move waits for ever.
struct Running(Arc<GroupCommit>);

impl Drop for Running {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        let restart = {
            let mut queue = self.0.queue.lock().unwrap_or_else(|e| e.into_inner());
            if queue.waiting.is_empty() {
                queue.writers = queue.writers.saturating_sub(1);
                false
            } else {
                true
            }
        };
        if restart {
            tokio::spawn(self.0.clone().write_until_empty());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{IdempotentMove, StoredEvent};
    use async_trait::async_trait;
    use tokio::sync::Semaphore;

    /// A log that writes nothing: it remembers the games of each group it is given, holds
    /// each group until the test lets one through, and refuses the games it was told to.
    struct Gate {
        groups: Mutex<Vec<Vec<Uuid>>>,
        open: Semaphore,
        colliding: HashSet<Uuid>,
        writers: usize,
    }

    impl Gate {
        fn new(writers: usize, colliding: &[Uuid]) -> Arc<Gate> {
            Arc::new(Gate {
                groups: Mutex::new(Vec::new()),
                open: Semaphore::new(0),
                colliding: colliding.iter().copied().collect(),
                writers,
            })
        }

        fn groups(&self) -> Vec<Vec<Uuid>> {
            self.groups.lock().unwrap().clone()
        }

        /// Waits until `n` groups have reached the log (each then waits at the gate).
        async fn until_groups(&self, n: usize) {
            while self.groups.lock().unwrap().len() < n {
                tokio::task::yield_now().await;
            }
        }
    }

    #[async_trait]
    impl LogStore for Gate {
        async fn events(
            &self,
            _: Uuid,
            _: u64,
            _: Option<u64>,
        ) -> Result<Vec<StoredEvent>, StoreError> {
            Ok(Vec::new())
        }
        async fn append_with_outbox(
            &self,
            _: Uuid,
            _: &[StoredEvent],
            _: Option<&IdempotentMove>,
            _: &[crate::store::OutboxMessage],
        ) -> Result<(), StoreError> {
            unreachable!("the pipeline writes groups")
        }
        async fn append_group(
            &self,
            appends: &[Append],
        ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
            self.groups
                .lock()
                .unwrap()
                .push(appends.iter().map(|a| a.id).collect());
            self.open.acquire().await.unwrap().forget();
            Ok(appends
                .iter()
                .map(|a| {
                    if self.colliding.contains(&a.id) {
                        Err(StoreError::Conflict)
                    } else {
                        Ok(())
                    }
                })
                .collect())
        }
        fn parallel_writers(&self) -> usize {
            self.writers
        }
        async fn head(&self, _: Uuid) -> Result<Option<(u64, String)>, StoreError> {
            Ok(None)
        }
        async fn idempotent_move(
            &self,
            _: Uuid,
            _: u8,
            _: &str,
        ) -> Result<Option<IdempotentMove>, StoreError> {
            Ok(None)
        }
        async fn forget_idempotent_move(
            &self,
            _: Uuid,
            _: u8,
            _: &str,
            _: chrono::DateTime<chrono::Utc>,
        ) -> Result<(), StoreError> {
            Ok(())
        }
    }

    fn append(id: Uuid) -> Append {
        Append {
            id,
            events: Vec::new(),
            idempotent: None,
            outbox: Vec::new(),
        }
    }

    /// Sends an append through the pipeline on a task of its own.
    fn send(
        pipeline: &Arc<GroupCommit>,
        id: Uuid,
    ) -> tokio::task::JoinHandle<Result<(), StoreError>> {
        let pipeline = pipeline.clone();
        tokio::spawn(async move { pipeline.append(append(id)).await })
    }

    fn waiting(pipeline: &GroupCommit) -> usize {
        pipeline.queue.lock().unwrap().waiting.len()
    }

    /// Sends appends one after another, each once the one before is in the queue, so that
    /// the queue holds them in this order.
    async fn queue(
        pipeline: &Arc<GroupCommit>,
        ids: &[Uuid],
    ) -> Vec<tokio::task::JoinHandle<Result<(), StoreError>>> {
        let mut sent = Vec::new();
        for &id in ids {
            let before = waiting(pipeline);
            sent.push(send(pipeline, id));
            while waiting(pipeline) == before {
                tokio::task::yield_now().await;
            }
        }
        sent
    }

    #[tokio::test]
    async fn moves_that_arrive_while_a_commit_is_written_share_the_next_one() {
        let [a, b, c, d] = [(); 4].map(|_| Uuid::new_v4());
        let gate = Gate::new(1, &[c]);
        let pipeline = GroupCommit::new(gate.clone(), GroupCommitSettings::default());

        let first = send(&pipeline, a);
        gate.until_groups(1).await;
        let later = queue(&pipeline, &[b, c, d]).await;
        gate.open.add_permits(2);

        assert!(first.await.unwrap().is_ok());
        let answers: Vec<_> = futures_util::future::join_all(later)
            .await
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(gate.groups(), vec![vec![a], vec![b, c, d]]);
        assert!(answers[0].is_ok() && answers[2].is_ok(), "{answers:?}");
        assert!(
            matches!(answers[1], Err(StoreError::Conflict)),
            "the collision is its own: {answers:?}"
        );
        assert_eq!(pipeline.counts(), (2, 4));
    }

    #[tokio::test]
    async fn a_group_holds_one_move_per_game_and_no_more_than_its_limit() {
        let [a, b, c] = [(); 3].map(|_| Uuid::new_v4());
        let gate = Gate::new(1, &[]);
        let settings = GroupCommitSettings {
            writers: None,
            max_group: 2,
        };
        let pipeline = GroupCommit::new(gate.clone(), settings);

        let first = send(&pipeline, a);
        gate.until_groups(1).await;
        let later = queue(&pipeline, &[b, b, c, a]).await;
        gate.open.add_permits(4);
        first.await.unwrap().unwrap();
        for answer in futures_util::future::join_all(later).await {
            answer.unwrap().unwrap();
        }
        let groups = gate.groups();
        assert_eq!(groups[0], vec![a]);
        assert_eq!(
            groups[1],
            vec![b, c],
            "the second move of b waits; the limit is two"
        );
        assert_eq!(groups[2], vec![b, a]);
        assert_eq!(groups.len(), 3);
    }

    #[tokio::test]
    async fn a_lone_move_is_written_at_once_and_a_second_writer_does_not_wait_for_the_first() {
        let [a, b] = [(); 2].map(|_| Uuid::new_v4());
        let gate = Gate::new(2, &[]);
        let pipeline = GroupCommit::new(gate.clone(), GroupCommitSettings::default());

        let first = send(&pipeline, a);
        gate.until_groups(1).await;
        let second = send(&pipeline, b);
        // The first group is still held at the gate: b is written by a writer of its own.
        gate.until_groups(2).await;
        assert_eq!(gate.groups(), vec![vec![a], vec![b]]);
        gate.open.add_permits(2);
        first.await.unwrap().unwrap();
        second.await.unwrap().unwrap();
        assert_eq!(
            pipeline.queue.lock().unwrap().writers,
            0,
            "writers stop when nothing waits"
        );
    }
}

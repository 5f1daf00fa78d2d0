//! Signed checkpoints of finished games (`docs/audit.md`, "Checkpoints"): the server's word
//! that a game ended at an event with a hash, kept in an append-only public list that anyone
//! can mirror, so that a finished game rolled back in the database is caught by whoever saw
//! its checkpoint once.

use uuid::Uuid;

use super::{Clock, Fault, Result, ServiceError};
use crate::dto::{CheckpointPage, ListedCheckpoint};
use crate::receipts::{Checkpoint, Signer};
use crate::store::{CheckpointRecord, CheckpointStore, StoredEvent};

/// Most checkpoints one page of the list holds.
pub const MAX_CHECKPOINTS_PER_PAGE: u32 = 1000;
/// A page's size when the caller names none.
pub const DEFAULT_CHECKPOINTS_PER_PAGE: u32 = 100;

/// The checkpoints capability: what it needs, and nothing else (wired in
/// `Parlour::checkpoints`).
pub struct Checkpoints<'a> {
    /// The public list.
    store: &'a dyn CheckpointStore,
    /// Signs each checkpoint as it is shown.
    signer: &'a Signer,
    /// When a checkpoint was published.
    clock: &'a dyn Clock,
}

impl<'a> Checkpoints<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        store: &'a dyn CheckpointStore,
        signer: &'a Signer,
        clock: &'a dyn Clock,
    ) -> Self {
        Checkpoints {
            store,
            signer,
            clock,
        }
    }

    /// After a commit that ended game `id` at `version` with `head`: the game's head goes on
    /// the public list at once. The move is committed whatever happens here; a checkpoint
    /// that could not be written is written when the game's file or audit is next asked for.
    pub(super) async fn publish_ended(&self, id: Uuid, version: u64, head: &str) {
        if let Err(error) = self
            .store
            .publish_checkpoint(id, version, head, self.clock.now())
            .await
        {
            tracing::warn!(game = %id, %error, "a finished game's checkpoint was not published");
        }
    }

    /// The finished game's signed checkpoint: the one the list holds, or, if the list does
    /// not hold the game yet (it ended before the list existed, or its publication failed),
    /// the end of `events`, published now. Asked only of a game that is over.
    pub(super) async fn of_finished(&self, id: Uuid, events: &[StoredEvent]) -> Result<Checkpoint> {
        let listed = match self.store.checkpoint_of(id).await? {
            Some(listed) => listed,
            None => {
                let last = events
                    .last()
                    .ok_or_else(|| Fault::bare("a finished game has no log"))?;
                self.store
                    .publish_checkpoint(id, last.seq, &last.hash, self.clock.now())
                    .await?
            }
        };
        Ok(self.signed(&listed))
    }

    /// One page of the public list of finished games' heads, each signed: the ones after
    /// `after`, in the order they were published.
    pub async fn page(&self, after: u64, limit: Option<u32>) -> Result<CheckpointPage> {
        let limit = limit.unwrap_or(DEFAULT_CHECKPOINTS_PER_PAGE);
        if !(1..=MAX_CHECKPOINTS_PER_PAGE).contains(&limit) {
            return Err(ServiceError::BadRequest(format!(
                "limit must be from 1 to {MAX_CHECKPOINTS_PER_PAGE}"
            )));
        }
        // Positions are stored as SQL BIGINT: anything past its largest names no checkpoint,
        // and is the client's mistake, not the store's.
        if i64::try_from(after).is_err() {
            return Err(ServiceError::BadRequest(format!(
                "after must be from 0 to {}, not {after}",
                i64::MAX
            )));
        }
        let rows = self.store.checkpoints_after(after, limit).await?;
        // A full page may have more after it; the next page says so by being empty.
        let next_after = (rows.len() == limit as usize)
            .then(|| rows.last().map(|r| r.position))
            .flatten();
        Ok(CheckpointPage {
            checkpoints: rows
                .iter()
                .map(|row| ListedCheckpoint {
                    position: row.position,
                    checkpoint: self.signed(row),
                })
                .collect(),
            next: next_after.map(|position| position.to_string()),
            next_after,
        })
    }

    fn signed(&self, row: &CheckpointRecord) -> Checkpoint {
        self.signer.sign_checkpoint(row.game, row.seq, &row.hash)
    }
}

/// What is wrong with `events` as the log of a game the list says ended at `listed`, if
/// anything: the audit's `checkpoint` failure.
pub(super) fn disagreement(listed: &CheckpointRecord, events: &[StoredEvent]) -> Option<String> {
    let length = events.len() as u64;
    let at = usize::try_from(listed.seq)
        .ok()
        .and_then(|seq| seq.checked_sub(1))
        .and_then(|i| events.get(i));
    match at {
        None => Some(format!(
            "the game was published as ended at event {}, but the log ends at event {length}: a finished game was rolled back",
            listed.seq
        )),
        Some(event) if event.hash != listed.hash => Some(format!(
            "the log's event {} is not the one published as the game's end: the log was rewritten",
            listed.seq
        )),
        Some(_) if length > listed.seq => Some(format!(
            "the log goes on to event {length} past event {}, where the game was published as ended",
            listed.seq
        )),
        Some(_) => None,
    }
}

//! The one commit path. Every writer of a game's log goes through [`Parlour::commit`]: a
//! move (a person's or a bot's, `act`), a clock's reminder or timeout (`clocks`), a table
//! event such as a claim, a resignation or a match's offer (`table`). The rules of writing
//! are kept here, once:
//!
//! - the game's lock is held from the decision to the answer, so one instance decides one
//!   game's entries one batch at a time;
//! - a writer decides from the table as it stands (the cache, or the log's head when it asks
//!   for it); what it decided is chained onto the head and appended with its durable work in
//!   one transaction (`append_batch`);
//! - a race lost to another instance, or a writer that asks to look again, catches up with
//!   the log's head and decides again, at most [`APPEND_ATTEMPTS`] times, then `Conflict`;
//! - a move sent with an `Idempotency-Key` already recorded (and not expired) is answered as
//!   it was the first time, never decided again; the key is written in the batch's transaction;
//! - no log grows past `--max-events`;
//! - a write whose outcome is unknown (the database stopped answering after it was sent)
//!   forgets the cached game, so that the next request reads the truth from the log;
//! - once the entries are in, the cached game is brought forward, the clocks' next look is
//!   noted and a finished game's checkpoint published, all before the lock is let go.

use super::*;

/// How many times a move is re-decided after losing a race to another writer.
const APPEND_ATTEMPTS: usize = 3;

/// How an append went, when it did not fail outright.
enum Appended {
    /// The batch is in the log.
    Recorded,
    /// Another writer took the position first; nothing was written.
    LostRace,
}

/// What a writer decided from the game as it stands.
pub(super) enum Step<T, Then> {
    /// Append these entries; once they are in, `then` brings the cached game forward.
    Append(Batch<Then>),
    /// Nothing to write: answer with this at once.
    Answer(T),
    /// Nothing to write, but note again when the clocks next need a look, then answer: the
    /// sweeper's answer when the note that sent it finds nothing due (a note left as it was
    /// would send the sweeper back at every tick).
    Renote(T),
    /// The table as cached cannot judge this: catch up with the log's head and decide again.
    AtHead,
}

/// Entries to append, and what follows once they are in.
pub(super) struct Batch<Then> {
    /// The entries, sealed and chained onto the game's head.
    pub(super) events: Vec<StoredEvent>,
    /// The move's idempotency key, recorded in the same transaction.
    pub(super) key: Option<IdempotentMove>,
    /// An account the entries place in the game, noted for its inbox just before they are
    /// appended (a note without its entry, after a crash between the two, lists a game the
    /// account is not in yet, which the inbox shows no seat of; the other way round would
    /// lose the game from the inbox).
    pub(super) link: Option<Uuid>,
    /// Brings the cached game where the entries leave it (the version, head and last entry
    /// are already moved on) and makes the writer's answer.
    pub(super) then: Then,
}

/// A move's `Idempotency-Key`, as the commit path checks it before the move is decided.
pub(super) struct Keyed<'a> {
    /// The seat that sent it.
    pub(super) seat: u8,
    /// The key.
    pub(super) key: &'a str,
    /// SHA-256 of the move's canonical body.
    pub(super) fingerprint: &'a str,
}

/// What a commit answered.
pub(super) enum Committed<T> {
    /// What the writer answered (whether or not it wrote).
    Done(T),
    /// The same keyed move was recorded before, at this version: answer as then.
    Replayed(u64),
}

impl Parlour {
    /// Decides with `decide` on game `id` as it stands (first at `freshness`), appends what
    /// it decided and answers with what its batch's `then` makes, under the rules above.
    pub(super) async fn commit<T, Then>(
        &self,
        id: Uuid,
        freshness: Freshness,
        decide: impl FnMut(&mut Loaded, Freshness) -> Result<Step<T, Then>>,
    ) -> Result<T>
    where
        Then: FnOnce(&mut Loaded) -> T,
    {
        match self.commit_keyed(id, freshness, None, decide).await? {
            Committed::Done(answer) => Ok(answer),
            // Only a key finds an earlier answer, and none was given.
            Committed::Replayed(_) => {
                Err(Fault::bare("a commit without a key was replayed").into())
            }
        }
    }

    /// [`Parlour::commit`] for a move sent with a key (`keyed`): if the same move was recorded
    /// under it before, and the key has not expired, it is not decided again, and its first
    /// version is answered (`Committed::Replayed`) whatever happened at the table since.
    #[tracing::instrument(name = "commit", level = "debug", skip_all, fields(game = %id))]
    pub(super) async fn commit_keyed<T, Then>(
        &self,
        id: Uuid,
        mut freshness: Freshness,
        keyed: Option<Keyed<'_>>,
        mut decide: impl FnMut(&mut Loaded, Freshness) -> Result<Step<T, Then>>,
    ) -> Result<Committed<T>>
    where
        Then: FnOnce(&mut Loaded) -> T,
    {
        let slot = self.slot(id);
        for _ in 0..APPEND_ATTEMPTS {
            let mut guard = slot.game.lock().await;
            let loaded = self.ensure_loaded(id, &slot, &mut guard, freshness).await?;
            // Checked again at every attempt: a move that lost a race may have lost it to its
            // own retry on another instance.
            if let Some(keyed) = &keyed {
                if let Some(version) = self.first_answer(id, keyed).await? {
                    return Ok(Committed::Replayed(version));
                }
            }
            let batch = match decide(loaded, freshness)? {
                Step::Append(batch) => batch,
                Step::Answer(answer) => return Ok(Committed::Done(answer)),
                Step::Renote(answer) => {
                    self.attend(loaded).await;
                    return Ok(Committed::Done(answer));
                }
                Step::AtHead => {
                    freshness = Freshness::AtHead;
                    continue;
                }
            };
            let version = loaded.version + batch.events.len() as u64;
            if version > self.max_events {
                return Err(ServiceError::LogFull {
                    limit: self.max_events,
                });
            }
            if let Some(account) = batch.link {
                self.store
                    .link_account_game(account, id, self.clock.now())
                    .await?;
            }
            match self
                .append_batch(loaded, &batch.events, batch.key.as_ref())
                .await
            {
                Ok(Appended::Recorded) => {
                    loaded.version = version;
                    loaded.head_hash = batch
                        .events
                        .last()
                        .map(|e| e.hash.clone())
                        .unwrap_or_default();
                    loaded.last = LastEntry::of(&batch.events).or(loaded.last.take());
                    let answer = (batch.then)(loaded);
                    self.attend(loaded).await;
                    if loaded.sitting.is_over() {
                        self.checkpoints()
                            .publish_ended(id, loaded.version, &loaded.head_hash)
                            .await;
                        self.note_finished(id).await;
                    }
                    return Ok(Committed::Done(answer));
                }
                Ok(Appended::LostRace) => {
                    // Someone else wrote first: the log is the truth, so catch up with it.
                    tracing::info!(game = %id, "append lost a race; catching up with the log");
                    freshness = Freshness::AtHead;
                }
                Err(unknown @ ServiceError::OutcomeUnknown { .. }) => {
                    // The entries may be in the log although we could not hear so.
                    *guard = None;
                    return Err(unknown);
                }
                Err(other) => return Err(other),
            }
        }
        Err(ServiceError::Conflict)
    }

    /// The version a keyed move was first recorded at, if it was and its key has not
    /// expired; a different move under the same key is refused. An expired key is forgotten,
    /// and the move judged afresh like any other (an old move sent again is then refused by
    /// the rules or the version).
    async fn first_answer(&self, id: Uuid, keyed: &Keyed<'_>) -> Result<Option<u64>> {
        let Some(first) = self
            .store
            .idempotent_move(id, keyed.seat, keyed.key)
            .await?
        else {
            return Ok(None);
        };
        let cutoff = self.idempotency_cutoff();
        if first.created_at <= cutoff {
            self.store
                .forget_idempotent_move(id, keyed.seat, keyed.key, cutoff)
                .await?;
            return Ok(None);
        }
        if first.fingerprint != keyed.fingerprint {
            return Err(ServiceError::KeyReused);
        }
        Ok(Some(first.version))
    }

    /// The time before which a recorded idempotency key has expired.
    fn idempotency_cutoff(&self) -> chrono::DateTime<chrono::Utc> {
        let lifetime =
            chrono::Duration::from_std(self.idempotency_lifetime).unwrap_or(chrono::Duration::MAX);
        self.clock
            .now()
            .checked_sub_signed(lifetime)
            .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC)
    }

    /// Appends a batch decided from `loaded`, with the durable work that must follow it, in
    /// one transaction. A lost race is the caller's to retry; a write that may have committed
    /// unheard is `OutcomeUnknown`, and the caller must drop its cached table.
    #[tracing::instrument(name = "append", level = "debug", skip_all, fields(game = %loaded.record.id, entries = events.len()))]
    async fn append_batch(
        &self,
        loaded: &Loaded,
        events: &[StoredEvent],
        key: Option<&IdempotentMove>,
    ) -> Result<Appended> {
        let work: Vec<OutboxMessage> = self
            .after_commit
            .iter()
            .flat_map(|policy| policy.durable_work(&loaded.record, &loaded.sitting, events))
            .collect();
        let append = store::Append {
            id: loaded.record.id,
            events: events.to_vec(),
            idempotent: key.cloned(),
            outbox: work,
        };
        match self.committer.append(append).await {
            Ok(()) => {
                self.commits.committed();
                Ok(Appended::Recorded)
            }
            Err(StoreError::Conflict) => Ok(Appended::LostRace),
            Err(StoreError::Unavailable {
                reason,
                maybe_written: true,
            }) => Err(ServiceError::OutcomeUnknown {
                reason,
                keyed: key.is_some(),
            }),
            Err(other) => Err(other.into()),
        }
    }
}

//! The games held in memory, and how a cached table keeps up with the log.

use super::*;

/// A game held in memory: its table as of `version`, and where its hash chain stands.
pub(super) struct Loaded {
    pub(super) record: Arc<GameRecord>,
    pub(super) engine: &'static dyn Engine,
    pub(super) sitting: Sitting,
    pub(super) version: u64,
    pub(super) head_hash: String,
}

/// One game's place in memory. The mutex serialises this process's moves on the game; the
/// watch channel tells long-polling clients that the version moved.
pub(super) struct Slot {
    pub(super) game: tokio::sync::Mutex<Option<Loaded>>,
    pub(super) changes: watch::Sender<u64>,
}

/// Whether a cached table must first catch up with the end of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Freshness {
    /// Ask the store where the log ends, and apply whatever another instance appended.
    AtHead,
    /// Use the table as cached, caught up only with the commits the bus has already told of
    /// (a move: a table stale beyond that shows itself by colliding or refusing).
    Cached,
}

impl Parlour {
    pub(super) fn slot(&self, id: Uuid) -> Arc<Slot> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = slots.get(&id) {
            return slot.clone();
        }
        if slots.len() >= CACHED_GAMES {
            // UUIDv7 ids sort by creation time: forget the oldest games first. A forgotten
            // game is rebuilt from its log when next touched.
            if let Some(oldest) = slots.keys().min().copied() {
                slots.remove(&oldest);
            }
        }
        let slot = Arc::new(Slot {
            game: tokio::sync::Mutex::new(None),
            changes: watch::channel(0).0,
        });
        slots.insert(id, slot.clone());
        slot
    }

    /// The game's creation record, read from the store, and the engine it is played with.
    pub(super) async fn record_of(&self, id: Uuid) -> Result<(GameRecord, &'static dyn Engine)> {
        let record = self
            .store
            .game(id)
            .await?
            .ok_or(ServiceError::GameNotFound(id))?;
        let engine = engine_for(&record.game).map_err(corrupt)?;
        Ok((record, engine))
    }

    pub(super) async fn load(&self, id: Uuid) -> Result<Loaded> {
        let (record, engine) = self.record_of(id).await?;
        let mut sitting = open_sitting(engine, &record)?;
        let events = self.store.events(id, 0, None).await?;
        readable(&events)?;
        fold(&mut sitting, &events)?;
        let head_hash = match events.last() {
            Some(last) => last.hash.clone(),
            None => chain::genesis_hash(&record),
        };
        Ok(Loaded {
            record: Arc::new(record),
            engine,
            sitting,
            version: events.len() as u64,
            head_hash,
        })
    }

    /// Makes sure the slot holds the game, folding its log if it does not.
    pub(super) async fn ensure_loaded<'a>(
        &self,
        id: Uuid,
        slot: &Slot,
        guard: &'a mut Option<Loaded>,
        freshness: Freshness,
    ) -> Result<&'a mut Loaded> {
        match guard.take() {
            None => match self.load(id).await {
                Ok(loaded) => {
                    slot.changes.send_replace(loaded.version);
                    *guard = Some(loaded);
                }
                Err(error) => {
                    // Do not keep empty slots for ids that name no game.
                    self.forget(id);
                    return Err(error);
                }
            },
            Some(mut loaded) => {
                // The bus wakes the slot with the version each commit reached, through this
                // instance or another: a table known to be behind catches up before it is used,
                // which costs a move on a table another instance moved one read instead of a
                // collision, a refusal and a retry.
                let told_behind = *slot.changes.borrow() > loaded.version;
                if freshness == Freshness::AtHead || told_behind {
                    // While the store cannot be asked, the table stays as it was (it is right
                    // as of its version); only one that fails part-way through catching up is
                    // dropped, to be folded afresh from the log next time.
                    let missing = match self.appended_since(id, loaded.version).await {
                        Ok(missing) => missing,
                        Err(error) => {
                            *guard = Some(loaded);
                            return Err(error);
                        }
                    };
                    if !missing.is_empty() {
                        catch_up(&mut loaded, missing)?;
                        slot.changes.send_replace(loaded.version);
                    }
                }
                *guard = Some(loaded);
            }
        }
        guard.as_mut().ok_or(ServiceError::GameNotFound(id))
    }

    /// The events another instance appended after `version`: one look at the store's recorded
    /// head, and the missing events only when there are some.
    pub(super) async fn appended_since(&self, id: Uuid, version: u64) -> Result<Vec<StoredEvent>> {
        match self.store.head(id).await? {
            Some((head, _)) if head > version => {
                let missing = self.store.events(id, version, None).await?;
                readable(&missing)?;
                Ok(missing)
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Runs `f` on the game's in-memory table, loading it first if need be.
    pub(super) async fn with_game<T>(&self, id: Uuid, f: impl FnOnce(&Loaded) -> T) -> Result<T> {
        self.with_game_at(id, Freshness::AtHead, f).await
    }

    /// As [`Parlour::with_game`], with the table as fresh as `freshness` says.
    pub(super) async fn with_game_at<T>(
        &self,
        id: Uuid,
        freshness: Freshness,
        f: impl FnOnce(&Loaded) -> T,
    ) -> Result<T> {
        let slot = self.slot(id);
        let mut guard = slot.game.lock().await;
        let loaded = self.ensure_loaded(id, &slot, &mut guard, freshness).await?;
        Ok(f(loaded))
    }

    /// Tells whoever waits on the game that its log grew to `seq` (the bus calls this for
    /// every commit; a game nobody holds in memory has nobody waiting).
    pub fn wake(&self, id: Uuid, seq: u64) {
        let slot = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .cloned();
        if let Some(slot) = slot {
            slot.changes.send_replace(seq);
        }
    }

    /// Tells everyone waiting on any game to look again (after the bus lost track of commits).
    pub fn wake_all(&self) {
        let slots: Vec<Arc<Slot>> = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for slot in slots {
            slot.changes.send_modify(|_| {});
        }
    }

    /// Wakes waiters for every commit the bus hands out, until the bus stops.
    pub async fn follow(self: Arc<Self>, mut commits: tokio::sync::broadcast::Receiver<Committed>) {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match commits.recv().await {
                Ok(commit) => self.wake(commit.game, commit.seq),
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "fell behind the bus; waking every waiter");
                    self.wake_all();
                }
                Err(RecvError::Closed) => return,
            }
        }
    }

    pub(super) fn forget(&self, id: Uuid) {
        self.slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }
}

/// What this instance holds and has done, for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InstanceCounts {
    /// Moves recorded since the instance started.
    pub moves_recorded: u64,
    /// Games held in memory.
    pub games_cached: usize,
    /// Of those, games not over.
    pub games_active: usize,
    /// Store calls that failed.
    pub store_errors: store::StoreErrorCounts,
}

impl Parlour {
    /// Counts a move just recorded.
    pub(super) fn count_move(&self) {
        self.moves_recorded
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// What this instance holds and has done. A game whose slot is busy this very moment (a
    /// move or a read holds it) is counted as cached and active without waiting for it.
    pub fn counts(&self) -> InstanceCounts {
        let slots: Vec<Arc<Slot>> = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        let (mut cached, mut active) = (0, 0);
        for slot in slots {
            match slot.game.try_lock() {
                Ok(guard) => {
                    if let Some(loaded) = guard.as_ref() {
                        cached += 1;
                        active += usize::from(!loaded.sitting.is_over());
                    }
                }
                Err(_) => {
                    cached += 1;
                    active += 1;
                }
            }
        }
        InstanceCounts {
            moves_recorded: self
                .moves_recorded
                .load(std::sync::atomic::Ordering::Relaxed),
            games_cached: cached,
            games_active: active,
            store_errors: self.store.error_counts(),
        }
    }
}

/// Applies events appended elsewhere to a cached table, which must follow on from it.
pub(super) fn catch_up(loaded: &mut Loaded, missing: Vec<StoredEvent>) -> Result<()> {
    for (i, event) in missing.iter().enumerate() {
        if event.seq != loaded.version + 1 + i as u64 {
            return Err(corrupt(format!(
                "event {} follows event {}",
                event.seq,
                loaded.version + i as u64
            )));
        }
    }
    // Appends are whole batches, so what another instance appended is too.
    fold(&mut loaded.sitting, &missing)?;
    if let Some(last) = missing.last() {
        loaded.version = last.seq;
        loaded.head_hash = last.hash.clone();
    }
    Ok(())
}

/// A game of this record before its first entry.
pub(super) fn open_sitting(engine: &'static dyn Engine, record: &GameRecord) -> Result<Sitting> {
    let rules = engine
        .open(&record.players, &record.options, record.rules_version)
        .map_err(corrupt)?;
    Ok(Sitting::new(rules, record.players.len()))
}

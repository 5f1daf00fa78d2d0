//! The games held in memory, and how a cached table keeps up with the log.
//!
//! **The budget.** Games are held within a byte budget (`--cache-budget-mb`), each counted at
//! an estimate of what it holds ([`estimated_bytes`]); when a load takes the total past the
//! budget, the games used least recently are dropped until it is back under nine tenths of
//! it. A game in use is never dropped: one whose slot someone holds (a move, a read, a load)
//! or whose watch channel someone waits on (a long-poll, a stream), so no waiter loses its
//! wake-ups. A dropped game is rebuilt from the store when next touched; nothing depends on
//! the cache for being right (every read catches up with the log's head first).
//!
//! **Snapshots.** A long game (GOOGLY) loads from its latest snapshot and the entries after it
//! instead of folding its whole log. A snapshot is trusted only when the entry it was taken
//! at is in the log with the hash it recorded, under the same rules version and snapshot
//! format, and only when its MAC holds: a MAC under a key derived from the operator's signing
//! key (outside the database), over the snapshot's bytes and the entry it was taken at, so a
//! row edited in the database is passed over for the log (and the audit reports it, see
//! `audit.rs`); anything else folds the log, as a game without snapshots always does. They are
//! written after a commit, outside the move's transaction and after its answer is decided
//! (`Parlour::keep_snapshot`), at most once every `--snapshot-every` entries.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use parlour_domain::table_events::SNAPSHOT_FORMAT;

use super::*;
use crate::store::SnapshotRecord;

/// What a cached game costs whatever its length, in bytes: its slot, lock and watch channel,
/// its creation record, table, seating and clocks, its map entry, and what the allocator
/// keeps around them. Measured, not derived: `tools/bench-cold.sh` loads 10,000 short GIRL
/// games into a server with room for all and divides the growth of its resident memory by
/// their number: 2,120 bytes a game (`docs/performance.md`, "Cold games").
pub const GAME_BASE_BYTES: usize = 2 * 1024;
/// What each entry of a cached game's log adds to the estimate, measured the same way on 100
/// GOOGLY matches of 400 entries (53 KB a match; less the base, about 120 bytes an entry). It is GOOGLY's cost, the game whose table grows with its log (its ball-by-ball
/// record, and what the allocator keeps after folding it); it overstates the card games,
/// whose tables do not grow, which errs on the side of the budget.
pub const ENTRY_BYTES: usize = 112;
/// The budget when the operator sets none: 512 MiB.
pub const DEFAULT_CACHE_BUDGET_BYTES: usize = 512 * 1024 * 1024;
/// How many entries a game's log grows between two snapshots when the operator sets nothing.
pub const DEFAULT_SNAPSHOT_EVERY: u64 = 256;

/// What the snapshot key is derived for from the signing key (`Signer::derive_key`): changing
/// it makes every stored snapshot untrusted, which costs one fold per game and loses nothing.
pub const SNAPSHOT_KEY_PURPOSE: &str = "parlour snapshot macs v1";

/// The MAC a snapshot is stored with: HMAC-SHA256 under `key` (the signing key's derived
/// [`SNAPSHOT_KEY_PURPOSE`] key) of every field the load relies on, each on a line of its own
/// and the state last, so no two snapshots give the same message. 64 lowercase hex digits.
pub fn snapshot_mac(key: &[u8; 32], snapshot: &SnapshotRecord) -> String {
    use hmac::Mac as _;
    hex::encode(snapshot_hmac(key, snapshot).finalize().into_bytes())
}

/// Whether the snapshot's MAC is the one `key` gives (compared in constant time by `hmac`: a
/// forger learns nothing from how long a refusal takes).
pub fn snapshot_authentic(key: &[u8; 32], snapshot: &SnapshotRecord) -> bool {
    use hmac::Mac as _;
    snapshot
        .mac
        .as_deref()
        .and_then(|stored| hex::decode(stored).ok())
        .is_some_and(|stored| snapshot_hmac(key, snapshot).verify_slice(&stored).is_ok())
}

fn snapshot_hmac(key: &[u8; 32], snapshot: &SnapshotRecord) -> hmac::Hmac<Sha256> {
    use hmac::Mac as _;
    // HMAC takes a key of any length, so this cannot fail.
    let mut mac = <hmac::Hmac<Sha256> as hmac::Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    mac.update(
        format!(
            "parlour-snapshot/1\n{}\n{}\n{}\n{}\n{}\n",
            snapshot.game.hyphenated(),
            snapshot.version,
            snapshot.hash,
            snapshot.rules_version,
            snapshot.format
        )
        .as_bytes(),
    );
    mac.update(snapshot.state.as_bytes());
    mac
}

/// The estimated bytes a cached game of `version` entries holds: a fixed cost and a little
/// per entry. Cheap by design (it is taken at every load), and honest by measurement: the
/// two constants come from the resident memory the server was measured to grow by.
pub fn estimated_bytes(version: u64) -> usize {
    let entries = usize::try_from(version).unwrap_or(usize::MAX);
    GAME_BASE_BYTES.saturating_add(entries.saturating_mul(ENTRY_BYTES))
}

/// A game held in memory: its table as of `version`, and where its hash chain stands.
pub(super) struct Loaded {
    pub(super) record: Arc<GameRecord>,
    pub(super) engine: &'static dyn Engine,
    pub(super) sitting: Sitting,
    pub(super) version: u64,
    pub(super) head_hash: String,
    /// Whether the game keeps snapshots (its rules give one: GOOGLY).
    pub(super) keeps_snapshots: bool,
    /// The version of the latest snapshot stored or being written (0: none).
    pub(super) snapshot_at: u64,
    /// The log's last entry, as an inbox row tells it (`None` before the first).
    pub(super) last: Option<LastEntry>,
}

/// What the log's last entry says in public: its type, whose move made it, and when. The
/// redacted log shows every entry's type and actor to everyone, so nothing here is hidden.
#[derive(Debug, Clone)]
pub(super) struct LastEntry {
    pub(super) kind: String,
    pub(super) actor: Option<u8>,
    pub(super) at: chrono::DateTime<chrono::Utc>,
}

impl LastEntry {
    /// The last of `events`, if there are any.
    pub(super) fn of(events: &[StoredEvent]) -> Option<LastEntry> {
        events.last().map(|event| LastEntry {
            kind: event.kind.clone(),
            actor: event.actor,
            at: event.at,
        })
    }
}

/// One game's place in memory. The mutex serialises this process's moves on the game; the
/// watch channel tells long-polling clients that the version moved.
pub(super) struct Slot {
    pub(super) game: tokio::sync::Mutex<Option<Loaded>>,
    pub(super) changes: watch::Sender<u64>,
    /// When the slot was last handed out, on the cache's own clock (`Parlour::ticks`).
    last_used: AtomicU64,
    /// The bytes its game is counted at in `Parlour::cached_bytes` (0 while not loaded).
    bytes: AtomicUsize,
    /// Whether it was dropped from the cache: its bytes are no longer counted.
    dropped: AtomicBool,
}

/// A game restored from a snapshot and the entries after it.
struct Restored {
    sitting: Sitting,
    version: u64,
    head_hash: String,
    /// The snapshot's version.
    snapshot_at: u64,
    last: Option<LastEntry>,
}

/// How the cache is kept: its budget, and how often a long game is snapshotted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSettings {
    /// The bytes the cached games may be estimated at in all ([`estimated_bytes`]).
    pub budget_bytes: usize,
    /// How many entries a game's log grows between two snapshots; 0 turns snapshots off
    /// (none written, none read: every cold game folds its whole log).
    pub snapshot_every: u64,
}

impl Default for CacheSettings {
    fn default() -> Self {
        CacheSettings {
            budget_bytes: DEFAULT_CACHE_BUDGET_BYTES,
            snapshot_every: DEFAULT_SNAPSHOT_EVERY,
        }
    }
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
        let now = self.ticks.fetch_add(1, Ordering::Relaxed);
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = slots.get(&id) {
            slot.last_used.store(now, Ordering::Relaxed);
            return slot.clone();
        }
        let slot = Arc::new(Slot {
            game: tokio::sync::Mutex::new(None),
            changes: watch::channel(0).0,
            last_used: AtomicU64::new(now),
            bytes: AtomicUsize::new(0),
            dropped: AtomicBool::new(false),
        });
        slots.insert(id, slot.clone());
        slot
    }

    /// Counts the slot's game at the estimate for `version` entries.
    pub(super) fn count_bytes(&self, slot: &Slot, version: u64) {
        let bytes = estimated_bytes(version);
        let before = slot.bytes.swap(bytes, Ordering::Relaxed);
        // A dropped slot is no longer counted (only a holder that was already loading it can
        // get here after it was dropped, and `forget` drops only slots that hold no game).
        if before != bytes && !slot.dropped.load(Ordering::Relaxed) {
            self.cached_bytes.fetch_add(bytes, Ordering::Relaxed);
            self.cached_bytes.fetch_sub(before, Ordering::Relaxed);
        }
    }

    /// Removes a slot from the map's count of bytes (the caller removed it from the map).
    fn uncount(&self, slot: &Slot) {
        if !slot.dropped.swap(true, Ordering::Relaxed) {
            let bytes = slot.bytes.swap(0, Ordering::Relaxed);
            self.cached_bytes.fetch_sub(bytes, Ordering::Relaxed);
        }
    }

    /// Drops the games used least recently until the estimate is back under nine tenths of
    /// the budget, if it went over. Games in use are kept whatever they cost: a slot someone
    /// holds (its `Arc` is shared: a move, a read or a load has it; nobody can take a new
    /// one without the map's lock, held here) or whose changes someone watches.
    pub(super) fn keep_to_budget(&self) {
        let budget = self.cache.budget_bytes;
        if self.cached_bytes.load(Ordering::Relaxed) <= budget {
            return;
        }
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        // Down to nine tenths, so that the scan of every slot is paid once per tenth of the
        // budget loaded, not at every load once the budget is full.
        let target = budget / 10 * 9;
        let mut idle: Vec<(u64, Uuid)> = slots
            .iter()
            .filter(|(_, slot)| Arc::strong_count(*slot) == 1 && slot.changes.receiver_count() == 0)
            .map(|(id, slot)| (slot.last_used.load(Ordering::Relaxed), *id))
            .collect();
        idle.sort_unstable();
        for (_, id) in idle {
            if self.cached_bytes.load(Ordering::Relaxed) <= target {
                break;
            }
            if let Some(slot) = slots.remove(&id) {
                self.uncount(&slot);
            }
        }
    }

    /// The bytes the cached games are estimated at, and the budget.
    pub fn cache_bytes(&self) -> (usize, usize) {
        (
            self.cached_bytes.load(Ordering::Relaxed),
            self.cache.budget_bytes,
        )
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
        // The latest snapshot is asked for beside the creation record, not after it, so that
        // looking costs a cold load no round trip (for a game that keeps none, the probe of
        // an index finds nothing).
        let (record, snapshot) = if self.cache.snapshot_every > 0 {
            let (record, snapshot) =
                tokio::join!(self.record_of(id), self.store.latest_snapshot(id));
            (record?, snapshot?)
        } else {
            (self.record_of(id).await?, None)
        };
        let (record, engine) = record;
        let mut sitting = open_sitting(engine, &record)?;
        // A fresh table says whether the game keeps snapshots at all.
        let keeps_snapshots = self.cache.snapshot_every > 0 && sitting.rules.snapshot().is_some();
        if let (true, Some(snapshot)) = (keeps_snapshots, snapshot) {
            if let Some(restored) = self.load_from_snapshot(&record, engine, snapshot).await? {
                return Ok(Loaded {
                    record: Arc::new(record),
                    engine,
                    sitting: restored.sitting,
                    version: restored.version,
                    head_hash: restored.head_hash,
                    keeps_snapshots,
                    snapshot_at: restored.snapshot_at,
                    last: restored.last,
                });
            }
        }
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
            keeps_snapshots,
            snapshot_at: 0,
            last: LastEntry::of(&events),
        })
    }

    /// The key snapshots are authenticated with: derived from the signing key, so every
    /// instance sharing the key file shares it, and a copy of the database alone cannot make
    /// a snapshot the server will trust.
    pub(super) fn snapshot_key(&self) -> [u8; 32] {
        self.signer.derive_key(SNAPSHOT_KEY_PURPOSE)
    }

    /// The game from its latest snapshot and the entries after it, if it has a snapshot the
    /// log vouches for (see the module's documentation); `None` to fold the whole log.
    async fn load_from_snapshot(
        &self,
        record: &GameRecord,
        engine: &'static dyn Engine,
        snapshot: SnapshotRecord,
    ) -> Result<Option<Restored>> {
        let id = record.id;
        if !snapshot_authentic(&self.snapshot_key(), &snapshot) {
            tracing::warn!(
                game = %id,
                version = snapshot.version,
                "a snapshot's MAC does not hold (it was changed in the database, or written before snapshots were authenticated); folding the log instead"
            );
            return Ok(None);
        }
        if snapshot.format != SNAPSHOT_FORMAT
            || snapshot.rules_version != record.rules_version
            || snapshot.version == 0
        {
            return Ok(None);
        }
        // From the entry the snapshot was taken at: its hash is checked, the rest applied.
        let events = self.store.events(id, snapshot.version - 1, None).await?;
        let trusted = events
            .first()
            .is_some_and(|at| at.seq == snapshot.version && at.hash == snapshot.hash);
        if !trusted {
            tracing::warn!(
                game = %id,
                version = snapshot.version,
                "a snapshot disagrees with the log; folding the log instead"
            );
            return Ok(None);
        }
        let after = &events[1..];
        readable(after)?;
        let mut sitting = open_sitting(engine, record)?;
        let restored = serde_json::from_str::<Value>(&snapshot.state)
            .ok()
            .is_some_and(|state| sitting.restore(&state));
        if !restored || fold(&mut sitting, after).is_err() {
            tracing::warn!(
                game = %id,
                version = snapshot.version,
                "a snapshot does not restore; folding the log instead"
            );
            return Ok(None);
        }
        let head_hash = events
            .last()
            .map(|last| last.hash.clone())
            .unwrap_or_default();
        Ok(Some(Restored {
            sitting,
            version: snapshot.version + after.len() as u64,
            head_hash,
            snapshot_at: snapshot.version,
            // The entry the snapshot was taken at is read too, so there is always a last.
            last: LastEntry::of(&events),
        }))
    }

    /// Writes a snapshot of the game if its log grew `--snapshot-every` entries past the last
    /// one: in a task of its own, so nothing waits for it (a move's answer is decided, and
    /// its commit done, before this is called). Best-effort: one that fails is written again
    /// after the next `--snapshot-every` entries, and a game without one folds its log.
    pub(super) fn keep_snapshot(&self, loaded: &mut Loaded) {
        let every = self.cache.snapshot_every;
        if !loaded.keeps_snapshots || every == 0 || loaded.version < loaded.snapshot_at + every {
            return;
        }
        loaded.snapshot_at = loaded.version;
        // The copy is cheap (a GOOGLY table is a few KB); turning it into text is left to
        // the task, off the game's lock.
        let sitting = Sitting {
            rules: loaded.sitting.rules.clone_table(),
            table: loaded.sitting.table.clone(),
        };
        let store = self.store.clone();
        let (game, version, hash) = (loaded.record.id, loaded.version, loaded.head_hash.clone());
        let rules_version = loaded.record.rules_version;
        let at = self.now();
        let key = self.snapshot_key();
        tokio::spawn(async move {
            let Some(state) = sitting.snapshot() else {
                return;
            };
            let mut snapshot = SnapshotRecord {
                game,
                version,
                hash,
                rules_version,
                format: SNAPSHOT_FORMAT,
                state: state.to_string(),
                created_at: at,
                mac: None,
            };
            snapshot.mac = Some(snapshot_mac(&key, &snapshot));
            if let Err(error) = store.save_snapshot(&snapshot).await {
                tracing::warn!(game = %game, version, %error, "a snapshot was not written");
            }
        });
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
                Ok(mut loaded) => {
                    slot.changes.send_replace(loaded.version);
                    self.count_bytes(slot, loaded.version);
                    // A long game folded without a snapshot gets one now, so that its next
                    // cold load need not fold it again.
                    self.keep_snapshot(&mut loaded);
                    *guard = Some(loaded);
                    self.keep_to_budget();
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
                // The estimate follows the log's length (a move since the last look included).
                self.count_bytes(slot, loaded.version);
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
        let removed = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        if let Some(slot) = removed {
            self.uncount(&slot);
        }
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
        loaded.last = LastEntry::of(&missing);
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

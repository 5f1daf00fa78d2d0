//! Parlour's use cases: create a game, show it to a viewer, make a move, read the log, audit.
//!
//! Handlers call exactly one function here. The hot path of a move is: find the game's table
//! in memory (folding its log only on first use), decide, append the batch in one statement,
//! apply it, answer. The log stays the truth: a cached table is dropped and rebuilt whenever
//! an append finds that someone else wrote first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parlour_domain::catalog;
use parlour_domain::chance::{verify_shuffle, Shuffled};
use parlour_domain::{
    Chance, Description, Engine, Player, Recorded, Refused, Seat, Seed, SetupError, Table, Viewer,
};
use rand_core::{OsRng, TryRngCore};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use tokio::sync::watch;
use uuid::Uuid;

use crate::chain;
use crate::dto::{
    AuditFailure, AuditReport, CreatedGame, CreatedSeat, CreationRecord, EventPage, GameEvent,
    GameFile, GameView, LogHead, NewGame, Status, StoredGameEvent,
};
use crate::receipts::{Receipt, Signer};
use crate::store::{
    self, EventStore, GameRecord, IdempotentMove, SeatCredential, StoreError, StoredEvent,
};

/// Everything that can stop a use case, in the service's words; `error.rs` maps each to HTTP.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// No game has this id.
    #[error("there is no game {0}")]
    GameNotFound(Uuid),
    /// The catalogue has no such game.
    #[error("Parlour does not offer a game called {0:?}")]
    UnknownGame(String),
    /// The table cannot be set up as asked.
    #[error("{0}")]
    Setup(#[from] SetupError),
    /// A request field is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// No bearer token, or one that belongs to no seat.
    #[error("{0}")]
    Unauthorized(&'static str),
    /// The token belongs to a seat of another game.
    #[error("this token is for a seat in another game")]
    WrongGame,
    /// The move was refused.
    #[error("{0}")]
    Refused(#[from] Refused),
    /// `If-Match` named a version that is no longer current.
    #[error("the game is at version {current}, not {expected}")]
    Stale {
        /// The version the client expected.
        expected: u64,
        /// The current version.
        current: u64,
    },
    /// An `Idempotency-Key` was reused for a different move.
    #[error("this Idempotency-Key was already used for a different move")]
    KeyReused,
    /// Another move kept winning the race.
    #[error("another move was recorded at the same time; fetch the game and try again")]
    Conflict,
    /// Games chosen for statistics that cannot be counted together.
    #[error("{0}")]
    Selection(String),
    /// What was asked for exists only once the game is over.
    #[error("{0}")]
    InProgress(&'static str),
    /// The export or score-sheet does not exist for this game.
    #[error("{0}")]
    NoSuchDocument(String),
    /// The database is not answering; worth retrying shortly.
    #[error("{0}")]
    Unavailable(String),
    /// The database stopped answering while a move was being recorded: it may or may not have
    /// been. `keyed` says whether the move carried an `Idempotency-Key` (a safe retry).
    #[error("the database stopped answering while the move was being recorded: {reason}")]
    OutcomeUnknown {
        /// What went wrong, for the log.
        reason: String,
        /// Whether the move was sent with an `Idempotency-Key`.
        keyed: bool,
    },
    /// The move would take the game's log past its length limit.
    #[error("the game's log has reached its limit of {limit} events; it cannot go further")]
    LogFull {
        /// The most events one game may have.
        limit: u64,
    },
    /// The store failed, or holds something the engine cannot read.
    #[error("{0}")]
    Internal(String),
}

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Conflict => ServiceError::Conflict,
            StoreError::Unavailable { reason, .. } => ServiceError::Unavailable(reason),
            other => ServiceError::Internal(other.to_string()),
        }
    }
}

type Result<T> = std::result::Result<T, ServiceError>;

/// A game held in memory: its table as of `version`, and where its hash chain stands.
struct Loaded {
    record: Arc<GameRecord>,
    engine: &'static dyn Engine,
    table: Box<dyn Table>,
    version: u64,
    head_hash: String,
}

/// One game's place in memory. The mutex serialises this process's moves on the game; the
/// watch channel tells long-polling clients that the version moved.
struct Slot {
    game: tokio::sync::Mutex<Option<Loaded>>,
    changes: watch::Sender<u64>,
}

/// How many games stay in memory before the least recently created slots are dropped.
const CACHED_GAMES: usize = 20_000;
/// How many seat tokens stay in memory.
const CACHED_TOKENS: usize = 100_000;
/// How many times a move is re-decided after losing a race to another writer.
const APPEND_ATTEMPTS: usize = 3;
/// The rules version games are created under now; a game replays under its own.
pub const RULES_VERSION: u32 = 1;
/// How often a waiting long-poll or stream looks at the store for moves made through other
/// instances (moves made through this one wake it at once).
const OTHER_INSTANCES_POLL: Duration = Duration::from_secs(1);
/// Longest long-poll.
pub const MAX_WAIT_SECONDS: u64 = 60;

/// Whether a cached table must first catch up with the end of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Freshness {
    /// Ask the store where the log ends, and apply whatever another instance appended.
    AtHead,
    /// Use the table as cached (a move: a stale table shows itself by colliding or refusing).
    Cached,
}

/// The service behind every handler.
pub struct Parlour {
    store: Arc<dyn EventStore>,
    /// Signs the receipt of every accepted move.
    signer: Arc<Signer>,
    slots: Mutex<HashMap<Uuid, Arc<Slot>>>,
    tokens: Mutex<HashMap<String, (Uuid, u8)>>,
    /// The most events one game's log may hold.
    max_events: u64,
}

/// Who is asking, once their token has been checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// No token: sees what a spectator sees.
    Spectator,
    /// The holder of this seat's token.
    Seat(u8),
}

impl Caller {
    fn viewer(self) -> Viewer {
        match self {
            Caller::Spectator => Viewer::Spectator,
            Caller::Seat(seat) => Viewer::Seat(Seat(seat)),
        }
    }
}

/// One message of a game's stream of views.
#[derive(Debug, Clone)]
pub enum Update {
    /// The game as the caller sees it now.
    View(Box<GameView>),
    /// Nothing happened for a while; the connection is still alive.
    KeepAlive,
}

/// A move as received.
pub struct Move {
    /// The action body.
    pub action: Value,
    /// The version the client decided from (`If-Match`).
    pub if_match: Option<u64>,
    /// The client's retry key (`Idempotency-Key`).
    pub idempotency_key: Option<String>,
}

fn random_bytes() -> Result<[u8; 32]> {
    let mut bytes = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| ServiceError::Internal(format!("the operating system's RNG failed: {e}")))?;
    Ok(bytes)
}

/// The stored form of a bearer token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn engine_for(game: &str) -> Result<&'static dyn Engine> {
    catalog::engine(game).ok_or_else(|| ServiceError::UnknownGame(game.to_string()))
}

fn corrupt(error: impl std::fmt::Display) -> ServiceError {
    ServiceError::Internal(format!("the stored game cannot be rebuilt: {error}"))
}

/// Turns decided events into stored ones, sealing and chaining them from `head_hash` in the
/// game's chain format.
fn chain_events(
    record: &GameRecord,
    decided: &[Recorded],
    first_seq: u64,
    actor: Option<u8>,
    command: Option<&Value>,
    head_hash: &str,
) -> Result<Vec<StoredEvent>> {
    let at = store::now();
    let mut prev = head_hash.to_string();
    let mut events = Vec::with_capacity(decided.len());
    for (i, event) in decided.iter().enumerate() {
        let mut stored = StoredEvent {
            seq: first_seq + i as u64,
            kind: event.kind.clone(),
            actor,
            data: event.data.clone(),
            command: if i == 0 { command.cloned() } else { None },
            at,
            sealed: None,
            prev_hash: prev.clone(),
            hash: String::new(),
            version: 1,
        };
        chain::link(record, &mut stored).map_err(corrupt)?;
        prev = stored.hash.clone();
        events.push(stored);
    }
    Ok(events)
}

/// Player names are shown to everyone and kept in the log for ever: printable text only.
fn check_name(name: &str) -> Result<()> {
    let length = name.chars().count();
    if name.is_empty() || length > 64 || name.chars().any(char::is_control) {
        return Err(ServiceError::BadRequest(format!(
            "a player's name must be 1 to 64 printable characters, not {name:?}"
        )));
    }
    Ok(())
}

fn recorded(event: &StoredEvent) -> Recorded {
    Recorded {
        kind: event.kind.clone(),
        data: event.data.clone(),
    }
}

impl Parlour {
    /// The service over a store.
    pub fn new(store: Arc<dyn EventStore>, signer: Arc<Signer>) -> Self {
        Parlour {
            store,
            signer,
            slots: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            max_events: crate::limits::MAX_EVENTS_PER_GAME,
        }
    }

    /// The same service with another cap on events per game (tests use a small one).
    pub fn with_max_events(mut self, max_events: u64) -> Self {
        self.max_events = max_events;
        self
    }

    /// Every game offered.
    pub fn catalog(&self) -> Vec<Description> {
        catalog::engines().iter().map(|e| e.describe()).collect()
    }

    /// One game's catalogue entry and its cards.
    pub fn catalog_entry(&self, game: &str) -> Result<(Description, Value)> {
        let engine = engine_for(game)?;
        Ok((engine.describe(), engine.cards()))
    }

    /// Whether the database answers.
    pub async fn ready(&self) -> Result<()> {
        Ok(self.store.ping().await?)
    }

    /// Creates a game: checks the table, deals, stores it, and hands out one token per seat.
    pub async fn create_game(&self, request: NewGame) -> Result<CreatedGame> {
        let engine = engine_for(&request.game)?;
        let players: Vec<Player> = request
            .players
            .iter()
            .map(|p| Player {
                name: p.name.trim().to_string(),
            })
            .collect();
        for player in &players {
            check_name(&player.name)?;
        }
        let options = request.options.unwrap_or_else(|| Value::Object(Map::new()));
        if !options.is_object() {
            return Err(ServiceError::Setup(SetupError::Options(
                "options must be a JSON object".into(),
            )));
        }
        let mut table = engine.open(&players, &options)?;
        let seed = match &request.seed {
            Some(text) => {
                Seed::from_hex(text).map_err(|e| ServiceError::BadRequest(e.to_string()))?
            }
            None => Seed(random_bytes()?),
        };
        // The salt is the server's own secret even when the creator chose the seed: it hides
        // the seed in the commitment and the cards in every hash until the game is over.
        let salt = random_bytes()?;
        let record = GameRecord {
            id: Uuid::now_v7(),
            game: engine.describe().id.to_string(),
            players: players.clone(),
            options,
            seed,
            seed_commitment: chain::seed_commitment(&seed, &salt),
            created_at: store::now(),
            chain: chain::CURRENT_FORMAT,
            salt: Some(salt),
            rules_version: RULES_VERSION,
        };
        let opening = table.start(&mut Chance::new(seed, 1));
        let events = chain_events(
            &record,
            &opening.events,
            1,
            None,
            None,
            &chain::genesis_hash(&record),
        )?;
        let mut seats = Vec::with_capacity(players.len());
        let mut credentials = Vec::with_capacity(players.len());
        for (i, player) in players.iter().enumerate() {
            let token = hex::encode(random_bytes()?);
            credentials.push(SeatCredential {
                seat: i as u8,
                name: player.name.clone(),
                token_hash: token_hash(&token),
            });
            seats.push(CreatedSeat {
                seat: i as u8,
                name: player.name.clone(),
                token,
            });
        }
        self.store
            .create_game(&record, &credentials, &events)
            .await?;
        table.apply(opening);
        let version = events.len() as u64;
        let head_hash = events.last().map(|e| e.hash.clone()).unwrap_or_default();
        let created = CreatedGame {
            receipt: self.signer.sign(record.id, version, &head_hash),
            id: record.id,
            game: record.game.clone(),
            version,
            seed_commitment: record.seed_commitment.clone(),
            options: record.options.clone(),
            seats,
        };
        for c in &credentials {
            self.remember_token(c.token_hash.clone(), (record.id, c.seat));
        }
        let slot = self.slot(record.id);
        *slot.game.lock().await = Some(Loaded {
            record: Arc::new(record),
            engine,
            table,
            version,
            head_hash,
        });
        slot.changes.send_replace(version);
        Ok(created)
    }

    /// The receipt for the log as it stood at `version`, re-signed from the stored hash (an
    /// Ed25519 signature is deterministic, so it is the receipt first given).
    async fn receipt_at(&self, id: Uuid, version: u64) -> Result<Option<Receipt>> {
        let event = self
            .store
            .events(id, version.saturating_sub(1), Some(1))
            .await?;
        Ok(event
            .first()
            .map(|event| self.signer.sign(id, event.seq, &event.hash)))
    }

    /// Caches a token's seat. The cache is only a shortcut to the seats table, so when it is
    /// full it is simply emptied rather than allowed to grow with every game ever played.
    fn remember_token(&self, hash: String, seat: (Uuid, u8)) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        if tokens.len() >= CACHED_TOKENS {
            tokens.clear();
        }
        tokens.insert(hash, seat);
    }

    /// Checks a bearer token against the game: no token is a spectator.
    pub async fn authenticate(&self, game: Uuid, token: Option<&str>) -> Result<Caller> {
        let Some(token) = token else {
            return Ok(Caller::Spectator);
        };
        let hash = token_hash(token);
        let cached = self
            .tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&hash)
            .copied();
        let found = match cached {
            Some(found) => Some(found),
            None => {
                let found = self.store.seat_for_token(&hash).await?;
                if let Some(found) = found {
                    self.remember_token(hash, found);
                }
                found
            }
        };
        match found {
            None => Err(ServiceError::Unauthorized("this token belongs to no seat")),
            Some((id, _)) if id != game => Err(ServiceError::WrongGame),
            Some((_, seat)) => Ok(Caller::Seat(seat)),
        }
    }

    fn slot(&self, id: Uuid) -> Arc<Slot> {
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

    async fn load(&self, id: Uuid) -> Result<Loaded> {
        let record = self
            .store
            .game(id)
            .await?
            .ok_or(ServiceError::GameNotFound(id))?;
        let engine = engine_for(&record.game).map_err(corrupt)?;
        let mut table = engine
            .open(&record.players, &record.options)
            .map_err(corrupt)?;
        let events = self.store.events(id, 0, None).await?;
        for event in &events {
            table.apply_recorded(&recorded(event)).map_err(corrupt)?;
        }
        let head_hash = match events.last() {
            Some(last) => last.hash.clone(),
            None => chain::genesis_hash(&record),
        };
        Ok(Loaded {
            record: Arc::new(record),
            engine,
            table,
            version: events.len() as u64,
            head_hash,
        })
    }

    /// Makes sure the slot holds the game, folding its log if it does not.
    async fn ensure_loaded<'a>(
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
                if freshness == Freshness::AtHead {
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
    async fn appended_since(&self, id: Uuid, version: u64) -> Result<Vec<StoredEvent>> {
        match self.store.head(id).await? {
            Some((head, _)) if head > version => Ok(self.store.events(id, version, None).await?),
            _ => Ok(Vec::new()),
        }
    }

    /// Runs `f` on the game's in-memory table, loading it first if need be.
    async fn with_game<T>(&self, id: Uuid, f: impl FnOnce(&Loaded) -> T) -> Result<T> {
        let slot = self.slot(id);
        let mut guard = slot.game.lock().await;
        let loaded = self
            .ensure_loaded(id, &slot, &mut guard, Freshness::AtHead)
            .await?;
        Ok(f(loaded))
    }

    fn forget(&self, id: Uuid) {
        self.slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }

    /// The game as `caller` sees it now.
    pub async fn view(&self, id: Uuid, caller: Caller) -> Result<GameView> {
        self.with_game(id, |loaded| {
            game_view(loaded, loaded.table.as_ref(), loaded.version, caller)
        })
        .await
    }

    /// Waits until the game moves past `known` (or `wait` passes), then shows it to `caller`.
    /// Returns `None` when nothing changed in time.
    pub async fn view_when_changed(
        &self,
        id: Uuid,
        caller: Caller,
        known: u64,
        wait: Duration,
    ) -> Result<Option<GameView>> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut changes = self.slot(id).changes.subscribe();
        loop {
            // Each look catches up with the log, so a move made through another instance is
            // seen within one poll; one made through this one wakes the watch at once.
            let current = self.with_game(id, |loaded| loaded.version).await?;
            if current != known {
                return self.view(id, caller).await.map(Some);
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let step = (deadline - now).min(OTHER_INSTANCES_POLL);
            let evicted = matches!(
                tokio::time::timeout(step, changes.wait_for(|v| *v != known)).await,
                Ok(Err(_))
            );
            if evicted {
                // The slot was dropped from the cache; watch the one that replaces it.
                changes = self.slot(id).changes.subscribe();
            }
        }
    }

    /// Every view `caller` should see from now on: the current one, then one each time the game
    /// moves, with a `KeepAlive` after each quiet `heartbeat`; it ends after the final view.
    pub async fn updates(
        self: Arc<Self>,
        id: Uuid,
        caller: Caller,
        heartbeat: Duration,
    ) -> Result<impl futures_util::Stream<Item = Update>> {
        let first = self.view(id, caller).await?;
        let start = (self, Some(Update::View(Box::new(first))), None::<u64>);
        Ok(futures_util::stream::unfold(
            start,
            move |(service, pending, known)| async move {
                let update = match pending {
                    Some(update) => update,
                    None => {
                        let known = known?;
                        match service
                            .view_when_changed(id, caller, known, heartbeat)
                            .await
                        {
                            Ok(Some(view)) => Update::View(Box::new(view)),
                            Ok(None) => Update::KeepAlive,
                            Err(_) => return None,
                        }
                    }
                };
                let known = match &update {
                    // After the final view there is nothing more to wait for.
                    Update::View(view) if view.status == Status::Finished => None,
                    Update::View(view) => Some(view.version),
                    Update::KeepAlive => known,
                };
                Some((update, (service, None, known)))
            },
        ))
    }

    /// Makes a move for `caller`'s seat and answers with their new view.
    pub async fn act(&self, id: Uuid, caller: Caller, request: Move) -> Result<GameView> {
        let Caller::Seat(seat) = caller else {
            return Err(ServiceError::Unauthorized(
                "a move needs the seat's bearer token",
            ));
        };
        let fingerprint = hex::encode(Sha256::digest(
            chain::canonical_json(&request.action).as_bytes(),
        ));
        let slot = self.slot(id);
        // A move is decided from the cached table as it stands: if another instance moved the
        // game since, the append collides, or the table refuses a move that is in fact legal
        // now; only then is it worth asking the store where the log ends.
        let mut freshness = Freshness::Cached;
        for _ in 0..APPEND_ATTEMPTS {
            let mut guard = slot.game.lock().await;
            let loaded = self.ensure_loaded(id, &slot, &mut guard, freshness).await?;
            if let Some(key) = &request.idempotency_key {
                if let Some(first) = self.store.idempotent_move(id, seat, key).await? {
                    if first.fingerprint != fingerprint {
                        return Err(ServiceError::KeyReused);
                    }
                    drop(guard);
                    let mut view = self.state_at(id, caller, first.version).await?;
                    view.receipt = self.receipt_at(id, first.version).await?;
                    return Ok(view);
                }
            }
            if let Some(expected) = request.if_match {
                if expected != loaded.version && freshness == Freshness::Cached {
                    freshness = Freshness::AtHead;
                    continue;
                }
                if expected != loaded.version {
                    return Err(ServiceError::Stale {
                        expected,
                        current: loaded.version,
                    });
                }
            }
            let first_seq = loaded.version + 1;
            let decision = match loaded.table.decide(
                Seat(seat),
                &request.action,
                &mut Chance::new(loaded.record.seed, first_seq),
            ) {
                Ok(decision) => decision,
                // A body that is no move of this game is refused whatever the game's state.
                Err(refused @ Refused::Malformed(_)) => return Err(refused.into()),
                Err(_) if freshness == Freshness::Cached => {
                    freshness = Freshness::AtHead;
                    continue;
                }
                Err(refused) => return Err(refused.into()),
            };
            // The log keeps the action as the game parsed it, not the body as sent.
            let events = chain_events(
                &loaded.record,
                &decision.events,
                first_seq,
                Some(seat),
                decision.action.as_ref(),
                &loaded.head_hash,
            )?;
            let version = loaded.version + events.len() as u64;
            if version > self.max_events {
                return Err(ServiceError::LogFull {
                    limit: self.max_events,
                });
            }
            let key = request.idempotency_key.as_ref().map(|key| IdempotentMove {
                seat,
                key: key.clone(),
                fingerprint: fingerprint.clone(),
                version,
            });
            match self.store.append(id, &events, key.as_ref()).await {
                Ok(()) => {
                    loaded.table.apply(decision);
                    loaded.version = version;
                    loaded.head_hash = events.last().map(|e| e.hash.clone()).unwrap_or_default();
                    slot.changes.send_replace(version);
                    let mut view = game_view(loaded, loaded.table.as_ref(), version, caller);
                    view.receipt = Some(self.signer.sign(id, version, &loaded.head_hash));
                    return Ok(view);
                }
                Err(StoreError::Conflict) => {
                    // Someone else wrote first: the log is the truth, so catch up with it.
                    // The next attempt re-checks If-Match and the key against the new version.
                    tracing::info!(game = %id, "append lost a race; catching up with the log");
                    freshness = Freshness::AtHead;
                }
                Err(StoreError::Unavailable {
                    reason,
                    maybe_written: true,
                }) => {
                    // The move may be in the log although we could not hear so: forget the
                    // cached table, so that the next request reads the truth from the log.
                    *guard = None;
                    return Err(ServiceError::OutcomeUnknown {
                        reason,
                        keyed: request.idempotency_key.is_some(),
                    });
                }
                Err(other) => return Err(other.into()),
            }
        }
        Err(ServiceError::Conflict)
    }

    /// A page of the log as `caller` may see it: redacted while the game is in progress,
    /// whole (with the actions that produced each batch) once it is over.
    pub async fn events(
        &self,
        id: Uuid,
        caller: Caller,
        after: u64,
        limit: u64,
    ) -> Result<EventPage> {
        let (engine, finished, version, format) = self
            .with_game(id, |l| {
                (
                    l.engine,
                    l.table.outcome().is_some(),
                    l.version,
                    l.record.chain,
                )
            })
            .await?;
        let stored = self.store.events(id, after, Some(limit)).await?;
        let viewer = caller.viewer();
        // A format-1 hash is taken over the hidden cards with no secret, so trying every
        // candidate would find them: those links are shown only once the game is over.
        let links_shown = finished || format >= 2;
        let mut events = Vec::with_capacity(stored.len());
        for event in stored {
            let data = if finished {
                event.data
            } else {
                engine.redact(&recorded(&event), viewer).map_err(corrupt)?
            };
            events.push(GameEvent {
                seq: event.seq,
                kind: event.kind,
                actor: event.actor,
                data,
                at: event.at,
                sealed: event.sealed,
                hash: links_shown.then_some(event.hash),
                prev_hash: links_shown.then_some(event.prev_hash),
                command: if finished { event.command } else { None },
            });
        }
        let next_after = events.last().map(|e| e.seq).filter(|seq| *seq < version);
        Ok(EventPage {
            id,
            version,
            status: if finished {
                Status::Finished
            } else {
                Status::Active
            },
            events,
            next_after,
        })
    }

    /// The game as `caller` would have seen it just after event `at`.
    pub async fn state_at(&self, id: Uuid, caller: Caller, at: u64) -> Result<GameView> {
        let (record, engine, version) = self
            .with_game(id, |l| (l.record.clone(), l.engine, l.version))
            .await?;
        if at > version {
            return Err(ServiceError::BadRequest(format!(
                "the game has {version} events; `at` must be between 0 and {version}"
            )));
        }
        let mut table = engine
            .open(&record.players, &record.options)
            .map_err(corrupt)?;
        for event in self.store.events(id, 0, Some(at)).await? {
            table.apply_recorded(&recorded(&event)).map_err(corrupt)?;
        }
        self.with_game(id, |loaded| game_view(loaded, table.as_ref(), at, caller))
            .await
    }

    /// The public score-sheet (JSON and text), for games that keep one.
    pub async fn scoresheet(&self, id: Uuid) -> Result<parlour_domain::Scoresheet> {
        self.with_game(id, |l| l.table.scoresheet())
            .await?
            .ok_or_else(|| ServiceError::NoSuchDocument("this game keeps no score-sheet".into()))
    }

    /// A named public export of the game.
    pub async fn export(&self, id: Uuid, format: &str) -> Result<Value> {
        self.with_game(id, |l| l.table.export(format))
            .await?
            .ok_or_else(|| {
                ServiceError::NoSuchDocument(format!("this game has no export called {format:?}"))
            })
    }

    /// Statistics over finished games of one kind (GOOGLY: averages, centuries, hat-tricks and
    /// the championship table), from each game's public `record` export. Each game is counted
    /// once, so a game listed twice is refused rather than counted twice.
    pub async fn statistics(&self, game: &str, ids: &[Uuid]) -> Result<Value> {
        let engine = engine_for(game)?;
        let mut records = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(ServiceError::Selection(format!(
                    "game {id} is listed twice"
                )));
            }
            let (kind, record) = self
                .with_game(*id, |l| {
                    (
                        l.record.game.clone(),
                        l.table.outcome().and(l.table.export("record")),
                    )
                })
                .await?;
            if kind != game {
                return Err(ServiceError::Selection(format!(
                    "game {id} is {kind}, not {game}"
                )));
            }
            records
                .push(record.ok_or_else(|| {
                    ServiceError::Selection(format!("game {id} is not finished"))
                })?);
        }
        match engine.statistics(&records) {
            None => Err(ServiceError::NoSuchDocument(format!(
                "{game} keeps no statistics"
            ))),
            Some(Ok(statistics)) => Ok(statistics),
            Some(Err(error)) => Err(ServiceError::Internal(error)),
        }
    }

    /// Re-checks the hash chain, replays every batch through the engine (re-deciding each
    /// recorded action and comparing the events it gives with the ones stored), and once the
    /// game is over reveals the seed and checks it against the commitment and every shuffle.
    pub async fn audit(&self, id: Uuid) -> Result<AuditReport> {
        let record = self
            .store
            .game(id)
            .await?
            .ok_or(ServiceError::GameNotFound(id))?;
        let engine = engine_for(&record.game).map_err(corrupt)?;
        let events = self.store.events(id, 0, None).await?;
        let recorded_head = self.store.head(id).await?;
        let mut failures = Vec::new();

        let head_hash = match chain::verify(&record, &events) {
            Ok(head) => head,
            Err((seq, detail)) => {
                failures.push(AuditFailure {
                    check: "chain".into(),
                    seq: Some(seq),
                    detail,
                });
                events.last().map(|e| e.hash.clone()).unwrap_or_default()
            }
        };
        let length = events.len() as u64;
        match recorded_head {
            Some((version, hash)) if version != length || hash != head_hash => {
                failures.push(AuditFailure {
                    check: "chain".into(),
                    seq: Some(version),
                    detail: format!(
                        "the log ends at event {length}, but the store recorded its end at event {version} with another hash: events were removed"
                    ),
                });
            }
            None if record.chain >= 2 => failures.push(AuditFailure {
                check: "chain".into(),
                seq: None,
                detail: "the store has no record of where the log ends".into(),
            }),
            _ => {}
        }
        let chain_ok = failures.is_empty();

        let (finished, replay_failure) = replay(engine, &record, &events);
        let replay_ok = replay_failure.is_none();
        failures.extend(replay_failure);

        let seed_ok = if finished {
            let mut ok = chain::commitment_holds(&record);
            if !ok {
                failures.push(AuditFailure {
                    check: "seed".into(),
                    seq: None,
                    detail: "the seed does not hash to the published commitment".into(),
                });
            }
            for event in &events {
                if !every_shuffle_verifies(&record.seed, &event.data) {
                    ok = false;
                    failures.push(AuditFailure {
                        check: "seed".into(),
                        seq: Some(event.seq),
                        detail: "a recorded shuffle is not the one the seed gives".into(),
                    });
                }
            }
            Some(ok)
        } else {
            None
        };
        Ok(AuditReport {
            chain: record.chain,
            chain_ok,
            replay_ok,
            seed_ok,
            seed: finished.then(|| record.seed.to_hex()),
            salt: record.salt.filter(|_| finished).map(hex::encode),
            seed_commitment: record.seed_commitment.clone(),
            // A format-1 head hash is as revealing as any of its links (see `events`).
            head_hash: (finished || record.chain >= 2).then_some(head_hash),
            events: length,
            failures,
        })
    }
}

impl Parlour {
    /// A finished game as one file: its creation record, every event whole, the revealed seed
    /// and salt, and where the store recorded the log's end.
    pub async fn game_file(&self, id: Uuid) -> Result<GameFile> {
        let (finished, record) = self
            .with_game(id, |l| (l.table.outcome().is_some(), l.record.clone()))
            .await?;
        if !finished {
            return Err(ServiceError::InProgress(
                "the game is still being played: its file, with the seed, is published when it ends",
            ));
        }
        let events = self.store.events(id, 0, None).await?;
        let head = self.store.head(id).await?;
        // One receipt per batch, for the event that ends it: what a player was handed.
        let receipts = events
            .iter()
            .enumerate()
            .filter(|(i, _)| events.get(i + 1).is_none_or(|next| next.command.is_some()))
            .map(|(_, e)| self.signer.sign(id, e.seq, &e.hash))
            .collect();
        Ok(GameFile {
            receipts,
            keys: vec![self.signer.public()],
            format: "parlour-game/1".into(),
            record: CreationRecord {
                id: record.id,
                game: record.game.clone(),
                players: serde_json::to_value(&record.players).map_err(corrupt)?,
                options: record.options.clone(),
                seed_commitment: record.seed_commitment.clone(),
                chain: record.chain,
                rules_version: record.rules_version,
                created_at: record.created_at,
            },
            seed: record.seed.to_hex(),
            salt: record.salt.map(hex::encode),
            events: events
                .into_iter()
                .map(|e| StoredGameEvent {
                    seq: e.seq,
                    kind: e.kind,
                    actor: e.actor,
                    data: e.data,
                    command: e.command,
                    at: e.at,
                    sealed: e.sealed,
                    prev_hash: e.prev_hash,
                    hash: e.hash,
                })
                .collect(),
            head: head.map(|(version, hash)| LogHead { version, hash }),
        })
    }
}

/// Applies events appended elsewhere to a cached table, which must follow on from it.
fn catch_up(loaded: &mut Loaded, missing: Vec<StoredEvent>) -> Result<()> {
    for event in missing {
        if event.seq != loaded.version + 1 {
            return Err(corrupt(format!(
                "event {} follows event {}",
                event.seq, loaded.version
            )));
        }
        loaded
            .table
            .apply_recorded(&recorded(&event))
            .map_err(corrupt)?;
        loaded.version = event.seq;
        loaded.head_hash = event.hash;
    }
    Ok(())
}

/// Replays the log batch by batch; returns whether the replayed game is over and the first
/// batch that did not replay.
fn replay(
    engine: &'static dyn Engine,
    record: &GameRecord,
    events: &[StoredEvent],
) -> (bool, Option<AuditFailure>) {
    let fail = |seq: Option<u64>, detail: String| AuditFailure {
        check: "replay".into(),
        seq,
        detail,
    };
    let mut table = match engine.open(&record.players, &record.options) {
        Ok(table) => table,
        Err(e) => {
            return (
                false,
                Some(fail(None, format!("the game cannot be set up again: {e}"))),
            )
        }
    };
    let mut next = 0usize;
    while next < events.len() {
        let first = &events[next];
        let mut chance = Chance::new(record.seed, first.seq);
        let decision = if next == 0 {
            Ok(table.start(&mut chance))
        } else {
            match (&first.command, first.actor) {
                // Format-1 logs recorded the body as sent; it replays as leniently as it was
                // accepted. Format-2 logs record the canonical action, which parses strictly.
                (Some(command), Some(actor)) if record.chain == 1 => {
                    table.decide_legacy(Seat(actor), command, &mut chance)
                }
                (Some(command), Some(actor)) => table.decide(Seat(actor), command, &mut chance),
                _ => {
                    return (
                        table.outcome().is_some(),
                        Some(fail(
                            Some(first.seq),
                            "this event opens a batch but records no action".into(),
                        )),
                    )
                }
            }
        };
        let decision = match decision {
            Ok(decision) => decision,
            Err(refused) => {
                return (
                    table.outcome().is_some(),
                    Some(fail(
                        Some(first.seq),
                        format!("the recorded action is refused on replay: {refused}"),
                    )),
                )
            }
        };
        let stored = &events[next..(next + decision.events.len()).min(events.len())];
        let same = stored.len() == decision.events.len()
            && stored
                .iter()
                .zip(&decision.events)
                .all(|(s, d)| s.kind == d.kind && s.data == d.data);
        if !same {
            return (
                table.outcome().is_some(),
                Some(fail(
                    Some(first.seq),
                    "the engine gives different events for the recorded action".into(),
                )),
            );
        }
        next += decision.events.len();
        table.apply(decision);
    }
    (table.outcome().is_some(), None)
}

/// Finds every recorded `{"stream", "order"}` shuffle in an event and re-runs it.
fn every_shuffle_verifies(seed: &Seed, data: &Value) -> bool {
    match data {
        Value::Object(map) => {
            if let (Some(Value::Number(stream)), Some(Value::Array(order)), 2) =
                (map.get("stream"), map.get("order"), map.len())
            {
                if let Some(stream) = stream.as_u64() {
                    return verify_shuffle(
                        seed,
                        &Shuffled {
                            stream,
                            order: order.clone(),
                        },
                    );
                }
            }
            map.values().all(|v| every_shuffle_verifies(seed, v))
        }
        Value::Array(items) => items.iter().all(|v| every_shuffle_verifies(seed, v)),
        _ => true,
    }
}

fn game_view(loaded: &Loaded, table: &dyn Table, version: u64, caller: Caller) -> GameView {
    let viewer = caller.viewer();
    let view = table.view(viewer);
    let outcome = table.outcome();
    let to_act: Vec<u8> = table.to_act().iter().map(|s| s.0).collect();
    let seats = view
        .seats
        .into_iter()
        .enumerate()
        .map(|(i, public)| {
            let mut seat = Map::new();
            seat.insert("seat".into(), json!(i));
            seat.insert(
                "name".into(),
                json!(loaded
                    .record
                    .players
                    .get(i)
                    .map(|p| p.name.as_str())
                    .unwrap_or("")),
            );
            match public {
                Value::Object(map) => seat.extend(map),
                Value::Null => {}
                other => {
                    seat.insert("state".into(), other);
                }
            }
            Value::Object(seat)
        })
        .collect();
    let (you, legal_actions) = match caller {
        Caller::Spectator => (None, Vec::new()),
        Caller::Seat(seat) => {
            let mut you = Map::new();
            you.insert("seat".into(), json!(seat));
            match view.private {
                Some(Value::Object(map)) => you.extend(map),
                Some(other) => {
                    you.insert("private".into(), other);
                }
                None => {}
            }
            (Some(Value::Object(you)), table.legal_actions(Seat(seat)))
        }
    };
    GameView {
        id: loaded.record.id,
        game: loaded.record.game.clone(),
        options: loaded.record.options.clone(),
        rules_version: loaded.record.rules_version,
        receipt: None,
        status: if outcome.is_some() {
            Status::Finished
        } else {
            Status::Active
        },
        version,
        to_act,
        seats,
        public: view.public,
        you,
        legal_actions,
        result: outcome,
    }
}

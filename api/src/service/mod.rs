//! Parlour's use cases: create a game, show it to a viewer, make a move, read the log, audit.
//!
//! Handlers call exactly one function here. The hot path of a move is: find the game's table
//! in memory (folding its log only on first use), decide, append the batch in one statement,
//! apply it, answer. The log stays the truth: a cached table is dropped and rebuilt whenever
//! an append finds that someone else wrote first.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parlour_domain::catalog;
use parlour_domain::chance::{verify_shuffle, Shuffled};
use parlour_domain::clocks::Moment;
use parlour_domain::table_events::{Sitting, Stamp, TableEvent};
use parlour_domain::{
    Chance, Description, Engine, Player, Recorded, Refused, Seat, Seed, SetupError, Viewer,
};
use rand_core::{OsRng, TryRngCore};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use tokio::sync::watch;
use uuid::Uuid;

use crate::bus::CommitSignal;
use crate::chain;
use chrono::{DateTime, Utc};

use crate::dto::{
    AuditFailure, AuditReport, CreatedGame, CreatedSeat, CreationRecord, EventPage, GameEvent,
    GameFile, GameView, LogHead, NewGame, Status, StoredGameEvent,
};
use crate::receipts::{Receipt, Signer};
use crate::scopes::Scope;
use crate::store::{
    self, Committed, EventStore, GameRecord, IdempotentMove, OutboxMessage, SeatCredential,
    StoreError, StoredEvent,
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
    /// An account's route without a live account token (none, a seat token, an unknown or a
    /// revoked one).
    #[error("{0}")]
    AccountUnauthorized(&'static str),
    /// The caller's account has no live token with this id (another account's is not
    /// told apart from none at all).
    #[error("this account has no token {0:?}")]
    TokenNotFound(String),
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
    /// A request with the same seat and `Idempotency-Key` is still being processed.
    #[error(
        "a move with this Idempotency-Key is still being processed; send it again shortly to \
         get its answer"
    )]
    KeyInFlight,
    /// The server requires `If-Match` on moves, and the move has none.
    #[error(
        "this server requires every move to carry If-Match with the version it was decided \
         from, e.g. If-Match: \"12\" (the ETag of the view)"
    )]
    PreconditionRequired,
    /// A text in the request is not allowed (see `text`).
    #[error("`{field}` {reason}")]
    InvalidText {
        /// Which text: `players[0].name`, `options.home.name`, `cards[1]`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
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
    /// The framework's rules for table events do not admit this one now.
    #[error("{0}")]
    TableRefused(parlour_domain::table_events::TableRefusal),
    /// What an account asked of a hosted game's seats is not its to do.
    #[error("{0}")]
    Seating(SeatingRefusal),
    /// The move clock asked for cannot be used.
    #[error("{0}")]
    BadClock(String),
    /// A webhook cannot be registered or changed like that.
    #[error("{0}")]
    BadWebhook(String),
    /// The caller has no such webhook, or the webhook no such delivery.
    #[error("there is no webhook {0}")]
    WebhookNotFound(String),
    /// A browser's push subscription cannot be kept like that.
    #[error("{0}")]
    BadPushSubscription(String),
    /// The caller has no such push subscription.
    #[error("there is no push subscription {0}")]
    PushSubscriptionNotFound(String),
    /// This server sends no mail.
    #[error("this server sends no mail: its operator set no --smtp-url")]
    EmailOff,
    /// This server was not started in sandbox mode: no game runs on a test clock.
    #[error("this server has no test clocks: its operator did not start it with --sandbox")]
    SandboxOff,
    /// An address cannot be kept like that.
    #[error("{0}")]
    BadEmailAddress(String),
    /// The account holds the address already.
    #[error("the account holds {0} already")]
    EmailAddressTaken(String),
    /// The caller has no such address.
    #[error("there is no email address {0}")]
    EmailAddressNotFound(String),
    /// A mailed link that does nothing (forged, expired, or its address removed).
    #[error("{0}")]
    BadEmailLink(String),
    /// Passkeys are off on this server.
    #[error("{0}")]
    PasskeysOff(String),
    /// A passkey, or an answer to a passkey ceremony, that cannot be kept.
    #[error("{0}")]
    BadPasskey(String),
    /// The passkey is registered already (to this account or another).
    #[error("that passkey is registered already")]
    PasskeyExists,
    /// The caller has no such passkey.
    #[error("there is no passkey {0}")]
    PasskeyNotFound(String),
    /// Notice preferences that cannot be kept.
    #[error("{0}")]
    BadNoticePreferences(String),
    /// A bot plays the seat: its moves are the bot's until its player takes it back.
    #[error("a bot plays seat {0}: take the seat back from it (DELETE /v1/games/{{id}}/seats/{0}/bot) to move yourself")]
    PlayedByBot(u8),
    /// Only a seat's player hands it to a bot or takes it back (and only the host fills an
    /// empty seat with one).
    #[error("seat {0} is not yours to hand to a bot or take back from one")]
    NotYourSeat(u8),
    /// A vacation that cannot begin or end now.
    #[error("{0}")]
    Vacation(String),
    /// No match has this id.
    #[error("there is no match {0}")]
    MatchNotFound(Uuid),
    /// The caller's account token does not hold the scope this needs.
    #[error("this token may not do this: it needs the scope `{0}`")]
    InsufficientScope(Scope),
    /// An app's authorization request that cannot be approved; `redirect_to` tells the app
    /// when the request is sound enough to send the player back to it.
    #[error("{detail}")]
    BadAuthorization {
        /// What is wrong.
        detail: String,
        /// The error redirect to the app (RFC 6749 §4.1.2.1), when there is a safe one.
        redirect_to: Option<String>,
    },
    /// A refusal at the OAuth token or revocation endpoint.
    #[error("{}", .0.description)]
    OAuth(apps::OAuthRefusal),
    /// The caller's account has no app of this name.
    #[error("no app {0:?} holds a token of this account")]
    AppNotFound(String),
    /// A fault on our side (the store failed, or holds something the engine cannot read),
    /// with its cause kept whole for the log.
    #[error(transparent)]
    Internal(#[from] Fault),
}

/// A fault on our side: what was being done, and the error that stopped it, kept as the
/// error's `source` so that the log shows the whole chain. Never shown to a client.
#[derive(Debug, thiserror::Error)]
#[error("{doing}{}", cause.as_ref().map(|c| format!(": {c}")).unwrap_or_default())]
pub struct Fault {
    /// What the server was doing, in words: "the stored game cannot be rebuilt".
    doing: &'static str,
    /// What stopped it.
    #[source]
    cause: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl Fault {
    /// `doing` failed because of `cause`.
    pub fn new(
        doing: &'static str,
        cause: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Fault {
            doing,
            cause: Some(cause.into()),
        }
    }

    /// `doing` failed, and there is no error beneath it to name: a fact that should hold
    /// did not.
    pub fn bare(doing: &'static str) -> Self {
        Fault { doing, cause: None }
    }
}

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Conflict => ServiceError::Conflict,
            StoreError::Unavailable { reason, .. } => ServiceError::Unavailable(reason),
            other => Fault::new("the store failed", other).into(),
        }
    }
}

type Result<T> = std::result::Result<T, ServiceError>;

mod access;
mod accounts;
mod act;
pub mod apps;
mod audit;
pub mod bots;
mod cache;
mod checkpoints;
mod clocks;
pub mod commit;
mod create;
mod documents;
pub mod email;
mod fan_out;
pub mod housekeeping;
mod inbox;
pub mod matches;
pub mod passkeys;
pub mod preferences;
pub mod push;
mod read;
mod revocations;
mod seating;
pub mod sign_in_links;
pub mod stream_tickets;
mod table;
pub mod tables;
pub mod test_clock;
pub mod text;
mod time_source;
mod vacation;
pub mod webhooks;
mod write;

pub use accounts::{
    AccountCaller, Accounts, ACCOUNT_TOKEN_PREFIX, FIRST_TOKEN_NAME, SIGN_IN_CODE_LIFETIME,
    SIGN_IN_CODE_PREFIX,
};
pub use apps::Apps;
pub use checkpoints::Checkpoints;
pub use clocks::Sweep;
pub use email::{EmailAddresses, EmailSettings};
pub use housekeeping::Housekeeping;
pub use inbox::{cursor_text, parse_cursor, AccountUpdate, BusFeed, InboxQuery};
pub use passkeys::{Passkeys, RelyingParty};
pub use preferences::Preferences;
pub use push::PushSubscriptions;
pub use revocations::{Hold, Revocations, REVOCATION_CHECK};
pub use seating::{SeatingRefusal, INVITATION_PREFIX};
pub use sign_in_links::SignInLinks;
pub use stream_tickets::{
    Credential, IssuedStreamTicket, StreamTickets, TicketedStream, STREAM_TICKET_LIFETIME,
};
pub use table::IdleSweep;
pub use time_source::{Clock, ManualClock, SystemClock};
pub use vacation::DEFAULT_VACATION_DAYS;
pub use webhooks::Webhooks;

pub use cache::{
    estimated_bytes, snapshot_authentic, snapshot_mac, CacheSettings, InstanceCounts,
    DEFAULT_CACHE_BUDGET_BYTES, DEFAULT_SNAPSHOT_EVERY, ENTRY_BYTES, GAME_BASE_BYTES,
    SNAPSHOT_KEY_PURPOSE,
};
use cache::{open_sitting, Freshness, LastEntry, Loaded, Slot};
use create::Founding;
use read::game_view;
use seating::status_of;

/// How many seat tokens stay in memory.
const CACHED_TOKENS: usize = 100_000;
/// The rules version games are created under now (the domain's latest); a game replays and
/// audits under its own, recorded in its creation record.
pub use parlour_domain::RULES_VERSION;
/// The shape version every entry is written with now (`StoredEvent::version`). When an
/// entry's shape changes, this rises and `recorded` learns to upcast the older shapes.
pub const CURRENT_EVENT_VERSION: u16 = 1;
/// Longest long-poll.
pub const MAX_WAIT_SECONDS: u64 = 60;
/// The contact named to push services when the operator names none (`--push-contact`).
pub const DEFAULT_PUSH_CONTACT: &str = "mailto:postmaster@localhost";

/// How long an `Idempotency-Key` is remembered after its move was recorded, unless the
/// operator sets another lifetime: long past any client's retries of one move.
pub const DEFAULT_IDEMPOTENCY_KEY_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// The service behind every handler.
pub struct Parlour {
    store: Arc<dyn EventStore>,
    /// Every append goes through it, so concurrent moves share a commit (`commit`).
    committer: Arc<commit::GroupCommit>,
    /// Signs the receipt of every accepted move.
    signer: Arc<Signer>,
    slots: Mutex<HashMap<Uuid, Arc<Slot>>>,
    /// The cache's budget and how often long games are snapshotted.
    cache: CacheSettings,
    /// What the cached games are estimated at in all (`cache::estimated_bytes`).
    cached_bytes: std::sync::atomic::AtomicUsize,
    /// The cache's clock: one tick each time a slot is handed out, for least-recently-used.
    ticks: std::sync::atomic::AtomicU64,
    tokens: Mutex<HashMap<String, (Uuid, u8)>>,
    /// The most events one game's log may hold.
    max_events: u64,
    /// What durable work follows a commit, written with it (`workers::outbox`).
    after_commit: Vec<Arc<dyn AfterCommit>>,
    /// Tells this instance's bus, and through it the others, that something was committed.
    commits: Arc<CommitSignal>,
    /// Moves recorded by this instance since it started (`/metrics`).
    moves_recorded: std::sync::atomic::AtomicU64,
    /// What time it is (for idempotency keys' expiry).
    clock: Arc<dyn Clock>,
    /// How long an idempotency key is remembered.
    idempotency_lifetime: Duration,
    /// Whether every move must carry `If-Match`.
    require_preconditions: bool,
    /// The (game, seat, idempotency key) of every keyed move being processed now.
    in_flight: Arc<Mutex<HashSet<(Uuid, u8, String)>>>,
    /// Each account's vacation days a calendar year.
    vacation_days: u32,
    /// How the webhook relay sends.
    webhook_settings: webhooks::WebhookSettings,
    /// The least time a bot takes over a move.
    bot_pace: Duration,
    /// The account tokens this instance's streams and long-polls hold (`revocations`).
    revocations: Arc<Revocations>,
    /// The operator's contact, named to push services in every VAPID token.
    push_contact: String,
    /// The operator's mail server, if it named one (`--smtp-url`).
    mailer: Option<crate::mail::Mailer>,
    /// Links in mails, and how many an account may be sent.
    email_settings: EmailSettings,
    /// The server as a WebAuthn relying party, if passkeys are on.
    relying_party: RelyingParty,
    /// Whether games may be created on a test clock (`--sandbox`; `test_clock`).
    sandbox: bool,
}

/// Decides what durable work must follow a batch of entries once it is committed. The
/// messages are written in the same transaction as the entries, so neither is ever kept
/// without the other, and `workers::outbox` does each at least once after the commit.
pub trait AfterCommit: Send + Sync {
    /// The messages that must follow `entries`, about to be appended to `game`'s log, whose
    /// table stood as `sitting` before them.
    fn durable_work(
        &self,
        game: &GameRecord,
        sitting: &Sitting,
        entries: &[StoredEvent],
    ) -> Vec<OutboxMessage>;
}

/// Who is asking, once their token has been checked: a seat, or nobody in particular. Not
/// the same as the domain's `Viewer`, which is whose eyes they are shown the game through: a
/// seat's, except while the game waits for players, when everyone sees as a spectator
/// (`read::seen_as`). Only a caller with a seat may act.
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

/// The answer to a move.
#[derive(Debug)]
pub struct Acted {
    /// The seat's view after the move, with its receipt.
    pub view: GameView,
    /// Whether this is the stored answer to an earlier request with the same
    /// `Idempotency-Key` (nothing was recorded this time).
    pub replayed: bool,
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
        .map_err(|e| Fault::new("the operating system's RNG failed", e))?;
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
    Fault::new("the stored game cannot be rebuilt", error.to_string()).into()
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
    at: DateTime<Utc>,
) -> Result<Vec<StoredEvent>> {
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
            version: CURRENT_EVENT_VERSION,
        };
        chain::link(record, &mut stored).map_err(corrupt)?;
        prev = stored.hash.clone();
        events.push(stored);
    }
    Ok(events)
}

/// Reads a stored entry as the game or the table knows it, upcasting an older shape first.
/// Every entry has shape version 1 so far; an entry of a version this server does not know
/// (written by a newer one) is refused rather than misread.
fn recorded(event: &StoredEvent) -> Recorded {
    Recorded {
        kind: event.kind.clone(),
        data: event.data.clone(),
    }
}

/// The moment the clocks read from a stored time.
pub(crate) fn moment(at: DateTime<Utc>) -> Moment {
    Moment(at.timestamp_micros())
}

/// A stored moment as a time (the clocks' deadlines, shown in views).
pub(crate) fn time_of(moment: Moment) -> Option<DateTime<Utc>> {
    DateTime::<Utc>::from_timestamp_micros(moment.0)
}

/// The log's entries folded into `sitting` batch by batch, as they were recorded: a table
/// event alone, or a run of game events opened by the action that gave them (the deal opens
/// the log with none). The clocks settle after each batch, exactly as when it was recorded.
fn fold(sitting: &mut Sitting, events: &[StoredEvent]) -> Result<()> {
    let mut start = 0;
    while start < events.len() {
        let first = &events[start];
        let mut end = start + 1;
        if !TableEvent::is_table_kind(&first.kind) {
            while end < events.len()
                && !TableEvent::is_table_kind(&events[end].kind)
                && events[end].command.is_none()
            {
                end += 1;
            }
        }
        let batch: Vec<Recorded> = events[start..end].iter().map(recorded).collect();
        let mover = match first.command {
            Some(_) => first.actor.map(Seat),
            None => None,
        };
        sitting
            .apply_batch(
                &batch,
                Stamp {
                    at: moment(first.at),
                    mover,
                },
            )
            .map_err(corrupt)?;
        start = end;
    }
    Ok(())
}

/// Checks that every entry's shape version is one this server reads.
fn readable(events: &[StoredEvent]) -> Result<()> {
    match events.iter().find(|e| e.version != CURRENT_EVENT_VERSION) {
        Some(event) => Err(corrupt(format!(
            "event {} has shape version {}, and this server reads only version {CURRENT_EVENT_VERSION}",
            event.seq, event.version
        ))),
        None => Ok(()),
    }
}

/// The capabilities, each given only the parts it needs: wired here, once. A capability is a
/// small struct of borrowed parts made on each call (nothing to keep in step when a part is
/// replaced, as the builders below do), so what it can reach is what its struct names.
impl Parlour {
    /// Accounts, their tokens and sign-in codes.
    pub fn accounts(&self) -> Accounts<'_> {
        Accounts::new(
            &*self.store,
            &*self.clock,
            &self.revocations,
            &*self.store,
            &self.commits,
            &*self.store,
        )
    }

    /// Sign-in links mailed to verified addresses.
    pub fn sign_in_links(&self) -> SignInLinks<'_> {
        SignInLinks::new(
            &*self.store,
            &*self.store,
            &*self.store,
            &self.signer,
            &*self.clock,
            self.mailer.as_ref(),
            &self.commits,
        )
    }

    /// The address players reach this server at (`--public-url`), as links and the OAuth
    /// metadata name it.
    pub fn public_url(&self) -> &str {
        &self.email_settings.public_url
    }

    /// Stream tickets: made for a checked token, spent on one stream.
    pub fn stream_tickets(&self) -> StreamTickets<'_> {
        StreamTickets::new(&*self.store, &*self.clock)
    }

    /// Apps acting for players: OAuth codes, their exchange, the apps an account let in.
    pub fn apps(&self) -> Apps<'_> {
        Apps::new(&*self.store, &*self.store, &*self.clock, &self.revocations)
    }

    /// An account's passkeys, and signing in with them.
    pub fn passkeys(&self) -> Passkeys<'_> {
        Passkeys::new(
            &*self.store,
            &*self.store,
            &*self.store,
            &self.commits,
            &*self.clock,
            &self.relying_party,
        )
    }

    /// The public list of finished games' heads.
    pub fn checkpoints(&self) -> Checkpoints<'_> {
        Checkpoints::new(&*self.store, &self.signer, &*self.clock)
    }

    /// An account's webhook endpoints, and the relay that sends to them.
    pub fn webhooks(&self) -> Webhooks<'_> {
        Webhooks::new(
            &*self.store,
            &self.signer,
            &*self.clock,
            self.webhook_settings,
            &self.commits,
            &*self.store,
            webhooks::Channels {
                push_contact: &self.push_contact,
                mail: email::MailRelay {
                    mailer: self.mailer.as_ref(),
                    settings: &self.email_settings,
                    notices: &*self.store,
                },
            },
        )
    }

    /// An account's email addresses (their mails are sent by the webhooks' relay).
    pub fn email_addresses(&self) -> EmailAddresses<'_> {
        EmailAddresses::new(
            &*self.store,
            &self.signer,
            &*self.clock,
            self.mailer.as_ref(),
            &self.commits,
        )
    }

    /// What an account is told on which channel, and when.
    pub fn notice_preferences(&self) -> Preferences<'_> {
        Preferences::new(&*self.store, &*self.clock)
    }

    /// Browsers' push subscriptions (their pushes are sent by the webhooks' relay).
    pub fn push_subscriptions(&self) -> PushSubscriptions<'_> {
        PushSubscriptions::new(
            &*self.store,
            &self.signer,
            &*self.clock,
            self.webhook_settings.allow_private,
        )
    }

    /// The open tables: listing them and joining one.
    pub fn tables(&self) -> tables::Tables<'_> {
        tables::Tables::new(&*self.store, self)
    }

    /// The purge of rows kept long enough.
    pub fn housekeeping(&self) -> Housekeeping<'_> {
        Housekeeping::new(&*self.store, &*self.clock, self.idempotency_lifetime)
    }
}

impl Parlour {
    /// The service over a store.
    pub fn new(store: Arc<dyn EventStore>, signer: Arc<Signer>) -> Self {
        let committer = commit::GroupCommit::new(store.clone(), Default::default());
        Parlour {
            store,
            committer,
            signer,
            slots: Mutex::new(HashMap::new()),
            cache: CacheSettings::default(),
            cached_bytes: std::sync::atomic::AtomicUsize::new(0),
            ticks: std::sync::atomic::AtomicU64::new(0),
            tokens: Mutex::new(HashMap::new()),
            max_events: crate::limits::MAX_EVENTS_PER_GAME,
            // Bots are part of every table's rules of play, not an option of the deployment.
            after_commit: vec![Arc::new(bots::BotTurns), Arc::new(matches::MatchDeals)],
            commits: Arc::new(CommitSignal::default()),
            moves_recorded: std::sync::atomic::AtomicU64::new(0),
            clock: Arc::new(SystemClock),
            idempotency_lifetime: DEFAULT_IDEMPOTENCY_KEY_LIFETIME,
            require_preconditions: false,
            in_flight: Arc::new(Mutex::new(HashSet::new())),
            vacation_days: vacation::DEFAULT_VACATION_DAYS,
            webhook_settings: webhooks::WebhookSettings::default(),
            bot_pace: bots::DEFAULT_BOT_PACE,
            sandbox: false,
            revocations: Arc::new(Revocations::default()),
            push_contact: DEFAULT_PUSH_CONTACT.to_string(),
            mailer: None,
            email_settings: EmailSettings::default(),
            relying_party: RelyingParty::Off("the server was built without a public URL".into()),
        }
    }

    /// The same service taking passkeys as `party` says.
    pub fn with_relying_party(mut self, party: RelyingParty) -> Self {
        self.relying_party = party;
        self
    }

    /// The same service mailing through `mailer` (none: no mail at all), with links and
    /// limits so.
    pub fn with_email(
        mut self,
        mailer: Option<crate::mail::Mailer>,
        settings: EmailSettings,
    ) -> Self {
        self.mailer = mailer;
        self.email_settings = settings;
        self
    }

    /// The same service naming `contact` to push services in its VAPID tokens.
    pub fn with_push_contact(mut self, contact: String) -> Self {
        self.push_contact = contact;
        self
    }

    /// The same service writing its appends in groups so (`commit`).
    pub fn with_group_commit(mut self, settings: commit::GroupCommitSettings) -> Self {
        self.committer = commit::GroupCommit::new(self.store.clone(), settings);
        self
    }

    /// Groups written, and the appends in them, since the start (`/metrics`).
    pub fn commit_groups(&self) -> (u64, u64) {
        self.committer.counts()
    }

    /// The same service letting accounts create games on a test clock, when `sandbox`.
    pub fn with_sandbox(mut self, sandbox: bool) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// Whether games may be created on a test clock (`/readyz` says so).
    pub fn sandbox(&self) -> bool {
        self.sandbox
    }

    /// The same service letting each bot move no sooner than `pace` after it began to think.
    pub fn with_bot_pace(mut self, pace: Duration) -> Self {
        self.bot_pace = pace;
        self
    }

    /// The same service sending webhooks so.
    pub fn with_webhook_settings(mut self, settings: webhooks::WebhookSettings) -> Self {
        self.webhook_settings = settings;
        self
    }

    /// The same service giving each account `days` of vacation a calendar year.
    pub fn with_vacation_days(mut self, days: u32) -> Self {
        self.vacation_days = days;
        self
    }

    /// The same service telling the time by `clock`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Now, to the microsecond the log records: the time every entry and every clock
    /// decision uses.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.clock.recorded_now()
    }

    /// Now in the time of the game `sitting` is the table of: [`Parlour::now`], moved on by
    /// as much as the game's host has advanced its test clock, if it is on one. Every entry
    /// of the game and every judgment of its clocks uses it, so a test clock's game is
    /// recorded, judged and audited exactly as if that much real time had passed.
    pub(crate) fn game_now(&self, sitting: &Sitting) -> DateTime<Utc> {
        test_clock::shifted(self.now(), sitting.table.test_clock())
    }

    /// The same service remembering idempotency keys for `lifetime` after their move.
    pub fn with_idempotency_lifetime(mut self, lifetime: Duration) -> Self {
        self.idempotency_lifetime = lifetime;
        self
    }

    /// The same service refusing (428) every move that has no `If-Match`, when `required`.
    pub fn with_required_preconditions(mut self, required: bool) -> Self {
        self.require_preconditions = required;
        self
    }

    /// The signal this service gives after each of its commits (the bus waits on it).
    pub fn commit_signal(&self) -> Arc<CommitSignal> {
        self.commits.clone()
    }

    /// The same service, writing `policy`'s durable work with every batch it appends.
    pub fn with_after_commit(mut self, policy: Arc<dyn AfterCommit>) -> Self {
        self.after_commit.push(policy);
        self
    }

    /// The same service keeping its cache so (`cache`).
    pub fn with_cache(mut self, settings: CacheSettings) -> Self {
        self.cache = settings;
        self
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
}

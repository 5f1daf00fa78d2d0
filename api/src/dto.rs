//! The JSON bodies of API version 1, with their OpenAPI schemas.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::receipts::{Checkpoint, PublicKey, Receipt};
pub use crate::scopes::Scope;

/// Whether a game is still being played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A game an account created, some of whose seats are still empty: nobody moves yet.
    Waiting,
    /// Moves are still being made.
    Active,
    /// The game is over; its whole log and its seed are public.
    Finished,
}

/// A player joining a new game: a person, or a bot.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    /// The name shown at the table: 1 to 64 characters once trimmed, none of them a control
    /// character. Required for a person; a bot's seat is called after its level ("Steady
    /// bot") unless named.
    #[schema(
        example = "Ann",
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*$"
    )]
    pub name: Option<String>,
    /// A bot plays this seat from the start (`docs/bots.md`). Its token is still given: with
    /// it the seat can be taken back from the bot.
    pub bot: Option<BotLevel>,
}

/// How well a bot plays (`docs/bots.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    /// Uniform over the legal moves, weighted where uniform play would be absurd.
    Random,
    /// A heuristic from the rule sheet's own advice.
    Steady,
    /// Searches the hidden cards (determinized Monte Carlo search) in the four hidden-hand
    /// games; plays as `steady` in GOOGLY. About a second a move.
    Expert,
}

impl From<BotLevel> for parlour_domain::bots::Level {
    fn from(level: BotLevel) -> Self {
        use parlour_domain::bots::Level;
        match level {
            BotLevel::Random => Level::Random,
            BotLevel::Steady => Level::Steady,
            BotLevel::Expert => Level::Expert,
        }
    }
}

impl From<parlour_domain::bots::Level> for BotLevel {
    fn from(level: parlour_domain::bots::Level) -> Self {
        use parlour_domain::bots::Level;
        match level {
            Level::Random => BotLevel::Random,
            Level::Steady => BotLevel::Steady,
            Level::Expert => BotLevel::Expert,
        }
    }
}

/// `PUT /v1/games/{id}/seats/{seat}/bot`: the bot to play the seat.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatBot {
    /// Which bot.
    pub level: BotLevel,
}

/// `POST /v1/games`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// A game id from the catalogue.
    #[schema(example = "girl")]
    pub game: String,
    /// The players in seat order; seat 0 plays first.
    pub players: Vec<NewPlayer>,
    /// 64 hex digits. Leave it out to have the server draw one from the operating system;
    /// either way only its SHA-256 is shown until the game is over.
    #[schema(example = json!(null), pattern = "^[0-9a-fA-F]{64}$")]
    pub seed: Option<String>,
    /// The game's options (see `GET /v1/catalog/{game}/schemas`); leave it out, or send `{}`,
    /// for the defaults.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// The move clock; leave it out for none (`docs/clocks.md`).
    pub clock: Option<NewClock>,
}

/// A move clock, chosen when the game is created.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewClock {
    /// How much time each seat has.
    pub control: TimeControlPlan,
    /// What happens when a seat's time runs out.
    pub on_timeout: OnTimeout,
    /// Whether a player's vacation stops their clock in this game (yes unless `false`).
    #[serde(default = "yes")]
    pub vacation: bool,
}

fn yes() -> bool {
    true
}

/// A whole number from a request body, as JSON Schema's `integer` has it: `3` or `3.0`
/// (a number whose fraction is zero), but not `3.5`, and not outside the field's range.
fn whole_number<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<u64>,
{
    use serde::de::Error;
    let number = serde_json::Number::deserialize(deserializer)?;
    let whole = match number.as_u64() {
        Some(whole) => Some(whole),
        None => number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .and_then(|f| format!("{f:.0}").parse::<u64>().ok()),
    };
    whole
        .and_then(|whole| T::try_from(whole).ok())
        .ok_or_else(|| D::Error::custom(format!("{number} is not a whole number in range")))
}

/// How much time each seat has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeControlPlan {
    /// No clock at all.
    None {},
    /// At most `days` per move, afresh for every move.
    Correspondence {
        /// Days per move: 1, 2, 3, 5, 7, 10 or 14.
        #[schema(minimum = 1, maximum = 14)]
        #[serde(deserialize_with = "whole_number")]
        days: u8,
    },
    /// A bank of time each move draws on: `initial_hours` to begin with and `increment_hours`
    /// after each move, never above `max_hours` (at most 2160, 90 days).
    Bank {
        /// The bank each seat starts with (at least 1).
        #[schema(minimum = 1, maximum = 2160)]
        #[serde(deserialize_with = "whole_number")]
        initial_hours: u32,
        /// Added after each move the seat makes (at most `max_hours`).
        #[schema(maximum = 2160)]
        #[serde(deserialize_with = "whole_number")]
        increment_hours: u32,
        /// The most the bank may hold (at least `initial_hours`).
        #[schema(minimum = 1, maximum = 2160)]
        #[serde(deserialize_with = "whole_number")]
        max_hours: u32,
    },
}

/// What happens when a seat's time runs out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// The seat's default action is played for it (`docs/rules/<game>.md`), and play goes on.
    DefaultMove,
    /// A `steady` bot plays the seat from then on, until its player takes it back
    /// (`DELETE /v1/games/{id}/seats/{seat}/bot`).
    Bot,
    /// The seat loses; the game ends with its concession (every seat ranked, it last).
    Forfeit,
}

/// A game's move clocks, as everyone sees them.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClockView {
    /// How much time each seat has.
    pub control: TimeControlPlan,
    /// What happens when a seat's time runs out.
    pub on_timeout: OnTimeout,
    /// Whether a player's vacation stops their clock in this game.
    pub vacation: bool,
    /// The hours a move gets when its seat's bank is empty as it starts: 1 on a bank clock
    /// set since issue 35 (`docs/clocks.md`); absent on a correspondence clock, and on an
    /// older bank, where an empty bank gives a move nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_bank_hours: Option<u32>,
    /// Each seat's clock, in seat order.
    pub seats: Vec<SeatClockView>,
}

/// One seat's clock.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatClockView {
    /// The seat.
    pub seat: u8,
    /// When its time runs out, while the game waits for its move.
    pub deadline: Option<DateTime<Utc>>,
    /// The time it had when its clock last started or stopped, in seconds.
    pub time_left_seconds: i64,
    /// Whether it was reminded during this move (at 80 % of its time).
    pub reminded: bool,
    /// The end of the seat's player's vacation, when one was taken in this game.
    pub away_until: Option<DateTime<Utc>>,
}

/// A seat of a newly created game with its secret token.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedSeat {
    /// Seat number.
    pub seat: u8,
    /// The player's name.
    pub name: String,
    /// The seat's bearer token: shown once, stored only as a hash. Send it as
    /// `Authorization: Bearer <token>`.
    pub token: String,
    /// The bot that plays the seat, for a seat created for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotLevel>,
}

/// `201 Created`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedGame {
    /// The game's id.
    pub id: Uuid,
    /// The game played.
    pub game: String,
    /// The sequence number of the last event (the deal).
    pub version: u64,
    /// SHA-256 of the secret seed and the server's secret salt, in hex: check it against the
    /// seed and salt revealed at the end (`docs/audit.md`).
    pub seed_commitment: String,
    /// The options the game was created with, as stored (`{}` for the defaults). Part of the
    /// creation record the hash chain starts from (see `docs/audit.md`).
    #[schema(value_type = Object)]
    pub options: Value,
    /// One entry per seat, with its token.
    pub seats: Vec<CreatedSeat>,
    /// The server's signed word that the log began with the deal at `version`.
    pub receipt: Receipt,
}

/// The game as one viewer sees it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameView {
    /// The game's id.
    pub id: Uuid,
    /// The game played.
    pub game: String,
    /// The options the game was created with, as stored (`{}` for the defaults). Part of the
    /// creation record the hash chain starts from (see `docs/audit.md`).
    #[schema(value_type = Object)]
    pub options: Value,
    /// The rules version the game was created, and is played, under.
    pub rules_version: u32,
    /// Active or finished.
    pub status: Status,
    /// The sequence number of the last event; also the `ETag`.
    pub version: u64,
    /// The seats whose move the game waits for.
    pub to_act: Vec<u8>,
    /// What everyone sees of each seat: `seat`, `name` and the game's public facts.
    #[schema(value_type = Vec<Object>)]
    pub seats: Vec<Value>,
    /// The table as everyone sees it (see the game's rules document).
    #[schema(value_type = Object)]
    pub public: Value,
    /// What only the caller sees: `seat`, `hand`, ...; absent for spectators.
    #[schema(value_type = Option<Object>)]
    pub you: Option<Value>,
    /// Once the game is over, what each seat saw alone (its part of `you`, without `seat`),
    /// in seat order, shown to everyone: the seed is revealed and the log is whole by then,
    /// so nothing here is still secret. Absent while the game is in progress, in a view of
    /// any point of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub revealed: Option<Vec<Value>>,
    /// What the caller may send now, as complete bodies, except that `{"choose": k, "from":
    /// [ids]}` stands for a list of k distinct ids taken from `from`.
    #[schema(value_type = Vec<Object>)]
    pub legal_actions: Vec<Value>,
    /// Scores and winners, once the game is over.
    #[schema(value_type = Option<Object>)]
    pub result: Option<Value>,
    /// In a game an account created: its host, and who holds or may claim each seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seating: Option<SeatingView>,
    /// In a game played on a move clock: every seat's deadline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
    /// The match it is a deal of (`GET /v1/matches/{match}`), if it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deal_of: Option<MatchDealData>,
    /// In a game on a test clock (a sandbox server's, `docs/sandbox.md`): how far its host
    /// has moved its time on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_clock: Option<TestClockView>,
    /// In the answer to a move: the server's signed word that the log held the move's last
    /// event with this hash (`docs/receipts.md`). Keep it to prove later what was played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
}

/// One event of the log.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameEvent {
    /// Position in the log, from 1.
    pub seq: u64,
    /// The event type (`deal`, `draw`, `lay`, `resolve`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// The seat whose move produced it; null for the opening deal.
    pub actor: Option<u8>,
    /// The event, with whatever the caller could not see at the table taken out while the
    /// game is in progress.
    /// (In the document, each game's `…LoggedEvent` says which data each `type` holds.)
    #[schema(value_type = Object)]
    pub data: Value,
    /// When it was recorded.
    pub at: DateTime<Utc>,
    /// The commitment to this event's data and action that its hash covers (chain format 2):
    /// with it, anyone can check each link during play without learning a hidden card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sealed: Option<String>,
    /// This event's link in the hash chain (for a game of chain format 1, shown only once
    /// the game is over: those hashes would give hidden cards away).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// The previous link (shown whenever `hash` is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prev_hash: Option<String>,
    /// The version of its data's shape, given only when it is not 1 (the hash binds it then).
    #[serde(skip_serializing_if = "is_first_version")]
    #[schema(default = 1)]
    pub version: u16,
    /// The action that produced this batch (shown once the game is over).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::wire::AnyAction>)]
    pub command: Option<Value>,
}

/// A page of the log.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventPage {
    /// The game's id.
    pub id: Uuid,
    /// Which game it is (the catalogue's id): in a typed client, what narrows `events` to
    /// the game's own (`GirlEventPage`), whose `type` then narrows each event's `data`.
    #[schema(example = "girl")]
    pub game: String,
    /// The game's current version.
    pub version: u64,
    /// Active or finished.
    pub status: Status,
    /// The events, in order.
    pub events: Vec<GameEvent>,
    /// Pass as `cursor` for the next page; null when this page reaches the end.
    #[schema(required = true)]
    pub next: Option<String>,
    /// The same as `next`, as a number (its older name, for `after`).
    pub next_after: Option<u64>,
}

/// One check of the audit that failed, and where.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditFailure {
    /// `chain`, `replay`, `seed`, `checkpoint` or `snapshot`.
    pub check: String,
    /// The event that broke it, where one did.
    pub seq: Option<u64>,
    /// What is wrong.
    pub detail: String,
}

/// `GET /v1/games/{id}/audit`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditReport {
    /// The game's hash-chain format (`docs/audit.md`): 2 for games created now, 1 for older.
    pub chain: u8,
    /// Every event's hash matches its contents and links to the one before.
    pub chain_ok: bool,
    /// Re-deciding every recorded action gives exactly the recorded events.
    pub replay_ok: bool,
    /// Once the game is over: the seed matches the commitment and gives every recorded shuffle.
    pub seed_ok: Option<bool>,
    /// The seed, revealed once the game is over.
    pub seed: Option<String>,
    /// The server's salt (chain format 2), revealed with the seed once the game is over: it
    /// blinds the commitment and every event's seal.
    pub salt: Option<String>,
    /// The commitment published at creation: SHA-256 of the seed and the salt (format 2), or
    /// of the seed alone (format 1).
    pub seed_commitment: String,
    /// The hash of the last event (for a game of chain format 1, only once it is over).
    pub head_hash: Option<String>,
    /// How many events the log holds.
    pub events: u64,
    /// Once the game is over: the server's signed word of where it ended, as the public list
    /// holds it (`GET /v1/checkpoints`). Keep it: a log that is later shorter, longer or other
    /// at that event was rolled back or rewritten.
    pub checkpoint: Option<Checkpoint>,
    /// The checks that failed.
    pub failures: Vec<AuditFailure>,
}

/// A catalogue entry.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogEntry {
    /// Stable game id.
    pub id: String,
    /// Printed name.
    pub name: String,
    /// Fewest players.
    pub min_players: usize,
    /// Most players.
    pub max_players: usize,
    /// What the game is.
    pub summary: String,
    /// The options accepted at creation.
    #[schema(value_type = Object)]
    pub options: Value,
    /// Where to read the rules and Parlour's rule decisions.
    pub rules: String,
}

/// `GET /v1/catalog/{game}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogGame {
    /// The catalogue entry.
    #[serde(flatten)]
    pub entry: CatalogEntry,
    /// Every card, each with a stable `id`.
    #[schema(value_type = Vec<Object>)]
    pub cards: Value,
}

/// `GET /v1/catalog/{game}/schemas`: JSON Schemas (draft 2020-12) of a game's types.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameSchemas {
    /// The game id.
    pub game: String,
    /// The `options` object of `POST /v1/games`.
    #[schema(value_type = Object)]
    pub options: Value,
    /// A body of `POST /v1/games/{id}/actions`.
    #[schema(value_type = Object)]
    pub action: Value,
    /// One entry of a view's `legal_actions`: an action, except that `{"choose": k, "from":
    /// [ids]}` may stand for a list of k distinct ids.
    #[schema(value_type = Object)]
    pub legal_action: Value,
    /// The parts of a view.
    pub view: ViewSchemas,
    /// A finished game's `result`.
    #[schema(value_type = Object)]
    pub outcome: Value,
    /// One event with its `type`, as a finished game's log holds it (while a game is in
    /// progress, a viewer sees some events with hidden cards taken out).
    #[schema(value_type = Object)]
    pub event: Value,
    /// The events whose shape differs while the game is in progress, as a viewer sees them
    /// then (with the cards they could not see taken out), each with its `type`.
    #[schema(value_type = Object)]
    pub seen_event: Value,
}

/// JSON Schemas of the parts of a view.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ViewSchemas {
    /// One entry of `seats` (which also carries the server's `seat` and `name`).
    #[schema(value_type = Object)]
    pub seat: Value,
    /// `public`.
    #[schema(value_type = Object)]
    pub public: Value,
    /// `you` (which also carries the server's `seat`).
    #[schema(value_type = Object)]
    pub private: Value,
}

impl GameSchemas {
    /// The schemas the domain publishes for game `id`.
    pub fn new(id: &str, schemas: parlour_domain::GameSchemas) -> Self {
        GameSchemas {
            game: id.to_string(),
            options: schemas.options,
            action: schemas.action,
            legal_action: schemas.legal_action,
            view: ViewSchemas {
                seat: schemas.view.seat,
                public: schemas.view.public,
                private: schemas.view.private,
            },
            outcome: schemas.outcome,
            event: schemas.event,
            seen_event: schemas.seen_event,
        }
    }
}

/// `GET /v1/catalog`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Catalog {
    /// The games offered.
    pub games: Vec<CatalogEntry>,
}

/// `GET /v1/games/{id}/scorecard` as JSON.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ScorecardBody {
    /// The score-sheet.
    #[schema(value_type = Object)]
    pub scorecard: Value,
    /// The same as text a person can read.
    pub text: String,
}

impl From<parlour_domain::Description> for CatalogEntry {
    fn from(d: parlour_domain::Description) -> Self {
        CatalogEntry {
            id: d.id.to_string(),
            name: d.name.to_string(),
            min_players: d.min_players,
            max_players: d.max_players,
            summary: d.summary.to_string(),
            options: d.options,
            rules: d.rules.to_string(),
        }
    }
}

/// The creation record a game's hash chain starts from (`docs/audit.md`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreationRecord {
    /// The game's id.
    pub id: Uuid,
    /// The catalogue id of the game played.
    pub game: String,
    /// The players in seat order, each `{"name": ...}`.
    #[schema(value_type = Vec<Object>)]
    pub players: Value,
    /// The options as stored.
    #[schema(value_type = Object)]
    pub options: Value,
    /// The commitment published at creation.
    pub seed_commitment: String,
    /// The hash-chain format: 2 for games created now, 1 for older ones.
    pub chain: u8,
    /// The rules version the game was created, and replays, under.
    pub rules_version: u32,
    // No `created_at`: no hash binds it, so a file that carried it would carry one field an
    // edit changes undetected. The first event's `at`, which the chain binds, says when the
    // game was dealt (`docs/audit.md`, "The game file").
}

/// One event exactly as stored, for the game file.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StoredGameEvent {
    /// Position in the log, from 1.
    pub seq: u64,
    /// The event type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The seat whose move produced it; null for the opening events.
    pub actor: Option<u8>,
    /// The event, whole.
    #[schema(value_type = crate::wire::EventData)]
    pub data: Value,
    /// The action behind the batch this event opens; null on every other event.
    #[schema(value_type = Option<crate::wire::AnyAction>)]
    pub command: Option<Value>,
    /// When it was recorded.
    pub at: DateTime<Utc>,
    /// The seal of its data and command (chain format 2).
    pub sealed: Option<String>,
    /// The previous link.
    pub prev_hash: String,
    /// This event's link.
    pub hash: String,
    /// The version of its data's shape, given only when it is not 1 (the hash binds it then).
    #[serde(skip_serializing_if = "is_first_version")]
    #[schema(default = 1)]
    pub version: u16,
}

fn is_first_version(version: &u16) -> bool {
    *version == 1
}

/// Where the store recorded the log's end.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LogHead {
    /// The seq of the last event.
    pub version: u64,
    /// Its hash.
    pub hash: String,
}

/// `GET /v1/games/{id}/file`: a finished game as one self-contained file that
/// `tools/verify.py FILE` checks offline.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameFile {
    /// `parlour-game/2` (`/1` files, saved before, had no `checkpoint` and an unbound
    /// `created_at`).
    pub format: String,
    /// The creation record.
    pub record: CreationRecord,
    /// The revealed seed.
    pub seed: String,
    /// The revealed salt (chain format 2).
    pub salt: Option<String>,
    /// Every event, whole, in order.
    pub events: Vec<StoredGameEvent>,
    /// Where the store recorded the log's end.
    pub head: Option<LogHead>,
    /// A signed receipt for the last event of every batch.
    pub receipts: Vec<Receipt>,
    /// The server's signed word that the game ended at its last event, as the public list
    /// (`GET /v1/checkpoints`) holds it: a file cut short cannot carry a checkpoint of its own
    /// end, and `tools/verify.py` fails a file without one.
    pub checkpoint: Checkpoint,
    /// The public keys the receipts and the checkpoint are signed with.
    pub keys: Vec<PublicKey>,
}

/// One finished game's head in the public list.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ListedCheckpoint {
    /// Its place in the list: 1, 2, 3, … in the order games were published, with no gap.
    pub position: u64,
    /// The signed checkpoint.
    #[serde(flatten)]
    pub checkpoint: Checkpoint,
}

/// `GET /v1/checkpoints`: a page of the append-only list of finished games' heads.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CheckpointPage {
    /// The checkpoints after `after`, in order.
    pub checkpoints: Vec<ListedCheckpoint>,
    /// The `cursor` of the next page, or null when this page was not full (ask again later
    /// from the last position seen for games ended since).
    #[schema(required = true)]
    pub next: Option<String>,
    /// The same as `next`, as a number (its older name, for `after`).
    pub next_after: Option<u64>,
}

/// An error (RFC 9457 `application/problem+json`): every 4xx and 5xx answer has this body.
/// Problems may carry members of their own beyond those listed.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = Problem)]
pub struct ProblemDetails {
    /// The problem type, stable: `/problems/<code>`, served with a description.
    #[serde(rename = "type")]
    #[schema(example = "/problems/not-your-move")]
    pub kind: String,
    /// The problem type's title, the same for every problem of that type.
    #[schema(example = "It is not your move")]
    pub title: String,
    /// The HTTP status.
    #[schema(example = 409, minimum = 400, maximum = 599)]
    pub status: u16,
    /// What went wrong this time, for a person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// `not-your-move` and `rule-violation`: the stable name of the rule that refused the move
    /// (each game's rules document lists them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// `version-mismatch`: the game's version now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<u64>,
    /// `invalid-text`: which text, e.g. `players[1].name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// `insufficient-scope`: the scope the operation needs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `log-full`: how many events a game's log may hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// `unavailable`: `unknown` when the move may or may not have been recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "unknown")]
    pub outcome: Option<String>,
}

/// What the server adds to each entry of a view's `seats`, around the game's own seat view.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatHeader {
    /// Seat number.
    pub seat: u8,
    /// The player's name.
    pub name: String,
}

/// What the server adds to a view's `you`, around the game's own private view.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct YouHeader {
    /// The caller's seat.
    pub seat: u8,
}

/// A game's `result` when it ended at the table (a resignation or an abandonment) rather than
/// by its rules.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(tag = "ended_by", rename_all = "snake_case")]
pub enum TableResult {
    /// A player resigned.
    Resignation {
        /// The seat that resigned.
        seat: u8,
        /// Every seat ranked as the game stood, the resigning seat last, with the standing in
        /// the game's own terms (`docs/rules/<game>.md`, "Resigning and forfeiting").
        #[schema(value_type = Object)]
        concession: Value,
    },
    /// A seat's time ran out, and the game's clock forfeits it.
    Forfeit {
        /// The seat out of time.
        seat: u8,
        /// Every seat ranked as the game stood, the forfeited seat last.
        #[schema(value_type = Object)]
        concession: Value,
    },
    /// The game was declared abandoned: no result for anyone.
    Abandonment {
        /// Why, in the words of whoever declared it.
        reason: String,
    },
    /// The host called the game off before its first move: no result for anyone.
    Abort,
}

/// The `data` of a table event (`table.note`, `table.resigned`, `table.abandoned`): a fact
/// about the table, recorded in the same chain as the moves and never hidden.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum TableEventData {
    /// `table.note`.
    Note(NoteData),
    /// `table.resigned`, `table.offer_withdrawn`, `table.vacation_ended`, `table.bot_left`.
    Seat(SeatData),
    /// `table.abandoned`.
    Abandoned(AbandonedData),
    /// `table.hosted`.
    Hosted(HostedData),
    /// `table.seat_offered`.
    SeatOffered(SeatOfferedData),
    /// `table.seated`.
    Seated(SeatedData),
    /// `table.aborted`, `table.test_clock`.
    Aborted(AbortedData),
    /// `table.listed`.
    Listed(ListedData),
    /// `table.clock_set`.
    ClockSet(ClockSetData),
    /// `table.vacation_began`.
    VacationBegan(VacationBeganData),
    /// `table.reminded`.
    Reminded(RemindedData),
    /// `table.timed_out`.
    TimedOut(TimedOutData),
    /// `table.bot_seated`.
    BotSeated(BotSeatedData),
    /// `table.match_deal`.
    MatchDeal(MatchDealData),
    /// `table.test_clock_advanced`.
    TestClockAdvanced(TestClockAdvancedData),
}

/// `table.test_clock_advanced`: the host moved the game's test clock on; every entry after it
/// is recorded that much later than real time.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TestClockAdvancedData {
    /// How far, in seconds.
    pub seconds: u32,
}

/// `table.match_deal`: the game is one deal of a match (`GET /v1/matches/{match}`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchDealData {
    /// The match.
    #[serde(rename = "match")]
    pub match_id: Uuid,
    /// Which deal of the match, from 0.
    pub deal: u32,
}

/// `table.bot_seated`: a bot plays the seat from now on; every move of the seat until
/// `table.bot_left` is the bot's.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BotSeatedData {
    /// The seat.
    pub seat: u8,
    /// Which bot.
    pub level: BotLevel,
}

/// `table.reminded`: the seat has used 80 % of its time for this move.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RemindedData {
    /// The seat.
    pub seat: u8,
    /// When the reminder fell due, in microseconds since the Unix epoch: never after the
    /// entry's `at`.
    pub due: i64,
}

/// `table.timed_out`: the seat's time ran out. Under `default_move` its default action is the
/// next entry, in the same commit; under `bot` a `table.bot_seated` is; under `forfeit` the
/// game ends.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimedOutData {
    /// The seat.
    pub seat: u8,
    /// Its deadline, in microseconds since the Unix epoch: never after the entry's `at`.
    pub deadline: i64,
}

/// `table.clock_set`: the game is played on a move clock.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockSetData {
    /// How much time each seat has.
    pub control: TimeControlPlan,
    /// What happens when a seat's time runs out.
    pub on_timeout: OnTimeout,
    /// Whether a player's vacation stops their clock in this game.
    pub vacation: bool,
    /// The hours a move gets when its seat's bank is empty as it starts: recorded on a bank
    /// clock set since issue 35; absent before (an empty bank gave nothing) and on a
    /// correspondence clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_bank_hours: Option<u32>,
}

/// `table.vacation_began`: the seat's player went on vacation; its clock stops until `until`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VacationBeganData {
    /// The seat.
    pub seat: u8,
    /// When the vacation ends, in microseconds since the Unix epoch.
    pub until: i64,
}

// Each shape is closed (no field beyond its own), so an entry's data matches exactly one.

/// `table.note`: a remark kept in the log.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteData {
    /// The remark, shown to everyone.
    pub text: String,
}

/// `table.resigned`: the player in `seat` resigned; `table.offer_withdrawn`: the seat's offer
/// was withdrawn (nobody may claim it until it is offered again).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatData {
    /// The seat concerned.
    pub seat: u8,
}

/// `table.abandoned`: the game was declared abandoned.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AbandonedData {
    /// Why.
    pub reason: String,
}

/// `table.hosted`: the account that created the game hosts it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HostedData {
    /// The host's account id.
    pub account: Uuid,
    /// The host's name then.
    pub name: String,
}

/// `table.seat_offered`: a seat is offered to whoever may claim it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatOfferedData {
    /// The seat.
    pub seat: u8,
    /// Who may claim it.
    pub to: LoggedOffer,
}

/// `table.seated`: an account took a seat.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatedData {
    /// The seat.
    pub seat: u8,
    /// The account's id.
    pub account: Uuid,
    /// The account's name then.
    pub name: String,
}

/// No data: `table.aborted` (the host called the game off before its first move), and
/// `table.test_clock` (the game runs on a test clock its host may move on, only on a server
/// in sandbox mode: `docs/sandbox.md`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AbortedData {}

/// `table.listed`: the host listed the table among the open tables (`GET /v1/tables`) until
/// `until` or until its game begins.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ListedData {
    /// When the listing ends, in microseconds since the Unix epoch.
    pub until: i64,
}

/// Who may claim an offered seat, as the log records it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoggedOffer {
    /// Any account: the first to claim it.
    Anyone,
    /// Only this account.
    Account {
        /// The account's id.
        account: Uuid,
    },
    /// Whoever brings the invitation's code; only its SHA-256 is in the log.
    Invitation {
        /// SHA-256 of the code, in hex.
        code_hash: String,
    },
}

/// How a seat of a new game is filled.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeatPlan {
    /// The creating account plays this seat (at most one).
    Me {},
    /// Held for this account: only it may claim the seat (an invitation by name; its inbox
    /// shows it).
    Account {
        /// The account's id.
        account: Uuid,
    },
    /// Whoever brings the seat's invitation code, which the answer gives once.
    Invitation {},
    /// The first account to claim it.
    Anyone {},
    /// A bot plays it, for the whole game (only when the game is created).
    Bot {
        /// Which bot.
        level: BotLevel,
    },
}

/// `POST /v1/me/games`: a game an account creates and hosts.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewHostedGame {
    /// A game id from the catalogue.
    #[schema(example = "girl")]
    pub game: String,
    /// How each seat is filled, in seat order; seat 0 plays first. The game begins when every
    /// seat has a player.
    #[schema(min_items = 1, max_items = 8)]
    pub seats: Vec<SeatPlan>,
    /// 64 hex digits, as for `POST /v1/games`.
    #[schema(example = json!(null), pattern = "^[0-9a-fA-F]{64}$")]
    pub seed: Option<String>,
    /// The game's options, as for `POST /v1/games`.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// The move clock, as for `POST /v1/games`. The clocks start when the game begins.
    pub clock: Option<NewClock>,
    /// Only on a server started in sandbox mode (`/readyz` says `sandbox: true`): the game
    /// runs on a test clock, which its host moves on with
    /// `POST /v1/games/{id}/test-clock/advance` (`docs/sandbox.md`).
    #[serde(default)]
    pub test_clock: bool,
    /// Lists the table among the open tables (`GET /v1/tables`), where anyone may find it
    /// and join, for as long as this says or until its game begins. Leave it out for a table
    /// found only through its links. A listed table offers at least one seat to anyone.
    pub listing: Option<NewListing>,
}

/// How long a new table stays among the open tables.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewListing {
    /// Hours the table stays listed while a seat is open to anyone: 1 to 168 (a week).
    /// After that it leaves the list; its links go on working.
    #[schema(minimum = 1, maximum = 168, example = 24)]
    #[serde(deserialize_with = "whole_number")]
    pub hours: u8,
}

/// The kinds of move clock, to choose open tables by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    /// No clock.
    None,
    /// Days per move.
    Correspondence,
    /// A bank of hours.
    Bank,
}

impl ClockKind {
    /// The kind of `control`.
    pub fn of(control: &TimeControlPlan) -> ClockKind {
        match control {
            TimeControlPlan::None {} => ClockKind::None,
            TimeControlPlan::Correspondence { .. } => ClockKind::Correspondence,
            TimeControlPlan::Bank { .. } => ClockKind::Bank,
        }
    }

    /// As the query and the store write it.
    pub fn as_text(self) -> &'static str {
        match self {
            ClockKind::None => "none",
            ClockKind::Correspondence => "correspondence",
            ClockKind::Bank => "bank",
        }
    }
}

/// A table among the open tables: a hosted game waiting for players with a seat anyone may
/// take.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OpenTable {
    /// The game's id: join it with `POST /v1/games/{id}/join`.
    pub id: Uuid,
    /// The catalogue's id of the game played.
    #[schema(example = "girl")]
    pub game: String,
    /// The game's name, as the catalogue gives it.
    #[schema(example = "GIRL")]
    pub name: String,
    /// How many seats the table has.
    pub players: u8,
    /// The seats anyone may take now, lowest first.
    pub open_seats: Vec<u8>,
    /// Who hosts it and who sits where.
    pub seating: SeatingView,
    /// The move clock (`{"kind": "none"}` for a game without one).
    pub clock: TimeControlPlan,
    /// The game's options, as stored.
    #[schema(value_type = Object)]
    pub options: Value,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it leaves the list, if nobody fills it first.
    pub listed_until: DateTime<Utc>,
    /// Where to watch it: `/v1/games/{id}`.
    pub href: String,
}

/// `GET /v1/tables`: a page of open tables, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OpenTables {
    /// The open tables of this page, newest first (a page may hold fewer than `limit` and
    /// still have a next one).
    pub tables: Vec<OpenTable>,
    /// Pass as `cursor` for the next page; null when there is none.
    #[schema(required = true)]
    pub next: Option<String>,
}

/// A game's test clock: its time is the real time moved on by `advanced_seconds`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TestClockView {
    /// How far the host has moved the game's clock on, in all, in seconds.
    pub advanced_seconds: u64,
}

/// `POST /v1/games/{id}/test-clock/advance`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TestClockAdvance {
    /// How far to move the game's clock on, in seconds: 1 to 31,622,400 (366 days).
    #[schema(minimum = 1, maximum = 31_622_400, example = 3600)]
    #[serde(deserialize_with = "whole_number")]
    pub seconds: u32,
}

/// The answer to `POST /v1/games/{id}/test-clock/advance`: the game's clock after the jump,
/// and what the jump made due, already recorded.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TestClockAdvanced {
    /// The game's time now.
    pub now: DateTime<Utc>,
    /// How far the game's clock has been moved on, in all, in seconds.
    pub advanced_seconds: u64,
    /// Reminders (`table.reminded`, `deadline_near`) the jump made due.
    pub reminders: u64,
    /// Timeouts (`table.timed_out`, `timed_out`) the jump made due.
    pub timeouts: u64,
    /// The game's version after the jump and all it made due.
    pub version: u64,
}

/// A stream ticket: opens its stream once, within a minute, as the token that asked for it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StreamTicket {
    /// The ticket, shown once: put it in the stream's URL as `?ticket=` (never a token).
    #[schema(example = "stkt_5f0c8e2d9a4b7c1e3f6a8d0b2c4e6f8a1b3d5f7092c4e6a8b0d2f4a6c8e0b2d4")]
    pub ticket: String,
    /// Until when it opens its stream (60 seconds after it was made).
    pub expires_at: DateTime<Utc>,
    /// The stream's path with the ticket: what to hand to `new EventSource(…)`, after the
    /// server's address.
    #[schema(
        example = "/v1/me/stream?ticket=stkt_5f0c8e2d9a4b7c1e3f6a8d0b2c4e6f8a1b3d5f7092c4e6a8b0d2f4a6c8e0b2d4"
    )]
    pub url: String,
}

/// An invitation to a seat: the code is the invitation, shown once to the host.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Invitation {
    /// The secret code: whoever has it may claim the seat, once.
    pub code: String,
    /// The claim request to make with it, for an API client: `POST` this path with the code.
    pub claim: String,
    /// The web client's page for joining with it, to share as a link.
    pub link: String,
}

/// A seat of a hosted game, as the host is told when the game is created or a seat offered.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HostedSeat {
    /// The seat.
    pub seat: u8,
    /// Who plays it, once someone does.
    pub holder: Option<AccountRef>,
    /// Who may claim it while it is empty.
    pub open_to: Option<OpenTo>,
    /// For a seat offered by invitation: the code, shown only in this answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invitation: Option<Invitation>,
    /// For a seat a bot plays: which bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotLevel>,
}

/// `201 Created` for `POST /v1/me/games`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HostedGame {
    /// The game's id.
    pub id: Uuid,
    /// The game played.
    pub game: String,
    /// The game's version: the deal and the table's opening entries.
    pub version: u64,
    /// Waiting until every seat has a player.
    pub status: Status,
    /// SHA-256 of the secret seed and salt (see `docs/audit.md`).
    pub seed_commitment: String,
    /// The options the game was created with, as stored.
    #[schema(value_type = Object)]
    pub options: Value,
    /// Every seat, with its invitation's code where it has one.
    pub seats: Vec<HostedSeat>,
    /// Until when the table is listed among the open tables, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listed_until: Option<DateTime<Utc>>,
}

/// An account as a table shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct AccountRef {
    /// The account's id.
    pub id: Uuid,
    /// Its name when it sat down (or created the game).
    pub name: String,
}

/// Who may claim an empty seat (an invitation's code is never shown here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OpenTo {
    /// Any account.
    Anyone,
    /// Only this account.
    Account {
        /// The account's id.
        account: Uuid,
    },
    /// Whoever brings the seat's invitation code.
    Invitation,
}

/// A view's `seating`, in a game an account created: the host, and who holds or may claim
/// each seat.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatingView {
    /// The account that created the game.
    pub host: AccountRef,
    /// Every seat, in order.
    pub seats: Vec<SeatingSeat>,
    /// Until when the table is listed among the open tables (`GET /v1/tables`), if its host
    /// listed it; it leaves the list then, or when its game begins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listed_until: Option<DateTime<Utc>>,
}

/// One seat of [`SeatingView`].
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatingSeat {
    /// The seat.
    pub seat: u8,
    /// Who plays it, once someone does.
    pub holder: Option<AccountRef>,
    /// Who may claim it while it is empty; `null` once taken or while its offer is withdrawn.
    pub open_to: Option<OpenTo>,
    /// The bot playing it, if one does (for its holder, until they take it back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotLevel>,
}

/// `POST /v1/games/{id}/seats/{seat}/claim`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatClaim {
    /// The seat's invitation code, for a seat offered by invitation; leave it out for a seat
    /// open to anyone or held for you.
    #[schema(
        example = "inv_0123456789abcdef0123456789abcdef",
        max_length = 256,
        pattern = "^[!-~]+$"
    )]
    pub code: Option<String>,
}

/// `PUT /v1/games/{id}/seats/{seat}/offer`: offer an empty seat again, or to someone else.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatOffer {
    /// Who may claim it (`me` is not an offer: the host claims a seat like anyone).
    pub to: SeatPlan,
}

/// What an inbox row asks of the account now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Asked {
    /// It is your move.
    Move,
    /// A seat is held for you: claim it to play.
    Claim,
    /// Nothing: others must act, or the game is over.
    Nothing,
}

/// One game of `GET /v1/me/games`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct InboxGame {
    /// The game's id.
    pub id: Uuid,
    /// The game played.
    pub game: String,
    /// Waiting, active or finished.
    pub status: Status,
    /// The game's version (its `ETag`).
    pub version: u64,
    /// The seat you play, if you sit at this table.
    pub seat: Option<u8>,
    /// Whether you host it.
    pub host: bool,
    /// What is asked of you now.
    pub asked: Asked,
    /// By when you must answer, if the game's clock says so (an inbox row with `asked` of
    /// `move` under a move clock).
    pub deadline: Option<DateTime<Utc>>,
    /// The seats the game waits for.
    pub to_act: Vec<u8>,
    /// The seat held for you (`asked` is `claim`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offered_seat: Option<u8>,
    /// How it ended, once it has.
    #[schema(value_type = Option<Object>)]
    pub result: Option<Value>,
    /// The match it is a deal of (`GET /v1/matches/{match}`), if it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deal_of: Option<MatchDealData>,
    /// Who plays each seat, in seat order, as everyone at the table sees it.
    pub players: Vec<InboxSeat>,
    /// When the game was created: with `players`, what tells two games of one kind apart.
    pub created_at: DateTime<Utc>,
    /// The last thing that happened: the log's last entry as everyone sees it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<InboxLast>,
}

/// The log's last entry, in an inbox row: its type and whose move made it are public in the
/// log as everyone sees it (`GET /v1/games/{id}/events`), its data is not given here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct InboxLast {
    /// Its position in the log (the game's `version`).
    pub seq: u64,
    /// The event type (`deal`, `lay`, `ball`, `table.seated`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// The seat whose move made it; absent for the deal and for table events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// When it was recorded.
    pub at: DateTime<Utc>,
}

/// One seat of an inbox row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct InboxSeat {
    /// The seat, from 0.
    pub seat: u8,
    /// The name of the person who sits there; absent while the seat waits for someone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The bot that plays the seat, if one does (`random`, `steady`, `expert`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
}

/// What a notice tells the account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// It is your move.
    YourTurn,
    /// A seat is now held for you: claim it to play.
    Invited,
    /// Someone took a seat (an invitation was accepted).
    SeatClaimed,
    /// The last seat was taken: the game has begun.
    Started,
    /// The game is over.
    Ended,
    /// You have used 80 % of your time for this move.
    DeadlineNear,
    /// Your time ran out: your default move was played for you, a bot took your seat, or your
    /// seat was forfeited (the notice's `timed_out` says which, and the move made).
    TimedOut,
}

/// What the table did for your seat when its time ran out (with a `timed_out` notice).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TimeoutTaken {
    /// Your seat, whose time ran out.
    pub seat: u8,
    /// What was done: your default move made for you (`default_move`), a bot seated to play
    /// for you (`bot`), or your seat forfeited and the game ended (`forfeit`).
    pub then: OnTimeout,
    /// The move made for you, as the log records it (`then` is `default_move`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub action: Option<Value>,
    /// The bot that plays your seat now (`then` is `bot`); take the seat back with
    /// `DELETE /v1/games/{id}/seats/{seat}/bot`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotLevel>,
}

/// One event of `GET /v1/me/stream` (its SSE `id:` is `id`) or `GET /v1/me/notices`: what one
/// commit did to one of your games, and the game's inbox row just after it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Notice {
    /// The commit's place in the server's feed: send it as `Last-Event-ID` (or `after`) to
    /// be given exactly the notices after this one.
    #[schema(example = "0-1234", pattern = "^[0-9]{1,20}-[0-9]{1,20}$")]
    pub id: String,
    /// The game.
    pub game: Uuid,
    /// The game's version just after the commit.
    pub version: u64,
    /// What it means for you; empty when it asks nothing new of you (another player moved).
    pub notices: Vec<NoticeKind>,
    /// With `timed_out`: what was done for your seat (the move made for it, the bot seated,
    /// or the forfeit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<TimeoutTaken>,
    /// The game's inbox row just after the commit.
    pub row: InboxGame,
}

/// `GET /v1/me/notices`: the notices after `after`, and where to go on from.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct NoticePage {
    /// The notices, oldest first.
    pub notices: Vec<Notice>,
    /// Send this as `cursor` next time: the id of the last notice, or where the feed was read
    /// to when there was none. Never null: a feed has no last page.
    #[schema(example = "0-1234", pattern = "^[0-9]{1,20}-[0-9]{1,20}$")]
    pub next: String,
}

/// `GET /v1/me/games`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Inbox {
    /// Your games: those where you must act first, most urgent deadline first; then active
    /// games where others must act; then games waiting for players; then finished games,
    /// newest first, `limit` at a time.
    pub games: Vec<InboxGame>,
    /// Pass as `cursor` for the next page of finished games; null when there is none.
    #[schema(required = true)]
    pub next: Option<String>,
}

/// `POST /v1/accounts`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAccount {
    /// The account's name, as a player's name: 1 to 64 characters once trimmed, none of them a
    /// control character.
    #[schema(
        example = "Ann",
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*$"
    )]
    pub name: String,
    /// The name of the account's first token (a device or an app), by the same rules; `first`
    /// when left out.
    #[schema(
        example = "laptop",
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*$"
    )]
    pub token_name: Option<String>,
}

/// `POST /v1/me/tokens`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAccountToken {
    /// The token's name (a device or an app), by the rules of a player's name.
    #[schema(
        example = "phone",
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*$"
    )]
    pub name: String,
    /// What the token may do: some of the scopes of the token minting it. Left out, the new
    /// token may do what the minting token may.
    #[serde(default)]
    #[schema(min_items = 1, example = json!(["games:read", "games:play"]))]
    pub scopes: Option<Vec<Scope>>,
}

/// An account.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Account {
    /// The account's id.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// One of an account's tokens, without its secret (which is shown only when it is minted).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AccountToken {
    /// The token's id: `DELETE /v1/me/tokens/{token_id}` revokes it.
    pub id: Uuid,
    /// The name it was given.
    pub name: String,
    /// When it was minted.
    pub created_at: DateTime<Utc>,
    /// Whether it is the token this request was sent with.
    pub current: bool,
    /// How it was made: with the account (`account`), minted by a signed-in device
    /// (`token`), with a sign-in code (`code`), a mailed sign-in link (`email`) or a passkey
    /// (`passkey`), or granted to an app (`app`). Absent for tokens made before Parlour
    /// recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "passkey")]
    pub signed_in_with: Option<SignedInWith>,
    /// What the token may do.
    pub scopes: Vec<Scope>,
    /// The `client_id` of the app the token was granted to (through OAuth, or minted by such
    /// a token); `null` for the player's own.
    #[schema(example = "example.app")]
    pub app: Option<String>,
}

/// How an account token was made: each is a sign-in of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SignedInWith {
    /// Made with the account.
    Account,
    /// Minted by a device signed in already.
    Token,
    /// A one-time sign-in code from a signed-in device.
    Code,
    /// One of the account's passkeys.
    Passkey,
    /// A sign-in link mailed to one of the account's verified addresses.
    Email,
    /// Granted to an app the player approved.
    App,
}

/// A token just minted, with its secret: shown only in this answer, stored only as a hash.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct IssuedAccountToken {
    /// The token's id.
    pub id: Uuid,
    /// The name it was given.
    pub name: String,
    /// When it was minted.
    pub created_at: DateTime<Utc>,
    /// What it may do.
    pub scopes: Vec<Scope>,
    /// The account token: send it as `Authorization: Bearer <secret>`. It begins with `acct_`,
    /// so it is never mistaken for a seat token.
    #[schema(example = "acct_3f1c9a…")]
    pub secret: String,
}

/// `201 Created` for `POST /v1/accounts`: the account and its first token.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedAccount {
    /// The account.
    pub account: Account,
    /// Its first token, with the secret.
    pub token: IssuedAccountToken,
}

/// `GET /v1/me`: the account and its live tokens.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Me {
    /// The account the token opens.
    pub account: Account,
    /// Its tokens not revoked, oldest first, without their secrets.
    pub tokens: Vec<AccountToken>,
}

/// `POST /v1/me/vacation`: go away for some whole days from now.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewVacation {
    /// How many days, from 1 to the days left this year.
    #[schema(minimum = 1, maximum = 366)]
    #[serde(deserialize_with = "whole_number")]
    pub days: u32,
}

/// An account's vacation: its days this calendar year, and whether it is away now. While
/// away, its clocks stop in every game it sits in that allows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VacationStatus {
    /// Vacation days a calendar year on this server.
    pub days_per_year: u32,
    /// Days taken this year (a part of a day counts as a day; an early return gives the rest
    /// back).
    pub days_used: u32,
    /// Days left this year.
    pub days_left: u32,
    /// When the vacation under way ends; absent when not away.
    pub away_until: Option<DateTime<Utc>>,
}

/// `201 Created` for `POST /v1/me/sign-in-codes`: a one-time code that signs this account in
/// on another device. Shown only here.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SignInCode {
    /// The code: whoever brings it to `redeem` before `expires_at` gets a new token for this
    /// account, once. It begins with `signin_`.
    #[schema(example = "signin_9b2f41c07d3a5e88aa01")]
    pub code: String,
    /// When it stops working (ten minutes from now).
    pub expires_at: DateTime<Utc>,
    /// Where the new device sends it: `POST` with `{"code", "token_name"}`.
    pub redeem: String,
}

/// `POST /v1/accounts/sign-in`: a new device signs in with a code from a signed-in one.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignIn {
    /// The code the signed-in device was given (`signin_…`), or the one in a sign-in mail
    /// (`mailin_…`).
    #[schema(example = "signin_9b2f41c07d3a5e88aa01", max_length = 100)]
    pub code: String,
    /// The new token's name (this device), by the rules of a player's name.
    #[schema(
        example = "laptop",
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*$"
    )]
    pub token_name: String,
}

/// `POST /v1/accounts/email-sign-in`: mail me a sign-in link.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailSignIn {
    /// An address an account here has verified.
    #[schema(example = "ann@example.org", max_length = 254)]
    pub address: String,
}

/// What `POST /v1/accounts/email-sign-in` did: the same answer whether or not an account
/// here has verified the address, so that it tells nobody who plays here.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EmailSignInRequested {
    /// The address, as Parlour writes it (its domain lowercased).
    pub address: String,
    /// Until when the mailed link works, if one was mailed.
    pub expires_at: DateTime<Utc>,
}

/// `POST /v1/me/passkey-registrations`, `POST /v1/accounts/passkey-challenges`: a WebAuthn
/// ceremony begun. Hand `public_key` to the browser
/// (`navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(public_key)})`,
/// or `parseRequestOptionsFromJSON` and `get` to sign in), then send what it gives back with
/// `ceremony`, before `expires_at`. A ceremony is finished once: a failed answer needs a new one.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PasskeyChallenge {
    /// The ceremony's id: send it back with the browser's answer.
    pub ceremony: Uuid,
    /// The options for the browser, in the WebAuthn JSON form (binary fields base64url):
    /// `PublicKeyCredentialCreationOptionsJSON` to register, `…RequestOptionsJSON` to sign in.
    #[schema(value_type = Object)]
    pub public_key: Value,
    /// Until when the ceremony can be finished.
    pub expires_at: DateTime<Utc>,
}

/// `POST /v1/me/passkeys`: the browser's answer to a registration ceremony.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPasskey {
    /// The ceremony `POST /v1/me/passkey-registrations` began.
    pub ceremony: Uuid,
    /// A name to know the passkey by (the device or password manager holding it), by the
    /// rules of a player's name.
    #[schema(
        example = "phone",
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*$"
    )]
    pub name: String,
    /// The new credential as the browser gives it: `PublicKeyCredential.toJSON()` (`id`,
    /// `rawId`, `type`, `response.clientDataJSON`, `response.attestationObject`, ...).
    #[schema(value_type = Object)]
    pub credential: Value,
}

/// One of an account's passkeys.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Passkey {
    /// Its id: `DELETE /v1/me/passkeys/{passkey_id}` removes it.
    pub id: Uuid,
    /// The name it was given.
    pub name: String,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// When it last signed a device in; absent if it never has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_used_at: Option<DateTime<Utc>>,
}

/// `GET /v1/me/passkeys`: the account's passkeys.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PasskeyList {
    /// Oldest first.
    pub passkeys: Vec<Passkey>,
    /// Whether this server takes passkeys (its public URL names a host a browser will make
    /// passkeys for: a domain name, or the loopback address as `localhost`).
    pub passkeys_enabled: bool,
}

/// `POST /v1/accounts/passkey-sign-in`: a new device signs in with a passkey.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasskeySignIn {
    /// The ceremony `POST /v1/accounts/passkey-challenges` began.
    pub ceremony: Uuid,
    /// The new token's name (this device), by the rules of a player's name.
    #[schema(
        example = "laptop",
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\x00-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x1F\x7F-\x9F]*$"
    )]
    pub token_name: String,
    /// The assertion as the browser gives it: `PublicKeyCredential.toJSON()` (`id`, `rawId`,
    /// `type`, `response.clientDataJSON`, `response.authenticatorData`,
    /// `response.signature`, `response.userHandle`).
    #[schema(value_type = Object)]
    pub credential: Value,
}

/// What a webhook can be told of. Each message is about one of the registering account's
/// games and carries only what that account may see (its inbox row); fetch the game's view
/// for the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum WebhookEventType {
    /// The last seat was taken: a hosted game has begun.
    #[serde(rename = "game.started")]
    GameStarted,
    /// It is the move of one of the account's seats.
    #[serde(rename = "game.your_turn")]
    GameYourTurn,
    /// One of the account's seats has used 80 % of its time for this move.
    #[serde(rename = "game.deadline_near")]
    GameDeadlineNear,
    /// One of the account's seats ran out of time.
    #[serde(rename = "game.timed_out")]
    GameTimedOut,
    /// The game is over.
    #[serde(rename = "game.finished")]
    GameFinished,
    /// A match the account plays in is over (its last deal's commit).
    #[serde(rename = "match.finished")]
    MatchFinished,
    /// Someone took a seat of a game the account hosts or sits in.
    #[serde(rename = "invitation.accepted")]
    InvitationAccepted,
    /// A seat of a game is held for the account: claim it to play.
    #[serde(rename = "invitation.received")]
    InvitationReceived,
    /// A ping asked for by `POST /v1/webhooks/{id}/test` (always sent, whatever `events`).
    #[serde(rename = "webhook.test")]
    WebhookTest,
}

impl WebhookEventType {
    /// The type's name as sent in `type`.
    pub fn name(self) -> &'static str {
        match self {
            WebhookEventType::GameStarted => "game.started",
            WebhookEventType::GameYourTurn => "game.your_turn",
            WebhookEventType::GameDeadlineNear => "game.deadline_near",
            WebhookEventType::GameTimedOut => "game.timed_out",
            WebhookEventType::GameFinished => "game.finished",
            WebhookEventType::MatchFinished => "match.finished",
            WebhookEventType::InvitationAccepted => "invitation.accepted",
            WebhookEventType::InvitationReceived => "invitation.received",
            WebhookEventType::WebhookTest => "webhook.test",
        }
    }

    /// The type named `name`.
    pub fn named(name: &str) -> Option<Self> {
        [
            WebhookEventType::GameStarted,
            WebhookEventType::GameYourTurn,
            WebhookEventType::GameDeadlineNear,
            WebhookEventType::GameTimedOut,
            WebhookEventType::GameFinished,
            WebhookEventType::MatchFinished,
            WebhookEventType::InvitationAccepted,
            WebhookEventType::InvitationReceived,
            WebhookEventType::WebhookTest,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }
}

/// `POST /v1/webhooks`: an endpoint to be told of this account's games.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewWebhook {
    /// Where to send: an absolute `https` (or `http`) URL on a public address, without
    /// credentials or fragment.
    #[schema(max_length = 2000, example = "https://example.com/parlour/hooks")]
    pub url: String,
    /// What to send; at least one type, `webhook.test` aside.
    #[schema(min_items = 1)]
    pub events: Vec<WebhookEventType>,
    /// A note for yourself.
    #[schema(max_length = 200)]
    #[serde(default)]
    pub description: Option<String>,
}

/// `PATCH /v1/webhooks/{id}`: what to change; a field left out stays as it is.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookChange {
    /// A new destination.
    #[schema(max_length = 2000)]
    #[serde(default)]
    pub url: Option<String>,
    /// A new set of event types.
    #[schema(min_items = 1)]
    #[serde(default)]
    pub events: Option<Vec<WebhookEventType>>,
    /// A new note.
    #[schema(max_length = 200)]
    #[serde(default)]
    pub description: Option<String>,
    /// `true` to send again (after the server disabled it, or you did), `false` to stop.
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// A registered endpoint (its secret is shown only when it is made).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Webhook {
    /// Its id.
    pub id: Uuid,
    /// Where messages go.
    pub url: String,
    /// Your note.
    pub description: String,
    /// What it is sent.
    pub events: Vec<WebhookEventType>,
    /// Whether messages are sent to it now.
    pub enabled: bool,
    /// Why the server disabled it: the receiver answered `410 Gone`, or every delivery failed
    /// for three days.
    pub disabled_reason: Option<String>,
    /// Since when every delivery has failed, if they have.
    pub failing_since: Option<DateTime<Utc>>,
    /// Until when the secret before the last rotation also signs.
    pub previous_secret_until: Option<DateTime<Utc>>,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/webhooks` and `…/rotate-secret`: the endpoint, and its signing secret, shown
/// this once.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookWithSecret {
    /// The endpoint.
    pub webhook: Webhook,
    /// The Standard Webhooks signing secret: verify `webhook-signature` with it.
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwz1EpC5dZXW0=")]
    pub secret: String,
}

/// `GET /v1/webhooks`: the account's endpoints.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookList {
    /// Oldest first.
    pub webhooks: Vec<Webhook>,
}

// --- Web Push ------------------------------------------------------------------------------

/// The server's Web Push identity: what a browser subscribes with.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PushKey {
    /// The VAPID public key (RFC 8292): an uncompressed P-256 point, base64url without
    /// padding. Pass it, decoded, as `applicationServerKey` to `pushManager.subscribe()`.
    #[schema(
        example = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    )]
    pub application_server_key: String,
}

/// A browser's push subscription, exactly as its `PushSubscription.toJSON()` gives it (hence
/// the camelCase of `expirationTime`).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NewPushSubscription {
    /// The push service's URL for this browser.
    #[schema(example = "https://push.example.net/send/abc123")]
    pub endpoint: String,
    /// When the browser will end the subscription (milliseconds since 1970), if it says.
    #[serde(default)]
    pub expiration_time: Option<f64>,
    /// The keys every message is sealed to (RFC 8291).
    pub keys: PushSubscriptionKeys,
}

/// A subscription's keys, base64url.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushSubscriptionKeys {
    /// The browser's P-256 public key, uncompressed (65 bytes).
    #[schema(
        example = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    )]
    pub p256dh: String,
    /// The browser's authentication secret (16 bytes).
    #[schema(example = "BTBZMqHH6r4Tts7J_aSIgg")]
    pub auth: String,
}

/// A push subscription as its account sees it (never its keys).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PushSubscription {
    /// Its id.
    pub id: Uuid,
    /// The push service's URL it is sent to.
    pub endpoint: String,
    /// The device token that made it: revoking that token ends it.
    pub token_id: Option<Uuid>,
    /// Whether notices are pushed to it now.
    pub enabled: bool,
    /// Why the server stopped pushing to it, when it did.
    pub disabled_reason: Option<String>,
    /// Since when every push has failed.
    pub failing_since: Option<DateTime<Utc>>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
}

/// `GET /v1/me/push-subscriptions`: the account's subscriptions.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PushSubscriptionList {
    /// Oldest first.
    pub subscriptions: Vec<PushSubscription>,
}

/// `POST /v1/me/email-addresses`: an address to be told at, once its owner follows the link
/// mailed to it.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEmailAddress {
    /// The address (at most 254 characters).
    #[schema(example = "ann@example.org")]
    pub address: String,
}

/// `PATCH /v1/me/email-addresses/{id}`: whether notices are mailed to the address.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailAddressChange {
    /// `false` stops the notices (as the one-click unsubscribe in every mail does); `true`
    /// starts them again.
    pub notices: bool,
}

/// An address as its account sees it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EmailAddress {
    /// Its id.
    pub id: Uuid,
    /// The address.
    #[schema(example = "ann@example.org")]
    pub address: String,
    /// Whether its owner followed the link mailed to it. Nothing but that link is mailed to
    /// an address before.
    pub verified: bool,
    /// When it was verified.
    pub verified_at: Option<DateTime<Utc>>,
    /// Whether notices are mailed to it (once verified).
    pub notices: bool,
    /// Why notices stopped, when they did (unsubscribed, or refused by its mail server).
    pub stopped_reason: Option<String>,
    /// When it was added.
    pub created_at: DateTime<Utc>,
}

/// `GET /v1/me/email-addresses`: the account's addresses.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EmailAddressList {
    /// Oldest first.
    pub addresses: Vec<EmailAddress>,
    /// Whether this server sends mail at all (its operator set `--smtp-url`).
    pub email_enabled: bool,
}

/// `POST /v1/email/verify`, `POST /v1/email/unsubscribe`: the token from a mailed link.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailLinkToken {
    /// The `token` of the link.
    pub token: String,
}

/// When the account is not to be disturbed: a span of the day in its time zone. A notice
/// made in it is pushed and mailed when it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuietHours {
    /// Local start, `HH:MM`.
    #[schema(example = "22:00")]
    pub from: String,
    /// Local end, `HH:MM` (before `from` for a span that passes midnight).
    #[schema(example = "07:30")]
    pub until: String,
}

/// What the account is told on each channel, and when (`GET`/`PUT /v1/me/notice-preferences`).
/// Apps' webhooks choose their own event types and are not bound by these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NoticePreferences {
    /// The notices pushed to the account's browsers.
    pub push: Vec<WebhookEventType>,
    /// The notices mailed to its verified addresses.
    pub email: Vec<WebhookEventType>,
    /// One mail a day, at `digest_hour`, with every notice since the last, instead of a mail
    /// for each.
    pub email_digest: bool,
    /// The local hour (0-23) of the daily digest.
    #[schema(minimum = 0, maximum = 23)]
    #[serde(deserialize_with = "whole_number")]
    pub digest_hour: u8,
    /// When nothing is pushed or mailed; `null` for never.
    pub quiet_hours: Option<QuietHours>,
    /// The account's time zone, an IANA name, for quiet hours and the digest.
    #[schema(example = "Europe/London")]
    pub time_zone: String,
}

/// What one push says (its payload, sealed to the browser's keys): enough to show a system
/// notification and open the table, and nothing a player could not see in their inbox
/// (`docs/playing-across-days.md`; not an HTTP answer, so not in the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PushNotice {
    /// The notice's type, as the webhooks name it (`game.your_turn`, ...).
    #[serde(rename = "type")]
    pub event_type: String,
    /// A title to show.
    pub title: String,
    /// A line to show under it.
    pub body: String,
    /// The game it is about, if any.
    pub game: Option<Uuid>,
    /// The page to open: the game's table in `/play`.
    pub url: String,
    /// Groups a game's notices, so that a newer one replaces the older on the device.
    pub tag: String,
    /// When the server made it.
    pub timestamp: DateTime<Utc>,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// To be sent (again) at `next_attempt`.
    Pending,
    /// A 2xx came back.
    Delivered,
    /// Given up: out of attempts, or the endpoint was disabled. `…/retry` sends it again.
    Failed,
}

/// One attempt to deliver a message.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryAttempt {
    /// When it was made.
    pub at: DateTime<Utc>,
    /// The receiver's status, if it answered in time.
    pub status: Option<u16>,
    /// How long it took, in milliseconds.
    pub latency_ms: u64,
    /// The answer's first bytes, or why there was none.
    pub response: String,
}

/// One message owed to an endpoint, and every attempt to deliver it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Delivery {
    /// The message's `webhook-id`, the same on every attempt.
    #[schema(example = "msg_2b0c8f0e6a5d4c3b2a190817")]
    pub id: String,
    /// What it tells of.
    #[serde(rename = "type")]
    pub event_type: WebhookEventType,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// Where it stands.
    pub state: DeliveryState,
    /// When it is next sent, if pending.
    pub next_attempt: Option<DateTime<Utc>>,
    /// The attempts, oldest first.
    pub attempts: Vec<DeliveryAttempt>,
}

/// `GET /v1/webhooks/{id}/deliveries`: newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryPage {
    /// The deliveries.
    pub deliveries: Vec<Delivery>,
    /// Send as `cursor` for the next page; null on the last.
    #[schema(required = true)]
    pub next: Option<String>,
}

/// The body of every webhook message (Standard Webhooks' `type`, `timestamp`, `data`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookPayload {
    /// What it tells of.
    #[serde(rename = "type")]
    pub event_type: WebhookEventType,
    /// When the server made the message.
    pub timestamp: DateTime<Utc>,
    /// The game as the account's inbox shows it just after the commit told of (for
    /// `webhook.test`, absent).
    pub data: Option<InboxGame>,
    /// For `match.finished`: the match, as `GET /v1/matches/{id}` shows it.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_view: Option<MatchView>,
    /// For `game.timed_out`: what was done for the account's seat (the move made for it,
    /// the bot seated, or the forfeit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<TimeoutTaken>,
}

// --- Matches -------------------------------------------------------------------------------

/// What a match is played to (`docs/matches.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MatchTarget {
    /// The first to this total wins: GIRL, The CAR Game, British Birds, History of England.
    Points {
        /// The total to reach, 1 to 1000.
        #[serde(deserialize_with = "whole_number")]
        #[schema(minimum = 1, maximum = 1000)]
        points: u32,
    },
    /// A GOOGLY series of this many matches, the most County Championship points winning.
    Deals {
        /// How many matches, 1 to 25.
        #[serde(deserialize_with = "whole_number")]
        #[schema(minimum = 1, maximum = 25)]
        deals: u32,
    },
}

impl From<MatchTarget> for parlour_domain::matches::Target {
    fn from(target: MatchTarget) -> Self {
        match target {
            MatchTarget::Points { points } => Self::Points { points },
            MatchTarget::Deals { deals } => Self::Deals { deals },
        }
    }
}

impl From<parlour_domain::matches::Target> for MatchTarget {
    fn from(target: parlour_domain::matches::Target) -> Self {
        use parlour_domain::matches::Target;
        match target {
            Target::Points { points } => Self::Points { points },
            Target::Deals { deals } => Self::Deals { deals },
        }
    }
}

/// `POST /v1/matches`: a match of one game, its deals played one after another until the
/// target is reached. Give `players` for seats held by bearer tokens (no account needed), or
/// `seats` for seats held by accounts (with an account token, as `POST /v1/me/games`).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMatch {
    /// A game id from the catalogue.
    #[schema(example = "girl")]
    pub game: String,
    /// The players in seat order of the first deal, each holding one token for the whole
    /// match.
    pub players: Option<Vec<NewPlayer>>,
    /// How each seat is filled, as for `POST /v1/me/games`: the players who take the seats of
    /// the first deal play every deal.
    pub seats: Option<Vec<SeatPlan>>,
    /// The game's options, as for `POST /v1/games`, for every deal. British Birds' `play_to`
    /// is not given: the match is the series.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// The move clock of every deal, as for `POST /v1/games`.
    pub clock: Option<NewClock>,
    /// What the match is played to; the sheet's own target if left out (`docs/matches.md`).
    pub target: Option<MatchTarget>,
    /// 64 hex digits: each deal's seed is derived from it and the deal's number under a key
    /// only the server holds, so the same seed deals the same cards at every table of this
    /// server and nobody can work out a deal before it ends (`docs/matches.md`). Leave it out
    /// to have each deal's seed drawn by the server.
    #[schema(example = json!(null), pattern = "^[0-9a-fA-F]{64}$")]
    pub seed: Option<String>,
}

/// A seat of a new match held by a token.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedMatchSeat {
    /// The player's seat in the first deal (the deal passes to the left after each).
    pub seat: u8,
    /// The player's name.
    pub name: String,
    /// The player's bearer token for every deal of the match: shown once, stored only as a
    /// hash. Send it as `Authorization: Bearer <token>` to any deal's routes.
    pub token: Option<String>,
    /// The bot that plays the seat, for a seat created for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotLevel>,
}

/// `201 Created`: the match and its first deal.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedMatch {
    /// The match's id.
    pub id: Uuid,
    /// The game.
    pub game: String,
    /// What it is played to.
    pub target: MatchTarget,
    /// The first deal's game id.
    pub first_deal: Uuid,
    /// The seats held by tokens (a match created with `players`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub seats: Vec<CreatedMatchSeat>,
    /// The first deal as its host is told (a match created with `seats`), with each
    /// invitation's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosted: Option<HostedGame>,
}

/// Who a match is between: a player (every game but GOOGLY) or a side (GOOGLY's series).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchCompetitor {
    /// Its number: the player's seat in the first deal, or the side (0 or 1).
    pub competitor: u8,
    /// Its name: the player's as the latest deal shows it, or the side's.
    pub name: String,
    /// Its total over the deals that counted.
    pub total: i64,
}

/// One deal of a match.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchDealRow {
    /// Which deal, from 0.
    pub deal: u32,
    /// Its game: `GET /v1/games/{id}`.
    pub game: Uuid,
    /// Waiting, active or finished.
    pub status: Status,
    /// Each competitor's seat in this deal, by competitor number (the game's last seat
    /// deals); absent in GOOGLY, whose sides keep their seats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seats: Option<Vec<u8>>,
    /// Once it is played out: what each competitor scored towards the target.
    pub points: Option<Vec<i64>>,
    /// Once it is over: `play`, `resignation`, `forfeit`, `abandonment` or `abort`.
    pub ended_by: Option<String>,
}

/// Where a match stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// Its deals are being played.
    Playing,
    /// Won (by `winners`).
    Finished,
    /// A competitor conceded a deal, and with it the match (`conceded_by`).
    Conceded,
    /// A deal was abandoned or aborted: no result.
    Abandoned,
}

/// `GET /v1/matches/{id}`: the match, public like its deals.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchView {
    /// The match's id.
    pub id: Uuid,
    /// The game.
    pub game: String,
    /// What it is played to.
    pub target: MatchTarget,
    /// Where it stands.
    pub status: MatchStatus,
    /// The competitors, by number, with their totals.
    pub competitors: Vec<MatchCompetitor>,
    /// The winners' competitor numbers, once it is over (several only after a tied series,
    /// or at the deal limit).
    pub winners: Vec<u8>,
    /// Who conceded it, if someone did.
    pub conceded_by: Option<u8>,
    /// Every deal so far, in order.
    pub deals: Vec<MatchDealRow>,
    /// The deal being played now, if the match goes on.
    pub current: Option<Uuid>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// One deal's audit within a match's.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchDealAudit {
    /// Which deal.
    pub deal: u32,
    /// Its game.
    pub game: Uuid,
    /// The game's own audit (`GET /v1/games/{id}/audit`).
    pub audit: AuditReport,
}

/// `GET /v1/matches/{id}/audit`: every deal audited, and the match's own checks.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MatchAudit {
    /// The match.
    pub id: Uuid,
    /// Whether every check passed: every deal's audit, and the match's own.
    pub ok: bool,
    /// Each deal's audit.
    pub deals: Vec<MatchDealAudit>,
    /// What failed in the match's own checks: a deal that does not name this match and its
    /// number, or seats other than the match's players one place further round.
    pub failures: Vec<String>,
    /// The standings the audited deals give.
    pub standings: MatchView,
}

/// An app's request to act for the player (OAuth 2.0 authorization code with PKCE, RFC 6749
/// §4.1.1 and RFC 7636 §4.3): the query of `/play/authorize`, checked by
/// `GET /v1/oauth/authorize` and approved by `POST /v1/oauth/authorizations`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AuthorizationRequest {
    /// Always `code`.
    #[schema(example = "code")]
    pub response_type: Option<String>,
    /// The app's name for itself: letters, digits, `.`, `_`, `~` and `-`, at most 64, no
    /// registration needed.
    #[schema(example = "example.app")]
    pub client_id: Option<String>,
    /// Where the player is sent back: an `https` URL, or `http` on a loopback host; no
    /// fragment. The code's exchange must name it again, exactly.
    #[schema(example = "https://example.app/callback")]
    pub redirect_uri: Option<String>,
    /// The scopes asked for, space-separated.
    #[schema(example = "games:read games:play")]
    pub scope: Option<String>,
    /// Any text the app wants back with the code (to tie the answer to its request).
    #[schema(example = "af0ifjsldkj")]
    pub state: Option<String>,
    /// BASE64URL(SHA-256(code_verifier)), 43 characters.
    #[schema(example = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")]
    pub code_challenge: Option<String>,
    /// Always `S256`.
    #[schema(example = "S256")]
    pub code_challenge_method: Option<String>,
}

/// `200` for `GET /v1/oauth/authorize`: the request is sound; what the consent page shows.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuthorizationRequestCheck {
    /// The app, as it names itself (unverified: show where it sends the player back too).
    #[schema(example = "example.app")]
    pub client_id: String,
    /// Where the player will be sent back.
    #[schema(example = "https://example.app/callback")]
    pub redirect_uri: String,
    /// The origin of `redirect_uri`: the site that will act for the player.
    #[schema(example = "https://example.app")]
    pub redirect_origin: String,
    /// The scopes asked for.
    pub scopes: Vec<Scope>,
    /// The app's `state`, if it sent one.
    pub state: Option<String>,
    /// Where to send the player who says no (`error=access_denied`).
    #[schema(example = "https://example.app/callback?error=access_denied&state=af0ifjsldkj")]
    pub deny_to: String,
}

/// `201` for `POST /v1/oauth/authorizations`: the code, and where to send the player with it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Authorization {
    /// The authorization code: once, until `expires_at`, with the request's verifier.
    #[schema(example = "oacode_5b0c…")]
    pub code: String,
    /// `redirect_uri` with `code` and `state` added: send the player's browser there.
    #[schema(example = "https://example.app/callback?code=oacode_5b0c&state=af0ifjsldkj")]
    pub redirect_to: String,
    /// When the code stops working.
    pub expires_at: DateTime<Utc>,
}

/// An app the player let act for them, with its live tokens.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct App {
    /// The app's `client_id`.
    #[schema(example = "example.app")]
    pub client_id: String,
    /// What its tokens may do, together.
    pub scopes: Vec<Scope>,
    /// When its oldest live token was granted.
    pub granted_at: DateTime<Utc>,
    /// How many live tokens it holds.
    pub tokens: u32,
}

/// `GET /v1/me/apps`: the apps that hold a live token of the account, oldest grant first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AppList {
    /// The apps.
    pub apps: Vec<App>,
    /// Pass as `cursor` for the next page; null on the last.
    #[schema(required = true)]
    pub next: Option<String>,
}

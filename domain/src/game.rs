//! The shape every game has: a decider over a game's own types.
//!
//! See `docs/architecture.md` for how each of the five games maps onto it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chance::Chance;

/// A place at the table, numbered from 0 (the seat on the dealer's left plays first).
#[derive(
    Copy,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    Default,
    JsonSchema,
)]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat as an index into per-seat vectors.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The seat on this one's left, at a table of `players`.
    pub fn left(self, players: usize) -> Seat {
        // Below `players`, and below 256 as the seat after a u8 seat: it fits a u8.
        #[allow(clippy::cast_possible_truncation)]
        let next = ((self.index() + 1) % players.max(1)) as u8;
        Seat(next)
    }

    /// Every seat at a table of `players`, in order of play.
    pub fn all(players: usize) -> impl Iterator<Item = Seat> {
        (0..=u8::MAX).take(players).map(Seat)
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// Who is looking: the player in a seat, or a spectator who sees only what is face up.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// The player in this seat: their own hidden cards as well as the public table.
    Seat(Seat),
    /// Anyone else: only what lies face up on the table.
    Spectator,
}

impl Viewer {
    /// Whether this viewer is the player in `seat`.
    pub fn is(self, seat: Seat) -> bool {
        self == Viewer::Seat(seat)
    }
}

/// One player at the table as the game was created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The name the player goes by at this table.
    pub name: String,
}

/// The rules version new games are created under: the latest. A game keeps the version it
/// was created under for good (the server records it in the game's creation record), so a
/// game decides, evolves, shows and replays as it did when it was created, and a rule
/// changed later applies to new games only. Each game keeps what changed between versions in
/// one place (its `Rules`, derived from the version), and `docs/rules/` says, for each rule
/// point, from which version it applies.
///
/// - 1: the rules as first published.
/// - 2: the rule points of issue 13 (British Birds' quiet rounds and asks for a card lying
///   face up; GIRL and The CAR Game's tie before anyone has won a trick; History of
///   England's honest claim and last `turn_ended`; GOOGLY's time counted in balls and
///   patience results).
/// - 3: British Birds' rule-10 series is played as a match, so a new game refuses `play_to`
///   (matches, issue 13).
pub const RULES_VERSION: u32 = 3;

/// The first rules version: every game recorded before versions were told to the rules.
pub const FIRST_RULES_VERSION: u32 = 1;

/// Whether `version` is one these rules know (from [`FIRST_RULES_VERSION`] to
/// [`RULES_VERSION`]); a version from a newer server cannot be played by this one.
pub fn check_rules_version(version: u32) -> Result<u32, SetupError> {
    if (FIRST_RULES_VERSION..=RULES_VERSION).contains(&version) {
        Ok(version)
    } else {
        Err(SetupError::RulesVersion {
            got: version,
            latest: RULES_VERSION,
        })
    }
}

/// What a game is created from: who plays, the game's options, and the rules version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setup<O> {
    /// The players in seat order.
    pub players: Vec<Player>,
    /// The game's own options (series, variant, ...).
    pub options: O,
    /// The rules version the game was created under (see [`RULES_VERSION`]): each game reads
    /// the rule points that changed from it, and nothing else.
    pub rules_version: u32,
}

impl<O> Setup<O> {
    /// A game of `players` with `options` under the latest rules ([`RULES_VERSION`]).
    pub fn new(players: Vec<Player>, options: O) -> Setup<O> {
        Setup {
            players,
            options,
            rules_version: RULES_VERSION,
        }
    }

    /// The same setup under rules version `rules_version`.
    pub fn under(mut self, rules_version: u32) -> Setup<O> {
        self.rules_version = rules_version;
        self
    }
}

/// Why a game could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The game is for a different number of players.
    #[error("{}", player_count(game, *min, *max, *got))]
    PlayerCount {
        /// The game's name.
        game: &'static str,
        /// Fewest players.
        min: usize,
        /// Most players.
        max: usize,
        /// How many were asked for.
        got: usize,
    },
    /// An option is unknown or has a value the game does not offer.
    #[error("invalid options: {0}")]
    Options(String),
    /// The rules version is not one these rules know.
    #[error("rules version {got} is unknown: these rules go from version 1 to {latest}")]
    RulesVersion {
        /// The version asked for.
        got: u32,
        /// The latest version these rules know ([`RULES_VERSION`]).
        latest: u32,
    },
}

/// "GIRL is for 2 to 5 players, not 6"; "three-player GOOGLY is for exactly 3 players, not
/// 2" where only one number of players will do.
fn player_count(game: &str, min: usize, max: usize, got: usize) -> String {
    if min == max {
        format!("{game} is for exactly {min} players, not {got}")
    } else {
        format!("{game} is for {min} to {max} players, not {got}")
    }
}

/// How a refused move is to be understood by the player who tried it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// The move may be fine, but it is not this seat's move now (or the game is over): the
    /// framework's [`crate::engine::OutOfTurn`] refusals.
    NotYourMove,
    /// The rules forbid this move.
    Forbidden,
}

/// A game's rule errors: each says which rule was broken, in a player's words.
pub trait Refusal: std::error::Error + Send + Sync + 'static {
    /// Whether it is out of turn or against the rules.
    fn kind(&self) -> RefusalKind;
    /// A stable kebab-case name for the rule, e.g. `lay-three-cards`.
    fn rule(&self) -> &'static str;
}

/// What one viewer sees of a game at one moment: typed per game (`View<G::SeatView, ...>`,
/// see [`ViewOf`]) inside the domain, and as JSON (the defaults) at the engine's edge.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct View<S = Value, P = Value, Q = Value> {
    /// What everyone can see about each seat (cards held, cards won, ...), in seat order.
    pub seats: Vec<S>,
    /// What lies face up on the table for everyone.
    pub public: P,
    /// What only this viewer sees (their hand, cards shown to them alone); `None` for spectators.
    pub private: Option<Q>,
}

/// A game's own typed view.
pub type ViewOf<G> = View<<G as Game>::SeatView, <G as Game>::PublicView, <G as Game>::PrivateView>;

/// A choice of cards in a legal-action template: the client replaces it with `choose`
/// distinct ids out of `from`. Written `{"choose": k, "from": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Choose<T> {
    /// How many to choose.
    pub choose: usize,
    /// The ids to choose from.
    pub from: Vec<T>,
}

/// A score-sheet: the same record as data and as text a person can read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scoresheet {
    /// The score-sheet as JSON.
    pub json: Value,
    /// The score-sheet as plain text.
    pub text: String,
}

/// The result of a game stopped while in progress because one seat resigned or was forfeited
/// by its clock: a ranking of every seat, and the standing that justifies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Concession {
    /// The seat that conceded.
    pub seat: Seat,
    /// Every seat at the table, best first. Seats tied share a group; the conceding seat is
    /// alone in the last group.
    pub ranking: Vec<Vec<Seat>>,
    /// Each seat's standing when the game stopped, in seat order, in the game's own terms
    /// (what `measure` says).
    pub points: Vec<i64>,
    /// What `points` counts, in words (e.g. "cards won less cards in hand").
    pub measure: String,
    /// Whether more `points` stand better, so a client can order them without knowing the
    /// game (true in every game Parlour has so far).
    pub higher_is_better: bool,
    /// The figures behind `points`, by name: one number per seat in seat order, or per side
    /// in the sides' order where the name begins `side_`.
    pub figures: BTreeMap<String, Vec<i64>>,
}

impl Concession {
    /// A concession ranked by `points` alone (more is better): every other seat by its points,
    /// equal points sharing a group, and `seat` last.
    pub fn by_points(seat: Seat, points: Vec<i64>, measure: &str) -> Concession {
        let ranking = ranking_by(seat, points.len(), |s| {
            points.get(s.index()).copied().unwrap_or(i64::MIN)
        });
        Concession {
            seat,
            ranking,
            points,
            measure: measure.to_string(),
            higher_is_better: true,
            figures: BTreeMap::new(),
        }
    }

    /// The same concession with one more named figure.
    pub fn with_figure(mut self, name: &str, values: Vec<i64>) -> Concession {
        self.figures.insert(name.to_string(), values);
        self
    }
}

/// Every seat of a table of `players` but `seat`, grouped by `key` (highest first, equal keys
/// in one group, each group in seat order), then `seat` alone: a concession's ranking.
pub fn ranking_by(seat: Seat, players: usize, key: impl Fn(Seat) -> i64) -> Vec<Vec<Seat>> {
    let mut others: Vec<(i64, Seat)> = Seat::all(players)
        .filter(|s| *s != seat)
        .map(|s| (key(s), s))
        .collect();
    others.sort_by_key(|(k, s)| (std::cmp::Reverse(*k), *s));
    let mut ranking: Vec<Vec<Seat>> = Vec::new();
    let mut previous = None;
    for (k, s) in others {
        match ranking.last_mut() {
            Some(group) if previous == Some(k) => group.push(s),
            _ => ranking.push(vec![s]),
        }
        previous = Some(k);
    }
    ranking.push(vec![seat]);
    ranking
}

/// Facts about a game for the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Description {
    /// The stable game id used in the API, e.g. `girl`.
    pub id: &'static str,
    /// The game's printed name.
    pub name: &'static str,
    /// Fewest players.
    pub min_players: usize,
    /// Most players.
    pub max_players: usize,
    /// One paragraph on what the game is.
    pub summary: &'static str,
    /// The options accepted at creation: name → description, type and default.
    pub options: Value,
    /// Where the printed rules and Parlour's rule decisions are described.
    pub rules: &'static str,
}

/// A card game as a decider: pure functions over the game's own state, actions and events.
///
/// Actions and events serialise as internally tagged objects, `{"type": "lay", ...}`, with
/// snake_case type names; the type of an event is what the log records as its type.
///
/// Every type a client sees (options, actions, legal-action templates, views, the outcome,
/// events) is a Rust type with a JSON Schema, which the engine publishes
/// ([`crate::engine::Engine::schemas`]).
pub trait Game: Sized + 'static {
    /// The options chosen at creation.
    type Options: Serialize
        + DeserializeOwned
        + JsonSchema
        + Default
        + Clone
        + std::fmt::Debug
        + Send
        + Sync;
    /// Everything about the game at one moment, hidden cards included.
    type State: Clone + std::fmt::Debug + PartialEq + Send + Sync;
    /// What a player may submit.
    type Action: Serialize + DeserializeOwned + JsonSchema + Clone + std::fmt::Debug;
    /// A move as `legal_actions` offers it: an action, except that a choice of cards may be
    /// a [`Choose`] template.
    type LegalAction: Serialize + JsonSchema;
    /// What happened: the log is a sequence of these.
    type Event: Serialize
        + DeserializeOwned
        + JsonSchema
        + Clone
        + std::fmt::Debug
        + PartialEq
        + Send
        + Sync;
    /// The events whose shape `redact` changes, as a viewer sees them while the game is in
    /// progress: an internally tagged enum (`{"type": "deal", ...}`, the same `type` names as
    /// [`Game::Event`]) with one variant per event type that `redact` changes, holding exactly
    /// the fields `redact` can give (a field only some viewers see is optional). Every other
    /// event is seen as it was recorded, an [`Game::Event`].
    type SeenEvent: Serialize + JsonSchema;
    /// What everyone sees of one seat.
    type SeatView: Serialize + JsonSchema;
    /// What lies face up for everyone.
    type PublicView: Serialize + JsonSchema;
    /// What only the player in a seat sees.
    type PrivateView: Serialize + JsonSchema;
    /// The result of a finished game.
    type Outcome: Serialize + JsonSchema;
    /// Why a move was refused.
    type Error: Refusal;

    /// Catalogue facts.
    fn describe() -> Description;

    /// Every card, each with a stable string `id`, its name and values.
    fn cards() -> Value;

    /// The table before the deal, or why this table cannot play.
    fn new(setup: &Setup<Self::Options>) -> Result<Self::State, SetupError>;

    /// The events that open the game: the deal and anything else random before the first move.
    fn start(state: &Self::State, chance: &mut Chance) -> Vec<Self::Event>;

    /// Decides what happens when `seat` tries `action`. Never changes the state: a refused
    /// move changes nothing. The framework ([`crate::engine::decide`]) calls this only for a
    /// seat in `to_act` of a game without an outcome: a move out of turn or after the end is
    /// refused there, once for every game, so a game's own errors are its real rules.
    fn decide(
        state: &Self::State,
        seat: Seat,
        action: &Self::Action,
        chance: &mut Chance,
    ) -> Result<Vec<Self::Event>, Self::Error>;

    /// Applies one event. Events come from `start`/`decide` (or a log of them), so they are
    /// trusted; `evolve` never needs chance.
    fn evolve(state: Self::State, event: &Self::Event) -> Self::State;

    /// The seats whose move the game is waiting for (several during a simultaneous choice).
    fn to_act(state: &Self::State) -> Vec<Seat>;

    /// What `seat` may submit now, as complete action bodies, except that a choice of cards is
    /// written `{"choose": k, "from": [card ids]}`: the client replaces it with k distinct ids.
    fn legal_actions(state: &Self::State, seat: Seat) -> Vec<Self::LegalAction>;

    /// What `viewer` sees now.
    fn view(state: &Self::State, viewer: Viewer) -> ViewOf<Self>;

    /// The event as `viewer` may see it while the game is in progress, with every card they
    /// could not see at the table taken out (the `type` field may be left out): a
    /// [`Game::SeenEvent`] for the event types whose shape this changes, and the event as it
    /// was recorded otherwise.
    fn redact(event: &Self::Event, viewer: Viewer) -> Value;

    /// The result once the game is over; `None` while it is in progress.
    fn outcome(state: &Self::State) -> Option<Self::Outcome>;

    /// The move the server makes for `seat` when its move clock runs out. The framework
    /// ([`crate::engine::default_action`]) asks only for a seat in `to_act` of a game without
    /// an outcome, and the game answers for every such seat: a complete action (no
    /// [`Choose`] template) that `decide` accepts whatever the chance. It is chosen from the
    /// state alone, so a replay chooses it again, and from what the seat itself may see (its
    /// own hand and the public table), so it tells the table nothing the seat could not have;
    /// and it is a sensible move in the game's own terms, not merely the first legal one.
    /// `None` only where the game cannot express a default: a broken promise the shared
    /// playout test ([`crate::playout`]) reports.
    fn default_action(state: &Self::State, seat: Seat) -> Option<Self::Action>;

    /// The result when `seat` resigns, or is forfeited by its clock, while the game is in
    /// progress: every other seat ranked by its standing so far in the game's own terms, and
    /// `seat` last (see [`Concession`]). A function of the state alone.
    fn concede(state: &Self::State, seat: Seat) -> Concession;

    /// Who a match of this game is between: `None` when each seat is its own competitor (every
    /// game but GOOGLY), else the sides' names (GOOGLY's two elevens, whoever plays them).
    fn match_sides(_state: &Self::State) -> Option<Vec<String>> {
        None
    }

    /// What each competitor (seat, or side where [`Game::match_sides`] names them) of a finished
    /// game scores towards a match's target, in the sheet's own terms; `None` while the game
    /// goes on. See `crate::matches`.
    fn match_points(_state: &Self::State) -> Option<Vec<i64>> {
        None
    }

    /// The competitor `seat` plays for in a match: the seat itself, or its one side; `None` for
    /// a seat that plays for no side alone (GOOGLY's scorer, or patience's lone player).
    fn competitor_of(_state: &Self::State, seat: Seat) -> Option<usize> {
        Some(seat.index())
    }

    /// The score-sheet as everyone may see it (live while the game is in progress, final once
    /// it is over), for games that keep one: a JSON document and the same as plain text.
    fn scoresheet(_state: &Self::State) -> Option<Scoresheet> {
        None
    }

    /// Other documents the game can export (e.g. GOOGLY's `cricsheet`), by name; public only.
    fn export(_state: &Self::State, _format: &str) -> Option<Value> {
        None
    }

    /// Statistics over several finished games, each given as its `export(state, "record")`
    /// (GOOGLY: averages, centuries, hat-tricks, a championship table). `None` for games that
    /// keep none; `Some(Err)` when a record is not one of this game's.
    fn statistics(_records: &[Value]) -> Option<Result<Value, String>> {
        None
    }

    /// The state as a snapshot, from which [`Game::restore`] rebuilds it without the log
    /// before it: for games whose logs run long (GOOGLY: thousands of entries a match), so
    /// that a game nobody held in memory loads from its latest snapshot and the entries after
    /// it. `None` (the default) for games whose logs are short enough to fold every time. A
    /// snapshot is a cache, never the truth: the server keeps it beside the log, checks it
    /// against the log's hash chain and can always fold the log instead.
    fn snapshot(_state: &Self::State) -> Option<Value> {
        None
    }

    /// The state `snapshot` (from [`Game::snapshot`]) describes, for the game `fresh` is the
    /// start of (`fresh` is what [`Game::new`] gave for the game's setup: whatever a snapshot
    /// leaves out, such as the players and the rules version, comes from it). `None` when it
    /// is not a snapshot of this game's.
    fn restore(_fresh: &Self::State, _snapshot: &Value) -> Option<Self::State> {
        None
    }

    /// The game's standing invariants (every card accounted for, ...), checked by the shared
    /// random-playout test after every event.
    fn check_invariants(_state: &Self::State) -> Result<(), String> {
        Ok(())
    }
}

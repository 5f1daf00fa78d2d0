//! The games behind one object-safe interface that speaks JSON at its edge, so the server can
//! host every game without knowing any of them.

use std::any::Any;
use std::marker::PhantomData;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::chance::Chance;
use crate::game::{
    check_rules_version, Concession, Description, Game, Player, Refusal, RefusalKind, Scoresheet,
    Seat, Setup, SetupError, View, Viewer,
};

/// JSON Schemas (draft 2020-12) of everything a game sends or accepts, so a client, a bot or a
/// generated SDK sees the game's real types.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameSchemas {
    /// The options object accepted at creation.
    pub options: Value,
    /// An action body a player may send.
    pub action: Value,
    /// One entry of `legal_actions`: an action, or a template with `{"choose": k, "from": [...]}`.
    pub legal_action: Value,
    /// The parts of a view.
    pub view: ViewSchemas,
    /// The result of a finished game.
    pub outcome: Value,
    /// One event of the log, with its `type`, as recorded (before any redaction).
    pub event: Value,
    /// The events `redact` changes, as a viewer sees them while the game is in progress, with
    /// their `type`: one variant per such event type.
    pub seen_event: Value,
}

/// JSON Schemas of the three parts of a view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewSchemas {
    /// What everyone sees of one seat (one entry of `seats`).
    pub seat: Value,
    /// What lies face up for everyone.
    pub public: Value,
    /// What only the player in a seat sees.
    pub private: Value,
}

/// The JSON Schema of `T` as a JSON document.
fn schema_of<T: schemars::JsonSchema>() -> Value {
    schemars::schema_for!(T).to_value()
}

/// The schemas of game `G`'s types.
pub fn schemas_of<G: Game>() -> GameSchemas {
    GameSchemas {
        options: schema_of::<G::Options>(),
        action: schema_of::<G::Action>(),
        legal_action: schema_of::<G::LegalAction>(),
        view: ViewSchemas {
            seat: schema_of::<G::SeatView>(),
            public: schema_of::<G::PublicView>(),
            private: schema_of::<G::PrivateView>(),
        },
        outcome: schema_of::<G::Outcome>(),
        event: schema_of::<G::Event>(),
        seen_event: schema_of::<G::SeenEvent>(),
    }
}

/// `value` as JSON. The games' types are plain data (strings, numbers, lists, maps keyed by
/// strings), which always serialise; `null` stands in should one ever not.
fn json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// What `seat` may submit now, as JSON: what every table sends.
pub fn legal_actions_json<G: Game>(state: &G::State, seat: Seat) -> Vec<Value> {
    G::legal_actions(state, seat).iter().map(json).collect()
}

/// What `viewer` sees, as JSON: what every table sends.
pub fn view_json<G: Game>(state: &G::State, viewer: Viewer) -> View {
    let view = G::view(state, viewer);
    View {
        seats: view.seats.iter().map(json).collect(),
        public: json(&view.public),
        private: view.private.as_ref().map(json),
    }
}

/// The result once the game is over, as JSON: what every table sends.
pub fn outcome_json<G: Game>(state: &G::State) -> Option<Value> {
    G::outcome(state).as_ref().map(json)
}

/// One event as the log stores it: its type and its data (the event without its `type`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recorded {
    /// The event type, e.g. `deal`, `lay`, `resolve`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The rest of the event.
    pub data: Value,
}

/// Why a move was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The body is not an action of this game.
    #[error("{0}")]
    Malformed(String),
    /// It is not this seat's move.
    #[error("{message}")]
    NotYourMove {
        /// The rule's stable name.
        rule: &'static str,
        /// What the player is told.
        message: String,
    },
    /// The rules forbid the move.
    #[error("{message}")]
    Forbidden {
        /// The rule's stable name.
        rule: &'static str,
        /// What the player is told.
        message: String,
    },
}

impl Refused {
    fn from_rule<E: Refusal>(error: &E) -> Self {
        let message = error.to_string();
        match error.kind() {
            RefusalKind::NotYourMove => Refused::NotYourMove {
                rule: error.rule(),
                message,
            },
            RefusalKind::Forbidden => Refused::Forbidden {
                rule: error.rule(),
                message,
            },
        }
    }
}

/// A move the framework refuses before any game's own `decide` sees it: these two rules are
/// the same for every game, so they are written once, here, with one name each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutOfTurn {
    /// The game has an outcome: no seat moves again.
    #[error("the game is over")]
    GameOver,
    /// The seat is not one the game is waiting for.
    #[error("it is not your move: {}", waiting_for(.to_act))]
    NotYourMove {
        /// The seats the game is waiting for.
        to_act: Vec<Seat>,
    },
}

fn waiting_for(seats: &[Seat]) -> String {
    match seats {
        [] => String::from("the game is waiting for no one"),
        seats => {
            let seats: Vec<String> = seats.iter().map(Seat::to_string).collect();
            format!("the game is waiting for {}", seats.join(" and "))
        }
    }
}

impl Refusal for OutOfTurn {
    fn kind(&self) -> RefusalKind {
        RefusalKind::NotYourMove
    }

    fn rule(&self) -> &'static str {
        match self {
            OutOfTurn::GameOver => "game-over",
            OutOfTurn::NotYourMove { .. } => "not-your-move",
        }
    }
}

/// Why a move was refused on the typed path: by the framework, or by one of the game's rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveRefused<E> {
    /// Out of turn, or after the end: refused before the game was asked.
    #[error(transparent)]
    OutOfTurn(OutOfTurn),
    /// The game's own rules forbid it.
    #[error(transparent)]
    Rule(E),
}

impl<E: Refusal> Refusal for MoveRefused<E> {
    fn kind(&self) -> RefusalKind {
        match self {
            MoveRefused::OutOfTurn(refusal) => refusal.kind(),
            MoveRefused::Rule(refusal) => refusal.kind(),
        }
    }

    fn rule(&self) -> &'static str {
        match self {
            MoveRefused::OutOfTurn(refusal) => refusal.rule(),
            MoveRefused::Rule(refusal) => refusal.rule(),
        }
    }
}

/// The framework's turn check: any move once the game has an outcome, and any move from a
/// seat not in `to_act`, is refused here, so no game re-implements either.
pub fn check_turn<G: Game>(state: &G::State, seat: Seat) -> Result<(), OutOfTurn> {
    if G::outcome(state).is_some() {
        return Err(OutOfTurn::GameOver);
    }
    let to_act = G::to_act(state);
    if !to_act.contains(&seat) {
        return Err(OutOfTurn::NotYourMove { to_act });
    }
    Ok(())
}

/// Decides a typed action the way every table does: the framework's turn check first, then
/// the game's own `decide`. Changes nothing.
pub fn decide<G: Game>(
    state: &G::State,
    seat: Seat,
    action: &G::Action,
    chance: &mut Chance,
) -> Result<Vec<G::Event>, MoveRefused<G::Error>> {
    check_turn::<G>(state, seat).map_err(MoveRefused::OutOfTurn)?;
    G::decide(state, seat, action, chance).map_err(MoveRefused::Rule)
}

/// The move the server makes for `seat` when its clock runs out, typed: `None` once the game
/// has an outcome or when `seat` is not in `to_act` (the framework's turn check, as for
/// [`decide`]), else the game's own [`Game::default_action`].
pub fn default_action<G: Game>(state: &G::State, seat: Seat) -> Option<G::Action> {
    check_turn::<G>(state, seat).ok()?;
    G::default_action(state, seat)
}

/// A stored event that does not fit the game: the log is corrupt or from another engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event is not a valid {kind} event of this game: {reason}")]
pub struct BadEvent {
    /// The event type that was stored.
    pub kind: String,
    /// What did not fit.
    pub reason: String,
}

/// Events decided but not yet applied: kept typed so applying them costs no parsing.
pub struct Decision {
    /// The events as the log will store them.
    pub events: Vec<Recorded>,
    /// The action decided, in its canonical form (the typed action written back as JSON):
    /// what the log records, so nothing a client adds beyond the action itself is kept.
    /// `None` for the opening events, which no action produced.
    pub action: Option<Value>,
    typed: Box<dyn Any + Send>,
}

/// A game in progress, behind the JSON edge.
pub trait Table: Send + Sync {
    /// The events that open the game.
    fn start(&self, chance: &mut Chance) -> Decision;
    /// Decides an action sent as JSON. Changes nothing.
    fn decide(&self, seat: Seat, action: &Value, chance: &mut Chance) -> Result<Decision, Refused>;
    /// Decides an action read back from a log of chain format 1, parsed as leniently as it
    /// was accepted then (unknown fields ignored), so old games replay as they were played.
    fn decide_legacy(
        &self,
        seat: Seat,
        action: &Value,
        chance: &mut Chance,
    ) -> Result<Decision, Refused>;
    /// Applies events this table decided.
    fn apply(&mut self, decision: Decision);
    /// Applies one event read from the log.
    fn apply_recorded(&mut self, event: &Recorded) -> Result<(), BadEvent>;
    /// The seats whose move it is.
    fn to_act(&self) -> Vec<Seat>;
    /// What `seat` may submit now.
    fn legal_actions(&self, seat: Seat) -> Vec<Value>;
    /// The rules version the table plays under (public: the game's record says it).
    fn rules_version(&self) -> u32;
    /// What `viewer` sees.
    fn view(&self, viewer: Viewer) -> View;
    /// The result, once the game is over.
    fn outcome(&self) -> Option<Value>;
    /// The move to make for `seat` when its move clock runs out: `Some(body)` exactly when
    /// `seat` is in `to_act` and the game is not over. The body is a complete action (no
    /// `{"choose": k, "from": [...]}` template) that [`Table::decide`] accepts from `seat`
    /// whatever the chance; it depends on the state alone (a replay reproduces it) and on
    /// nothing the seat could not see, and it is the game's sensible default for the decision
    /// the seat owes (`docs/rules/<game>.md`, "When a seat's time runs out").
    fn default_action(&self, seat: Seat) -> Option<Value>;
    /// The result when `seat` resigns, or is forfeited by its clock, while the game is in
    /// progress: every seat ranked, `seat` alone last, with the standing in the game's own
    /// terms (`docs/rules/<game>.md`, "Resigning and forfeiting"). Depends on the state alone.
    fn concede(&self, seat: Seat) -> Concession;
    /// The public score-sheet, for games that keep one.
    fn scoresheet(&self) -> Option<Scoresheet>;
    /// The sides a match is between, when they are not the seats ([`crate::Game::match_sides`]).
    fn match_sides(&self) -> Option<Vec<String>>;
    /// What each competitor scored towards a match's target, once the game is over.
    fn match_points(&self) -> Option<Vec<i64>>;
    /// The competitor `seat` plays for in a match.
    fn competitor_of(&self, seat: Seat) -> Option<usize>;
    /// A named public export of the game.
    fn export(&self, format: &str) -> Option<Value>;
    /// The table as a snapshot ([`Game::snapshot`]): `None` for games that keep none.
    fn snapshot(&self) -> Option<Value> {
        None
    }
    /// Puts this table, freshly opened for the game, in the state `snapshot` describes
    /// ([`Game::restore`]). `false`, leaving the table as it was, when the snapshot is not
    /// one of this game's (or the game keeps none).
    fn restore(&mut self, _snapshot: &Value) -> bool {
        false
    }
    /// A copy of the table.
    fn clone_table(&self) -> Box<dyn Table>;
    /// Whether two tables are in the same state (used by the audit's replay).
    fn same_as(&self, other: &dyn Table) -> bool;
    /// For `same_as`.
    fn as_any(&self) -> &dyn Any;
}

/// A game as the server sees it.
pub trait Engine: Send + Sync {
    /// Catalogue facts.
    fn describe(&self) -> Description;
    /// Every card with its stable id.
    fn cards(&self) -> Value;
    /// A table before the deal, under the rules version the game was created under
    /// ([`crate::RULES_VERSION`] for a new game; a recorded game's own version when it is
    /// replayed or audited). A version these rules do not know is refused.
    fn open(
        &self,
        players: &[Player],
        options: &Value,
        rules_version: u32,
    ) -> Result<Box<dyn Table>, SetupError>;
    /// An event as `viewer` may see it while the game is in progress.
    fn redact(&self, event: &Recorded, viewer: Viewer) -> Result<Value, BadEvent>;
    /// Statistics over finished games' `record` exports, for games that keep them.
    fn statistics(&self, records: &[Value]) -> Option<Result<Value, String>>;
    /// JSON Schemas of the game's options, actions, legal actions, views, outcome and events.
    fn schemas(&self) -> GameSchemas;
}

/// Adapts a [`Game`] to [`Engine`].
pub struct EngineOf<G>(PhantomData<fn() -> G>);

impl<G> EngineOf<G> {
    /// The engine for game `G`.
    pub const fn new() -> Self {
        EngineOf(PhantomData)
    }
}

impl<G> Default for EngineOf<G> {
    fn default() -> Self {
        Self::new()
    }
}

struct TableOf<G: Game> {
    // Always `Some` between calls; `evolve` takes the state by value.
    state: Option<G::State>,
    rules_version: u32,
}

impl<G: Game> TableOf<G> {
    fn state(&self) -> &G::State {
        match &self.state {
            Some(state) => state,
            None => unreachable!("a table's state is only taken inside evolve"),
        }
    }

    fn evolve(&mut self, event: &G::Event) {
        if let Some(state) = self.state.take() {
            self.state = Some(G::evolve(state, event));
        }
    }
}

/// Splits a serialised event into its type and the rest.
pub fn record<E: Serialize>(event: &E) -> Recorded {
    match serde_json::to_value(event) {
        Ok(Value::Object(mut map)) => {
            let kind = match map.remove("type") {
                Some(Value::String(kind)) => kind,
                _ => String::from("event"),
            };
            Recorded {
                kind,
                data: Value::Object(map),
            }
        }
        Ok(other) => Recorded {
            kind: String::from("event"),
            data: other,
        },
        Err(error) => Recorded {
            kind: String::from("unserialisable"),
            data: Value::String(error.to_string()),
        },
    }
}

/// Rebuilds a typed event from its stored type and data.
pub fn parse_recorded<E: serde::de::DeserializeOwned>(event: &Recorded) -> Result<E, BadEvent> {
    let mut map = match &event.data {
        Value::Object(map) => map.clone(),
        Value::Null => Map::new(),
        _ => {
            return Err(BadEvent {
                kind: event.kind.clone(),
                reason: String::from("event data is not an object"),
            })
        }
    };
    map.insert(String::from("type"), Value::String(event.kind.clone()));
    serde_json::from_value(Value::Object(map)).map_err(|error| BadEvent {
        kind: event.kind.clone(),
        reason: error.to_string(),
    })
}

fn decision<G: Game>(events: Vec<G::Event>, action: Option<Value>) -> Decision {
    Decision {
        events: events.iter().map(record).collect(),
        action,
        typed: Box::new(events),
    }
}

/// Parses `input` as a `T` and refuses anything the typed value does not say back: an
/// unknown field, or a value that only survives as something else (`1.0` for a count, `-0.0`,
/// a number past a field's range). What was accepted is then exactly what is stored and
/// hashed, whatever the client sent around it. Returns the value and its canonical JSON.
pub fn parse_strictly<T: Serialize + serde::de::DeserializeOwned>(
    input: &Value,
) -> Result<(T, Value), String> {
    let typed: T = serde_json::from_value(input.clone()).map_err(|e| e.to_string())?;
    let canonical = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    let mut nulls = Vec::new();
    said_back(
        input,
        &canonical,
        &mut String::new(),
        &mut Vec::new(),
        &mut nulls,
    )?;
    for (pointer, shown) in nulls {
        if !is_known_field::<T>(input, &pointer) {
            return Err(format!("unknown field `{shown}`"));
        }
    }
    Ok((typed, canonical))
}

/// Whether the field at `pointer` (given as `null`, and left out of the typed value) is one
/// the type has, rather than one serde skipped over. A skipped field takes any value; a field
/// of the type refuses at least one of these, whatever its type (every field is typed: no
/// game takes free-form JSON).
fn is_known_field<T: serde::de::DeserializeOwned>(input: &Value, pointer: &str) -> bool {
    let probes = [
        Value::Bool(true),
        Value::String(String::new()),
        Value::Array(Vec::new()),
        Value::Object(serde_json::Map::new()),
    ];
    probes.into_iter().any(|probe| {
        let mut probed = input.clone();
        if let Some(field) = probed.pointer_mut(pointer) {
            *field = probe;
        }
        serde_json::from_value::<T>(probed).is_err()
    })
}

/// Checks that every part of `input` appears, unchanged, in `canonical`. A `null` may stand
/// for an optional field the typed value leaves out: each such field is pushed to `nulls` (as
/// a JSON pointer and as shown in a refusal), for the caller to check that the type has it.
fn said_back(
    input: &Value,
    canonical: &Value,
    path: &mut String,
    pointer: &mut Vec<String>,
    nulls: &mut Vec<(String, String)>,
) -> Result<(), String> {
    let at = |path: &str| {
        if path.is_empty() {
            "the body".to_string()
        } else {
            format!("`{path}`")
        }
    };
    let json_pointer = |pointer: &[String]| {
        pointer
            .iter()
            .map(|part| format!("/{}", part.replace('~', "~0").replace('/', "~1")))
            .collect::<String>()
    };
    match (input, canonical) {
        (Value::Object(given), Value::Object(kept)) => {
            for (key, value) in given {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                pointer.push(key.clone());
                match kept.get(key) {
                    Some(kept) => said_back(value, kept, path, pointer, nulls)?,
                    None if value.is_null() => nulls.push((json_pointer(pointer), path.clone())),
                    None => return Err(format!("unknown field {}", at(path))),
                }
                pointer.pop();
                path.truncate(len);
            }
            Ok(())
        }
        (Value::Array(given), Value::Array(kept)) if given.len() == kept.len() => {
            for (i, (value, kept)) in given.iter().zip(kept).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                pointer.push(i.to_string());
                said_back(value, kept, path, pointer, nulls)?;
                pointer.pop();
                path.truncate(len);
            }
            Ok(())
        }
        (given, kept) if given == kept => Ok(()),
        _ => Err(format!(
            "{} is not a value this game accepts as written",
            at(path)
        )),
    }
}

impl<G: Game> Table for TableOf<G> {
    fn start(&self, chance: &mut Chance) -> Decision {
        decision::<G>(G::start(self.state(), chance), None)
    }

    fn decide(&self, seat: Seat, action: &Value, chance: &mut Chance) -> Result<Decision, Refused> {
        let (action, canonical) = parse_strictly::<G::Action>(action)
            .map_err(|error| Refused::Malformed(format!("not a move of this game: {error}")))?;
        let events =
            decide::<G>(self.state(), seat, &action, chance).map_err(|e| Refused::from_rule(&e))?;
        Ok(decision::<G>(events, Some(canonical)))
    }

    fn decide_legacy(
        &self,
        seat: Seat,
        action: &Value,
        chance: &mut Chance,
    ) -> Result<Decision, Refused> {
        let typed: G::Action = serde_json::from_value(action.clone())
            .map_err(|error| Refused::Malformed(format!("not a move of this game: {error}")))?;
        let events =
            decide::<G>(self.state(), seat, &typed, chance).map_err(|e| Refused::from_rule(&e))?;
        Ok(decision::<G>(events, Some(action.clone())))
    }

    fn apply(&mut self, decision: Decision) {
        match decision.typed.downcast::<Vec<G::Event>>() {
            Ok(events) => {
                for event in events.iter() {
                    self.evolve(event);
                }
            }
            Err(_) => unreachable!("a decision is applied only to the table kind that made it"),
        }
    }

    fn apply_recorded(&mut self, event: &Recorded) -> Result<(), BadEvent> {
        let event: G::Event = parse_recorded(event)?;
        self.evolve(&event);
        Ok(())
    }

    fn to_act(&self) -> Vec<Seat> {
        G::to_act(self.state())
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Value> {
        legal_actions_json::<G>(self.state(), seat)
    }

    fn view(&self, viewer: Viewer) -> View {
        view_json::<G>(self.state(), viewer)
    }

    fn outcome(&self) -> Option<Value> {
        outcome_json::<G>(self.state())
    }

    fn default_action(&self, seat: Seat) -> Option<Value> {
        default_action::<G>(self.state(), seat).map(|action| json(&action))
    }

    fn concede(&self, seat: Seat) -> Concession {
        G::concede(self.state(), seat)
    }

    fn scoresheet(&self) -> Option<Scoresheet> {
        G::scoresheet(self.state())
    }

    fn match_sides(&self) -> Option<Vec<String>> {
        G::match_sides(self.state())
    }

    fn match_points(&self) -> Option<Vec<i64>> {
        G::match_points(self.state())
    }

    fn competitor_of(&self, seat: Seat) -> Option<usize> {
        G::competitor_of(self.state(), seat)
    }

    fn export(&self, format: &str) -> Option<Value> {
        G::export(self.state(), format)
    }

    fn rules_version(&self) -> u32 {
        self.rules_version
    }

    fn snapshot(&self) -> Option<Value> {
        G::snapshot(self.state())
    }

    fn restore(&mut self, snapshot: &Value) -> bool {
        match G::restore(self.state(), snapshot) {
            Some(state) => {
                self.state = Some(state);
                true
            }
            None => false,
        }
    }

    fn clone_table(&self) -> Box<dyn Table> {
        Box::new(TableOf::<G> {
            state: self.state.clone(),
            rules_version: self.rules_version,
        })
    }

    fn same_as(&self, other: &dyn Table) -> bool {
        other
            .as_any()
            .downcast_ref::<TableOf<G>>()
            .is_some_and(|other| other.state == self.state)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl<G: Game> Engine for EngineOf<G> {
    fn describe(&self) -> Description {
        G::describe()
    }

    fn cards(&self) -> Value {
        G::cards()
    }

    fn open(
        &self,
        players: &[Player],
        options: &Value,
        rules_version: u32,
    ) -> Result<Box<dyn Table>, SetupError> {
        let rules_version = check_rules_version(rules_version)?;
        // Options structs are `#[serde(default)]`, so `{}` (or no options at all) means defaults.
        let options = match options {
            Value::Null => Value::Object(Map::new()),
            other => other.clone(),
        };
        let (options, _) = parse_strictly::<G::Options>(&options).map_err(SetupError::Options)?;
        let setup = Setup {
            players: players.to_vec(),
            options,
            rules_version,
        };
        Ok(Box::new(TableOf::<G> {
            state: Some(G::new(&setup)?),
            rules_version,
        }))
    }

    fn statistics(&self, records: &[Value]) -> Option<Result<Value, String>> {
        G::statistics(records)
    }

    fn schemas(&self) -> GameSchemas {
        schemas_of::<G>()
    }

    fn redact(&self, event: &Recorded, viewer: Viewer) -> Result<Value, BadEvent> {
        let typed: G::Event = parse_recorded(event)?;
        let mut value = G::redact(&typed, viewer);
        if let Value::Object(map) = &mut value {
            map.remove("type");
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Move {
        TurnUp,
        Lay {
            cards: Vec<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            show: Option<u8>,
        },
    }

    #[test]
    fn a_table_opens_under_every_rules_version_these_rules_know_and_no_other() {
        let Some(engine) = crate::catalog::engine("girl") else {
            panic!("no GIRL in the catalogue");
        };
        let players = vec![Player { name: "Ann".into() }, Player { name: "Bea".into() }];
        for version in crate::game::FIRST_RULES_VERSION..=crate::game::RULES_VERSION {
            assert!(engine.open(&players, &json!({}), version).is_ok());
        }
        for version in [0, crate::game::RULES_VERSION + 1] {
            match engine.open(&players, &json!({}), version) {
                Err(SetupError::RulesVersion { got, latest }) => {
                    assert_eq!((got, latest), (version, crate::game::RULES_VERSION))
                }
                Err(other) => panic!("version {version}: {other}"),
                Ok(_) => panic!("version {version} was opened"),
            }
        }
    }

    #[test]
    fn a_strict_parse_keeps_exactly_what_the_action_says() {
        let (_, canonical) =
            parse_strictly::<Move>(&json!({"type": "lay", "cards": ["a", "b"]})).unwrap();
        assert_eq!(canonical, json!({"type": "lay", "cards": ["a", "b"]}));
    }

    #[test]
    fn an_unknown_field_is_refused_even_on_a_move_without_fields() {
        let error =
            parse_strictly::<Move>(&json!({"type": "turn_up", "x": 1.7976931348623157e308}))
                .unwrap_err();
        assert!(error.contains("unknown field `x`"), "{error}");
        let error = parse_strictly::<Move>(&json!({"type": "lay", "cards": [], "junk": {"a": 1}}))
            .unwrap_err();
        assert!(error.contains("`junk`"), "{error}");
    }

    #[test]
    fn a_value_that_does_not_survive_the_round_trip_is_refused() {
        for body in [
            json!({"type": "lay", "cards": [], "show": 1.0}),
            json!({"type": "lay", "cards": [], "show": -0.0}),
            json!({"type": "lay", "cards": [], "show": 300}),
        ] {
            assert!(
                parse_strictly::<Move>(&body).is_err(),
                "{body} was accepted"
            );
        }
    }

    #[test]
    fn null_may_stand_for_an_optional_field_left_out() {
        let (_, canonical) =
            parse_strictly::<Move>(&json!({"type": "lay", "cards": ["a"], "show": null})).unwrap();
        assert_eq!(canonical, json!({"type": "lay", "cards": ["a"]}));
    }

    #[test]
    fn null_may_not_stand_for_a_field_the_move_does_not_have() {
        for (body, field) in [
            (json!({"type": "turn_up", "junk": null}), "`junk`"),
            (json!({"type": "turn_up", "show": null}), "`show`"),
            (
                json!({"type": "lay", "cards": [], "a/b~c": null}),
                "`a/b~c`",
            ),
        ] {
            let error = parse_strictly::<Move>(&body).unwrap_err();
            assert!(
                error.contains(&format!("unknown field {field}")),
                "{body}: {error}"
            );
        }
    }
}

//! Fuzzes every engine's `decide` and `evolve` (issue 8 §6): from states reached by seeded random
//! legal play, it throws at seats on turn and not a mixture of legal actions, legal-shaped actions
//! that are wrong (card ids not held, repeated, too many, too few, another seat's cards, fields
//! changed, dropped or added), actions of the other games and random JSON with edge cases (wrong
//! types, unknown `type`, huge numbers, `-0.0`, `1e308`, deep nesting, unicode, empty objects and
//! arrays). Everything goes through the JSON edge the server uses (`Engine::open`,
//! `Table::decide`, `Table::apply`), and each accepted move is also decided on the typed `Game`.
//!
//! It checks that:
//! - deciding never panics, and a refused action leaves the table exactly as it was
//!   (`Table::same_as` a clone taken before); a seat not to act (a seat beyond the table
//!   included) is told "not your move";
//! - an accepted action is one the seat was offered (`legal_actions`), decides the same events
//!   through JSON and typed, and once applied keeps the game's invariants (every card accounted
//!   for); the game then still has a seat to act, or has ended;
//! - every event survives its stored form (`record` → `parse_recorded`), `redact` answers for
//!   every viewer, and replaying the stored log rebuilds the same table.
//!
//! The default run is fixed (seeded) and takes a few seconds. `PARLOUR_FUZZ_CASES` sets the games
//! per configuration (default 2), `PARLOUR_FUZZ_SEED` the base seed, e.g.
//! `PARLOUR_FUZZ_CASES=200 cargo test --release -p parlour-domain --test fuzz`.

// Issue 9 lints: tests fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use parlour_domain::british_birds::BritishBirds;
use parlour_domain::engine::{outcome_json, parse_recorded, record, view_json, EngineOf};
use parlour_domain::googly::Googly;
use parlour_domain::history_of_england::HistoryOfEngland;
use parlour_domain::playout::{card_ids, instantiate, mentioned_cards};
use parlour_domain::tricks::{CarGame, GirlGame};
use parlour_domain::{
    Chance, Engine, Game, Player, Recorded, Refused, Seat, Seed, Setup, Table, Viewer,
    RULES_VERSION,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------------------------------------
// What to fuzz
// ---------------------------------------------------------------------------------------------

/// One kind of table: a game, a player count and the options it is created with.
#[derive(Debug, Clone)]
struct Config {
    game: &'static str,
    players: usize,
    options: Value,
    /// The rules version the table is created under: the latest, but for options only an
    /// older version's games may set (British Birds' `play_to`).
    rules_version: u32,
}

fn config(game: &'static str, players: usize, options: Value) -> Config {
    Config {
        game,
        players,
        options,
        rules_version: RULES_VERSION,
    }
}

/// Every game at every player count with its default options, then each of the catalogue's
/// variants (options that change the pack, the variant or the length of the game) at every
/// player count it is meant for.
fn configs(game: &'static str) -> Vec<Config> {
    let Some(entry) = parlour_domain::catalog::entry(game) else {
        panic!("no game {game}")
    };
    let d = entry.engine.describe();
    let mut configs: Vec<Config> = (d.min_players..=d.max_players)
        .map(|players| config(game, players, json!({})))
        .collect();
    for variant in entry.variants {
        for &players in variant.players {
            configs.push(Config {
                rules_version: variant.rules_version(),
                ..config(game, players, variant.options())
            });
        }
    }
    configs
}

/// Games played per configuration: `PARLOUR_FUZZ_CASES`, else 2.
fn cases() -> u64 {
    std::env::var("PARLOUR_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2)
}

/// The base seed: `PARLOUR_FUZZ_SEED`, else a fixed one, so the default run is repeatable.
fn base_seed() -> u64 {
    std::env::var("PARLOUR_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0x0008_0006)
}

/// A game longer than this is a failure in itself (the playout tests bound each game far lower).
const MAX_MOVES: usize = 20_000;

/// Probes thrown at each state reached: one at each of up to `SEATS_PER_STATE` seats (on turn or
/// not), and `EXTRA_AT_TURN` more at seats to act, where most of the rules are.
const SEATS_PER_STATE: usize = 5;
const EXTRA_AT_TURN: usize = 2;

// ---------------------------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------------------------

/// What a fuzz run did, for the summary it prints.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Stats {
    games: u64,
    moves: u64,
    probes: u64,
    accepted: u64,
    malformed: u64,
    not_your_move: u64,
    forbidden: u64,
    /// Bodies that the server's JSON parser itself refuses (nested deeper than it allows).
    unparseable: u64,
    /// Accepted bodies that are not exactly the action they decode to: unknown fields ignored.
    /// The framework check planned in `engine.rs` will refuse these; until then they must
    /// decide exactly as the action they decode to.
    accepted_with_extras: u64,
    /// Accepted actions that `legal_actions` does not list but the rules allow at any move
    /// (see [`offered_elsewhere`]).
    accepted_unoffered: u64,
    /// A few of the accepted bodies with extras, for the summary.
    extras_examples: Vec<String>,
    /// Accepted moves whose events leave the table as it was (they only lengthen the log).
    accepted_no_change: u64,
    /// A few of those, for the summary.
    no_change_examples: Vec<String>,
}

impl Stats {
    fn add(&mut self, other: &Stats) {
        self.games += other.games;
        self.moves += other.moves;
        self.probes += other.probes;
        self.accepted += other.accepted;
        self.malformed += other.malformed;
        self.not_your_move += other.not_your_move;
        self.forbidden += other.forbidden;
        self.unparseable += other.unparseable;
        self.accepted_with_extras += other.accepted_with_extras;
        self.accepted_unoffered += other.accepted_unoffered;
        self.accepted_no_change += other.accepted_no_change;
        for example in &other.no_change_examples {
            if self.no_change_examples.len() < 3 {
                self.no_change_examples.push(example.clone());
            }
        }
        for example in &other.extras_examples {
            if self.extras_examples.len() < 3 {
                self.extras_examples.push(example.clone());
            }
        }
    }
}

/// Which kind of body a probe was, for failure messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Legal,
    Mutated,
    Foreign,
    Random,
}

/// One seeded game of `config`, fuzzed at every state. Returns what it did, or the first broken
/// promise with everything needed to reproduce it.
fn fuzz_game<G: Game>(config: &Config, seed: u64) -> Result<Stats, String> {
    let engine = EngineOf::<G>::new();
    let players: Vec<Player> = (0..config.players)
        .map(|i| Player {
            name: format!("player {i}"),
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game_seed = [0u8; 32];
    rng.fill_bytes(&mut game_seed);
    let game_seed = Seed(game_seed);

    let mut table = engine
        .open(&players, &config.options, config.rules_version)
        .map_err(|e| format!("{config:?} does not open: {e}"))?;
    let options: G::Options = serde_json::from_value(config.options.clone())
        .map_err(|e| format!("{config:?}: options do not parse: {e}"))?;
    let setup = Setup::new(players.clone(), options).under(config.rules_version);
    let mut state = G::new(&setup).map_err(|e| format!("{config:?}: setup refused: {e}"))?;

    let mut fuzz = Fuzzer::<G> {
        engine: &engine,
        config,
        seed,
        ids: card_ids(&G::cards()),
        foreign: foreign_actions(config.game),
        types: BTreeSet::new(),
        fields: BTreeSet::new(),
        stats: Stats {
            games: 1,
            ..Stats::default()
        },
        log: Vec::new(),
        rng,
        game_seed,
        moves: 0,
    };

    let opening = table.start(&mut Chance::new(game_seed, 1));
    let typed = G::start(&state, &mut Chance::new(game_seed, 1));
    fuzz.same_events(&opening.events, &typed, "the opening")?;
    state = fuzz.evolve_checked(state, &typed, "the opening")?;
    fuzz.log.extend(opening.events.iter().cloned());
    table.apply(opening);

    loop {
        fuzz.probe_state(table.as_ref(), &state)?;
        if table.outcome().is_some() {
            break;
        }
        if fuzz.moves >= MAX_MOVES {
            return Err(fuzz.at(format!("no end after {MAX_MOVES} moves")));
        }
        let to_act = table.to_act();
        if to_act.is_empty() {
            return Err(fuzz.at("the game is not over but no seat is to act".into()));
        }
        let seat = to_act[fuzz.pick(to_act.len())];
        let offered = table.legal_actions(seat);
        if offered.is_empty() {
            return Err(fuzz.at(format!("{seat} is to act but has no legal action")));
        }
        let body = instantiate(&offered[fuzz.pick(offered.len())], &mut fuzz.rng);
        let chance = fuzz.chance();
        let decision = match table.decide(seat, &body, &mut chance.clone()) {
            Ok(decision) => decision,
            Err(e) => return Err(fuzz.at(format!("legal {body} by {seat} refused: {e}"))),
        };
        let typed = fuzz.typed_decide(&state, seat, &body, &chance)?;
        fuzz.same_events(&decision.events, &typed, &body.to_string())?;
        state = fuzz.evolve_checked(state, &typed, &body.to_string())?;
        fuzz.log.extend(decision.events.iter().cloned());
        table.apply(decision);
        fuzz.check_mirror(table.as_ref(), &state, &body)?;
        fuzz.moves += 1;
        fuzz.stats.moves += 1;
    }

    // The stored log rebuilds the same table, as the server does after a restart.
    let mut replayed = engine
        .open(&players, &config.options, config.rules_version)
        .map_err(|e| format!("{config:?} does not reopen: {e}"))?;
    for event in &fuzz.log {
        replayed
            .apply_recorded(event)
            .map_err(|e| fuzz.at(format!("the log does not replay: {e}")))?;
    }
    if !replayed.same_as(table.as_ref()) {
        return Err(fuzz.at("replaying the stored log built a different table".into()));
    }
    Ok(fuzz.stats)
}

struct Fuzzer<'a, G: Game> {
    engine: &'a EngineOf<G>,
    config: &'a Config,
    seed: u64,
    ids: BTreeSet<String>,
    foreign: &'static [Value],
    /// The action types and field names seen in legal actions so far, to build near misses.
    types: BTreeSet<String>,
    fields: BTreeSet<String>,
    stats: Stats,
    log: Vec<Recorded>,
    rng: ChaCha8Rng,
    game_seed: Seed,
    moves: usize,
}

impl<G: Game> Fuzzer<'_, G> {
    fn at(&self, what: String) -> String {
        format!(
            "{} with {} players, options {}, fuzz seed {}, after move {}: {what}",
            self.config.game, self.config.players, self.config.options, self.seed, self.moves
        )
    }

    fn pick(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n.max(1) as u64) as usize
    }

    fn chance(&self) -> Chance {
        Chance::new(self.game_seed, self.log.len() as u64 + 1)
    }

    fn viewers(&self) -> Vec<Viewer> {
        Seat::all(self.config.players)
            .map(Viewer::Seat)
            .chain([Viewer::Spectator])
            .collect()
    }

    /// Throws probes at seats on turn and not, at one state.
    fn probe_state(&mut self, table: &dyn Table, state: &G::State) -> Result<(), String> {
        let players = self.config.players;
        let to_act = table.to_act();
        let mut seats: Vec<Seat> = Seat::all(players).collect();
        while seats.len() > SEATS_PER_STATE {
            let i = self.pick(seats.len());
            seats.swap_remove(i);
        }
        for _ in 0..EXTRA_AT_TURN {
            if !to_act.is_empty() {
                seats.push(to_act[self.pick(to_act.len())]);
            }
        }
        for seat in seats {
            let (kind, body) = self.body_for(table, seat);
            self.probe(table, state, seat, kind, body)?;
        }
        // The server only ever passes a seat of the table, but `decide` promises "not your
        // move" to every seat not to act, and a seat beyond the table is one.
        let beyond = [players, players + 1, 8, 31, 32, 64, 255][self.pick(7)].max(players);
        let (kind, body) = self.body_for(table, Seat(beyond.min(255) as u8));
        self.probe(table, state, Seat(beyond.min(255) as u8), kind, body)?;
        Ok(())
    }

    /// Decides one body at one seat and checks every promise about the answer.
    fn probe(
        &mut self,
        table: &dyn Table,
        state: &G::State,
        seat: Seat,
        kind: Kind,
        body: Value,
    ) -> Result<(), String> {
        self.stats.probes += 1;
        // The server parses a request body from text, with serde_json's nesting limit.
        let body = match serde_json::from_str::<Value>(&body.to_string()) {
            Ok(body) => body,
            Err(_) => {
                self.stats.unparseable += 1;
                return Ok(());
            }
        };
        let shown = shorten(&body);
        let before = table.clone_table();
        let chance = self.chance();
        let decided = catch_unwind(AssertUnwindSafe(|| {
            table.decide(seat, &body, &mut chance.clone())
        }))
        .map_err(|_| self.at(format!("{kind:?} {shown} by {seat}: decide panicked")))?;
        if !table.same_as(before.as_ref()) {
            return Err(self.at(format!(
                "{kind:?} {shown} by {seat}: deciding changed the table"
            )));
        }
        let to_act = table.to_act();
        let decision = match decided {
            Err(Refused::Malformed(_)) => {
                self.stats.malformed += 1;
                return Ok(());
            }
            Err(Refused::NotYourMove { .. }) => {
                self.stats.not_your_move += 1;
                return Ok(());
            }
            Err(Refused::Forbidden { rule, message }) => {
                self.stats.forbidden += 1;
                if !to_act.contains(&seat) {
                    return Err(self.at(format!(
                        "{kind:?} {shown} by {seat}, who is not to act, was told {rule}: \
                         {message} instead of not-your-move"
                    )));
                }
                return Ok(());
            }
            Ok(decision) => decision,
        };
        self.stats.accepted += 1;
        let what = format!("{kind:?} {shown} by {seat}");
        if !to_act.contains(&seat) {
            return Err(self.at(format!("{what} accepted from a seat not to act")));
        }
        if decision.events.is_empty() {
            return Err(self.at(format!("{what} accepted with no events")));
        }
        // The body decodes to a typed action, which must decide exactly as the body did.
        let action: G::Action = serde_json::from_value(body.clone())
            .map_err(|e| self.at(format!("{what} accepted but is no action: {e}")))?;
        let canonical = serde_json::to_value(&action)
            .map_err(|e| self.at(format!("{what}: the action does not serialise: {e}")))?;
        // The framework refuses what the typed action does not say back (an unknown field,
        // `-0.0`, ...); only a `null` standing for an optional field left out may differ.
        if canonical != without_nulls(&body) {
            self.stats.accepted_with_extras += 1;
            return Err(self.at(format!(
                "{what} accepted as {canonical}: the body says more than the action keeps"
            )));
        }
        if decision.action.as_ref() != Some(&canonical) {
            return Err(self.at(format!(
                "{what}: the decision records {:?}, not the canonical action {canonical}",
                decision.action
            )));
        }
        let offered = table.legal_actions(seat);
        if !offered.iter().any(|t| is_instance(&canonical, t)) {
            if offered_elsewhere(self.config.game, &canonical) {
                self.stats.accepted_unoffered += 1;
            } else {
                return Err(self.at(format!(
                    "{what} accepted as {canonical}, which is none of the legal actions {}",
                    shorten(&Value::Array(offered))
                )));
            }
        }
        let again = table
            .decide(seat, &canonical, &mut chance.clone())
            .map_err(|e| self.at(format!("{what} accepted but {canonical} refused: {e}")))?;
        if again.events != decision.events {
            return Err(self.at(format!("{what} and {canonical} decide different events")));
        }
        let typed = self.typed_decide(state, seat, &canonical, &chance)?;
        self.same_events(&decision.events, &typed, &what)?;

        // Applied (to a copy: the main line goes on with its own moves), it keeps every
        // invariant and leaves a game that goes on or has ended.
        let mut after = table.clone_table();
        after.apply(decision);
        if after.same_as(table) {
            // Not a broken promise, but a move that only lengthens the log: counted, reported.
            self.stats.accepted_no_change += 1;
            if self.stats.no_change_examples.len() < 3 {
                self.stats
                    .no_change_examples
                    .push(format!("{canonical} by {seat}"));
            }
        }
        let evolved = self.evolve_checked(state.clone(), &typed, &what)?;
        self.check_mirror(after.as_ref(), &evolved, &canonical)?;
        Ok(())
    }

    /// Decides on the typed `Game`, checking that this changes nothing either.
    fn typed_decide(
        &self,
        state: &G::State,
        seat: Seat,
        body: &Value,
        chance: &Chance,
    ) -> Result<Vec<G::Event>, String> {
        let action: G::Action = serde_json::from_value(body.clone())
            .map_err(|e| self.at(format!("{body} does not parse as an action: {e}")))?;
        let before = state.clone();
        let events = G::decide(state, seat, &action, &mut chance.clone())
            .map_err(|e| self.at(format!("{body} by {seat} refused on the typed path: {e}")))?;
        if *state != before {
            return Err(self.at(format!("deciding {body} changed the typed state")));
        }
        Ok(events)
    }

    /// The events the JSON edge decided are those the typed game decides, in stored form.
    fn same_events(
        &self,
        recorded: &[Recorded],
        typed: &[G::Event],
        what: &str,
    ) -> Result<(), String> {
        let typed: Vec<Recorded> = typed.iter().map(record).collect();
        if recorded != typed.as_slice() {
            return Err(self.at(format!("{what}: the JSON edge and the typed game disagree")));
        }
        Ok(())
    }

    /// Applies events to the typed state, checking after each that the invariants hold, the
    /// event survives its stored form and every viewer's redaction answers.
    fn evolve_checked(
        &self,
        mut state: G::State,
        events: &[G::Event],
        what: &str,
    ) -> Result<G::State, String> {
        for event in events {
            let recorded = record(event);
            let kind = recorded.kind.clone();
            let back: G::Event = parse_recorded(&recorded)
                .map_err(|e| self.at(format!("{what}: {kind} does not parse back: {e}")))?;
            if &back != event {
                return Err(self.at(format!("{what}: {kind} does not survive its stored form")));
            }
            for viewer in self.viewers() {
                let redacted =
                    catch_unwind(AssertUnwindSafe(|| self.engine.redact(&recorded, viewer)))
                        .map_err(|_| {
                            self.at(format!("{what}: redacting {kind} for {viewer:?} panicked"))
                        })?;
                redacted.map_err(|e| self.at(format!("{what}: {kind} for {viewer:?}: {e}")))?;
            }
            state = catch_unwind(AssertUnwindSafe(|| G::evolve(state, event)))
                .map_err(|_| self.at(format!("{what}: evolving {kind} panicked")))?;
            G::check_invariants(&state)
                .map_err(|e| self.at(format!("{what}: after {kind}: {e}")))?;
        }
        Ok(state)
    }

    /// The table behind the JSON edge and the typed state agree, and the game goes on or ended.
    fn check_mirror(
        &self,
        table: &dyn Table,
        state: &G::State,
        body: &Value,
    ) -> Result<(), String> {
        if table.to_act() != G::to_act(state) || table.outcome() != outcome_json::<G>(state) {
            return Err(self.at(format!(
                "after {body}, the table and the typed state differ"
            )));
        }
        for viewer in [Viewer::Spectator, Viewer::Seat(Seat(0))] {
            if table.view(viewer) != view_json::<G>(state, viewer) {
                return Err(self.at(format!("after {body}, {viewer:?} sees different views")));
            }
        }
        if table.outcome().is_none() {
            let to_act = table.to_act();
            if to_act.is_empty() {
                return Err(self.at(format!("after {body}, no end and no seat to act")));
            }
            if to_act.iter().all(|s| table.legal_actions(*s).is_empty()) {
                return Err(self.at(format!("after {body}, no seat to act has a legal move")));
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Bodies
    // -----------------------------------------------------------------------------------------

    fn body_for(&mut self, table: &dyn Table, seat: Seat) -> (Kind, Value) {
        // Remember the shapes of legal actions, for near misses later in the game.
        for other in table.to_act() {
            for template in table.legal_actions(other) {
                if let Value::Object(map) = &template {
                    if let Some(Value::String(kind)) = map.get("type") {
                        self.types.insert(kind.clone());
                    }
                    self.fields
                        .extend(map.keys().filter(|k| *k != "type").cloned());
                }
            }
        }
        match self.pick(10) {
            0..=1 => (Kind::Legal, self.legal_body(table, seat)),
            2..=5 => (Kind::Mutated, self.mutated_body(table, seat)),
            6 => (Kind::Foreign, self.foreign_body()),
            _ => (Kind::Random, self.random_body()),
        }
    }

    /// One of the seat's legal actions, or, for a seat with none, one of another seat's.
    fn legal_body(&mut self, table: &dyn Table, seat: Seat) -> Value {
        let mut offered = table.legal_actions(seat);
        if offered.is_empty() || self.pick(4) == 0 {
            let to_act = table.to_act();
            if !to_act.is_empty() {
                offered = table.legal_actions(to_act[self.pick(to_act.len())]);
            }
        }
        if offered.is_empty() {
            return json!({});
        }
        let template = offered[self.pick(offered.len())].clone();
        instantiate(&template, &mut self.rng)
    }

    /// A legal action of the seat (or of a seat to act) with one thing wrong with it.
    fn mutated_body(&mut self, table: &dyn Table, seat: Seat) -> Value {
        let mut offered = table.legal_actions(seat);
        if offered.is_empty() {
            let to_act = table.to_act();
            if !to_act.is_empty() {
                offered = table.legal_actions(to_act[self.pick(to_act.len())]);
            }
        }
        let template = match offered.len() {
            0 => json!({"type": self.known_type()}),
            n => offered[self.pick(n)].clone(),
        };
        let others = self.others_cards(table, seat);
        if has_choice(&template) && self.pick(2) == 0 {
            return self.mutate_choice(&template, &others);
        }
        let mut body = instantiate(&template, &mut self.rng);
        match self.pick(6) {
            0 | 1 => {
                let leaves = leaf_paths(&body);
                if !leaves.is_empty() {
                    let path = leaves[self.pick(leaves.len())].clone();
                    let value = self.wrong_value(&others);
                    set_at(&mut body, &path, value);
                }
            }
            2 => {
                // Drop a field, or every field but the type.
                if let Value::Object(map) = &mut body {
                    let keys: Vec<String> = map.keys().filter(|k| *k != "type").cloned().collect();
                    if keys.is_empty() || self.pick(3) == 0 {
                        map.retain(|k, _| k == "type");
                    } else {
                        map.remove(&keys[self.pick(keys.len())]);
                    }
                }
            }
            3 => {
                // An unknown field (or a known one of another action) beside the real ones.
                let key = if self.pick(2) == 0 && !self.fields.is_empty() {
                    self.any_of_fields()
                } else {
                    ["extra", "", "Type", "type ", "__proto__", "ünïcödé"][self.pick(6)].to_string()
                };
                let value = self.random_json(2);
                if let Value::Object(map) = &mut body {
                    map.insert(key, value);
                }
            }
            4 => {
                // Another type with these fields.
                let kind = match self.pick(4) {
                    0 => Value::String("LAY".into()),
                    1 => self.random_json(1),
                    _ => Value::String(self.known_type()),
                };
                if let Value::Object(map) = &mut body {
                    map.insert("type".into(), kind);
                }
            }
            _ => {
                // Every string in the body swapped for a card of another seat.
                if !others.is_empty() {
                    let paths = leaf_paths(&body);
                    for path in paths {
                        if matches!(get_at(&body, &path), Some(Value::String(_))) {
                            let card = others[self.pick(others.len())].clone();
                            set_at(&mut body, &path, Value::String(card));
                        }
                    }
                }
            }
        }
        body
    }

    /// Fills a `{"choose": k, "from": [...]}` wrongly: too many, too few, a card repeated, a
    /// card of another seat, a card of no one, or not a card at all.
    fn mutate_choice(&mut self, template: &Value, others: &[String]) -> Value {
        let how = self.pick(7);
        let unknown = self.wrong_value(others);
        let any_card = self.any_card();
        let other_card = if others.is_empty() {
            any_card.clone()
        } else {
            others[self.pick(others.len())].clone()
        };
        map_choices(
            template,
            &mut |k, from, rng| {
                let mut pool = from.to_vec();
                let take = match how {
                    0 => k + 1 + (rng.next_u64() % 3) as usize,
                    1 => k.saturating_sub(1 + (rng.next_u64() % 2) as usize),
                    _ => k,
                };
                let mut picked = Vec::new();
                while picked.len() < take && !pool.is_empty() {
                    let i = (rng.next_u64() % pool.len() as u64) as usize;
                    picked.push(pool.swap_remove(i));
                }
                if how == 0 && picked.len() < take {
                    // Not enough to choose from: pad with a card from elsewhere.
                    picked.push(Value::String(other_card.clone()));
                }
                if !picked.is_empty() {
                    let i = (rng.next_u64() % picked.len() as u64) as usize;
                    match how {
                        2 => {
                            let j = (rng.next_u64() % picked.len() as u64) as usize;
                            picked[i] = picked[j].clone();
                            if i == j && picked.len() > 1 {
                                let next = (i + 1) % picked.len();
                                picked[next] = picked[i].clone();
                            }
                        }
                        3 => picked[i] = Value::String(other_card.clone()),
                        4 => picked[i] = Value::String(any_card.clone()),
                        5 => picked[i] = unknown.clone(),
                        6 => picked.push(picked[i].clone()),
                        _ => {}
                    }
                }
                Value::Array(picked)
            },
            &mut self.rng,
        )
    }

    fn foreign_body(&mut self) -> Value {
        if self.foreign.is_empty() {
            return json!({});
        }
        self.foreign[self.pick(self.foreign.len())].clone()
    }

    /// Random JSON, half the time shaped like an action of this game.
    fn random_body(&mut self) -> Value {
        match self.pick(4) {
            0 => self.random_json(4),
            1 => self.deep(),
            _ => {
                let mut map = Map::new();
                let kind = if self.pick(5) == 0 {
                    self.random_json(1)
                } else {
                    Value::String(self.known_type())
                };
                map.insert("type".into(), kind);
                for _ in 0..self.pick(4) {
                    let key = if self.fields.is_empty() || self.pick(4) == 0 {
                        self.random_string()
                    } else {
                        self.any_of_fields()
                    };
                    let value = self.random_json(2);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        }
    }

    /// Nested arrays or objects, sometimes deeper than the server's parser allows.
    fn deep(&mut self) -> Value {
        let depth = [2, 16, 120, 127, 128, 200][self.pick(6)];
        let mut value = self.random_json(0);
        let as_object = self.pick(2) == 0;
        for _ in 0..depth {
            value = if as_object {
                json!({"type": value})
            } else {
                json!([value])
            };
        }
        value
    }

    fn random_json(&mut self, depth: u32) -> Value {
        let choice = if depth == 0 {
            self.pick(7)
        } else {
            self.pick(10)
        };
        match choice {
            0 => Value::Null,
            1 => Value::Bool(self.pick(2) == 0),
            2 | 3 => self.edge_number(),
            4 | 5 => Value::String(self.random_string()),
            6 => Value::String(self.any_card()),
            7 => Value::Array(vec![]),
            8 => {
                let n = self.pick(5);
                Value::Array((0..n).map(|_| self.random_json(depth - 1)).collect())
            }
            _ => {
                let n = self.pick(4);
                let mut map = Map::new();
                for _ in 0..n {
                    let key = if self.fields.is_empty() || self.pick(2) == 0 {
                        self.random_string()
                    } else {
                        self.any_of_fields()
                    };
                    let value = self.random_json(depth - 1);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        }
    }

    fn edge_number(&mut self) -> Value {
        match self.pick(16) {
            0 => json!(0),
            1 => json!(-1),
            2 => json!(1),
            3 => json!(255),
            4 => json!(256),
            5 => json!(u64::MAX),
            6 => json!(i64::MIN),
            7 => json!(-0.0),
            8 => json!(1e308),
            9 => json!(-1e308),
            10 => json!(5e-324),
            11 => json!(0.5),
            12 => json!(65_536),
            13 => json!(4_294_967_296_u64),
            14 => json!(self.config.players),
            _ => json!(self.rng.next_u64() % 30),
        }
    }

    fn random_string(&mut self) -> String {
        match self.pick(12) {
            0 => String::new(),
            1 => "type".into(),
            2 => "✓ ñ 𝄞 مرحبا 漢字".into(),
            3 => "\u{0}\u{1f}\u{7f}\u{feff}".into(),
            4 => "x".repeat(10_000),
            5 => "-0".into(),
            6 => "1e308".into(),
            7 => " lay ".into(),
            8 => self.known_type(),
            9 => self.any_card().to_uppercase(),
            10 => format!("player {}", self.pick(self.config.players + 2)),
            _ => format!("{}-{}", self.known_type(), self.rng.next_u64() % 100),
        }
    }

    /// A wrong value for a field: another card, a number, a string, or the wrong type.
    fn wrong_value(&mut self, others: &[String]) -> Value {
        match self.pick(8) {
            0 if !others.is_empty() => Value::String(others[self.pick(others.len())].clone()),
            1 => Value::String(self.any_card()),
            2 => Value::String("no-such-card".into()),
            3 => self.edge_number(),
            4 => json!(self.config.players + self.pick(3)),
            5 => Value::Null,
            6 => json!([]),
            _ => self.random_json(1),
        }
    }

    fn known_type(&mut self) -> String {
        if self.types.is_empty() || self.pick(8) == 0 {
            return ["", "nope", "Lay", "turn_up ", "ask\u{0}", "play-on"][self.pick(6)].into();
        }
        let i = self.pick(self.types.len());
        self.types.iter().nth(i).cloned().unwrap_or_default()
    }

    fn any_of_fields(&mut self) -> String {
        let i = self.pick(self.fields.len());
        self.fields.iter().nth(i).cloned().unwrap_or_default()
    }

    fn any_card(&mut self) -> String {
        let n = self.ids.len();
        if n == 0 {
            return "no-such-card".into();
        }
        let i = self.pick(n);
        self.ids.iter().nth(i).cloned().unwrap_or_default()
    }

    /// The cards some other seat sees in its own private view.
    fn others_cards(&mut self, table: &dyn Table, seat: Seat) -> Vec<String> {
        let players = self.config.players;
        if players < 2 {
            return Vec::new();
        }
        let other = Seat(((seat.index() + 1 + self.pick(players - 1)) % players) as u8);
        match table.view(Viewer::Seat(other)).private {
            Some(private) => mentioned_cards(&private, &self.ids).into_iter().collect(),
            None => Vec::new(),
        }
    }
}

/// Actions a game's rules allow at any move that its `legal_actions` does not always list:
/// GOOGLY's `prefer` (free-form standing preferences, which no template can spell), `play_on`
/// and `accept_defaults`, which `docs/rules/googly.md` allows to "any seat to act" and "any seat
/// with a decision" but `legal_actions` offers only while a card is to be turned and before an
/// innings.
fn offered_elsewhere(game: &str, action: &Value) -> bool {
    let kind = action.get("type").and_then(Value::as_str);
    game == "googly" && matches!(kind, Some("prefer" | "play_on" | "accept_defaults"))
}

/// Whether `body` is one of the bodies `template` stands for: the same, except that each
/// `{"choose": k, "from": [...]}` is k distinct items of `from`.
fn is_instance(body: &Value, template: &Value) -> bool {
    match template {
        Value::Object(map) => {
            if let Some((k, from)) = choice(template) {
                return match body {
                    Value::Array(items) => {
                        let distinct: BTreeSet<String> =
                            items.iter().map(Value::to_string).collect();
                        items.len() == k
                            && distinct.len() == k
                            && items.iter().all(|item| from.contains(item))
                    }
                    _ => false,
                };
            }
            match body {
                Value::Object(body) => {
                    body.len() == map.len()
                        && map
                            .iter()
                            .all(|(key, t)| body.get(key).is_some_and(|b| is_instance(b, t)))
                }
                _ => false,
            }
        }
        Value::Array(items) => match body {
            Value::Array(body) => {
                body.len() == items.len() && body.iter().zip(items).all(|(b, t)| is_instance(b, t))
            }
            _ => false,
        },
        other => body == other,
    }
}

fn choice(template: &Value) -> Option<(usize, &[Value])> {
    match template {
        Value::Object(map) if map.len() == 2 => match (map.get("choose"), map.get("from")) {
            (Some(Value::Number(k)), Some(Value::Array(from))) => {
                Some((k.as_u64().unwrap_or(0) as usize, from.as_slice()))
            }
            _ => None,
        },
        _ => None,
    }
}

fn has_choice(template: &Value) -> bool {
    match template {
        _ if choice(template).is_some() => true,
        Value::Object(map) => map.values().any(has_choice),
        Value::Array(items) => items.iter().any(has_choice),
        _ => false,
    }
}

/// `template` with every choice replaced by what `fill` makes of it.
fn map_choices(
    template: &Value,
    fill: &mut impl FnMut(usize, &[Value], &mut ChaCha8Rng) -> Value,
    rng: &mut ChaCha8Rng,
) -> Value {
    if let Some((k, from)) = choice(template) {
        return fill(k, from, rng);
    }
    match template {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), map_choices(value, fill, rng)))
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| map_choices(v, fill, rng)).collect())
        }
        other => other.clone(),
    }
}

/// A step into a JSON value: an object key or an array index.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// The paths of every scalar in `value`, except the action's `type`.
fn leaf_paths(value: &Value) -> Vec<Vec<Step>> {
    fn walk(value: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    if path.is_empty() && key == "type" {
                        continue;
                    }
                    path.push(Step::Key(key.clone()));
                    walk(v, path, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    walk(v, path, out);
                    path.pop();
                }
            }
            _ => out.push(path.clone()),
        }
    }
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

fn get_at<'v>(value: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, step| match step {
        Step::Key(key) => v.get(key),
        Step::Index(i) => v.get(i),
    })
}

fn set_at(value: &mut Value, path: &[Step], new: Value) {
    let target = path.iter().try_fold(value, |v, step| match step {
        Step::Key(key) => v.get_mut(key),
        Step::Index(i) => v.get_mut(i),
    });
    if let Some(target) = target {
        *target = new;
    }
}

/// A body for a failure message: long strings cut short.
fn shorten(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 400 {
        let mut end = 400;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &text[..end], text.len())
    } else {
        text
    }
}

/// Legal actions of every other game, from the first few dozen moves of a seeded game of each:
/// a pool of bodies that are well formed, but for another engine.
fn foreign_actions(game: &str) -> &'static [Value] {
    static POOL: OnceLock<Vec<(String, Value)>> = OnceLock::new();
    static FOREIGN: OnceLock<Vec<(String, Vec<Value>)>> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        let mut pool = Vec::new();
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        for engine in parlour_domain::catalog::engines() {
            let d = engine.describe();
            let players: Vec<Player> = (0..d.min_players.max(2).min(d.max_players))
                .map(|i| Player {
                    name: format!("player {i}"),
                })
                .collect();
            let Ok(mut table) = engine.open(&players, &json!({}), RULES_VERSION) else {
                continue;
            };
            let opening = table.start(&mut Chance::new(Seed([8; 32]), 1));
            let mut seq = opening.events.len() as u64 + 1;
            table.apply(opening);
            for _ in 0..60 {
                let to_act = table.to_act();
                let Some(&seat) = to_act.first() else { break };
                let offered = table.legal_actions(seat);
                if offered.is_empty() {
                    break;
                }
                for template in &offered {
                    pool.push((d.id.to_string(), instantiate(template, &mut rng)));
                }
                let body = instantiate(
                    &offered[(rng.next_u64() % offered.len() as u64) as usize],
                    &mut rng,
                );
                match table.decide(seat, &body, &mut Chance::new(Seed([8; 32]), seq)) {
                    Ok(decision) => {
                        seq += decision.events.len() as u64;
                        table.apply(decision);
                    }
                    Err(_) => break,
                }
            }
        }
        pool
    });
    let foreign = FOREIGN.get_or_init(|| {
        parlour_domain::catalog::engines()
            .iter()
            .map(|engine| {
                let id = engine.describe().id.to_string();
                let others = pool
                    .iter()
                    .filter(|(g, _)| *g != id)
                    .map(|(_, body)| body.clone())
                    .collect();
                (id, others)
            })
            .collect()
    });
    foreign
        .iter()
        .find(|(id, _)| id == game)
        .map(|(_, bodies)| bodies.as_slice())
        .unwrap_or(&[])
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

/// Fuzzes `cases()` games of every configuration of `game`, panicking at the first failure.
fn fuzz_every_configuration<G: Game>(game: &'static str) -> Stats {
    let configs = configs(game);
    assert!(!configs.is_empty(), "{game} is not in the catalogue");
    let mut total = Stats::default();
    for (i, config) in configs.iter().enumerate() {
        for case in 0..cases() {
            let seed = base_seed()
                .wrapping_mul(1_000_003)
                .wrapping_add(case * 1_000 + i as u64);
            match fuzz_game::<G>(config, seed) {
                Ok(stats) => total.add(&stats),
                Err(broken) => panic!("{broken}"),
            }
        }
    }
    eprintln!("{game}: {total:?}");
    // A run that threw nothing, or whose every body bounced off the parser, tested nothing.
    assert!(total.accepted > 0 && total.forbidden > 0 && total.malformed > 0);
    assert!(total.not_your_move > 0);
    total
}

#[test]
fn girl_survives_every_action_thrown_at_every_seat() {
    fuzz_every_configuration::<GirlGame>("girl");
}

#[test]
fn the_car_game_survives_every_action_thrown_at_every_seat() {
    fuzz_every_configuration::<CarGame>("car");
}

#[test]
fn british_birds_survives_every_action_thrown_at_every_seat() {
    fuzz_every_configuration::<BritishBirds>("british-birds");
}

#[test]
fn history_of_england_survives_every_action_thrown_at_every_seat() {
    fuzz_every_configuration::<HistoryOfEngland>("history-of-england");
}

#[test]
fn googly_survives_every_action_thrown_at_every_seat() {
    fuzz_every_configuration::<Googly>("googly");
}

#[test]
fn every_game_in_the_catalogue_is_fuzzed() {
    let fuzzed = [
        "girl",
        "car",
        "british-birds",
        "history-of-england",
        "googly",
    ];
    for engine in parlour_domain::catalog::engines() {
        let id = engine.describe().id;
        assert!(fuzzed.contains(&id), "{id} has no fuzz test");
    }
}

// ---------------------------------------------------------------------------------------------
// The fuzzer can fail: a toy game with bugs planted on request
// ---------------------------------------------------------------------------------------------

/// A toy game for two: six cards dealt three each; in turn each discards one until both hands
/// are empty. Its options plant one bug, to show that the fuzzer finds each kind.
struct Discard;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
enum Bug {
    #[default]
    None,
    /// Offers and accepts a discard of any card, held or not (and so counts some twice).
    UncheckedCard,
    /// Panics on a card that is in no pack.
    PanicsOnUnknownCard,
    /// Checks the card before anything else, so a seat not to act would be told "forbidden"
    /// if the framework did not refuse it first.
    RuleBeforeTurn,
    /// Offers only the cards held but accepts any.
    AcceptsUnoffered,
    /// Records a discard with a detail its stored form loses.
    LossyEvent,
}

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
struct DiscardOptions {
    bug: Bug,
}

#[derive(Debug, Clone, PartialEq)]
struct DiscardState {
    bug: Bug,
    hands: Vec<Vec<String>>,
    pile: Vec<String>,
    turn: Seat,
    dealt: bool,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum DiscardAction {
    Discard { card: String },
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
enum DiscardEvent {
    Deal {
        hands: Vec<Vec<String>>,
    },
    Discarded {
        seat: Seat,
        card: String,
        #[serde(skip)]
        lossy: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum DiscardError {
    #[error("you do not hold {0}")]
    NotHeld(String),
}

impl parlour_domain::Refusal for DiscardError {
    fn kind(&self) -> parlour_domain::RefusalKind {
        match self {
            DiscardError::NotHeld(_) => parlour_domain::RefusalKind::Forbidden,
        }
    }

    fn rule(&self) -> &'static str {
        match self {
            DiscardError::NotHeld(_) => "discard-a-card-you-hold",
        }
    }
}

const TOY_CARDS: [&str; 6] = ["toy-1", "toy-2", "toy-3", "toy-4", "toy-5", "toy-6"];

impl Game for Discard {
    type Options = DiscardOptions;
    type State = DiscardState;
    type Action = DiscardAction;
    type Event = DiscardEvent;
    // The toy speaks plain JSON at its edges: the fuzzer checks the framework, not types.
    type SeenEvent = Value;
    type LegalAction = Value;
    type SeatView = Value;
    type PublicView = Value;
    type PrivateView = Value;
    type Outcome = Value;
    type Error = DiscardError;

    fn describe() -> parlour_domain::Description {
        parlour_domain::Description {
            id: "discard",
            name: "Discard",
            min_players: 2,
            max_players: 2,
            summary: "A toy game for the fuzzer's own tests.",
            options: json!({}),
            rules: "none",
        }
    }

    fn cards() -> Value {
        Value::Array(TOY_CARDS.iter().map(|id| json!({ "id": id })).collect())
    }

    fn new(setup: &Setup<DiscardOptions>) -> Result<DiscardState, parlour_domain::SetupError> {
        Ok(DiscardState {
            bug: setup.options.bug,
            hands: vec![Vec::new(); setup.players.len()],
            pile: Vec::new(),
            turn: Seat(0),
            dealt: false,
        })
    }

    fn start(_state: &DiscardState, chance: &mut Chance) -> Vec<DiscardEvent> {
        let cards: Vec<String> = TOY_CARDS.iter().map(|c| c.to_string()).collect();
        let order = chance.shuffle(&cards).order;
        let hands = vec![order[..3].to_vec(), order[3..].to_vec()];
        vec![DiscardEvent::Deal { hands }]
    }

    fn decide(
        state: &DiscardState,
        seat: Seat,
        action: &DiscardAction,
        _chance: &mut Chance,
    ) -> Result<Vec<DiscardEvent>, DiscardError> {
        let DiscardAction::Discard { card } = action;
        let held = state
            .hands
            .get(seat.index())
            .is_some_and(|h| h.contains(card));
        if state.bug == Bug::PanicsOnUnknownCard && !TOY_CARDS.contains(&card.as_str()) {
            panic!("no such card {card}");
        }
        if state.bug == Bug::RuleBeforeTurn && !held {
            return Err(DiscardError::NotHeld(card.clone()));
        }
        if !held && !matches!(state.bug, Bug::UncheckedCard | Bug::AcceptsUnoffered) {
            return Err(DiscardError::NotHeld(card.clone()));
        }
        Ok(vec![DiscardEvent::Discarded {
            seat,
            card: card.clone(),
            lossy: state.bug == Bug::LossyEvent,
        }])
    }

    fn evolve(mut state: DiscardState, event: &DiscardEvent) -> DiscardState {
        match event {
            DiscardEvent::Deal { hands } => {
                state.hands = hands.clone();
                state.dealt = true;
            }
            DiscardEvent::Discarded { seat, card, .. } => {
                if let Some(hand) = state.hands.get_mut(seat.index()) {
                    hand.retain(|c| c != card);
                }
                state.pile.push(card.clone());
                state.turn = seat.left(2);
            }
        }
        state
    }

    fn to_act(state: &DiscardState) -> Vec<Seat> {
        let more = state
            .hands
            .get(state.turn.index())
            .is_some_and(|h| !h.is_empty());
        if state.dealt && more {
            vec![state.turn]
        } else {
            vec![]
        }
    }

    fn legal_actions(state: &DiscardState, seat: Seat) -> Vec<Value> {
        if !Self::to_act(state).contains(&seat) {
            return vec![];
        }
        let cards: Vec<String> = match state.bug {
            Bug::UncheckedCard => TOY_CARDS.iter().map(|c| c.to_string()).collect(),
            _ => state.hands[seat.index()].clone(),
        };
        cards
            .iter()
            .map(|card| json!({"type": "discard", "card": card}))
            .collect()
    }

    fn view(state: &DiscardState, viewer: Viewer) -> parlour_domain::View {
        parlour_domain::View {
            seats: state
                .hands
                .iter()
                .map(|h| json!({"held": h.len()}))
                .collect(),
            public: json!({ "pile": state.pile }),
            private: match viewer {
                Viewer::Seat(seat) => state.hands.get(seat.index()).map(|h| json!(h)),
                Viewer::Spectator => None,
            },
        }
    }

    fn redact(event: &DiscardEvent, viewer: Viewer) -> Value {
        match event {
            DiscardEvent::Deal { hands } => {
                let hands: Vec<Value> = Seat::all(hands.len())
                    .map(|s| match viewer.is(s) {
                        true => json!(hands[s.index()]),
                        false => json!(hands[s.index()].len()),
                    })
                    .collect();
                json!({ "hands": hands })
            }
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        }
    }

    fn outcome(state: &DiscardState) -> Option<Value> {
        let over = state.dealt && Self::to_act(state).is_empty();
        over.then(|| json!({ "discarded": state.pile.len() }))
    }

    fn default_action(state: &DiscardState, seat: Seat) -> Option<DiscardAction> {
        let card = state.hands.get(seat.index())?.first()?;
        Some(DiscardAction::Discard { card: card.clone() })
    }

    fn concede(state: &DiscardState, seat: Seat) -> parlour_domain::Concession {
        let left = state.hands.iter().map(|h| -(h.len() as i64)).collect();
        parlour_domain::Concession::by_points(seat, left, "cards still to discard, negated")
    }

    fn check_invariants(state: &DiscardState) -> Result<(), String> {
        let mut all: Vec<&String> = state.hands.iter().flatten().chain(&state.pile).collect();
        all.sort();
        let expected = if state.dealt { TOY_CARDS.len() } else { 0 };
        let distinct = all.windows(2).all(|w| w[0] != w[1]);
        if all.len() != expected || !distinct {
            return Err(format!("{} cards where {expected} were dealt", all.len()));
        }
        Ok(())
    }
}

/// Fuzzes the toy game with `bug` planted, over a few seeds: the first failure, or the stats.
fn fuzz_toy(bug: &str) -> Result<Stats, String> {
    let config = config("discard", 2, json!({ "bug": bug }));
    let mut total = Stats::default();
    for seed in 0..10 {
        total.add(&fuzz_game::<Discard>(&config, seed)?);
    }
    Ok(total)
}

#[test]
fn the_fuzzer_passes_the_toy_game_without_a_bug() {
    let stats = fuzz_toy("none").unwrap();
    assert!(stats.accepted > 0 && stats.forbidden > 0 && stats.not_your_move > 0);
}

#[test]
fn the_fuzzer_finds_a_move_that_counts_a_card_twice() {
    let broken = fuzz_toy("unchecked_card").unwrap_err();
    assert!(broken.contains("cards where 6 were dealt"), "{broken}");
}

#[test]
fn the_fuzzer_finds_a_panic_in_decide() {
    let broken = fuzz_toy("panics_on_unknown_card").unwrap_err();
    assert!(broken.contains("decide panicked"), "{broken}");
}

#[test]
fn the_fuzzer_finds_a_move_accepted_that_was_not_offered() {
    let broken = fuzz_toy("accepts_unoffered").unwrap_err();
    assert!(broken.contains("none of the legal actions"), "{broken}");
}

#[test]
fn the_fuzzer_finds_an_event_that_does_not_survive_its_stored_form() {
    let broken = fuzz_toy("lossy_event").unwrap_err();
    assert!(
        broken.contains("does not survive its stored form"),
        "{broken}"
    );
}

#[test]
fn a_game_that_checks_a_rule_before_the_turn_still_tells_a_seat_out_of_turn_not_your_move() {
    // The toy looks at the card before anything else, as a game that checked the turn itself
    // could get wrong; the framework refuses out of turn before the game is asked, so the
    // fuzzer finds nothing wrong and sees the seats out of turn refused.
    let stats = fuzz_toy("rule_before_turn").unwrap_or_else(|broken| panic!("{broken}"));
    assert!(stats.not_your_move > 0, "{stats:?}");
}

/// The value with every object member whose value is `null` left out, at every depth.
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

//! The shared random-playout check that every game must pass (in the manner of OpenSpiel's
//! `random_sim_test`), and the helpers a generic client needs to play from `legal_actions`.
//!
//! A playout deals from a seed and, until the game ends, picks a seat from `to_act`, one of its
//! `legal_actions` at random, and fills every `{"choose": k, "from": [...]}` with k distinct
//! random ids. After every move it checks that:
//! - every listed legal action is accepted, and moves by seats not to act are refused;
//! - deciding is deterministic and a refused move leaves the state as it was;
//! - the game's own invariants hold after every event (every card accounted for, ...);
//! - no view or redacted event shows a seat a card id that a spectator cannot see, unless it is
//!   in that seat's own private view (before or after the event);
//! - every redacted event, for each seat and a spectator, is the event as recorded or one of
//!   the game's `SeenEvent` variants of the event's own `type`;
//! - the game ends within `max_moves`, and replaying the recorded events (through their JSON
//!   form) rebuilds exactly the same state.
//!
//! [`check_defaults`] plays through the JSON edge every server table uses and checks the two
//! answers a table gives for a seat that is away: at every step, for every seat,
//! `default_action` is `Some` exactly for the seats in `to_act`, is a complete action (no
//! `choose` template) that `decide` accepts whatever the chance, and is the same on a copy of
//! the table and on one rebuilt from the log; `concede` ranks every seat exactly once with the
//! conceding seat alone last, gives a standing per seat and survives its JSON form. Then a
//! second game played by default actions alone must end.

use std::collections::BTreeSet;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::Value;

use crate::chance::{Chance, Seed};
use crate::engine::{
    decide, legal_actions_json, parse_recorded, record, view_json as engine_view_json, Decision,
    Engine, Recorded, Table,
};
use crate::game::{Game, Player, Refusal, RefusalKind, Seat, Setup, Viewer};

/// What one playout did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Playout {
    /// Moves made.
    pub moves: usize,
    /// Events recorded, the opening deal included.
    pub events: usize,
}

/// A random index below `len` (which is not 0), as the playouts have always drawn it.
fn pick(rng: &mut impl RngCore, len: usize) -> usize {
    // The remainder is below `len`, a usize, so it fits one; a usize fits a u64 on every
    // target Rust supports.
    #[allow(clippy::cast_possible_truncation)]
    let index = (rng.next_u64() % len as u64) as usize;
    index
}

/// Replaces every `{"choose": k, "from": [...]}` in a legal-action template with k distinct
/// items of `from`, picked at random.
pub fn instantiate(template: &Value, rng: &mut impl RngCore) -> Value {
    match template {
        Value::Object(map) => {
            if let (Some(Value::Number(k)), Some(Value::Array(from))) =
                (map.get("choose"), map.get("from"))
            {
                if map.len() == 2 {
                    // More than there are to choose from picks them all.
                    let k = usize::try_from(k.as_u64().unwrap_or(0)).unwrap_or(usize::MAX);
                    let mut pool = from.clone();
                    let mut picked = Vec::with_capacity(k.min(pool.len()));
                    while picked.len() < k && !pool.is_empty() {
                        let i = pick(rng, pool.len());
                        picked.push(pool.swap_remove(i));
                    }
                    return Value::Array(picked);
                }
            }
            Value::Object(
                map.iter()
                    .map(|(key, value)| (key.clone(), instantiate(value, rng)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| instantiate(v, rng)).collect()),
        other => other.clone(),
    }
}

/// The stable ids of a game's cards, from its catalogue (`[{"id": ...}, ...]`, at any depth).
pub fn card_ids(cards: &Value) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    collect_ids(cards, &mut ids);
    ids
}

fn collect_ids(value: &Value, ids: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(id)) = map.get("id") {
                ids.insert(id.clone());
            }
            map.values().for_each(|v| collect_ids(v, ids));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_ids(v, ids)),
        _ => {}
    }
}

/// The card ids that a JSON value mentions anywhere (as string values).
pub fn mentioned_cards(value: &Value, ids: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    collect_mentions(value, ids, &mut found);
    found
}

fn collect_mentions(value: &Value, ids: &BTreeSet<String>, found: &mut BTreeSet<String>) {
    match value {
        Value::String(text) if ids.contains(text) => {
            found.insert(text.clone());
        }
        Value::Object(map) => map.values().for_each(|v| collect_mentions(v, ids, found)),
        Value::Array(items) => items.iter().for_each(|v| collect_mentions(v, ids, found)),
        _ => {}
    }
}

/// The `type` names a JSON Schema of internally tagged objects admits: the `const` (or single
/// `enum` value) of the `type` property of each of its `oneOf`/`anyOf` variants, or of the
/// schema itself.
pub fn tagged_types(schema: &Value) -> BTreeSet<String> {
    let variants: Vec<&Value> = match (schema.get("oneOf"), schema.get("anyOf")) {
        (Some(Value::Array(variants)), _) | (None, Some(Value::Array(variants))) => {
            variants.iter().collect()
        }
        _ => vec![schema],
    };
    variants
        .into_iter()
        .filter_map(|variant| {
            let tag = variant.get("properties")?.get("type")?;
            let name = match (tag.get("const"), tag.get("enum")) {
                (Some(name), _) => name,
                (None, Some(Value::Array(names))) if names.len() == 1 => &names[0],
                _ => return None,
            };
            name.as_str().map(str::to_string)
        })
        .collect()
}

/// Plays one random game from `setup` and `seed`, checking everything listed in the module
/// documentation. Returns what it played, or the first broken promise.
pub fn random_playout<G: Game>(
    setup: &Setup<G::Options>,
    seed: u64,
    max_moves: usize,
) -> Result<Playout, String> {
    random_playout_watching::<G>(setup, seed, max_moves, |_| Ok(()))
}

/// Plays one random game as [`random_playout`] does, and shows `watch` every event before it
/// is applied, the opening ones included: the first error `watch` returns is a broken promise
/// that ends the playout.
pub fn random_playout_watching<G: Game>(
    setup: &Setup<G::Options>,
    seed: u64,
    max_moves: usize,
    mut watch: impl FnMut(&G::Event) -> Result<(), String>,
) -> Result<Playout, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game_seed = [0u8; 32];
    rng.fill_bytes(&mut game_seed);
    let game_seed = Seed(game_seed);
    let ids = card_ids(&G::cards());
    let seen_types = tagged_types(&schemars::schema_for!(G::SeenEvent).to_value());
    let players = setup.players.len();

    let initial = G::new(setup).map_err(|e| format!("setup refused: {e}"))?;
    let mut state = initial.clone();
    let mut log: Vec<Recorded> = Vec::new();
    let opening = G::start(&state, &mut Chance::new(game_seed, 1));
    if opening.is_empty() {
        return Err("start produced no events".into());
    }
    for event in &opening {
        watch(event).map_err(|e| format!("{}: {e}", describe(event)))?;
        state = apply_checked::<G>(state, event, players, &ids, &seen_types, &mut log)?;
    }

    let mut moves = 0;
    while G::outcome(&state).is_none() {
        if moves >= max_moves {
            return Err(format!("no end after {max_moves} moves"));
        }
        let to_act = G::to_act(&state);
        if to_act.is_empty() {
            return Err("the game is not over but no seat is to act".into());
        }
        for seat in Seat::all(players).filter(|s| !to_act.contains(s)) {
            let offered = legal_actions_json::<G>(&state, seat);
            if !offered.is_empty() {
                return Err(format!("{seat} is not to act but is offered {offered:?}"));
            }
        }
        let seat = to_act[pick(&mut rng, to_act.len())];
        let offered = legal_actions_json::<G>(&state, seat);
        if offered.is_empty() {
            return Err(format!("{seat} is to act but has no legal action"));
        }
        let template = &offered[pick(&mut rng, offered.len())];
        let body = instantiate(template, &mut rng);
        let action: G::Action = serde_json::from_value(body.clone())
            .map_err(|e| format!("legal action {body} does not parse: {e}"))?;
        let next_seq = log.len() as u64 + 1;

        check_refusals::<G>(&state, seat, &action, &to_act, players, game_seed, next_seq)?;

        let before = state.clone();
        let events = decide::<G>(&state, seat, &action, &mut Chance::new(game_seed, next_seq))
            .map_err(|e| format!("legal action {body} by {seat} refused: {e}"))?;
        let again = decide::<G>(&state, seat, &action, &mut Chance::new(game_seed, next_seq))
            .map_err(|e| format!("deciding {body} twice: {e}"))?;
        if events != again {
            return Err(format!("deciding {body} twice gave different events"));
        }
        if state != before {
            return Err("deciding changed the state".into());
        }
        if events.is_empty() {
            return Err(format!("legal action {body} produced no events"));
        }
        for event in &events {
            watch(event).map_err(|e| format!("{}: {e}", describe(event)))?;
            state = apply_checked::<G>(state, event, players, &ids, &seen_types, &mut log)?;
        }
        moves += 1;
    }

    if !G::to_act(&state).is_empty() {
        return Err("the game is over but seats are still to act".into());
    }
    for seat in Seat::all(players) {
        if !legal_actions_json::<G>(&state, seat).is_empty() {
            return Err(format!("the game is over but {seat} is offered moves"));
        }
    }

    let mut replayed = initial;
    for recorded in &log {
        let event: G::Event = parse_recorded(recorded).map_err(|e| e.to_string())?;
        replayed = G::evolve(replayed, &event);
    }
    if replayed != state {
        return Err("replaying the log did not rebuild the same state".into());
    }
    Ok(Playout {
        moves,
        events: log.len(),
    })
}

/// Moves that must be refused without changing anything: the chosen action from a seat that
/// is not to act, and any move at all once the game is over (checked by the caller's loop end).
fn check_refusals<G: Game>(
    state: &G::State,
    seat: Seat,
    action: &G::Action,
    to_act: &[Seat],
    players: usize,
    seed: Seed,
    next_seq: u64,
) -> Result<(), String> {
    let before = state.clone();
    for other in Seat::all(players).filter(|s| *s != seat && !to_act.contains(s)) {
        match decide::<G>(state, other, action, &mut Chance::new(seed, next_seq)) {
            Ok(_) => return Err(format!("{other} made a move while not to act: {action:?}")),
            Err(e) if e.kind() != RefusalKind::NotYourMove => {
                return Err(format!("{other} out of turn was told {e} ({:?})", e.kind()));
            }
            Err(_) => {}
        }
    }
    if *state != before {
        return Err("a refused move changed the state".into());
    }
    Ok(())
}

fn apply_checked<G: Game>(
    state: G::State,
    event: &G::Event,
    players: usize,
    ids: &BTreeSet<String>,
    seen_types: &BTreeSet<String>,
    log: &mut Vec<Recorded>,
) -> Result<G::State, String> {
    let private_before: Vec<BTreeSet<String>> = Seat::all(players)
        .map(|s| private_cards::<G>(&state, s, ids))
        .collect();
    let state = G::evolve(state, event);
    G::check_invariants(&state).map_err(|e| format!("after {}: {e}", describe(event)))?;

    let recorded = record(event);
    let whole = serde_json::to_value(event).unwrap_or(Value::Null);
    for viewer in Seat::all(players)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
    {
        let seen = G::redact(event, viewer);
        let kind = seen.get("type").and_then(Value::as_str);
        if seen != whole
            && (kind != Some(recorded.kind.as_str()) || !seen_types.contains(&recorded.kind))
        {
            return Err(format!(
                "{} is seen by {viewer:?} neither as recorded nor as a seen event of its type: \
                 {seen}",
                describe(event)
            ));
        }
    }

    let public_event = mentioned_cards(&G::redact(event, Viewer::Spectator), ids);
    let public_view = mentioned_cards(&view_json::<G>(&state, Viewer::Spectator), ids);
    for seat in Seat::all(players) {
        let own_after = private_cards::<G>(&state, seat, ids);
        let seen = mentioned_cards(&G::redact(event, Viewer::Seat(seat)), ids);
        let leaked: Vec<_> = seen
            .iter()
            .filter(|c| {
                !public_event.contains(*c)
                    && !private_before[seat.index()].contains(*c)
                    && !own_after.contains(*c)
            })
            .collect();
        if !leaked.is_empty() {
            return Err(format!("{} shows {seat} {leaked:?}", describe(event)));
        }
        let seen = mentioned_cards(&view_json::<G>(&state, Viewer::Seat(seat)), ids);
        let leaked: Vec<_> = seen
            .iter()
            .filter(|c| !public_view.contains(*c) && !own_after.contains(*c))
            .collect();
        if !leaked.is_empty() {
            return Err(format!(
                "after {}, {seat}'s view shows {leaked:?}",
                describe(event)
            ));
        }
    }
    let round_trip: G::Event = parse_recorded(&recorded).map_err(|e| e.to_string())?;
    if &round_trip != event {
        return Err(format!(
            "{} does not survive its JSON form",
            describe(event)
        ));
    }
    log.push(recorded);
    Ok(state)
}

fn private_cards<G: Game>(
    state: &G::State,
    seat: Seat,
    ids: &BTreeSet<String>,
) -> BTreeSet<String> {
    match engine_view_json::<G>(state, Viewer::Seat(seat)).private {
        Some(private) => mentioned_cards(&private, ids),
        None => BTreeSet::new(),
    }
}

fn view_json<G: Game>(state: &G::State, viewer: Viewer) -> Value {
    serde_json::to_value(engine_view_json::<G>(state, viewer)).unwrap_or(Value::Null)
}

fn describe<E: serde::Serialize>(event: &E) -> String {
    let recorded = record(event);
    format!("event {}", recorded.kind)
}

/// What [`check_defaults`] played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultsChecked {
    /// Moves of the random game, at each of which every seat's default and concession was
    /// checked.
    pub random_moves: usize,
    /// Moves of the game played by default actions alone, to its end.
    pub default_moves: usize,
}

/// Whether `value` holds a `{"choose": k, "from": [...]}` template anywhere.
fn has_template(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            (map.len() == 2 && map.contains_key("choose") && map.contains_key("from"))
                || map.values().any(has_template)
        }
        Value::Array(items) => items.iter().any(has_template),
        _ => false,
    }
}

/// A table of `engine` dealt from `seed`, with a twin fed only the recorded events (what a
/// replay sees), and the sequence number of the next event.
struct Pair {
    table: Box<dyn Table>,
    replayed: Box<dyn Table>,
    seed: Seed,
    next_seq: u64,
}

impl Pair {
    fn open(
        engine: &dyn Engine,
        players: usize,
        options: &Value,
        rules_version: u32,
        seed: Seed,
    ) -> Result<Pair, String> {
        let players: Vec<Player> = (0..players)
            .map(|i| Player {
                name: format!("p{i}"),
            })
            .collect();
        let table = engine
            .open(&players, options, rules_version)
            .map_err(|e| format!("setup refused: {e}"))?;
        let replayed = table.clone_table();
        let mut pair = Pair {
            table,
            replayed,
            seed,
            next_seq: 1,
        };
        let opening = pair.table.start(&mut Chance::new(seed, 1));
        pair.apply(opening)?;
        Ok(pair)
    }

    fn apply(&mut self, decision: Decision) -> Result<(), String> {
        for event in &decision.events {
            self.replayed
                .apply_recorded(event)
                .map_err(|e| format!("replaying {}: {e}", event.kind))?;
        }
        self.next_seq += decision.events.len() as u64;
        self.table.apply(decision);
        Ok(())
    }

    fn play(&mut self, seat: Seat, body: &Value) -> Result<(), String> {
        let decision = self
            .table
            .decide(seat, body, &mut Chance::new(self.seed, self.next_seq))
            .map_err(|e| format!("{body} by {seat} refused: {e}"))?;
        if decision.events.is_empty() {
            return Err(format!("{body} by {seat} produced no events"));
        }
        self.apply(decision)
    }
}

/// Checks every seat's default action and concession at the table as it stands.
fn check_seats(pair: &Pair, players: usize) -> Result<(), String> {
    let table = pair.table.as_ref();
    let over = table.outcome().is_some();
    // A match counts a deal once it is over, and only then: one number per competitor.
    let competitors = table.match_sides().map_or(players, |sides| sides.len());
    match table.match_points() {
        Some(points) if !over => return Err(format!("match points {points:?} before the end")),
        Some(points) if points.len() != competitors => {
            return Err(format!(
                "match points {points:?} for {competitors} competitors"
            ))
        }
        None if over => return Err("no match points at the end".into()),
        _ => {}
    }
    let to_act = table.to_act();
    let copy = table.clone_table();
    // One seat past the table too: it is never to act, so it never has a default.
    for seat in Seat::all(players + 1) {
        let default = table.default_action(seat);
        let owed = !over && to_act.contains(&seat);
        if default.is_some() != owed {
            return Err(format!(
                "{seat} ({}in to_act {to_act:?}, {}over) has default {default:?}",
                if owed { "" } else { "not " },
                if over { "" } else { "not " },
            ));
        }
        if copy.default_action(seat) != default || pair.replayed.default_action(seat) != default {
            return Err(format!("{seat}'s default differs on a copy or a replay"));
        }
        let Some(body) = default else { continue };
        if has_template(&body) {
            return Err(format!("{seat}'s default {body} is a template"));
        }
        for chance in [
            Chance::new(pair.seed, pair.next_seq),
            Chance::new(Seed([0x5a; 32]), pair.next_seq + 1000),
        ] {
            let mut chance = chance;
            match table.decide(seat, &body, &mut chance) {
                Ok(decision) if decision.events.is_empty() => {
                    return Err(format!("{seat}'s default {body} produced no events"))
                }
                Ok(_) => {}
                Err(e) => return Err(format!("{seat}'s default {body} was refused: {e}")),
            }
        }
    }
    if over {
        return Ok(());
    }
    for seat in Seat::all(players) {
        let conceded = table.concede(seat);
        if copy.concede(seat) != conceded {
            return Err(format!("{seat}'s concession differs on a copy"));
        }
        let stored = serde_json::to_value(&conceded).map_err(|e| e.to_string())?;
        if serde_json::from_value::<crate::game::Concession>(stored)
            .ok()
            .as_ref()
            != Some(&conceded)
        {
            return Err(format!(
                "{seat}'s concession does not survive its JSON form"
            ));
        }
        let mut ranked: Vec<Seat> = conceded.ranking.iter().flatten().copied().collect();
        let last = conceded.ranking.last();
        ranked.sort();
        if ranked != Seat::all(players).collect::<Vec<_>>()
            || last != Some(&vec![seat])
            || conceded.ranking.iter().any(Vec::is_empty)
            || conceded.seat != seat
            || conceded.points.len() != players
        {
            return Err(format!("{seat} conceding gives {conceded:?}"));
        }
    }
    Ok(())
}

/// Plays one random game of `engine` (through `Table`, as the server does) and one of default
/// actions alone, both from `seed` and under `rules_version`, checking what the module
/// documentation lists. The seat that moves is picked at random among `to_act` in both (any
/// seat's clock may run out first). Returns what it played, or the first broken promise.
pub fn check_defaults(
    engine: &dyn Engine,
    players: usize,
    options: &Value,
    rules_version: u32,
    seed: u64,
    max_moves: usize,
) -> Result<DefaultsChecked, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game_seed = [0u8; 32];
    rng.fill_bytes(&mut game_seed);
    let game_seed = Seed(game_seed);

    let mut pair = Pair::open(engine, players, options, rules_version, game_seed)?;
    let mut random_moves = 0;
    loop {
        check_seats(&pair, players)?;
        if pair.table.outcome().is_some() {
            break;
        }
        if random_moves >= max_moves {
            return Err(format!(
                "the random game has no end after {max_moves} moves"
            ));
        }
        let to_act = pair.table.to_act();
        if to_act.is_empty() {
            return Err("the game is not over but no seat is to act".into());
        }
        let seat = to_act[pick(&mut rng, to_act.len())];
        let offered = pair.table.legal_actions(seat);
        if offered.is_empty() {
            return Err(format!("{seat} is to act but has no legal action"));
        }
        let body = instantiate(&offered[pick(&mut rng, offered.len())], &mut rng);
        pair.play(seat, &body)?;
        random_moves += 1;
    }

    let mut pair = Pair::open(engine, players, options, rules_version, game_seed)?;
    let mut default_moves = 0;
    while pair.table.outcome().is_none() {
        if default_moves >= max_moves {
            return Err(format!(
                "default actions alone have not ended the game after {max_moves} moves"
            ));
        }
        let to_act = pair.table.to_act();
        let Some(&seat) = to_act.get(pick(&mut rng, to_act.len().max(1))) else {
            return Err("the game is not over but no seat is to act".into());
        };
        let body = pair
            .table
            .default_action(seat)
            .ok_or_else(|| format!("{seat} is to act but has no default"))?;
        if pair.replayed.default_action(seat).as_ref() != Some(&body) {
            return Err(format!("{seat}'s default {body} differs on a replay"));
        }
        pair.play(seat, &body)?;
        default_moves += 1;
    }
    Ok(DefaultsChecked {
        random_moves,
        default_moves,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::catalog;
    use crate::game::{FIRST_RULES_VERSION, RULES_VERSION};

    /// Games per configuration and kind of playout: every configuration is played from this
    /// many seeds, at random and by defaults alone.
    const SEEDS: u64 = 3;
    /// Far above any game: the longest (British Birds' quiet-rounds end) take a few thousand.
    const MAX_MOVES: usize = 20_000;

    /// Every player count of the game with its default options, then each option that changes
    /// the variant, the pack or how the game ends (as the fuzzer's configurations).
    fn configurations(game: &str) -> Vec<(usize, Value)> {
        let Some(engine) = catalog::engine(game) else {
            panic!("no game {game} in the catalogue");
        };
        let d = engine.describe();
        let mut configs: Vec<(usize, Value)> = (d.min_players..=d.max_players)
            .map(|players| (players, json!({})))
            .collect();
        match game {
            "history-of-england" => {
                for series in [2, 3] {
                    for players in d.min_players..=d.max_players {
                        configs.push((players, json!({ "series": series })));
                    }
                }
            }
            "googly" => {
                for players in [2, 3, 22] {
                    configs.push((players, json!({"variant": "patience"})));
                    configs.push((players, json!({"variant": "team"})));
                }
            }
            "british-birds" => {
                for players in d.min_players..=d.max_players {
                    configs.push((players, json!({"play_to": 20})));
                    configs.push((players, json!({"quiet_rounds": 1})));
                }
                configs.push((
                    3,
                    json!({"owl_preferences": ["always_play_owl", "always_hand_over", "ask_me"]}),
                ));
            }
            _ => {}
        }
        configs
    }

    /// Whether a game with `options` can be created under `version`: British Birds' series in
    /// one log (`play_to`) only up to rules version 2.
    fn created_under(options: &Value, version: u32) -> bool {
        options.get("play_to").is_none_or(Value::is_null)
            || version <= crate::british_birds::LAST_RULES_VERSION_WITH_PLAY_TO
    }

    fn every_seat_away_is_played_for_and_every_resignation_ranks_every_seat(game: &str) {
        let Some(engine) = catalog::engine(game) else {
            panic!("no game {game} in the catalogue");
        };
        let mut defaults = 0;
        // Every rules version: a version-1 game must still be played for as it always was.
        for version in FIRST_RULES_VERSION..=RULES_VERSION {
            for (players, options) in configurations(game) {
                if !created_under(&options, version) {
                    continue;
                }
                for seed in 0..SEEDS {
                    match check_defaults(engine, players, &options, version, seed, MAX_MOVES) {
                        Ok(played) => defaults += played.default_moves,
                        Err(broken) => panic!(
                            "{game}, rules {version}, {players} players, {options}, seed \
                             {seed}: {broken}"
                        ),
                    }
                }
            }
        }
        assert!(defaults > 0, "{game}: no default was ever played");
    }

    #[test]
    fn in_girl_every_seat_away_is_played_for_and_every_resignation_ranks_every_seat() {
        every_seat_away_is_played_for_and_every_resignation_ranks_every_seat("girl");
    }

    #[test]
    fn in_the_car_game_every_seat_away_is_played_for_and_every_resignation_ranks_every_seat() {
        every_seat_away_is_played_for_and_every_resignation_ranks_every_seat("car");
    }

    #[test]
    fn in_british_birds_every_seat_away_is_played_for_and_every_resignation_ranks_every_seat() {
        every_seat_away_is_played_for_and_every_resignation_ranks_every_seat("british-birds");
    }

    #[test]
    fn in_history_of_england_every_seat_away_is_played_for_and_every_resignation_ranks_every_seat()
    {
        every_seat_away_is_played_for_and_every_resignation_ranks_every_seat("history-of-england");
    }

    #[test]
    fn in_googly_every_seat_away_is_played_for_and_every_resignation_ranks_every_seat() {
        every_seat_away_is_played_for_and_every_resignation_ranks_every_seat("googly");
    }

    #[test]
    fn every_game_in_the_catalogue_has_its_defaults_checked() {
        let checked = [
            "girl",
            "car",
            "british-birds",
            "history-of-england",
            "googly",
        ];
        for engine in catalog::engines() {
            assert!(
                checked.contains(&engine.describe().id),
                "{} has no defaults test",
                engine.describe().id
            );
        }
    }

    /// A JSON Schema validator, or the test fails saying which schema is not one.
    fn validator(what: &str, schema: &Value) -> jsonschema::Validator {
        jsonschema::validator_for(schema)
            .unwrap_or_else(|e| panic!("the {what} schema is not a valid JSON Schema: {e}"))
    }

    /// Why `value` does not fit `validator`, if it does not.
    fn misfit(validator: &jsonschema::Validator, value: &Value) -> Result<(), String> {
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!("{value} does not fit: {errors:?}"))
        }
    }

    /// Random games of `game` (typed `G`) in every configuration and rules version: every
    /// event, as `G::redact` gives it to each seat and to a spectator, is either the event as
    /// recorded, which fits the published `event` schema, or one of `G::SeenEvent`'s variants of
    /// the event's own `type`, which fits the published `seen_event` schema. Every type of
    /// `SeenEvent` is a type of `Event`, and each is seen at least once.
    fn every_event_is_seen_as_recorded_or_as_its_published_seen_event<G: Game>(game: &str) {
        let schemas = crate::engine::schemas_of::<G>();
        let event_types = tagged_types(&schemas.event);
        let seen_types = tagged_types(&schemas.seen_event);
        assert!(!seen_types.is_empty(), "{game}: SeenEvent has no variant");
        assert!(
            seen_types.is_subset(&event_types),
            "{game}: SeenEvent types {seen_types:?} are not all Event types {event_types:?}"
        );
        let events = validator("event", &schemas.event);
        let seen_events = validator("seen event", &schemas.seen_event);
        let mut seen_as = BTreeSet::new();
        for version in FIRST_RULES_VERSION..=RULES_VERSION {
            for (players, options) in configurations(game) {
                if !created_under(&options, version) {
                    continue;
                }
                let options: G::Options = serde_json::from_value(options.clone())
                    .unwrap_or_else(|e| panic!("{game}: options {options} do not parse: {e}"));
                let setup = Setup {
                    players: (0..players)
                        .map(|i| Player {
                            name: format!("player {i}"),
                        })
                        .collect(),
                    options,
                    rules_version: version,
                };
                for seed in 0..SEEDS {
                    let played = random_playout_watching::<G>(&setup, seed, MAX_MOVES, |event| {
                        let whole = serde_json::to_value(event).map_err(|e| e.to_string())?;
                        let kind = record(event).kind;
                        for viewer in Seat::all(players)
                            .map(Viewer::Seat)
                            .chain([Viewer::Spectator])
                        {
                            let seen = G::redact(event, viewer);
                            if seen == whole {
                                misfit(&events, &whole).map_err(|e| format!("as recorded, {e}"))?;
                            } else if seen.get("type") == Some(&json!(kind))
                                && seen_types.contains(&kind)
                            {
                                misfit(&seen_events, &seen)
                                    .map_err(|e| format!("as {viewer:?} sees it, {e}"))?;
                                seen_as.insert(kind.clone());
                            } else {
                                return Err(format!(
                                    "{viewer:?} sees {seen}: neither the event as recorded nor \
                                     a seen event of type {kind}"
                                ));
                            }
                        }
                        Ok(())
                    });
                    if let Err(broken) = played {
                        panic!("{game}, rules {version}, {players} players, seed {seed}: {broken}");
                    }
                }
            }
        }
        assert_eq!(
            seen_as, seen_types,
            "{game}: not every SeenEvent variant was seen in the playouts"
        );
    }

    #[test]
    fn in_girl_every_event_is_seen_as_recorded_or_as_its_published_seen_event() {
        every_event_is_seen_as_recorded_or_as_its_published_seen_event::<crate::tricks::GirlGame>(
            "girl",
        );
    }

    #[test]
    fn in_the_car_game_every_event_is_seen_as_recorded_or_as_its_published_seen_event() {
        every_event_is_seen_as_recorded_or_as_its_published_seen_event::<crate::tricks::CarGame>(
            "car",
        );
    }

    #[test]
    fn in_british_birds_every_event_is_seen_as_recorded_or_as_its_published_seen_event() {
        every_event_is_seen_as_recorded_or_as_its_published_seen_event::<
            crate::british_birds::BritishBirds,
        >("british-birds");
    }

    #[test]
    fn in_history_of_england_every_event_is_seen_as_recorded_or_as_its_published_seen_event() {
        every_event_is_seen_as_recorded_or_as_its_published_seen_event::<
            crate::history_of_england::HistoryOfEngland,
        >("history-of-england");
    }

    #[test]
    fn in_googly_every_event_is_seen_as_recorded_or_as_its_published_seen_event() {
        every_event_is_seen_as_recorded_or_as_its_published_seen_event::<crate::googly::Googly>(
            "googly",
        );
    }

    #[test]
    fn a_seen_event_of_another_shape_does_not_fit_the_published_schema() {
        // The published shapes are exact: a field renamed, missing or added is refused.
        let seen_events = validator(
            "seen event",
            &crate::engine::schemas_of::<crate::tricks::GirlGame>().seen_event,
        );
        let lay = json!({"type": "lay", "seat": 0, "count": 3});
        assert!(misfit(&seen_events, &lay).is_ok());
        for other in [
            json!({"type": "lay", "seat": 0, "cards_laid": 3}),
            json!({"type": "lay", "seat": 0}),
            json!({"type": "lay", "seat": 0, "count": 3, "order": [1, 2, 3]}),
            json!({"type": "draw", "seat": 0, "count": 3}),
        ] {
            assert!(misfit(&seen_events, &other).is_err(), "{other} fits");
        }
    }

    /// Plays a random game of `game` through `Table` and, after every move, restores a table
    /// freshly opened for the same game from a snapshot of the one played (through its JSON
    /// text, as the server stores it): it must be the same table, and play on the same. A
    /// snapshot of another variant's table must not restore. Action types in `avoid` are not
    /// picked while there is another (random GOOGLY declarations end a match within a few
    /// dozen moves; without them it is played to the end of its time). Returns the snapshots
    /// taken.
    fn snapshots_restore_the_table(
        game: &str,
        players: usize,
        options: &Value,
        seed: u64,
        avoid: &[&str],
    ) -> usize {
        let Some(engine) = catalog::engine(game) else {
            panic!("no game {game} in the catalogue");
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut game_seed = [0u8; 32];
        rng.fill_bytes(&mut game_seed);
        let mut pair = Pair::open(engine, players, options, RULES_VERSION, Seed(game_seed))
            .unwrap_or_else(|e| panic!("{game}: {e}"));
        let fresh = || {
            let names: Vec<Player> = (0..players)
                .map(|i| Player {
                    name: format!("p{i}"),
                })
                .collect();
            engine
                .open(&names, options, RULES_VERSION)
                .unwrap_or_else(|e| panic!("{game}: {e}"))
        };
        let mut taken = 0;
        let mut moves = 0;
        loop {
            if let Some(snapshot) = pair.table.snapshot() {
                let text = serde_json::to_string(&snapshot).unwrap();
                let stored: Value = serde_json::from_str(&text).unwrap();
                let mut restored = fresh();
                assert!(
                    restored.restore(&stored),
                    "{game}: move {moves}: not restored"
                );
                assert!(
                    restored.same_as(pair.table.as_ref()),
                    "{game}: move {moves}: the restored table differs"
                );
                assert!(restored.same_as(pair.replayed.as_ref()));
                for seat in Seat::all(players) {
                    assert_eq!(restored.legal_actions(seat), pair.table.legal_actions(seat));
                    assert_eq!(
                        restored.default_action(seat),
                        pair.table.default_action(seat)
                    );
                }
                taken += 1;
            }
            if pair.table.outcome().is_some() || moves >= MAX_MOVES {
                break;
            }
            let to_act = pair.table.to_act();
            let seat = to_act[pick(&mut rng, to_act.len())];
            let offered = pair.table.legal_actions(seat);
            let kept: Vec<Value> = offered
                .iter()
                .filter(|a| !avoid.iter().any(|t| a["type"] == *t))
                .cloned()
                .collect();
            let offered = if kept.is_empty() { offered } else { kept };
            let body = instantiate(&offered[pick(&mut rng, offered.len())], &mut rng);
            pair.play(seat, &body)
                .unwrap_or_else(|e| panic!("{game}: {e}"));
            moves += 1;
        }
        assert!(pair.table.outcome().is_some(), "{game}: no end");
        taken
    }

    #[test]
    fn a_googly_snapshot_restores_the_same_table_after_every_move_of_a_whole_match() {
        let mut longest = 0;
        for (players, options) in [
            (2, json!({})),
            (3, json!({})),
            (1, json!({"variant": "patience"})),
            (4, json!({"variant": "team"})),
        ] {
            for seed in 0..2 {
                // One match played at random, one played to the end of its time.
                snapshots_restore_the_table("googly", players, &options, seed, &[]);
                let taken = snapshots_restore_the_table(
                    "googly",
                    players,
                    &options,
                    seed,
                    &["declare", "prefer", "play_on"],
                );
                assert!(taken > 10, "{players} players: only {taken} snapshots");
                longest = longest.max(taken);
            }
        }
        // At least one whole match of several hundred moves, each one snapshotted.
        assert!(longest > 100, "the longest match had {longest} snapshots");
    }

    #[test]
    fn a_snapshot_of_another_side_of_the_table_is_not_restored() {
        let Some(engine) = catalog::engine("googly") else {
            panic!("no GOOGLY in the catalogue");
        };
        let players = |n: usize| -> Vec<Player> {
            (0..n)
                .map(|i| Player {
                    name: format!("p{i}"),
                })
                .collect()
        };
        let team = engine
            .open(&players(4), &json!({"variant": "team"}), RULES_VERSION)
            .unwrap();
        let snapshot = team.snapshot().unwrap();
        // A two-player table's packs are not divided: a team table's snapshot does not fit.
        let mut two = engine.open(&players(2), &json!({}), RULES_VERSION).unwrap();
        let before = two.clone_table();
        assert!(!two.restore(&snapshot));
        assert!(two.same_as(before.as_ref()));
        assert!(!two.restore(&json!({"phase": "Toss"})));
        // A game that keeps no snapshots has none to give and takes none.
        let mut girl = catalog::engine("girl")
            .unwrap()
            .open(&players(2), &json!({}), RULES_VERSION)
            .unwrap();
        assert!(girl.snapshot().is_none());
        assert!(!girl.restore(&snapshot));
    }

    #[test]
    fn a_template_anywhere_in_a_body_is_found() {
        assert!(has_template(
            &json!({"type": "lay", "cards": {"choose": 3, "from": ["a"]}})
        ));
        assert!(!has_template(
            &json!({"type": "lay", "cards": ["a", "b", "c"]})
        ));
    }

    /// How a planted bug breaks GIRL's answers for a seat that is away.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Bug {
        /// Every seat, to act or not, is given a default.
        DefaultForEveryone,
        /// The default is the first legal action as offered, template and all.
        Template,
        /// The default is a move the rules refuse (a turn-up during a trick).
        Refused,
        /// The resigning seat is ranked first.
        ConcederFirst,
    }

    /// GIRL with a planted bug: every call goes to the real table but the broken one.
    struct Planted {
        inner: Box<dyn Table>,
        bug: Bug,
    }

    impl Table for Planted {
        fn start(&self, chance: &mut Chance) -> Decision {
            self.inner.start(chance)
        }
        fn rules_version(&self) -> u32 {
            self.inner.rules_version()
        }
        fn decide(
            &self,
            seat: Seat,
            action: &Value,
            chance: &mut Chance,
        ) -> Result<Decision, crate::engine::Refused> {
            self.inner.decide(seat, action, chance)
        }
        fn decide_legacy(
            &self,
            seat: Seat,
            action: &Value,
            chance: &mut Chance,
        ) -> Result<Decision, crate::engine::Refused> {
            self.inner.decide_legacy(seat, action, chance)
        }
        fn apply(&mut self, decision: Decision) {
            self.inner.apply(decision);
        }
        fn apply_recorded(&mut self, event: &Recorded) -> Result<(), crate::engine::BadEvent> {
            self.inner.apply_recorded(event)
        }
        fn to_act(&self) -> Vec<Seat> {
            self.inner.to_act()
        }
        fn legal_actions(&self, seat: Seat) -> Vec<Value> {
            self.inner.legal_actions(seat)
        }
        fn view(&self, viewer: Viewer) -> crate::game::View {
            self.inner.view(viewer)
        }
        fn outcome(&self) -> Option<Value> {
            self.inner.outcome()
        }
        fn scoresheet(&self) -> Option<crate::game::Scoresheet> {
            self.inner.scoresheet()
        }
        fn match_sides(&self) -> Option<Vec<String>> {
            self.inner.match_sides()
        }
        fn match_points(&self) -> Option<Vec<i64>> {
            self.inner.match_points()
        }
        fn competitor_of(&self, seat: Seat) -> Option<usize> {
            self.inner.competitor_of(seat)
        }
        fn export(&self, format: &str) -> Option<Value> {
            self.inner.export(format)
        }
        fn clone_table(&self) -> Box<dyn Table> {
            Box::new(Planted {
                inner: self.inner.clone_table(),
                bug: self.bug,
            })
        }
        fn same_as(&self, other: &dyn Table) -> bool {
            self.inner.same_as(other)
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self.inner.as_any()
        }
        fn default_action(&self, seat: Seat) -> Option<Value> {
            let real = self.inner.default_action(seat);
            match self.bug {
                Bug::DefaultForEveryone => real.or(Some(json!({"type": "turn_up"}))),
                Bug::Template => real.and_then(|_| self.inner.legal_actions(seat).first().cloned()),
                Bug::Refused => real.map(|body| {
                    if body["type"] == "lay" {
                        json!({"type": "turn_up"})
                    } else {
                        body
                    }
                }),
                Bug::ConcederFirst => real,
            }
        }
        fn concede(&self, seat: Seat) -> crate::game::Concession {
            let mut conceded = self.inner.concede(seat);
            if self.bug == Bug::ConcederFirst {
                conceded.ranking.rotate_right(1);
            }
            conceded
        }
    }

    struct PlantedEngine(Bug);

    impl Engine for PlantedEngine {
        fn describe(&self) -> crate::game::Description {
            GIRL.describe()
        }
        fn cards(&self) -> Value {
            GIRL.cards()
        }
        fn open(
            &self,
            players: &[Player],
            options: &Value,
            rules_version: u32,
        ) -> Result<Box<dyn Table>, crate::game::SetupError> {
            Ok(Box::new(Planted {
                inner: GIRL.open(players, options, rules_version)?,
                bug: self.0,
            }))
        }
        fn redact(
            &self,
            event: &Recorded,
            viewer: Viewer,
        ) -> Result<Value, crate::engine::BadEvent> {
            GIRL.redact(event, viewer)
        }
        fn statistics(&self, records: &[Value]) -> Option<Result<Value, String>> {
            GIRL.statistics(records)
        }
        fn schemas(&self) -> crate::engine::GameSchemas {
            GIRL.schemas()
        }
    }

    static GIRL: crate::engine::EngineOf<crate::tricks::GirlGame> = crate::engine::EngineOf::new();

    #[test]
    fn the_check_reports_a_default_out_of_turn_a_template_a_refused_default_and_a_bad_ranking() {
        assert!(check_defaults(&GIRL, 3, &json!({}), RULES_VERSION, 1, MAX_MOVES).is_ok());
        for (bug, says) in [
            (Bug::DefaultForEveryone, "not in to_act"),
            (Bug::Template, "is a template"),
            (Bug::Refused, "was refused"),
            (Bug::ConcederFirst, "conceding gives"),
        ] {
            match check_defaults(
                &PlantedEngine(bug),
                3,
                &json!({}),
                RULES_VERSION,
                1,
                MAX_MOVES,
            ) {
                Ok(played) => panic!("{bug:?} was not caught: {played:?}"),
                Err(broken) => assert!(broken.contains(says), "{bug:?}: {broken}"),
            }
        }
    }
}

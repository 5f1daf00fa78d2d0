//! Every game's published JSON Schemas describe what the game really sends: random games,
//! played through the same JSON edge as the server, have every view part, legal action,
//! action sent, event and outcome checked against the game's own schemas.

// Issue 9 lints: tests fail by panicking, so unwrap/expect in their helpers is the point, and
// their casts are over small counts and test sizes where truncation cannot matter.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use jsonschema::Validator;
use parlour_domain::catalog;
use parlour_domain::playout::instantiate;
use parlour_domain::{
    Chance, Engine, Player, Seat, Seed, Viewer, FIRST_RULES_VERSION, RULES_VERSION,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::{json, Map, Value};

/// Games per table size: enough to pass through every phase of every game.
const SEEDS: u64 = 3;
/// Longer than any game of the five (a GOOGLY match has a few thousand moves).
const MAX_MOVES: usize = 20_000;

struct Schemas {
    options: Validator,
    action: Validator,
    legal_action: Validator,
    seat: Validator,
    public: Validator,
    private: Validator,
    outcome: Validator,
    event: Validator,
}

fn validator(what: &str, schema: &Value) -> Validator {
    jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("the {what} schema is not a valid JSON Schema: {e}"))
}

impl Schemas {
    fn of(engine: &dyn Engine) -> Schemas {
        let s = engine.schemas();
        Schemas {
            options: validator("options", &s.options),
            action: validator("action", &s.action),
            legal_action: validator("legal action", &s.legal_action),
            seat: validator("seat view", &s.view.seat),
            public: validator("public view", &s.view.public),
            private: validator("private view", &s.view.private),
            outcome: validator("outcome", &s.outcome),
            event: validator("event", &s.event),
        }
    }
}

fn check(validator: &Validator, what: &str, value: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not fit its schema: {errors:?}\n{value}"
    );
}

fn players(n: usize) -> Vec<Player> {
    (0..n)
        .map(|i| Player {
            name: format!("player {i}"),
        })
        .collect()
}

/// The event as a client reads it from a finished game's log: its type and data together.
fn whole(kind: &str, data: &Value) -> Value {
    let mut map = match data {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    map.insert("type".into(), json!(kind));
    Value::Object(map)
}

/// Plays random games of `id` at every table size, checking everything it sends.
fn every_part_fits(id: &str) {
    let engine = catalog::engine(id).unwrap_or_else(|| panic!("no game {id}"));
    let d = engine.describe();
    let schemas = Schemas::of(engine);
    check(&schemas.options, "the default options", &json!({}));
    // Every rules version: a version-1 game sends what it always did, and the schemas describe
    // both.
    for (n, version) in (d.min_players..=d.max_players.min(6))
        .flat_map(|n| (FIRST_RULES_VERSION..=RULES_VERSION).map(move |v| (n, v)))
    {
        for seed in 0..SEEDS {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let game_seed = Seed([u8::try_from(seed).unwrap_or(0); 32]);
            let mut table = engine.open(&players(n), &json!({}), version).unwrap();
            let opening = table.start(&mut Chance::new(game_seed, 1));
            let mut seq = opening.events.len() as u64;
            for event in &opening.events {
                check(
                    &schemas.event,
                    "an opening event",
                    &whole(&event.kind, &event.data),
                );
            }
            table.apply(opening);
            let mut moves = 0;
            loop {
                let viewers = Seat::all(n).map(Viewer::Seat).chain([Viewer::Spectator]);
                for viewer in viewers {
                    let view = table.view(viewer);
                    for seat in &view.seats {
                        check(&schemas.seat, "a seat's view", seat);
                    }
                    check(&schemas.public, "the public view", &view.public);
                    match (viewer, &view.private) {
                        (Viewer::Seat(_), Some(private)) => {
                            check(&schemas.private, "a private view", private)
                        }
                        (Viewer::Seat(seat), None) => panic!("{seat} has no private view"),
                        (Viewer::Spectator, _) => {}
                    }
                }
                if let Some(outcome) = table.outcome() {
                    check(&schemas.outcome, "the outcome", &outcome);
                    break;
                }
                assert!(moves < MAX_MOVES, "{id} did not end in {MAX_MOVES} moves");
                let to_act = table.to_act();
                let seat = to_act[(rng.next_u64() % to_act.len() as u64) as usize];
                let offered = table.legal_actions(seat);
                for template in &offered {
                    check(&schemas.legal_action, "a legal action", template);
                }
                let body = instantiate(
                    &offered[(rng.next_u64() % offered.len() as u64) as usize],
                    &mut rng,
                );
                check(&schemas.action, "an action", &body);
                let decision = table
                    .decide(seat, &body, &mut Chance::new(game_seed, seq + 1))
                    .unwrap_or_else(|e| panic!("{body} by {seat} refused: {e}"));
                for event in &decision.events {
                    check(&schemas.event, "an event", &whole(&event.kind, &event.data));
                }
                seq += decision.events.len() as u64;
                table.apply(decision);
                moves += 1;
            }
        }
    }
}

#[test]
fn girl_sends_only_what_its_schemas_describe() {
    every_part_fits("girl");
}

#[test]
fn the_car_game_sends_only_what_its_schemas_describe() {
    every_part_fits("car");
}

#[test]
fn british_birds_sends_only_what_its_schemas_describe() {
    every_part_fits("british-birds");
}

#[test]
fn history_of_england_sends_only_what_its_schemas_describe() {
    every_part_fits("history-of-england");
}

#[test]
fn googly_sends_only_what_its_schemas_describe() {
    every_part_fits("googly");
}

#[test]
fn a_schema_refuses_what_the_game_would_not_send() {
    // The schemas are real types, not `true`: a view missing its fields, a card that is in
    // no pack and an action of no kind are all refused.
    for engine in catalog::engines() {
        let schemas = Schemas::of(engine);
        let id = engine.describe().id;
        assert!(!schemas.public.is_valid(&json!("a table")), "{id}");
        assert!(!schemas.public.is_valid(&json!({})), "{id}");
        assert!(!schemas.action.is_valid(&json!({"type": "cheat"})), "{id}");
        assert!(!schemas.outcome.is_valid(&json!([])), "{id}");
    }
}

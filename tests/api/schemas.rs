//! Every game's JSON Schemas are published, and describe what the server really sends: games
//! played over HTTP have every view, legal action, result and logged event checked against
//! the schemas `GET /v1/catalog/{game}/schemas` answers.

use jsonschema::Validator;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::StatusCode;
use serde_json::{json, Map, Value};

use crate::client::{random_move, seed_hex};
use crate::helpers::{assert_problem, TestApp};
use crate::on_both_backends;

/// A game long enough to pass through every phase ends well within this.
const MAX_MOVES: usize = 5_000;

fn validator(game: &str, part: &str, schema: &Value) -> Validator {
    jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("{game}'s {part} schema is not a JSON Schema: {e}"))
}

fn check(validator: &Validator, what: &str, value: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not fit the published schema: {errors:?}\n{value}"
    );
}

/// The published schemas of one game, compiled.
struct Published {
    options: Validator,
    action: Validator,
    legal_action: Validator,
    seat: Validator,
    public: Validator,
    private: Validator,
    outcome: Validator,
    event: Validator,
}

async fn published(app: &TestApp, game: &str) -> Published {
    let (status, body) = app.get(&format!("/v1/catalog/{game}/schemas"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["game"], json!(game));
    Published {
        options: validator(game, "options", &body["options"]),
        action: validator(game, "action", &body["action"]),
        legal_action: validator(game, "legal_action", &body["legal_action"]),
        seat: validator(game, "view.seat", &body["view"]["seat"]),
        public: validator(game, "view.public", &body["view"]["public"]),
        private: validator(game, "view.private", &body["view"]["private"]),
        outcome: validator(game, "outcome", &body["outcome"]),
        event: validator(game, "event", &body["event"]),
    }
}

/// Checks one viewer's view of a game against the game's schemas.
fn check_view(schemas: &Published, view: &Value) {
    for seat in view["seats"].as_array().expect("seats") {
        check(&schemas.seat, "a seat of the view", seat);
    }
    check(&schemas.public, "the public view", &view["public"]);
    if !view["you"].is_null() {
        check(&schemas.private, "`you`", &view["you"]);
    }
    for action in view["legal_actions"].as_array().expect("legal_actions") {
        check(&schemas.legal_action, "a legal action", action);
    }
    if !view["result"].is_null() {
        check(&schemas.outcome, "the result", &view["result"]);
    }
}

async fn every_game_sends_what_its_published_schemas_describe(app: TestApp) {
    let (status, catalog) = app.get("/v1/catalog", None).await;
    assert_eq!(status, StatusCode::OK, "{catalog}");
    let games = catalog["games"].as_array().expect("games");
    assert_eq!(games.len(), 5, "{catalog}");
    for (i, entry) in games.iter().enumerate() {
        let game = entry["id"].as_str().expect("an id");
        let players = usize::try_from(entry["min_players"].as_u64().expect("min_players"))
            .expect("a small count");
        let schemas = published(&app, game).await;
        check(&schemas.options, "the default options", &json!({}));

        let seed = 7 + i as u64;
        let (id, tokens) = app
            .create_game(game, players, Some(&seed_hex(seed)), json!({}))
            .await;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut moves = 0;
        loop {
            check_view(&schemas, &app.view(&id, None).await);
            for token in &tokens {
                check_view(&schemas, &app.view(&id, Some(token)).await);
            }
            let Some((_, body)) = random_move(&app, &id, &tokens, &mut rng, |_| true).await else {
                break;
            };
            check(&schemas.action, "an action sent", &body);
            moves += 1;
            assert!(
                moves <= MAX_MOVES,
                "{game} did not end in {MAX_MOVES} moves"
            );
        }
        let finished = app.view(&id, None).await;
        assert_eq!(finished["status"], json!("finished"), "{finished}");
        check(&schemas.outcome, "the result", &finished["result"]);

        // Once the game is over the whole log is public: each event, with its type, is one
        // the event schema describes, and each command one the action schema does.
        for event in app.all_events(&id, None).await {
            let mut whole = match &event["data"] {
                Value::Object(map) => map.clone(),
                _ => Map::new(),
            };
            whole.insert("type".into(), event["type"].clone());
            check(&schemas.event, "a logged event", &Value::Object(whole));
            if let Some(command) = event.get("command").filter(|c| !c.is_null()) {
                check(&schemas.action, "a logged command", command);
            }
        }
    }
}

async fn the_schemas_are_real_types_and_unknown_games_have_none(app: TestApp) {
    let schemas = published(&app, "girl").await;
    // Not `true` (anything goes): a public view without its fields, a card that is in no
    // pack and a move of no kind are refused.
    assert!(!schemas.public.is_valid(&json!({})));
    assert!(!schemas
        .action
        .is_valid(&json!({"type": "lay", "cards": ["no-such-card"]})));
    assert!(!schemas.action.is_valid(&json!({"type": "cheat"})));
    assert!(schemas
        .legal_action
        .is_valid(&json!({"type": "lay", "cards": {"choose": 3, "from": ["trio-01"]}})));
    assert_problem(
        app.request(reqwest::Method::GET, "/v1/catalog/snap/schemas", None, None)
            .await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
}

on_both_backends!(
    every_game_sends_what_its_published_schemas_describe,
    the_schemas_are_real_types_and_unknown_games_have_none,
);

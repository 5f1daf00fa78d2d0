//! The API's recorded logs of rules version 1 (`tests/fixtures/v1`, see its README) replayed by
//! the rules alone: opened under version 1, every game shows each viewer exactly the view, the
//! legal actions, the redacted log and the outcome the server answered when it was recorded,
//! and every event reads back to the very data that was hashed. This is the domain's half of
//! the promise that a changed rule applies to new games only; the API's fixture test checks
//! the rest through the server.

// Issue 9 lints: tests fail by panicking, so unwrap/expect in their helpers is the point.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use parlour_domain::british_birds::BritishBirds;
use parlour_domain::engine::{parse_recorded, record, Recorded};
use parlour_domain::googly::Googly;
use parlour_domain::history_of_england::HistoryOfEngland;
use parlour_domain::tricks::{CarGame, GirlGame};
use parlour_domain::{catalog, Game, Player, Seat, Viewer, FIRST_RULES_VERSION};
use serde_json::{Map, Value};

/// The event as game `G` reads it and writes it again.
fn again<G: Game>(event: &Recorded) -> Value {
    let typed: G::Event = parse_recorded(event).unwrap_or_else(|e| panic!("{e}"));
    record(&typed).data
}

/// The event read by its game and written again.
fn reread(game: &str, event: &Recorded) -> Value {
    match game {
        "girl" => again::<GirlGame>(event),
        "car" => again::<CarGame>(event),
        "british-birds" => again::<BritishBirds>(event),
        "history-of-england" => again::<HistoryOfEngland>(event),
        "googly" => again::<Googly>(event),
        other => panic!("no game {other}"),
    }
}

/// `value` without the fields the server adds around the rules' own (names, seat numbers).
fn without(value: &Value, fields: &[&str]) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !fields.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

#[test]
fn every_recorded_game_of_rules_version_1_replays_to_what_the_server_answered() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/v1");
    let mut games = 0;
    for entry in std::fs::read_dir(dir).expect("tests/fixtures/v1") {
        let path = entry.unwrap().path();
        let name = path.display().to_string();
        let fixture: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let record = &fixture["record"];
        let engine = catalog::engine(record["game"].as_str().unwrap()).unwrap();
        let players: Vec<Player> = serde_json::from_value(record["players"].clone()).unwrap();
        let mut table = engine
            .open(&players, &record["options"], FIRST_RULES_VERSION)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut log = Vec::new();
        for event in fixture["events"].as_array().unwrap() {
            let recorded = Recorded {
                kind: event["type"].as_str().unwrap().into(),
                data: event["data"].clone(),
            };
            table
                .apply_recorded(&recorded)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            log.push(recorded);
        }
        let over = table.outcome().is_some();
        let viewers =
            std::iter::once(Viewer::Spectator).chain(Seat::all(players.len()).map(Viewer::Seat));
        for (i, viewer) in viewers.enumerate() {
            let expected = &fixture["expected"]["views"][i];
            let view = serde_json::to_value(table.view(viewer)).unwrap();
            assert_eq!(
                view["public"], expected["public"],
                "{name}, {viewer:?}: public"
            );
            assert_eq!(
                table.outcome().unwrap_or(Value::Null),
                expected["result"],
                "{name}: result"
            );
            for (s, seat) in expected["seats"].as_array().unwrap().iter().enumerate() {
                assert_eq!(
                    view["seats"][s],
                    without(seat, &["name", "seat"]),
                    "{name}: seat {s}"
                );
            }
            if let Viewer::Seat(seat) = viewer {
                assert_eq!(
                    view["private"],
                    without(&expected["you"], &["seat"]),
                    "{name}: you"
                );
                let legal = Value::Array(table.legal_actions(seat));
                assert_eq!(
                    legal, expected["legal_actions"],
                    "{name}, {viewer:?}: legal actions"
                );
            }
            // While a game runs each viewer's log is redacted; once over it is shown whole.
            let shown = fixture["expected"]["logs"][i].as_array().unwrap();
            assert_eq!(shown.len(), log.len(), "{name}: log length");
            for (event, shown) in log.iter().zip(shown) {
                let data = if over {
                    event.data.clone()
                } else {
                    engine.redact(event, viewer).unwrap()
                };
                assert_eq!(data, shown["data"], "{name}, {viewer:?}: {}", event.kind);
            }
        }
        // Every event reads back to the data that was hashed, field for field.
        for event in &log {
            let again = reread(engine.describe().id, event);
            assert_eq!(
                again, event.data,
                "{name}: {} does not read back",
                event.kind
            );
        }
        games += 1;
    }
    assert!(games >= 26, "only {games} fixtures found");
}

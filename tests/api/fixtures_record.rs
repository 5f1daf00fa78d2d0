//! Records fixtures of logs as this version of Parlour writes them (chain format 1), so that
//! later versions can prove they still replay and audit old games exactly.
//!
//! Run once, by hand: `cargo test -p parlour --test api fixtures_record -- --ignored`.
//! It writes `tests/fixtures/v1/*.json`: for each game, kind and variant, a finished and an
//! unfinished game, as the store's rows (creation record, seat tokens, every event with its
//! hashes) and what the server then answered (each seat's and a spectator's view, their logs,
//! and the audit).

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use serde_json::{json, Value};

use crate::client::{random_move, seed_hex};
use crate::helpers::{spawn_app, Backend, TestApp};

/// Every game, kind and variant worth a fixture: (game, players, options).
fn tables() -> Vec<(&'static str, usize, Value)> {
    vec![
        ("girl", 2, json!({})),
        ("girl", 4, json!({})),
        ("car", 3, json!({})),
        ("car", 5, json!({})),
        ("british-birds", 2, json!({})),
        ("british-birds", 4, json!({})),
        (
            "british-birds",
            3,
            json!({"owl_preferences": ["always_play_owl", "always_hand_over", "ask_me"]}),
        ),
        ("history-of-england", 3, json!({})),
        ("history-of-england", 4, json!({"series": 2})),
        ("history-of-england", 5, json!({"series": 3})),
        ("googly", 2, json!({})),
        ("googly", 3, json!({})),
        ("googly", 2, json!({"variant": "patience"})),
    ]
}

async fn record_one(
    app: &TestApp,
    game: &str,
    players: usize,
    options: &Value,
    seed: u64,
    stop_after: Option<usize>,
) -> Value {
    let (id, tokens) = app
        .create_game(game, players, Some(&seed_hex(seed)), options.clone())
        .await;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut moves = 0;
    while stop_after.is_none_or(|n| moves < n) {
        if random_move(app, &id, &tokens, &mut rng, |_| true)
            .await
            .is_none()
        {
            break;
        }
        moves += 1;
    }
    let uuid: uuid::Uuid = id.parse().unwrap();
    let record = app.store.game(uuid).await.unwrap().unwrap();
    let events = app.store.events(uuid, 0, None).await.unwrap();
    let mut views = Vec::new();
    let mut logs = Vec::new();
    for token in std::iter::once(None).chain(tokens.iter().map(|t| Some(t.as_str()))) {
        views.push(app.view(&id, token).await);
        logs.push(Value::Array(app.all_events(&id, token).await));
    }
    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    json!({
        "recorded_by": "chain format 1 (commit 37b5c75)",
        "record": {
            "id": record.id,
            "game": record.game,
            "players": record.players,
            "options": record.options,
            "seed": record.seed.to_hex(),
            "seed_commitment": record.seed_commitment,
            "created_at": parlour::store::time_text(&record.created_at),
        },
        "tokens": tokens,
        "events": events.iter().map(|e| json!({
            "seq": e.seq,
            "type": e.kind,
            "actor": e.actor,
            "data": e.data,
            "command": e.command,
            "at": parlour::store::time_text(&e.at),
            "prev_hash": e.prev_hash,
            "hash": e.hash,
        })).collect::<Vec<_>>(),
        "expected": {
            "views": views,
            "logs": logs,
            "audit": audit,
        },
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by hand to record fixtures of today's log format"]
async fn record_fixtures_of_todays_logs() {
    let app = spawn_app(Backend::Sqlite).await;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v1");
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (game, players, options)) in tables().iter().enumerate() {
        let variant = options
            .get("series")
            .map(|s| format!("-series{s}"))
            .or_else(|| {
                options
                    .get("variant")
                    .map(|v| format!("-{}", v.as_str().unwrap()))
            })
            .or_else(|| {
                options
                    .get("owl_preferences")
                    .map(|_| "-preferences".to_string())
            })
            .unwrap_or_default();
        for (state, stop_after) in [("finished", None), ("unfinished", Some(7 + i))] {
            let fixture =
                record_one(&app, game, *players, options, 9000 + i as u64, stop_after).await;
            let name = format!("{game}-{players}p{variant}-{state}.json");
            std::fs::write(
                dir.join(name),
                serde_json::to_string_pretty(&fixture).unwrap(),
            )
            .unwrap();
        }
    }
}

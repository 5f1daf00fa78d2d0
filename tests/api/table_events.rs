//! Table events: facts about the table, kept in the same log and hash chain as the moves,
//! shown to everyone, checked by the audit and by `tools/verify.py`.

use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::StatusCode;
use serde_json::{json, Value};
use uuid::Uuid;

use parlour::receipts::Signer;
use parlour::service::{Parlour, ServiceError};
use parlour_domain::table_events::{TableEvent, TableRefusal};
use parlour_domain::Seat;

use crate::client::{play_to_end, random_move};
use crate::helpers::TestApp;
use crate::on_both_backends;
use crate::verify::{python_present, run_verifier, write_bundle};

/// The service over the test's store, as an operator's tool or a worker would hold it: it
/// shares nothing in memory with the server under test.
fn table_keeper(app: &TestApp) -> Parlour {
    Parlour::new(
        app.store.clone(),
        Arc::new(Signer::generate().expect("signing key")),
    )
}

async fn record(app: &TestApp, id: &str, actor: Option<u8>, event: TableEvent) -> u64 {
    table_keeper(app)
        .record_table_event(id.parse::<Uuid>().expect("id"), actor, event)
        .await
        .expect("the table event is recorded")
}

fn note(text: &str) -> TableEvent {
    TableEvent::Note { text: text.into() }
}

/// Saves the finished game's file and runs the verifier on it.
pub(crate) async fn verify_file(
    app: &TestApp,
    id: &str,
    change: impl FnOnce(&mut Value),
) -> (bool, String) {
    let (status, mut file) = app.get(&format!("/v1/games/{id}/file"), None).await;
    assert_eq!(status, StatusCode::OK, "{file}");
    change(&mut file);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("game.json");
    write_bundle(&path, &file);
    run_verifier(vec![path.display().to_string()]).await
}

async fn a_note_is_chained_shown_to_everyone_and_passes_the_audit_and_the_verifier(app: TestApp) {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    random_move(&app, &id, &tokens, &mut rng, |_| true).await;
    let before = app.view(&id, None).await["version"].as_u64().unwrap();

    let version = record(&app, &id, None, note("tea at four")).await;
    assert_eq!(version, before + 1);

    // The server under test learns of it at once, and everyone sees it whole.
    assert_eq!(app.view(&id, None).await["version"], json!(version));
    for token in [None, Some(tokens[0].as_str()), Some(tokens[1].as_str())] {
        let log = app.all_events(&id, token).await;
        let entry = &log[(version - 1) as usize];
        assert_eq!(entry["type"], json!("table.note"));
        assert_eq!(entry["data"], json!({"text": "tea at four"}));
        assert_eq!(entry["actor"], Value::Null);
        assert_eq!(entry["prev_hash"], log[(version - 2) as usize]["hash"]);
        assert!(entry["sealed"].is_string());
    }
    // The game goes on as if nothing happened at its table.
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
    play_to_end(&app, &id, &tokens, &mut rng, None, 500).await;
    crate::helpers::assert_clean_audit(&app, &id).await;

    if python_present() {
        let (ok, text) = verify_file(&app, &id, |_| {}).await;
        assert!(ok, "{text}");
        assert!(text.contains("1 table event(s)"), "{text}");
        // The hash binds what kind of entry it is, and the seal what it says.
        let (ok, text) = verify_file(&app, &id, |file| {
            file["events"][(version - 1) as usize]["data"]["text"] = json!("tea at five");
        })
        .await;
        assert!(!ok && text.contains("its seal does not match"), "{text}");
        let (ok, text) = verify_file(&app, &id, |file| {
            file["events"][(version - 1) as usize]["type"] = json!("table.abandoned");
            file["events"][(version - 1) as usize]["data"] = json!({"reason": "tea at four"});
        })
        .await;
        assert!(!ok && text.contains("its hash does not match"), "{text}");
    }
}

async fn a_resignation_ends_the_game_for_everyone(app: TestApp) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (id, tokens) = app.create_game("girl", 3, None, json!({})).await;
    random_move(&app, &id, &tokens, &mut rng, |_| true).await;
    let mine = app.view(&id, Some(&tokens[0])).await;
    let offered = mine["legal_actions"].clone();

    record(&app, &id, Some(1), TableEvent::Resigned { seat: Seat(1) }).await;

    let view = app.view(&id, Some(&tokens[0])).await;
    assert_eq!(view["status"], json!("finished"));
    assert_eq!(view["result"]["ended_by"], json!("resignation"));
    assert_eq!(view["result"]["seat"], json!(1));
    // The resigning seat is ranked last, alone, as the game stood.
    let ranking = view["result"]["concession"]["ranking"].as_array().unwrap();
    assert_eq!(ranking.last(), Some(&json!([1])), "{}", view["result"]);
    assert_eq!(view["to_act"], json!([]));
    assert_eq!(view["legal_actions"], json!([]));
    // A move that was legal a moment ago is now refused: the game is over.
    if let Some(action) = offered.as_array().and_then(|a| a.first()) {
        let body = parlour_domain::playout::instantiate(action, &mut rng);
        let (status, problem) = app.act(&id, &tokens[0], &body).await;
        assert_eq!(status, StatusCode::CONFLICT, "{problem}");
        assert_eq!(problem["rule"], json!("game-over"));
    }
    // Nothing more happens at the table either.
    let refused = table_keeper(&app)
        .record_table_event(id.parse().unwrap(), None, note("too late"))
        .await;
    assert!(
        matches!(
            refused,
            Err(ServiceError::TableRefused(TableRefusal::GameOver))
        ),
        "{refused:?}"
    );
    // The game is over, so its seed, salt and file are published, and everything checks.
    crate::helpers::assert_clean_audit(&app, &id).await;
    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["seed_ok"], json!(true), "{audit}");
    if python_present() {
        let (ok, text) = verify_file(&app, &id, |_| {}).await;
        assert!(ok, "{text}");
        // A note slipped in after the resignation is caught.
        let (ok, text) = verify_file(&app, &id, |file| {
            let events = file["events"].as_array_mut().unwrap();
            let last = events.last().unwrap().clone();
            let mut extra = last.clone();
            extra["seq"] = json!(last["seq"].as_u64().unwrap() + 1);
            extra["type"] = json!("table.note");
            extra["data"] = json!({"text": "x"});
            extra["prev_hash"] = last["hash"].clone();
            events.push(extra);
        })
        .await;
        assert!(
            !ok && text.contains("follows the table event that ended"),
            "{text}"
        );
    }
}

async fn a_table_event_the_table_could_not_have_recorded_fails_the_audit(app: TestApp) {
    let (id, _) = app.create_game("girl", 2, None, json!({})).await;
    record(&app, &id, Some(0), TableEvent::Resigned { seat: Seat(0) }).await;
    // Forge a note after the resignation, sealed and chained correctly, straight into the
    // store: only the framework's rule (nothing after the game ended) can catch it.
    let game: Uuid = id.parse().unwrap();
    let record_ = app.store.game(game).await.unwrap().unwrap();
    let log = app.store.events(game, 0, None).await.unwrap();
    let last = log.last().unwrap();
    let entry = note("forged").to_recorded();
    let mut forged = parlour::store::StoredEvent {
        seq: last.seq + 1,
        kind: entry.kind,
        actor: None,
        data: entry.data,
        command: None,
        at: parlour::store::now(),
        sealed: None,
        prev_hash: last.hash.clone(),
        hash: String::new(),
        version: 1,
    };
    parlour::chain::link(&record_, &mut forged).unwrap();
    app.store.append(game, &[forged], None).await.unwrap();
    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["replay_ok"], json!(false), "{audit}");
    // The game's end was signed and published at the resignation, so the entry after it is
    // also caught there (and that check is the chain's).
    assert_eq!(audit["chain_ok"], json!(false), "{audit}");
    assert_eq!(
        audit["failures"][0]["check"],
        json!("checkpoint"),
        "{audit}"
    );
    assert_eq!(audit["failures"][0]["seq"], json!(last.seq));
    assert!(
        audit["failures"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("the log goes on to event"),
        "{audit}"
    );
    let failure = &audit["failures"][1];
    assert_eq!(failure["check"], json!("replay"), "{audit}");
    assert_eq!(failure["seq"], json!(last.seq + 1));
    assert!(
        failure["detail"]
            .as_str()
            .unwrap()
            .contains("the table event cannot stand here"),
        "{audit}"
    );
}

on_both_backends!(
    a_note_is_chained_shown_to_everyone_and_passes_the_audit_and_the_verifier,
    a_resignation_ends_the_game_for_everyone,
    a_table_event_the_table_could_not_have_recorded_fails_the_audit,
);

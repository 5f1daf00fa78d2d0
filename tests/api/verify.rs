//! `tools/verify.py`, the independent verifier: it accepts every finished game as served, and
//! names the event when a saved log has been tampered with.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

use crate::client::{play_random_game, Watch};
use crate::helpers::{spawn_app, Backend};

const VERIFIER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools/verify.py");

pub(crate) fn python_present() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs the verifier off the async runtime, so the server under test can answer it.
pub(crate) async fn run_verifier(args: Vec<String>) -> (bool, String) {
    let output: Output = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .arg(VERIFIER)
            .args(&args)
            .output()
            .expect("run python3")
    })
    .await
    .expect("verifier thread");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

fn read_bundle(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read bundle")).expect("bundle")
}

pub(crate) fn write_bundle(path: &Path, bundle: &Value) {
    std::fs::write(path, bundle.to_string()).expect("write bundle");
}

/// The first `{"stream", "order"}` object in a value, if any.
fn first_shuffle(value: &mut Value) -> Option<&mut Value> {
    match value {
        Value::Object(map) if map.len() == 2 && map.contains_key("stream") => map
            .get("order")
            .is_some_and(Value::is_array)
            .then_some(value),
        Value::Object(map) => map.values_mut().find_map(first_shuffle),
        Value::Array(items) => items.iter_mut().find_map(first_shuffle),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_independent_verifier_accepts_every_game_and_names_a_tampered_event() {
    assert!(
        python_present(),
        "python3 is needed to test tools/verify.py (install it: apt-get install python3)"
    );
    let (ok, text) = run_verifier(vec!["--self-test".into()]).await;
    assert!(ok, "the verifier disagrees with the golden values:\n{text}");

    let app = spawn_app(Backend::Sqlite).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut saved = Vec::new();
    for (i, engine) in parlour_domain::catalog::engines().iter().enumerate() {
        let d = engine.describe();
        let played = play_random_game(
            &app,
            d.id,
            d.min_players,
            json!({}),
            7000 + i as u64,
            Watch::Play,
            20_000,
        )
        .await;
        let path = dir.path().join(format!("{}.json", d.id));
        let (ok, text) = run_verifier(vec![
            "--save".into(),
            path.display().to_string(),
            app.address.clone(),
            played.id.clone(),
        ])
        .await;
        eprintln!("{text}");
        assert!(ok, "{}: the verifier rejects a clean game:\n{text}", d.id);
        assert!(text.contains("\nVERIFIED"), "{text}");
        assert!(!text.contains(" 0 recorded shuffle"), "{}: {text}", d.id);
        saved.push(path);
    }

    // A saved game file verifies offline, as saved, named on its own or with --log.
    let (ok, text) = run_verifier(vec![saved[1].display().to_string()]).await;
    assert!(ok, "{text}");
    let path = &saved[0];
    let (ok, text) = run_verifier(vec!["--log".into(), path.display().to_string()]).await;
    assert!(ok, "{text}");

    // Change the deal: swap the top two cards of the first recorded shuffle.
    let mut bundle = read_bundle(path);
    let (seq, shuffled) = bundle["events"]
        .as_array_mut()
        .expect("events")
        .iter_mut()
        .find_map(|e| {
            let seq = e["seq"].as_u64().expect("seq");
            first_shuffle(&mut e["data"]).map(|s| (seq, s))
        })
        .expect("a recorded shuffle");
    shuffled["order"].as_array_mut().expect("order").swap(0, 1);
    let tampered = dir.path().join("tampered-deal.json");
    write_bundle(&tampered, &bundle);
    let (ok, text) = run_verifier(vec!["--log".into(), tampered.display().to_string()]).await;
    eprintln!("{text}");
    assert!(!ok, "a changed deal verifies:\n{text}");
    // Chain format 2: the data enters the hash through its seal, which no longer matches.
    assert!(
        text.contains(&format!(
            "chain     FAIL  event {seq}: its seal does not match its data and command"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("shuffles  FAIL  event {seq}:")),
        "{text}"
    );
    assert!(text.contains("NOT VERIFIED"), "{text}");

    // Rewrite one event's hash: that event no longer matches its contents, and the next one
    // no longer links to it.
    let mut bundle = read_bundle(path);
    let events = bundle["events"].as_array_mut().expect("events");
    assert!(events.len() > 2, "a game of {} events", events.len());
    let k = events.len() / 2;
    let seq = events[k]["seq"].as_u64().expect("seq");
    events[k]["hash"] = json!("0".repeat(64));
    let tampered = dir.path().join("tampered-hash.json");
    write_bundle(&tampered, &bundle);
    let (ok, text) = run_verifier(vec!["--log".into(), tampered.display().to_string()]).await;
    eprintln!("{text}");
    assert!(!ok, "a changed hash verifies:\n{text}");
    assert!(
        text.contains(&format!("event {seq}: its hash does not match")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "event {}: its prev_hash is not the hash of event {seq}",
            seq + 1
        )),
        "{text}"
    );

    // Change the creation record (a player's name): the log no longer starts from it.
    let mut bundle = read_bundle(path);
    bundle["record"]["players"][0]["name"] = json!("Somebody Else");
    let tampered = dir.path().join("tampered-record.json");
    write_bundle(&tampered, &bundle);
    let (ok, text) = run_verifier(vec!["--log".into(), tampered.display().to_string()]).await;
    assert!(!ok, "a changed creation record verifies:\n{text}");
    assert!(
        text.contains("event 1: its prev_hash is not the genesis hash"),
        "{text}"
    );
}

/// The receipt the file holds for event `seq`.
fn receipts_kept_for(file: &Value, seq: u64) -> Value {
    file["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["seq"] == json!(seq))
        .cloned()
        .unwrap_or_else(|| panic!("no receipt for event {seq}"))
}

/// Every move's answer carries a receipt; kept, the receipts prove what the log held: the game
/// file verifies with them offline, and a file cut short after the fact fails them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receipts_kept_from_the_moves_verify_the_file_and_catch_a_log_cut_short() {
    let app = spawn_app(Backend::Sqlite).await;
    let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
    let mut receipts = Vec::new();
    let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(21);
    loop {
        let public = app.view(&id, None).await;
        if public["status"] == json!("finished") {
            break;
        }
        let seat = public["to_act"][0].as_u64().unwrap() as usize;
        let mine = app.view(&id, Some(&tokens[seat])).await;
        let body = parlour_domain::playout::instantiate(&mine["legal_actions"][0], &mut rng);
        let (status, after) = app.act(&id, &tokens[seat], &body).await;
        assert_eq!(status, reqwest::StatusCode::OK, "{after}");
        assert_eq!(after["receipt"]["seq"], after["version"], "{after}");
        receipts.push(after["receipt"].clone());
    }
    let (status, keys) = app.get("/.well-known/parlour-keys", None).await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let public_key: [u8; 32] = hex::decode(keys["keys"][0]["public_key"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    for receipt in &receipts {
        let receipt: parlour::receipts::Receipt = serde_json::from_value(receipt.clone()).unwrap();
        assert!(parlour::receipts::verify(&public_key, &receipt));
    }

    let dir = tempfile::tempdir().expect("temp dir");
    let (status, file) = app.get(&format!("/v1/games/{id}/file"), None).await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let path = dir.path().join("game.json");
    write_bundle(&path, &file);
    let kept = dir.path().join("receipts.json");
    write_bundle(&kept, &Value::Array(receipts));
    let (ok, text) = run_verifier(vec![
        path.display().to_string(),
        "--receipt".into(),
        kept.display().to_string(),
    ])
    .await;
    assert!(ok, "{text}");
    assert!(text.contains("receipts  OK"), "{text}");

    // The operator cuts the last batch from the file, head and all: the chain still links,
    // but the last receipt names an event the log no longer holds.
    let mut cut = file.clone();
    let events = cut["events"].as_array_mut().unwrap();
    let last_batch = events
        .iter()
        .rposition(|e| !e["command"].is_null())
        .unwrap();
    events.truncate(last_batch);
    let length = events.len();
    let last_hash = events[length - 1]["hash"].clone();
    cut["head"] = json!({"version": length, "hash": last_hash});
    cut["receipts"] = json!([]);
    let path = dir.path().join("cut.json");
    write_bundle(&path, &cut);
    let (ok, text) = run_verifier(vec![
        path.display().to_string(),
        "--receipt".into(),
        kept.display().to_string(),
    ])
    .await;
    assert!(
        !ok,
        "a log cut short verifies against its receipts:\n{text}"
    );
    assert!(text.contains("events were removed"), "{text}");

    // Issue 35, item 8: the same cut file, offered with nothing kept from play. With the
    // file's signed checkpoint left in, that checkpoint names an event past the cut.
    let (ok, text) = run_verifier(vec![path.display().to_string()]).await;
    assert!(!ok, "a file cut short verifies:\n{text}");
    assert!(
        text.contains(&format!(
            "finished  FAIL  event {}: the file's checkpoint says the game ended at event {}, but the log ends at event {length}: events were removed",
            file["checkpoint"]["seq"], file["checkpoint"]["seq"]
        )),
        "{text}"
    );
    // With the checkpoint taken out too, the log does not end the game and the file carries
    // no signed end: NOT VERIFIED, saying both.
    let mut stripped = cut.clone();
    stripped.as_object_mut().unwrap().remove("checkpoint");
    let stripped_path = dir.path().join("cut-and-stripped.json");
    write_bundle(&stripped_path, &stripped);
    let (ok, text) = run_verifier(vec![stripped_path.display().to_string()]).await;
    assert!(!ok, "a file cut short verifies:\n{text}");
    assert!(
        text.contains(&format!(
            "finished  FAIL  event {length}: the log does not end the game: its last game event is"
        )),
        "{text}"
    );
    assert!(
        text.contains("finished  FAIL  log: the file carries no signed checkpoint"),
        "{text}"
    );
    assert!(text.contains("NOT VERIFIED"), "{text}");
    // Nor can the receipt of the cut file's last event pass for a checkpoint of its end:
    // the server never signed that the game ended there.
    let last_receipt = receipts_kept_for(&file, length as u64);
    let mut forged = stripped.clone();
    let mut as_checkpoint = last_receipt.clone();
    as_checkpoint["finished"] = json!(true);
    forged["checkpoint"] = as_checkpoint;
    let forged_path = dir.path().join("cut-with-a-receipt-for-a-checkpoint.json");
    write_bundle(&forged_path, &forged);
    let (ok, text) = run_verifier(vec![forged_path.display().to_string()]).await;
    assert!(!ok, "a receipt passes for a checkpoint:\n{text}");
    assert!(
        text.contains("the file's checkpoint: its signature does not verify"),
        "{text}"
    );
    // A checkpoint kept from the audit, or a mirror's page of the public list, catches the
    // cut file even when the file says nothing of its end.
    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    let kept_checkpoint = dir.path().join("checkpoint.json");
    write_bundle(&kept_checkpoint, &audit["checkpoint"]);
    let (_, page) = app.get("/v1/checkpoints", None).await;
    let mirror = dir.path().join("mirror.json");
    write_bundle(&mirror, &page);
    for kept in [&kept_checkpoint, &mirror] {
        let (ok, text) = run_verifier(vec![
            stripped_path.display().to_string(),
            "--checkpoint".into(),
            kept.display().to_string(),
        ])
        .await;
        assert!(!ok, "{text}");
        assert!(
            text.contains("checkpoint 1 kept from before says the game ended at event"),
            "{text}"
        );
        // The whole file verifies against the same kept checkpoint.
        let (ok, text) = run_verifier(vec![
            dir.path().join("game.json").display().to_string(),
            "--checkpoint".into(),
            kept.display().to_string(),
        ])
        .await;
        assert!(ok, "{text}");
        assert!(
            text.contains("finished  OK    the game ends at event"),
            "{text}"
        );
        assert!(text.contains("2 signed checkpoint(s) say so"), "{text}");
    }

    // An unfinished game has no file yet.
    let (other, _) = app.create_game("girl", 2, None, json!({})).await;
    let res = app
        .request(
            reqwest::Method::GET,
            &format!("/v1/games/{other}/file"),
            None,
            None,
        )
        .await;
    crate::helpers::assert_problem(res, reqwest::StatusCode::CONFLICT, "game-in-progress").await;
}

//! Signed receipts: the server publishes the key it signs with, and the independent Python
//! verifier (`tools/ed25519.py`) accepts exactly the receipts the server's signer makes.

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

use parlour::receipts::{self, Receipt, Signer};
use parlour::startup::Application;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::helpers::{fresh_database, Backend};

const ED25519: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools/ed25519.py");

/// The golden receipt of `api/src/receipts.rs`, which `tools/ed25519.py --self-test` pins too.
fn golden() -> (Signer, Receipt) {
    let signer = Signer::from_seed(std::array::from_fn(|i| i as u8));
    let game = Uuid::parse_str("0190f3a2-7c4e-7b1d-9a2f-5e6d7c8b9a01").expect("uuid");
    let receipt = signer.sign(
        game,
        42,
        "5f1a4f0fbd3c5e2d7b8a9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f",
    );
    (signer, receipt)
}

/// Runs `tools/ed25519.py` off the async runtime (a server under test may have to answer it);
/// whether it succeeded, and what it printed.
async fn ed25519_py(args: Vec<String>) -> (bool, String) {
    let output = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .arg(ED25519)
            .args(&args)
            .output()
            .expect("run python3 (it is on every machine this project builds on)")
    })
    .await
    .expect("python thread");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

fn write_json(path: &Path, value: &Value) -> String {
    std::fs::write(path, value.to_string()).expect("write receipts");
    path.display().to_string()
}

/// Serves with `signer` on a fresh database of `backend`; the base URL and what keeps the
/// database alive.
async fn serve(
    backend: Backend,
    signer: Signer,
) -> (
    String,
    Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
) {
    parlour::telemetry::init_for_tests();
    let (url, guard) = fresh_database(backend).await;
    let store = parlour::store::connect(&url).await.expect("open the store");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let app = Application::with_store_and_signer(listener, store, signer).expect("build app");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    (address, guard)
}

async fn fetch_keys(address: &str) -> (StatusCode, Option<String>, Value) {
    let res = Client::new()
        .get(format!("{address}/.well-known/parlour-keys"))
        .send()
        .await
        .expect("request failed");
    let status = res.status();
    let content_type = res
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    (status, content_type, res.json().await.expect("JSON body"))
}

async fn the_well_known_endpoint_publishes_the_signers_key(backend: Backend) {
    let signer = Signer::generate().expect("a key");
    let expected = json!({"keys": [{
        "key_id": signer.key_id(),
        "algorithm": "Ed25519",
        "public_key": hex::encode(signer.public_key()),
    }]});
    let receipt = signer.sign(Uuid::now_v7(), 3, &"ab".repeat(32));
    let (address, _guard) = serve(backend, signer).await;

    let (status, content_type, keys) = fetch_keys(&address).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(content_type.as_deref(), Some("application/json"));
    assert_eq!(keys, expected);

    // The published key is the one that checks the signer's receipts.
    let mut public_key = [0u8; 32];
    hex::decode_to_slice(
        keys["keys"][0]["public_key"].as_str().expect("hex"),
        &mut public_key,
    )
    .expect("64 hex digits");
    assert!(receipts::verify(&public_key, &receipt));
    assert_eq!(keys["keys"][0]["key_id"], receipts::key_id(&public_key));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_well_known_endpoint_publishes_the_signers_key_on_sqlite() {
    the_well_known_endpoint_publishes_the_signers_key(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_well_known_endpoint_publishes_the_signers_key_on_postgres() {
    the_well_known_endpoint_publishes_the_signers_key(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_built_from_a_key_file_publishes_that_files_key_and_makes_one_if_missing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let database = format!("sqlite://{}/parlour.db", dir.path().display());

    // The operator's key file: the golden seed.
    let given = dir.path().join("given.key");
    std::fs::write(
        &given,
        format!(
            "{}\n",
            hex::encode(std::array::from_fn::<u8, 32, _>(|i| i as u8))
        ),
    )
    .expect("write key");
    let app = Application::build("127.0.0.1:0", &database, &given)
        .await
        .expect("build");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    let (_, _, keys) = fetch_keys(&address).await;
    assert_eq!(
        keys["keys"][0]["public_key"],
        hex::encode(golden().0.public_key())
    );

    // No key file yet: one is made, and a second instance given the same path shares its key.
    let made = dir.path().join("made.key");
    let first = Application::build("127.0.0.1:0", &database, &made)
        .await
        .expect("build");
    let second = Application::build("127.0.0.1:0", &database, &made)
        .await
        .expect("build");
    let addresses = [first.port(), second.port()].map(|p| format!("http://127.0.0.1:{p}"));
    tokio::spawn(first.run_until_stopped());
    tokio::spawn(second.run_until_stopped());
    let from_file = Signer::from_hex(&std::fs::read_to_string(&made).expect("key file made"))
        .expect("the made file holds a key");
    for address in &addresses {
        let (_, _, keys) = fetch_keys(address).await;
        assert_eq!(
            keys["keys"][0]["public_key"],
            hex::encode(from_file.public_key())
        );
    }

    // A key file that is not a key stops the server rather than signing with something else.
    let broken = dir.path().join("broken.key");
    std::fs::write(&broken, "not a key").expect("write");
    let refused = Application::build("127.0.0.1:0", &database, &broken).await;
    assert!(matches!(
        refused,
        Err(parlour::startup::BuildError::SigningKey(_))
    ));
}

#[tokio::test]
async fn the_python_verifier_passes_its_self_test() {
    let (ok, text) = ed25519_py(vec!["--self-test".into()]).await;
    assert!(ok, "tools/ed25519.py --self-test failed:\n{text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

#[tokio::test]
async fn the_python_verifier_accepts_the_rust_receipts_and_refuses_tampered_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (golden_signer, golden_receipt) = golden();
    let golden_key = hex::encode(golden_signer.public_key());

    // The golden receipt as Rust makes it, and receipts under a random key.
    let file = write_json(&dir.path().join("golden.json"), &json!(golden_receipt));
    let (ok, text) = ed25519_py(vec![
        "--public-key".into(),
        golden_key.clone(),
        "--receipts".into(),
        file,
    ])
    .await;
    assert!(ok, "Python refused the golden receipt:\n{text}");

    let signer = Signer::generate().expect("a key");
    let game = Uuid::now_v7();
    let made: Vec<Receipt> = (0..5u64)
        .map(|seq| {
            signer.sign(
                game,
                seq * 1_000_003,
                &hex::encode(Sha256::digest(seq.to_le_bytes())),
            )
        })
        .collect();
    let file = write_json(&dir.path().join("random.json"), &json!(made));
    let key = hex::encode(signer.public_key());
    let (ok, text) = ed25519_py(vec![
        "--public-key".into(),
        key.clone(),
        "--receipts".into(),
        file.clone(),
    ])
    .await;
    assert!(ok, "Python refused a receipt Rust made:\n{text}");
    assert!(text.contains("5 passed, 0 failed"), "{text}");

    // Under another key, none of them verify.
    let (ok, text) = ed25519_py(vec![
        "--public-key".into(),
        golden_key,
        "--receipts".into(),
        file,
    ])
    .await;
    assert!(!ok, "Python accepted receipts under the wrong key:\n{text}");
    assert!(text.contains("0 passed, 5 failed"), "{text}");

    // One tampered receipt among good ones is named and fails the run.
    let mut tampered = json!(made);
    tampered[2]["seq"] = json!(made[2].seq + 1);
    let file = write_json(&dir.path().join("tampered.json"), &tampered);
    let (ok, text) = ed25519_py(vec!["--public-key".into(), key, "--receipts".into(), file]).await;
    assert!(!ok, "Python accepted a tampered receipt:\n{text}");
    assert!(
        text.contains(&format!("FAIL  game {game} seq {}", made[2].seq + 1)),
        "{text}"
    );
    assert!(text.contains("4 passed, 1 failed"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_verifier_takes_the_key_from_the_server() {
    let signer = Signer::generate().expect("a key");
    let receipt = signer.sign(Uuid::now_v7(), 1, &"0f".repeat(32));
    let stranger =
        Signer::generate()
            .expect("another key")
            .sign(Uuid::now_v7(), 1, &"0f".repeat(32));
    let (address, _guard) = serve(Backend::Sqlite, signer).await;
    let dir = tempfile::tempdir().expect("temp dir");

    let file = write_json(&dir.path().join("r.json"), &json!(receipt));
    let (ok, text) = ed25519_py(vec![
        "--server".into(),
        address.clone(),
        "--receipts".into(),
        file,
    ])
    .await;
    assert!(
        ok,
        "Python refused a receipt signed by the server's published key:\n{text}"
    );

    // A receipt naming a key the server does not publish is refused.
    let file = write_json(&dir.path().join("s.json"), &json!(stranger));
    let (ok, text) = ed25519_py(vec!["--server".into(), address, "--receipts".into(), file]).await;
    assert!(
        !ok,
        "Python accepted a receipt of a key the server does not publish:\n{text}"
    );
}

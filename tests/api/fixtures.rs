//! Old games still replay: logs recorded by chain format 1 (`tests/fixtures/v1`), written
//! into a database of the old schema, come through the migrations and the new code with the
//! same views, the same logs and the same audit.

use std::path::{Path, PathBuf};

use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::{fresh_database, spawn_app_on, Backend, TestApp};

fn fixture_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v1");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures directory")
        .map(|entry| entry.expect("fixture entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 26,
        "expected every game's fixtures in {dir:?}"
    );
    files
}

/// Applies only the first migration, the schema the fixtures were recorded under.
async fn old_schema(backend: Backend, url: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../migrations/{folder}/0001_event_store.sql"));
    std::fs::copy(&source, dir.path().join("0001_event_store.sql")).expect("copy migration");
    let migrator = sqlx::migrate::Migrator::new(dir.path())
        .await
        .expect("old migrator");
    match backend {
        Backend::Sqlite => {
            let options: sqlx::sqlite::SqliteConnectOptions = url.parse().expect("sqlite url");
            let pool = sqlx::SqlitePool::connect_with(options.create_if_missing(true))
                .await
                .expect("sqlite");
            migrator.run(&pool).await.expect("old schema");
            pool.close().await;
        }
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(url).await.expect("postgres");
            migrator.run(&pool).await.expect("old schema");
            pool.close().await;
        }
    }
}

/// Writes a fixture's rows as the old code wrote them.
async fn insert_old_rows(backend: Backend, url: &str, fixture: &Value) {
    let record = &fixture["record"];
    let id = record["id"].as_str().unwrap();
    let seed = hex::decode(record["seed"].as_str().unwrap()).unwrap();
    let text = |v: &Value| serde_json::to_string(v).unwrap();
    let tokens: Vec<String> = fixture["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| hex::encode(Sha256::digest(t.as_str().unwrap().as_bytes())))
        .collect();
    let names: Vec<String> = record["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    match backend {
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(url).await.unwrap();
            let uuid: uuid::Uuid = id.parse().unwrap();
            sqlx::query("INSERT INTO games (id, game, players, options, seed, seed_commitment, created_at) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $6, $7::timestamptz)")
                .bind(uuid).bind(record["game"].as_str()).bind(text(&record["players"])).bind(text(&record["options"]))
                .bind(&seed).bind(record["seed_commitment"].as_str()).bind(record["created_at"].as_str())
                .execute(&pool).await.unwrap();
            for (seat, (name, hash)) in names.iter().zip(&tokens).enumerate() {
                sqlx::query(
                    "INSERT INTO seats (game_id, seat, name, token_hash) VALUES ($1, $2, $3, $4)",
                )
                .bind(uuid)
                .bind(seat as i16)
                .bind(name)
                .bind(hash)
                .execute(&pool)
                .await
                .unwrap();
            }
            for e in fixture["events"].as_array().unwrap() {
                sqlx::query("INSERT INTO events (game_id, seq, type, actor, data, command, at, prev_hash, hash) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::timestamptz, $8, $9)")
                    .bind(uuid).bind(e["seq"].as_i64()).bind(e["type"].as_str())
                    .bind(e["actor"].as_i64().map(|a| a as i16)).bind(text(&e["data"]))
                    .bind((!e["command"].is_null()).then(|| text(&e["command"])))
                    .bind(e["at"].as_str()).bind(e["prev_hash"].as_str()).bind(e["hash"].as_str())
                    .execute(&pool).await.unwrap();
            }
            pool.close().await;
        }
        Backend::Sqlite => {
            let pool = sqlx::SqlitePool::connect(url).await.unwrap();
            sqlx::query("INSERT INTO games (id, game, players, options, seed, seed_commitment, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
                .bind(id).bind(record["game"].as_str()).bind(text(&record["players"])).bind(text(&record["options"]))
                .bind(&seed).bind(record["seed_commitment"].as_str()).bind(record["created_at"].as_str())
                .execute(&pool).await.unwrap();
            for (seat, (name, hash)) in names.iter().zip(&tokens).enumerate() {
                sqlx::query(
                    "INSERT INTO seats (game_id, seat, name, token_hash) VALUES (?, ?, ?, ?)",
                )
                .bind(id)
                .bind(seat as i64)
                .bind(name)
                .bind(hash)
                .execute(&pool)
                .await
                .unwrap();
            }
            for e in fixture["events"].as_array().unwrap() {
                sqlx::query("INSERT INTO events (game_id, seq, type, actor, data, command, at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
                    .bind(id).bind(e["seq"].as_i64()).bind(e["type"].as_str())
                    .bind(e["actor"].as_i64()).bind(text(&e["data"]))
                    .bind((!e["command"].is_null()).then(|| text(&e["command"])))
                    .bind(e["at"].as_str()).bind(e["prev_hash"].as_str()).bind(e["hash"].as_str())
                    .execute(&pool).await.unwrap();
            }
            pool.close().await;
        }
    }
}

/// Every field the old answer had, with the same value (new fields may have been added).
fn assert_contains(actual: &Value, expected: &Value, path: &str) {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => {
            for (key, value) in expected {
                let got = actual
                    .get(key)
                    .unwrap_or_else(|| panic!("{path}.{key} is missing"));
                assert_contains(got, value, &format!("{path}.{key}"));
            }
        }
        (Value::Array(actual), Value::Array(expected)) => {
            assert_eq!(actual.len(), expected.len(), "{path}: lengths differ");
            for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
                assert_contains(a, e, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(actual, expected, "{path}"),
    }
}

async fn check_fixture(app: &TestApp, name: &str, fixture: &Value) {
    let id = fixture["record"]["id"].as_str().unwrap();
    let tokens: Vec<Option<&str>> = std::iter::once(None)
        .chain(
            fixture["tokens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str()),
        )
        .collect();
    let expected = &fixture["expected"];
    let finished = expected["views"][0]["status"] == json!("finished");
    for (i, token) in tokens.iter().enumerate() {
        let view = app.view(id, *token).await;
        assert_contains(&view, &expected["views"][i], &format!("{name} view {i}"));
        let mut log = expected["logs"][i].clone();
        if !finished {
            // The one deliberate change: a format-1 hash would give hidden cards away, so
            // while such a game is played its links are no longer shown.
            for event in log.as_array_mut().unwrap() {
                event.as_object_mut().unwrap().remove("hash");
            }
        }
        let actual = Value::Array(app.all_events(id, *token).await);
        assert_contains(&actual, &log, &format!("{name} log {i}"));
        if !finished {
            assert!(
                actual
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|e| e.get("hash").is_none()),
                "{name}: a format-1 hash is shown during play"
            );
        }
    }
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    let mut old = expected["audit"].clone();
    if !finished {
        assert_eq!(audit["head_hash"], Value::Null, "{name}: {audit}");
        old.as_object_mut().unwrap().remove("head_hash");
    }
    assert_contains(&audit, &old, &format!("{name} audit"));
    assert_eq!(audit["chain"], json!(1));
    assert_eq!(audit["failures"], json!([]), "{name}: {audit}");
}

async fn old_logs_come_through_the_migrations_with_the_same_views_and_audit(backend: Backend) {
    let (url, guard) = fresh_database(backend).await;
    old_schema(backend, &url).await;
    let fixtures: Vec<(String, Value)> = fixture_files()
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("fixture");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            (name, serde_json::from_str(&text).expect("fixture JSON"))
        })
        .collect();
    for (_, fixture) in &fixtures {
        insert_old_rows(backend, &url, fixture).await;
    }
    // Starting the new server migrates the old database, data and all.
    let app = spawn_app_on(&url, guard).await;
    for (name, fixture) in &fixtures {
        check_fixture(&app, name, fixture).await;
    }
    // An old game in progress goes on under its own format, and still audits clean.
    let (name, fixture) = fixtures
        .iter()
        .find(|(name, _)| name.starts_with("girl-2p-unfinished"))
        .expect("an unfinished GIRL fixture");
    let id = fixture["record"]["id"].as_str().unwrap();
    let tokens: Vec<String> = fixture["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(1);
    crate::client::random_move(&app, id, &tokens, &mut rng, |_| true)
        .await
        .expect("the old game takes a move");
    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["chain_ok"], json!(true), "{name}: {audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{name}: {audit}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_old_logs_come_through_the_migrations_with_the_same_views_and_audit() {
    old_logs_come_through_the_migrations_with_the_same_views_and_audit(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_old_logs_come_through_the_migrations_with_the_same_views_and_audit() {
    old_logs_come_through_the_migrations_with_the_same_views_and_audit(Backend::Postgres).await;
}

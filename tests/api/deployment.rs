//! What a deployment relies on: TLS to a managed Postgres, and the container's health check.

use std::process::Command;

use parlour::store::{self, DbSettings};

use crate::helpers::{fresh_database, spawn_app, spawn_app_with, Backend};

#[tokio::test]
async fn the_store_connects_to_a_postgres_that_requires_tls() {
    let (url, _guard) = fresh_database(Backend::Postgres).await;
    let tcp_url = crate::pg_server::source().unwrap().over_tcp(&url);
    let separator = if tcp_url.contains('?') { '&' } else { '?' };
    let tls_url = format!("{tcp_url}{separator}sslmode=require");
    let store = store::connect_with(&tls_url, &DbSettings::default())
        .await
        .expect("sslmode=require connects (sqlx is built with rustls)");
    store.ping().await.expect("the store answers over TLS");

    // The server itself says the store's sessions are encrypted.
    let database = &crate::pg_server::database_name(&url);
    let admin = sqlx::PgPool::connect(&url).await.unwrap();
    let (encrypted,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) \
         WHERE datname = $1 AND ssl",
    )
    .bind(database)
    .fetch_one(&admin)
    .await
    .unwrap();
    assert!(encrypted >= 1, "no TLS session to {database}");
}

// Busy, an instance holds its share of connections and no more: many instances share the
// server's `max_connections`, and one that took more than its share would lock the rest out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_server_holds_no_more_postgres_connections_than_its_share() {
    const SHARE: u32 = 3;
    // Beyond the pool: the bus's LISTEN connection and the leader's lease, held apart from it.
    const APART: i64 = 2;
    let (url, guard) = fresh_database(Backend::Postgres).await;
    let settings = parlour::startup::Settings {
        db: DbSettings {
            max_connections: SHARE,
            ..DbSettings::default()
        },
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        ..parlour::startup::Settings::default()
    };
    let app = spawn_app_with(&url, guard, settings).await;
    let database = crate::pg_server::database_name(&url);
    let mut watcher = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();

    let game = serde_json::json!({"game": "girl", "players": [{"name": "Ann"}, {"name": "Bea"}]});
    let creations = (0..40).map(|_| app.post("/v1/games", None, &game));
    let busy = futures_util::future::join_all(creations);
    tokio::pin!(busy);
    let mut most = 0;
    let answers = loop {
        tokio::select! {
            answers = &mut busy => break answers,
            held = held_connections(&mut watcher, &database) => most = most.max(held),
        }
    };
    most = most.max(held_connections(&mut watcher, &database).await);

    assert!(answers.iter().all(|(status, _)| status.is_success()));
    assert!(
        most <= i64::from(SHARE) + APART,
        "{most} connections held with a share of {SHARE}"
    );
}

/// Connections to `database` but the watcher's own.
async fn held_connections(watcher: &mut sqlx::PgConnection, database: &str) -> i64 {
    let (held,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(database)
    .fetch_one(watcher)
    .await
    .unwrap();
    held
}

// Two workers: the check is a blocking child process, and the server must answer meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_passes_for_a_ready_server_and_fails_without_one() {
    let app = spawn_app(Backend::Sqlite).await;
    let addr = app.address.trim_start_matches("http://");
    let healthy = Command::new(env!("CARGO_BIN_EXE_parlour"))
        .args(["--addr", addr, "healthcheck"])
        .output()
        .unwrap();
    assert!(
        healthy.status.success(),
        "{}",
        String::from_utf8_lossy(&healthy.stderr)
    );

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nobody = closed.local_addr().unwrap().to_string();
    drop(closed);
    let unhealthy = Command::new(env!("CARGO_BIN_EXE_parlour"))
        .args(["--addr", &nobody, "healthcheck"])
        .output()
        .unwrap();
    assert!(!unhealthy.status.success());
    assert!(String::from_utf8_lossy(&unhealthy.stderr).contains("cannot reach"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_asks_for_idle_games_to_be_abandoned_from_the_command_line() {
    let app = spawn_app(Backend::Sqlite).await;
    let (id, _) = app
        .create_game("girl", 2, None, serde_json::json!({}))
        .await;
    let run = |days: &str| {
        Command::new(env!("CARGO_BIN_EXE_parlour"))
            .args([
                "--database-url",
                &app.database_url,
                "abandon-idle",
                "--days",
                days,
                "--dry-run",
            ])
            .output()
            .unwrap()
    };
    // The game was created a moment ago: nothing is idle for a day.
    let listed = run("1");
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&listed.stdout), "");
    assert!(String::from_utf8_lossy(&listed.stderr).contains("0 idle game(s) would be"));
    assert_eq!(app.view(&id, None).await["status"], "active");
    // No idle time is no command.
    assert!(!run("0").status.success());
}

#[test]
fn a_server_that_cannot_have_its_address_creates_no_file() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("parlour.db");
    let key = dir.path().join("parlour-signing.key");
    let failed = Command::new(env!("CARGO_BIN_EXE_parlour"))
        .args(["--addr", &address])
        .arg("--database-url")
        .arg(format!("sqlite://{}", database.display()))
        .arg("--signing-key-file")
        .arg(&key)
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    assert!(!failed.status.success());
    assert!(
        String::from_utf8_lossy(&failed.stdout).contains(&address)
            || String::from_utf8_lossy(&failed.stderr).contains(&address),
        "the failure names the address"
    );
    assert!(!database.exists(), "a database was created");
    assert!(!key.exists(), "a signing key was created");
}

// An operator reads the docs, not the source: a setting nobody wrote down is one nobody sets.
#[test]
fn every_setting_parlour_takes_is_written_down_in_the_docs() {
    let mut docs = include_str!("../../README.md").to_string();
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    let mut undocumented = Vec::new();
    for command in [&["--help"][..], &["abandon-idle", "--help"]] {
        let help = Command::new(env!("CARGO_BIN_EXE_parlour"))
            .args(command)
            .output()
            .unwrap();
        let help = String::from_utf8(help.stdout).unwrap();
        for flag in help
            .split_whitespace()
            .filter(|word| word.starts_with("--") && word.len() > 2)
            .map(|word| word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
            .filter(|flag| !["--help", "--version"].contains(flag))
        {
            if !docs.contains(&format!("`{flag}")) && !docs.contains(&format!("{flag} ")) {
                undocumented.push(flag.to_string());
            }
        }
    }
    assert!(undocumented.is_empty(), "not in the docs: {undocumented:?}");
}

//! What a deployment relies on: TLS to a managed Postgres, and the container's health check.

use std::process::Command;

use parlour::store::{self, DbSettings};

use crate::helpers::{fresh_database, spawn_app, Backend};

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

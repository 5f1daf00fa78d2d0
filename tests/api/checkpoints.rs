//! Signed checkpoints of finished games and their public list (issue 35, item 10): a finished
//! game rolled back in the database, as an attacker with the database would do it, is caught
//! by anyone who saw its checkpoint once, and by the server's own audit while the list is
//! left alone.

use parlour::receipts::{verify_checkpoint, Checkpoint};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::client::{play_random_game, Watch};
use crate::helpers::TestApp;
use crate::on_both_backends;

/// Runs `sql` on the test's database as an attacker with the database would: with every
/// trigger out of the way (Postgres: as a replica, which fires none; SQLite: dropped).
pub(crate) async fn as_an_attacker(app: &TestApp, sql: &str) {
    if app.database_url.starts_with("postgres") {
        let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
        let mut conn = pool.acquire().await.unwrap();
        sqlx::query("SET session_replication_role = replica")
            .execute(&mut *conn)
            .await
            .unwrap();
        sqlx::raw_sql(sql).execute(&mut *conn).await.unwrap();
    } else {
        let pool = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
        for trigger in [
            "events_no_update",
            "events_no_delete",
            "game_heads_forward",
            "game_heads_no_delete",
            "checkpoints_no_update",
            "checkpoints_no_delete",
        ] {
            sqlx::query(&format!("DROP TRIGGER IF EXISTS {trigger}"))
                .execute(&pool)
                .await
                .unwrap();
        }
        sqlx::raw_sql(sql).execute(&pool).await.unwrap();
    }
}

/// The server's public key, as published.
async fn public_key(app: &TestApp) -> [u8; 32] {
    let (_, keys) = app.get("/.well-known/parlour-keys", None).await;
    hex::decode(keys["keys"][0]["public_key"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

/// Deletes the finished game's last batch and moves its recorded end back to the event before
/// it: the rollback the append-only triggers and `game_heads` alone do not catch. Returns the
/// seq the log now ends at.
pub(crate) async fn roll_back_the_last_batch(app: &TestApp, id: &str) -> u64 {
    let uuid = id.parse().unwrap();
    let events = app.store.events(uuid, 0, None).await.unwrap();
    let last_batch = events
        .iter()
        .rev()
        .find(|e| e.command.is_some())
        .map(|e| e.seq)
        .expect("a move");
    let new_end = &events[(last_batch - 2) as usize];
    as_an_attacker(
        app,
        &format!(
            "DELETE FROM events WHERE game_id = '{id}' AND seq >= {last_batch}; \
             UPDATE game_heads SET version = {}, head_hash = '{}' WHERE game_id = '{id}';",
            new_end.seq, new_end.hash
        ),
    )
    .await;
    new_end.seq
}

/// Once a game ends its audit carries the server's signed checkpoint of the end, the same as
/// its file's and as the public list's entry for it; after the game is rolled back in the
/// database (its last batch deleted and its recorded end moved back, so the log and the
/// store's own record of its end agree again), the audit names the rollback, and the list
/// still shows the end that was signed.
async fn a_finished_game_rolled_back_in_the_database_is_caught_by_its_checkpoint(app: TestApp) {
    let played = play_random_game(&app, "girl", 2, json!({}), 35, Watch::Play, 20_000).await;
    let id = played.id.clone();
    let view = app.view(&id, None).await;
    assert_eq!(view["status"], json!("finished"));
    let end = view["version"].as_u64().unwrap();

    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["failures"], json!([]), "{audit}");
    let saved = audit["checkpoint"].clone();
    let checkpoint: Checkpoint = serde_json::from_value(saved.clone()).unwrap();
    assert_eq!(checkpoint.game.to_string(), id);
    assert_eq!(checkpoint.seq, end);
    assert_eq!(json!(checkpoint.hash), audit["head_hash"]);
    assert!(checkpoint.finished);
    assert!(verify_checkpoint(&public_key(&app).await, &checkpoint));

    let (status, file) = app.get(&format!("/v1/games/{id}/file"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(file["checkpoint"], saved);
    let listed = listed_checkpoint(&app, &id).await.expect("listed");
    assert_eq!(listed_without_position(&listed), saved);

    let rolled_back_to = roll_back_the_last_batch(&app, &id).await;
    let fresh = app.restart().await;
    // The rollback took: the game is being played again, as far as the database says.
    assert_eq!(
        fresh.view(&id, None).await["version"],
        json!(rolled_back_to)
    );
    let (_, audit) = fresh.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["chain_ok"], json!(false), "{audit}");
    let failures = audit["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{audit}");
    assert_eq!(failures[0]["check"], json!("checkpoint"));
    assert_eq!(failures[0]["seq"], json!(end));
    assert!(
        failures[0]["detail"]
            .as_str()
            .unwrap()
            .contains("a finished game was rolled back"),
        "{audit}"
    );
    // The audit and the list still give the end that was signed.
    assert_eq!(audit["checkpoint"], saved);
    let listed = listed_checkpoint(&fresh, &id).await.expect("still listed");
    assert_eq!(listed_without_position(&listed), saved);
}

/// The list is append-only: the database refuses to change or remove an entry unless its
/// triggers are put out of the way, and a removed entry leaves a gap in the numbering that
/// a mirror sees.
async fn the_list_of_checkpoints_is_append_only_and_numbered_without_gaps(app: TestApp) {
    let mut ids = Vec::new();
    for seed in 0..3 {
        let played =
            play_random_game(&app, "girl", 2, json!({}), 350 + seed, Watch::Play, 20_000).await;
        ids.push(played.id);
    }
    let (status, page) = app.get("/v1/checkpoints?after=0&limit=2", None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let positions: Vec<u64> = page["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["position"].as_u64().unwrap())
        .collect();
    assert_eq!(positions, [1, 2]);
    assert_eq!(page["next_after"], json!(2));
    let (_, rest) = app.get("/v1/checkpoints?after=2", None).await;
    assert_eq!(rest["checkpoints"].as_array().unwrap().len(), 1, "{rest}");
    assert_eq!(rest["next_after"], Value::Null);
    let games: Vec<Value> = page["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .chain(rest["checkpoints"].as_array().unwrap())
        .map(|c| c["game"].clone())
        .collect();
    assert_eq!(games, ids.iter().map(|id| json!(id)).collect::<Vec<_>>());

    // Bad paging is a clear 400 and changes nothing.
    for bad in [
        "limit=0",
        "limit=1001",
        "after=-1",
        "after=x",
        "after=9223372036854775808",
    ] {
        let res = app
            .request(
                reqwest::Method::GET,
                &format!("/v1/checkpoints?{bad}"),
                None,
                None,
            )
            .await;
        crate::helpers::assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    }

    // The store itself refuses to change or remove an entry.
    let refused = |sql: String| {
        let url = app.database_url.clone();
        async move {
            if url.starts_with("postgres") {
                let pool = sqlx::PgPool::connect(&url).await.unwrap();
                sqlx::query(&sql).execute(&pool).await.is_err()
            } else {
                let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
                sqlx::query(&sql).execute(&pool).await.is_err()
            }
        }
    };
    assert!(refused("DELETE FROM checkpoints WHERE position = 2".into()).await);
    assert!(refused("UPDATE checkpoints SET seq = 1 WHERE position = 2".into()).await);

    // Removed behind the triggers' back, an entry leaves a gap that a mirror sees.
    as_an_attacker(&app, "DELETE FROM checkpoints WHERE position = 2").await;
    let (_, page) = app.get("/v1/checkpoints", None).await;
    let positions: Vec<u64> = page["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["position"].as_u64().unwrap())
        .collect();
    assert_eq!(positions, [1, 3]);
}

/// The game's entry in the public list, if it has one.
pub(crate) async fn listed_checkpoint(app: &TestApp, id: &str) -> Option<Value> {
    let (status, page) = app.get("/v1/checkpoints?limit=1000", None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["game"] == json!(id))
        .cloned()
}

fn listed_without_position(listed: &Value) -> Value {
    let mut checkpoint = listed.clone();
    checkpoint.as_object_mut().unwrap().remove("position");
    checkpoint
}

on_both_backends!(
    a_finished_game_rolled_back_in_the_database_is_caught_by_its_checkpoint,
    the_list_of_checkpoints_is_append_only_and_numbered_without_gaps,
);

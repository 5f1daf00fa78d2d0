//! The event store itself: append-only, and one writer wins each position.

use chrono::Utc;
use reqwest::StatusCode;
use serde_json::json;

use parlour::store::{StoreError, StoredEvent};

use crate::helpers::TestApp;
use crate::on_both_backends;

async fn the_event_log_refuses_updates_and_deletes(app: TestApp) {
    let (id, _) = app.create_game("girl", 2, None, json!({})).await;
    let statements = if app.database_url.starts_with("sqlite") {
        vec![
            format!("UPDATE events SET data = '{{}}' WHERE game_id = '{id}'"),
            format!("DELETE FROM events WHERE game_id = '{id}'"),
        ]
    } else {
        vec![
            format!("UPDATE events SET data = '{{}}' WHERE game_id = '{id}'"),
            format!("DELETE FROM events WHERE game_id = '{id}'"),
            "TRUNCATE events CASCADE".to_string(),
        ]
    };
    for sql in statements {
        let result = if app.database_url.starts_with("sqlite") {
            let pool = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
            sqlx::query(&sql).execute(&pool).await.map(|_| ())
        } else {
            let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
            sqlx::query(&sql).execute(&pool).await.map(|_| ())
        };
        let error = result.expect_err(&sql).to_string();
        assert!(error.contains("append-only"), "{sql}: {error}");
    }
    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["chain_ok"], json!(true));
}

async fn two_appends_at_the_same_position_leave_exactly_one(app: TestApp) {
    let (id, _) = app.create_game("girl", 2, None, json!({})).await;
    let id = uuid::Uuid::parse_str(&id).unwrap();
    let version = app.store.events(id, 0, None).await.unwrap().len() as u64;
    let event = |tag: &str| StoredEvent {
        seq: version + 1,
        kind: "note".into(),
        actor: Some(0),
        data: json!({"tag": tag}),
        command: None,
        at: Utc::now(),
        sealed: None,
        prev_hash: "x".into(),
        hash: tag.into(),
    };
    let (a, b) = (event("a"), event("b"));
    let (ra, rb) = tokio::join!(
        app.store.append(id, std::slice::from_ref(&a), None),
        app.store.append(id, std::slice::from_ref(&b), None)
    );
    let results = [ra, rb];
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
    assert!(results
        .iter()
        .any(|r| matches!(r, Err(StoreError::Conflict))));
    assert_eq!(app.store.events(id, version, None).await.unwrap().len(), 1);
    // The audit notices the foreign event.
    let (status, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(audit["chain_ok"], json!(false));
    assert_eq!(audit["failures"][0]["seq"], json!(version + 1));
}

on_both_backends!(
    the_event_log_refuses_updates_and_deletes,
    two_appends_at_the_same_position_leave_exactly_one
);

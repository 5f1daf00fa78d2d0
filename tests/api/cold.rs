//! Cold games (issue 16): the cache of games kept within a byte budget, least recently used
//! first, and long games loaded from a snapshot the log vouches for.

use std::time::Duration;

use parlour::service::{estimated_bytes, CacheSettings};
use parlour::startup::Settings;
use parlour::store::SnapshotRecord;
use parlour_domain::playout::instantiate;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::StatusCode;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::on_both_backends;

fn settings(budget_bytes: usize, snapshot_every: u64) -> Settings {
    Settings {
        cache: CacheSettings {
            budget_bytes,
            snapshot_every,
        },
        ..Settings::default()
    }
}

/// One move in the game, by the first seat to act, picked from its legal actions; the new
/// version, or `None` once the game is over.
async fn one_move(app: &TestApp, id: &str, tokens: &[String], rng: &mut ChaCha8Rng) -> Option<u64> {
    let public = app.view(id, None).await;
    if public["status"] == json!("finished") {
        return None;
    }
    let seat = public["to_act"][0].as_u64().unwrap() as usize;
    let mine = app.view(id, Some(&tokens[seat])).await;
    let offered = mine["legal_actions"].as_array().unwrap();
    let pick = rand_core::RngCore::next_u32(rng) as usize % offered.len();
    let action = instantiate(&offered[pick], rng);
    let (status, view) = app.act(id, &tokens[seat], &action).await;
    assert_eq!(status, StatusCode::OK, "{action}: {view}");
    Some(view["version"].as_u64().unwrap())
}

/// Every seat's view and the spectator's.
async fn every_view(app: &TestApp, id: &str, tokens: &[String]) -> Vec<Value> {
    let mut views = vec![app.view(id, None).await];
    for token in tokens {
        views.push(app.view(id, Some(token)).await);
    }
    views
}

/// A metric's value on `/metrics`.
async fn metric(app: &TestApp, name: &str) -> f64 {
    let page = app
        .client
        .get(format!("{}/metrics", app.address))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    page.lines()
        .find_map(|line| line.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} in {page}"))
        .parse()
        .unwrap()
}

/// A budget that holds about three short games: creating eight drops the least recently
/// used, and every game, dropped or not, is served and moved exactly as the log says, its
/// long-poll answered although the cache churned around it.
async fn a_small_budget_drops_games_and_serves_them_again(app: TestApp) {
    let budget = 3 * estimated_bytes(8);
    let small = app.restart_with(settings(budget, 0)).await;
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut games = Vec::new();
    for _ in 0..8 {
        games.push(small.create_game("girl", 2, None, json!({})).await);
    }
    assert!(metric(&small, "parlour_games_cached").await <= 4.0);
    assert!(metric(&small, "parlour_cache_bytes").await <= budget as f64);
    assert_eq!(
        metric(&small, "parlour_cache_budget_bytes").await,
        budget as f64
    );
    assert!(metric(&small, "parlour_resident_memory_bytes").await > 0.0);

    // A long-poll on the first game, dropped long ago, holds its slot's watch channel:
    // however the cache churns meanwhile, the move below wakes it.
    let (first, first_tokens) = games[0].clone();
    let known = small.view(&first, None).await["version"].as_u64().unwrap();
    let poll = {
        let client = small.client.clone();
        let url = format!("{}/v1/games/{first}?wait=30", small.address);
        tokio::spawn(async move {
            let started = tokio::time::Instant::now();
            let res = client
                .get(url)
                .header("If-None-Match", format!("\"{known}\""))
                .send()
                .await
                .unwrap();
            let status = res.status();
            let view: Value = res.json().await.unwrap();
            (status, view, started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Moves in every game, round after round: each touch loads a dropped game again.
    let reference = app.restart_with(settings(usize::MAX, 0)).await;
    for round in 0..3 {
        for (id, tokens) in games.iter().skip(1) {
            if let Some(version) = one_move(&small, id, tokens, &mut rng).await {
                // A server that never dropped anything agrees, seat by seat.
                assert_eq!(
                    every_view(&small, id, tokens).await,
                    every_view(&reference, id, tokens).await,
                    "round {round}, game {id} at {version}"
                );
            }
        }
        assert!(metric(&small, "parlour_cache_bytes").await <= budget as f64);
    }
    let moved = one_move(&small, &first, &first_tokens, &mut rng)
        .await
        .unwrap();
    let (status, view, waited) = poll.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(view["version"], json!(moved));
    assert!(waited < Duration::from_secs(30));
    assert_eq!(
        every_view(&small, &first, &first_tokens).await,
        every_view(&reference, &first, &first_tokens).await
    );
}

/// Plays `moves` moves of a two-player GOOGLY match through `app`.
async fn googly_match(app: &TestApp, moves: usize) -> (String, Vec<String>) {
    let (id, tokens) = app.create_game("googly", 2, None, json!({})).await;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..moves {
        if one_move(app, &id, &tokens, &mut rng).await.is_none() {
            break;
        }
    }
    (id, tokens)
}

/// Waits until the game's latest snapshot is at least at `version` (they are written by a
/// task of their own after the move's answer).
async fn snapshot_at_least(app: &TestApp, id: Uuid, version: u64) -> SnapshotRecord {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(snapshot) = app.store.latest_snapshot(id).await.unwrap() {
            if snapshot.version >= version {
                return snapshot;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no snapshot at {version}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A GOOGLY match snapshotted every 10 entries: a restarted server that loads it from its
/// snapshot shows every seat what one that folds the whole log shows, and plays on the same.
async fn a_cold_match_from_its_snapshot_is_the_match_its_log_folds_to(app: TestApp) {
    let writer = app.restart_with(settings(usize::MAX, 10)).await;
    let (id, tokens) = googly_match(&writer, 60).await;
    let uuid = Uuid::parse_str(&id).unwrap();
    let version = writer.view(&id, None).await["version"].as_u64().unwrap();
    assert!(version > 30, "{version}");
    let snapshot = snapshot_at_least(&writer, uuid, version - 10).await;
    // Only the latest is kept.
    assert!(snapshot.version > 10);

    let cold = app.restart_with(settings(usize::MAX, 10)).await;
    let folded = app.restart_with(settings(usize::MAX, 0)).await;
    assert_eq!(
        every_view(&cold, &id, &tokens).await,
        every_view(&folded, &id, &tokens).await
    );
    // Both play on alike: a move through the cold server is seen the same by both.
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..5 {
        one_move(&cold, &id, &tokens, &mut rng).await;
        assert_eq!(
            every_view(&cold, &id, &tokens).await,
            every_view(&folded, &id, &tokens).await
        );
    }
    let (_, audit) = cold.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
}

/// Deletes every snapshot of the game (they are a cache: nothing is lost).
async fn forget_snapshots(app: &TestApp, id: &str) {
    let sql = format!("DELETE FROM snapshots WHERE game_id = '{id}'");
    if app.database_url.starts_with("sqlite") {
        let pool = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
        sqlx::query(&sql).execute(&pool).await.unwrap();
    } else {
        let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
        sqlx::query(&sql).execute(&pool).await.unwrap();
    }
}

/// A snapshot is used only where the log vouches for it: one whose hash is not the log's at
/// its version, of another rules version or format, or past the log's end, is passed over
/// for the log. Shown by planting, at the log's last entry, a snapshot taken earlier in the
/// match (a different table): with that entry's real hash, rules version and format it is
/// trusted (which shows that a cold server does read snapshots); with any of them wrong, the
/// cold server shows what the folded log does.
async fn a_snapshot_the_log_does_not_vouch_for_is_not_trusted(app: TestApp) {
    let writer = app.restart_with(settings(usize::MAX, 10)).await;
    let (id, tokens) = googly_match(&writer, 15).await;
    let uuid = Uuid::parse_str(&id).unwrap();
    let early = snapshot_at_least(&writer, uuid, 10).await;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..20 {
        if one_move(&writer, &id, &tokens, &mut rng).await.is_none() {
            break;
        }
    }
    let head = writer.view(&id, None).await["version"].as_u64().unwrap();
    assert!(head > early.version, "{head}");
    let last = app.store.events(uuid, head - 1, Some(1)).await.unwrap();
    let (real_hash, prev_hash) = (last[0].hash.clone(), last[0].prev_hash.clone());
    let plant = |hash: &str, rules_version: u32, format: u32, version: u64| SnapshotRecord {
        game: uuid,
        version,
        hash: hash.to_string(),
        rules_version,
        format,
        state: early.state.clone(),
        created_at: early.created_at,
    };
    let folded = every_view(
        &app.restart_with(settings(usize::MAX, 0)).await,
        &id,
        &tokens,
    )
    .await;
    let (rules, format) = (early.rules_version, early.format);

    // Vouched for by the log: trusted, although it is in truth an earlier table.
    forget_snapshots(&app, &id).await;
    app.store
        .save_snapshot(&plant(&real_hash, rules, format, head))
        .await
        .unwrap();
    let trusting = app.restart_with(settings(usize::MAX, 10)).await;
    assert_ne!(every_view(&trusting, &id, &tokens).await, folded);

    for (n, planted) in [
        plant("not-the-log's-hash", rules, format, head),
        plant(&prev_hash, rules, format, head),
        plant(&real_hash, rules + 1, format, head),
        plant(&real_hash, rules, format + 1, head),
        plant(&real_hash, rules, format, head + 100),
    ]
    .into_iter()
    .enumerate()
    {
        forget_snapshots(&app, &id).await;
        app.store.save_snapshot(&planted).await.unwrap();
        let cold = app.restart_with(settings(usize::MAX, 10)).await;
        assert_eq!(every_view(&cold, &id, &tokens).await, folded, "planted {n}");
    }
}

on_both_backends!(
    a_small_budget_drops_games_and_serves_them_again,
    a_cold_match_from_its_snapshot_is_the_match_its_log_folds_to,
    a_snapshot_the_log_does_not_vouch_for_is_not_trusted,
);

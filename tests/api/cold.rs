//! Cold games (issue 16): the cache of games kept within a byte budget, least recently used
//! first, and long games loaded from a snapshot the log vouches for.

use std::time::Duration;

use parlour::service::{estimated_bytes, snapshot_mac, CacheSettings, SNAPSHOT_KEY_PURPOSE};
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
    // Planted with the server's own key: these are the checks a snapshot passes besides its
    // MAC (which an attacker without the key cannot make: see the test after this one).
    let key = app.signer().derive_key(SNAPSHOT_KEY_PURPOSE);
    let plant = |hash: &str, rules_version: u32, format: u32, version: u64| {
        let mut planted = SnapshotRecord {
            game: uuid,
            version,
            hash: hash.to_string(),
            rules_version,
            format,
            state: early.state.clone(),
            created_at: early.created_at,
            mac: None,
        };
        planted.mac = Some(snapshot_mac(&key, &planted));
        planted
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

    let vouched = plant(&real_hash, rules, format, head);
    for (n, planted) in [
        // Vouched for by the log, but not by the server's MAC: none, or one of another snapshot.
        SnapshotRecord {
            mac: None,
            ..vouched.clone()
        },
        SnapshotRecord {
            mac: early.mac.clone(),
            ..vouched.clone()
        },
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

/// Runs one SQL statement on the test's database, as someone with the database but not the
/// server's key would.
async fn execute(app: &TestApp, sql: &str, text: &str) {
    if app.database_url.starts_with("sqlite") {
        let pool = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
        sqlx::query(sql).bind(text).execute(&pool).await.unwrap();
    } else {
        let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
        sqlx::query(sql).bind(text).execute(&pool).await.unwrap();
    }
}

/// The attack of issue 35 (item 9): someone with the database edits the stored snapshot of a
/// match in play, keeping its version, hash and MAC, so that it holds an earlier table. The
/// log still vouches for the entry it names, so before snapshots carried a MAC a cold server
/// served the edited table. Now the server folds the log instead, every seat sees what the
/// log says, and the audit names the snapshot.
async fn an_edited_snapshot_is_not_served_and_the_audit_reports_it(app: TestApp) {
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
    // The writer's last snapshot, the only one within 10 entries of the head: none is written
    // after it, so the row edited below stays the one stored.
    let latest = snapshot_at_least(&writer, uuid, head - 9).await;
    assert!(latest.version > early.version, "{}", latest.version);
    let (_, clean) = writer.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(clean["failures"], json!([]), "{clean}");
    let folded = every_view(
        &app.restart_with(settings(usize::MAX, 0)).await,
        &id,
        &tokens,
    )
    .await;

    execute(
        &app,
        &format!("UPDATE snapshots SET state = $1 WHERE game_id = '{id}'"),
        &early.state,
    )
    .await;
    let edited = app.store.latest_snapshot(uuid).await.unwrap().unwrap();
    assert_eq!(
        (edited.version, &edited.hash, &edited.mac, &edited.state),
        (latest.version, &latest.hash, &latest.mac, &early.state)
    );

    // Audited first by a server that writes no snapshots, so the edited row is still the one
    // stored (a cold server that folds the log writes a fresh snapshot after it).
    let auditor = app.restart_with(settings(usize::MAX, 0)).await;
    let (status, audit) = auditor.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(status, StatusCode::OK);
    let cold = app.restart_with(settings(usize::MAX, 10)).await;
    assert_eq!(every_view(&cold, &id, &tokens).await, folded);
    let failures = audit["failures"].as_array().unwrap();
    let about_the_snapshot: Vec<&Value> = failures
        .iter()
        .filter(|f| f["check"] == json!("snapshot"))
        .collect();
    assert_eq!(about_the_snapshot.len(), 2, "{audit}");
    assert!(about_the_snapshot
        .iter()
        .all(|f| f["seq"] == json!(latest.version)));
    let details: Vec<&str> = about_the_snapshot
        .iter()
        .map(|f| f["detail"].as_str().unwrap())
        .collect();
    assert!(
        details[0].contains("does not carry the server's MAC"),
        "{details:?}"
    );
    assert!(
        details[1].contains("not the table the log folds to"),
        "{details:?}"
    );
    // The log itself is untouched.
    assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    assert_eq!(audit["replay_ok"], json!(true), "{audit}");
}

/// A snapshot changed with its MAC made to match (as only the key's holder could) is still
/// caught by the audit, which folds the log and compares the tables.
async fn the_audit_compares_a_snapshot_with_the_table_the_log_folds_to(app: TestApp) {
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
    let latest = snapshot_at_least(&writer, uuid, head - 9).await;
    assert!(latest.version > early.version, "{}", latest.version);
    let mut forged = SnapshotRecord {
        state: early.state.clone(),
        ..latest.clone()
    };
    forged.mac = Some(snapshot_mac(
        &app.signer().derive_key(SNAPSHOT_KEY_PURPOSE),
        &forged,
    ));
    execute(
        &app,
        &format!("UPDATE snapshots SET state = $1 WHERE game_id = '{id}'"),
        &early.state,
    )
    .await;
    execute(
        &app,
        &format!("UPDATE snapshots SET mac = $1 WHERE game_id = '{id}'"),
        forged.mac.as_deref().unwrap(),
    )
    .await;
    let (_, audit) = writer.get(&format!("/v1/games/{id}/audit"), None).await;
    let failures = audit["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{audit}");
    assert_eq!(failures[0]["check"], json!("snapshot"));
    assert_eq!(failures[0]["seq"], json!(latest.version));
    assert!(
        failures[0]["detail"]
            .as_str()
            .unwrap()
            .contains("not the table the log folds to"),
        "{audit}"
    );
}

on_both_backends!(
    an_edited_snapshot_is_not_served_and_the_audit_reports_it,
    the_audit_compares_a_snapshot_with_the_table_the_log_folds_to,
    a_small_budget_drops_games_and_serves_them_again,
    a_cold_match_from_its_snapshot_is_the_match_its_log_folds_to,
    a_snapshot_the_log_does_not_vouch_for_is_not_trusted,
);

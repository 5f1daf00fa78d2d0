//! The event store itself: append-only, and one writer wins each position; a feed of every
//! commit that followers read without missing one; an outbox written with the events; and
//! one leader per name across instances.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use reqwest::StatusCode;
use serde_json::json;
use sha2::Digest;
use uuid::Uuid;

use parlour::store::{
    self, Committed, EventStore, FeedCursor, OutboxMessage, StoreError, StoredEvent,
};

use crate::helpers::{fresh_database, Backend, TestApp};
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
        version: 1,
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

/// A note event at `seq` of a game's log (the store does not read what it holds).
fn note(seq: u64, tag: &str) -> StoredEvent {
    StoredEvent {
        seq,
        kind: "note".into(),
        actor: None,
        data: json!({"tag": tag}),
        command: None,
        at: store::now(),
        sealed: None,
        prev_hash: "x".into(),
        hash: format!("{tag}-{seq}"),
        version: 1,
    }
}

/// A new game and the length of its log.
async fn game_with_log(app: &TestApp) -> (Uuid, u64) {
    let (id, _) = app.create_game("girl", 2, None, json!({})).await;
    let id = Uuid::parse_str(&id).unwrap();
    let version = app.store.head(id).await.unwrap().unwrap().0;
    (id, version)
}

/// Follows the feed from `cursor` (moving it on) until `want` notes have come, or fails after
/// a while, and returns the notes (the games' own opening events are passed over). Postgres
/// holds the feed back behind any transaction still in flight on the server, other tests'
/// included, so entries may come a little late.
async fn follow(
    store: &dyn EventStore,
    cursor: &mut FeedCursor,
    want: usize,
    page: u64,
) -> Vec<Committed> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    while seen.len() < want {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the follower saw {} of {want} commits: {seen:?}",
            seen.len()
        );
        let page = store.committed_since(*cursor, page).await.unwrap();
        match page.last() {
            Some(last) => *cursor = last.cursor(),
            None => tokio::time::sleep(Duration::from_millis(50)).await,
        }
        seen.extend(page.into_iter().filter(|c| c.kind == "note"));
    }
    seen
}

async fn events_carry_their_version_and_feed_positions_increase(app: TestApp) {
    let (a, va) = game_with_log(&app).await;
    let (b, vb) = game_with_log(&app).await;
    let start = app.store.latest_position().await.unwrap();
    app.store
        .append(a, &[note(va + 1, "a"), note(va + 2, "a")], None)
        .await
        .unwrap();
    app.store
        .append(b, &[note(vb + 1, "b")], None)
        .await
        .unwrap();
    app.store
        .append(a, &[note(va + 3, "a")], None)
        .await
        .unwrap();
    let stored = app.store.events(a, va, None).await.unwrap();
    assert!(stored.iter().all(|e| e.version == 1), "{stored:?}");

    let mut cursor = start;
    let seen = follow(app.store.as_ref(), &mut cursor, 4, 100).await;
    let order: Vec<(Uuid, u64)> = seen.iter().map(|c| (c.game, c.seq)).collect();
    assert_eq!(
        order,
        vec![(a, va + 1), (a, va + 2), (b, vb + 1), (a, va + 3)]
    );
    assert!(
        seen.windows(2).all(|w| w[0].position < w[1].position),
        "{seen:?}"
    );
    assert!(seen.iter().all(|c| c.kind == "note"));
    assert_eq!(app.store.latest_position().await.unwrap(), cursor);
    assert!(app
        .store
        .committed_since(cursor, 100)
        .await
        .unwrap()
        .is_empty());
}

async fn a_follower_sees_every_commit_of_concurrent_writers_exactly_once(app: TestApp) {
    let mut games = Vec::new();
    for _ in 0..4 {
        games.push(game_with_log(&app).await);
    }
    let mut cursor = app.store.latest_position().await.unwrap();
    let writers = games.iter().map(|&(id, version)| {
        let store = app.store.clone();
        tokio::spawn(async move {
            let mut written = Vec::new();
            for n in 0..5 {
                let first = version + 1 + 2 * n;
                store
                    .append(id, &[note(first, "w"), note(first + 1, "w")], None)
                    .await
                    .unwrap();
                written.extend([(id, first), (id, first + 1)]);
            }
            written
        })
    });
    let writers: Vec<_> = writers.collect();
    // The follower reads while they write, a few entries at a time.
    let follower = {
        let store = app.store.clone();
        tokio::spawn(async move {
            let seen = follow(store.as_ref(), &mut cursor, 40, 3).await;
            (seen, cursor)
        })
    };
    let mut written = BTreeSet::new();
    for writer in writers {
        written.extend(writer.await.unwrap());
    }
    let (seen, cursor) = follower.await.unwrap();
    let got: Vec<(Uuid, u64)> = seen.iter().map(|c| (c.game, c.seq)).collect();
    assert_eq!(got.len(), 40, "{got:?}");
    assert_eq!(got.iter().copied().collect::<BTreeSet<_>>(), written);
    let positions: HashSet<u64> = seen.iter().map(|c| c.position).collect();
    assert_eq!(positions.len(), 40, "a position was given twice");
    for (id, _) in &games {
        let seqs: Vec<u64> = got.iter().filter(|c| c.0 == *id).map(|c| c.1).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    }
    assert!(app
        .store
        .committed_since(cursor, 100)
        .await
        .unwrap()
        .is_empty());
}

async fn the_outbox_is_written_with_the_events_or_not_at_all(app: TestApp) {
    let (id, version) = game_with_log(&app).await;
    let message = |payload: &str| OutboxMessage {
        topic: "test.atomic".into(),
        payload: payload.into(),
        only_if_webhooks_of: None,
    };
    app.store
        .append_with_outbox(
            id,
            &[note(version + 1, "a")],
            None,
            &[message("1"), message("2")],
        )
        .await
        .unwrap();
    // A conflicting append, with a key and a message, writes none of them.
    let key = parlour::store::IdempotentMove {
        seat: 0,
        key: "k".into(),
        fingerprint: "f".into(),
        version: version + 1,
        created_at: parlour::store::now(),
    };
    let lost = app
        .store
        .append_with_outbox(
            id,
            &[note(version + 1, "b")],
            Some(&key),
            &[message("lost")],
        )
        .await;
    assert!(matches!(lost, Err(StoreError::Conflict)), "{lost:?}");
    assert_eq!(app.store.idempotent_move(id, 0, "k").await.unwrap(), None);
    // The next append, with a key and a message, writes all of them.
    let key = parlour::store::IdempotentMove {
        version: version + 2,
        ..key
    };
    app.store
        .append_with_outbox(id, &[note(version + 2, "c")], Some(&key), &[message("3")])
        .await
        .unwrap();
    assert_eq!(
        app.store.idempotent_move(id, 0, "k").await.unwrap(),
        Some(key)
    );

    let claimed = app
        .store
        .claim_outbox(Some("test."), 10, Duration::from_secs(60))
        .await
        .unwrap();
    let payloads: Vec<&str> = claimed.iter().map(|m| m.payload.as_str()).collect();
    assert_eq!(payloads, ["1", "2", "3"]);
    assert!(claimed
        .iter()
        .all(|m| m.game == id && m.attempts == 1 && m.last_error.is_none()));
    assert!(claimed.iter().all(|m| m.topic == "test.atomic"));
    // Other topics are not given to a claimer of these.
    app.store
        .append_with_outbox(
            id,
            &[note(version + 3, "d")],
            None,
            &[OutboxMessage {
                topic: "other".into(),
                payload: "x".into(),
                only_if_webhooks_of: None,
            }],
        )
        .await
        .unwrap();
    let none = app
        .store
        .claim_outbox(Some("test."), 10, Duration::from_secs(60))
        .await
        .unwrap();
    assert!(none.is_empty(), "{none:?}");
    let other = app
        .store
        .claim_outbox(None, 10, Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(other.len(), 1);
    assert_eq!(other[0].topic, "other");
}

/// A group of appends (group commit) is judged append by append: one that collides writes
/// nothing of its own (events, key or outbox), and the rest of its group is written all the
/// same, each with its key and its messages.
async fn a_group_writes_every_append_but_the_one_that_collides(app: TestApp) {
    let games = [
        game_with_log(&app).await,
        game_with_log(&app).await,
        game_with_log(&app).await,
    ];
    let key = |(_, version): (Uuid, u64)| parlour::store::IdempotentMove {
        seat: 0,
        key: "k".into(),
        fingerprint: "f".into(),
        version: version + 1,
        created_at: store::now(),
    };
    let append = |(id, version): (Uuid, u64), seq: u64, tag: &str| store::Append {
        id,
        events: vec![note(seq, tag)],
        idempotent: Some(key((id, version))),
        outbox: vec![OutboxMessage {
            topic: "test.group".into(),
            payload: tag.into(),
            only_if_webhooks_of: None,
        }],
    };
    let [first, second, third] = games;
    // The second one's position is taken already: it was decided from an old head.
    let group = [
        append(first, first.1 + 1, "first"),
        append(second, second.1, "second"),
        append(third, third.1 + 1, "third"),
    ];
    let answers = app.store.append_group(&group).await.unwrap();
    assert!(answers[0].is_ok(), "{answers:?}");
    assert!(
        matches!(answers[1], Err(StoreError::Conflict)),
        "{answers:?}"
    );
    assert!(answers[2].is_ok(), "{answers:?}");

    for ((id, version), written) in [(first, true), (second, false), (third, true)] {
        let head = app.store.head(id).await.unwrap().unwrap().0;
        assert_eq!(head, version + u64::from(written), "{id}");
        let kept = app.store.idempotent_move(id, 0, "k").await.unwrap();
        assert_eq!(kept.is_some(), written, "{id}");
    }
    let claimed = app
        .store
        .claim_outbox(Some("test.group"), 10, Duration::from_secs(60))
        .await
        .unwrap();
    let mut payloads: Vec<&str> = claimed.iter().map(|m| m.payload.as_str()).collect();
    payloads.sort();
    assert_eq!(payloads, ["first", "third"]);
    // The collided one, decided again from the new head, goes through on its own.
    let again = [append(second, second.1 + 1, "second")];
    let answers = app.store.append_group(&again).await.unwrap();
    assert!(answers[0].is_ok(), "{answers:?}");
}

/// Moves of many games at once go through the group commit: every one is recorded, each
/// game's log stays a valid chain, and `/metrics` counts the commits and the moves in them.
async fn concurrent_moves_of_many_games_are_all_recorded_through_the_group_commit(app: TestApp) {
    let mut games = Vec::new();
    for _ in 0..12 {
        let (id, tokens) = app.create_game("girl", 2, None, json!({})).await;
        games.push((id, tokens));
    }
    let moves = games.iter().enumerate().map(|(n, (id, tokens))| {
        let app = &app;
        async move {
            let view = app.view(id, None).await;
            let seat = view["to_act"][0].as_u64().unwrap() as usize;
            let mine = app.view(id, Some(&tokens[seat])).await;
            let action = parlour_domain::playout::instantiate(
                &mine["legal_actions"][0],
                &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(n as u64),
            );
            let (status, body) = app.act(id, &tokens[seat], &action).await;
            assert_eq!(status, StatusCode::OK, "{body}");
        }
    });
    futures_util::future::join_all(moves).await;
    for (id, _) in &games {
        let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
        assert_eq!(audit["chain_ok"], json!(true), "{audit}");
    }
    let page = app
        .client
        .get(format!("{}/metrics", app.address))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let metric = |name: &str| -> u64 {
        page.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in {page}"))
            .parse()
            .unwrap()
    };
    let (groups, appends) = (
        metric("parlour_commit_groups_total"),
        metric("parlour_commit_group_appends_total"),
    );
    assert!(
        appends >= 12,
        "every move went through the pipeline: {appends}"
    );
    assert!(
        groups >= 1 && groups <= appends,
        "{groups} groups of {appends}"
    );
}

/// A commit nobody will be told of writes no fan-out row: a message for an audience is
/// written only if one of its accounts has a webhook endpoint when the commit runs.
async fn a_message_for_an_audience_is_written_only_if_one_of_them_has_an_endpoint(app: TestApp) {
    let (id, version) = game_with_log(&app).await;
    let (status, created) = app
        .post("/v1/accounts", None, &json!({"name": "Ann"}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let ann: Uuid = created["account"]["id"].as_str().unwrap().parse().unwrap();
    let token = created["token"]["secret"].as_str().unwrap().to_string();
    let stranger = Uuid::new_v4();
    let to = |payload: &str, audience: Option<Vec<Uuid>>| OutboxMessage {
        topic: "test.audience".into(),
        payload: payload.into(),
        only_if_webhooks_of: audience,
    };
    app.store
        .append_with_outbox(
            id,
            &[note(version + 1, "a")],
            None,
            &[
                to("always", None),
                to("ann, before her endpoint", Some(vec![ann])),
                to("no one", Some(vec![])),
            ],
        )
        .await
        .unwrap();
    // A public address by literal: nothing is resolved, and nothing is ever sent to it here.
    let (status, body) = app
        .post(
            "/v1/webhooks",
            Some(&token),
            &json!({"url": "https://93.184.215.14/hooks", "events": ["game.your_turn"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    app.store
        .append_with_outbox(
            id,
            &[note(version + 2, "b")],
            None,
            &[
                to("ann, after", Some(vec![stranger, ann])),
                to("a stranger", Some(vec![stranger])),
            ],
        )
        .await
        .unwrap();
    let claimed = app
        .store
        .claim_outbox(Some("test.audience"), 10, Duration::from_secs(60))
        .await
        .unwrap();
    let payloads: Vec<&str> = claimed.iter().map(|m| m.payload.as_str()).collect();
    assert_eq!(payloads, ["always", "ann, after"]);
}

async fn an_outbox_message_goes_to_one_claimer_at_a_time_and_comes_back_until_done(app: TestApp) {
    // Twelve games with one message each: claimers may share out different games' messages.
    for n in 0..12 {
        let (id, version) = game_with_log(&app).await;
        let message = OutboxMessage {
            topic: "test.claim".into(),
            payload: n.to_string(),
            only_if_webhooks_of: None,
        };
        app.store
            .append_with_outbox(id, &[note(version + 1, "a")], None, &[message])
            .await
            .unwrap();
    }
    let lease = Duration::from_secs(2);
    // Four claimers at once, two at a time each, until nothing is due: each message once.
    let claimers = (0..4).map(|_| {
        let store = app.store.clone();
        tokio::spawn(async move {
            let mut got = Vec::new();
            loop {
                let batch = store.claim_outbox(Some("test."), 2, lease).await.unwrap();
                if batch.is_empty() {
                    return got;
                }
                got.extend(batch);
            }
        })
    });
    let claimers: Vec<_> = claimers.collect();
    let mut claimed = Vec::new();
    for claimer in claimers {
        claimed.extend(claimer.await.unwrap());
    }
    let mut payloads: Vec<String> = claimed.iter().map(|m| m.payload.clone()).collect();
    payloads.sort_by_key(|p| p.parse::<u32>().unwrap());
    let expected: Vec<String> = (0..12).map(|n| n.to_string()).collect();
    assert_eq!(payloads, expected, "each message is claimed exactly once");

    // Finish some, fail one, and forget the rest (a worker that died).
    let (done, rest) = claimed.split_at(6);
    for m in done {
        app.store.complete_outbox(m.game, m.id).await.unwrap();
    }
    let failed = &rest[0];
    app.store
        .retry_outbox(failed.game, failed.id, "the hook answered 500", Utc::now())
        .await
        .unwrap();
    let again = app
        .store
        .claim_outbox(Some("test."), 20, lease)
        .await
        .unwrap();
    assert_eq!(
        again.len(),
        1,
        "only the failed message is due at once: {again:?}"
    );
    assert_eq!(again[0].id, failed.id);
    assert_eq!(again[0].attempts, 2);
    assert_eq!(
        again[0].last_error.as_deref(),
        Some("the hook answered 500")
    );
    app.store
        .complete_outbox(again[0].game, again[0].id)
        .await
        .unwrap();
    // A retry due later waits until then.
    let later = &rest[1];
    app.store
        .retry_outbox(
            later.game,
            later.id,
            "later",
            Utc::now() + chrono::Duration::seconds(600),
        )
        .await
        .unwrap();

    tokio::time::sleep(lease + Duration::from_millis(300)).await;
    let back = app
        .store
        .claim_outbox(Some("test."), 20, lease)
        .await
        .unwrap();
    let mut back_ids: Vec<u64> = back.iter().map(|m| m.id).collect();
    back_ids.sort();
    let mut forgotten: Vec<u64> = rest[2..].iter().map(|m| m.id).collect();
    forgotten.sort();
    assert_eq!(
        back_ids, forgotten,
        "the forgotten messages come back after their lease"
    );
    assert!(back.iter().all(|m| m.attempts == 2));
    for m in &back {
        app.store.complete_outbox(m.game, m.id).await.unwrap();
        // Completing twice is harmless.
        app.store.complete_outbox(m.game, m.id).await.unwrap();
    }
    tokio::time::sleep(lease + Duration::from_millis(300)).await;
    let none = app
        .store
        .claim_outbox(Some("test."), 20, lease)
        .await
        .unwrap();
    assert!(
        none.is_empty(),
        "completed messages never come back: {none:?}"
    );
}

/// One outbox message of `topic` for game `id`, appended after its last event.
async fn append_message(app: &TestApp, id: Uuid, topic: &str, payload: &str) {
    let version = app.store.head(id).await.unwrap().unwrap().0;
    let message = OutboxMessage {
        topic: topic.into(),
        payload: payload.into(),
        only_if_webhooks_of: None,
    };
    app.store
        .append_with_outbox(id, &[note(version + 1, payload)], None, &[message])
        .await
        .unwrap();
}

/// What a claim of `test.` gives, by payload.
async fn claim_payloads(store: &dyn EventStore, limit: u64) -> Vec<String> {
    store
        .claim_outbox(Some("test."), limit, Duration::from_secs(60))
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.payload)
        .collect()
}

/// A game's messages are claimed in the order of its commits and never two claimers' at once:
/// a message waits while an earlier one of its game is held by another claimer (another
/// instance, on its own connections) or waits for its retry; other games' go on meanwhile.
async fn a_games_messages_are_claimed_in_the_order_of_its_commits(app: TestApp) {
    let other_instance: Arc<dyn EventStore> = store::connect(&app.database_url).await.unwrap();
    let (game, _) = game_with_log(&app).await;
    let (elsewhere, _) = game_with_log(&app).await;
    append_message(&app, game, "test.order", "first").await;
    let held = app
        .store
        .claim_outbox(Some("test."), 10, Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(held.len(), 1);
    append_message(&app, game, "test.order", "second").await;
    append_message(&app, elsewhere, "test.order", "another game's").await;
    assert_eq!(
        claim_payloads(other_instance.as_ref(), 10).await,
        ["another game's"],
        "the second waits behind the first, held elsewhere"
    );
    app.store.complete_outbox(game, held[0].id).await.unwrap();
    // Two due at once: a claim of one takes the earlier.
    append_message(&app, game, "test.order", "third").await;
    let second = other_instance
        .claim_outbox(Some("test."), 1, Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(second[0].payload, "second");
    assert!(claim_payloads(app.store.as_ref(), 10).await.is_empty());
    // A message waiting for its retry holds the later ones back too.
    other_instance
        .retry_outbox(
            game,
            second[0].id,
            "the fan-out failed",
            Utc::now() + chrono::Duration::seconds(600),
        )
        .await
        .unwrap();
    assert!(claim_payloads(app.store.as_ref(), 10).await.is_empty());
    other_instance
        .retry_outbox(game, second[0].id, "the fan-out failed", Utc::now())
        .await
        .unwrap();
    assert_eq!(
        claim_payloads(app.store.as_ref(), 10).await,
        ["second", "third"]
    );
}

/// Claimers racing over one game's messages (on two stores, as two instances) each take a run
/// only when everything before it is done: the claims come out in commit order, each message
/// once. Without claims taking turns, two racing claimers split a game's due messages.
async fn racing_claimers_take_one_games_messages_in_turn(app: TestApp) {
    let (game, _) = game_with_log(&app).await;
    for n in 0..24 {
        append_message(&app, game, "test.race", &format!("{n:02}")).await;
    }
    let second: Arc<dyn EventStore> = store::connect(&app.database_url).await.unwrap();
    let done = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let claimers = (0..4).map(|n| {
        let store = if n % 2 == 0 {
            app.store.clone()
        } else {
            second.clone()
        };
        let done = done.clone();
        tokio::spawn(async move {
            let mut quiet = 0;
            while quiet < 50 {
                let batch = store
                    .claim_outbox(Some("test."), 3, Duration::from_secs(60))
                    .await
                    .unwrap();
                if batch.is_empty() {
                    quiet += 1;
                    tokio::task::yield_now().await;
                    continue;
                }
                quiet = 0;
                for message in batch {
                    {
                        // Counted as done before it is: a claim of the next can only follow.
                        let mut done = done.lock().unwrap();
                        let expected = format!("{:02}", done.len());
                        assert_eq!(message.payload, expected, "claimed out of turn");
                        done.push(message.payload.clone());
                    }
                    store
                        .complete_outbox(message.game, message.id)
                        .await
                        .unwrap();
                }
            }
        })
    });
    for claimer in claimers.collect::<Vec<_>>() {
        claimer.await.unwrap();
    }
    assert_eq!(done.lock().unwrap().len(), 24);
}

async fn one_store_leads_a_name_and_another_takes_over_when_it_stops(app: TestApp) {
    let other: Arc<dyn EventStore> = store::connect(&app.database_url).await.unwrap();
    let mut first = app
        .store
        .lead("sweep")
        .await
        .unwrap()
        .expect("nobody leads yet");
    assert!(other.lead("sweep").await.unwrap().is_none());
    assert!(app.store.lead("sweep").await.unwrap().is_none());
    assert!(first.still_leading().await);
    // Names are led independently.
    let mut elsewhere = other
        .lead("mail")
        .await
        .unwrap()
        .expect("another name is free");
    assert!(elsewhere.still_leading().await);

    drop(first);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut second = loop {
        if let Some(leader) = other.lead("sweep").await.unwrap() {
            break leader;
        }
        assert!(tokio::time::Instant::now() < deadline, "nobody took over");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(second.still_leading().await);
    assert!(app.store.lead("sweep").await.unwrap().is_none());

    // A leader whose hold is lost (its lease ran out, or its connection died) says so, and
    // another takes over.
    if app.database_url.starts_with("sqlite") {
        let pool = sqlx::SqlitePool::connect(&app.database_url).await.unwrap();
        sqlx::query(
            "UPDATE leases SET expires_at = '2000-01-01T00:00:00.000000Z' WHERE name = 'sweep'",
        )
        .execute(&pool)
        .await
        .unwrap();
    } else {
        let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
        // The server under test leads its own lease as well: end only the sessions holding
        // the two names this test leads.
        let mut ended = 0;
        for name in ["sweep", "mail"] {
            let digest = sha2::Sha256::digest(format!("parlour leader {name}").as_bytes());
            let key = u64::from_be_bytes(digest[..8].try_into().unwrap());
            let terminated: Vec<bool> = sqlx::query_scalar(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted \
                 AND classid = $1::bigint::oid AND objid = $2::bigint::oid \
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            )
            .bind((key >> 32) as i64)
            .bind((key & 0xffff_ffff) as i64)
            .fetch_all(&pool)
            .await
            .unwrap();
            ended += terminated.len();
        }
        assert_eq!(ended, 2, "the two leaders' sessions hold their locks");
    }
    let mut third = loop {
        if let Some(leader) = app.store.lead("sweep").await.unwrap() {
            break leader;
        }
        assert!(tokio::time::Instant::now() < deadline, "nobody took over");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(!second.still_leading().await, "a lost leadership says so");
    assert!(!second.still_leading().await, "and goes on saying so");
    assert!(third.still_leading().await);
}

on_both_backends!(
    the_event_log_refuses_updates_and_deletes,
    two_appends_at_the_same_position_leave_exactly_one,
    events_carry_their_version_and_feed_positions_increase,
    a_follower_sees_every_commit_of_concurrent_writers_exactly_once,
    the_outbox_is_written_with_the_events_or_not_at_all,
    a_group_writes_every_append_but_the_one_that_collides,
    concurrent_moves_of_many_games_are_all_recorded_through_the_group_commit,
    an_outbox_message_goes_to_one_claimer_at_a_time_and_comes_back_until_done,
    a_games_messages_are_claimed_in_the_order_of_its_commits,
    racing_claimers_take_one_games_messages_in_turn,
    a_message_for_an_audience_is_written_only_if_one_of_them_has_an_endpoint,
    one_store_leads_a_name_and_another_takes_over_when_it_stops,
);

/// Writes a note straight into `events`, in a transaction the test holds open.
async fn raw_note(tx: &mut sqlx::PgConnection, id: Uuid, seq: u64) {
    sqlx::query(
        "INSERT INTO events (game_id, seq, type, data, at, prev_hash, hash) VALUES ($1, $2, 'note', '{}', now(), 'x', 'y')",
    )
    .bind(id)
    .bind(seq as i64)
    .execute(tx)
    .await
    .unwrap();
}

/// Postgres numbers rows when they are written, not when they commit. A follower must neither
/// read past a transaction still in flight and miss its rows, nor be given rows twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_follower_misses_no_commit_that_lands_out_of_order() {
    use sqlx::Connection;
    let app = crate::helpers::spawn_app(Backend::Postgres).await;
    let (a, va) = game_with_log(&app).await;
    let (b, vb) = game_with_log(&app).await;
    let mut cursor = app.store.latest_position().await.unwrap();
    let seen_now =
        |page: &[Committed], id: Uuid| page.iter().any(|c| c.game == id && c.kind == "note");

    // A writes first (the earlier position), B writes and commits while A is open.
    let mut tx_a = sqlx::PgConnection::connect(&app.database_url)
        .await
        .unwrap();
    let mut tx_b = sqlx::PgConnection::connect(&app.database_url)
        .await
        .unwrap();
    sqlx::query("BEGIN").execute(&mut tx_a).await.unwrap();
    raw_note(&mut tx_a, a, va + 1).await;
    sqlx::query("BEGIN").execute(&mut tx_b).await.unwrap();
    raw_note(&mut tx_b, b, vb + 1).await;
    sqlx::query("COMMIT").execute(&mut tx_b).await.unwrap();
    for _ in 0..5 {
        let page = app.store.committed_since(cursor, 100).await.unwrap();
        assert!(
            !seen_now(&page, b),
            "B is given while A, before it, is in flight"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    sqlx::query("COMMIT").execute(&mut tx_a).await.unwrap();
    let seen = follow(app.store.as_ref(), &mut cursor, 2, 100).await;
    let games: Vec<Uuid> = seen.iter().map(|c| c.game).collect();
    assert_eq!(games, [a, b]);

    // Now the other way round: A's transaction began first but writes after B, so B has the
    // earlier position and A's row may be given first; B's must still come afterwards.
    sqlx::query("BEGIN").execute(&mut tx_a).await.unwrap();
    sqlx::query("SELECT pg_current_xact_id()")
        .execute(&mut tx_a)
        .await
        .unwrap();
    sqlx::query("BEGIN").execute(&mut tx_b).await.unwrap();
    raw_note(&mut tx_b, b, vb + 2).await;
    raw_note(&mut tx_a, a, va + 2).await;
    sqlx::query("COMMIT").execute(&mut tx_a).await.unwrap();
    let early = app.store.committed_since(cursor, 100).await.unwrap();
    assert!(!seen_now(&early, b));
    if let Some(last) = early.last() {
        cursor = last.cursor();
    }
    let early: Vec<Committed> = early.into_iter().filter(|c| c.kind == "note").collect();
    sqlx::query("COMMIT").execute(&mut tx_b).await.unwrap();
    let late = follow(app.store.as_ref(), &mut cursor, 2 - early.len(), 100).await;
    let all: Vec<(Uuid, u64)> = early.iter().chain(&late).map(|c| (c.game, c.seq)).collect();
    assert_eq!(all, [(a, va + 2), (b, vb + 2)]);

    // An aborted transaction holds the feed back while it runs and leaves nothing.
    sqlx::query("BEGIN").execute(&mut tx_a).await.unwrap();
    raw_note(&mut tx_a, a, va + 3).await;
    app.store
        .append(b, &[note(vb + 3, "b")], None)
        .await
        .unwrap();
    let held = app.store.committed_since(cursor, 100).await.unwrap();
    assert!(!seen_now(&held, b), "{held:?}");
    sqlx::query("ROLLBACK").execute(&mut tx_a).await.unwrap();
    let after = follow(app.store.as_ref(), &mut cursor, 1, 100).await;
    assert_eq!(
        after.iter().map(|c| (c.game, c.seq)).collect::<Vec<_>>(),
        [(b, vb + 3)]
    );

    // A cursor that is no entry is refused rather than waited on for ever.
    let nowhere = FeedCursor {
        txid: cursor.txid,
        position: u64::MAX / 2,
    };
    let missing = app.store.committed_since(nowhere, 10).await;
    assert!(
        matches!(missing, Err(StoreError::Corrupt(_))),
        "{missing:?}"
    );
}

/// An announcement reaches listeners on other connections; an append itself announces
/// nothing (a notifying transaction would serialise every other notifying commit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_announcements_reach_listeners_and_appends_send_none() {
    let app = crate::helpers::spawn_app(Backend::Postgres).await;
    let (id, version) = game_with_log(&app).await;
    let other = store::connect(&app.database_url).await.unwrap();
    let mut listener = other.listen().await.unwrap().expect("Postgres listens");
    app.store
        .append(id, &[note(version + 1, "a"), note(version + 2, "a")], None)
        .await
        .unwrap();
    app.store.announce().await.unwrap();
    // Notifications arrive in commit order: had the append notified, its word would come first.
    let heard = tokio::time::timeout(Duration::from_secs(10), listener.recv())
        .await
        .expect("a notification in time")
        .unwrap();
    assert_eq!(heard.channel(), store::EVENTS_CHANNEL);
    assert_eq!(
        heard.payload(),
        "",
        "the first word heard is the announcement"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_has_nothing_to_listen_to() {
    let app = crate::helpers::spawn_app(Backend::Sqlite).await;
    assert!(app.store.listen().await.unwrap().is_none());
}

/// Today's schema (migrations 0001 and 0002) with games in it.
async fn database_of_today(
    backend: Backend,
) -> (
    String,
    Option<Arc<dyn std::any::Any + Send + Sync>>,
    Vec<(Uuid, u64)>,
) {
    let games: Vec<(Uuid, u64)> = vec![(Uuid::new_v4(), 3), (Uuid::new_v4(), 2)];
    let (bytes, at) = match backend {
        Backend::Sqlite => (
            format!("X'{}'", "07".repeat(32)),
            format!("'{}'", store::time_text(&store::now())),
        ),
        Backend::Postgres => (format!("'\\x{}'::bytea", "07".repeat(32)), "now()".into()),
    };
    let mut rows = String::new();
    for (id, length) in &games {
        rows += &format!(
            "INSERT INTO games (id, game, players, options, seed, seed_commitment, created_at, chain, salt, rules_version) \
             VALUES ('{id}', 'girl', '[{{\"name\":\"A\"}},{{\"name\":\"B\"}}]', '{{}}', {bytes}, 'c', {at}, 2, {bytes}, 1);\n"
        );
        for seq in 1..=*length {
            rows += &format!(
                "INSERT INTO events (game_id, seq, type, actor, data, command, at, prev_hash, hash, sealed) \
                 VALUES ('{id}', {seq}, 'note', NULL, '{{}}', NULL, {at}, 'p', 'h', NULL);\n"
            );
        }
        rows += &format!(
            "INSERT INTO game_heads (game_id, version, head_hash) VALUES ('{id}', {length}, 'h');\n"
        );
    }
    let (url, guard) = database_before(backend, "0003_", &rows).await;
    (url, guard, games)
}

async fn a_database_migrated_with_data_gives_old_rows_positions(backend: Backend) {
    let (url, _guard, games) = database_of_today(backend).await;
    let migrated = store::connect(&url)
        .await
        .expect("the store migrates today's schema with data in it");
    let mut cursor = FeedCursor::START;
    let old = follow(migrated.as_ref(), &mut cursor, 5, 2).await;
    let mut got: Vec<(Uuid, u64)> = old.iter().map(|c| (c.game, c.seq)).collect();
    got.sort();
    let mut expected: Vec<(Uuid, u64)> = games
        .iter()
        .flat_map(|&(id, n)| (1..=n).map(move |s| (id, s)))
        .collect();
    expected.sort();
    assert_eq!(got, expected);
    let positions: HashSet<u64> = old.iter().map(|c| c.position).collect();
    assert_eq!(
        positions.len(),
        5,
        "every old row has a position of its own: {old:?}"
    );
    assert!(positions.iter().all(|&p| p > 0));
    for (id, _) in &games {
        let seqs: Vec<u64> = old
            .iter()
            .filter(|c| c.game == *id)
            .map(|c| c.seq)
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "a game's rows keep their order: {seqs:?}"
        );
        let events = migrated.events(*id, 0, None).await.unwrap();
        assert!(events.iter().all(|e| e.version == 1));
    }
    assert_eq!(migrated.latest_position().await.unwrap(), cursor);
    // New appends follow the old rows in the feed.
    let (id, length) = games[0];
    migrated
        .append(id, &[note(length + 1, "new")], None)
        .await
        .unwrap();
    let new = follow(migrated.as_ref(), &mut cursor, 1, 10).await;
    assert_eq!((new[0].game, new[0].seq), (id, length + 1));
    assert!(!positions.contains(&new[0].position));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_database_migrated_with_data_gives_old_rows_positions() {
    a_database_migrated_with_data_gives_old_rows_positions(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_database_migrated_with_data_gives_old_rows_positions() {
    a_database_migrated_with_data_gives_old_rows_positions(Backend::Postgres).await;
}

/// A database migrated up to, not including, the first migration whose name starts with
/// `stop`, with the SQL `rows` run in it (in one go, before the store migrates it further).
async fn database_before(
    backend: Backend,
    stop: &str,
    rows: &str,
) -> (String, Option<Arc<dyn std::any::Any + Send + Sync>>) {
    let (url, guard) = fresh_database(backend).await;
    let folder = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../migrations/{folder}"));
    let dir = tempfile::tempdir().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&source)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.as_str() < stop)
        .collect();
    names.sort();
    for name in &names {
        std::fs::copy(source.join(name), dir.path().join(name)).unwrap();
    }
    let migrator = sqlx::migrate::Migrator::new(dir.path()).await.unwrap();
    match backend {
        Backend::Sqlite => {
            let options: sqlx::sqlite::SqliteConnectOptions = url.parse().unwrap();
            let pool = sqlx::SqlitePool::connect_with(options.create_if_missing(true))
                .await
                .unwrap();
            migrator.run(&pool).await.unwrap();
            sqlx::raw_sql(rows).execute(&pool).await.unwrap();
            pool.close().await;
        }
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(&url).await.unwrap();
            migrator.run(&pool).await.unwrap();
            sqlx::raw_sql(rows).execute(&pool).await.unwrap();
            pool.close().await;
        }
    }
    (url, guard)
}

async fn webhook_deliveries_come_through_the_migration_that_keys_them_by_their_endpoint(
    backend: Backend,
) {
    use parlour::store::{AttemptRecord, MessageState, WebhookMessageRecord};
    let (stop, now) = match backend {
        Backend::Sqlite => ("0011_", format!("'{}'", store::time_text(&store::now()))),
        Backend::Postgres => ("0013_", "now()".to_string()),
    };
    let account = Uuid::new_v4();
    let hook = Uuid::new_v4();
    let rows = format!(
        "INSERT INTO accounts (id, name, created_at) VALUES ('{account}', 'Ann', {now});
         INSERT INTO webhooks (id, account_id, url, description, events, enabled, secret, created_at)
             VALUES ('{hook}', '{account}', 'https://example.com/hook', '', '[]', TRUE, 's', {now});
         INSERT INTO webhook_messages (id, webhook_id, event_type, payload, created_at, state, attempts, next_attempt)
             VALUES ('msg_first', '{hook}', 'game.moved', '{{}}', {now}, 'pending', 1, {now}),
                    ('msg_second', '{hook}', 'game.moved', '{{}}', {now}, 'delivered', 1, {now});
         INSERT INTO webhook_attempts (message_id, at, status, latency_ms, response)
             VALUES ('msg_first', {now}, 503, 12, 'busy'), ('msg_second', {now}, 200, 7, 'ok');"
    );
    let (url, _guard) = database_before(backend, stop, &rows).await;
    let migrated = store::connect(&url)
        .await
        .expect("the store migrates the webhook tables with rows in them");

    let listed = migrated.messages_of(hook, None, 10).await.unwrap();
    let ids: Vec<&str> = listed.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["msg_second", "msg_first"], "newest first, order kept");
    let first = migrated.attempts_of(hook, "msg_first").await.unwrap();
    assert_eq!(
        first
            .iter()
            .map(|a| (a.status, a.response.as_str()))
            .collect::<Vec<_>>(),
        [(Some(503), "busy")],
        "each old attempt stays with its message"
    );
    assert!(
        migrated
            .attempts_of(Uuid::new_v4(), "msg_first")
            .await
            .unwrap()
            .is_empty(),
        "a message is named by its endpoint and its id"
    );

    // The new key: an attempt is recorded against the endpoint's message, and a fan-out run
    // again skips what is already there.
    let attempt = AttemptRecord {
        at: store::now(),
        status: Some(200),
        latency_ms: 5,
        response: "ok".into(),
    };
    migrated
        .record_attempt(
            hook,
            "msg_first",
            &attempt,
            MessageState::Delivered,
            store::now(),
        )
        .await
        .unwrap();
    assert_eq!(
        migrated.attempts_of(hook, "msg_first").await.unwrap().len(),
        2
    );
    let again = WebhookMessageRecord {
        id: "msg_first".into(),
        seq: 0,
        webhook: hook,
        event_type: "game.moved".into(),
        payload: "{\"again\":true}".into(),
        created_at: store::now(),
        state: MessageState::Pending,
        attempts: 0,
        next_attempt: store::now(),
    };
    let third = WebhookMessageRecord {
        id: "msg_third".into(),
        ..again.clone()
    };
    migrated.enqueue_messages(&[again, third]).await.unwrap();
    let listed = migrated.messages_of(hook, None, 10).await.unwrap();
    let states: Vec<(&str, MessageState, &str)> = listed
        .iter()
        .map(|m| (m.id.as_str(), m.state, m.payload.as_str()))
        .collect();
    assert_eq!(
        states,
        [
            ("msg_third", MessageState::Pending, "{\"again\":true}"),
            ("msg_second", MessageState::Delivered, "{}"),
            ("msg_first", MessageState::Delivered, "{}"),
        ]
    );
    // Deleting the endpoint still takes its messages and their attempts with it.
    assert!(migrated.delete_webhook(hook).await.unwrap());
    assert!(migrated
        .messages_of(hook, None, 10)
        .await
        .unwrap()
        .is_empty());
    assert!(migrated
        .attempts_of(hook, "msg_first")
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_webhook_deliveries_come_through_the_migration_that_keys_them_by_their_endpoint() {
    webhook_deliveries_come_through_the_migration_that_keys_them_by_their_endpoint(Backend::Sqlite)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_webhook_deliveries_come_through_the_migration_that_keys_them_by_their_endpoint() {
    webhook_deliveries_come_through_the_migration_that_keys_them_by_their_endpoint(
        Backend::Postgres,
    )
    .await;
}

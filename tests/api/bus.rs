//! The post-commit bus and its workers: waiters woken for commits through any instance (a
//! second `parlour` process on the same database), durable work done at least once after the
//! commit, and one leader at a time.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use parlour::receipts::Signer;
use parlour::service::AfterCommit;
use parlour::startup::{Application, Hooks, Settings};
use parlour::store::{self, GameRecord, OutboxItem, OutboxMessage, StoredEvent};
use parlour::workers::{LeaderJob, LeaderStatus, OutboxHandler, OutboxSettings};

use crate::crash::Server;
use crate::helpers::{fresh_database, Backend, TestApp};

/// Waits for `condition`, checking every 20 ms, for at most `limit`: a bound on how long a
/// failing test hangs, not a claim about speed.
async fn eventually(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let until = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < until {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    condition()
}

/// An in-process server with hooks, whose task the test holds so it can stop it.
struct Instance {
    app: TestApp,
    leadership: Arc<LeaderStatus>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn start(url: &str, settings: Settings, hooks: Hooks) -> Instance {
    parlour::telemetry::init_for_tests();
    let store = store::connect_with(url, &settings.db).await.expect("store");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let app = Application::serve_with_hooks(
        listener,
        store.clone(),
        Signer::generate().expect("key"),
        settings,
        hooks,
    )
    .expect("build app");
    let address = format!("http://127.0.0.1:{}", app.port());
    let leadership = app.leadership();
    let task = tokio::spawn(app.run_until_stopped());
    Instance {
        app: TestApp::new(address, url.to_string(), store),
        leadership,
        task,
    }
}

async fn long_poll(client: &Client, base: &str, id: &str, known: u64) -> (StatusCode, Value) {
    let res = client
        .get(format!("{base}/v1/games/{id}?wait=30"))
        .header("If-None-Match", format!("\"{known}\""))
        .send()
        .await
        .unwrap();
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// A long-poll waits on its own instance; only the bus tells it of a move made through the
/// other process. Without the bus it would sit out its 30 seconds and answer 304.
async fn waiters_on_either_process_wake_for_moves_through_the_other(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    let a = start(&url, Settings::default(), Hooks::default()).await;
    let b = Server::start(&url).await;
    let client = Client::new();
    let (id, tokens) = a.app.create_game("girl", 2, None, json!({})).await;
    for round in 0..4 {
        let view = a.app.view(&id, None).await;
        let known = view["version"].as_u64().unwrap();
        let seat = view["to_act"][0].as_u64().unwrap() as usize;
        let mine = a.app.view(&id, Some(&tokens[seat])).await;
        let body = parlour_domain::playout::instantiate(
            &mine["legal_actions"][0],
            &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(round),
        );
        // Waiting on one process, moving through the other, in turn.
        let (waiter, mover) = if round % 2 == 0 {
            (b.address.clone(), a.app.address.clone())
        } else {
            (a.app.address.clone(), b.address.clone())
        };
        let poll = tokio::spawn({
            let client = client.clone();
            let id = id.clone();
            async move { long_poll(&client, &waiter, &id, known).await }
        });
        // Let the long-poll reach its server before the move (if it arrives after, it answers
        // at once, which proves nothing but does not fail either).
        tokio::time::sleep(Duration::from_millis(200)).await;
        let res = client
            .post(format!("{mover}/v1/games/{id}/actions"))
            .bearer_auth(&tokens[seat])
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        let (status, seen) = poll.await.unwrap();
        assert_eq!(status, StatusCode::OK, "round {round}: {seen}");
        assert!(seen["version"].as_u64().unwrap() > known, "{seen}");
    }
    b.kill();
    a.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiters_wake_across_processes_on_sqlite() {
    waiters_on_either_process_wake_for_moves_through_the_other(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiters_wake_across_processes_on_postgres() {
    waiters_on_either_process_wake_for_moves_through_the_other(Backend::Postgres).await;
}

/// With polling all but switched off, only the commit signal (and, on Postgres, the bus's look
/// again while commits are held back behind a transaction in flight) can wake a long-poll in
/// time. The announcement itself is tested in
/// `store::postgres_announcements_reach_listeners_and_appends_send_none` and across processes
/// by `waiters_wake_across_processes_on_postgres`.
fn no_polling() -> Settings {
    Settings {
        bus: parlour::bus::BusSettings {
            poll: Duration::from_secs(3600),
            fallback: Duration::from_secs(3600),
            ..parlour::bus::BusSettings::default()
        },
        ..Settings::default()
    }
}

/// Makes the first legal move of whoever is to act, through `mover`, while a long-poll waits on
/// `waiter`; answers what the long-poll saw.
async fn move_while_waiting(
    mover: &TestApp,
    waiter: &TestApp,
    id: &str,
    tokens: &[String],
) -> (StatusCode, Value, u64) {
    let view = mover.view(id, None).await;
    let known = view["version"].as_u64().unwrap();
    let seat = view["to_act"][0].as_u64().unwrap() as usize;
    let mine = mover.view(id, Some(&tokens[seat])).await;
    let body = parlour_domain::playout::instantiate(
        &mine["legal_actions"][0],
        &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(known),
    );
    let poll = tokio::spawn({
        let client = waiter.client.clone();
        let base = waiter.address.clone();
        let id = id.to_string();
        async move { long_poll(&client, &base, &id, known).await }
    });
    // Let the long-poll reach its server first (if it does not, it answers at once, which
    // proves nothing but does not fail either).
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, answer) = mover.act(id, &tokens[seat], &body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let (status, seen) = poll.await.unwrap();
    (status, seen, known)
}

async fn a_commit_wakes_its_own_instance_at_once(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    let a = start(&url, no_polling(), Hooks::default()).await;
    let (id, tokens) = a.app.create_game("girl", 2, None, json!({})).await;
    let (status, seen, known) = move_while_waiting(&a.app, &a.app, &id, &tokens).await;
    assert_eq!(status, StatusCode::OK, "{seen}");
    assert!(seen["version"].as_u64().unwrap() > known);
    a.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_wakes_its_own_instance_at_once_on_sqlite() {
    a_commit_wakes_its_own_instance_at_once(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_wakes_its_own_instance_at_once_on_postgres() {
    a_commit_wakes_its_own_instance_at_once(Backend::Postgres).await;
}

/// On Postgres the feed is read below the oldest transaction in flight, so a move committed
/// while another transaction is open is held back from the look its own commit signal brings
/// about. With polling all but switched off, only the bus's looking again while commits are
/// held back gives it once that transaction ends; else the long-poll would sit out its 30
/// seconds and answer 304.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_held_back_by_a_transaction_in_flight_wakes_its_waiters_once_that_ends() {
    use sqlx::Connection;
    let (url, _guard) = fresh_database(Backend::Postgres).await;
    let a = start(&url, no_polling(), Hooks::default()).await;
    let (id, tokens) = a.app.create_game("girl", 2, None, json!({})).await;
    let view = a.app.view(&id, None).await;
    let known = view["version"].as_u64().unwrap();
    let seat = view["to_act"][0].as_u64().unwrap() as usize;
    let mine = a.app.view(&id, Some(&tokens[seat])).await;
    let body = parlour_domain::playout::instantiate(
        &mine["legal_actions"][0],
        &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(known),
    );
    let mut open = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut open).await.unwrap();
    sqlx::query("SELECT pg_current_xact_id()")
        .execute(&mut open)
        .await
        .unwrap();
    let poll = tokio::spawn({
        let client = a.app.client.clone();
        let base = a.app.address.clone();
        let id = id.clone();
        async move { long_poll(&client, &base, &id, known).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, answer) = a.app.act(&id, &tokens[seat], &body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(
        a.app.store.held_back().await.unwrap(),
        "the move is held back while the other transaction is open"
    );
    // Long enough for the commit signal's look to have come and gone empty.
    tokio::time::sleep(Duration::from_millis(100)).await;
    sqlx::query("ROLLBACK").execute(&mut open).await.unwrap();
    let (status, seen) = poll.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{seen}");
    assert!(seen["version"].as_u64().unwrap() > known, "{seen}");
    a.task.abort();
}

/// Writes one message per appended batch, naming the batch's last entry.
struct EveryBatch;

impl AfterCommit for EveryBatch {
    fn durable_work(
        &self,
        game: &GameRecord,
        _sitting: &parlour_domain::table_events::Sitting,
        entries: &[StoredEvent],
    ) -> Vec<OutboxMessage> {
        entries
            .last()
            .map(|last| OutboxMessage {
                topic: "test.batch".into(),
                payload: format!("{}:{}", game.id, last.seq),
                only_if_webhooks_of: None,
            })
            .into_iter()
            .collect()
    }
}

/// Fails every message's first attempt, then keeps what it was given.
#[derive(Default)]
struct Flaky {
    done: Mutex<Vec<(String, u32)>>,
}

#[async_trait]
impl OutboxHandler for Flaky {
    fn topic(&self) -> &str {
        "test.batch"
    }

    async fn handle(&self, item: &OutboxItem) -> Result<(), String> {
        if item.attempts < 2 {
            return Err("the receiver is down".into());
        }
        self.done
            .lock()
            .unwrap()
            .push((item.payload.clone(), item.attempts));
        Ok(())
    }
}

fn quick_outbox() -> Settings {
    Settings {
        outbox: OutboxSettings {
            poll: Duration::from_millis(20),
            first_retry: Duration::from_millis(10),
            lease: Duration::from_secs(5),
            ..OutboxSettings::default()
        },
        ..Settings::default()
    }
}

/// Work written with the moves is done after the commit, retried when it fails, and done even
/// when the instance that wrote it stopped before doing it.
async fn durable_work_is_done_at_least_once_after_the_commit(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    // The first instance writes the work but has nobody to do it, as if it died at once.
    let writer = start(
        &url,
        quick_outbox(),
        Hooks {
            after_commit: vec![Arc::new(EveryBatch)],
            ..Hooks::default()
        },
    )
    .await;
    let (id, tokens) = writer.app.create_game("girl", 2, None, json!({})).await;
    let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(5);
    // The founding commit calls for its work as every later one does.
    let founded = writer.app.view(&id, None).await["version"]
        .as_u64()
        .unwrap();
    let mut expected = vec![format!("{id}:{founded}")];
    for _ in 0..3 {
        crate::client::random_move(&writer.app, &id, &tokens, &mut rng, |_| true).await;
        let version = writer.app.view(&id, None).await["version"]
            .as_u64()
            .unwrap();
        expected.push(format!("{id}:{version}"));
    }
    writer.task.abort();

    // A later instance with a handler does it all, each after a failed first attempt.
    let flaky = Arc::new(Flaky::default());
    let worker = start(
        &url,
        quick_outbox(),
        Hooks {
            outbox: vec![flaky.clone()],
            ..Hooks::default()
        },
    )
    .await;
    let all_done = eventually(Duration::from_secs(30), || {
        flaky.done.lock().unwrap().len() >= expected.len()
    })
    .await;
    let done = flaky.done.lock().unwrap().clone();
    assert!(all_done, "done so far: {done:?}");
    let mut payloads: Vec<String> = done.iter().map(|(p, _)| p.clone()).collect();
    payloads.sort();
    payloads.dedup();
    let mut wanted = expected.clone();
    wanted.sort();
    assert_eq!(payloads, wanted);
    assert!(done.iter().all(|(_, attempts)| *attempts >= 2), "{done:?}");
    worker.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durable_work_survives_its_writer_on_sqlite() {
    durable_work_is_done_at_least_once_after_the_commit(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durable_work_survives_its_writer_on_postgres() {
    durable_work_is_done_at_least_once_after_the_commit(Backend::Postgres).await;
}

/// Counts its ticks.
#[derive(Default)]
struct Ticks(Mutex<u64>);

#[async_trait]
impl LeaderJob for Ticks {
    fn name(&self) -> &str {
        "ticks"
    }

    async fn tick(&self) -> Result<(), String> {
        *self.0.lock().unwrap() += 1;
        Ok(())
    }
}

/// Of two instances, one leads and runs the leader's jobs; when it stops, the other takes over.
async fn one_instance_leads_and_another_takes_over_when_it_stops(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    let (ticks_a, ticks_b) = (Arc::new(Ticks::default()), Arc::new(Ticks::default()));
    let hooks = |ticks: &Arc<Ticks>| Hooks {
        leader_jobs: vec![ticks.clone()],
        ..Hooks::default()
    };
    let a = start(&url, Settings::default(), hooks(&ticks_a)).await;
    let b = start(&url, Settings::default(), hooks(&ticks_b)).await;
    let one_leads = eventually(Duration::from_secs(30), || {
        a.leadership.is_leader() || b.leadership.is_leader()
    })
    .await;
    assert!(one_leads, "nobody took the lead");
    // Give the follower time to try (it asks every two seconds): still one leader.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        a.leadership.is_leader() != b.leadership.is_leader(),
        "exactly one instance leads"
    );
    let (leader, follower, follower_ticks, leader_ticks) = if a.leadership.is_leader() {
        (a, b, ticks_b, ticks_a)
    } else {
        (b, a, ticks_a, ticks_b)
    };
    assert_eq!(
        *follower_ticks.0.lock().unwrap(),
        0,
        "only the leader ticks"
    );
    assert!(*leader_ticks.0.lock().unwrap() > 0);
    let (status, ready) = follower.app.get("/readyz", None).await;
    assert_eq!(
        (status, ready["leader"].clone()),
        (StatusCode::OK, json!(false))
    );
    let (_, ready) = leader.app.get("/readyz", None).await;
    assert_eq!(ready["leader"], json!(true));

    leader.task.abort();
    drop(leader);
    let took_over = eventually(Duration::from_secs(60), || follower.leadership.is_leader()).await;
    assert!(took_over, "the follower never took over");
    let ticked = eventually(Duration::from_secs(10), || {
        *follower_ticks.0.lock().unwrap() > 0
    })
    .await;
    assert!(ticked);
    follower.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_leader_at_a_time_on_sqlite() {
    one_instance_leads_and_another_takes_over_when_it_stops(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_leader_at_a_time_on_postgres() {
    one_instance_leads_and_another_takes_over_when_it_stops(Backend::Postgres).await;
}

//! The HTTP conventions a client library expects: caching headers on per-seat views, a `Link`
//! to the next page of the log, idempotency keys that are marked when replayed, expire, and
//! answer 409 while in flight, and 428 when the server requires `If-Match`.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use parlour::receipts::Signer;
use parlour::service::ManualClock;
use parlour::startup::{Application, Settings};
use parlour::store::{
    self, AccountRecord, AccountStore, AccountTokenRecord, AttemptRecord, Attention, ClockStore,
    Committed, EventStore, FeedCursor, FeedStore, GameRecord, GameStore, IdempotentMove,
    LeaderStore, Leadership, LogStore, MessageState, OutboxItem, OutboxMessage, OutboxStore,
    SeatCredential, SignInCodeRecord, StoreError, StoredEvent, VacationRecord,
    WebhookMessageRecord, WebhookRecord, WebhookStore,
};
use parlour::store::{AppStore, OAuthCodeRecord, StreamTicketRecord, TicketStore};
use parlour::store::{CheckpointRecord, CheckpointStore, SnapshotRecord, SnapshotStore};
use parlour::store::{Cutoffs, HousekeepingStore, MatchRow, MatchStore, NoticeStore, Purged};
use parlour::store::{EmailSignInRecord, PasskeyRecord, SignInStore};
use parlour::store::{ListingFilter, ListingRecord, ListingStore};
use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};
use tokio::sync::oneshot;
use uuid::Uuid;

use crate::helpers::{assert_problem, fresh_database, spawn_app_with, Backend, Guard, TestApp};

/// A seed whose first card turned up is a HEROINE: after `turn_up` both seats must lay, and
/// the same `turn_up` again is against the rules.
const SEED: &str = "4242424242424242424242424242424242424242424242424242424242424242";

fn header<'a>(res: &'a Response, name: &str) -> Option<&'a str> {
    res.headers().get(name).and_then(|v| v.to_str().ok())
}

async fn version(app: &TestApp, id: &str) -> u64 {
    app.view(id, None).await["version"].as_u64().unwrap()
}

async fn girl(app: &TestApp) -> (String, Vec<String>) {
    app.create_game("girl", 2, Some(SEED), json!({})).await
}

async fn send_move(
    app: &TestApp,
    id: &str,
    token: &str,
    action: &Value,
    key: Option<&str>,
) -> Response {
    let mut req = app
        .client
        .post(format!("{}/v1/games/{id}/actions", app.address))
        .bearer_auth(token)
        .json(action);
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    req.send().await.unwrap()
}

fn assert_per_seat(res: &Response, what: &str) {
    let vary = header(res, "vary").unwrap_or_default().to_ascii_lowercase();
    assert!(vary.contains("authorization"), "{what}: Vary {vary:?}");
    let cache = header(res, "cache-control").unwrap_or_default();
    assert!(
        cache.contains("private") && cache.contains("no-cache"),
        "{what}: Cache-Control {cache:?}"
    );
}

async fn every_answer_that_depends_on_the_token_varies_by_it_and_is_private(app: TestApp) {
    let (id, tokens) = girl(&app).await;
    let get = |path: String, token: Option<String>| {
        let mut req = app.client.get(format!("{}{path}", app.address));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        req.send()
    };
    for token in [Some(tokens[0].clone()), None] {
        for path in [
            format!("/v1/games/{id}"),
            format!("/v1/games/{id}/state?at=1"),
            format!("/v1/games/{id}/events"),
        ] {
            let res = get(path.clone(), token.clone()).await.unwrap();
            assert_eq!(res.status(), StatusCode::OK, "{path}");
            assert_per_seat(&res, &path);
        }
    }
    let current = version(&app, &id).await;
    let res = app
        .client
        .get(format!("{}/v1/games/{id}", app.address))
        .bearer_auth(&tokens[0])
        .header("If-None-Match", format!("\"{current}\""))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    assert_per_seat(&res, "a 304");
    let res = send_move(&app, &id, &tokens[0], &json!({"type": "turn_up"}), None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_per_seat(&res, "the answer to a move");
    // Public documents that change as the game goes on may be cached, but must be checked.
    for path in [
        format!("/v1/games/{id}/audit"),
        "/v1/catalog".to_string(),
        "/v1/catalog/girl".to_string(),
        "/openapi.json".to_string(),
        "/problems/not-found".to_string(),
    ] {
        let res = get(path.clone(), None).await.unwrap();
        assert_eq!(header(&res, "cache-control"), Some("no-cache"), "{path}");
    }
    let res = get("/readyz".to_string(), None).await.unwrap();
    assert_eq!(header(&res, "cache-control"), Some("no-store"));
    let created = app
        .request(
            reqwest::Method::POST,
            "/v1/games",
            None,
            Some(&json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}]})),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    assert_eq!(
        header(&created, "cache-control"),
        Some("no-store"),
        "the seats' tokens are for the creator alone"
    );
}

async fn a_page_of_the_log_links_to_the_next_page_until_the_last(app: TestApp) {
    let (id, tokens) = girl(&app).await;
    let res = send_move(&app, &id, &tokens[0], &json!({"type": "turn_up"}), None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let total = version(&app, &id).await;
    assert!(
        total >= 2,
        "the deal and the turn-up make at least two events"
    );
    let mut path = format!("/v1/games/{id}/events?limit=1");
    let mut seen = Vec::new();
    loop {
        let res = app
            .client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        let link = header(&res, "link").map(str::to_string);
        let page: Value = res.json().await.unwrap();
        seen.extend(
            page["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["seq"].clone()),
        );
        match (link, page["next_after"].as_u64()) {
            (Some(link), Some(next)) => {
                assert_eq!(page["next"], json!(next.to_string()));
                assert_eq!(
                    link,
                    format!("</v1/games/{id}/events?limit=1&cursor={next}>; rel=\"next\"")
                );
                path = link[1..link.find('>').unwrap()].to_string();
            }
            (None, None) => break,
            (link, next) => panic!("Link {link:?} and next_after {next:?} disagree"),
        }
    }
    let expected: Vec<Value> = (1..=total).map(|seq| json!(seq)).collect();
    assert_eq!(
        seen, expected,
        "following the links reads the whole log once"
    );
}

async fn a_move_answered_from_its_idempotency_key_is_marked_as_replayed(app: TestApp) {
    let (id, tokens) = girl(&app).await;
    let turn_up = json!({"type": "turn_up"});
    let first = send_move(&app, &id, &tokens[0], &turn_up, Some("k-1")).await;
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(header(&first, "idempotent-replayed"), None);
    let first: Value = first.json().await.unwrap();
    let retry = send_move(&app, &id, &tokens[0], &turn_up, Some("k-1")).await;
    assert_eq!(retry.status(), StatusCode::OK);
    assert_eq!(header(&retry, "idempotent-replayed"), Some("true"));
    assert_eq!(retry.json::<Value>().await.unwrap(), first);
}

/// `If-None-Match` as RFC 9110 §13.1.2 has it: `*` matches any version of a game that exists,
/// and a list of tags matches while the game is at any of them.
async fn if_none_match_takes_a_star_or_a_list_of_versions(app: TestApp) {
    let (id, tokens) = girl(&app).await;
    let current = version(&app, &id).await;
    let get = |value: String| {
        let app = &app;
        let url = format!("{}/v1/games/{id}", app.address);
        let token = tokens[0].clone();
        async move {
            app.client
                .get(url)
                .bearer_auth(token)
                .header("If-None-Match", value)
                .send()
                .await
                .unwrap()
        }
    };
    let star = get("*".into()).await;
    assert_eq!(star.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(
        header(&star, "etag"),
        Some(format!("\"{current}\"").as_str())
    );
    let missing = app
        .client
        .get(format!("{}/v1/games/{}", app.address, Uuid::new_v4()))
        .header("If-None-Match", "*")
        .send()
        .await
        .unwrap();
    assert_problem(missing, StatusCode::NOT_FOUND, "game-not-found").await;

    let listed = get(format!("\"{}\", W/\"{current}\"", current + 5)).await;
    assert_eq!(listed.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(
        header(&listed, "etag"),
        Some(format!("\"{current}\"").as_str())
    );
    let others = get(format!("\"{}\", \"{}\"", current + 5, current + 6)).await;
    assert_eq!(others.status(), StatusCode::OK);
    let view: Value = others.json().await.unwrap();
    assert_eq!(view["version"], current);

    for bad in ["12", "\"12\", 13", "*, \"12\"", "\"x\""] {
        let res = get(bad.into()).await;
        assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
    }
}

/// The first answer to a keyed move is the answer, whatever happened at the table since: a
/// client whose connection dropped after its move was recorded, and whose seat has meanwhile
/// gone to a bot, is told its move stands (replayed), not that the seat is the bot's.
async fn a_keyed_move_is_replayed_even_after_its_seat_went_to_a_bot(app: TestApp) {
    let (id, tokens) = girl(&app).await;
    let turn_up = json!({"type": "turn_up"});
    let first = send_move(&app, &id, &tokens[0], &turn_up, Some("k-bot")).await;
    assert_eq!(first.status(), StatusCode::OK);
    let first: Value = first.json().await.unwrap();
    let res = app
        .request(
            Method::PUT,
            &format!("/v1/games/{id}/seats/0/bot"),
            Some(&tokens[0]),
            Some(&json!({"level": "steady"})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let retry = send_move(&app, &id, &tokens[0], &turn_up, Some("k-bot")).await;
    assert_eq!(retry.status(), StatusCode::OK);
    assert_eq!(header(&retry, "idempotent-replayed"), Some("true"));
    let retry: Value = retry.json().await.unwrap();
    assert_eq!(retry["version"], first["version"], "{retry}");
    assert_eq!(retry["receipt"], first["receipt"], "{retry}");
    // A new move from the seat's player is still the bot's to make.
    let res = send_move(&app, &id, &tokens[0], &turn_up, Some("k-other")).await;
    assert_problem(res, StatusCode::CONFLICT, "bot-seat").await;
}

async fn an_idempotency_key_is_1_to_255_printable_characters_and_nothing_else(app: TestApp) {
    let (id, tokens) = girl(&app).await;
    let before = version(&app, &id).await;
    let turn_up = json!({"type": "turn_up"});
    let too_long = "k".repeat(256);
    for bad in ["a\tb", too_long.as_str()] {
        let res = send_move(&app, &id, &tokens[0], &turn_up, Some(bad)).await;
        assert_problem(res, StatusCode::BAD_REQUEST, "malformed-request").await;
        assert_eq!(version(&app, &id).await, before, "{bad:?} changed nothing");
    }
    let longest = "k".repeat(255);
    let res = send_move(&app, &id, &tokens[0], &turn_up, Some(&longest)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = send_move(&app, &id, &tokens[0], &turn_up, Some(&longest)).await;
    assert_eq!(header(&res, "idempotent-replayed"), Some("true"));
}

/// A server on a fresh database whose service tells the time by `clock`.
async fn spawn_with_clock(
    backend: Backend,
    clock: Arc<ManualClock>,
    settings: Settings,
) -> (TestApp, Guard) {
    let (url, guard) = fresh_database(backend).await;
    let (app, _, _) = crate::helpers::serve_with_clock(&url, clock, settings).await;
    (app, guard)
}

async fn an_idempotency_key_expires_and_is_then_a_new_request(backend: Backend) {
    let clock = Arc::new(ManualClock::new());
    let lifetime = Duration::from_secs(24 * 60 * 60);
    let settings = Settings {
        idempotency_key_lifetime: lifetime,
        ..Settings::default()
    };
    let (app, _guard) = spawn_with_clock(backend, clock.clone(), settings).await;
    let (id, tokens) = girl(&app).await;
    let turn_up = json!({"type": "turn_up"});
    let res = send_move(&app, &id, &tokens[0], &turn_up, Some("k")).await;
    assert_eq!(res.status(), StatusCode::OK);
    let after_move = version(&app, &id).await;

    clock.advance(lifetime - Duration::from_secs(1));
    let res = send_move(&app, &id, &tokens[0], &turn_up, Some("k")).await;
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "a second before expiry it replays"
    );
    assert_eq!(header(&res, "idempotent-replayed"), Some("true"));

    clock.advance(Duration::from_secs(1));
    // Expired: the old move is judged again, and the rules refuse it; nothing is recorded.
    let events = app.all_events(&id, None).await;
    let res = send_move(&app, &id, &tokens[0], &turn_up, Some("k")).await;
    assert_eq!(header(&res, "idempotent-replayed"), None);
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation").await;
    assert_eq!(version(&app, &id).await, after_move);
    assert_eq!(app.all_events(&id, None).await, events);

    // The key may now stand for another move, which is recorded and replayed in its turn.
    let view = app.view(&id, Some(&tokens[0])).await;
    let lay = parlour_domain::playout::instantiate(
        &view["legal_actions"][0],
        &mut <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(3),
    );
    let res = send_move(&app, &id, &tokens[0], &lay, Some("k")).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "idempotent-replayed"), None);
    let recorded = version(&app, &id).await;
    assert!(recorded > after_move);
    let kept = app
        .store
        .idempotent_move(Uuid::parse_str(&id).unwrap(), 0, "k")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.version, recorded);
    assert_eq!(kept.created_at, parlour::service::Clock::now(&*clock));
    let res = send_move(&app, &id, &tokens[0], &lay, Some("k")).await;
    assert_eq!(header(&res, "idempotent-replayed"), Some("true"));
    assert_eq!(version(&app, &id).await, recorded);
}

/// A store that, once armed, holds the next append until told to let it go: a move can be
/// kept "in flight" for as long as a test needs, with no timing involved.
struct HeldAppend {
    inner: Arc<dyn EventStore>,
    hold: Mutex<Option<(oneshot::Sender<()>, oneshot::Receiver<()>)>>,
}

impl HeldAppend {
    /// Arms the hold: returns a receiver told when an append arrives, and a sender that
    /// lets it go on.
    fn arm(&self) -> (oneshot::Receiver<()>, oneshot::Sender<()>) {
        let (arrived_tx, arrived_rx) = oneshot::channel();
        let (release_tx, release_rx) = oneshot::channel();
        *self.hold.lock().unwrap() = Some((arrived_tx, release_rx));
        (arrived_rx, release_tx)
    }
}

#[async_trait]
impl GameStore for HeldAppend {
    async fn create_game(
        &self,
        game: &GameRecord,
        seats: &[SeatCredential],
        events: &[StoredEvent],
        outbox: &[OutboxMessage],
        attention: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.inner
            .create_game(game, seats, events, outbox, attention)
            .await
    }
    async fn game(&self, id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        self.inner.game(id).await
    }
    async fn seat_for_token(
        &self,
        game: Uuid,
        token_hash: &str,
    ) -> Result<Option<(Uuid, u8)>, StoreError> {
        self.inner.seat_for_token(game, token_hash).await
    }
    async fn ping(&self) -> Result<(), StoreError> {
        self.inner.ping().await
    }
}

#[async_trait]
impl LogStore for HeldAppend {
    async fn events(
        &self,
        id: Uuid,
        after: u64,
        limit: Option<u64>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.inner.events(id, after, limit).await
    }
    async fn append_with_outbox(
        &self,
        id: Uuid,
        events: &[StoredEvent],
        idempotent: Option<&IdempotentMove>,
        outbox: &[OutboxMessage],
    ) -> Result<(), StoreError> {
        let held = self.hold.lock().unwrap().take();
        if let Some((arrived, release)) = held {
            let _ = arrived.send(());
            let _ = release.await;
        }
        self.inner
            .append_with_outbox(id, events, idempotent, outbox)
            .await
    }
    async fn head(&self, id: Uuid) -> Result<Option<(u64, String)>, StoreError> {
        self.inner.head(id).await
    }
    async fn idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
    ) -> Result<Option<IdempotentMove>, StoreError> {
        self.inner.idempotent_move(id, seat, key).await
    }
    async fn forget_idempotent_move(
        &self,
        id: Uuid,
        seat: u8,
        key: &str,
        expired_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.inner
            .forget_idempotent_move(id, seat, key, expired_at)
            .await
    }
}

#[async_trait]
impl FeedStore for HeldAppend {
    async fn committed_since(
        &self,
        after: FeedCursor,
        limit: u64,
    ) -> Result<Vec<Committed>, StoreError> {
        self.inner.committed_since(after, limit).await
    }
    async fn held_back(&self) -> Result<bool, StoreError> {
        self.inner.held_back().await
    }
    async fn latest_position(&self) -> Result<FeedCursor, StoreError> {
        self.inner.latest_position().await
    }
    async fn listen(&self) -> Result<Option<sqlx::postgres::PgListener>, StoreError> {
        self.inner.listen().await
    }
    async fn announce(&self) -> Result<(), StoreError> {
        self.inner.announce().await
    }
}

#[async_trait]
impl OutboxStore for HeldAppend {
    async fn claim_outbox(
        &self,
        topic_prefix: Option<&str>,
        limit: u64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        self.inner.claim_outbox(topic_prefix, limit, lease).await
    }
    async fn complete_outbox(&self, game: Uuid, id: u64) -> Result<(), StoreError> {
        self.inner.complete_outbox(game, id).await
    }
    async fn retry_outbox(
        &self,
        game: Uuid,
        id: u64,
        error: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.inner.retry_outbox(game, id, error, at).await
    }
}

#[async_trait]
impl HousekeepingStore for HeldAppend {
    async fn purge(&self, cutoffs: &Cutoffs, limit: u64) -> Result<Purged, StoreError> {
        self.inner.purge(cutoffs, limit).await
    }
}

#[async_trait]
impl MatchStore for HeldAppend {
    async fn create_match(&self, row: &MatchRow) -> Result<(), StoreError> {
        self.inner.create_match(row).await
    }
    async fn match_row(&self, id: Uuid) -> Result<Option<MatchRow>, StoreError> {
        self.inner.match_row(id).await
    }
}

#[async_trait]
impl SnapshotStore for HeldAppend {
    async fn latest_snapshot(&self, game: Uuid) -> Result<Option<SnapshotRecord>, StoreError> {
        self.inner.latest_snapshot(game).await
    }
    async fn save_snapshot(&self, snapshot: &SnapshotRecord) -> Result<(), StoreError> {
        self.inner.save_snapshot(snapshot).await
    }
}

#[async_trait]
impl CheckpointStore for HeldAppend {
    async fn publish_checkpoint(
        &self,
        game: Uuid,
        seq: u64,
        hash: &str,
        at: DateTime<Utc>,
    ) -> Result<CheckpointRecord, StoreError> {
        self.inner.publish_checkpoint(game, seq, hash, at).await
    }
    async fn checkpoint_of(&self, game: Uuid) -> Result<Option<CheckpointRecord>, StoreError> {
        self.inner.checkpoint_of(game).await
    }
    async fn checkpoints_after(
        &self,
        position: u64,
        limit: u32,
    ) -> Result<Vec<CheckpointRecord>, StoreError> {
        self.inner.checkpoints_after(position, limit).await
    }
}

#[async_trait]
impl NoticeStore for HeldAppend {
    async fn notice_preferences(&self, account: Uuid) -> Result<Option<String>, StoreError> {
        self.inner.notice_preferences(account).await
    }
    async fn save_notice_preferences(
        &self,
        account: Uuid,
        preferences: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.inner
            .save_notice_preferences(account, preferences, at)
            .await
    }
    async fn record_mail(
        &self,
        account: Uuid,
        at: DateTime<Utc>,
        forget: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.inner.record_mail(account, at, forget).await
    }
    async fn mails_sent_since(
        &self,
        account: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<DateTime<Utc>>, StoreError> {
        self.inner.mails_sent_since(account, since).await
    }
}

#[async_trait]
impl AppStore for HeldAppend {
    async fn create_oauth_code(
        &self,
        code: &OAuthCodeRecord,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.inner.create_oauth_code(code, now).await
    }
    async fn oauth_code(&self, code_hash: &str) -> Result<Option<OAuthCodeRecord>, StoreError> {
        self.inner.oauth_code(code_hash).await
    }
    async fn redeem_oauth_code(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<bool, StoreError> {
        self.inner.redeem_oauth_code(code_hash, at, token).await
    }
    async fn revoke_code_token(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError> {
        self.inner.revoke_code_token(code_hash, at).await
    }
    async fn revoke_token_by_hash(
        &self,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.inner.revoke_token_by_hash(token_hash, at).await
    }
    async fn revoke_app(
        &self,
        by: Uuid,
        account: Uuid,
        app: &str,
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        self.inner.revoke_app(by, account, app, at).await
    }
}

#[async_trait]
impl TicketStore for HeldAppend {
    async fn keep_stream_ticket(
        &self,
        ticket: &StreamTicketRecord,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.inner.keep_stream_ticket(ticket, now).await
    }
    async fn take_stream_ticket(
        &self,
        ticket_hash: &str,
        stream: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<StreamTicketRecord>, StoreError> {
        self.inner
            .take_stream_ticket(ticket_hash, stream, now)
            .await
    }
}

#[async_trait]
impl ListingStore for HeldAppend {
    async fn note_listing(&self, listing: &ListingRecord) -> Result<(), StoreError> {
        self.inner.note_listing(listing).await
    }
    async fn listings(
        &self,
        filter: &ListingFilter<'_>,
        now: DateTime<Utc>,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<Uuid>, StoreError> {
        self.inner.listings(filter, now, before, limit).await
    }
    async fn forget_listing(&self, game: Uuid) -> Result<(), StoreError> {
        self.inner.forget_listing(game).await
    }
}

#[async_trait]
impl SignInStore for HeldAppend {
    async fn begin_ceremony(
        &self,
        id: Uuid,
        state: &str,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.inner.begin_ceremony(id, state, expires_at, now).await
    }
    async fn take_ceremony(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, StoreError> {
        self.inner.take_ceremony(id, now).await
    }
    async fn add_passkey(&self, by: Uuid, passkey: &PasskeyRecord) -> Result<bool, StoreError> {
        self.inner.add_passkey(by, passkey).await
    }
    async fn passkeys(&self, account: Uuid) -> Result<Vec<PasskeyRecord>, StoreError> {
        self.inner.passkeys(account).await
    }
    async fn passkey_by_credential(
        &self,
        credential_id: &str,
    ) -> Result<Option<PasskeyRecord>, StoreError> {
        self.inner.passkey_by_credential(credential_id).await
    }
    async fn sign_in_with_passkey(
        &self,
        passkey: &PasskeyRecord,
        updated: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<bool, StoreError> {
        self.inner
            .sign_in_with_passkey(passkey, updated, at, token)
            .await
    }
    async fn remove_passkey(&self, by: Uuid, account: Uuid, id: Uuid) -> Result<bool, StoreError> {
        self.inner.remove_passkey(by, account, id).await
    }
    async fn verified_addresses(&self, mailto: &str) -> Result<Vec<(Uuid, Uuid)>, StoreError> {
        self.inner.verified_addresses(mailto).await
    }
    async fn create_email_sign_in(&self, record: &EmailSignInRecord) -> Result<(), StoreError> {
        self.inner.create_email_sign_in(record).await
    }
    async fn redeem_email_sign_in(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<Option<Uuid>, StoreError> {
        self.inner.redeem_email_sign_in(code_hash, at, token).await
    }
}

#[async_trait]
impl LeaderStore for HeldAppend {
    async fn lead(&self, name: &str) -> Result<Option<Box<dyn Leadership>>, StoreError> {
        self.inner.lead(name).await
    }
}

#[async_trait]
impl AccountStore for HeldAppend {
    async fn create_account(
        &self,
        account: &AccountRecord,
        token: &AccountTokenRecord,
    ) -> Result<(), StoreError> {
        self.inner.create_account(account, token).await
    }
    async fn account_for_token(
        &self,
        token_hash: &str,
    ) -> Result<Option<(AccountRecord, AccountTokenRecord)>, StoreError> {
        self.inner.account_for_token(token_hash).await
    }
    async fn account_tokens(&self, account: Uuid) -> Result<Vec<AccountTokenRecord>, StoreError> {
        self.inner.account_tokens(account).await
    }
    async fn mint_account_token(
        &self,
        by: Uuid,
        token: &AccountTokenRecord,
    ) -> Result<bool, StoreError> {
        self.inner.mint_account_token(by, token).await
    }
    async fn revoke_account_token(
        &self,
        by: Uuid,
        account: Uuid,
        token: Uuid,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.inner
            .revoke_account_token(by, account, token, at)
            .await
    }
    async fn live_account_tokens(&self, tokens: &[Uuid]) -> Result<Vec<Uuid>, StoreError> {
        self.inner.live_account_tokens(tokens).await
    }
    async fn account(&self, id: Uuid) -> Result<Option<AccountRecord>, StoreError> {
        self.inner.account(id).await
    }
    async fn link_account_game(
        &self,
        account: Uuid,
        game: Uuid,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), StoreError> {
        self.inner.link_account_game(account, game, at).await
    }
    async fn account_games(&self, account: Uuid) -> Result<Vec<Uuid>, StoreError> {
        self.inner.account_games(account).await
    }
    async fn live_account_games(&self, account: Uuid) -> Result<Vec<Uuid>, StoreError> {
        self.inner.live_account_games(account).await
    }
    async fn finished_account_games(
        &self,
        account: Uuid,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<Uuid>, StoreError> {
        self.inner
            .finished_account_games(account, before, limit)
            .await
    }
    async fn account_games_finished(
        &self,
        game: Uuid,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), StoreError> {
        self.inner.account_games_finished(game, at).await
    }
    async fn create_sign_in_code(&self, code: &SignInCodeRecord) -> Result<bool, StoreError> {
        self.inner.create_sign_in_code(code).await
    }
    async fn redeem_sign_in_code(
        &self,
        code_hash: &str,
        at: DateTime<Utc>,
        token: &AccountTokenRecord,
    ) -> Result<Option<Uuid>, StoreError> {
        self.inner.redeem_sign_in_code(code_hash, at, token).await
    }
}

#[async_trait]
impl ClockStore for HeldAppend {
    async fn set_attention(
        &self,
        game: Uuid,
        due: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.inner.set_attention(game, due).await
    }
    async fn attention_due(
        &self,
        before: DateTime<Utc>,
        after: Uuid,
        limit: u64,
    ) -> Result<Vec<Attention>, StoreError> {
        self.inner.attention_due(before, after, limit).await
    }
    async fn clear_attention_read(&self, note: &Attention) -> Result<bool, StoreError> {
        self.inner.clear_attention_read(note).await
    }
    async fn clocked_games(&self, after: Uuid, limit: u64) -> Result<Vec<Uuid>, StoreError> {
        self.inner.clocked_games(after, limit).await
    }
    async fn clocks_ended(&self, game: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.inner.clocks_ended(game, at).await
    }
    async fn begin_vacation(
        &self,
        account: Uuid,
        vacation: &VacationRecord,
    ) -> Result<bool, StoreError> {
        self.inner.begin_vacation(account, vacation).await
    }
    async fn vacations(
        &self,
        account: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<VacationRecord>, StoreError> {
        self.inner.vacations(account, since).await
    }
    async fn end_vacation(&self, account: Uuid, at: DateTime<Utc>) -> Result<bool, StoreError> {
        self.inner.end_vacation(account, at).await
    }
    async fn idle_games(
        &self,
        before: DateTime<Utc>,
        after: Uuid,
        limit: u64,
    ) -> Result<Vec<(Uuid, u64)>, StoreError> {
        self.inner.idle_games(before, after, limit).await
    }
}

#[async_trait]
impl WebhookStore for HeldAppend {
    async fn create_webhook(&self, webhook: &WebhookRecord) -> Result<(), StoreError> {
        self.inner.create_webhook(webhook).await
    }
    async fn webhooks_of(&self, account: Uuid) -> Result<Vec<WebhookRecord>, StoreError> {
        self.inner.webhooks_of(account).await
    }
    async fn webhook(&self, id: Uuid) -> Result<Option<WebhookRecord>, StoreError> {
        self.inner.webhook(id).await
    }
    async fn save_webhook(&self, webhook: &WebhookRecord) -> Result<bool, StoreError> {
        self.inner.save_webhook(webhook).await
    }
    async fn delete_webhook(&self, id: Uuid) -> Result<bool, StoreError> {
        self.inner.delete_webhook(id).await
    }
    async fn enqueue_messages(&self, messages: &[WebhookMessageRecord]) -> Result<(), StoreError> {
        self.inner.enqueue_messages(messages).await
    }
    async fn due_messages(
        &self,
        by: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<WebhookMessageRecord>, StoreError> {
        self.inner.due_messages(by, limit).await
    }
    async fn record_attempt(
        &self,
        webhook: Uuid,
        id: &str,
        attempt: &AttemptRecord,
        state: MessageState,
        next_attempt: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.inner
            .record_attempt(webhook, id, attempt, state, next_attempt)
            .await
    }
    async fn reschedule_message(
        &self,
        webhook: Uuid,
        id: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<WebhookMessageRecord>, StoreError> {
        self.inner.reschedule_message(webhook, id, at).await
    }
    async fn fail_pending(&self, webhook: Uuid) -> Result<(), StoreError> {
        self.inner.fail_pending(webhook).await
    }
    async fn messages_of(
        &self,
        webhook: Uuid,
        before: Option<i64>,
        limit: u64,
    ) -> Result<Vec<WebhookMessageRecord>, StoreError> {
        self.inner.messages_of(webhook, before, limit).await
    }
    async fn attempts_of(&self, webhook: Uuid, id: &str) -> Result<Vec<AttemptRecord>, StoreError> {
        self.inner.attempts_of(webhook, id).await
    }
}

async fn a_duplicate_sent_while_the_first_is_in_flight_is_409(backend: Backend) {
    let (url, _guard) = fresh_database(backend).await;
    let inner = store::connect_with(&url, &Settings::default().db)
        .await
        .unwrap();
    let held = Arc::new(HeldAppend {
        inner,
        hold: Mutex::new(None),
    });
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let app = Application::serve(
        listener,
        held.clone(),
        Signer::generate().unwrap(),
        Settings::default(),
    )
    .unwrap();
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    let app = TestApp::new(address, url, held.clone());
    let (id, tokens) = girl(&app).await;
    let before = version(&app, &id).await;
    let turn_up = json!({"type": "turn_up"});

    let (arrived, release) = held.arm();
    let first = {
        let client = app.client.clone();
        let url = format!("{}/v1/games/{id}/actions", app.address);
        let token = tokens[0].clone();
        let body = turn_up.clone();
        tokio::spawn(async move {
            client
                .post(url)
                .bearer_auth(token)
                .header("Idempotency-Key", "once")
                .json(&body)
                .send()
                .await
                .unwrap()
        })
    };
    arrived.await.expect("the first move reaches the store");
    let duplicate = send_move(&app, &id, &tokens[0], &turn_up, Some("once")).await;
    assert!(
        header(&duplicate, "retry-after").is_some(),
        "a duplicate in flight is told when to try again"
    );
    assert_problem(duplicate, StatusCode::CONFLICT, "idempotency-key-in-flight").await;

    release.send(()).unwrap();
    let first = first.await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(header(&first, "idempotent-replayed"), None);
    let first: Value = first.json().await.unwrap();
    let after = version(&app, &id).await;
    assert!(after > before);
    let retry = send_move(&app, &id, &tokens[0], &turn_up, Some("once")).await;
    assert_eq!(retry.status(), StatusCode::OK);
    assert_eq!(header(&retry, "idempotent-replayed"), Some("true"));
    assert_eq!(retry.json::<Value>().await.unwrap(), first);
    assert_eq!(
        version(&app, &id).await,
        after,
        "the move was recorded once"
    );
}

async fn a_server_requiring_preconditions_answers_428_to_a_move_without_if_match(backend: Backend) {
    let (url, guard) = fresh_database(backend).await;
    let settings = Settings {
        require_preconditions: true,
        ..Settings::default()
    };
    let app = spawn_app_with(&url, guard, settings).await;
    let (id, tokens) = girl(&app).await;
    let before = version(&app, &id).await;
    let events = app.all_events(&id, None).await;
    let turn_up = json!({"type": "turn_up"});
    let res = send_move(&app, &id, &tokens[0], &turn_up, Some("k")).await;
    assert_problem(
        res,
        StatusCode::PRECONDITION_REQUIRED,
        "precondition-required",
    )
    .await;
    assert_eq!(version(&app, &id).await, before);
    assert_eq!(app.all_events(&id, None).await, events);
    let url = format!("{}/v1/games/{id}/actions", app.address);
    let stale = app
        .client
        .post(&url)
        .bearer_auth(&tokens[0])
        .header("If-Match", format!("\"{}\"", before - 1))
        .json(&turn_up)
        .send()
        .await
        .unwrap();
    assert_problem(stale, StatusCode::PRECONDITION_FAILED, "version-mismatch").await;
    let current = app
        .client
        .post(&url)
        .bearer_auth(&tokens[0])
        .header("If-Match", format!("\"{before}\""))
        .json(&turn_up)
        .send()
        .await
        .unwrap();
    assert_eq!(current.status(), StatusCode::OK);
    // Reads need no precondition.
    app.view(&id, Some(&tokens[0])).await;
}

crate::on_both_backends!(
    every_answer_that_depends_on_the_token_varies_by_it_and_is_private,
    a_page_of_the_log_links_to_the_next_page_until_the_last,
    a_move_answered_from_its_idempotency_key_is_marked_as_replayed,
    an_idempotency_key_is_1_to_255_printable_characters_and_nothing_else,
    a_keyed_move_is_replayed_even_after_its_seat_went_to_a_bot,
    if_none_match_takes_a_star_or_a_list_of_versions,
);

/// Tests that build their own server (a clock, a store that holds appends, settings), once
/// per backend.
macro_rules! on_both_backends_with_own_server {
    ($($name:ident),* $(,)?) => {
        mod own_server {
            mod sqlite {
                $(
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $name() {
                        super::super::$name($crate::helpers::Backend::Sqlite).await;
                    }
                )*
            }
            mod postgres {
                $(
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $name() {
                        super::super::$name($crate::helpers::Backend::Postgres).await;
                    }
                )*
            }
        }
    };
}

on_both_backends_with_own_server!(
    an_idempotency_key_expires_and_is_then_a_new_request,
    a_duplicate_sent_while_the_first_is_in_flight_is_409,
    a_server_requiring_preconditions_answers_428_to_a_move_without_if_match,
);

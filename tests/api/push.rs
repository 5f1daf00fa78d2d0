//! Web Push against a real push service on loopback, as a browser's would be: it checks each
//! request's VAPID token (ES256 over the header and claims, by the key in `k`, addressed to
//! its own origin, not expired) and answers 201, or 404/410/500 as a test asks; the browser
//! side opens each body with its own private key and auth secret (RFC 8291), so a notice is
//! only read if it was sealed to that browser. The server's clock is moved and its relay
//! driven by the test, as in the webhooks' tests.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use p256::ecdsa::signature::Verifier as _;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use p256::{PublicKey, SecretKey};
use parlour::service::{Clock as _, Parlour};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::{Method, StatusCode};
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::helpers::new_account as account;
use crate::helpers::{assert_problem, TestApp};
use crate::webhooks::{dealt_girl, girl, hooked, play_to_the_end, Hooked};

/// One request the push service was sent.
#[derive(Debug, Clone)]
struct Pushed {
    path: String,
    header: HashMap<String, String>,
    body: Vec<u8>,
}

#[derive(Default)]
struct PushService {
    /// Status codes to answer, per path, before the default 201.
    replies: Mutex<HashMap<String, VecDeque<u16>>>,
    received: Mutex<Vec<Pushed>>,
}

impl PushService {
    fn received_at(&self, path: &str) -> Vec<Pushed> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .filter(|p| p.path == path)
            .cloned()
            .collect()
    }

    fn answer(&self, path: &str, statuses: &[u16]) {
        self.replies
            .lock()
            .unwrap()
            .entry(path.to_string())
            .or_default()
            .extend(statuses);
    }
}

async fn receive(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<PushService>,
) -> HttpResponse {
    let header = req
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_string(),
                value.to_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let path = req.path().to_string();
    state.received.lock().unwrap().push(Pushed {
        path: path.clone(),
        header,
        body: body.to_vec(),
    });
    let status = state
        .replies
        .lock()
        .unwrap()
        .get_mut(&path)
        .and_then(VecDeque::pop_front)
        .unwrap_or(201);
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap()).finish()
}

/// A push service on a random loopback port, and its origin.
fn push_service() -> (Arc<PushService>, String) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let state = web::Data::new(PushService::default());
    let shared = state.clone().into_inner();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .default_service(web::to(receive))
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    (shared, origin)
}

/// A browser's side of a subscription: its keys and its endpoint's path.
struct Browser {
    key: SecretKey,
    auth: [u8; 16],
    path: String,
}

impl Browser {
    fn new(path: &str, seed: u64) -> Browser {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let key = loop {
            let mut bytes = [0u8; 32];
            rng.fill_bytes(&mut bytes);
            if let Ok(key) = SecretKey::from_slice(&bytes) {
                break key;
            }
        };
        let mut auth = [0u8; 16];
        rng.fill_bytes(&mut auth);
        Browser {
            key,
            auth,
            path: path.to_string(),
        }
    }

    /// What `PushSubscription.toJSON()` gives.
    fn subscription(&self, origin: &str) -> Value {
        json!({
            "endpoint": format!("{origin}{}", self.path),
            "expirationTime": null,
            "keys": {
                "p256dh": URL_SAFE_NO_PAD.encode(self.key.public_key().to_encoded_point(false).as_bytes()),
                "auth": URL_SAFE_NO_PAD.encode(self.auth),
            },
        })
    }

    /// Opens a pushed body (RFC 8291 §3.4 and RFC 8188 §2, from the browser's side).
    fn open(&self, body: &[u8]) -> Value {
        let salt = &body[..16];
        let id_len = body[20] as usize;
        let sender = &body[21..21 + id_len];
        let shared = p256::ecdh::diffie_hellman(
            self.key.to_nonzero_scalar(),
            PublicKey::from_sec1_bytes(sender).unwrap().as_affine(),
        );
        let hkdf = |salt: &[u8], ikm: &[u8], info: &[u8], len: usize| {
            let mut okm = vec![0u8; len];
            hkdf::Hkdf::<Sha256>::new(Some(salt), ikm)
                .expand(info, &mut okm)
                .unwrap();
            okm
        };
        let mut info = b"WebPush: info\0".to_vec();
        info.extend_from_slice(self.key.public_key().to_encoded_point(false).as_bytes());
        info.extend_from_slice(sender);
        let ikm = hkdf(&self.auth, shared.raw_secret_bytes().as_slice(), &info, 32);
        let cek = hkdf(salt, &ikm, b"Content-Encoding: aes128gcm\0", 16);
        let nonce = hkdf(salt, &ikm, b"Content-Encoding: nonce\0", 12);
        let key = LessSafeKey::new(UnboundKey::new(&AES_128_GCM, &cek).unwrap());
        let mut record = body[21 + id_len..].to_vec();
        let plain = key
            .open_in_place(
                Nonce::try_assume_unique_for_key(&nonce).unwrap(),
                Aad::empty(),
                &mut record,
            )
            .expect("the push opens with this browser's keys");
        let end = plain.iter().rposition(|&b| b != 0).unwrap();
        assert_eq!(plain[end], 2, "one record, the last");
        serde_json::from_slice(&plain[..end]).unwrap()
    }
}

/// The claims of a request's VAPID token, checked as a push service checks them: signed by
/// the key it names, which must be the server's published key.
fn vapid_claims(pushed: &Pushed, published: &str) -> Value {
    let authorization = &pushed.header["authorization"];
    let (token, key) = authorization
        .strip_prefix("vapid t=")
        .and_then(|rest| rest.split_once(", k="))
        .unwrap_or_else(|| panic!("not a VAPID authorization: {authorization}"));
    assert_eq!(key, published, "the token names the published key");
    let (signed, signature) = token.rsplit_once('.').unwrap();
    let verifier = VerifyingKey::from_sec1_bytes(&URL_SAFE_NO_PAD.decode(key).unwrap()).unwrap();
    let signature = Signature::from_slice(&URL_SAFE_NO_PAD.decode(signature).unwrap()).unwrap();
    verifier
        .verify(signed.as_bytes(), &signature)
        .expect("the token is signed by the key it names");
    let (head, claims) = signed.split_once('.').unwrap();
    let head: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(head).unwrap()).unwrap();
    assert_eq!(head, json!({"typ": "JWT", "alg": "ES256"}));
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).unwrap()).unwrap()
}

async fn subscribe(app: &TestApp, token: &str, subscription: &Value) -> Value {
    let (status, created) = app
        .post("/v1/me/push-subscriptions", Some(token), subscription)
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created
}

async fn subscriptions(app: &TestApp, token: &str) -> Vec<Value> {
    let (status, list) = app.get("/v1/me/push-subscriptions", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["subscriptions"].as_array().unwrap().clone()
}

/// A push service, and Ann and Bea each with a browser subscribed at it (their keys made from
/// the two seeds): the service, the two tokens and the two browsers. (The service's origin is
/// the part of a browser's endpoint before its path.)
async fn ann_and_bea_subscribed(
    h: &Hooked,
    anns_seed: u64,
    beas_seed: u64,
) -> (Arc<PushService>, String, String, Browser, Browser) {
    let (push, origin) = push_service();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    let (anns, beas) = (
        Browser::new("/push/ann", anns_seed),
        Browser::new("/push/bea", beas_seed),
    );
    subscribe(&h.app, &ann, &anns.subscription(&origin)).await;
    subscribe(&h.app, &bea, &beas.subscription(&origin)).await;
    (push, ann, bea, anns, beas)
}

/// Runs the relay until the push service holds at least `count` requests at `path`.
async fn relay_until(service: &Parlour, push: &PushService, path: &str, count: usize) {
    for _ in 0..200 {
        service.webhooks().relay().await.unwrap();
        if push.received_at(path).len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "the push service holds {} pushes at {path}, not {count}",
        push.received_at(path).len()
    );
}

async fn a_players_browsers_are_pushed_their_notices_sealed_and_signed_for(h: Hooked) {
    let (push, ann, bea, anns, beas) = ann_and_bea_subscribed(&h, 1, 2).await;
    let id = girl(&h.app, &ann, &bea).await;
    // Bea's claim: Ann hears her seat was taken and the game began, Bea that it began, and
    // whoever is to move that it is their move.
    let view = h.app.view(&id, None).await;
    let first = view["to_act"][0].as_u64().unwrap();
    let mover_path = if first == 0 { "/push/ann" } else { "/push/bea" };
    relay_until(&h.service, &push, mover_path, 2).await;
    relay_until(&h.service, &push, "/push/ann", 2).await;
    relay_until(&h.service, &push, "/push/bea", 1).await;
    // 80 % of the mover's day, then all of it: a reminder, then the timeout.
    let before = push.received_at(mover_path).len();
    h.clock.advance(Duration::from_secs(20 * 3600));
    h.service.sweep_clocks().await.unwrap();
    h.clock.advance(Duration::from_secs(5 * 3600));
    h.service.sweep_clocks().await.unwrap();
    relay_until(&h.service, &push, mover_path, before + 2).await;

    let (_, key) = h.app.get("/v1/push/key", None).await;
    let published = key["application_server_key"].as_str().unwrap();
    let mut lengths = BTreeSet::new();
    let mut told: Vec<(String, String)> = Vec::new();
    let origin = subscriptions(&h.app, &ann).await[0]["endpoint"]
        .as_str()
        .unwrap()
        .trim_end_matches(&anns.path)
        .to_string();
    for pushed in push.received.lock().unwrap().iter() {
        let browser = if pushed.path == "/push/ann" {
            &anns
        } else {
            &beas
        };
        let notice = browser.open(&pushed.body);
        // What a notice carries, and nothing else: no card, no hand, no log entry.
        let fields: BTreeSet<&str> = notice
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            fields,
            BTreeSet::from(["type", "title", "body", "game", "url", "tag", "timestamp"])
        );
        assert_eq!(notice["game"], json!(id));
        assert_eq!(notice["url"], json!(format!("/play/games/{id}")));
        assert_eq!(notice["body"], "GIRL with Ann, Bea");
        let kind = notice["type"].as_str().unwrap().to_string();
        assert_eq!(
            pushed.header["urgency"],
            if kind == "game.your_turn" || kind == "game.deadline_near" || kind == "game.timed_out"
            {
                "high"
            } else {
                "normal"
            }
        );
        assert_eq!(pushed.header["content-encoding"], "aes128gcm");
        assert_eq!(pushed.header["ttl"], "86400");
        assert_eq!(
            pushed.header["topic"],
            uuid::Uuid::parse_str(&id).unwrap().simple().to_string()
        );
        let claims = vapid_claims(pushed, published);
        assert_eq!(claims["aud"], json!(origin));
        assert_eq!(claims["sub"], "mailto:postmaster@localhost");
        // Not yet expired when sent (the notice's time), and at most a day ahead (RFC 8292).
        let sent = chrono::DateTime::parse_from_rfc3339(notice["timestamp"].as_str().unwrap())
            .unwrap()
            .timestamp();
        let exp = claims["exp"].as_i64().unwrap();
        assert!(
            exp > sent && exp <= sent + 24 * 3600,
            "exp {exp}, sent {sent}"
        );
        assert!(sent <= h.clock.now().timestamp());
        lengths.insert(pushed.body.len());
        told.push((pushed.path.clone(), kind));
    }
    // Every push is as long as every other: its size tells nothing of what it says.
    assert_eq!(lengths.len(), 1, "{lengths:?}");
    let to = |path: &str| -> Vec<&str> {
        told.iter()
            .filter(|(p, _)| p == path)
            .map(|(_, k)| k.as_str())
            .collect()
    };
    assert!(to("/push/ann").contains(&"invitation.accepted"), "{told:?}");
    assert!(to("/push/ann").contains(&"game.started"), "{told:?}");
    assert!(to("/push/bea").contains(&"game.started"), "{told:?}");
    assert!(to(mover_path).contains(&"game.your_turn"), "{told:?}");
    assert!(to(mover_path).contains(&"game.deadline_near"), "{told:?}");
    assert!(to(mover_path).contains(&"game.timed_out"), "{told:?}");
    // After the timeout's default move it is the other's turn, and only then.
    let other = if mover_path == "/push/ann" {
        "/push/bea"
    } else {
        "/push/ann"
    };
    assert!(!to(other).contains(&"game.deadline_near"), "{told:?}");
}

async fn a_subscription_its_push_service_has_ended_is_removed(h: Hooked) {
    let (push, origin) = push_service();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    let (laptop, phone) = (
        Browser::new("/push/laptop", 3),
        Browser::new("/push/phone", 4),
    );
    push.answer("/push/laptop", &[410]);
    push.answer("/push/phone", &[404]);
    subscribe(&h.app, &ann, &laptop.subscription(&origin)).await;
    subscribe(&h.app, &ann, &phone.subscription(&origin)).await;
    assert_eq!(subscriptions(&h.app, &ann).await.len(), 2);
    girl(&h.app, &ann, &bea).await;
    relay_until(&h.service, &push, "/push/laptop", 1).await;
    relay_until(&h.service, &push, "/push/phone", 1).await;
    for _ in 0..10 {
        h.service.webhooks().relay().await.unwrap();
    }
    // Each was tried once, told it has ended (RFC 8030 §7.3), and is gone with its queue.
    assert_eq!(push.received_at("/push/laptop").len(), 1);
    assert_eq!(push.received_at("/push/phone").len(), 1);
    assert_eq!(subscriptions(&h.app, &ann).await, Vec::<Value>::new());
}

async fn a_failed_push_is_sent_again_on_the_schedule(h: Hooked) {
    let (push, origin) = push_service();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    let laptop = Browser::new("/push/laptop", 5);
    push.answer("/push/laptop", &[500]);
    subscribe(&h.app, &ann, &laptop.subscription(&origin)).await;
    girl(&h.app, &ann, &bea).await;
    relay_until(&h.service, &push, "/push/laptop", 1).await;
    let failed = laptop.open(&push.received_at("/push/laptop")[0].body);
    // The game's other notices go on without it; it alone waits for its retry.
    for _ in 0..5 {
        h.service.webhooks().relay().await.unwrap();
    }
    let seen = push.received_at("/push/laptop").len();
    // Not again before its retry is due (5 s on the webhooks' schedule) ...
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(push.received_at("/push/laptop").len(), seen);
    h.clock.advance(Duration::from_secs(6));
    relay_until(&h.service, &push, "/push/laptop", seen + 1).await;
    // ... then the same notice, sealed afresh.
    let again = push.received_at("/push/laptop");
    let retried = laptop.open(&again[seen].body);
    assert_eq!(retried["type"], failed["type"]);
    assert_eq!(retried["game"], failed["game"]);
    assert_ne!(again[seen].body, again[0].body);
    assert!(subscriptions(&h.app, &ann).await[0]["failing_since"].is_null());
}

async fn revoking_a_device_token_ends_its_pushes(h: Hooked) {
    let (push, origin) = push_service();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    let (status, phone_token) = h
        .app
        .post("/v1/me/tokens", Some(&ann), &json!({"name": "phone"}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{phone_token}");
    let phone_secret = phone_token["secret"].as_str().unwrap();
    let (laptop, phone) = (
        Browser::new("/push/laptop", 6),
        Browser::new("/push/phone", 7),
    );
    subscribe(&h.app, &ann, &laptop.subscription(&origin)).await;
    let made = subscribe(&h.app, phone_secret, &phone.subscription(&origin)).await;
    assert_eq!(made["token_id"], phone_token["id"]);
    let res = h
        .app
        .request(
            Method::DELETE,
            &format!("/v1/me/tokens/{}", phone_token["id"].as_str().unwrap()),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    girl(&h.app, &ann, &bea).await;
    relay_until(&h.service, &push, "/push/laptop", 2).await;
    for _ in 0..10 {
        h.service.webhooks().relay().await.unwrap();
    }
    assert_eq!(push.received_at("/push/phone").len(), 0);
    let left = subscriptions(&h.app, &ann).await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["endpoint"], json!(format!("{origin}/push/laptop")));
}

async fn bad_subscriptions_are_refused_and_a_subscription_is_not_a_webhook(h: Hooked) {
    let (_push, origin) = push_service();
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    let good = Browser::new("/push/laptop", 8).subscription(&origin);
    let with = |pointer: &str, value: Value| {
        let mut body = good.clone();
        *body.pointer_mut(pointer).unwrap() = value;
        body
    };
    let post = |body: Value, token: Option<String>| {
        let app = &h.app;
        async move {
            app.request(
                Method::POST,
                "/v1/me/push-subscriptions",
                token.as_deref(),
                Some(&body),
            )
            .await
        }
    };
    let ann_token = Some(ann.clone());
    for (body, code) in [
        (
            with("/keys/p256dh", json!("AAAA")),
            "invalid-push-subscription",
        ),
        (
            with("/keys/auth", json!("c2hvcnQ")),
            "invalid-push-subscription",
        ),
        (
            with("/endpoint", json!("ftp://127.0.0.1/push")),
            "invalid-push-subscription",
        ),
        (
            with("/endpoint", json!("not a url")),
            "invalid-push-subscription",
        ),
        (json!({"endpoint": good["endpoint"]}), "malformed-request"),
        (
            with(
                "/keys",
                json!({"p256dh": good["keys"]["p256dh"], "auth": good["keys"]["auth"], "x": 1}),
            ),
            "malformed-request",
        ),
    ] {
        let status = if code == "malformed-request" {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::UNPROCESSABLE_ENTITY
        };
        assert_problem(post(body, ann_token.clone()).await, status, code).await;
    }
    assert_problem(
        post(good.clone(), None).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    assert_eq!(subscriptions(&h.app, &ann).await, Vec::<Value>::new());

    // The same browser subscribing again replaces what it had, for whichever account.
    let first = subscribe(&h.app, &ann, &good).await;
    let second = subscribe(&h.app, &ann, &good).await;
    let listed = subscriptions(&h.app, &ann).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], second["id"]);
    assert_ne!(first["id"], second["id"]);
    let moved = subscribe(&h.app, &bea, &good).await;
    assert_eq!(subscriptions(&h.app, &ann).await, Vec::<Value>::new());
    let id = moved["id"].as_str().unwrap();

    // A subscription is not one of the account's webhooks, and nobody else's to delete.
    let (_, webhooks) = h.app.get("/v1/webhooks", Some(&bea)).await;
    assert_eq!(webhooks["webhooks"], json!([]));
    let res = h
        .app
        .request(Method::GET, &format!("/v1/webhooks/{id}"), Some(&bea), None)
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    let delete = |token: String| {
        let app = &h.app;
        let path = format!("/v1/me/push-subscriptions/{id}");
        async move { app.request(Method::DELETE, &path, Some(&token), None).await }
    };
    assert_problem(
        delete(ann.clone()).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
    assert_eq!(delete(bea.clone()).await.status(), StatusCode::NO_CONTENT);
    assert_problem(
        delete(bea.clone()).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
    assert_eq!(subscriptions(&h.app, &bea).await, Vec::<Value>::new());
}

/// A game played to its end tells each player how it went, and a test push to nobody else.
async fn the_end_of_a_game_is_pushed_to_both_players(h: Hooked) {
    let (push, ann, bea, anns, beas) = ann_and_bea_subscribed(&h, 9, 10).await;
    let id = girl(&h.app, &ann, &bea).await;
    play_to_the_end(&h.app, &id, &[ann.clone(), bea.clone()]).await;
    for (browser, path) in [(&anns, "/push/ann"), (&beas, "/push/bea")] {
        let mut ended = false;
        for _ in 0..200 {
            h.service.webhooks().relay().await.unwrap();
            ended = push
                .received_at(path)
                .iter()
                .any(|p| browser.open(&p.body)["type"] == "game.finished");
            if ended {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(ended, "{path} was not told the game ended");
    }
}

/// Runs the relay until `browser` has been pushed a notice `matching`, and gives it.
async fn pushed_until(
    h: &Hooked,
    push: &PushService,
    browser: &Browser,
    matching: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..400 {
        h.service.webhooks().relay().await.unwrap();
        let found = push
            .received_at(&browser.path)
            .iter()
            .map(|p| browser.open(&p.body))
            .find(|notice| matching(notice));
        if let Some(notice) = found {
            return notice;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let told: Vec<Value> = push
        .received_at(&browser.path)
        .iter()
        .map(|p| browser.open(&p.body))
        .collect();
    panic!(
        "{} was never pushed the notice looked for: {told:?}",
        browser.path
    );
}

/// A seat held for a player is pushed to them as an invitation, and a match's next deal to
/// every player as it is dealt, not only to whoever moves first in it.
async fn a_seat_held_for_a_player_and_a_matchs_next_deal_are_pushed(h: Hooked) {
    let (push, ann, bea, anns, beas) = ann_and_bea_subscribed(&h, 11, 12).await;
    let (_, me) = h.app.get("/v1/me", Some(&bea)).await;
    let (status, hosted) = h
        .app
        .post(
            "/v1/me/games",
            Some(&ann),
            &json!({"game": "girl", "seats": [{"kind": "me"}, {"kind": "account", "account": me["account"]["id"]}]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hosted}");
    let held = hosted["id"].as_str().unwrap().to_string();
    let invited = pushed_until(&h, &push, &beas, |n| n["type"] == "invitation.received").await;
    assert_eq!(invited["title"], "A seat is held for you");
    assert_eq!(invited["game"], json!(held));
    assert_eq!(invited["url"], json!(format!("/play/games/{held}")));

    let (_, first) = crate::helpers::hosted_girl_match(&h.app, &ann, &bea, json!({})).await;
    play_to_the_end(&h.app, &first, &[ann.clone(), bea.clone()]).await;
    for browser in [&anns, &beas] {
        let dealt = pushed_until(&h, &push, browser, |n| {
            n["type"] == "game.started" && n["title"] == "The next deal has begun"
        })
        .await;
        assert_ne!(
            dealt["game"],
            json!(first),
            "the next deal is a game of its own"
        );
    }
    // Nobody but Bea was offered a seat.
    let anns_told: Vec<Value> = push
        .received_at(&anns.path)
        .iter()
        .map(|p| anns.open(&p.body)["type"].clone())
        .collect();
    assert!(
        !anns_told.contains(&json!("invitation.received")),
        "{anns_told:?}"
    );
}

/// What `browser` was pushed about game `id`: each body's length, and the notice with the
/// game's id and the time it was made taken out (the only parts that may differ).
fn pushed_about(push: &PushService, browser: &Browser, id: &str) -> Vec<(usize, Value)> {
    push.received_at(&browser.path)
        .iter()
        .map(|p| (p.body.len(), browser.open(&p.body)))
        .filter(|(_, notice)| notice["game"] == json!(id))
        .map(|(len, mut notice)| {
            for field in ["game", "url", "tag", "timestamp"] {
                notice[field] = Value::Null;
            }
            (len, notice)
        })
        .collect()
}

/// Two games that differ only in the cards Ann laid face down push both players the same
/// notices, and pushes of the same size: nothing pushed depends on a card its player cannot
/// see (the webhooks' noninterference test, through the push service).
async fn games_differing_only_in_a_hidden_lay_push_the_same_notices(h: Hooked) {
    let (push, ann, bea, anns, beas) = ann_and_bea_subscribed(&h, 11, 12).await;
    let tokens = [ann.clone(), bea.clone()];
    let mut told = Vec::new();
    for choice in [[0, 1, 2], [3, 4, 5]] {
        let id = dealt_girl(&h.app, &ann, &bea, Some(&"5a".repeat(32))).await;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        while h.app.view(&id, None).await["public"]["phase"] != json!("trick") {
            crate::client::random_move(&h.app, &id, &tokens, &mut rng, |_| true)
                .await
                .unwrap();
        }
        let hand = crate::helpers::hand(&h.app, &id, &ann).await;
        let cards: Vec<&String> = choice.iter().map(|i| &hand[*i]).collect();
        let (status, body) = h
            .app
            .act(&id, &ann, &json!({"type": "lay", "cards": cards}))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        // Every commit fanned out, then every message pushed. A game begun after the lay is no
        // barrier: the fan-outs of two games may finish in either order (this test once failed
        // when the lay's "Your move" came after the next game's notices).
        crate::webhooks::outbox_drained(h.url()).await;
        crate::webhooks::all_relayed(&h.service, h.url()).await;
        told.push((
            pushed_about(&push, &anns, &id),
            pushed_about(&push, &beas, &id),
        ));
    }
    assert!(!told[0].0.is_empty() && !told[0].1.is_empty(), "{told:?}");
    assert_eq!(told[0], told[1]);
}

async fn pushes_follow_the_accounts_preferences_and_wait_out_its_quiet_hours(h: Hooked) {
    let (push, ann, bea, anns, _beas) = ann_and_bea_subscribed(&h, 5, 6).await;
    // The clock reads 09:00 UTC: Ann is quiet until ten, and wants only to hear a game began.
    let (_, mut chosen) = h.app.get("/v1/me/notice-preferences", Some(&ann)).await;
    chosen["push"] = json!(["game.started"]);
    chosen["quiet_hours"] = json!({"from": "08:00", "until": "10:00"});
    let res = h
        .app
        .request(
            Method::PUT,
            "/v1/me/notice-preferences",
            Some(&ann),
            Some(&chosen),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let id = girl(&h.app, &ann, &bea).await;
    crate::webhooks::outbox_drained(&h.app.database_url).await;
    relay_until(&h.service, &push, "/push/bea", 1).await;
    assert!(push.received_at("/push/ann").is_empty(), "quiet hours");
    h.clock.advance(Duration::from_secs(3600));
    relay_until(&h.service, &push, "/push/ann", 1).await;
    h.service.webhooks().relay().await.unwrap();
    let pushed = push.received_at("/push/ann");
    assert_eq!(pushed.len(), 1, "only the notice Ann chose");
    let notice = anns.open(&pushed[0].body);
    assert_eq!(notice["type"], "game.started");
    assert_eq!(notice["game"], json!(id));
}

async fn every_sign_in_is_pushed_to_the_accounts_browsers_and_no_one_elses(h: Hooked) {
    let (push, ann, bea, anns, _beas) = ann_and_bea_subscribed(&h, 31, 32).await;

    // A sign-in code, redeemed on a new device.
    crate::helpers::sign_in_with_code(&h.app, &ann, "library computer").await;
    relay_until(&h.service, &push, "/push/ann", 1).await;
    let notice = anns.open(&push.received_at("/push/ann")[0].body);
    assert_eq!(notice["type"], "account.signed_in");
    assert_eq!(notice["title"], "New sign-in");
    assert_eq!(
        notice["body"],
        "library computer signed in to your account with a sign-in code. Not you? Revoke it on \
         your account page."
    );
    assert_eq!(notice["url"], "/play/account");
    assert_eq!(notice["game"], Value::Null);

    // A passkey, on another.
    let mut authenticator = crate::passkeys::Authenticator::for_app(&h.app, 33);
    crate::passkeys::register(&h.app, &ann, &mut authenticator, "phone").await;
    let (status, _) = crate::passkeys::sign_in(&h.app, &mut authenticator, "tablet").await;
    assert_eq!(status, StatusCode::CREATED);
    relay_until(&h.service, &push, "/push/ann", 2).await;
    let notice = anns.open(&push.received_at("/push/ann")[1].body);
    assert!(
        notice["body"]
            .as_str()
            .unwrap()
            .starts_with("tablet signed in to your account with the passkey phone."),
        "{notice}"
    );

    // Making an account, minting a token from a signed-in device, registering a passkey:
    // none is a sign-in, and Bea is told nothing of Ann's.
    let (status, _) = h
        .app
        .post("/v1/me/tokens", Some(&bea), &json!({"name": "second"}))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(push.received_at("/push/ann").len(), 2);
    assert!(push.received_at("/push/bea").is_empty());
}

macro_rules! pushed_on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::hooked(crate::helpers::Backend::Sqlite).await).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::hooked(crate::helpers::Backend::Postgres).await).await;
                }
            )*
        }
    };
}

pushed_on_both_backends!(
    a_players_browsers_are_pushed_their_notices_sealed_and_signed_for,
    a_subscription_its_push_service_has_ended_is_removed,
    a_failed_push_is_sent_again_on_the_schedule,
    revoking_a_device_token_ends_its_pushes,
    bad_subscriptions_are_refused_and_a_subscription_is_not_a_webhook,
    the_end_of_a_game_is_pushed_to_both_players,
    a_seat_held_for_a_player_and_a_matchs_next_deal_are_pushed,
    games_differing_only_in_a_hidden_lay_push_the_same_notices,
    pushes_follow_the_accounts_preferences_and_wait_out_its_quiet_hours,
    every_sign_in_is_pushed_to_the_accounts_browsers_and_no_one_elses,
);

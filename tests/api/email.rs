//! Email against a real SMTP server on loopback: the sink below speaks SMTP as a mail relay
//! would (greeting, EHLO, MAIL, RCPT, DATA with dot-stuffing, RSET, QUIT), keeps every mail
//! it accepts, and refuses a recipient with a 4xx or 5xx reply when a test asks. Each mail is
//! read as a mail client reads it (`mail-parser`). The server's clock is moved and its relay
//! driven by the test, as in the webhooks' and the push tests.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parlour::service::Clock as _;
use parlour::startup::EmailConfig;
use rand_core::SeedableRng as _;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

use crate::helpers::new_account as account;
use crate::helpers::{assert_problem, Backend};
use crate::webhooks::{
    dealt_girl, girl, hooked, hooked_with, outbox_drained, play_to_the_end, Hooked,
};

/// One mail the sink accepted.
#[derive(Debug, Clone)]
pub(crate) struct Sunk {
    /// The envelope's recipients.
    to: Vec<String>,
    /// The message as sent.
    raw: Vec<u8>,
}

impl Sunk {
    fn parsed(&self) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default()
            .parse(&self.raw)
            .expect("a mail a client can read")
    }

    fn subject(&self) -> String {
        self.parsed().subject().unwrap_or_default().to_string()
    }

    pub(crate) fn text(&self) -> String {
        self.parsed().body_text(0).unwrap_or_default().to_string()
    }

    fn html(&self) -> String {
        self.parsed().body_html(0).unwrap_or_default().to_string()
    }

    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.parsed()
            .header_raw(name)
            .map(|value| value.trim().to_string())
    }

    /// The first URL in the plain-text part that starts with `prefix`.
    fn link(&self, prefix: &str) -> String {
        let text = self.text();
        let start = text
            .find(prefix)
            .unwrap_or_else(|| panic!("no {prefix} link in {text}"));
        text[start..].split_whitespace().next().unwrap().to_string()
    }
}

/// An SMTP server keeping what it is sent.
#[derive(Default)]
pub(crate) struct Sink {
    /// Replies to give a recipient's `RCPT TO`, in turn, before the usual 250.
    replies: Mutex<HashMap<String, VecDeque<&'static str>>>,
    mails: Mutex<Vec<Sunk>>,
}

impl Sink {
    pub(crate) fn to(&self, address: &str) -> Vec<Sunk> {
        self.mails
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.to.iter().any(|t| t == address))
            .cloned()
            .collect()
    }

    fn refuse(&self, address: &str, replies: &[&'static str]) {
        self.replies
            .lock()
            .unwrap()
            .entry(address.to_string())
            .or_default()
            .extend(replies);
    }
}

/// An SMTP sink on a random loopback port, and its `smtp://` URL.
pub(crate) async fn sink() -> (Arc<Sink>, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("smtp://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let sink = Arc::new(Sink::default());
    let shared = sink.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(converse(stream, shared.clone()));
        }
    });
    (sink, url)
}

/// One SMTP session (RFC 5321), as much of it as a client sending mail uses.
async fn converse(stream: tokio::net::TcpStream, sink: Arc<Sink>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    let mut say = |text: &'static str| text;
    let _ = &mut say;
    if write.write_all(b"220 sink ESMTP ready\r\n").await.is_err() {
        return;
    }
    let mut to: Vec<String> = Vec::new();
    loop {
        let mut line = String::new();
        if lines.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        let command = line.trim_end().to_string();
        let verb = command
            .split([' ', ':'])
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let reply: String = match verb.as_str() {
            "EHLO" => "250-sink\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n".into(),
            "HELO" => "250 sink\r\n".into(),
            "MAIL" => {
                to.clear();
                "250 2.1.0 ok\r\n".into()
            }
            "RCPT" => {
                let address = command
                    .split('<')
                    .nth(1)
                    .and_then(|rest| rest.split('>').next())
                    .unwrap_or_default()
                    .to_string();
                let refusal = sink
                    .replies
                    .lock()
                    .unwrap()
                    .get_mut(&address)
                    .and_then(VecDeque::pop_front);
                match refusal {
                    Some(reply) => format!("{reply}\r\n"),
                    None => {
                        to.push(address);
                        "250 2.1.5 ok\r\n".into()
                    }
                }
            }
            "DATA" => {
                if write.write_all(b"354 go on\r\n").await.is_err() {
                    return;
                }
                let mut raw = Vec::new();
                loop {
                    let mut data = String::new();
                    if lines.read_line(&mut data).await.unwrap_or(0) == 0 {
                        return;
                    }
                    if data == ".\r\n" {
                        break;
                    }
                    let data = data.strip_prefix('.').unwrap_or(&data);
                    raw.extend_from_slice(data.as_bytes());
                }
                sink.mails.lock().unwrap().push(Sunk {
                    to: std::mem::take(&mut to),
                    raw,
                });
                "250 2.0.0 queued\r\n".into()
            }
            "RSET" => {
                to.clear();
                "250 ok\r\n".into()
            }
            "NOOP" => "250 ok\r\n".into(),
            "QUIT" => {
                let _ = write.write_all(b"221 bye\r\n").await;
                return;
            }
            _ => "502 5.5.2 not understood\r\n".into(),
        };
        if write.write_all(reply.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// A server mailing through a fresh sink, at most `per_hour` mails an hour per account.
async fn mailed(backend: Backend, per_hour: u32) -> (Hooked, Arc<Sink>) {
    let (sink, url) = sink().await;
    let h = hooked_with(
        backend,
        EmailConfig {
            smtp_url: Some(url),
            per_hour,
            ..EmailConfig::default()
        },
    )
    .await;
    (h, sink)
}

/// Runs the relay until the sink holds at least `count` mails to `address`.
async fn relay_until(h: &Hooked, sink: &Sink, address: &str, count: usize) -> Vec<Sunk> {
    for _ in 0..200 {
        h.service.webhooks().relay().await.unwrap();
        let mails = sink.to(address);
        if mails.len() >= count {
            return mails;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "the sink holds {} mails to {address}, not {count}",
        sink.to(address).len()
    );
}

/// Runs the relay until a mail to `address` says `told`.
async fn relay_until_told(h: &Hooked, sink: &Sink, address: &str, told: &str) -> Sunk {
    for _ in 0..200 {
        h.service.webhooks().relay().await.unwrap();
        if let Some(mail) = sink
            .to(address)
            .into_iter()
            .find(|m| m.text().contains(told))
        {
            return mail;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no mail to {address} says {told:?}");
}

/// Adds `address` to the account: the address as answered.
async fn add(h: &Hooked, token: &str, address: &str) -> Value {
    let (status, body) = h
        .app
        .post(
            "/v1/me/email-addresses",
            Some(token),
            &json!({ "address": address }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

/// Posts to a mailed link as a mail client's one-click unsubscribe does (RFC 8058), which
/// is also how a program follows one (no `Accept: text/html`).
async fn post_link(link: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(link)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap()
}

/// [`post_link`], answered.
async fn follow(link: &str) -> (StatusCode, Value) {
    let response = post_link(link).await;
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

/// Adds and verifies `address` for the account (its verification mail is the sink's first
/// to it).
async fn verified(h: &Hooked, sink: &Sink, token: &str, address: &str) {
    add(h, token, address).await;
    let mails = relay_until(h, sink, address, 1).await;
    let link = mails[0].link("http://");
    let (status, body) = follow(&link).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["verified"], true);
}

async fn addresses(h: &Hooked, token: &str) -> Value {
    let (status, body) = h.app.get("/v1/me/email-addresses", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn set_preferences(h: &Hooked, token: &str, preferences: Value) -> Value {
    let res = h
        .app
        .request(
            Method::PUT,
            "/v1/me/notice-preferences",
            Some(token),
            Some(&preferences),
        )
        .await;
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// Plays one legal move for whoever is to move.
async fn one_move(h: &Hooked, id: &str, tokens: &[String; 2]) {
    let view = h.app.view(id, None).await;
    let seat = view["to_act"][0].as_u64().unwrap() as usize;
    let mine = h.app.view(id, Some(&tokens[seat])).await;
    let action = parlour_domain::playout::instantiate(
        &mine["legal_actions"][0],
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(3),
    );
    let (status, body) = h.app.act(id, &tokens[seat], &action).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn an_address_is_mailed_only_its_verification_until_its_owner_follows_the_link(
    backend: Backend,
) {
    let (h, sink) = mailed(backend, 100).await;
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    verified(&h, &sink, &bea, "bea@example.org").await;
    let added = add(&h, &ann, "Ann@Example.ORG").await;
    assert_eq!(
        added["address"], "Ann@example.org",
        "the domain is lowercased"
    );
    assert_eq!(added["verified"], false);
    assert_eq!(added["notices"], true);

    let id = girl(&h.app, &ann, &bea).await;
    // Bea is told the game began; by then the fan-out has passed Ann's unverified address.
    relay_until(&h, &sink, "bea@example.org", 2).await;
    let anns = sink.to("Ann@example.org");
    assert_eq!(anns.len(), 1, "only the verification: {anns:?}");
    let verification = &anns[0];
    assert_eq!(verification.subject(), "Confirm your address for Parlour");
    assert!(verification.text().contains("\"Ann\""));
    let raw = String::from_utf8_lossy(&verification.raw).to_string();
    assert!(
        raw.contains("text/plain") && raw.contains("text/html"),
        "{raw}"
    );
    assert_eq!(
        verification.header("Auto-Submitted").as_deref(),
        Some("auto-generated")
    );
    let link = verification.link("http://");
    assert!(link.contains("/v1/email/verify?token="), "{link}");
    assert!(verification.html().contains("Confirm this address"));

    // Opening the link shows a button and changes nothing.
    let page = reqwest::get(&link).await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(page.headers()["referrer-policy"], "no-referrer");
    let text = page.text().await.unwrap();
    assert!(text.contains("<form method=\"post\""), "{text}");
    assert_eq!(addresses(&h, &ann).await["addresses"][0]["verified"], false);

    // A browser pressing the button is shown a page; the address is verified.
    let pressed = reqwest::Client::new()
        .post(&link)
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(pressed.status(), StatusCode::OK);
    assert!(pressed.text().await.unwrap().contains("Address confirmed"));
    let listed = addresses(&h, &ann).await;
    assert_eq!(listed["email_enabled"], true);
    assert_eq!(listed["addresses"][0]["verified"], true);
    assert_eq!(listed["addresses"][0]["verified_at"], json!(h.clock.now()));

    // From now on Ann's notices are mailed: the next move tells someone it is their move.
    let tokens = [ann.clone(), bea.clone()];
    let bea_before = sink.to("bea@example.org").len();
    one_move(&h, &id, &tokens).await;
    let view = h.app.view(&id, None).await;
    let mover = if view["to_act"][0] == 0 {
        "Ann@example.org"
    } else {
        "bea@example.org"
    };
    let before = if mover == "bea@example.org" {
        bea_before
    } else {
        1
    };
    let mails = relay_until(&h, &sink, mover, before + 1).await;
    let notice = mails.last().unwrap();
    assert_eq!(notice.subject(), "Your move: GIRL with Ann, Bea");
    assert!(
        notice.text().contains(&format!("/play/games/{id}")),
        "{}",
        notice.text()
    );
    assert!(notice.html().contains("Open the table"));
    let unsubscribe = notice.header("List-Unsubscribe").unwrap();
    assert!(
        unsubscribe.starts_with("<http://127.0.0.1:")
            && unsubscribe.contains("/v1/email/unsubscribe?token=")
    );
    assert_eq!(
        notice.header("List-Unsubscribe-Post").as_deref(),
        Some("List-Unsubscribe=One-Click")
    );
}

async fn one_click_unsubscribe_stops_the_notices_until_they_are_turned_on_again(backend: Backend) {
    let (h, sink) = mailed(backend, 100).await;
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    verified(&h, &sink, &ann, "ann@example.org").await;
    verified(&h, &sink, &bea, "bea@example.org").await;
    let id = girl(&h.app, &ann, &bea).await;
    // Ann hears her seat was taken and the game began.
    let mails = relay_until(&h, &sink, "ann@example.org", 2).await;
    let header = mails[1].header("List-Unsubscribe").unwrap();
    let link = header
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_string();
    assert!(
        mails[1].text().contains(&link),
        "the link is in the text too"
    );

    // The mail client's one-click POST (RFC 8058).
    let (status, body) = follow(&link).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["notices"], false);
    let listed = addresses(&h, &ann).await;
    assert_eq!(listed["addresses"][0]["notices"], false);
    assert!(listed["addresses"][0]["stopped_reason"]
        .as_str()
        .unwrap()
        .contains("unsubscribed"));

    // Play on: Bea's mails keep coming, Ann's do not.
    let tokens = [ann.clone(), bea.clone()];
    let anns = sink.to("ann@example.org").len();
    let beas = sink.to("bea@example.org").len();
    for _ in 0..4 {
        one_move(&h, &id, &tokens).await;
    }
    outbox_drained(&h.app.database_url).await;
    relay_until(&h, &sink, "bea@example.org", beas + 1).await;
    assert_eq!(sink.to("ann@example.org").len(), anns);

    // Ann turns them on again in her account.
    let address = listed["addresses"][0]["id"].as_str().unwrap().to_string();
    let res = h
        .app
        .request(
            Method::PATCH,
            &format!("/v1/me/email-addresses/{address}"),
            Some(&ann),
            Some(&json!({"notices": true})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    play_to_the_end(&h.app, &id, &tokens).await;
    relay_until_told(&h, &sink, "ann@example.org", "A game has ended").await;
}

async fn preferences_choose_what_is_mailed_and_quiet_hours_hold_it_until_they_end(
    backend: Backend,
) {
    let (h, sink) = mailed(backend, 100).await;
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    verified(&h, &sink, &ann, "ann@example.org").await;
    verified(&h, &sink, &bea, "bea@example.org").await;
    let (status, defaults) = h.app.get("/v1/me/notice-preferences", Some(&ann)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(defaults["time_zone"], "UTC");
    assert_eq!(defaults["email_digest"], false);
    assert_eq!(defaults["quiet_hours"], Value::Null);
    assert_eq!(defaults["email"].as_array().unwrap().len(), 8);
    // The clock reads 09:00 UTC, which is 10:00 in London in May: quiet until 11:30 there.
    let mut chosen = defaults.clone();
    chosen["email"] = json!(["game.started"]);
    chosen["quiet_hours"] = json!({"from": "09:30", "until": "11:30"});
    chosen["time_zone"] = json!("Europe/London");
    assert_eq!(set_preferences(&h, &ann, chosen.clone()).await, chosen);
    let (_, kept) = h.app.get("/v1/me/notice-preferences", Some(&ann)).await;
    assert_eq!(kept, chosen);

    let id = girl(&h.app, &ann, &bea).await;
    let tokens = [ann.clone(), bea.clone()];
    for _ in 0..3 {
        one_move(&h, &id, &tokens).await;
    }
    // Every move was fanned out and relayed: Bea (no quiet hours) has heard, Ann not yet.
    outbox_drained(&h.app.database_url).await;
    relay_until_told(&h, &sink, "bea@example.org", "Your move").await;
    assert_eq!(sink.to("ann@example.org").len(), 1, "only the verification");

    // At 11:30 London time the one notice Ann chose comes; not her moves, not the seat taken.
    h.clock.advance(Duration::from_secs(90 * 60));
    let mails = relay_until(&h, &sink, "ann@example.org", 2).await;
    assert_eq!(mails.len(), 2);
    assert_eq!(mails[1].subject(), "A game has begun: GIRL with Ann, Bea");
}

async fn the_daily_digest_mails_every_notice_at_once_at_its_hour(backend: Backend) {
    let (h, sink) = mailed(backend, 100).await;
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    verified(&h, &sink, &ann, "ann@example.org").await;
    verified(&h, &sink, &bea, "bea@example.org").await;
    let (_, mut chosen) = h.app.get("/v1/me/notice-preferences", Some(&ann)).await;
    chosen["email_digest"] = json!(true);
    chosen["digest_hour"] = json!(18);
    set_preferences(&h, &ann, chosen).await;

    let id = girl(&h.app, &ann, &bea).await;
    let tokens = [ann.clone(), bea.clone()];
    play_to_the_end(&h.app, &id, &tokens).await;
    outbox_drained(&h.app.database_url).await;
    relay_until_told(&h, &sink, "bea@example.org", "A game has ended").await;
    // Half past five: still nothing for Ann.
    h.clock.advance(Duration::from_secs(8 * 3600 + 30 * 60));
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(sink.to("ann@example.org").len(), 1, "only the verification");
    // Six o'clock: one mail with all of it.
    h.clock.advance(Duration::from_secs(30 * 60));
    let mails = relay_until(&h, &sink, "ann@example.org", 2).await;
    let digest = &mails[1];
    assert!(
        digest.subject().ends_with("notices from Parlour"),
        "{}",
        digest.subject()
    );
    let text = digest.text();
    for told in [
        "A seat was taken",
        "A game has begun",
        "Your move",
        "A game has ended",
    ] {
        assert!(text.contains(told), "{told} missing from {text}");
    }
    // In the order things happened, what happened in one move before what it asks.
    let at = |told: &str| text.find(told).unwrap();
    assert!(at("A seat was taken") < at("A game has begun"), "{text}");
    assert!(at("A game has begun") < at("Your move"), "{text}");
    assert!(at("Your move") < at("A game has ended"), "{text}");
    // Ann was asked to move many times in the game: the digest says so once.
    assert_eq!(text.matches("Your move").count(), 1, "{text}");
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(
        sink.to("ann@example.org").len(),
        2,
        "one mail, not one per notice"
    );
}

async fn mail_over_the_hourly_limit_waits_and_goes_together(backend: Backend) {
    let (h, sink) = mailed(backend, 2).await;
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    // The verification is Ann's first mail of the hour.
    verified(&h, &sink, &ann, "ann@example.org").await;
    verified(&h, &sink, &bea, "bea@example.org").await;
    let id = girl(&h.app, &ann, &bea).await;
    // The seat taken and the game begun: Ann's second mail.
    let mails = relay_until(&h, &sink, "ann@example.org", 2).await;
    assert_eq!(mails.len(), 2);
    let tokens = [ann.clone(), bea.clone()];
    play_to_the_end(&h.app, &id, &tokens).await;
    // Bea (two mails so far this hour as well) waits too; nothing more goes this hour.
    outbox_drained(&h.app.database_url).await;
    for _ in 0..5 {
        h.service.webhooks().relay().await.unwrap();
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(sink.to("ann@example.org").len(), 2);
    assert_eq!(sink.to("bea@example.org").len(), 2);
    // An hour after the first mail, what waited goes as one.
    h.clock.advance(Duration::from_secs(3600));
    let mails = relay_until(&h, &sink, "ann@example.org", 3).await;
    assert!(
        mails[2].text().contains("A game has ended"),
        "{}",
        mails[2].text()
    );
    h.service.webhooks().relay().await.unwrap();
    assert_eq!(sink.to("ann@example.org").len(), 3);
}

async fn a_mail_server_that_defers_is_tried_again_and_one_that_refuses_stops_the_address(
    backend: Backend,
) {
    let (h, sink) = mailed(backend, 100).await;
    let ann = account(&h.app, "Ann").await;
    sink.refuse("ann@example.org", &["451 4.3.0 try later"]);
    add(&h, &ann, "ann@example.org").await;
    h.service.webhooks().relay().await.unwrap();
    assert!(sink.to("ann@example.org").is_empty());
    // The first retry is five seconds on (and up to a tenth more).
    h.clock.advance(Duration::from_secs(6));
    relay_until(&h, &sink, "ann@example.org", 1).await;

    let bea = account(&h.app, "Bea").await;
    sink.refuse("bea@example.org", &["550 5.1.1 no such user"]);
    add(&h, &bea, "bea@example.org").await;
    for _ in 0..50 {
        h.service.webhooks().relay().await.unwrap();
        let listed = addresses(&h, &bea).await;
        if listed["addresses"][0]["notices"] == false {
            let reason = listed["addresses"][0]["stopped_reason"].as_str().unwrap();
            assert!(reason.contains("550"), "{reason}");
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the refused address was not stopped");
}

async fn bad_addresses_links_and_preferences_are_refused_and_change_nothing(backend: Backend) {
    let (h, sink) = mailed(backend, 100).await;
    let ann = account(&h.app, "Ann").await;
    for bad in [
        "",
        "ann",
        "ann@",
        "@example.org",
        "ann@exa mple.org",
        &format!("{}@example.org", "a".repeat(250)),
    ] {
        assert_problem(
            h.app
                .request(
                    Method::POST,
                    "/v1/me/email-addresses",
                    Some(&ann),
                    Some(&json!({"address": bad})),
                )
                .await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-email-address",
        )
        .await;
    }
    add(&h, &ann, "ann@example.org").await;
    assert_problem(
        h.app
            .request(
                Method::POST,
                "/v1/me/email-addresses",
                Some(&ann),
                Some(&json!({"address": "ann@EXAMPLE.org"})),
            )
            .await,
        StatusCode::CONFLICT,
        "email-address-exists",
    )
    .await;
    for n in 0..4 {
        add(&h, &ann, &format!("ann{n}@example.org")).await;
    }
    assert_problem(
        h.app
            .request(
                Method::POST,
                "/v1/me/email-addresses",
                Some(&ann),
                Some(&json!({"address": "ann9@example.org"})),
            )
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-email-address",
    )
    .await;
    assert_eq!(
        addresses(&h, &ann).await["addresses"]
            .as_array()
            .unwrap()
            .len(),
        5
    );

    // A forged or mangled token does nothing.
    let base = h.app.address.clone();
    for token in ["", "abc", &"A".repeat(54)] {
        for path in ["verify", "unsubscribe"] {
            assert_problem(
                post_link(&format!("{base}/v1/email/{path}?token={token}")).await,
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-email-link",
            )
            .await;
        }
    }
    // A verification link is not an unsubscribe link.
    let mails = relay_until(&h, &sink, "ann@example.org", 1).await;
    let link = mails[0]
        .link("http://")
        .replace("/verify?", "/unsubscribe?");
    assert_problem(
        post_link(&link).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-email-link",
    )
    .await;
    assert_eq!(addresses(&h, &ann).await["addresses"][0]["notices"], true);
    // Expired: a day and a bit later.
    h.clock.advance(Duration::from_secs(25 * 3600));
    let body = assert_problem(
        post_link(&mails[0].link("http://")).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-email-link",
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("expired"));
    assert_eq!(addresses(&h, &ann).await["addresses"][0]["verified"], false);

    let (_, defaults) = h.app.get("/v1/me/notice-preferences", Some(&ann)).await;
    for (field, value) in [
        ("time_zone", json!("Mars/Olympus")),
        ("digest_hour", json!(24)),
        ("quiet_hours", json!({"from": "7:00", "until": "08:00"})),
        ("quiet_hours", json!({"from": "08:00", "until": "08:00"})),
        ("email", json!(["webhook.test"])),
    ] {
        let mut bad = defaults.clone();
        bad[field] = value;
        let res = h
            .app
            .request(
                Method::PUT,
                "/v1/me/notice-preferences",
                Some(&ann),
                Some(&bad),
            )
            .await;
        assert_problem(
            res,
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-notice-preferences",
        )
        .await;
    }
    let (_, after) = h.app.get("/v1/me/notice-preferences", Some(&ann)).await;
    assert_eq!(after, defaults);

    // Another account cannot touch Ann's address.
    let eve = account(&h.app, "Eve").await;
    let id = addresses(&h, &ann).await["addresses"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let res = h
        .app
        .request(
            Method::DELETE,
            &format!("/v1/me/email-addresses/{id}"),
            Some(&eve),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = h
        .app
        .request(
            Method::DELETE,
            &format!("/v1/me/email-addresses/{id}"),
            Some(&ann),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        addresses(&h, &ann).await["addresses"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

async fn a_server_without_a_mail_server_keeps_no_addresses(backend: Backend) {
    let h = hooked(backend).await;
    let ann = account(&h.app, "Ann").await;
    assert_problem(
        h.app
            .request(
                Method::POST,
                "/v1/me/email-addresses",
                Some(&ann),
                Some(&json!({"address": "ann@example.org"})),
            )
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "email-off",
    )
    .await;
    let listed = addresses(&h, &ann).await;
    assert_eq!(listed["email_enabled"], false);
    assert_eq!(listed["addresses"], json!([]));
    let res = h
        .app
        .request(
            Method::POST,
            "/v1/accounts/email-sign-in",
            None,
            Some(&json!({"address": "ann@example.org"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "email-off").await;
}

async fn games_differing_only_in_a_hidden_lay_mail_the_same_notices(backend: Backend) {
    let (h, sink) = mailed(backend, 100).await;
    // Two games, dealt from different seeds, played move for move by the same seat's first
    // legal move: what is mailed about each, with the game's id taken out, is the same.
    let mut told = Vec::new();
    for seed in ["1".repeat(64), "2".repeat(64)] {
        let ann = account(&h.app, "Ann").await;
        let bea = account(&h.app, "Bea").await;
        let (a, b) = (
            format!("ann-{}@example.org", &seed[..1]),
            format!("bea-{}@example.org", &seed[..1]),
        );
        verified(&h, &sink, &ann, &a).await;
        verified(&h, &sink, &bea, &b).await;
        let id = dealt_girl(&h.app, &ann, &bea, Some(&seed)).await;
        relay_until(&h, &sink, &a, 2).await;
        relay_until(&h, &sink, &b, 2).await;
        let strip = |mails: Vec<Sunk>| -> Vec<(String, String, usize)> {
            mails[1..]
                .iter()
                .map(|m| {
                    let text = m.text().replace(&id, "GAME").replace(&m.to[0], "ADDRESS");
                    let text = text.split("Stop these mails").next().unwrap().to_string();
                    (m.subject(), text, m.raw.len())
                })
                .collect()
        };
        told.push((strip(sink.to(&a)), strip(sink.to(&b))));
    }
    assert!(!told[0].0.is_empty() && !told[0].1.is_empty(), "{told:?}");
    // Sizes vary only with the addresses' own lengths, equal here.
    assert_eq!(told[0], told[1]);
}

async fn a_sign_in_is_mailed_at_once_even_in_quiet_hours_but_not_to_an_address_turned_off(
    backend: Backend,
) {
    let (h, sink) = mailed(backend, 100).await;
    let ann = account(&h.app, "Ann").await;
    verified(&h, &sink, &ann, "ann@example.org").await;
    let off = verified_then_off(&h, &sink, &ann, "ann.old@example.org").await;
    // Quiet all day, and a digest besides: neither holds a sign-in back.
    let (_, mut chosen) = h.app.get("/v1/me/notice-preferences", Some(&ann)).await;
    chosen["quiet_hours"] = json!({"from": "00:00", "until": "23:59"});
    chosen["email_digest"] = json!(true);
    chosen["email"] = json!([]);
    set_preferences(&h, &ann, chosen).await;

    crate::helpers::sign_in_with_code(&h.app, &ann, "library computer").await;
    let mail = relay_until_told(&h, &sink, "ann@example.org", "library computer").await;
    assert_eq!(
        mail.subject(),
        "New sign-in: library computer signed in to your account with a sign-in code. Not you? \
         Revoke it on your account page."
    );
    assert!(mail.text().contains("/play/account"), "{}", mail.text());
    assert!(mail.html().contains("Open your account"), "{}", mail.html());
    outbox_drained(&h.app.database_url).await;
    assert_eq!(
        sink.to(&off).len(),
        1,
        "the address whose notices are off had its verification only"
    );
}

/// The sign-in code a mail carries.
fn mailed_code(mail: &Sunk) -> String {
    mail.text()
        .split_whitespace()
        .find(|word| word.starts_with("mailin_"))
        .unwrap_or_else(|| panic!("no code in {}", mail.text()))
        .to_string()
}

async fn a_verified_address_is_mailed_a_sign_in_link_for_each_of_its_accounts_once(
    backend: Backend,
) {
    let (h, sink) = mailed(backend, 100).await;
    let ann = account(&h.app, "Ann").await;
    let bea = account(&h.app, "Bea").await;
    let cy = account(&h.app, "Cy").await;
    verified(&h, &sink, &ann, "ann@example.org").await;
    // Bea shares the address, and verifies it for her own account too.
    let beas = add(&h, &bea, "ann@example.org").await;
    let link = relay_until(&h, &sink, "ann@example.org", 2).await[1].link("http://");
    assert_eq!(follow(&link).await.0, StatusCode::OK);
    // Cy never confirmed his.
    add(&h, &cy, "cy@example.org").await;

    let ask = |address: &str| {
        let app = &h.app;
        let body = json!({ "address": address });
        async move { app.post("/v1/accounts/email-sign-in", None, &body).await }
    };
    let (status, asked) = ask("ann@EXAMPLE.ORG").await;
    assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
    assert_eq!(asked["address"], "ann@example.org");
    // An address nobody verified, and one nobody holds, are answered alike.
    let (status, unverified) = ask("cy@example.org").await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (_, unknown) = ask("nobody@example.org").await;
    assert_eq!(unknown["expires_at"], asked["expires_at"]);
    assert_eq!(unverified["expires_at"], asked["expires_at"]);

    let mails = relay_until(&h, &sink, "ann@example.org", 4).await;
    let mut subjects: Vec<String> = mails[2..].iter().map(Sunk::subject).collect();
    subjects.sort();
    assert_eq!(
        subjects,
        ["Sign in to Parlour as Ann", "Sign in to Parlour as Bea"]
    );
    let link_for = |name: &str| {
        mails
            .iter()
            .find(|m| m.subject() == format!("Sign in to Parlour as {name}"))
            .unwrap()
    };
    let anns = link_for("Ann");
    let code = mailed_code(anns);
    assert!(
        anns.text().contains(&format!("/play/sign-in#code={code}")),
        "the code is in the link's fragment, which no server sees: {}",
        anns.text()
    );
    assert!(anns.header("List-Unsubscribe").is_none());
    h.service.webhooks().relay().await.unwrap();
    assert!(
        !sink
            .to("cy@example.org")
            .iter()
            .any(|m| m.subject().starts_with("Sign in")),
        "nothing but his verification before he confirms"
    );
    assert!(sink.to("nobody@example.org").is_empty());

    let redeem = |code: String| {
        let app = &h.app;
        async move {
            app.post(
                "/v1/accounts/sign-in",
                None,
                &json!({"code": code, "token_name": "new phone"}),
            )
            .await
        }
    };
    let (status, signed_in) = redeem(code.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{signed_in}");
    assert_eq!(signed_in["account"]["name"], "Ann");
    let phone = signed_in["token"]["secret"].as_str().unwrap();
    let (_, me) = h.app.get("/v1/me", Some(phone)).await;
    assert_eq!(me["tokens"][1]["signed_in_with"], "email");
    let (status, _) = redeem(code).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a link works once");
    // The sign-in is told, like every other.
    relay_until_told(&h, &sink, "ann@example.org", "new phone signed in").await;

    // Bea's link stops working once she removes the address from her account.
    let res = h
        .app
        .request(
            Method::DELETE,
            &format!("/v1/me/email-addresses/{}", beas["id"].as_str().unwrap()),
            Some(&bea),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let (status, _) = redeem(mailed_code(link_for("Bea"))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // A link works for fifteen minutes.
    let before = sink.to("ann@example.org").len();
    ask("ann@example.org").await;
    let mails = relay_until(&h, &sink, "ann@example.org", before + 1).await;
    let last = mails.last().unwrap();
    assert_eq!(last.subject(), "Sign in to Parlour as Ann");
    h.clock.advance(Duration::from_secs(15 * 60 + 1));
    let (status, _) = redeem(mailed_code(last)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "expired");

    // Not an address at all.
    let res = h
        .app
        .request(
            Method::POST,
            "/v1/accounts/email-sign-in",
            None,
            Some(&json!({"address": "not an address"})),
        )
        .await;
    assert_problem(
        res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-email-address",
    )
    .await;
}

/// Verifies `address` for the account of `token`, then turns its notices off: the address.
async fn verified_then_off(h: &Hooked, sink: &Sink, token: &str, address: &str) -> String {
    verified(h, sink, token, address).await;
    let listed = addresses(h, token).await;
    let id = listed["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["address"] == address)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let res = h
        .app
        .request(
            Method::PATCH,
            &format!("/v1/me/email-addresses/{id}"),
            Some(token),
            Some(&json!({"notices": false})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    address.to_string()
}

macro_rules! mailed_on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(crate::helpers::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(crate::helpers::Backend::Postgres).await;
                }
            )*
        }
    };
}

mailed_on_both_backends!(
    a_verified_address_is_mailed_a_sign_in_link_for_each_of_its_accounts_once,
    a_sign_in_is_mailed_at_once_even_in_quiet_hours_but_not_to_an_address_turned_off,
    an_address_is_mailed_only_its_verification_until_its_owner_follows_the_link,
    one_click_unsubscribe_stops_the_notices_until_they_are_turned_on_again,
    preferences_choose_what_is_mailed_and_quiet_hours_hold_it_until_they_end,
    the_daily_digest_mails_every_notice_at_once_at_its_hour,
    mail_over_the_hourly_limit_waits_and_goes_together,
    a_mail_server_that_defers_is_tried_again_and_one_that_refuses_stops_the_address,
    bad_addresses_links_and_preferences_are_refused_and_change_nothing,
    a_server_without_a_mail_server_keeps_no_addresses,
    games_differing_only_in_a_hidden_lay_mail_the_same_notices,
);

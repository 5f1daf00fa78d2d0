//! The attacks of issue 8, kept as tests: what an adversary at the table or watching it can
//! compute from what they are shown must never match a hidden fact.

use std::collections::BTreeSet;

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::client::{random_move, seed_hex};
use crate::helpers::{assert_clean_audit, assert_problem, TestApp};
use crate::on_both_backends;

fn sha256_hex(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hex::encode(hasher.finalize())
}

fn canonical(value: &Value) -> String {
    parlour::chain::canonical_json(value)
}

fn time_text(at: &Value) -> String {
    let at: chrono::DateTime<chrono::Utc> = serde_json::from_value(at.clone()).expect("a time");
    parlour::store::time_text(&at)
}

/// Everything an attacker who knew an event's hidden parts (`data`, `command`) could compute
/// without the game's secrets: the format-1 hash, and seals and hashes of format 2 with the
/// nonce guessed away. If the true hidden parts give none of the values shown, no guess does.
fn secret_free_digests(game: &str, shown: &Value, data: &Value, command: &Value) -> Vec<String> {
    let prev = shown["prev_hash"].as_str().unwrap_or_default();
    let at = time_text(&shown["at"]);
    let v1 = json!({"actor": shown["actor"], "at": at, "command": command, "data": data,
                    "game": game, "seq": shown["seq"], "type": shown["type"]});
    let hidden = canonical(&json!({"command": command, "data": data}));
    let mut digests = vec![
        sha256_hex(&[prev.as_bytes(), canonical(&v1).as_bytes()]),
        sha256_hex(&[hidden.as_bytes()]),
        sha256_hex(&[canonical(data).as_bytes()]),
        sha256_hex(&[&[0u8; 32], hidden.as_bytes()]),
    ];
    for sealed in digests.clone().into_iter().skip(1) {
        let v2 = json!({"actor": shown["actor"], "at": at, "game": game, "sealed": sealed,
                        "seq": shown["seq"], "type": shown["type"]});
        digests.push(sha256_hex(&[prev.as_bytes(), canonical(&v2).as_bytes()]));
    }
    digests
}

/// Every hex digest a viewer is shown: each event's links and seal, and the audit's head.
async fn digests_shown(
    app: &TestApp,
    id: &str,
    token: Option<&str>,
) -> (Vec<Value>, BTreeSet<String>) {
    let events = app.all_events(id, token).await;
    let mut shown = BTreeSet::new();
    for event in &events {
        shown.extend(event_digests(event));
    }
    let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
    if let Some(head) = audit["head_hash"].as_str() {
        shown.insert(head.to_string());
    }
    (events, shown)
}

/// The digests one event is shown with.
fn event_digests(event: &Value) -> Vec<String> {
    ["hash", "prev_hash", "sealed"]
        .iter()
        .filter_map(|key| event[*key].as_str().map(str::to_string))
        .collect()
}

/// Plays a whole game (up to `max_moves`); after every move, every seat and a spectator try
/// every hidden fact of each event they are newly shown (the true one among them) against the
/// digests it comes with, and against the audit's head. A candidate can only match the digests
/// of its own event (or the next event's `prev_hash`, which is its hash), so this is every
/// digest that could give it away.
async fn attack_game(
    app: &TestApp,
    game: &str,
    players: usize,
    options: Value,
    seed: u64,
    max_moves: usize,
) {
    let (id, tokens) = app
        .create_game(game, players, Some(&seed_hex(seed)), options)
        .await;
    let uuid: uuid::Uuid = id.parse().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let viewers: Vec<Option<&str>> = std::iter::once(None)
        .chain(tokens.iter().map(|t| Some(t.as_str())))
        .collect();
    let mut seen = vec![0u64; viewers.len()];
    let mut hidden_facts = 0;
    let mut kinds = BTreeSet::new();
    for moves in 0..=max_moves {
        if app.view(&id, None).await["status"] == json!("finished") {
            break;
        }
        let truth = app.store.events(uuid, 0, None).await.unwrap();
        let (_, audit) = app.get(&format!("/v1/games/{id}/audit"), None).await;
        let head = audit["head_hash"].as_str().unwrap_or_default().to_string();
        for (v, token) in viewers.iter().enumerate() {
            let (status, page) = app
                .get(
                    &format!("/v1/games/{id}/events?after={}&limit=1000", seen[v]),
                    *token,
                )
                .await;
            assert_eq!(status, StatusCode::OK);
            for event in page["events"].as_array().unwrap() {
                let seq = event["seq"].as_u64().unwrap();
                seen[v] = seq;
                let stored = &truth[(seq - 1) as usize];
                if event["data"] != stored.data {
                    hidden_facts += 1;
                    kinds.insert(stored.kind.clone());
                }
                let mut shown: BTreeSet<String> = event_digests(event).into_iter().collect();
                shown.insert(head.clone());
                let command = stored.command.clone().unwrap_or(Value::Null);
                for digest in secret_free_digests(&id, event, &stored.data, &command) {
                    assert!(
                        !shown.contains(&digest),
                        "{game}: event {seq} ({}) can be recovered from a digest shown to {token:?}",
                        stored.kind
                    );
                }
            }
        }
        if moves < max_moves
            && random_move(app, &id, &tokens, &mut rng, |_| true)
                .await
                .is_none()
        {
            break;
        }
    }
    assert!(
        hidden_facts > 0,
        "{game}: the attack saw no hidden fact to try"
    );
    eprintln!("{game}: tried {hidden_facts} hidden facts of kinds {kinds:?}");
}

async fn no_digest_shown_during_play_gives_a_hidden_fact_away(app: TestApp) {
    // Lays, draws, shown Crown cards, hands and pack orders: every game's hidden facts.
    for (i, (game, players, options)) in [
        ("girl", 2, json!({})),
        ("car", 4, json!({})),
        ("british-birds", 3, json!({})),
        ("history-of-england", 3, json!({})),
        ("history-of-england", 4, json!({"series": 3})),
        ("googly", 2, json!({})),
        ("googly", 3, json!({})),
    ]
    .into_iter()
    .enumerate()
    {
        attack_game(&app, game, players, options, 4200 + i as u64, 300).await;
    }
}

/// The attack that broke format 1: seat 1 tries every three cards seat 0 could have laid
/// face down against the hash of the lay, before laying its own.
async fn a_face_down_lay_cannot_be_found_by_trying_every_candidate(app: TestApp) {
    let (id, tokens) = app
        .create_game("girl", 2, Some(&"42".repeat(32)), json!({}))
        .await;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // Turn up until a trick starts.
    loop {
        let view = app.view(&id, Some(&tokens[0])).await;
        if view["public"]["phase"] == json!("trick") {
            break;
        }
        random_move(&app, &id, &tokens, &mut rng, |_| true)
            .await
            .expect("the game goes on");
    }
    let hand = crate::helpers::hand(&app, &id, &tokens[0]).await;
    let lay = json!({"type": "lay", "cards": [hand[0], hand[1], hand[2]]});
    assert_eq!(app.act(&id, &tokens[0], &lay).await.0, StatusCode::OK);

    let (events, shown) = digests_shown(&app, &id, Some(&tokens[1])).await;
    let laid = events.last().expect("the lay");
    assert_eq!(laid["type"], json!("lay"), "{laid}");
    // Every card seat 1 cannot see: the whole pack but its own hand and what lies face up.
    let (_, catalog) = app.get("/v1/catalog/girl", None).await;
    let own: BTreeSet<String> = crate::helpers::hand(&app, &id, &tokens[1])
        .await
        .into_iter()
        .collect();
    let unseen: Vec<String> = parlour_domain::playout::card_ids(&catalog["cards"])
        .into_iter()
        .filter(|c| !own.contains(c))
        .collect();
    let mut tried = 0;
    for a in 0..unseen.len() {
        for b in a + 1..unseen.len() {
            for c in b + 1..unseen.len() {
                let (x, y, z) = (&unseen[a], &unseen[b], &unseen[c]);
                for cards in [
                    [x, y, z],
                    [x, z, y],
                    [y, x, z],
                    [y, z, x],
                    [z, x, y],
                    [z, y, x],
                ] {
                    let data = json!({"seat": 0, "cards": cards});
                    let command = json!({"type": "lay", "cards": cards});
                    for digest in secret_free_digests(&id, laid, &data, &command) {
                        assert!(
                            !shown.contains(&digest),
                            "seat 1 found seat 0's lay: {cards:?}"
                        );
                    }
                    tried += 1;
                }
            }
        }
    }
    assert!(tried > 1000, "only {tried} candidates");
}

/// A dictionary of obvious seeds, the README's own among them, does not open the commitment.
async fn a_chosen_seed_cannot_be_found_from_its_commitment(app: TestApp) {
    let dictionary: Vec<String> = ["00", "ff", "42", "01", "aa", "12"]
        .iter()
        .map(|b| b.repeat(32))
        .chain(std::iter::once(
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".to_string(),
        ))
        .collect();
    for seed in &dictionary {
        let (status, created) = app
            .post(
                "/v1/games",
                None,
                &json!({"game": "girl", "players": [{"name": "Ann"}, {"name": "Bea"}], "seed": seed}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED);
        let commitment = created["seed_commitment"].as_str().unwrap();
        for guess in &dictionary {
            let bytes = hex::decode(guess).unwrap();
            assert_ne!(
                sha256_hex(&[&bytes]),
                commitment,
                "the commitment gives {guess} away"
            );
            assert_ne!(sha256_hex(&[guess.as_bytes()]), commitment);
        }
    }
    // The same chosen seed still deals the same cards (for duplicate play), under another
    // commitment each time.
    let body = json!({"game": "girl", "players": [{"name": "Ann"}, {"name": "Bea"}], "seed": "42".repeat(32)});
    let (_, first) = app.post("/v1/games", None, &body).await;
    let (_, second) = app.post("/v1/games", None, &body).await;
    assert_ne!(first["seed_commitment"], second["seed_commitment"]);
    let hand = |created: &Value| {
        let id = created["id"].as_str().unwrap().to_string();
        let token = created["seats"][0]["token"].as_str().unwrap().to_string();
        (id, token)
    };
    let (a, ta) = hand(&first);
    let (b, tb) = hand(&second);
    assert_eq!(
        crate::helpers::hand(&app, &a, &ta).await,
        crate::helpers::hand(&app, &b, &tb).await
    );
}

/// Two games that differ only in what seat 0 laid face down look the same to seat 1 and to a
/// spectator: the same views and logs, but for the digests, which are random to them.
async fn games_differing_only_in_a_hidden_lay_look_the_same_to_others(app: TestApp) {
    let mut seen = Vec::new();
    for choice in [[0, 1, 2], [3, 4, 5]] {
        let (id, tokens) = app
            .create_game("girl", 2, Some(&"5a".repeat(32)), json!({}))
            .await;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        loop {
            if app.view(&id, None).await["public"]["phase"] == json!("trick") {
                break;
            }
            random_move(&app, &id, &tokens, &mut rng, |_| true)
                .await
                .unwrap();
        }
        let hand = crate::helpers::hand(&app, &id, &tokens[0]).await;
        let cards: Vec<&String> = choice.iter().map(|i| &hand[*i]).collect();
        let (status, _) = app
            .act(&id, &tokens[0], &json!({"type": "lay", "cards": cards}))
            .await;
        assert_eq!(status, StatusCode::OK);
        let mut looks = Vec::new();
        for token in [None, Some(tokens[1].as_str())] {
            let mut view = app.view(&id, token).await;
            view["id"] = Value::Null;
            let mut events = app.all_events(&id, token).await;
            for event in &mut events {
                for key in ["hash", "prev_hash", "sealed"] {
                    let digest = event[key].as_str().expect("a digest").to_string();
                    assert_eq!(digest.len(), 64);
                    event[key] = Value::Null;
                }
                event["at"] = Value::Null;
            }
            looks.push((view, events));
        }
        seen.push(looks);
    }
    assert_eq!(seen[0], seen[1]);
}

/// Awkward but valid JSON goes in and comes back exactly, from a second instance and after a
/// restart; bodies that would not survive the trip are refused and change nothing.
async fn awkward_json_round_trips_and_junk_is_refused(app: TestApp) {
    let names = [
        "Zoë \u{1F0A1}",
        "\"quoted\" \\ back/slash",
        "名前",
        "a\u{2028}b",
    ];
    let players: Vec<Value> = names.iter().map(|n| json!({"name": n})).collect();
    let (status, created) = app
        .post(
            "/v1/games",
            None,
            &json!({"game": "girl", "players": players, "options": {}}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> = created["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["token"].as_str().unwrap().to_string())
        .collect();
    let before = app.view(&id, Some(&tokens[0])).await;
    let version = before["version"].clone();
    for (junk, code) in [
        (
            json!({"type": "turn_up", "x": 1.7976931348623157e308}),
            "invalid-action",
        ),
        (json!({"type": "turn_up", "x": -0.0}), "invalid-action"),
        (
            json!({"type": "turn_up", "x": 12345678901234567890u64}),
            "invalid-action",
        ),
        // Text is checked before the game reads the body (`tests/api/strict_input.rs`).
        (
            json!({"type": "turn_up", "note": "\u{0000}"}),
            "invalid-text",
        ),
        (
            json!({"type": "turn_up", "padding": "x".repeat(60_000)}),
            "invalid-text",
        ),
    ] {
        let res = app
            .request(
                reqwest::Method::POST,
                &format!("/v1/games/{id}/actions"),
                Some(&tokens[0]),
                Some(&junk),
            )
            .await;
        assert_problem(res, StatusCode::BAD_REQUEST, code).await;
        assert_eq!(app.view(&id, Some(&tokens[0])).await["version"], version);
    }
    for bad_name in ["nul\u{0000}byte", "line\nbreak", "  "] {
        let (status, _) = app
            .post(
                "/v1/games",
                None,
                &json!({"game": "girl", "players": [{"name": bad_name}, {"name": "Bea"}]}),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad_name:?} accepted");
    }
    let (status, _) = app
        .post("/v1/games", None, &json!({"game": "girl", "players": [{"name": "A"}, {"name": "B"}], "options": {"x": -0.0}}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // The game goes on with an ordinary move.
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    random_move(&app, &id, &tokens, &mut rng, |_| true)
        .await
        .expect("a move");

    let other = app.restart().await;
    for server in [&app, &other] {
        let view = server.view(&id, None).await;
        let seat_names: Vec<&str> = view["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(seat_names, names);
        let (_, audit) = server.get(&format!("/v1/games/{id}/audit"), None).await;
        assert_eq!(audit["chain_ok"], json!(true), "{audit}");
        assert_eq!(audit["replay_ok"], json!(true), "{audit}");
    }
    assert_eq!(
        app.all_events(&id, None).await,
        other.all_events(&id, None).await
    );
}

/// Removing a finished game's last batch behind the triggers' back, or editing any one
/// field of any event, is caught by the audit.
async fn truncation_and_single_field_edits_are_detected(app: TestApp) {
    let played = crate::client::play_random_game(
        &app,
        "girl",
        2,
        json!({}),
        515,
        crate::client::Watch::Play,
        20_000,
    )
    .await;
    assert_clean_audit(&app, &played.id).await;
    let id = played.id.clone();
    let events = app.all_events(&id, None).await;
    let last_batch = events
        .iter()
        .rev()
        .find(|e| e.get("command").is_some())
        .and_then(|e| e["seq"].as_u64())
        .expect("a batch");
    let pg = app.database_url.starts_with("postgres");
    let raw = |sql: String| {
        let url = app.database_url.clone();
        async move {
            if pg {
                let pool = sqlx::PgPool::connect(&url).await.unwrap();
                let mut conn = pool.acquire().await.unwrap();
                // Superuser only: run as if replicating, so no trigger fires.
                sqlx::query("SET session_replication_role = replica")
                    .execute(&mut *conn)
                    .await
                    .unwrap();
                sqlx::query(&sql).execute(&mut *conn).await.unwrap();
            } else {
                let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
                for trigger in ["events_no_update", "events_no_delete"] {
                    sqlx::query(&format!("DROP TRIGGER IF EXISTS {trigger}"))
                        .execute(&pool)
                        .await
                        .unwrap();
                }
                sqlx::query(&sql).execute(&pool).await.unwrap();
            }
        }
    };
    raw(format!(
        "DELETE FROM events WHERE game_id = '{id}' AND seq >= {last_batch}"
    ))
    .await;
    let fresh = app.restart().await;
    let (_, audit) = fresh.get(&format!("/v1/games/{id}/audit"), None).await;
    assert_eq!(audit["chain_ok"], json!(false), "{audit}");
    assert!(
        audit["failures"]
            .to_string()
            .contains("events were removed"),
        "{audit}"
    );

    // Single-field edits, each in a fresh game so one edit is judged at a time.
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let edits = if pg { 30 } else { 100 };
    for trial in 0..edits {
        let (gid, tokens) = app.create_game("girl", 2, None, json!({})).await;
        for _ in 0..4 {
            random_move(&app, &gid, &tokens, &mut rng, |_| true).await;
        }
        let uuid: uuid::Uuid = gid.parse().unwrap();
        let stored = app.store.events(uuid, 0, None).await.unwrap();
        let target = &stored[(rand_core::RngCore::next_u64(&mut rng) as usize) % stored.len()];
        let seq = target.seq;
        let (column, value) = match trial % 7 {
            0 => (
                "data",
                format!("'{}'", canonical(&json!({"edited": trial}))),
            ),
            1 => ("type", "'edited'".to_string()),
            2 => ("actor", "7".to_string()),
            3 => (
                "at",
                if pg {
                    "at + interval '1 second'".into()
                } else {
                    "'2030-01-01T00:00:00.000000Z'".into()
                },
            ),
            4 => ("sealed", format!("'{}'", "0".repeat(64))),
            5 => ("hash", format!("'{}'", "1".repeat(64))),
            _ => ("prev_hash", format!("'{}'", "2".repeat(64))),
        };
        raw(format!(
            "UPDATE events SET {column} = {value} WHERE game_id = '{gid}' AND seq = {seq}"
        ))
        .await;
        let (_, audit) = app.get(&format!("/v1/games/{gid}/audit"), None).await;
        assert!(
            audit["chain_ok"] == json!(false) || audit["replay_ok"] == json!(false),
            "editing {column} of event {seq} went unnoticed: {audit}"
        );
    }
}

on_both_backends!(
    no_digest_shown_during_play_gives_a_hidden_fact_away,
    a_face_down_lay_cannot_be_found_by_trying_every_candidate,
    a_chosen_seed_cannot_be_found_from_its_commitment,
    games_differing_only_in_a_hidden_lay_look_the_same_to_others,
    awkward_json_round_trips_and_junk_is_refused,
    truncation_and_single_field_edits_are_detected,
);

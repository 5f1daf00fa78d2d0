//! A generic client that knows only the API contract (`to_act`, `legal_actions`), and checks
//! as it plays that no seat is ever shown a card it could not see at the table.

use std::collections::BTreeSet;

use parlour_domain::playout::{card_ids, instantiate, mentioned_cards};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::TestApp;

/// How closely to watch a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watch {
    /// After every move, every seat's view and every seat's new events are checked for leaks.
    Everything,
    /// Only play, checking statuses.
    Play,
}

/// A finished game.
pub struct Played {
    pub id: String,
    pub tokens: Vec<String>,
    pub moves: usize,
}

fn seed_hex(seed: u64) -> String {
    let mut bytes = [0u8; 32];
    ChaCha8Rng::seed_from_u64(seed ^ 0x5eed).fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Plays one random game to the end over HTTP with one token per seat.
pub async fn play_random_game(
    app: &TestApp,
    game: &str,
    players: usize,
    options: Value,
    seed: u64,
    watch: Watch,
    max_moves: usize,
) -> Played {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (status, catalog) = app.get(&format!("/v1/catalog/{game}"), None).await;
    assert_eq!(status, StatusCode::OK);
    let ids = card_ids(&catalog["cards"]);
    assert!(!ids.is_empty(), "{game} has no cards in its catalogue");
    let (id, tokens) = app
        .create_game(game, players, Some(&seed_hex(seed)), options)
        .await;

    // What each seat has legitimately held or been shown, and each viewer's log so far.
    let mut known: Vec<BTreeSet<String>> = vec![BTreeSet::new(); players];
    let mut logs: Vec<Vec<Value>> = vec![Vec::new(); players + 1];

    let mut moves = 0;
    loop {
        let public = app.view(&id, None).await;
        if watch == Watch::Everything {
            check_no_leaks(app, &id, &tokens, &ids, &public, &mut known, &mut logs).await;
        }
        if public["status"] == json!("finished") {
            break;
        }
        assert!(
            moves < max_moves,
            "{game} with {players} players did not end in {max_moves} moves"
        );
        let to_act: Vec<usize> = public["to_act"]
            .as_array()
            .expect("to_act")
            .iter()
            .map(|s| s.as_u64().expect("seat") as usize)
            .collect();
        assert!(
            !to_act.is_empty(),
            "active game with no seat to act: {public}"
        );
        let seat = to_act[(rng.next_u64() % to_act.len() as u64) as usize];
        let mine = app.view(&id, Some(&tokens[seat])).await;
        let offered = mine["legal_actions"]
            .as_array()
            .expect("legal_actions")
            .clone();
        assert!(
            !offered.is_empty(),
            "seat {seat} is to act but offered nothing: {mine}"
        );
        let body = instantiate(
            &offered[(rng.next_u64() % offered.len() as u64) as usize],
            &mut rng,
        );
        let (status, after) = app.act(&id, &tokens[seat], &body).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{game}: legal move {body} by seat {seat} refused: {after}"
        );
        moves += 1;
    }
    Played { id, tokens, moves }
}

async fn check_no_leaks(
    app: &TestApp,
    id: &str,
    tokens: &[String],
    ids: &BTreeSet<String>,
    public: &Value,
    known: &mut [BTreeSet<String>],
    logs: &mut [Vec<Value>],
) {
    let finished = public["status"] == json!("finished");
    let spectator_view = mentioned_cards(public, ids);
    let spectator_index = tokens.len();
    fetch_new_events(app, id, None, &mut logs[spectator_index]).await;
    let spectator_events = mentioned_cards(&Value::Array(logs[spectator_index].clone()), ids);
    for (seat, token) in tokens.iter().enumerate() {
        let view = app.view(id, Some(token)).await;
        known[seat].extend(mentioned_cards(&view["you"], ids));
        if finished {
            continue;
        }
        // Legal actions name cards as targets (British Birds asks for cards it does not hold);
        // naming a card says nothing of where it is, so only the rest of the view is checked.
        let mut table = view.clone();
        table["legal_actions"] = Value::Null;
        let seen = mentioned_cards(&table, ids);
        let leaked: Vec<_> = seen
            .difference(&spectator_view)
            .filter(|c| !known[seat].contains(*c))
            .collect();
        assert!(
            leaked.is_empty(),
            "seat {seat}'s view shows {leaked:?}: {view}"
        );
        fetch_new_events(app, id, Some(token), &mut logs[seat]).await;
        let seen = mentioned_cards(&Value::Array(logs[seat].clone()), ids);
        let leaked: Vec<_> = seen
            .difference(&spectator_events)
            .filter(|c| !known[seat].contains(*c))
            .collect();
        assert!(leaked.is_empty(), "seat {seat}'s log shows {leaked:?}");
    }
}

async fn fetch_new_events(app: &TestApp, id: &str, token: Option<&str>, log: &mut Vec<Value>) {
    let after = log.last().and_then(|e| e["seq"].as_u64()).unwrap_or(0);
    let (status, page) = app
        .get(
            &format!("/v1/games/{id}/events?after={after}&limit=1000"),
            token,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    if page["status"] == json!("active") {
        log.extend(page["events"].as_array().expect("events").iter().cloned());
    }
}

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

/// The 64-hex-digit game seed the client uses for its own `seed`.
pub fn seed_hex(seed: u64) -> String {
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
    let mut watcher = match watch {
        Watch::Everything => Some(Watcher::new(app, game, players).await),
        Watch::Play => None,
    };
    let (id, tokens) = app
        .create_game(game, players, Some(&seed_hex(seed)), options)
        .await;
    let moves = play_to_end(app, &id, &tokens, &mut rng, watcher.as_mut(), max_moves).await;
    Played { id, tokens, moves }
}

/// Plays random legal moves in a game (new or under way) until it ends, watching every move
/// when given a watcher. Returns the number of moves made.
pub async fn play_to_end(
    app: &TestApp,
    id: &str,
    tokens: &[String],
    rng: &mut ChaCha8Rng,
    mut watcher: Option<&mut Watcher>,
    max_moves: usize,
) -> usize {
    let mut moves = 0;
    loop {
        if let Some(watcher) = watcher.as_deref_mut() {
            watcher.check(app, id, tokens).await;
        }
        if random_move(app, id, tokens, rng, |_| true).await.is_none() {
            return moves;
        }
        moves += 1;
        assert!(
            moves <= max_moves,
            "a game with {} players did not end in {max_moves} moves",
            tokens.len()
        );
    }
}

/// Makes one random legal move, among the actions `keep` accepts (any, if it accepts none),
/// by a random seat among those to act. Returns the seat and the move, or `None` once the game is over.
pub async fn random_move(
    app: &TestApp,
    id: &str,
    tokens: &[String],
    rng: &mut ChaCha8Rng,
    keep: impl Fn(&Value) -> bool,
) -> Option<(usize, Value)> {
    let public = app.view(id, None).await;
    if public["status"] == json!("finished") {
        return None;
    }
    let game = &public["game"];
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
    let mine = app.view(id, Some(&tokens[seat])).await;
    let offered: Vec<Value> = mine["legal_actions"]
        .as_array()
        .expect("legal_actions")
        .iter()
        .filter(|a| keep(a))
        .cloned()
        .collect();
    let offered = match offered.is_empty() {
        true => mine["legal_actions"]
            .as_array()
            .expect("legal_actions")
            .clone(),
        false => offered,
    };
    assert!(
        !offered.is_empty(),
        "seat {seat} is to act but offered nothing: {mine}"
    );
    let body = instantiate(
        &offered[(rng.next_u64() % offered.len() as u64) as usize],
        rng,
    );
    let (status, after) = app.act(id, &tokens[seat], &body).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{game}: legal move {body} by seat {seat} refused: {after}"
    );
    Some((seat, body))
}

/// Watches one game as every seat and a spectator see it, from its first event: what each
/// seat has legitimately held or been shown, and each viewer's log so far.
pub struct Watcher {
    ids: BTreeSet<String>,
    known: Vec<BTreeSet<String>>,
    logs: Vec<Vec<Value>>,
}

impl Watcher {
    /// A watcher for a game of `game` with `players` seats, knowing its card catalogue.
    pub async fn new(app: &TestApp, game: &str, players: usize) -> Watcher {
        let (status, catalog) = app.get(&format!("/v1/catalog/{game}"), None).await;
        assert_eq!(status, StatusCode::OK);
        let ids = card_ids(&catalog["cards"]);
        assert!(!ids.is_empty(), "{game} has no cards in its catalogue");
        Watcher {
            ids,
            known: vec![BTreeSet::new(); players],
            logs: vec![Vec::new(); players + 1],
        }
    }

    /// Checks that no seat's view or log shows a card that the spectator cannot see and the
    /// seat has never held; returns the spectator's view.
    pub async fn check(&mut self, app: &TestApp, id: &str, tokens: &[String]) -> Value {
        let public = app.view(id, None).await;
        let finished = public["status"] == json!("finished");
        let ids = &self.ids;
        let spectator_view = mentioned_cards(&public, ids);
        let spectator_index = tokens.len();
        fetch_new_events(app, id, None, &mut self.logs[spectator_index]).await;
        let spectator_events =
            mentioned_cards(&Value::Array(self.logs[spectator_index].clone()), ids);
        for (seat, token) in tokens.iter().enumerate() {
            let view = app.view(id, Some(token)).await;
            self.known[seat].extend(mentioned_cards(&view["you"], ids));
            if finished {
                continue;
            }
            // Legal actions name cards as targets (British Birds asks for cards it does not
            // hold); naming a card says nothing of where it is, so only the rest of the view
            // is checked.
            let mut table = view.clone();
            table["legal_actions"] = Value::Null;
            let seen = mentioned_cards(&table, ids);
            let leaked: Vec<_> = seen
                .difference(&spectator_view)
                .filter(|c| !self.known[seat].contains(*c))
                .collect();
            assert!(
                leaked.is_empty(),
                "seat {seat}'s view shows {leaked:?}: {view}"
            );
            fetch_new_events(app, id, Some(token), &mut self.logs[seat]).await;
            let seen = mentioned_cards(&Value::Array(self.logs[seat].clone()), ids);
            let leaked: Vec<_> = seen
                .difference(&spectator_events)
                .filter(|c| !self.known[seat].contains(*c))
                .collect();
            assert!(leaked.is_empty(), "seat {seat}'s log shows {leaked:?}");
        }
        public
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

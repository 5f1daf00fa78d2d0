//! British Birds over HTTP with one client per seat: an Owl owed in the middle of someone
//! else's turn, the standing Owl preferences, and whole games audited at the end.

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::client::{play_to_end, random_move, seed_hex, Watcher};
use crate::helpers::{
    assert_clean_audit, assert_problem, events_after, hand, ids, table_part, TestApp,
};
use crate::on_both_backends;

const GAME: &str = "british-birds";
const PLAYERS: usize = 3;

/// An ask the seat to act could make now: of `asked`, for `card`, which `asked` holds along
/// with an Owl.
struct OwlAsk {
    asker: usize,
    asked: usize,
    card: String,
}

fn is_owl(card: &str) -> bool {
    card.starts_with("owl-")
}

fn is_preference_change(action: &Value) -> bool {
    action["type"] == json!("set_owl_preference")
}

/// Plays random moves (never changing a preference), watching every move, until the seat
/// whose turn it is may ask a seat accepted by `wanted` for a card that seat holds together
/// with an Owl. `None` if the game ends first.
async fn play_until_an_owl_can_be_asked_for(
    app: &TestApp,
    id: &str,
    tokens: &[String],
    rng: &mut ChaCha8Rng,
    watcher: &mut Watcher,
    wanted: impl Fn(usize) -> bool,
) -> Option<OwlAsk> {
    for _ in 0..2_000 {
        let public = watcher.check(app, id, tokens).await;
        if public["status"] == json!("finished") {
            return None;
        }
        if public["public"]["asked"].is_null() {
            let asker = public["to_act"][0].as_u64().expect("a seat to act") as usize;
            let mut hands = Vec::new();
            for token in tokens {
                hands.push(hand(app, id, token).await);
            }
            let offered = app.view(id, Some(&tokens[asker])).await["legal_actions"].clone();
            for action in offered.as_array().expect("legal actions") {
                if action["type"] != json!("ask") {
                    continue;
                }
                let asked = action["seat"].as_u64().expect("asked seat") as usize;
                let card = action["card"].as_str().expect("card").to_string();
                let held = &hands[asked];
                if wanted(asked) && held.contains(&card) && held.iter().any(|c| is_owl(c)) {
                    return Some(OwlAsk { asker, asked, card });
                }
            }
        }
        random_move(app, id, tokens, rng, |a| !is_preference_change(a)).await;
    }
    panic!("the game did not end in 2000 moves");
}

/// A game dealt from the first of the seeds tried in which the situation `wanted` arises,
/// with the ask found and the watcher that has followed it from the deal.
async fn a_game_where_an_owl_can_be_asked_for(
    app: &TestApp,
    options: Value,
    wanted: impl Fn(usize) -> bool + Copy,
) -> (String, Vec<String>, Watcher, ChaCha8Rng, OwlAsk) {
    for seed in 0..20 {
        let (id, tokens) = app
            .create_game(GAME, PLAYERS, Some(&seed_hex(seed)), options.clone())
            .await;
        let mut watcher = Watcher::new(app, GAME, PLAYERS).await;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        if let Some(found) =
            play_until_an_owl_can_be_asked_for(app, &id, &tokens, &mut rng, &mut watcher, wanted)
                .await
        {
            return (id, tokens, watcher, rng, found);
        }
    }
    panic!("in twenty games nobody could ask for a card held with an Owl");
}

async fn a_whole_game_waits_for_the_asked_player_to_play_their_owl_and_audits_clean(app: TestApp) {
    let (id, tokens, mut watcher, mut rng, found) =
        a_game_where_an_owl_can_be_asked_for(&app, json!({}), |_| true).await;
    let OwlAsk { asker, asked, card } = found;
    let third = (0..PLAYERS).find(|s| *s != asker && *s != asked).unwrap();
    let held_before = hand(&app, &id, &tokens[asked]).await;
    let owl = held_before
        .iter()
        .find(|c| is_owl(c))
        .expect("the asked seat holds an Owl")
        .clone();

    // The ask: the game now waits for the seat asked, not the one whose turn it is.
    let before = app.view(&id, None).await["version"].as_u64().unwrap();
    let ask = json!({"type": "ask", "seat": asked, "card": card});
    let (status, answer) = app.act(&id, &tokens[asker], &ask).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let spectator = app.view(&id, None).await;
    assert_eq!(spectator["to_act"], json!([asked]));
    assert_eq!(spectator["public"]["turn"], json!(asker));
    assert_eq!(
        spectator["public"]["asked"],
        json!({"asker": asker, "seat": asked, "card": card})
    );
    assert_eq!(
        spectator["version"],
        json!(before + 1),
        "the ask waits alone"
    );

    // The asker, and the third seat, may not move while the answer is owed.
    let asker_view = app.view(&id, Some(&tokens[asker])).await;
    assert_eq!(asker_view["legal_actions"], json!([]));
    let row_card = spectator["public"]["row"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c.is_string())
        .cloned()
        .expect("a card lies face up");
    for (seat, body) in [
        (asker, json!({"type": "pick_up", "card": row_card})),
        (asker, ask.clone()),
        (asker, json!({"type": "play_owl"})),
        (third, json!({"type": "hand_over"})),
    ] {
        assert_problem(
            app.request(
                Method::POST,
                &format!("/v1/games/{id}/actions"),
                Some(&tokens[seat]),
                Some(&body),
            )
            .await,
            StatusCode::CONFLICT,
            "not-your-move",
        )
        .await;
    }

    // Nobody but the asked seat learns what it holds: everyone else sees the table as a
    // spectator does, and the log shows them the ask and nothing more.
    for viewer in [Some(&tokens[asker]), Some(&tokens[third]), None] {
        let view = app.view(&id, viewer.map(String::as_str)).await;
        assert_eq!(table_part(&view), table_part(&spectator));
        let new = events_after(&app, &id, viewer.map(String::as_str), before).await;
        assert_eq!(new.len(), 1, "{new:?}");
        assert_eq!(new[0]["type"], json!("ask"));
        assert_eq!(new[0]["actor"], json!(asker));
        assert_eq!(
            new[0]["data"],
            json!({"seat": asker, "asked": asked, "card": card})
        );
    }
    for viewer in [&tokens[asker], &tokens[third]] {
        let theirs = hand(&app, &id, viewer).await;
        assert!(!theirs.contains(&card) && !theirs.contains(&owl));
    }

    // The asked seat is offered only the truthful answers: hand over, or keep it with an Owl.
    let asked_view = app.view(&id, Some(&tokens[asked])).await;
    let answers: Vec<&Value> = asked_view["legal_actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| !is_preference_change(a))
        .collect();
    assert_eq!(
        answers,
        vec![&json!({"type": "hand_over"}), &json!({"type": "play_owl"})]
    );
    let lie = app
        .request(
            Method::POST,
            &format!("/v1/games/{id}/actions"),
            Some(&tokens[asked]),
            Some(&json!({"type": "not_held"})),
        )
        .await;
    assert_problem(lie, StatusCode::UNPROCESSABLE_ENTITY, "rule-violation").await;

    // It plays the Owl with its own token: the card stays, the Owl lies face up, the turn
    // passes to the asker's left, and everyone's log shows the Owl.
    let (status, after) = app
        .act(&id, &tokens[asked], &json!({"type": "play_owl"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{after}");
    let held_after = ids(&after["you"]["hand"]);
    assert!(held_after.contains(&card));
    assert!(!held_after.contains(&owl));
    assert_eq!(held_after.len(), held_before.len() - 1);
    let spectator = app.view(&id, None).await;
    assert_eq!(spectator["to_act"], json!([(asker + 1) % PLAYERS]));
    assert_eq!(spectator["public"]["asked"], Value::Null);
    assert_eq!(
        spectator["public"]["last_ask"],
        json!({"asker": asker, "seat": asked, "card": card, "answer": "owl"})
    );
    assert!(spectator["public"]["owls"]
        .as_array()
        .unwrap()
        .contains(&json!({"card": owl, "seat": asked})));
    assert_eq!(spectator["seats"][asked]["owls_played"], json!(1));
    for viewer in [Some(&tokens[0]), Some(&tokens[1]), Some(&tokens[2]), None] {
        let new = events_after(&app, &id, viewer.map(String::as_str), before + 1).await;
        assert_eq!(new.len(), 1, "{new:?}");
        assert_eq!(new[0]["type"], json!("owl"));
        assert_eq!(new[0]["actor"], json!(asked));
        assert_eq!(
            new[0]["data"],
            json!({"seat": asked, "owl": owl, "asker": asker, "card": card})
        );
    }

    // The generic client finishes the game, still watching every seat for leaks.
    play_to_end(&app, &id, &tokens, &mut rng, Some(&mut watcher), 5_000).await;
    let finished = app.view(&id, Some(&tokens[asked])).await;
    assert_eq!(finished["status"], json!("finished"));
    assert_eq!(
        finished["result"]["points"].as_array().unwrap().len(),
        PLAYERS
    );
    assert_clean_audit(&app, &id).await;
    let log = app.all_events(&id, None).await;
    assert!(log.iter().any(|e| e["type"] == json!("owl")
        && e["data"]["seat"] == json!(asked)
        && e["data"]["card"] == json!(card)));
}

/// Seat 1 starts with `always_play_owl` (an option); seat 2 chooses `always_hand_over` (an
/// action) at its first turn. Asks to them are then answered at once, in the asker's move.
async fn a_standing_owl_preference_answers_at_once_for_its_player(app: TestApp) {
    let options = json!({"owl_preferences": ["ask_me", "always_play_owl", "ask_me"]});
    let (id, tokens, mut watcher, mut rng, found) =
        a_game_where_an_owl_can_be_asked_for(&app, options, |seat| seat == 1).await;
    let OwlAsk { asker, asked, card } = found;
    assert_eq!(asked, 1);
    let owl = hand(&app, &id, &tokens[1])
        .await
        .into_iter()
        .find(|c| is_owl(c))
        .unwrap();
    let before = app.view(&id, None).await["version"].as_u64().unwrap();
    let (status, answer) = app
        .act(
            &id,
            &tokens[asker],
            &json!({"type": "ask", "seat": 1, "card": card}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    // Nobody waits for seat 1: the Owl ended the asker's turn.
    let public = app.view(&id, None).await;
    assert_eq!(public["public"]["asked"], Value::Null);
    assert_eq!(public["to_act"], json!([(asker + 1) % PLAYERS]));
    let new = events_after(&app, &id, None, before).await;
    let kinds: Vec<&Value> = new.iter().map(|e| &e["type"]).collect();
    assert_eq!(kinds, [&json!("ask"), &json!("owl")]);
    assert!(new.iter().all(|e| e["actor"] == json!(asker)));
    assert_eq!(
        new[1]["data"],
        json!({"seat": 1, "owl": owl, "asker": asker, "card": card})
    );
    assert!(hand(&app, &id, &tokens[1]).await.contains(&card));

    // Seat 2 sets its preference at its own turn; everyone sees it, and it still owes its move.
    loop {
        let public = watcher.check(&app, &id, &tokens).await;
        assert_eq!(public["status"], json!("active"));
        if public["to_act"] == json!([2]) && public["public"]["asked"].is_null() {
            break;
        }
        random_move(&app, &id, &tokens, &mut rng, |a| !is_preference_change(a)).await;
    }
    let before = app.view(&id, None).await["version"].as_u64().unwrap();
    let (status, after) = app
        .act(
            &id,
            &tokens[2],
            &json!({"type": "set_owl_preference", "preference": "always_hand_over"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["to_act"], json!([2]));
    assert_eq!(
        after["seats"][2]["owl_preference"],
        json!("always_hand_over")
    );
    for viewer in [Some(&tokens[0]), Some(&tokens[1]), None] {
        let new = events_after(&app, &id, viewer.map(String::as_str), before).await;
        assert_eq!(
            new.iter().map(|e| e["data"].clone()).collect::<Vec<_>>(),
            [json!({"seat": 2, "preference": "always_hand_over"})]
        );
    }

    // An ask to seat 2 for a card it holds with an Owl is handed over at once: never an Owl.
    let found =
        play_until_an_owl_can_be_asked_for(&app, &id, &tokens, &mut rng, &mut watcher, |seat| {
            seat == 2
        })
        .await
        .expect("someone asks seat 2 for a card it holds with an Owl before the game ends");
    let before = app.view(&id, None).await["version"].as_u64().unwrap();
    let (status, answer) = app
        .act(
            &id,
            &tokens[found.asker],
            &json!({"type": "ask", "seat": 2, "card": found.card}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let new = events_after(&app, &id, None, before).await;
    assert_eq!(new[0]["type"], json!("ask"));
    assert_eq!(
        new[1]["data"],
        json!({"from": 2, "to": found.asker, "card": found.card})
    );
    // The card is the asker's now (or already laid in a set it completed).
    assert!(
        ids(&answer["you"]["hand"]).contains(&found.card)
            || new.get(2).is_some_and(|e| e["type"] == json!("set_laid"))
    );
    assert!(!hand(&app, &id, &tokens[2]).await.contains(&found.card));

    play_to_end(&app, &id, &tokens, &mut rng, Some(&mut watcher), 5_000).await;
    assert_clean_audit(&app, &id).await;
}

on_both_backends!(
    a_whole_game_waits_for_the_asked_player_to_play_their_owl_and_audits_clean,
    a_standing_owl_preference_answers_at_once_for_its_player,
);

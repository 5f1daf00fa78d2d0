//! History of England over HTTP with one client per seat: Crown claims whose shown cards only
//! the two players see, a caught bluff's forfeit, and whole games of every series audited and
//! made public at the end.

use std::collections::{BTreeMap, BTreeSet};

use parlour_domain::playout::mentioned_cards;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::client::{play_to_end, random_move, seed_hex, Watcher};
use crate::helpers::{assert_clean_audit, events_after, hand, ids, table_part, TestApp};
use crate::on_both_backends;

const GAME: &str = "history-of-england";

/// Which set (named by its Crown) each card of the catalogue belongs to.
async fn sets(app: &TestApp) -> BTreeMap<String, String> {
    let (status, catalog) = app.get(&format!("/v1/catalog/{GAME}"), None).await;
    assert_eq!(status, StatusCode::OK);
    catalog["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["set"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A Crown ask to make: of `asked`, who holds `crown`, showing `show`.
struct CrownAsk {
    asker: usize,
    asked: usize,
    crown: String,
    show: [String; 2],
    /// What the asker forfeits: nothing for an honest claim.
    forfeit: Vec<String>,
}

/// An honest claim (two cards of the Crown's set) or a bluff the seat to act could make now
/// on a seat that holds the Crown, if there is one.
async fn crown_ask_on_offer(
    app: &TestApp,
    id: &str,
    tokens: &[String],
    sets: &BTreeMap<String, String>,
    honest: bool,
) -> Option<CrownAsk> {
    let public = app.view(id, None).await;
    let asker = public["to_act"][0].as_u64()? as usize;
    let mut hands = Vec::new();
    for token in tokens {
        hands.push(hand(app, id, token).await);
    }
    let mine = &hands[asker];
    let offered = app.view(id, Some(&tokens[asker])).await["legal_actions"].clone();
    for action in offered.as_array().expect("legal actions") {
        if action.get("show").is_none() {
            continue;
        }
        let asked = action["seat"].as_u64().unwrap() as usize;
        let crown = action["card"].as_str().unwrap().to_string();
        if !hands[asked].contains(&crown) {
            continue;
        }
        let (of_set, others): (Vec<&String>, Vec<&String>) =
            mine.iter().partition(|c| sets[*c] == crown);
        let (show, forfeit) = if honest {
            match of_set[..] {
                [a, b, ..] => ([a.clone(), b.clone()], vec![]),
                _ => continue,
            }
        } else {
            match (&of_set[..], &others[..]) {
                // Showing one card of the set and one not forfeits the one of the set (from
                // rules version 2 only a player without two of the set may bluff).
                ([a], [b, ..]) => ([a.to_string(), b.to_string()], vec![a.to_string()]),
                // Showing two cards not of the set forfeits both.
                ([], [a, b, ..]) => (
                    [a.to_string(), b.to_string()],
                    vec![a.to_string(), b.to_string()],
                ),
                _ => continue,
            }
        };
        return Some(CrownAsk {
            asker,
            asked,
            crown,
            show,
            forfeit,
        });
    }
    None
}

/// Makes the Crown ask and checks who sees what of it: the shown cards (and the forfeit) by
/// the asker and the asked player only, while the game runs.
async fn ask_for_the_crown_and_check_who_sees_the_shown_cards(
    app: &TestApp,
    id: &str,
    tokens: &[String],
    ask: &CrownAsk,
) -> u64 {
    let CrownAsk {
        asker,
        asked,
        crown,
        show,
        forfeit,
    } = ask;
    let (asker, asked) = (*asker, *asked);
    let players = tokens.len();
    let third = (0..players).find(|s| *s != asker && *s != asked).unwrap();
    let asker_before = hand(app, id, &tokens[asker]).await;
    let asked_before = hand(app, id, &tokens[asked]).await;
    let before = app.view(id, None).await["version"].as_u64().unwrap();
    let honest = forfeit.is_empty();

    let body = json!({"type": "ask", "seat": asked, "card": crown, "show": show});
    let (status, answer) = app.act(id, &tokens[asker], &body).await;
    assert_eq!(status, StatusCode::OK, "{body}: {answer}");
    let seq = before + 1;
    let answer_word = if honest { "given" } else { "bluff_caught" };
    let whole = json!({
        "asker": asker, "seat": asked, "card": crown, "show": show, "answer": answer_word,
        "forfeit": forfeit, "forfeited": forfeit.len(), "open": false,
    });
    let mut whole_without_empty_forfeit = whole.clone();
    if honest {
        whole_without_empty_forfeit
            .as_object_mut()
            .unwrap()
            .remove("forfeit");
    }

    // The asker and the asked player see the cards shown (and which were forfeited).
    for seat in [asker, asked] {
        let new = events_after(app, id, Some(&tokens[seat]), before).await;
        assert_eq!(new[0]["seq"], json!(seq));
        assert_eq!(new[0]["type"], json!("asked"));
        assert_eq!(new[0]["data"], whole_without_empty_forfeit, "seat {seat}");
    }
    let asked_view = app.view(id, Some(&tokens[asked])).await;
    assert_eq!(
        asked_view["you"]["shown_to_you"],
        json!({"by": asker, "crown": crown, "cards": show})
    );

    // A third seat and a spectator see the ask, the answer and how many cards were forfeited:
    // not the cards shown, nor which were forfeited, in the log or at the table.
    let shown: BTreeSet<String> = show.iter().cloned().collect();
    let spectator = app.view(id, None).await;
    assert!(
        mentioned_cards(&spectator, &shown).is_empty(),
        "{spectator}"
    );
    for viewer in [Some(tokens[third].as_str()), None] {
        let new = events_after(app, id, viewer, before).await;
        assert_eq!(
            new[0]["data"],
            json!({
                "asker": asker, "seat": asked, "card": crown, "answer": answer_word,
                "forfeited": forfeit.len(), "open": false,
            })
        );
        assert!(
            mentioned_cards(&Value::Array(new), &shown).is_empty(),
            "{viewer:?} sees a shown card"
        );
        let view = app.view(id, viewer).await;
        assert_eq!(table_part(&view), table_part(&spectator));
        assert_ne!(
            view["you"]["shown_to_you"]["crown"],
            json!(crown),
            "{viewer:?} was not shown the cards"
        );
    }
    assert_eq!(
        spectator["public"]["last_ask"],
        json!({"asker": asker, "seat": asked, "card": crown, "answer": answer_word,
               "forfeited": forfeit.len()})
    );

    let asker_after = hand(app, id, &tokens[asker]).await;
    let asked_after = hand(app, id, &tokens[asked]).await;
    if honest {
        // The Crown is handed over, won for good, and the asker asks again.
        assert!(asker_after.contains(crown) && !asked_after.contains(crown));
        assert_eq!(asker_after.len(), asker_before.len() + 1);
        assert!(ids(&spectator["public"]["protected_crowns"]).contains(crown));
        assert_eq!(spectator["to_act"], json!([asker]));
    } else {
        // The bluff is caught: the forfeit passes to the asked player, who keeps the Crown;
        // the asker draws (seen by them alone) and the turn passes to the left.
        for card in forfeit {
            assert!(!asker_after.contains(card) && asked_after.contains(card));
        }
        assert!(asked_after.contains(crown));
        assert_eq!(asked_after.len(), asked_before.len() + forfeit.len());
        assert_eq!(asker_after.len(), asker_before.len() - forfeit.len() + 1);
        assert_eq!(spectator["to_act"], json!([(asker + 1) % players]));
        let drawn: Vec<&String> = asker_after
            .iter()
            .filter(|c| !asker_before.contains(c))
            .collect();
        assert_eq!(drawn.len(), 1);
        let drew = |log: &[Value]| {
            log.iter()
                .find(|e| e["type"] == json!("drew"))
                .cloned()
                .expect("the asker drew")
        };
        let mine = drew(&events_after(app, id, Some(&tokens[asker]), before).await);
        assert_eq!(mine["data"], json!({"seat": asker, "card": drawn[0]}));
        for viewer in [
            Some(tokens[asked].as_str()),
            Some(tokens[third].as_str()),
            None,
        ] {
            let theirs = drew(&events_after(app, id, viewer, before).await);
            assert_eq!(theirs["data"], json!({"seat": asker}));
        }
    }
    seq
}

/// Plays a whole game of `series` at a table of `players`, one client per seat: an honest
/// Crown claim and a caught bluff while the hands are hidden, then random play to the end;
/// the audit is clean and the whole log public.
async fn a_whole_game_with_a_crown_claim_and_a_caught_bluff(
    app: &TestApp,
    series: u8,
    players: usize,
) {
    let sets = sets(app).await;
    for seed in 0..20u64 {
        let (id, tokens) = app
            .create_game(
                GAME,
                players,
                Some(&seed_hex(seed)),
                json!({"series": series}),
            )
            .await;
        let mut watcher = Watcher::new(app, GAME, players).await;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut claim = None;
        let mut bluff = None;
        while claim.is_none() || bluff.is_none() {
            let public = watcher.check(app, &id, &tokens).await;
            // Only while the pool lasts another turn, so no hand is laid open by these asks.
            if public["public"]["stage"] != json!("pool")
                || public["public"]["pool"].as_u64().unwrap_or(0) < 2
            {
                break;
            }
            for (done, honest) in [(&mut claim, true), (&mut bluff, false)] {
                if done.is_none() {
                    if let Some(ask) = crown_ask_on_offer(app, &id, &tokens, &sets, honest).await {
                        *done = Some((
                            ask_for_the_crown_and_check_who_sees_the_shown_cards(
                                app, &id, &tokens, &ask,
                            )
                            .await,
                            ask,
                        ));
                        break;
                    }
                }
            }
            if claim.is_none() || bluff.is_none() {
                // Random play, but no Crown asks: those this test makes itself.
                random_move(app, &id, &tokens, &mut rng, |a| a.get("show").is_none()).await;
            }
        }
        let (Some(claim), Some(bluff)) = (claim, bluff) else {
            continue;
        };

        play_to_end(app, &id, &tokens, &mut rng, Some(&mut watcher), 20_000).await;
        let finished = app.view(&id, None).await;
        assert_eq!(finished["status"], json!("finished"));
        assert_eq!(
            finished["result"]["points"].as_array().unwrap().len(),
            players
        );
        assert_clean_audit(app, &id).await;

        // Once the game is over the whole log is public: the deal's order, every card drawn,
        // and the cards shown and forfeited for each Crown.
        let log = app.all_events(&id, None).await;
        assert!(log[0]["data"]["shuffled"]["order"].is_array());
        assert!(log
            .iter()
            .filter(|e| e["type"] == json!("drew"))
            .all(|e| e["data"]["card"].is_string()));
        for (seq, ask) in [claim, bluff] {
            let event = &log[seq as usize - 1];
            assert_eq!(event["seq"], json!(seq));
            assert_eq!(event["data"]["show"], json!(ask.show));
            if !ask.forfeit.is_empty() {
                assert_eq!(event["data"]["forfeit"], json!(ask.forfeit));
            }
            assert!(!event["command"].is_null(), "{event}");
        }
        // The game keeps no statistics: a finished game is not "not finished" for them.
        crate::helpers::assert_problem(
            app.request(
                reqwest::Method::GET,
                &format!("/v1/statistics/{GAME}?games={id}"),
                None,
                None,
            )
            .await,
            StatusCode::NOT_FOUND,
            "no-such-document",
        )
        .await;
        return;
    }
    panic!("in twenty games of series {series} with {players} players, no honest Crown claim and caught bluff while the hands were hidden");
}

async fn a_three_player_game_of_the_first_series_shows_crown_cards_to_the_two_players_only(
    app: TestApp,
) {
    a_whole_game_with_a_crown_claim_and_a_caught_bluff(&app, 1, 3).await;
}

async fn an_eight_player_game_of_the_second_series_shows_crown_cards_to_the_two_players_only(
    app: TestApp,
) {
    a_whole_game_with_a_crown_claim_and_a_caught_bluff(&app, 2, 8).await;
}

async fn a_four_player_game_of_the_third_series_shows_crown_cards_to_the_two_players_only(
    app: TestApp,
) {
    a_whole_game_with_a_crown_claim_and_a_caught_bluff(&app, 3, 4).await;
}

on_both_backends!(
    a_three_player_game_of_the_first_series_shows_crown_cards_to_the_two_players_only,
    an_eight_player_game_of_the_second_series_shows_crown_cards_to_the_two_players_only,
    a_four_player_game_of_the_third_series_shows_crown_cards_to_the_two_players_only,
);

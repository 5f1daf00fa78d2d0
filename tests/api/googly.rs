//! GOOGLY over HTTP: two-player matches played by both seats to a result, the scorecard in
//! JSON and as text, the Cricsheet export checked against the scorecard, statistics over a
//! series of matches, and the errors of the documents.

use std::collections::BTreeMap;

use reqwest::{header, Method, StatusCode};
use serde_json::{json, Value};

use crate::client::seed_hex;
use crate::helpers::{assert_clean_audit, assert_problem, TestApp};
use crate::on_both_backends;

const GAME: &str = "googly";

fn teams() -> Value {
    json!({"teams": [
        {"name": "Kent", "players": ["Woolley", "Ames", "Hardinge", "Chapman", "Freeman"]},
        {"name": "Surrey", "players": ["Hobbs", "Sandham", "Ducat", "Fender"]},
    ]})
}

async fn act_ok(app: &TestApp, id: &str, token: &str, body: &Value) -> Value {
    let (status, view) = app.act(id, token, body).await;
    assert_eq!(status, StatusCode::OK, "{body}: {view}");
    view
}

fn to_act(view: &Value) -> Vec<usize> {
    view["to_act"]
        .as_array()
        .expect("to_act")
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect()
}

fn offers(view: &Value, kind: &str) -> Option<Value> {
    view["legal_actions"]
        .as_array()
        .expect("legal actions")
        .iter()
        .find(|a| a["type"] == json!(kind))
        .cloned()
}

/// Each seat, whenever the match waits for it, first sets standing preferences (name the
/// bowlers, take every default, play on while away), then plays on, until the match is over.
/// Returns the number of moves it took.
async fn let_both_seats_play_on(app: &TestApp, id: &str, tokens: &[String]) -> usize {
    let mut preferred = [false, false];
    let mut moves = 0;
    loop {
        let public = app.view(id, None).await;
        if public["status"] == json!("finished") {
            return moves;
        }
        let seat = to_act(&public)[0];
        let mine = app.view(id, Some(&tokens[seat])).await;
        let body = if !preferred[seat] {
            preferred[seat] = true;
            json!({"type": "prefer", "auto_bowl": true, "accept_defaults": true, "keep_playing_on": true})
        } else if let Some(play_on) = offers(&mine, "play_on") {
            play_on
        } else {
            offers(&mine, "accept_defaults").unwrap_or_else(|| {
                panic!("seat {seat} has neither a card to turn nor a default to take: {mine}")
            })
        };
        act_ok(app, id, &tokens[seat], &body).await;
        moves += 1;
        assert!(moves < 50, "the match did not play itself: {public}");
    }
}

/// A whole match with both seats: the toss winner fields, both captains set up the first
/// innings by hand, the first two overs are turned by hand, and then both seats play on.
async fn play_a_match_by_hand_then_on(app: &TestApp, id: &str, tokens: &[String]) {
    let public = app.view(id, None).await;
    assert_eq!(public["public"]["waiting_for"]["decision"], json!("elect"));
    let captain = to_act(&public)[0];
    act_ok(
        app,
        id,
        &tokens[captain],
        &json!({"type": "elect", "to": "field"}),
    )
    .await;

    // Both captains are asked at once; each gives the innings' order or its openers.
    let public = app.view(id, None).await;
    assert_eq!(to_act(&public).len(), 2, "{public}");
    for seat in to_act(&public) {
        let mine = app.view(id, Some(&tokens[seat])).await;
        if let Some(order) = offers(&mine, "batting_order") {
            let mut names = order["order"]["from"].as_array().unwrap().clone();
            names.reverse();
            act_ok(
                app,
                id,
                &tokens[seat],
                &json!({"type": "batting_order", "order": names}),
            )
            .await;
        } else {
            let openers = offers(&mine, "opening_bowlers").expect("openers to name");
            let names = &openers["bowlers"]["from"];
            act_ok(
                app,
                id,
                &tokens[seat],
                &json!({"type": "opening_bowlers", "bowlers": [names[0], names[1]]}),
            )
            .await;
        }
    }
    let batting = 1 - captain;

    // Two overs by hand: the batting seat turns its cards, the bowling seat answers appeals.
    for _ in 0..100 {
        let public = app.view(id, None).await;
        if public["public"]["waiting_for"]["decision"] == json!("bowler") {
            break;
        }
        let seat = to_act(&public)[0];
        let mine = app.view(id, Some(&tokens[seat])).await;
        let body = match (offers(&mine, "play"), offers(&mine, "bowl")) {
            (Some(play), _) => {
                assert_eq!(seat, batting);
                play
            }
            (None, Some(bowl)) => {
                assert_eq!(seat, captain);
                bowl
            }
            _ => panic!("neither a ball nor an appeal is due: {mine}"),
        };
        act_ok(app, id, &tokens[seat], &body).await;
    }

    // The scorecard is kept live.
    let (status, live) = app.get(&format!("/v1/games/{id}/scorecard"), None).await;
    assert_eq!(status, StatusCode::OK);
    let card = &live["scorecard"];
    assert_eq!(card["finished"], json!(false));
    assert_eq!(card["innings"][0]["in_progress"], json!(true));
    assert_eq!(
        card["innings"][0]["team"],
        json!(["Kent", "Surrey"][batting])
    );
    assert_eq!(card["innings"][0]["balls"], json!(12));
    assert!(live["text"].as_str().unwrap().contains("Status: "));

    let moves = let_both_seats_play_on(app, id, tokens).await;
    assert!(moves <= 20, "{moves} moves to play on to the end");
}

fn sum(values: impl Iterator<Item = u64>) -> u64 {
    values.sum()
}

fn num(value: &Value) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("a number: {value}"))
}

/// The Cricsheet export tells the same match as the scorecard, innings by innings.
fn assert_the_export_agrees_with_the_scorecard(export: &Value, scorecard: &Value) {
    assert_eq!(export["info"]["teams"], scorecard["teams"]);
    assert_eq!(export["info"]["balls_per_over"], json!(6));
    let innings = export["innings"].as_array().expect("innings");
    let cards = scorecard["innings"].as_array().expect("innings cards");
    assert_eq!(innings.len(), cards.len());
    assert!((1..=4).contains(&innings.len()));
    for (i, (innings, card)) in innings.iter().zip(cards).enumerate() {
        assert_eq!(innings["team"], card["team"], "innings {i}");
        let overs = innings["overs"].as_array().expect("overs");
        let deliveries: Vec<&Value> = overs
            .iter()
            .flat_map(|o| o["deliveries"].as_array().expect("deliveries"))
            .collect();
        let total = num(&card["total"]);
        let wickets: Vec<&Value> = deliveries
            .iter()
            .flat_map(|d| d["wickets"].as_array().into_iter().flatten())
            .collect();

        // Runs: every delivery's total adds up to the innings total, and so do the batters'
        // runs and the extras, in the export and on the card.
        assert_eq!(
            sum(deliveries.iter().map(|d| num(&d["runs"]["total"]))),
            total,
            "innings {i}"
        );
        let batter_runs = sum(deliveries.iter().map(|d| num(&d["runs"]["batter"])));
        let extras = sum(deliveries.iter().map(|d| num(&d["runs"]["extras"])));
        assert_eq!(batter_runs + extras, total, "innings {i}");
        assert_eq!(extras, num(&card["extras"]));
        assert_eq!(
            sum(deliveries
                .iter()
                .map(|d| d["extras"]["legbyes"].as_u64().unwrap_or(0))),
            num(&card["leg_byes"])
        );
        let card_batting = card["batting"].as_array().unwrap();
        assert_eq!(
            sum(card_batting.iter().map(|l| num(&l["runs"]))) + num(&card["extras"]),
            total
        );
        for line in card_batting {
            let name = &line["name"];
            let off_the_bat: Vec<&&Value> =
                deliveries.iter().filter(|d| d["batter"] == *name).collect();
            assert_eq!(
                sum(off_the_bat.iter().map(|d| num(&d["runs"]["batter"]))),
                num(&line["runs"]),
                "{name}"
            );
            assert_eq!(off_the_bat.len() as u64, num(&line["balls"]), "{name}");
        }

        // Wickets: at most ten, as many as the card and its fall of wickets say.
        assert!(wickets.len() <= 10);
        assert_eq!(wickets.len() as u64, num(&card["wickets"]));
        assert_eq!(
            card["fall_of_wickets"].as_array().unwrap().len(),
            wickets.len()
        );

        // Balls: every delivery is a legal ball, six to an over but the last.
        assert_eq!(deliveries.len() as u64, num(&card["balls"]), "innings {i}");
        for (n, over) in overs.iter().enumerate() {
            assert_eq!(over["over"], json!(n));
            let balls = over["deliveries"].as_array().unwrap().len();
            assert!((1..=6).contains(&balls));
            if n + 1 < overs.len() {
                assert_eq!(balls, 6, "innings {i} over {n}");
            }
        }

        // The bowlers' figures account for every ball, and every run but the leg byes.
        let bowling = card["bowling"].as_array().unwrap();
        assert_eq!(
            sum(bowling.iter().map(|b| num(&b["balls"]))),
            deliveries.len() as u64
        );
        assert_eq!(
            sum(bowling.iter().map(|b| num(&b["runs"]))),
            total - num(&card["leg_byes"])
        );
        let run_outs = wickets
            .iter()
            .filter(|w| w["kind"] == json!("run out"))
            .count() as u64;
        assert_eq!(
            sum(bowling.iter().map(|b| num(&b["wickets"]))),
            wickets.len() as u64 - run_outs
        );
        assert_eq!(
            innings.get("declared").is_some(),
            card["declared"] == json!(true)
        );
    }
}

/// The text scorecard reads like a printed one.
fn assert_the_text_reads_like_a_scorecard(text: &str, scorecard: &Value, summary: &str) {
    assert!(text.starts_with("GOOGLY: Kent v Surrey\n"), "{text}");
    assert!(text.contains("Toss: "), "{text}");
    assert!(text.contains(&format!("Result: {summary}\n")), "{text}");
    for card in scorecard["innings"].as_array().unwrap() {
        let team = card["team"].as_str().unwrap();
        let number = ["1st", "2nd"][num(&card["number"]) as usize - 1];
        assert!(
            text.contains(&format!("{team} {number} innings")),
            "{team} {number}: {text}"
        );
        let total_line = text
            .lines()
            .find(|l| {
                l.starts_with("Total ") && l.trim_end().ends_with(&format!(" {}", card["total"]))
            })
            .unwrap_or_else(|| panic!("no total of {}: {text}", card["total"]));
        assert!(total_line.contains(" over"), "{total_line}");
        if num(&card["wickets"]) > 0 {
            assert!(text.contains("Fall of wickets: 1-"), "{text}");
        }
        for bowler in card["bowling"].as_array().unwrap() {
            assert!(text.contains(bowler["name"].as_str().unwrap()));
        }
    }
    assert!(text.contains("\nExtras "), "{text}");
    assert!(text.contains("\nBowling "), "{text}");
    assert!(text.contains("Championship points: Kent "), "{text}");
}

async fn scorecard_text(app: &TestApp, id: &str) -> String {
    let res = app
        .client
        .get(format!("{}/v1/games/{id}/scorecard", app.address))
        .header(header::ACCEPT, "text/plain")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let content_type = res.headers()[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .to_string();
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    res.text().await.unwrap()
}

async fn a_two_player_match_over_http_reaches_a_result_its_scorecard_and_export_agree_on(
    app: TestApp,
) {
    let (id, tokens) = app.create_game(GAME, 2, Some(&seed_hex(11)), teams()).await;
    play_a_match_by_hand_then_on(&app, &id, &tokens).await;

    let view = app.view(&id, Some(&tokens[0])).await;
    assert_eq!(view["status"], json!("finished"));
    assert_eq!(view["to_act"], json!([]));
    let result = &view["result"];
    let summary = result["summary"].as_str().expect("a result in words");
    assert!(
        summary.starts_with("Kent won")
            || summary.starts_with("Surrey won")
            || summary == "Match drawn"
            || summary == "Match tied",
        "{summary}"
    );

    let (status, sheet) = app.get(&format!("/v1/games/{id}/scorecard"), None).await;
    assert_eq!(status, StatusCode::OK);
    let scorecard = &sheet["scorecard"];
    assert_eq!(scorecard["teams"], json!(["Kent", "Surrey"]));
    assert_eq!(scorecard["finished"], json!(true));
    assert_eq!(scorecard["status"], json!(summary));
    assert_eq!(
        scorecard["points"],
        json!([result["points"]["Kent"], result["points"]["Surrey"]])
    );
    let totals: Vec<u64> = (0..2)
        .map(|side| {
            sum(scorecard["innings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["side"] == json!(side))
                .map(|c| num(&c["total"])))
        })
        .collect();
    assert_eq!(result["totals"], json!(totals));

    let text = scorecard_text(&app, &id).await;
    assert_eq!(text, sheet["text"].as_str().unwrap());
    assert_the_text_reads_like_a_scorecard(&text, scorecard, summary);

    let (status, export) = app
        .get(&format!("/v1/games/{id}/exports/cricsheet"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_the_export_agrees_with_the_scorecard(&export, scorecard);
    assert!(export["info"]["outcome"].is_object(), "{}", export["info"]);
    assert_eq!(
        export["info"]["toss"]["decision"],
        json!("field"),
        "the toss winner chose to field"
    );
    assert_clean_audit(&app, &id).await;
}

/// Three matches between the same sides, each played by both seats on standing preferences.
async fn statistics_over_a_series_of_finished_matches_add_up_their_records(app: TestApp) {
    let mut ids = Vec::new();
    let mut records = Vec::new();
    for seed in [21, 22, 23] {
        let (id, tokens) = app
            .create_game(GAME, 2, Some(&seed_hex(seed)), teams())
            .await;
        let moves = let_both_seats_play_on(&app, &id, &tokens).await;
        assert!(moves <= 10, "{moves} moves for a match on preferences");
        let (status, record) = app
            .get(&format!("/v1/games/{id}/exports/record"), None)
            .await;
        assert_eq!(status, StatusCode::OK, "{record}");
        records.push(record);
        ids.push(id);
    }
    let (status, stats) = app
        .get(
            &format!("/v1/statistics/{GAME}?games={}", ids.join(",")),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{stats}");

    // The championship table: both sides, three matches each, the records' points.
    let table = stats["table"].as_array().expect("a championship table");
    assert_eq!(table.len(), 2);
    for row in table {
        let team = row["team"].as_str().unwrap();
        let side = ["Kent", "Surrey"].iter().position(|t| *t == team).unwrap();
        assert_eq!(row["played"], json!(3));
        assert_eq!(
            num(&row["won"]) + num(&row["lost"]) + num(&row["tied"]) + num(&row["drawn"]),
            3
        );
        assert_eq!(
            num(&row["points"]),
            sum(records.iter().map(|r| num(&r["points"][side]))),
            "{team}"
        );
    }
    assert!(num(&table[0]["points"]) >= num(&table[1]["points"]));

    // Batting averages: every batsman's innings, runs and runs per dismissal over the series.
    let mut batting: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for entry in records
        .iter()
        .flat_map(|r| r["batting"].as_array().unwrap())
    {
        let line = batting
            .entry(entry["player"].as_str().unwrap().to_string())
            .or_default();
        line.0 += 1;
        line.1 += u64::from(entry["out"] == json!(false));
        line.2 += num(&entry["runs"]);
    }
    let averages = stats["batting"].as_array().expect("batting averages");
    assert_eq!(averages.len(), batting.len());
    for average in averages {
        let (innings, not_outs, runs) = batting[average["player"].as_str().unwrap()];
        assert_eq!(num(&average["innings"]), innings, "{average}");
        assert_eq!(num(&average["not_outs"]), not_outs, "{average}");
        assert_eq!(num(&average["runs"]), runs, "{average}");
        match innings - not_outs {
            0 => assert_eq!(average["average"], Value::Null),
            outs => {
                let expected = (runs as f64 / outs as f64 * 100.0).round() / 100.0;
                assert_eq!(average["average"].as_f64(), Some(expected), "{average}");
            }
        }
    }
    assert!(averages.iter().any(|a| a["player"] == json!("Woolley")));

    // Bowling averages: wickets and runs over the series.
    let mut bowling: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for entry in records
        .iter()
        .flat_map(|r| r["bowling"].as_array().unwrap())
    {
        let line = bowling
            .entry(entry["player"].as_str().unwrap().to_string())
            .or_default();
        line.0 += num(&entry["wickets"]);
        line.1 += num(&entry["runs"]);
    }
    let averages = stats["bowling"].as_array().expect("bowling averages");
    assert_eq!(averages.len(), bowling.len());
    for average in averages {
        let (wickets, runs) = bowling[average["player"].as_str().unwrap()];
        assert_eq!(num(&average["wickets"]), wickets, "{average}");
        assert_eq!(num(&average["runs"]), runs, "{average}");
    }

    // Centuries and hat-tricks are listed (as many as the records hold).
    let hundreds = records
        .iter()
        .flat_map(|r| r["batting"].as_array().unwrap())
        .filter(|e| num(&e["runs"]) >= 100)
        .count();
    assert_eq!(stats["centuries"].as_array().unwrap().len(), hundreds);
    let hat_tricks = sum(records
        .iter()
        .map(|r| r["hat_tricks"].as_array().unwrap().len() as u64));
    assert_eq!(
        stats["hat_tricks"].as_array().unwrap().len() as u64,
        hat_tricks
    );
}

async fn the_documents_of_a_game_answer_with_problems_when_they_cannot_be_given(app: TestApp) {
    let (finished, tokens) = app.create_game(GAME, 2, Some(&seed_hex(31)), teams()).await;
    let_both_seats_play_on(&app, &finished, &tokens).await;
    let (unfinished, _) = app.create_game(GAME, 2, None, teams()).await;
    let (girl, _) = app.create_game("girl", 3, None, json!({})).await;
    let app = &app;
    let get = |path: String| async move { app.request(Method::GET, &path, None, None).await };

    // Statistics count finished matches of the game only.
    let body = assert_problem(
        get(format!(
            "/v1/statistics/{GAME}?games={finished},{unfinished}"
        ))
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-selection",
    )
    .await;
    assert!(
        body["detail"].as_str().unwrap().contains(&unfinished),
        "{body}"
    );
    assert_problem(
        get(format!("/v1/statistics/{GAME}?games={finished},{girl}")).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-selection",
    )
    .await;
    // A match listed twice would be counted twice.
    let body = assert_problem(
        get(format!("/v1/statistics/{GAME}?games={finished},{finished}")).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid-selection",
    )
    .await;
    assert!(body["detail"].as_str().unwrap().contains("twice"), "{body}");
    assert_problem(
        get(format!("/v1/statistics/{GAME}?games=")).await,
        StatusCode::BAD_REQUEST,
        "malformed-request",
    )
    .await;
    assert_problem(
        get(format!("/v1/statistics/chess?games={finished}")).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;

    // A game has only the documents it keeps.
    assert_problem(
        get(format!("/v1/games/{finished}/exports/pdf")).await,
        StatusCode::NOT_FOUND,
        "no-such-document",
    )
    .await;
    assert_problem(
        get(format!("/v1/games/{unfinished}/exports/record")).await,
        StatusCode::NOT_FOUND,
        "no-such-document",
    )
    .await;
    assert_problem(
        get(format!("/v1/games/{girl}/scorecard")).await,
        StatusCode::NOT_FOUND,
        "no-such-document",
    )
    .await;
    assert_problem(
        get(format!("/v1/games/{girl}/exports/cricsheet")).await,
        StatusCode::NOT_FOUND,
        "no-such-document",
    )
    .await;

    // An unfinished match has a live scorecard and export all the same.
    let (status, live) = app
        .get(&format!("/v1/games/{unfinished}/exports/cricsheet"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(live["info"].get("outcome").is_none());
    let (status, sheet) = app
        .get(&format!("/v1/games/{unfinished}/scorecard"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(sheet["scorecard"]["finished"], json!(false));
}

on_both_backends!(
    a_two_player_match_over_http_reaches_a_result_its_scorecard_and_export_agree_on,
    statistics_over_a_series_of_finished_matches_add_up_their_records,
    the_documents_of_a_game_answer_with_problems_when_they_cannot_be_given,
);

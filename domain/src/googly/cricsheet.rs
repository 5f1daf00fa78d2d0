//! The match in Cricsheet's JSON shape (`info` with teams, toss and outcome; `innings` →
//! `overs` → `deliveries`), so ordinary cricket tools can read a GOOGLY match.

use serde_json::{json, Map, Value};

use super::{Choice, Margin, MatchResult, State, BALLS_PER_OVER};

/// The export, live or final (a live export has no `outcome`).
pub fn export(state: &State) -> Value {
    let game = state.game();
    let mut info = Map::new();
    info.insert("balls_per_over".into(), json!(BALLS_PER_OVER));
    info.insert("event".into(), json!({"name": "GOOGLY"}));
    info.insert("match_type".into(), json!("MDM"));
    info.insert("team_type".into(), json!("club"));
    info.insert(
        "teams".into(),
        json!([game.teams[0].name, game.teams[1].name]),
    );
    let mut players = Map::new();
    for team in &game.teams {
        players.insert(team.name.clone(), json!(team.players));
    }
    info.insert("players".into(), Value::Object(players));
    if let Some((side, Some(choice))) = state.toss() {
        info.insert(
            "toss".into(),
            json!({
                "winner": game.team(side).name,
                "decision": match choice { Choice::Bat => "bat", Choice::Field => "field" },
            }),
        );
    }
    if let Some(result) = state.result() {
        let outcome = match result {
            MatchResult::Draw => json!({"result": "draw"}),
            MatchResult::Tie => json!({"result": "tie"}),
            MatchResult::Won { side, margin } => {
                let by = match margin {
                    Margin::Runs(n) => json!({"runs": n}),
                    Margin::Wickets(n) => json!({"wickets": n}),
                    Margin::InningsAndRuns(n) => json!({"innings": 1, "runs": n}),
                };
                json!({"winner": game.team(side).name, "by": by})
            }
        };
        info.insert("outcome".into(), outcome);
    }

    let innings: Vec<Value> = state
        .innings()
        .iter()
        .enumerate()
        .map(|(i, innings)| {
            let bat = game.team(innings.batting);
            let bowl = game.team(1 - innings.batting);
            let mut overs: Vec<Value> = Vec::new();
            for (n, over) in state
                .innings_deliveries(i)
                .chunks(usize::from(BALLS_PER_OVER))
                .enumerate()
            {
                let deliveries: Vec<Value> = over
                    .iter()
                    .map(|d| {
                        let mut delivery = Map::new();
                        delivery.insert("batter".into(), json!(bat.player(d.batter)));
                        delivery.insert("bowler".into(), json!(bowl.player(d.bowler)));
                        delivery.insert("non_striker".into(), json!(bat.player(d.non_striker)));
                        if d.extras() > 0 {
                            delivery.insert("extras".into(), json!({"legbyes": d.extras()}));
                        }
                        delivery.insert(
                            "runs".into(),
                            json!({
                                "batter": d.batter_runs(),
                                "extras": d.extras(),
                                "total": d.batter_runs() + d.extras(),
                            }),
                        );
                        if let Some(how) = d.dismissal() {
                            delivery.insert(
                                "wickets".into(),
                                json!([{"player_out": bat.player(d.batter), "kind": how.kind()}]),
                            );
                        }
                        Value::Object(delivery)
                    })
                    .collect();
                overs.push(json!({"over": n, "deliveries": deliveries}));
            }
            let mut entry = Map::new();
            entry.insert("team".into(), json!(bat.name));
            entry.insert("overs".into(), Value::Array(overs));
            if innings.declared {
                entry.insert("declared".into(), json!(true));
            }
            if i == 3 {
                let target = state.aggregate(1 - innings.batting) + 1
                    - (state.aggregate(innings.batting) - innings.runs);
                entry.insert("target".into(), json!({"runs": target}));
            }
            Value::Object(entry)
        })
        .collect();

    json!({
        "meta": {"data_version": "1.1.0", "revision": 1},
        "info": Value::Object(info),
        "innings": innings,
    })
}

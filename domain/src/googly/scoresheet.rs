//! The score-sheet the scorer keeps: derived on demand from the ball-by-ball record, live
//! while the match runs and final once it is over, as JSON and as a plain-text scorecard.
//! The table views are built here too, since they show the same figures.

use serde::Serialize;
use serde_json::{json, Value};

use super::figures::ordinal;
pub use super::figures::{overs, BattingLine, BowlingLine, Fall, HowOut, InningsCard, Partnership};
use super::pack::{Stroke, Verdict};
use super::points::championship_points;
use super::{
    Choice, Delivery, Due, Margin, MatchResult, Phase, State, Team, ALL_OUT, BALLS_PER_OVER,
    ELEVEN, OVERS_PER_DAY,
};
use crate::game::{Seat, View, Viewer};

/// The whole score-sheet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scorecard {
    /// The two sides.
    pub teams: [String; 2],
    /// `Players won the toss and chose to field`.
    pub toss: Option<String>,
    /// The state of play or the result, in words.
    pub status: String,
    /// Whether the match is over.
    pub finished: bool,
    /// The innings in order.
    pub innings: Vec<InningsCard>,
    /// Overs bowled in the match.
    pub match_overs: u16,
    /// The time limit in overs (51, 54 with extra time).
    pub limit: u16,
    /// Who claimed extra time.
    pub extra_time: Option<String>,
    /// County Championship points per side, once the match is over.
    pub points: Option<[u16; 2]>,
}

/// The result in words: `Gentlemen won by 45 runs`, `Match drawn`.
pub fn result_text(state: &State) -> String {
    let game = state.game();
    match state.result() {
        None => String::new(),
        Some(MatchResult::Draw) => String::from("Match drawn"),
        Some(MatchResult::Tie) => String::from("Match tied"),
        Some(MatchResult::Won { side, margin }) => {
            let name = &game.team(side).name;
            let plural = |n: u16, word: &str| {
                if n == 1 {
                    format!("1 {word}")
                } else {
                    format!("{n} {word}s")
                }
            };
            match margin {
                Margin::Runs(n) => format!("{name} won by {}", plural(n, "run")),
                Margin::Wickets(n) => format!("{name} won by {}", plural(u16::from(n), "wicket")),
                Margin::InningsAndRuns(n) => {
                    format!("{name} won by an innings and {}", plural(n, "run"))
                }
            }
        }
    }
}

fn status_text(state: &State) -> String {
    if state.result().is_some() {
        return result_text(state);
    }
    let overs_left = state.limit().saturating_sub(state.match_overs());
    let day = (state.match_overs() / OVERS_PER_DAY + 1).min(3);
    let when = if state.extra_time().is_some() {
        String::from("extra time")
    } else {
        format!("day {day}")
    };
    let situation = match state.innings().last() {
        None => String::from("before play"),
        Some(innings) => {
            let side = innings.batting;
            let name = &state.game().team(side).name;
            let mine = state.aggregate(side);
            let theirs = state.aggregate(1 - side);
            let count = state.innings().len();
            if count == 4 {
                let need = (theirs + 1).saturating_sub(mine);
                format!(
                    "{name} need {need} to win with {} wickets left",
                    ALL_OUT.saturating_sub(innings.wickets)
                )
            } else if count == 1 {
                format!("{name} batting")
            } else if mine >= theirs {
                format!("{name} lead by {}", mine - theirs)
            } else {
                format!("{name} trail by {}", theirs - mine)
            }
        }
    };
    format!("{when}, {situation}; {overs_left} overs left")
}

impl Scorecard {
    /// The score-sheet of the match as it stands.
    pub fn of(state: &State) -> Scorecard {
        let game = state.game();
        let toss = state.toss().map(|(side, choice)| {
            let name = &game.team(side).name;
            match choice {
                Some(Choice::Bat) => format!("{name} won the toss and chose to bat"),
                Some(Choice::Field) => format!("{name} won the toss and chose to field"),
                None => format!("{name} won the toss"),
            }
        });
        Scorecard {
            teams: [game.teams[0].name.clone(), game.teams[1].name.clone()],
            toss,
            status: status_text(state),
            finished: state.result().is_some(),
            innings: (0..state.innings().len())
                .filter_map(|i| InningsCard::of(state, i))
                .collect(),
            match_overs: state.match_overs(),
            limit: state.limit(),
            extra_time: state.extra_time().map(|s| game.team(s).name.clone()),
            points: state.result().map(|_| championship_points(state)),
        }
    }

    /// The plain-text scorecard.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let rule = "-".repeat(64);
        out.push_str(&format!("GOOGLY: {} v {}\n", self.teams[0], self.teams[1]));
        if let Some(toss) = &self.toss {
            out.push_str(&format!("Toss: {toss}\n"));
        }
        out.push_str(&format!(
            "{}: {}\n",
            if self.finished { "Result" } else { "Status" },
            self.status
        ));
        if let Some(side) = &self.extra_time {
            out.push_str(&format!("Extra time claimed by {side}\n"));
        }
        for card in &self.innings {
            out.push('\n');
            out.push_str(&format!("{}\n{rule}\n", card.title()));
            out.push_str(&format!(
                "{:<22} {:<26} {:>5} {:>4}\n",
                "Batsman", "", "R", "B"
            ));
            for line in &card.batting {
                if line.how_out.status == "did not bat" {
                    continue;
                }
                let star = if line.how_out.status == "out" {
                    ""
                } else {
                    "*"
                };
                out.push_str(&format!(
                    "{:<22} {:<26} {:>5} {:>4}\n",
                    line.name,
                    line.how_out.text,
                    format!("{}{star}", line.runs),
                    line.balls
                ));
            }
            let dnb: Vec<&str> = card
                .batting
                .iter()
                .filter(|l| l.how_out.status == "did not bat")
                .map(|l| l.name.as_str())
                .collect();
            out.push_str(&format!(
                "{:<22} {:<26} {:>5}\n",
                "Extras",
                format!("(lb {})", card.leg_byes),
                card.extras
            ));
            out.push_str(&format!(
                "{:<49} {:>5}\n",
                format!("Total  {}", card.score()),
                card.total
            ));
            if !dnb.is_empty() {
                let word = if card.closed {
                    "Did not bat"
                } else {
                    "Yet to bat"
                };
                out.push_str(&format!("{word}: {}\n", dnb.join(", ")));
            }
            if !card.fall_of_wickets.is_empty() {
                let falls: Vec<String> = card
                    .fall_of_wickets
                    .iter()
                    .map(|f| format!("{}-{} ({}, {} ov)", f.wicket, f.runs, f.batter, f.over))
                    .collect();
                out.push_str(&format!("Fall of wickets: {}\n", falls.join(", ")));
            }
            if !card.bowling.is_empty() {
                out.push_str(&format!(
                    "\n{:<22} {:>6} {:>4} {:>5} {:>4}\n",
                    "Bowling", "O", "M", "R", "W"
                ));
                for line in &card.bowling {
                    out.push_str(&format!(
                        "{:<22} {:>6} {:>4} {:>5} {:>4}\n",
                        line.name, line.overs, line.maidens, line.runs, line.wickets
                    ));
                }
            }
            if !card.partnerships.is_empty() {
                out.push_str("\nPartnerships\n");
                for p in &card.partnerships {
                    out.push_str(&format!(
                        "{:>5} wkt {:>4}{} ({} ball{}) {} & {}\n",
                        ordinal(p.wicket),
                        p.runs,
                        if p.unbroken { "*" } else { " " },
                        p.balls,
                        if p.balls == 1 { "" } else { "s" },
                        p.batters[0],
                        p.batters[1]
                    ));
                }
            }
        }
        out.push_str(&format!(
            "\nOvers bowled in the match: {} of {}\n",
            self.match_overs, self.limit
        ));
        if let Some(points) = self.points {
            out.push_str(&format!(
                "Championship points: {} {}, {} {}\n",
                self.teams[0], points[0], self.teams[1], points[1]
            ));
        }
        out
    }
}

fn delivery_json(state: &State, i: usize, d: &Delivery) -> Value {
    let innings = state.innings()[i];
    let game = state.game();
    let bat = game.team(innings.batting);
    let bowl = game.team(1 - innings.batting);
    let verdict = d.verdict.map(|card| {
        let call = match card.verdict() {
            Verdict::Out(how) => how.kind(),
            Verdict::NotOut => "not out",
            Verdict::LegBye => "leg bye",
        };
        json!({"card": card, "call": call})
    });
    json!({
        "batter": bat.player(d.batter),
        "non_striker": bat.player(d.non_striker),
        "bowler": bowl.player(d.bowler),
        "card": d.card,
        "runs": d.batter_runs(),
        "hows_that": d.card.stroke() == Stroke::HowsThat,
        "verdict": verdict,
    })
}

fn waiting_for(state: &State) -> Value {
    let decision = match state.due() {
        Due::Finished => "none",
        Due::Toss => "toss",
        Due::ExtraTime(_) => "extra_time",
        Due::Shuffle(_) => "shuffle",
        Due::Elect(_) => "elect",
        Due::Setup { .. } => "batting_order_and_opening_bowlers",
        Due::FollowOn(_) => "follow_on",
        Due::Bowler(_) => "bowler",
        Due::Ball => "ball",
        Due::Appeal => "appeal",
    };
    json!({"decision": decision, "seats": state.seats_to_act()})
}

/// A seat's sides and the players it plays (built once per match).
pub(crate) fn seat_roles(teams: &[Team; 2], seat: Seat) -> Value {
    let sides: Vec<Value> = (0..2u8)
        .filter(|&s| teams[usize::from(s)].seats.contains(&seat))
        .map(|s| {
            let team = &teams[usize::from(s)];
            let plays: Vec<&str> = (0..ELEVEN as u8)
                .filter(|&p| team.owner(p) == seat)
                .map(|p| team.player(p))
                .collect();
            json!({"side": s, "team": team.name, "captain": team.captain() == seat, "players": plays})
        })
        .collect();
    json!({
        "role": if sides.is_empty() { "scorer" } else { "player" },
        "sides": sides,
    })
}

/// The two sides as the view shows them (built once per match).
pub(crate) fn teams_view(teams: &[Team; 2]) -> Value {
    Value::Array(
        teams
            .iter()
            .map(|t| json!({"name": t.name, "players": t.players, "seats": t.seats, "captain": t.captain()}))
            .collect(),
    )
}

/// The two batsmen's runs and balls and the bowler's figures in the live innings, in one pass.
/// Runs and balls of the two batsmen at the crease; balls, maidens, runs and wickets of the
/// bowler of the over.
type LiveFigures = ([(u16, u16); 2], (u16, u16, u16, u16));

fn live_figures(state: &State, i: usize) -> LiveFigures {
    let pair = state.crease;
    let mut batsmen = [(0u16, 0u16); 2];
    let (mut balls, mut maidens, mut runs, mut wickets, mut over_runs) = (0u16, 0, 0, 0, 0u16);
    let bowler = state.bowler;
    for (j, d) in state.innings_deliveries(i).iter().enumerate() {
        for (k, p) in pair.iter().enumerate() {
            if d.batter == *p {
                batsmen[k].0 += d.batter_runs();
                batsmen[k].1 += 1;
            }
        }
        if Some(d.bowler) == bowler {
            balls += 1;
            runs += d.batter_runs();
            over_runs += d.batter_runs();
            wickets += u16::from(d.dismissal().is_some_and(|how| how.to_bowler()));
            if j % usize::from(BALLS_PER_OVER) == usize::from(BALLS_PER_OVER) - 1 {
                maidens += u16::from(over_runs == 0);
                over_runs = 0;
            }
        } else {
            over_runs = 0;
        }
    }
    (batsmen, (balls, maidens, runs, wickets))
}

/// What `viewer` sees: everything but the packs' order is public.
pub(crate) fn view(state: &State, viewer: Viewer) -> View {
    let game = state.game();
    let seats: Vec<Value> = Seat::all(game.seats)
        .map(|seat| {
            let b = super::bit(seat);
            let mut entry = game.roles.get(seat.index()).cloned().unwrap_or(Value::Null);
            if let Value::Object(map) = &mut entry {
                map.insert("playing_on".into(), json!(state.plays_on(seat)));
                map.insert(
                    "preferences".into(),
                    json!({
                        "auto_bowl": state.auto_bowl & b != 0,
                        "accept_defaults": state.accept_defaults & b != 0,
                        "keep_playing_on": state.keep_playing_on & b != 0,
                    }),
                );
            }
            entry
        })
        .collect();

    let innings: Vec<Value> = state
        .innings()
        .iter()
        .map(|i| {
            json!({
                "team": game.team(i.batting).name,
                "side": i.batting,
                "runs": i.runs,
                "wickets": i.wickets,
                "overs": overs(i.balls),
                "declared": i.declared,
                "closed": i.closed,
            })
        })
        .collect();

    let current = match state.innings().len().checked_sub(1) {
        Some(i) if state.phase == Phase::Play => {
            let (pair, figures) = live_figures(state, i);
            let bat = game.team(state.batting_side());
            let bowl = game.team(state.fielding_side());
            let line = |k: usize| {
                let player = state.crease[k];
                json!({"name": bat.player(player), "runs": pair[k].0, "balls": pair[k].1, "seat": bat.owner(player)})
            };
            let striker = usize::from(state.striker);
            let bowler = state.bowler.map(|b| {
                let (balls, maidens, runs, wickets) = figures;
                json!({
                    "name": bowl.player(b),
                    "seat": bowl.owner(b),
                    "figures": {"overs": overs(balls), "maidens": maidens, "runs": runs, "wickets": wickets},
                })
            });
            let balls = state.innings_deliveries(i);
            let in_over = usize::from(state.over_balls);
            let this_over: Vec<Value> = balls[balls.len().saturating_sub(in_over)..]
                .iter()
                .map(|d| delivery_json(state, i, d))
                .collect();
            json!({
                "striker": line(striker),
                "non_striker": line(1 - striker),
                "bowler": bowler,
                "last_bowler": state.last_bowler.map(|b| bowl.player(b)),
                "over": state.overs_done + 1,
                "ball_of_over": state.over_balls,
                "this_over": this_over,
                "end": state.end(),
                "appeal_pending": state.appeal,
            })
        }
        _ => Value::Null,
    };
    let last = state
        .innings()
        .len()
        .checked_sub(1)
        .and_then(|i| {
            let balls = state.innings_deliveries(i);
            balls.last().map(|d| (i, d))
        })
        .or_else(|| {
            let i = state.innings().len().checked_sub(2)?;
            state.innings_deliveries(i).last().map(|d| (i, d))
        })
        .map(|(i, d)| delivery_json(state, i, d));
    let pile_sizes = |divided: bool, remaining: &dyn Fn(usize) -> usize| -> Value {
        if divided {
            json!([remaining(0), remaining(1)])
        } else {
            json!([remaining(0)])
        }
    };
    let target = match state.innings().len() {
        4 if state.result().is_none() => {
            let side = state.batting_side();
            let before = state.aggregate(side) - state.current().runs;
            Some(state.aggregate(1 - side) + 1 - before.min(state.aggregate(1 - side)))
        }
        _ => None,
    };
    let public = json!({
        "variant": game.variant,
        "teams": game.teams_view.clone(),
        "toss": state.toss().map(|(side, choice)| json!({"winner": game.team(side).name, "side": side, "elected": choice})),
        "waiting_for": waiting_for(state),
        "innings": innings,
        "current": current,
        "last_ball": last,
        "target": target,
        "follow_on": state.follow_on(),
        "packs": {
            "batting": {
                "divided": state.batting_pack.divided(),
                "face_down": pile_sizes(state.batting_pack.divided(), &|h| state.batting_pack.remaining(h)),
                "played_since_shuffle": state.batting_pack.played(),
            },
            "bowling": {
                "divided": state.bowling_pack.divided(),
                "face_down": pile_sizes(state.bowling_pack.divided(), &|h| state.bowling_pack.remaining(h)),
                "played_since_shuffle": state.bowling_pack.played(),
            },
        },
        "time": {
            "overs_bowled": state.match_overs(),
            "limit": state.limit(),
            "overs_left": state.limit().saturating_sub(state.match_overs()),
            "day": (state.match_overs() / OVERS_PER_DAY + 1).min(3),
            "extra_time": state.extra_time().map(|s| game.team(s).name.clone()),
        },
        "status": status_text(state),
        "result": state.result(),
    });
    let private = match viewer {
        Viewer::Seat(seat) => Some(json!({
            // Every pack is face down, even to its holder: nobody holds a card they can see.
            "hand": [],
            "to_act": state.seats_to_act().contains(&seat),
        })),
        Viewer::Spectator => None,
    };
    View {
        seats,
        public,
        private,
    }
}

//! The score-sheet the scorer keeps: derived on demand from the ball-by-ball record, live
//! while the match runs and final once it is over, as JSON and as a plain-text scorecard.
//! The table views are built here too, since they show the same figures.

use serde::Serialize;
use serde_json::{json, Value};

use super::pack::{Dismissal, Stroke, Verdict};
use super::{
    Choice, Delivery, Due, Margin, MatchResult, Phase, State, Team, ALL_OUT, BALLS_PER_OVER,
    ELEVEN, OVERS_PER_DAY,
};
use crate::game::{Seat, View, Viewer};

/// Overs as a scorer writes them: `14.2` for 14 overs and 2 balls, `15` for 15 overs.
pub fn overs(balls: u16) -> String {
    let per = u16::from(BALLS_PER_OVER);
    match balls % per {
        0 => format!("{}", balls / per),
        part => format!("{}.{}", balls / per, part),
    }
}

/// How a batsman's innings stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HowOut {
    /// `out`, `not out`, `batting` (at the wicket in a live innings) or `did not bat`.
    pub status: &'static str,
    /// How he was out.
    pub dismissal: Option<Dismissal>,
    /// The bowler, when the wicket is the bowler's (every way but run out).
    pub bowler: Option<String>,
    /// As the scorecard prints it: `lbw b Laker`, `run out`, `not out`.
    pub text: String,
}

/// One line of the batting card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BattingLine {
    /// Position in the batting order (1-based).
    pub position: u8,
    /// The batsman.
    pub name: String,
    /// How out.
    pub how_out: HowOut,
    /// Runs off the bat.
    pub runs: u16,
    /// Balls faced (batting cards he played, "How's That" included).
    pub balls: u16,
    /// Fours.
    pub fours: u16,
    /// Sixes.
    pub sixes: u16,
}

/// One line of the bowling analysis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BowlingLine {
    /// The bowler.
    pub name: String,
    /// Balls bowled.
    pub balls: u16,
    /// Overs as written (`7.2`).
    pub overs: String,
    /// Complete overs without a run off the bat.
    pub maidens: u16,
    /// Runs off the bat conceded (leg byes are not the bowler's).
    pub runs: u16,
    /// Wickets credited to the bowler (run outs are not).
    pub wickets: u16,
}

/// The fall of one wicket.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fall {
    /// Which wicket (1-based).
    pub wicket: u8,
    /// The total when it fell.
    pub runs: u16,
    /// Who was out.
    pub batter: String,
    /// Balls bowled in the innings when it fell.
    pub balls: u16,
    /// The same as overs.
    pub over: String,
}

/// A partnership.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Partnership {
    /// For the nth wicket (1-based).
    pub wicket: u8,
    /// The two batsmen.
    pub batters: [String; 2],
    /// Runs added, extras included.
    pub runs: u16,
    /// Balls it lasted.
    pub balls: u16,
    /// Whether it was still going when the innings ended (or is now).
    pub unbroken: bool,
}

/// One innings' card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InningsCard {
    /// The batting side's name.
    pub team: String,
    /// The batting side (0 or 1).
    pub side: u8,
    /// The side's first or second innings.
    pub number: u8,
    /// Whether this is a follow-on innings.
    pub follow_on: bool,
    /// The batting card in batting order.
    pub batting: Vec<BattingLine>,
    /// Leg byes (the only extras).
    pub leg_byes: u16,
    /// Extras in all.
    pub extras: u16,
    /// The total.
    pub total: u16,
    /// Wickets fallen.
    pub wickets: u8,
    /// Balls bowled.
    pub balls: u16,
    /// Overs as written.
    pub overs: String,
    /// Whether it was declared.
    pub declared: bool,
    /// Whether it is over.
    pub closed: bool,
    /// Whether it is being played now (not closed and the match not over).
    pub in_progress: bool,
    /// The fall of wickets.
    pub fall_of_wickets: Vec<Fall>,
    /// The bowling analysis, in the order the bowlers came on.
    pub bowling: Vec<BowlingLine>,
    /// The partnerships.
    pub partnerships: Vec<Partnership>,
}

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

fn ordinal(n: u8) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn how_out_text(how: Dismissal, bowler: &str) -> String {
    match how {
        Dismissal::Bowled => format!("b {bowler}"),
        Dismissal::Caught => format!("ct b {bowler}"),
        Dismissal::Stumped => format!("st b {bowler}"),
        Dismissal::Lbw => format!("lbw b {bowler}"),
        Dismissal::RunOut => String::from("run out"),
    }
}

impl InningsCard {
    /// The card of innings `i` (0-based) of the match.
    pub fn of(state: &State, i: usize) -> Option<InningsCard> {
        let innings = *state.innings().get(i)?;
        let game = state.game();
        let bat = game.team(innings.batting);
        let bowl = game.team(1 - innings.batting);
        let balls = state.innings_deliveries(i);
        let live = i + 1 == state.innings().len() && !innings.closed && state.result().is_none();

        let mut runs = [0u16; ELEVEN];
        let mut faced = [0u16; ELEVEN];
        let mut fours = [0u16; ELEVEN];
        let mut sixes = [0u16; ELEVEN];
        let mut batted = [false; ELEVEN];
        let mut out: [Option<(Dismissal, u8)>; ELEVEN] = [None; ELEVEN];
        let mut fall = Vec::new();
        let mut partnerships = Vec::new();
        let mut bowlers: Vec<(u8, BowlingLine)> = Vec::new();
        let (mut total, mut since_runs, mut since_balls, mut wickets) = (0u16, 0u16, 0u16, 0u8);
        let mut over_runs = 0u16;

        for (j, d) in balls.iter().enumerate() {
            let (b, n) = (usize::from(d.batter), usize::from(d.non_striker));
            if b < ELEVEN && n < ELEVEN {
                batted[b] = true;
                batted[n] = true;
                faced[b] += 1;
                runs[b] += d.batter_runs();
                match d.card.stroke() {
                    Stroke::Runs(4) => fours[b] += 1,
                    Stroke::Runs(6) => sixes[b] += 1,
                    _ => {}
                }
            }
            let added = d.batter_runs() + d.extras();
            total += added;
            since_runs += added;
            since_balls += 1;
            over_runs += d.batter_runs();
            let line = match bowlers.iter().position(|(p, _)| *p == d.bowler) {
                Some(k) => &mut bowlers[k].1,
                None => {
                    bowlers.push((
                        d.bowler,
                        BowlingLine {
                            name: bowl.player(d.bowler).to_string(),
                            balls: 0,
                            overs: String::new(),
                            maidens: 0,
                            runs: 0,
                            wickets: 0,
                        },
                    ));
                    let last = bowlers.len() - 1;
                    &mut bowlers[last].1
                }
            };
            line.balls += 1;
            line.runs += d.batter_runs();
            if let Some(how) = d.dismissal() {
                if how.to_bowler() {
                    line.wickets += 1;
                }
                wickets += 1;
                if b < ELEVEN {
                    out[b] = Some((how, d.bowler));
                }
                fall.push(Fall {
                    wicket: wickets,
                    runs: total,
                    batter: bat.player(d.batter).to_string(),
                    balls: j as u16 + 1,
                    over: overs(j as u16 + 1),
                });
                partnerships.push(Partnership {
                    wicket: wickets,
                    batters: [
                        bat.player(d.batter).to_string(),
                        bat.player(d.non_striker).to_string(),
                    ],
                    runs: since_runs,
                    balls: since_balls,
                    unbroken: false,
                });
                since_runs = 0;
                since_balls = 0;
            }
            if j % usize::from(BALLS_PER_OVER) == usize::from(BALLS_PER_OVER) - 1 {
                if over_runs == 0 {
                    line.maidens += 1;
                }
                over_runs = 0;
            }
        }
        let at_crease: Option<[u8; 2]> = if live && state.phase == Phase::Play {
            Some(state.crease)
        } else if wickets < ALL_OUT {
            balls.last().map(|d| {
                if d.dismissal().is_some() {
                    // The new man came in but the innings closed before he faced.
                    [d.non_striker, d.non_striker]
                } else {
                    [d.batter, d.non_striker]
                }
            })
        } else {
            None
        };
        if let Some(pair) = at_crease {
            for p in pair {
                if usize::from(p) < ELEVEN {
                    batted[usize::from(p)] = true;
                }
            }
            if wickets < ALL_OUT && (since_balls > 0 || live) && pair[0] != pair[1] {
                partnerships.push(Partnership {
                    wicket: wickets + 1,
                    batters: [
                        bat.player(pair[0]).to_string(),
                        bat.player(pair[1]).to_string(),
                    ],
                    runs: since_runs,
                    balls: since_balls,
                    unbroken: true,
                });
            }
        }
        let batting = if innings.order_set {
            innings
                .order
                .iter()
                .enumerate()
                .map(|(k, &p)| {
                    let pi = usize::from(p).min(ELEVEN - 1);
                    let how_out = match out[pi] {
                        Some((how, bowler)) => {
                            let name = bowl.player(bowler).to_string();
                            HowOut {
                                status: "out",
                                dismissal: Some(how),
                                bowler: how.to_bowler().then(|| name.clone()),
                                text: how_out_text(how, &name),
                            }
                        }
                        None if batted[pi] => {
                            let status = if live { "batting" } else { "not out" };
                            HowOut {
                                status,
                                dismissal: None,
                                bowler: None,
                                text: String::from(status),
                            }
                        }
                        None => HowOut {
                            status: "did not bat",
                            dismissal: None,
                            bowler: None,
                            text: String::from("did not bat"),
                        },
                    };
                    BattingLine {
                        position: k as u8 + 1,
                        name: bat.player(p).to_string(),
                        how_out,
                        runs: runs[pi],
                        balls: faced[pi],
                        fours: fours[pi],
                        sixes: sixes[pi],
                    }
                })
                .collect()
        } else {
            vec![]
        };
        let number = state.innings()[..=i]
            .iter()
            .filter(|x| x.batting == innings.batting)
            .count() as u8;
        Some(InningsCard {
            team: bat.name.clone(),
            side: innings.batting,
            number,
            follow_on: i == 2 && state.follow_on() == Some(true),
            batting,
            leg_byes: innings.leg_byes,
            extras: innings.leg_byes,
            total: innings.runs,
            wickets: innings.wickets,
            balls: innings.balls,
            overs: overs(innings.balls),
            declared: innings.declared,
            closed: innings.closed,
            in_progress: live,
            fall_of_wickets: fall,
            bowling: bowlers
                .into_iter()
                .map(|(_, mut line)| {
                    line.overs = overs(line.balls);
                    line
                })
                .collect(),
            partnerships,
        })
    }

    /// `Gentlemen 1st innings` (with `(following on)` where it applies).
    pub fn title(&self) -> String {
        format!(
            "{} {} innings{}",
            self.team,
            ordinal(self.number),
            if self.follow_on {
                " (following on)"
            } else {
                ""
            }
        )
    }

    /// `213 all out (35.2 overs)`, `250/6 dec (40 overs)`, `87/3 (12.4 overs)`.
    pub fn score(&self) -> String {
        let over_word = if self.balls == u16::from(BALLS_PER_OVER) {
            "over"
        } else {
            "overs"
        };
        if self.wickets >= ALL_OUT {
            format!("{} all out ({} {over_word})", self.total, self.overs)
        } else if self.declared {
            format!(
                "{}/{} dec ({} {over_word})",
                self.total, self.wickets, self.overs
            )
        } else {
            format!(
                "{}/{} ({} {over_word})",
                self.total, self.wickets, self.overs
            )
        }
    }
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
            points: state
                .result()
                .map(|_| super::stats::championship_points(state)),
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

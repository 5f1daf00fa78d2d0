//! The score-sheet the scorer keeps: derived on demand from the ball-by-ball record, live
//! while the match runs and final once it is over, as JSON and as a plain-text scorecard.

use serde::Serialize;

use super::figures::ordinal;
pub use super::figures::{overs, BattingLine, BowlingLine, Fall, HowOut, InningsCard, Partnership};
use super::points::championship_points;
use super::{Choice, Margin, MatchResult, State, ALL_OUT, BALLS_PER_OVER, OVERS_PER_DAY};

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
    /// Overs bowled in the match (from rules version 2 the whole overs' worth of
    /// `match_balls`; under version 1 a part over that ended an innings counts as one).
    pub match_overs: u16,
    /// Balls bowled in the match: the time as it is counted from rules version 2 (absent
    /// under version 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_balls: Option<u16>,
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

/// Balls left of the match's time (counted in balls from rules version 2).
pub(super) fn balls_left(state: &State) -> u16 {
    (state.limit() * u16::from(BALLS_PER_OVER)).saturating_sub(state.match_balls())
}

/// Whole overs left of the match's time: from rules version 2 those of [`balls_left`]; under
/// version 1 the limit less the overs counted (a part over as one).
pub(super) fn overs_left(state: &State) -> u16 {
    if state.time_in_balls() {
        balls_left(state) / u16::from(BALLS_PER_OVER)
    } else {
        state.limit().saturating_sub(state.match_overs())
    }
}

/// Time in overs as it is counted, in words: "50.5" (overs and balls) from rules version 2,
/// whole overs under version 1.
fn time_text(state: &State, balls: u16, overs: u16) -> String {
    if state.time_in_balls() {
        super::figures::overs(balls)
    } else {
        overs.to_string()
    }
}

/// The state of play in words (or the result, once there is one), for the view too.
pub(super) fn status_text(state: &State) -> String {
    if state.result().is_some() {
        return result_text(state);
    }
    let overs_left = time_text(state, balls_left(state), overs_left(state));
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
            match_balls: state.time_in_balls().then(|| state.match_balls()),
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
        let bowled = match self.match_balls {
            Some(balls) => overs(balls),
            None => self.match_overs.to_string(),
        };
        out.push_str(&format!(
            "\nOvers bowled in the match: {bowled} of {}\n",
            self.limit
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

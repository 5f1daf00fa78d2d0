//! The figures of one innings as the scorer writes them: the batting card, the bowling
//! analysis, the fall of wickets and the partnerships. Both the score-sheet and the
//! statistics across matches are built from these, so they live apart from either.

use serde::Serialize;

use super::pack::{Dismissal, Stroke};
use super::{Phase, State, ALL_OUT, BALLS_PER_OVER, ELEVEN};

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

/// `1st`, `2nd`, `11th`: how the scorer numbers innings and wickets.
pub(super) fn ordinal(n: u8) -> String {
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
                // An innings has at most a few hundred deliveries (see MATCH_OVERS).
                #[allow(clippy::cast_possible_truncation)]
                let balls = j as u16 + 1;
                fall.push(Fall {
                    wicket: wickets,
                    runs: total,
                    batter: bat.player(d.batter).to_string(),
                    balls,
                    over: overs(balls),
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
                    // One of eleven batting places.
                    #[allow(clippy::cast_possible_truncation)]
                    let position = k as u8 + 1;
                    BattingLine {
                        position,
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
        // A match has at most four innings.
        #[allow(clippy::cast_possible_truncation)]
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

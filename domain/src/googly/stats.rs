//! Statistics across matches: batting and bowling averages per named player, centuries,
//! hat-tricks and a County Championship table. Pure functions: the server derives a
//! [`MatchRecord`] from each finished match ([`MatchRecord::of`], or the `record` export) and
//! hands a series of them to [`aggregate`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::figures::{overs, InningsCard};
pub use super::points::{
    championship_points, first_innings, FIRST_INNINGS_LEAD_POINTS, FIRST_INNINGS_TIE_POINTS,
    TIE_POINTS, WIN_POINTS,
};
use super::{MatchResult, State};

/// One batsman's innings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattingEntry {
    /// The batsman.
    pub player: String,
    /// His side.
    pub team: String,
    /// Runs.
    pub runs: u16,
    /// Balls faced.
    pub balls: u16,
    /// Whether he was out.
    pub out: bool,
}

/// One bowler's figures in one innings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BowlingEntry {
    /// The bowler.
    pub player: String,
    /// His side.
    pub team: String,
    /// Balls bowled.
    pub balls: u16,
    /// Maidens.
    pub maidens: u16,
    /// Runs conceded.
    pub runs: u16,
    /// Wickets.
    pub wickets: u16,
}

/// Wickets by one bowler with successive balls he bowled (three or more).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HatTrick {
    /// The bowler.
    pub player: String,
    /// His side.
    pub team: String,
    /// How many wickets in successive balls (3 for a hat-trick, more for a longer run).
    pub wickets: u8,
    /// In which innings of the match (1-based).
    pub innings: u8,
}

/// What statistics need from one finished match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// The two sides.
    pub teams: [String; 2],
    /// The result.
    pub result: MatchResult,
    /// The result in words.
    pub summary: String,
    /// Championship points per side.
    pub points: [u16; 2],
    /// First-innings totals, when both were completed.
    pub first_innings: Option<[u16; 2]>,
    /// Every batsman's innings.
    pub batting: Vec<BattingEntry>,
    /// Every bowler's figures per innings.
    pub bowling: Vec<BowlingEntry>,
    /// Hat-tricks (and longer runs).
    pub hat_tricks: Vec<HatTrick>,
}

impl MatchRecord {
    /// The record of a finished match (`None` while it is in progress).
    pub fn of(state: &State) -> Option<MatchRecord> {
        let result = state.result()?;
        let game = state.game();
        let mut batting = Vec::new();
        let mut bowling = Vec::new();
        for i in 0..state.innings().len() {
            let Some(card) = InningsCard::of(state, i) else {
                continue;
            };
            let fielding = game.team(1 - card.side).name.clone();
            for line in card
                .batting
                .iter()
                .filter(|l| l.how_out.status != "did not bat")
            {
                batting.push(BattingEntry {
                    player: line.name.clone(),
                    team: card.team.clone(),
                    runs: line.runs,
                    balls: line.balls,
                    out: line.how_out.status == "out",
                });
            }
            for line in &card.bowling {
                bowling.push(BowlingEntry {
                    player: line.name.clone(),
                    team: fielding.clone(),
                    balls: line.balls,
                    maidens: line.maidens,
                    runs: line.runs,
                    wickets: line.wickets,
                });
            }
        }
        Some(MatchRecord {
            teams: [game.teams[0].name.clone(), game.teams[1].name.clone()],
            result,
            summary: super::scoresheet::result_text(state),
            points: championship_points(state),
            first_innings: first_innings(state),
            batting,
            bowling,
            hat_tricks: hat_tricks(state),
        })
    }
}

/// Every run of three or more wickets to one bowler with successive balls he bowled, within
/// an innings (run outs are not the bowler's and break the run).
pub fn hat_tricks(state: &State) -> Vec<HatTrick> {
    let game = state.game();
    let mut found = Vec::new();
    for (i, innings) in state.innings().iter().enumerate() {
        let bowl = game.team(1 - innings.batting);
        let mut runs = [0u8; super::ELEVEN];
        let balls = state.innings_deliveries(i);
        // A bowler is one of eleven and a match has at most four innings: both fit a u8.
        #[allow(clippy::cast_possible_truncation)]
        let mut close = |bowler: usize, runs: &mut [u8; super::ELEVEN]| {
            if runs[bowler] >= 3 {
                found.push(HatTrick {
                    player: bowl.player(bowler as u8).to_string(),
                    team: bowl.name.clone(),
                    wickets: runs[bowler],
                    innings: i as u8 + 1,
                });
            }
            runs[bowler] = 0;
        };
        for d in balls {
            let bowler = usize::from(d.bowler).min(super::ELEVEN - 1);
            match d.dismissal() {
                Some(how) if how.to_bowler() => runs[bowler] += 1,
                _ => close(bowler, &mut runs),
            }
        }
        for bowler in 0..super::ELEVEN {
            close(bowler, &mut runs);
        }
    }
    found
}

/// A batsman's record over a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BattingAverage {
    /// The batsman.
    pub player: String,
    /// His side.
    pub team: String,
    /// Matches in which he batted.
    pub matches: u32,
    /// Innings.
    pub innings: u32,
    /// Not-out innings.
    pub not_outs: u32,
    /// Runs.
    pub runs: u32,
    /// Highest score.
    pub highest: u16,
    /// Whether the highest score was not out.
    pub highest_not_out: bool,
    /// Runs per dismissal, to two places (`None` if never out).
    pub average: Option<f64>,
    /// Innings of 100 or more.
    pub hundreds: u32,
    /// Innings of 50 to 99.
    pub fifties: u32,
}

/// A bowler's record over a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BowlingAverage {
    /// The bowler.
    pub player: String,
    /// His side.
    pub team: String,
    /// Balls bowled.
    pub balls: u32,
    /// Overs as written.
    pub overs: String,
    /// Maidens.
    pub maidens: u32,
    /// Runs conceded.
    pub runs: u32,
    /// Wickets.
    pub wickets: u32,
    /// Runs per wicket, to two places (`None` without a wicket).
    pub average: Option<f64>,
    /// Best figures in an innings, `wickets/runs`.
    pub best: String,
    /// Innings with five wickets or more.
    pub five_wickets: u32,
}

/// A century.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Century {
    /// The batsman.
    pub player: String,
    /// His side.
    pub team: String,
    /// Runs.
    pub runs: u16,
    /// Whether not out.
    pub not_out: bool,
    /// The match's index in the series (0-based).
    pub match_index: usize,
}

/// A hat-trick in a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesHatTrick {
    /// The hat-trick.
    #[serde(flatten)]
    pub hat_trick: HatTrick,
    /// The match's index in the series (0-based).
    pub match_index: usize,
}

/// A side's line in the championship table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableRow {
    /// The side.
    pub team: String,
    /// Matches played.
    pub played: u32,
    /// Won.
    pub won: u32,
    /// Lost.
    pub lost: u32,
    /// Tied.
    pub tied: u32,
    /// Drawn.
    pub drawn: u32,
    /// Points from first-innings leads and ties.
    pub first_innings_points: u32,
    /// All points.
    pub points: u32,
}

/// Averages, centuries, hat-tricks and the table over a series of matches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statistics {
    /// Batting averages, best average first (those never out after them, by runs).
    pub batting: Vec<BattingAverage>,
    /// Bowling averages, best (lowest) first; those without a wicket last.
    pub bowling: Vec<BowlingAverage>,
    /// Every century.
    pub centuries: Vec<Century>,
    /// Every hat-trick.
    pub hat_tricks: Vec<SeriesHatTrick>,
    /// The championship table, most points first.
    pub table: Vec<TableRow>,
}

fn two_places(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Everything over a series of matches.
pub fn aggregate(records: &[MatchRecord]) -> Statistics {
    let mut batting: Vec<(BattingAverage, usize)> = Vec::new();
    let mut bowling: Vec<(BowlingAverage, (u16, u16))> = Vec::new();
    let mut centuries = Vec::new();
    let mut hat_tricks = Vec::new();
    let mut table: Vec<TableRow> = Vec::new();

    for (m, record) in records.iter().enumerate() {
        for entry in &record.batting {
            let k = match batting
                .iter()
                .position(|(b, _)| b.player == entry.player && b.team == entry.team)
            {
                Some(k) => k,
                None => {
                    batting.push((
                        BattingAverage {
                            player: entry.player.clone(),
                            team: entry.team.clone(),
                            matches: 0,
                            innings: 0,
                            not_outs: 0,
                            runs: 0,
                            highest: 0,
                            highest_not_out: false,
                            average: None,
                            hundreds: 0,
                            fifties: 0,
                        },
                        usize::MAX,
                    ));
                    batting.len() - 1
                }
            };
            let (line, last_match) = &mut batting[k];
            if *last_match != m {
                line.matches += 1;
                *last_match = m;
            }
            line.innings += 1;
            line.not_outs += u32::from(!entry.out);
            line.runs += u32::from(entry.runs);
            if entry.runs > line.highest || (entry.runs == line.highest && !entry.out) {
                line.highest = entry.runs;
                line.highest_not_out = !entry.out;
            }
            if entry.runs >= 100 {
                line.hundreds += 1;
                centuries.push(Century {
                    player: entry.player.clone(),
                    team: entry.team.clone(),
                    runs: entry.runs,
                    not_out: !entry.out,
                    match_index: m,
                });
            } else if entry.runs >= 50 {
                line.fifties += 1;
            }
        }
        for entry in &record.bowling {
            let k = match bowling
                .iter()
                .position(|(b, _)| b.player == entry.player && b.team == entry.team)
            {
                Some(k) => k,
                None => {
                    bowling.push((
                        BowlingAverage {
                            player: entry.player.clone(),
                            team: entry.team.clone(),
                            balls: 0,
                            overs: String::new(),
                            maidens: 0,
                            runs: 0,
                            wickets: 0,
                            average: None,
                            best: String::new(),
                            five_wickets: 0,
                        },
                        (0, u16::MAX),
                    ));
                    bowling.len() - 1
                }
            };
            let (line, best) = &mut bowling[k];
            line.balls += u32::from(entry.balls);
            line.maidens += u32::from(entry.maidens);
            line.runs += u32::from(entry.runs);
            line.wickets += u32::from(entry.wickets);
            line.five_wickets += u32::from(entry.wickets >= 5);
            if entry.wickets > best.0 || (entry.wickets == best.0 && entry.runs < best.1) {
                *best = (entry.wickets, entry.runs);
            }
        }
        for hat_trick in &record.hat_tricks {
            hat_tricks.push(SeriesHatTrick {
                hat_trick: hat_trick.clone(),
                match_index: m,
            });
        }
        for side in 0..2 {
            let team = &record.teams[side];
            let k = match table.iter().position(|row| &row.team == team) {
                Some(k) => k,
                None => {
                    table.push(TableRow {
                        team: team.clone(),
                        played: 0,
                        won: 0,
                        lost: 0,
                        tied: 0,
                        drawn: 0,
                        first_innings_points: 0,
                        points: 0,
                    });
                    table.len() - 1
                }
            };
            let row = &mut table[k];
            row.played += 1;
            row.points += u32::from(record.points[side]);
            match record.result {
                MatchResult::Won { side: winner, .. } if usize::from(winner) == side => {
                    row.won += 1
                }
                MatchResult::Won { .. } => {
                    row.lost += 1;
                    row.first_innings_points += u32::from(record.points[side]);
                }
                MatchResult::Tie => row.tied += 1,
                MatchResult::Draw => {
                    row.drawn += 1;
                    row.first_innings_points += u32::from(record.points[side]);
                }
            }
        }
    }

    let mut batting: Vec<BattingAverage> = batting
        .into_iter()
        .map(|(mut line, _)| {
            let outs = line.innings - line.not_outs;
            line.average = (outs > 0).then(|| two_places(f64::from(line.runs) / f64::from(outs)));
            line
        })
        .collect();
    batting.sort_by(|a, b| {
        b.average
            .unwrap_or(-1.0)
            .total_cmp(&a.average.unwrap_or(-1.0))
            .then(b.runs.cmp(&a.runs))
            .then(a.player.cmp(&b.player))
    });
    let mut bowling: Vec<BowlingAverage> = bowling
        .into_iter()
        .map(|(mut line, best)| {
            line.overs = overs(u16::try_from(line.balls).unwrap_or(u16::MAX));
            line.average = (line.wickets > 0)
                .then(|| two_places(f64::from(line.runs) / f64::from(line.wickets)));
            line.best = format!("{}/{}", best.0, best.1);
            line
        })
        .collect();
    bowling.sort_by(|a, b| {
        a.average
            .unwrap_or(f64::INFINITY)
            .total_cmp(&b.average.unwrap_or(f64::INFINITY))
            .then(b.wickets.cmp(&a.wickets))
            .then(a.player.cmp(&b.player))
    });
    table.sort_by(|a, b| {
        b.points
            .cmp(&a.points)
            .then(b.won.cmp(&a.won))
            .then(a.team.cmp(&b.team))
    });
    Statistics {
        batting,
        bowling,
        centuries,
        hat_tricks,
        table,
    }
}

/// [`aggregate`] over records in their JSON form (as the `record` export gives them).
pub fn aggregate_json(records: &[Value]) -> Result<Value, String> {
    let records: Vec<MatchRecord> = records
        .iter()
        .map(|r| serde_json::from_value(r.clone()).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    serde_json::to_value(aggregate(&records)).map_err(|e| e.to_string())
}

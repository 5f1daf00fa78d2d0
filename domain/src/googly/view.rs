//! The table as each viewer sees it: everything but the packs' order is public. The live
//! figures it shows are the score-sheet's, in short.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::figures::overs;
use super::pack::{BatCard, BowlCard, Stroke, Verdict};
use super::scoresheet::{balls_left, overs_left, status_text};
use super::{
    Choice, Delivery, Due, MatchResult, Phase, State, Team, Variant, BALLS_PER_OVER, ELEVEN,
    OVERS_PER_DAY,
};
use crate::game::{Seat, View, Viewer};

/// Whether a seat plays or only keeps the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// It plays for one side or both.
    Player,
    /// It plays for neither: it watches the scorer at work.
    Scorer,
}

/// One side a seat plays for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SideRole {
    /// The side (0 or 1).
    pub side: u8,
    /// The side's name.
    pub team: String,
    /// Whether the seat captains it.
    pub captain: bool,
    /// The players of the side this seat plays.
    pub players: Vec<String>,
}

/// A seat's sides and players (built once per match).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatRoles {
    /// Player or scorer.
    pub role: Role,
    /// The sides it plays for.
    pub sides: Vec<SideRole>,
}

/// A seat's standing preferences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Preferences {
    /// As fielding captain, bowl the openers (or the last two bowlers) in turn.
    pub auto_bowl: bool,
    /// Take the default for every decision.
    pub accept_defaults: bool,
    /// Keep playing on after this seat's batsman is out or an innings ends.
    pub keep_playing_on: bool,
}

/// What everyone sees of one seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatView {
    /// The seat's sides and players.
    #[serde(flatten)]
    pub roles: SeatRoles,
    /// Whether the scorer is turning this seat's cards for it.
    pub playing_on: bool,
    /// The seat's standing preferences.
    pub preferences: Preferences,
}

/// One side as the view shows it (built once per match).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TeamView {
    /// The side's name.
    pub name: String,
    /// Its eleven players, in the default batting order.
    pub players: Vec<String>,
    /// The seats that play it.
    pub seats: Vec<Seat>,
    /// The seat that captains it.
    pub captain: Seat,
}

/// The toss.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TossView {
    /// The winning side's name.
    pub winner: String,
    /// The winning side (0 or 1).
    pub side: u8,
    /// What the winner chose, once chosen.
    pub elected: Option<Choice>,
}

/// The decision the match waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Nothing: the match is over.
    None,
    /// The toss.
    Toss,
    /// Whether to claim extra time.
    ExtraTime,
    /// A shuffle of a pack.
    Shuffle,
    /// The toss winner's choice.
    Elect,
    /// The batting order and the opening bowlers.
    BattingOrderAndOpeningBowlers,
    /// Whether to enforce the follow-on.
    FollowOn,
    /// The bowler of the next over.
    Bowler,
    /// The next ball.
    Ball,
    /// The bowler's answer to a "How's That".
    Appeal,
}

/// What the match waits for, and from whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WaitingFor {
    /// The decision.
    pub decision: Decision,
    /// The seats that may make it.
    pub seats: Vec<Seat>,
}

/// One innings in short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct InningsSummary {
    /// The batting side's name.
    pub team: String,
    /// The batting side (0 or 1).
    pub side: u8,
    /// Runs, extras included.
    pub runs: u16,
    /// Wickets fallen.
    pub wickets: u8,
    /// Overs as written (`7.2`).
    pub overs: String,
    /// Whether it was declared.
    pub declared: bool,
    /// Whether it is over.
    pub closed: bool,
}

/// A batsman at the crease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AtTheCrease {
    /// The batsman.
    pub name: String,
    /// His runs.
    pub runs: u16,
    /// Balls he has faced.
    pub balls: u16,
    /// The seat that plays him.
    pub seat: Seat,
}

/// A bowler's figures in the innings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BowlerFigures {
    /// Overs as written.
    pub overs: String,
    /// Maidens.
    pub maidens: u16,
    /// Runs off the bat conceded.
    pub runs: u16,
    /// Wickets.
    pub wickets: u16,
}

/// The bowler of the over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct BowlerView {
    /// The bowler.
    pub name: String,
    /// The seat that plays him.
    pub seat: Seat,
    /// His figures so far.
    pub figures: BowlerFigures,
}

/// The bowling card turned up after a "How's That", and what it called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct VerdictView {
    /// The card.
    pub card: BowlCard,
    /// `bowled`, `caught`, `stumped`, `lbw`, `run out`, `not out` or `leg bye`.
    pub call: String,
}

/// One ball.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DeliveryView {
    /// The striker.
    pub batter: String,
    /// The batsman at the other end.
    pub non_striker: String,
    /// The bowler.
    pub bowler: String,
    /// The batting card.
    pub card: BatCard,
    /// Runs off the bat.
    pub runs: u16,
    /// Whether the card was a "How's That".
    pub hows_that: bool,
    /// The bowler's answer to a "How's That".
    pub verdict: Option<VerdictView>,
}

/// The innings being played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CurrentView {
    /// The batsman on strike.
    pub striker: AtTheCrease,
    /// The batsman at the other end.
    pub non_striker: AtTheCrease,
    /// The bowler of the over, once named.
    pub bowler: Option<BowlerView>,
    /// The bowler of the last over.
    pub last_bowler: Option<String>,
    /// The over being bowled (1-based).
    pub over: u16,
    /// Balls bowled in it.
    pub ball_of_over: u8,
    /// Its balls so far.
    pub this_over: Vec<DeliveryView>,
    /// The end bowled from (0 or 1).
    pub end: usize,
    /// Whether a "How's That" waits for the bowler's card.
    pub appeal_pending: bool,
}

/// A pack on the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PackView {
    /// Whether it is divided between two holders.
    pub divided: bool,
    /// Cards face down in each pile (one pile undivided, two divided).
    pub face_down: Vec<usize>,
    /// Cards turned up since the last shuffle.
    pub played_since_shuffle: usize,
}

/// The two packs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PacksView {
    /// The batting pack.
    pub batting: PackView,
    /// The bowling pack.
    pub bowling: PackView,
}

/// The match's time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TimeView {
    /// Overs bowled in the match (from rules version 2, the whole overs' worth of
    /// `balls_bowled`; under version 1 a part over that ended an innings counts as one).
    pub overs_bowled: u16,
    /// The limit in overs.
    pub limit: u16,
    /// Overs left (from rules version 2, whole overs left of `balls_left`).
    pub overs_left: u16,
    /// Balls bowled in the match: the time as it is counted, from rules version 2 (absent
    /// under version 1, which counts overs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balls_bowled: Option<u16>,
    /// Balls left of the time allowed (from rules version 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balls_left: Option<u16>,
    /// The day of play (1 to 3).
    pub day: u16,
    /// The side that claimed extra time.
    pub extra_time: Option<String>,
}

/// What lies face up for everyone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PublicView {
    /// How the seats share the play.
    pub variant: Variant,
    /// The two sides.
    pub teams: Vec<TeamView>,
    /// The toss, once made.
    pub toss: Option<TossView>,
    /// What the match waits for.
    pub waiting_for: WaitingFor,
    /// The innings so far.
    pub innings: Vec<InningsSummary>,
    /// The innings in play.
    pub current: Option<CurrentView>,
    /// The last ball bowled.
    pub last_ball: Option<DeliveryView>,
    /// In the fourth innings: the runs still needed to win.
    pub target: Option<u16>,
    /// Whether the follow-on was enforced, once decided.
    pub follow_on: Option<bool>,
    /// The two packs.
    pub packs: PacksView,
    /// The match's time.
    pub time: TimeView,
    /// The state of play or the result, in words.
    pub status: String,
    /// The result, once the match is over.
    pub result: Option<MatchResult>,
}

/// What only the player in a seat sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PrivateView {
    /// Always empty: every pack is face down, even to its holder.
    pub hand: Vec<BatCard>,
    /// Whether the match waits for this seat.
    pub to_act: bool,
}

/// One seat's share of the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatPoints {
    /// The seat.
    pub seat: Seat,
    /// The sides it played for.
    pub sides: Vec<u8>,
    /// Their championship points (from rules version 2, none for a seat that plays both
    /// sides: the points are the sides').
    pub points: u16,
}

/// The result of a finished match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Outcome {
    /// How it ended.
    pub result: MatchResult,
    /// The result in words.
    pub summary: String,
    /// The name of the side that won. From rules version 2; absent after a tie or a draw, and
    /// in matches created under rules version 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winning_side: Option<String>,
    /// The seats of the winning side. From rules version 2 only seats that play for that side
    /// alone: in patience, where one seat plays both sides, nobody (the side won, not the
    /// seat).
    pub winners: Vec<Seat>,
    /// Championship points by side name.
    pub points: BTreeMap<String, u16>,
    /// Each seat's points.
    pub seats: Vec<SeatPoints>,
    /// Each side's aggregate.
    pub totals: [u16; 2],
}

fn delivery_view(state: &State, i: usize, d: &Delivery) -> DeliveryView {
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
        VerdictView {
            card,
            call: call.to_string(),
        }
    });
    DeliveryView {
        batter: bat.player(d.batter).to_string(),
        non_striker: bat.player(d.non_striker).to_string(),
        bowler: bowl.player(d.bowler).to_string(),
        card: d.card,
        runs: d.batter_runs(),
        hows_that: d.card.stroke() == Stroke::HowsThat,
        verdict,
    }
}

fn waiting_for(state: &State) -> WaitingFor {
    let decision = match state.due() {
        Due::Finished => Decision::None,
        Due::Toss => Decision::Toss,
        Due::ExtraTime(_) => Decision::ExtraTime,
        Due::Shuffle(_) => Decision::Shuffle,
        Due::Elect(_) => Decision::Elect,
        Due::Setup { .. } => Decision::BattingOrderAndOpeningBowlers,
        Due::FollowOn(_) => Decision::FollowOn,
        Due::Bowler(_) => Decision::Bowler,
        Due::Ball => Decision::Ball,
        Due::Appeal => Decision::Appeal,
    };
    WaitingFor {
        decision,
        seats: state.seats_to_act(),
    }
}

/// A seat's sides and the players it plays (built once per match).
pub(crate) fn seat_roles(teams: &[Team; 2], seat: Seat) -> SeatRoles {
    let sides: Vec<SideRole> = (0..2u8)
        .filter(|&s| teams[usize::from(s)].seats.contains(&seat))
        .map(|s| {
            let team = &teams[usize::from(s)];
            let players = (0..ELEVEN)
                .filter_map(|p| u8::try_from(p).ok())
                .filter(|&p| team.owner(p) == seat)
                .map(|p| team.player(p).to_string())
                .collect();
            SideRole {
                side: s,
                team: team.name.clone(),
                captain: team.captain() == seat,
                players,
            }
        })
        .collect();
    SeatRoles {
        role: if sides.is_empty() {
            Role::Scorer
        } else {
            Role::Player
        },
        sides,
    }
}

/// The two sides as the view shows them (built once per match).
pub(crate) fn teams_view(teams: &[Team; 2]) -> Vec<TeamView> {
    teams
        .iter()
        .map(|t| TeamView {
            name: t.name.clone(),
            players: t.players.clone(),
            seats: t.seats.clone(),
            captain: t.captain(),
        })
        .collect()
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

fn pack_view(divided: bool, played: usize, remaining: &dyn Fn(usize) -> usize) -> PackView {
    PackView {
        divided,
        face_down: if divided {
            vec![remaining(0), remaining(1)]
        } else {
            vec![remaining(0)]
        },
        played_since_shuffle: played,
    }
}

/// What `viewer` sees: everything but the packs' order is public.
pub(crate) fn view(state: &State, viewer: Viewer) -> View<SeatView, PublicView, PrivateView> {
    let game = state.game();
    let seats = Seat::all(game.seats)
        .zip(&game.roles)
        .map(|(seat, roles)| {
            let b = super::bit(seat);
            SeatView {
                roles: roles.clone(),
                playing_on: state.plays_on(seat),
                preferences: Preferences {
                    auto_bowl: state.auto_bowl & b != 0,
                    accept_defaults: state.accept_defaults & b != 0,
                    keep_playing_on: state.keep_playing_on & b != 0,
                },
            }
        })
        .collect();

    let innings = state
        .innings()
        .iter()
        .map(|i| InningsSummary {
            team: game.team(i.batting).name.clone(),
            side: i.batting,
            runs: i.runs,
            wickets: i.wickets,
            overs: overs(i.balls),
            declared: i.declared,
            closed: i.closed,
        })
        .collect();

    let current = match state.innings().len().checked_sub(1) {
        Some(i) if state.phase == Phase::Play => {
            let (pair, figures) = live_figures(state, i);
            let bat = game.team(state.batting_side());
            let bowl = game.team(state.fielding_side());
            let line = |k: usize| {
                let player = state.crease[k];
                AtTheCrease {
                    name: bat.player(player).to_string(),
                    runs: pair[k].0,
                    balls: pair[k].1,
                    seat: bat.owner(player),
                }
            };
            let striker = usize::from(state.striker);
            let bowler = state.bowler.map(|b| {
                let (balls, maidens, runs, wickets) = figures;
                BowlerView {
                    name: bowl.player(b).to_string(),
                    seat: bowl.owner(b),
                    figures: BowlerFigures {
                        overs: overs(balls),
                        maidens,
                        runs,
                        wickets,
                    },
                }
            });
            let balls = state.innings_deliveries(i);
            let in_over = usize::from(state.over_balls);
            let this_over = balls[balls.len().saturating_sub(in_over)..]
                .iter()
                .map(|d| delivery_view(state, i, d))
                .collect();
            Some(CurrentView {
                striker: line(striker),
                non_striker: line(1 - striker),
                bowler,
                last_bowler: state.last_bowler.map(|b| bowl.player(b).to_string()),
                over: state.overs_done + 1,
                ball_of_over: state.over_balls,
                this_over,
                end: state.end(),
                appeal_pending: state.appeal,
            })
        }
        _ => None,
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
        .map(|(i, d)| delivery_view(state, i, d));
    let target = match state.innings().len() {
        4 if state.result().is_none() => {
            let side = state.batting_side();
            let before = state.aggregate(side) - state.current().runs;
            Some(state.aggregate(1 - side) + 1 - before.min(state.aggregate(1 - side)))
        }
        _ => None,
    };
    let public = PublicView {
        variant: game.variant,
        teams: game.teams_view.clone(),
        toss: state.toss().map(|(side, choice)| TossView {
            winner: game.team(side).name.clone(),
            side,
            elected: choice,
        }),
        waiting_for: waiting_for(state),
        innings,
        current,
        last_ball: last,
        target,
        follow_on: state.follow_on(),
        packs: PacksView {
            batting: pack_view(
                state.batting_pack.divided(),
                state.batting_pack.played(),
                &|h| state.batting_pack.remaining(h),
            ),
            bowling: pack_view(
                state.bowling_pack.divided(),
                state.bowling_pack.played(),
                &|h| state.bowling_pack.remaining(h),
            ),
        },
        time: TimeView {
            overs_bowled: state.match_overs(),
            limit: state.limit(),
            overs_left: overs_left(state),
            balls_bowled: state.time_in_balls().then(|| state.match_balls()),
            balls_left: state.time_in_balls().then(|| balls_left(state)),
            day: (state.match_overs() / OVERS_PER_DAY + 1).min(3),
            extra_time: state.extra_time().map(|s| game.team(s).name.clone()),
        },
        status: status_text(state),
        result: state.result(),
    };
    let private = match viewer {
        Viewer::Seat(seat) => Some(PrivateView {
            hand: Vec::new(),
            to_act: state.seats_to_act().contains(&seat),
        }),
        Viewer::Spectator => None,
    };
    View {
        seats,
        public,
        private,
    }
}

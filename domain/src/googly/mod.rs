//! GOOGLY, the cricket card game (Smith & Hallam): a two-innings match between two named
//! elevens, played with a batting pack and a bowling pack, with Parlour as the scorer.
//!
//! The scorer calls every card, keeps the score-sheet, enforces the laws and shuffles at the
//! prescribed intervals. Every decision taken where the sheet is silent is in
//! `docs/rules/googly.md`, each with the test that pins it.
//!
//! The state is kept small so it clones cheaply: the teams' names sit behind an `Arc`, each
//! pack is a fixed array with two cursors, and the match's history is one compact ball-by-ball
//! record ([`Delivery`]) from which the score-sheet, the Cricsheet export and the statistics are
//! derived on demand.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::chance::{Chance, Shuffled};
use crate::game::{
    ranking_by, Choose, Concession, Description, Game, Refusal, RefusalKind, Scoresheet, Seat,
    Setup, SetupError, ViewOf, Viewer,
};

pub(crate) mod bot;
pub mod cricsheet;
pub mod figures;
pub mod pack;
pub mod points;
pub mod scoresheet;
pub mod stats;
pub mod view;

#[cfg(test)]
mod tests;

use pack::{BatCard, BowlCard, Pack, Stroke, Verdict, BATTING_CARDS, BOWLING_CARDS};

/// Players in a side.
pub const ELEVEN: usize = 11;
/// Wickets that end an innings.
pub const ALL_OUT: u8 = 10;
/// Cards played by the batsmen that make an over.
pub const BALLS_PER_OVER: u8 = 6;
/// Overs in one "day".
pub const OVERS_PER_DAY: u16 = 17;
/// The match's time limit: three days of 17 overs.
pub const MATCH_OVERS: u16 = 3 * OVERS_PER_DAY;
/// Extra time either captain may claim at the end of 51 overs.
pub const EXTRA_OVERS: u16 = 3;
/// The first-innings lead that lets the side batting first enforce the follow-on.
pub const FOLLOW_ON_LEAD: u16 = 150;
/// All batting cards are gathered and reshuffled after every this many overs of an innings.
pub const BATTING_SHUFFLE_OVERS: u16 = 3;
/// All bowling cards are gathered and reshuffled after every this many overs of an innings.
pub const BOWLING_SHUFFLE_OVERS: u16 = 5;
/// Most seats at a table: eleven a side.
pub const MAX_PLAYERS: usize = 22;

const BATTING: u8 = 1;
const BOWLING: u8 = 2;
/// Auto-play never runs longer than a whole match could (a guard against a bug, not a rule).
const CHAIN_LIMIT: usize = 20_000;

/// The marker type for the GOOGLY engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct Googly;

// ---------------------------------------------------------------------------------------------
// Options and the two sides
// ---------------------------------------------------------------------------------------------

/// How the humans at the table share the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// The team game: seats alternate between the sides; the packs are divided between the two
    /// batsmen at the wicket and between the two ends' bowlers.
    Team,
    /// One human a side; the packs are not divided.
    TwoPlayer,
    /// As two players, with the third seat the scorer: it watches and never has to act.
    ThreePlayer,
    /// One seat plays both sides; any other seats watch.
    Patience,
}

impl Variant {
    /// The variant as a refusal names it: "three-player GOOGLY is for exactly 3 players".
    fn game_name(self) -> &'static str {
        match self {
            Variant::Team => "the team game of GOOGLY",
            Variant::TwoPlayer => "two-player GOOGLY",
            Variant::ThreePlayer => "three-player GOOGLY",
            Variant::Patience => "GOOGLY patience",
        }
    }

    fn for_players(players: usize) -> Variant {
        match players {
            0 | 1 => Variant::Patience,
            2 => Variant::TwoPlayer,
            3 => Variant::ThreePlayer,
            _ => Variant::Team,
        }
    }
}

/// One side as given at creation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TeamOptions {
    /// The side's name (default "Gentlemen" for the first side, "Players" for the second).
    pub name: Option<String>,
    /// Up to eleven player names in the default batting order; missing places are named
    /// after the side ("Gentlemen 9").
    #[schemars(length(max = 11))]
    pub players: Vec<String>,
}

/// GOOGLY's options.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `team`, `two_player`, `three_player` or `patience`; by default from the number of
    /// players (1 → patience, 2 → two_player, 3 → three_player, 4 or more → team).
    pub variant: Option<Variant>,
    /// The two sides (at most two; missing ones take the default names).
    #[schemars(length(max = 2))]
    pub teams: Vec<TeamOptions>,
}

/// A side: its name, its eleven players and the seats that play them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    /// The side's name.
    pub name: String,
    /// The eleven players, in the side's list order.
    pub players: Vec<String>,
    /// The seats playing this side; the first is the captain.
    pub seats: Vec<Seat>,
}

impl Team {
    /// The captain's seat.
    pub fn captain(&self) -> Seat {
        self.seats.first().copied().unwrap_or_default()
    }

    /// The seat that plays this player (player `i` belongs to the side's seat `i mod n`).
    pub fn owner(&self, player: u8) -> Seat {
        match self.seats.len() {
            0 => Seat(0),
            n => self.seats[usize::from(player) % n],
        }
    }

    /// The player's name.
    pub fn player(&self, player: u8) -> &str {
        self.players
            .get(usize::from(player))
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// The index of the player with this name.
    pub fn find(&self, name: &str) -> Option<u8> {
        self.players
            .iter()
            .position(|p| p == name)
            .and_then(|i| u8::try_from(i).ok())
    }
}

/// What never changes during a match: the variant, the table and the two sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// How the seats share the play.
    pub variant: Variant,
    /// Seats at the table.
    pub seats: usize,
    /// The two sides, in the order given.
    pub teams: [Team; 2],
    /// Each seat's sides and players as the view shows them, built once.
    roles: Vec<view::SeatRoles>,
    /// The sides as the view shows them, built once.
    teams_view: Vec<view::TeamView>,
}

impl Match {
    fn build(setup: &Setup<Options>) -> Result<Match, SetupError> {
        let seats = setup.players.len();
        let variant = setup
            .options
            .variant
            .unwrap_or_else(|| Variant::for_players(seats));
        let (min, max) = match variant {
            Variant::Patience => (1, MAX_PLAYERS),
            Variant::TwoPlayer => (2, 2),
            Variant::ThreePlayer => (3, 3),
            Variant::Team => (2, MAX_PLAYERS),
        };
        if !(min..=max).contains(&seats) {
            return Err(SetupError::PlayerCount {
                game: variant.game_name(),
                min,
                max,
                got: seats,
            });
        }
        if setup.options.teams.len() > 2 {
            return Err(SetupError::Options("a match is between two sides".into()));
        }
        let mut teams: Vec<Team> = Vec::with_capacity(2);
        for side in 0..2usize {
            let given = setup.options.teams.get(side).cloned().unwrap_or_default();
            let name = match given.name.as_deref().map(str::trim) {
                Some("") => return Err(SetupError::Options("a side needs a name".into())),
                Some(name) => name.to_string(),
                None => ["Gentlemen", "Players"][side].to_string(),
            };
            if given.players.len() > ELEVEN {
                return Err(SetupError::Options(format!(
                    "{name} has {} players; a side has at most eleven",
                    given.players.len()
                )));
            }
            let mut players: Vec<String> = Vec::with_capacity(ELEVEN);
            for player in &given.players {
                let player = player.trim().to_string();
                if player.is_empty() || player.len() > 60 {
                    return Err(SetupError::Options(format!(
                        "{name}: a player's name is 1 to 60 characters"
                    )));
                }
                if players.contains(&player) {
                    return Err(SetupError::Options(format!(
                        "{name} lists {player} twice; each player's name must differ"
                    )));
                }
                players.push(player);
            }
            let mut number = players.len();
            while players.len() < ELEVEN {
                number += 1;
                let candidate = format!("{name} {number}");
                if !players.contains(&candidate) {
                    players.push(candidate);
                }
            }
            let side_seats: Vec<Seat> = match variant {
                Variant::Patience => vec![Seat(0)],
                // `side` is 0 or 1.
                #[allow(clippy::cast_possible_truncation)]
                Variant::TwoPlayer | Variant::ThreePlayer => vec![Seat(side as u8)],
                Variant::Team => Seat::all(seats).filter(|s| s.index() % 2 == side).collect(),
            };
            teams.push(Team {
                name,
                players,
                seats: side_seats,
            });
        }
        if teams[0].name == teams[1].name {
            return Err(SetupError::Options(
                "the two sides need different names".into(),
            ));
        }
        let second = teams.pop();
        let first = teams.pop();
        match (first, second) {
            (Some(first), Some(second)) => {
                let teams = [first, second];
                let roles = Seat::all(seats)
                    .map(|seat| view::seat_roles(&teams, seat))
                    .collect();
                let teams_view = view::teams_view(&teams);
                Ok(Match {
                    variant,
                    seats,
                    teams,
                    roles,
                    teams_view,
                })
            }
            _ => Err(SetupError::Options("a match is between two sides".into())),
        }
    }

    /// The sides this seat captains.
    pub fn captained_by(&self, seat: Seat) -> impl Iterator<Item = u8> + '_ {
        (0..2u8).filter(move |&side| self.teams[usize::from(side)].captain() == seat)
    }

    /// The side's team.
    pub fn team(&self, side: u8) -> &Team {
        &self.teams[usize::from(side.min(1))]
    }
}

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

/// What the toss winner chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    /// To bat first.
    Bat,
    /// To put the opponents in.
    Field,
}

/// How a match was won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Margin {
    /// The side batting last was dismissed (or declared) this many runs short.
    Runs(u16),
    /// The side batting last passed its target with this many wickets standing.
    Wickets(u8),
    /// The losers' two innings together fell short of the winners' one by this many runs.
    InningsAndRuns(u16),
}

/// The match's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchResult {
    /// A side won.
    Won {
        /// The winning side (0 or 1).
        side: u8,
        /// By how much.
        margin: Margin,
    },
    /// All four innings completed with the aggregates level.
    Tie,
    /// Time ran out without a result.
    Draw,
}

/// One innings: who batted, in what order, against which openers, and its running score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Innings {
    /// The batting side (0 or 1).
    pub batting: u8,
    /// The batting order: player indices of the batting side.
    pub order: [u8; ELEVEN],
    /// Whether the batting captain has given the order.
    pub order_set: bool,
    /// The opening bowlers (player indices of the fielding side): first end, second end.
    pub openers: [u8; 2],
    /// Whether the fielding captain has named them.
    pub openers_set: bool,
    /// Runs, extras included.
    pub runs: u16,
    /// Wickets fallen.
    pub wickets: u8,
    /// Leg byes (the only extras in GOOGLY).
    pub leg_byes: u16,
    /// Balls bowled (cards played by the batsmen).
    pub balls: u16,
    /// Whether the batting captain declared it closed.
    pub declared: bool,
    /// Whether it is over.
    pub closed: bool,
    /// Its first ball's index in the match's ball-by-ball record.
    pub first_delivery: u16,
}

/// One ball: the batting card, who faced it, who was at the other end, who bowled, and the
/// bowling card it brought (after a "How's That"). Six bytes, so a whole match is a few KB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    /// The striker (player index of the batting side).
    pub batter: u8,
    /// The other batsman.
    pub non_striker: u8,
    /// The bowler (player index of the fielding side).
    pub bowler: u8,
    /// The batting card played.
    pub card: BatCard,
    /// The bowling card turned up, if the batting card was "How's That".
    pub verdict: Option<BowlCard>,
}

impl Delivery {
    /// Runs off the bat.
    pub fn batter_runs(&self) -> u16 {
        u16::from(self.card.runs())
    }

    /// Extras (a leg bye).
    pub fn extras(&self) -> u16 {
        u16::from(self.verdict.map(BowlCard::verdict) == Some(Verdict::LegBye))
    }

    /// How the striker was out off this ball, if he was.
    pub fn dismissal(&self) -> Option<pack::Dismissal> {
        match self.verdict.map(BowlCard::verdict) {
            Some(Verdict::Out(how)) => Some(how),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Phase {
    Toss,
    Elect,
    Setup,
    FollowOn,
    Play,
    Finished,
}

/// The rule points that changed between rules versions, read once from the version the match
/// was created under ([`Setup::rules_version`]); `docs/rules/googly.md` gives the reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rules {
    /// From version 2, the match's time ("three days of 17 overs each, making a total of 51
    /// overs", and three overs of extra time) is counted in balls: 306, or 324 with extra time,
    /// so the part over that ends an innings counts only the balls bowled in it, and time may
    /// run out in the middle of an over. Version 1 counts overs, a part over as a whole one.
    time_in_balls: bool,
    /// From version 2, the result names the winning side, and a seat that plays both sides
    /// (patience) neither wins nor takes points; version 1 lists the winning side's seats and
    /// gives each seat its sides' points, so patience's one seat always won.
    result_names_the_side: bool,
}

impl Rules {
    fn of(version: u32) -> Rules {
        Rules {
            time_in_balls: version >= 2,
            result_names_the_side: version >= 2,
        }
    }
}

/// The whole match at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    game: Arc<Match>,
    rules: Rules,
    phase: Phase,
    toss: Option<u8>,
    elected: Option<Choice>,
    innings: [Innings; 4],
    innings_count: u8,
    crease: [u8; 2],
    striker: u8,
    next_in: u8,
    over_balls: u8,
    overs_done: u16,
    bowler: Option<u8>,
    last_bowler: Option<u8>,
    bowler_before: Option<u8>,
    appeal: bool,
    batting_pack: Pack<BATTING_CARDS>,
    bowling_pack: Pack<BOWLING_CARDS>,
    deliveries: Vec<Delivery>,
    match_overs: u16,
    limit: u16,
    extra_time: Option<u8>,
    time_question: Option<[bool; 2]>,
    follow_on: Option<bool>,
    shuffles_due: u8,
    playing_on: u32,
    keep_playing_on: u32,
    auto_bowl: u32,
    accept_defaults: u32,
    declare_lead: [Option<u16>; 2],
    result: Option<MatchResult>,
}

fn bit(seat: Seat) -> u32 {
    1u32 << (seat.index() % 32)
}

impl State {
    /// The table and the sides.
    pub fn game(&self) -> &Match {
        &self.game
    }

    /// The innings begun so far, in order.
    pub fn innings(&self) -> &[Innings] {
        &self.innings[..usize::from(self.innings_count)]
    }

    /// The whole ball-by-ball record.
    pub fn deliveries(&self) -> &[Delivery] {
        &self.deliveries
    }

    /// The balls of innings `i`.
    pub fn innings_deliveries(&self, i: usize) -> &[Delivery] {
        let Some(innings) = self.innings().get(i) else {
            return &[];
        };
        let start = usize::from(innings.first_delivery).min(self.deliveries.len());
        let end = self
            .innings()
            .get(i + 1)
            .map(|next| usize::from(next.first_delivery))
            .unwrap_or(self.deliveries.len())
            .clamp(start, self.deliveries.len());
        &self.deliveries[start..end]
    }

    /// The toss winner and what they chose.
    pub fn toss(&self) -> Option<(u8, Option<Choice>)> {
        self.toss.map(|side| (side, self.elected))
    }

    /// The result, once the match is over.
    pub fn result(&self) -> Option<MatchResult> {
        self.result
    }

    /// Whether the follow-on was enforced (`None` if it was never offered).
    pub fn follow_on(&self) -> Option<bool> {
        self.follow_on
    }

    /// The side that claimed extra time, if either did.
    pub fn extra_time(&self) -> Option<u8> {
        self.extra_time
    }

    /// Overs bowled in the match, as the match's time is counted: from rules version 2 the
    /// whole overs' worth of its balls (see [`State::match_balls`]); under version 1 each
    /// part over at an innings' end counts as one.
    pub fn match_overs(&self) -> u16 {
        if self.rules.time_in_balls {
            self.match_balls() / u16::from(BALLS_PER_OVER)
        } else {
            self.match_overs
        }
    }

    /// Balls bowled in the match, a "How's That" included (six make an over).
    pub fn match_balls(&self) -> u16 {
        // A match is at most MATCH_OVERS + EXTRA_OVERS overs: a few hundred deliveries.
        u16::try_from(self.deliveries.len()).unwrap_or(u16::MAX)
    }

    /// Whether the match's time is counted in balls (from rules version 2).
    pub fn time_in_balls(&self) -> bool {
        self.rules.time_in_balls
    }

    /// The time used and the time allowed, in the unit the rules version counts it in:
    /// balls from version 2, overs (a part over as one) under version 1.
    fn time(&self) -> (u16, u16) {
        if self.rules.time_in_balls {
            (self.match_balls(), self.limit * u16::from(BALLS_PER_OVER))
        } else {
            (self.match_overs, self.limit)
        }
    }

    /// Whether the time allowed has been used up.
    fn time_is_up(&self) -> bool {
        let (used, allowed) = self.time();
        used >= allowed
    }

    /// The overs the match may last (51, or 54 with extra time).
    pub fn limit(&self) -> u16 {
        self.limit
    }

    fn current(&self) -> &Innings {
        &self.innings[usize::from(self.innings_count.max(1) - 1)]
    }

    fn current_mut(&mut self) -> &mut Innings {
        &mut self.innings[usize::from(self.innings_count.max(1) - 1)]
    }

    fn batting_side(&self) -> u8 {
        self.current().batting
    }

    fn fielding_side(&self) -> u8 {
        1 - self.batting_side().min(1)
    }

    /// Runs scored by a side in all its innings so far.
    pub fn aggregate(&self, side: u8) -> u16 {
        self.innings()
            .iter()
            .filter(|i| i.batting == side)
            .map(|i| i.runs)
            .sum()
    }

    fn striker_seat(&self) -> Seat {
        let player = self.crease[usize::from(self.striker)];
        self.game.team(self.batting_side()).owner(player)
    }

    fn bowler_seat(&self) -> Option<Seat> {
        self.bowler
            .map(|b| self.game.team(self.fielding_side()).owner(b))
    }

    fn captain(&self, side: u8) -> Seat {
        self.game.team(side).captain()
    }

    fn plays_on(&self, seat: Seat) -> bool {
        (self.playing_on | self.keep_playing_on) & bit(seat) != 0
    }

    fn end(&self) -> usize {
        usize::from(self.overs_done % 2 == 1)
    }

    /// The lead of the batting side over the other on aggregate (negative when behind).
    fn lead(&self) -> i32 {
        let side = self.batting_side();
        i32::from(self.aggregate(side)) - i32::from(self.aggregate(1 - side))
    }
}

/// Everything of a [`State`] that the log changes: a snapshot (`Game::snapshot`). The sides
/// and the rules version are left out because they come from the game's creation record,
/// which a snapshot is always restored against (`Game::restore`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Saved {
    phase: Phase,
    toss: Option<u8>,
    elected: Option<Choice>,
    innings: [Innings; 4],
    innings_count: u8,
    crease: [u8; 2],
    striker: u8,
    next_in: u8,
    over_balls: u8,
    overs_done: u16,
    bowler: Option<u8>,
    last_bowler: Option<u8>,
    bowler_before: Option<u8>,
    appeal: bool,
    batting_pack: Pack<BATTING_CARDS>,
    bowling_pack: Pack<BOWLING_CARDS>,
    deliveries: Vec<Delivery>,
    match_overs: u16,
    limit: u16,
    extra_time: Option<u8>,
    time_question: Option<[bool; 2]>,
    follow_on: Option<bool>,
    shuffles_due: u8,
    playing_on: u32,
    keep_playing_on: u32,
    auto_bowl: u32,
    accept_defaults: u32,
    declare_lead: [Option<u16>; 2],
    result: Option<MatchResult>,
}

impl Saved {
    fn of(state: &State) -> Saved {
        Saved {
            phase: state.phase,
            toss: state.toss,
            elected: state.elected,
            innings: state.innings,
            innings_count: state.innings_count,
            crease: state.crease,
            striker: state.striker,
            next_in: state.next_in,
            over_balls: state.over_balls,
            overs_done: state.overs_done,
            bowler: state.bowler,
            last_bowler: state.last_bowler,
            bowler_before: state.bowler_before,
            appeal: state.appeal,
            batting_pack: state.batting_pack,
            bowling_pack: state.bowling_pack,
            deliveries: state.deliveries.clone(),
            match_overs: state.match_overs,
            limit: state.limit,
            extra_time: state.extra_time,
            time_question: state.time_question,
            follow_on: state.follow_on,
            shuffles_due: state.shuffles_due,
            playing_on: state.playing_on,
            keep_playing_on: state.keep_playing_on,
            auto_bowl: state.auto_bowl,
            accept_defaults: state.accept_defaults,
            declare_lead: state.declare_lead,
            result: state.result,
        }
    }

    /// The state this describes, for the match (sides, rules) of `fresh`. A snapshot whose
    /// packs do not fit the match (divided or not) is refused rather than played on.
    fn onto(self, fresh: &State) -> Option<State> {
        let divided = fresh.batting_pack.divided();
        if self.batting_pack.divided() != divided
            || self.bowling_pack.divided() != divided
            || !self.batting_pack.accounted_for()
            || !self.bowling_pack.accounted_for()
            || usize::from(self.innings_count) > self.innings.len()
        {
            return None;
        }
        Some(State {
            game: fresh.game.clone(),
            rules: fresh.rules,
            phase: self.phase,
            toss: self.toss,
            elected: self.elected,
            innings: self.innings,
            innings_count: self.innings_count,
            crease: self.crease,
            striker: self.striker,
            next_in: self.next_in,
            over_balls: self.over_balls,
            overs_done: self.overs_done,
            bowler: self.bowler,
            last_bowler: self.last_bowler,
            bowler_before: self.bowler_before,
            appeal: self.appeal,
            batting_pack: self.batting_pack,
            bowling_pack: self.bowling_pack,
            deliveries: self.deliveries,
            match_overs: self.match_overs,
            limit: self.limit,
            extra_time: self.extra_time,
            time_question: self.time_question,
            follow_on: self.follow_on,
            shuffles_due: self.shuffles_due,
            playing_on: self.playing_on,
            keep_playing_on: self.keep_playing_on,
            auto_bowl: self.auto_bowl,
            accept_defaults: self.accept_defaults,
            declare_lead: self.declare_lead,
            result: self.result,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Actions and events
// ---------------------------------------------------------------------------------------------

/// What a seat may submit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// The toss winner's captain chooses to bat or to field.
    Elect {
        /// `bat` or `field`.
        to: Choice,
    },
    /// The batting captain gives the innings' batting order: all eleven names.
    BattingOrder {
        /// The eleven players, first pair first.
        order: Vec<String>,
    },
    /// The fielding captain names the two opening bowlers.
    OpeningBowlers {
        /// Two different players: the first bowls the first over.
        bowlers: Vec<String>,
    },
    /// Take the default for every decision this seat faces now.
    AcceptDefaults,
    /// The fielding captain names the bowler of the next over.
    Bowler {
        /// A player of the fielding side who did not bowl the last over.
        name: String,
    },
    /// The striker turns up his top batting card.
    Play,
    /// After a "How's That", the bowler of the over turns up his top bowling card.
    Bowl,
    /// Let the scorer turn this seat's cards until its next real decision.
    PlayOn,
    /// The batting captain declares the innings closed.
    Declare,
    /// The captain of the side batting first, leading by 150 or more, decides on the follow-on.
    FollowOn {
        /// Whether the other side bats again at once.
        enforce: bool,
    },
    /// At the end of 51 overs, a captain claims three overs of extra time (or does not).
    ExtraTime {
        /// Whether to claim it.
        claim: bool,
    },
    /// Standing preferences that keep a match moving while a player is away (omitted fields
    /// are left as they were).
    Prefer {
        /// As fielding captain, bowl the two openers (or the last two bowlers) in turn.
        #[serde(default)]
        auto_bowl: Option<bool>,
        /// Take the default for batting orders, opening bowlers, the toss choice (bat), the
        /// follow-on (enforce) and extra time (not claimed).
        #[serde(default)]
        accept_defaults: Option<bool>,
        /// Keep playing on even after this seat's batsman is out or an innings ends.
        #[serde(default)]
        keep_playing_on: Option<bool>,
        /// As batting captain, declare as soon as the side leads by this many runs (0: never).
        #[serde(default)]
        declare_at_lead: Option<u16>,
    },
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The captains tossed: the two sides in a seeded shuffle, the first named won.
    Toss {
        /// The sides (0, 1) in shuffled order.
        toss: Shuffled<u8>,
    },
    /// The toss winner chose.
    Elected {
        /// The toss winner.
        side: u8,
        /// Bat or field.
        to: Choice,
    },
    /// The scorer gathered and shuffled all 48 batting cards and dealt them.
    BattingShuffle {
        /// The new order, top first (hidden while the match runs).
        shuffled: Shuffled<BatCard>,
    },
    /// The scorer gathered and shuffled all 50 bowling cards and dealt them.
    BowlingShuffle {
        /// The new order, top first (hidden while the match runs).
        shuffled: Shuffled<BowlCard>,
    },
    /// The batting order of the innings about to begin.
    BattingOrder {
        /// The batting side.
        side: u8,
        /// The eleven names in order.
        order: Vec<String>,
    },
    /// The opening bowlers of the innings about to begin.
    OpeningBowlers {
        /// The fielding side.
        side: u8,
        /// Bowls the first over (from the first end).
        first: String,
        /// Bowls the second over (from the other end).
        second: String,
    },
    /// The fielding captain named the bowler of the next over.
    Bowler {
        /// The bowler's name.
        name: String,
    },
    /// The striker turned up a batting card.
    Ball {
        /// The card.
        card: BatCard,
    },
    /// The bowler of the over turned up a bowling card after a "How's That".
    Verdict {
        /// The card.
        card: BowlCard,
    },
    /// The batting captain declared.
    Declared {
        /// The batting side.
        side: u8,
    },
    /// The follow-on was enforced or not.
    FollowOn {
        /// Whether it was.
        enforced: bool,
    },
    /// A captain answered at the end of 51 overs.
    ExtraTime {
        /// The captain's side.
        side: u8,
        /// Whether extra time was claimed.
        claimed: bool,
    },
    /// A seat lets the scorer play its cards on.
    PlayingOn {
        /// The seat.
        seat: Seat,
    },
    /// A seat's standing preferences, as they now are.
    Preferences {
        /// The seat.
        seat: Seat,
        /// Bowl the openers in turn.
        auto_bowl: bool,
        /// Take defaults.
        accept_defaults: bool,
        /// Keep playing on.
        keep_playing_on: bool,
        /// Declare at this lead (for the sides this seat captains).
        declare_at_lead: Option<u16>,
    },
}

/// An event as a player or a spectator sees it while the match runs, where that differs from
/// the [`Event`] recorded: the order of a shuffled pack stays hidden, and everyone sees only
/// that a shuffle happened. Every other event is seen as it was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeenEvent {
    /// The scorer gathered and shuffled all 48 batting cards and dealt them.
    BattingShuffle {
        /// The shuffle, without its order.
        shuffled: ShuffleSeen,
    },
    /// The scorer gathered and shuffled all 50 bowling cards and dealt them.
    BowlingShuffle {
        /// The shuffle, without its order.
        shuffled: ShuffleSeen,
    },
}

/// A shuffle of one pack as it is seen while the match runs: which shuffle, and how many
/// cards, but not their order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShuffleSeen {
    /// The ChaCha20 stream of the game's seed that produced the order.
    pub stream: u64,
    /// How many cards were shuffled.
    pub size: usize,
}

/// A move as `legal_actions` offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LegalAction {
    /// Bat or field.
    Elect {
        /// `bat` or `field`.
        to: Choice,
    },
    /// The batting order: all eleven names, in order.
    BattingOrder {
        /// The side's players.
        order: Choose<String>,
    },
    /// The two opening bowlers.
    OpeningBowlers {
        /// The fielding side's players.
        bowlers: Choose<String>,
    },
    /// Take the default for every decision this seat faces now.
    AcceptDefaults,
    /// Enforce the follow-on, or not.
    FollowOn {
        /// Whether to enforce it.
        enforce: bool,
    },
    /// Claim extra time, or not.
    ExtraTime {
        /// Whether to claim it.
        claim: bool,
    },
    /// Name the bowler of the next over.
    Bowler {
        /// A player who did not bowl the last over.
        name: String,
    },
    /// Turn up the top batting card.
    Play,
    /// Let the scorer play this seat's cards on.
    PlayOn,
    /// Declare the innings closed.
    Declare,
    /// Turn up the top bowling card after a "How's That".
    Bowl,
}

/// A broken rule, in a player's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The match is waiting for a different decision.
    #[error("the match is not waiting for that now: {0}")]
    NotNow(&'static str),
    /// A name not in the side.
    #[error("{0} is not a player of that side")]
    UnknownPlayer(String),
    /// A batting order that is not the eleven.
    #[error("a batting order lists each of the side's eleven players exactly once")]
    BattingOrder,
    /// Not two different openers.
    #[error("name two different players of the fielding side to open the bowling")]
    Openers,
    /// A bowler asked to bowl two overs running.
    #[error("{0} bowled the last over: no bowler may bowl two overs running")]
    TwoOversRunning(String),
    /// Accept-defaults with nothing to decide.
    #[error("you have no decision to make now")]
    NothingToDecide,
}

impl Refusal for RuleError {
    fn kind(&self) -> RefusalKind {
        // Out of turn and after the match are refused by the framework before `decide`.
        RefusalKind::Forbidden
    }

    fn rule(&self) -> &'static str {
        match self {
            RuleError::NotNow(_) => "not-now",
            RuleError::UnknownPlayer(_) => "unknown-player",
            RuleError::BattingOrder => "batting-order-of-eleven",
            RuleError::Openers => "two-opening-bowlers",
            RuleError::TwoOversRunning(_) => "no-bowler-bowls-two-overs-running",
            RuleError::NothingToDecide => "nothing-to-decide",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What the match waits for
// ---------------------------------------------------------------------------------------------

/// The next thing the match needs, in order of precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Due {
    Finished,
    Toss,
    ExtraTime([bool; 2]),
    Shuffle(u8),
    Elect(u8),
    Setup {
        order: Option<u8>,
        openers: Option<u8>,
    },
    FollowOn(u8),
    Bowler(u8),
    Ball,
    Appeal,
}

impl State {
    fn due(&self) -> Due {
        match self.phase {
            Phase::Finished => return Due::Finished,
            Phase::Toss => return Due::Toss,
            _ => {}
        }
        if let Some(answered) = self.time_question {
            return Due::ExtraTime(answered);
        }
        if self.shuffles_due & BATTING != 0 {
            return Due::Shuffle(BATTING);
        }
        if self.shuffles_due & BOWLING != 0 {
            return Due::Shuffle(BOWLING);
        }
        match self.phase {
            Phase::Elect => Due::Elect(self.toss.unwrap_or(0)),
            Phase::Setup => {
                let innings = self.current();
                Due::Setup {
                    order: (!innings.order_set).then_some(innings.batting),
                    openers: (!innings.openers_set).then_some(1 - innings.batting),
                }
            }
            Phase::FollowOn => Due::FollowOn(self.innings[0].batting),
            Phase::Play if self.appeal => {
                if self.bowling_pack.top(self.end()).is_none() {
                    Due::Shuffle(BOWLING)
                } else {
                    Due::Appeal
                }
            }
            Phase::Play if self.bowler.is_none() => Due::Bowler(self.fielding_side()),
            Phase::Play => {
                if self.batting_pack.top(usize::from(self.striker)).is_none() {
                    Due::Shuffle(BATTING)
                } else {
                    Due::Ball
                }
            }
            Phase::Toss | Phase::Finished => Due::Finished,
        }
    }

    fn seats_to_act(&self) -> Vec<Seat> {
        let mut seats = match self.due() {
            Due::Finished | Due::Toss | Due::Shuffle(_) => vec![],
            Due::ExtraTime(answered) => (0..2u8)
                .filter(|&side| !answered[usize::from(side)])
                .map(|side| self.captain(side))
                .collect(),
            Due::Elect(side) | Due::FollowOn(side) | Due::Bowler(side) => {
                vec![self.captain(side)]
            }
            Due::Setup { order, openers } => order
                .into_iter()
                .chain(openers)
                .map(|side| self.captain(side))
                .collect(),
            Due::Ball => vec![self.striker_seat(), self.captain(self.batting_side())],
            Due::Appeal => self.bowler_seat().into_iter().collect(),
        };
        seats.sort();
        seats.dedup();
        seats
    }

    fn default_order(&self, side: u8) -> [u8; ELEVEN] {
        let before = &self.innings[..usize::from(self.innings_count.max(1) - 1)];
        match before
            .iter()
            .rev()
            .find(|i| i.batting == side && i.order_set)
        {
            Some(innings) => innings.order,
            // Eleven places: each index fits a u8.
            #[allow(clippy::cast_possible_truncation)]
            None => std::array::from_fn(|i| i as u8),
        }
    }

    fn default_openers(&self, side: u8) -> [u8; 2] {
        let before = &self.innings[..usize::from(self.innings_count.max(1) - 1)];
        match before
            .iter()
            .rev()
            .find(|i| i.batting != side && i.openers_set)
        {
            Some(innings) => innings.openers,
            // ELEVEN is 11.
            #[allow(clippy::cast_possible_truncation)]
            None => [ELEVEN as u8 - 1, ELEVEN as u8 - 2],
        }
    }

    /// The bowler who takes the next over when the captain lets the bowling run on: the
    /// bowler of the over before last, so two bowlers bowl in turn.
    fn default_bowler(&self) -> u8 {
        let openers = self.current().openers;
        match self.bowler_before {
            Some(b) if Some(b) != self.last_bowler => b,
            _ if Some(openers[0]) != self.last_bowler => openers[0],
            _ => openers[1],
        }
    }

    fn names(&self, side: u8, players: &[u8]) -> Vec<String> {
        let team = self.game.team(side);
        players
            .iter()
            .map(|&p| team.player(p).to_string())
            .collect()
    }

    /// The defaults for the decisions `seat` faces now; `bowling` says whether the choice of
    /// bowler is included, `others` whether every other decision is.
    fn defaults(&self, seat: Seat, bowling: bool, others: bool) -> Vec<Event> {
        let mut events = Vec::new();
        match self.due() {
            Due::Elect(side) if others && self.captain(side) == seat => {
                events.push(Event::Elected {
                    side,
                    to: Choice::Bat,
                })
            }
            Due::Setup { order, openers } if others => {
                if let Some(side) = order.filter(|&s| self.captain(s) == seat) {
                    events.push(Event::BattingOrder {
                        side,
                        order: self.names(side, &self.default_order(side)),
                    });
                }
                if let Some(side) = openers.filter(|&s| self.captain(s) == seat) {
                    let [first, second] = self.default_openers(side);
                    let team = self.game.team(side);
                    events.push(Event::OpeningBowlers {
                        side,
                        first: team.player(first).to_string(),
                        second: team.player(second).to_string(),
                    });
                }
            }
            Due::FollowOn(side) if others && self.captain(side) == seat => {
                events.push(Event::FollowOn { enforced: true })
            }
            Due::ExtraTime(answered) if others => {
                for side in (0..2u8).filter(|&s| !answered[usize::from(s)]) {
                    if self.captain(side) == seat {
                        events.push(Event::ExtraTime {
                            side,
                            claimed: false,
                        });
                    }
                }
            }
            Due::Bowler(side) if bowling && self.captain(side) == seat => {
                events.push(Event::Bowler {
                    name: self
                        .game
                        .team(side)
                        .player(self.default_bowler())
                        .to_string(),
                })
            }
            _ => {}
        }
        events
    }

    /// What the scorer does next without asking anyone: a due shuffle, a standing
    /// declaration, a card of a seat that plays on, or a default a captain has accepted.
    fn automatic(&self, chance: &mut Chance) -> Vec<Event> {
        match self.due() {
            Due::Finished | Due::Toss => vec![],
            Due::Shuffle(BATTING) => {
                let cards: Vec<BatCard> = BatCard::all().collect();
                vec![Event::BattingShuffle {
                    shuffled: chance.shuffle(&cards),
                }]
            }
            Due::Shuffle(_) => {
                let cards: Vec<BowlCard> = BowlCard::all().collect();
                vec![Event::BowlingShuffle {
                    shuffled: chance.shuffle(&cards),
                }]
            }
            Due::Ball => {
                let side = self.batting_side();
                let declare = self.declare_lead[usize::from(side)]
                    .is_some_and(|lead| lead > 0 && self.lead() >= i32::from(lead));
                if declare {
                    vec![Event::Declared { side }]
                } else if self.plays_on(self.striker_seat()) {
                    self.next_ball().into_iter().collect()
                } else {
                    vec![]
                }
            }
            Due::Appeal => match self.bowler_seat() {
                Some(seat) if self.plays_on(seat) => self.next_verdict().into_iter().collect(),
                _ => vec![],
            },
            _ => {
                let mut events = Vec::new();
                for seat in self.seats_to_act() {
                    let accepts = self.accept_defaults & bit(seat) != 0;
                    let bowls = self.auto_bowl & bit(seat) != 0;
                    if accepts || bowls {
                        events.extend(self.defaults(seat, bowls, accepts));
                    }
                }
                events
            }
        }
    }

    fn next_ball(&self) -> Option<Event> {
        self.batting_pack
            .top(usize::from(self.striker))
            .map(|card| Event::Ball {
                card: BatCard(card),
            })
    }

    fn next_verdict(&self) -> Option<Event> {
        self.bowling_pack
            .top(self.end())
            .map(|card| Event::Verdict {
                card: BowlCard(card),
            })
    }
}

// ---------------------------------------------------------------------------------------------
// The laws, as the scorer applies them to each event
// ---------------------------------------------------------------------------------------------

impl State {
    fn apply(&mut self, event: &Event) {
        match event {
            Event::Toss { toss } => {
                self.toss = toss.order.first().copied().map(|s| s.min(1));
                self.phase = Phase::Elect;
            }
            Event::Elected { side, to } => {
                self.elected = Some(*to);
                let side = (*side).min(1);
                self.begin_innings(match to {
                    Choice::Bat => side,
                    Choice::Field => 1 - side,
                });
            }
            Event::BattingShuffle { shuffled } => {
                self.batting_pack.deal(shuffled.order.iter().map(|c| c.0));
                self.shuffles_due &= !BATTING;
            }
            Event::BowlingShuffle { shuffled } => {
                self.bowling_pack.deal(shuffled.order.iter().map(|c| c.0));
                self.shuffles_due &= !BOWLING;
            }
            Event::BattingOrder { side, order } => {
                let team = self.game.team(*side);
                let mut indices = [0u8; ELEVEN];
                let mut found = 0;
                for (slot, name) in indices.iter_mut().zip(order) {
                    if let Some(index) = team.find(name) {
                        *slot = index;
                        found += 1;
                    }
                }
                if found == ELEVEN {
                    let innings = self.current_mut();
                    innings.order = indices;
                    innings.order_set = true;
                    self.maybe_start_play();
                }
            }
            Event::OpeningBowlers {
                side,
                first,
                second,
            } => {
                let team = self.game.team(*side);
                if let (Some(first), Some(second)) = (team.find(first), team.find(second)) {
                    let innings = self.current_mut();
                    innings.openers = [first, second];
                    innings.openers_set = true;
                    self.maybe_start_play();
                }
            }
            Event::Bowler { name } => {
                self.bowler = self.game.team(self.fielding_side()).find(name);
            }
            Event::Ball { card } => self.ball(*card),
            Event::Verdict { card } => self.verdict(*card),
            Event::Declared { .. } => {
                self.current_mut().declared = true;
                self.close_innings();
            }
            Event::FollowOn { enforced } => {
                self.follow_on = Some(*enforced);
                let first = self.innings[0].batting;
                self.begin_innings(if *enforced { 1 - first } else { first });
            }
            Event::ExtraTime { side, claimed } => {
                if *claimed {
                    self.limit = MATCH_OVERS + EXTRA_OVERS;
                    self.extra_time = Some(*side);
                    self.time_question = None;
                } else if let Some(answered) = &mut self.time_question {
                    answered[usize::from((*side).min(1))] = true;
                    if answered[0] && answered[1] {
                        self.finish(MatchResult::Draw);
                    }
                }
            }
            Event::PlayingOn { seat } => self.playing_on |= bit(*seat),
            Event::Preferences {
                seat,
                auto_bowl,
                accept_defaults,
                keep_playing_on,
                declare_at_lead,
            } => {
                let b = bit(*seat);
                let set = |mask: &mut u32, on: bool| {
                    if on {
                        *mask |= b
                    } else {
                        *mask &= !b
                    }
                };
                set(&mut self.auto_bowl, *auto_bowl);
                set(&mut self.accept_defaults, *accept_defaults);
                set(&mut self.keep_playing_on, *keep_playing_on);
                let sides: Vec<u8> = self.game.captained_by(*seat).collect();
                for side in sides {
                    self.declare_lead[usize::from(side)] = *declare_at_lead;
                }
            }
        }
    }

    fn begin_innings(&mut self, batting: u8) {
        let index = usize::from(self.innings_count);
        if index >= self.innings.len() {
            return;
        }
        // A match is at most MATCH_OVERS + EXTRA_OVERS overs a side: a few hundred deliveries.
        #[allow(clippy::cast_possible_truncation)]
        let first_delivery = self.deliveries.len() as u16;
        self.innings[index] = Innings {
            batting,
            first_delivery,
            ..Innings::default()
        };
        self.innings_count += 1;
        self.phase = Phase::Setup;
        self.crease = [0, 1];
        self.striker = 0;
        self.next_in = 2;
        self.over_balls = 0;
        self.overs_done = 0;
        self.bowler = None;
        self.last_bowler = None;
        self.bowler_before = None;
        self.appeal = false;
    }

    fn maybe_start_play(&mut self) {
        let innings = *self.current();
        if innings.order_set && innings.openers_set {
            self.crease = [innings.order[0], innings.order[1]];
            self.striker = 0;
            self.next_in = 2;
            self.bowler = Some(innings.openers[0]);
            self.phase = Phase::Play;
        }
    }

    fn ball(&mut self, card: BatCard) {
        self.batting_pack.take(usize::from(self.striker));
        self.deliveries.push(Delivery {
            batter: self.crease[usize::from(self.striker)],
            non_striker: self.crease[usize::from(1 - self.striker)],
            bowler: self.bowler.unwrap_or_default(),
            card,
            verdict: None,
        });
        self.over_balls += 1;
        let innings = self.current_mut();
        innings.balls += 1;
        match card.stroke() {
            Stroke::HowsThat => self.appeal = true,
            Stroke::Runs(runs) => {
                innings.runs += u16::from(runs);
                if runs % 2 == 1 {
                    self.striker = 1 - self.striker;
                }
                self.after_ball();
            }
        }
    }

    fn verdict(&mut self, card: BowlCard) {
        self.bowling_pack.take(self.end());
        if let Some(last) = self.deliveries.last_mut() {
            last.verdict = Some(card);
        }
        self.appeal = false;
        match card.verdict() {
            Verdict::Out(_) => {
                let out = self.crease[usize::from(self.striker)];
                let owner = self.game.team(self.batting_side()).owner(out);
                self.playing_on &= !bit(owner);
                let innings = self.current_mut();
                innings.wickets += 1;
                let (wickets, order) = (innings.wickets, innings.order);
                if wickets < ALL_OUT {
                    // The next man in takes the dismissed batsman's place (and his cards).
                    if let Some(&next) = order.get(usize::from(self.next_in)) {
                        self.crease[usize::from(self.striker)] = next;
                        self.next_in += 1;
                    }
                }
            }
            Verdict::LegBye => {
                let innings = self.current_mut();
                innings.runs += 1;
                innings.leg_byes += 1;
            }
            Verdict::NotOut => {}
        }
        self.after_ball();
    }

    fn after_ball(&mut self) {
        let chasing = self.innings_count == 4 && self.lead() > 0;
        if chasing || self.current().wickets >= ALL_OUT {
            self.close_innings();
        } else if self.over_balls >= BALLS_PER_OVER {
            self.end_over();
        } else if self.time_is_up() {
            // Time counted in balls can run out in the middle of an over (never under rules
            // version 1, whose count moves only at an over's or an innings' end).
            self.time_up();
        }
    }

    fn end_over(&mut self) {
        self.over_balls = 0;
        self.striker = 1 - self.striker;
        self.overs_done += 1;
        self.match_overs += 1;
        self.bowler_before = self.last_bowler;
        self.last_bowler = self.bowler;
        self.bowler = (self.overs_done == 1).then_some(self.current().openers[1]);
        if self.overs_done.is_multiple_of(BATTING_SHUFFLE_OVERS) {
            self.shuffles_due |= BATTING;
        }
        if self.overs_done.is_multiple_of(BOWLING_SHUFFLE_OVERS) {
            self.shuffles_due |= BOWLING;
        }
        if self.time_is_up() {
            self.time_up();
        }
    }

    fn close_innings(&mut self) {
        if self.over_balls > 0 {
            self.match_overs += 1;
        }
        self.over_balls = 0;
        self.appeal = false;
        self.bowler = None;
        self.current_mut().closed = true;
        self.playing_on = 0;
        if let Some(result) = self.judge() {
            self.finish(result);
            return;
        }
        let closed = self.innings_count;
        let first = self.innings[0].batting;
        if closed == 2
            && i32::from(self.innings[0].runs) - i32::from(self.innings[1].runs)
                >= i32::from(FOLLOW_ON_LEAD)
        {
            self.phase = Phase::FollowOn;
        } else {
            let next = match closed {
                1 => 1 - first,
                2 => first,
                _ => 1 - self.innings[2].batting,
            };
            self.begin_innings(next);
        }
        self.shuffles_due = BATTING | BOWLING;
        if self.time_is_up() {
            self.time_up();
        }
    }

    /// The result, if the innings just closed decides the match.
    fn judge(&self) -> Option<MatchResult> {
        match self.innings_count {
            3 => {
                let twice = self.innings[2].batting;
                let once = 1 - twice;
                let (a, b) = (self.aggregate(once), self.aggregate(twice));
                (b < a).then(|| MatchResult::Won {
                    side: once,
                    margin: Margin::InningsAndRuns(a - b),
                })
            }
            4 => {
                let last = self.innings[3].batting;
                let other = 1 - last;
                let (a, b) = (self.aggregate(last), self.aggregate(other));
                Some(if a > b {
                    MatchResult::Won {
                        side: last,
                        margin: Margin::Wickets(ALL_OUT.saturating_sub(self.innings[3].wickets)),
                    }
                } else if a == b {
                    MatchResult::Tie
                } else {
                    MatchResult::Won {
                        side: other,
                        margin: Margin::Runs(b - a),
                    }
                })
            }
            _ => None,
        }
    }

    fn time_up(&mut self) {
        if self.extra_time.is_none() {
            self.time_question = Some([false, false]);
        } else {
            self.finish(MatchResult::Draw);
        }
    }

    fn finish(&mut self, result: MatchResult) {
        self.result = Some(result);
        self.phase = Phase::Finished;
        self.time_question = None;
        self.shuffles_due = 0;
        self.appeal = false;
        self.playing_on = 0;
    }
}

// ---------------------------------------------------------------------------------------------
// Deciding a move
// ---------------------------------------------------------------------------------------------

impl State {
    fn check_side_names(&self, side: u8, names: &[String]) -> Result<Vec<u8>, RuleError> {
        let team = self.game.team(side);
        names
            .iter()
            .map(|name| {
                team.find(name)
                    .ok_or_else(|| RuleError::UnknownPlayer(name.clone()))
            })
            .collect()
    }

    fn first_events(&self, seat: Seat, action: &Action) -> Result<Vec<Event>, RuleError> {
        let due = self.due();
        let captain_of = |side: u8| self.captain(side) == seat;
        match action {
            Action::Elect { to } => match due {
                Due::Elect(side) if captain_of(side) => Ok(vec![Event::Elected { side, to: *to }]),
                _ => Err(RuleError::NotNow(
                    "only the toss winner's captain chooses, once",
                )),
            },
            Action::BattingOrder { order } => match due {
                Due::Setup {
                    order: Some(side), ..
                } if captain_of(side) => {
                    let mut indices = self.check_side_names(side, order)?;
                    indices.sort_unstable();
                    indices.dedup();
                    if indices.len() != ELEVEN || order.len() != ELEVEN {
                        return Err(RuleError::BattingOrder);
                    }
                    Ok(vec![Event::BattingOrder {
                        side,
                        order: order.clone(),
                    }])
                }
                _ => Err(RuleError::NotNow(
                    "the batting captain gives the order before his side's innings",
                )),
            },
            Action::OpeningBowlers { bowlers } => match due {
                Due::Setup {
                    openers: Some(side),
                    ..
                } if captain_of(side) => {
                    let indices = self.check_side_names(side, bowlers)?;
                    match indices.as_slice() {
                        [a, b] if a != b => Ok(vec![Event::OpeningBowlers {
                            side,
                            first: bowlers[0].clone(),
                            second: bowlers[1].clone(),
                        }]),
                        _ => Err(RuleError::Openers),
                    }
                }
                _ => Err(RuleError::NotNow(
                    "the fielding captain names the openers before the innings",
                )),
            },
            Action::AcceptDefaults => {
                let events = self.defaults(seat, true, true);
                if events.is_empty() {
                    Err(RuleError::NothingToDecide)
                } else {
                    Ok(events)
                }
            }
            Action::Bowler { name } => match due {
                Due::Bowler(side) if captain_of(side) => {
                    let team = self.game.team(side);
                    let bowler = team
                        .find(name)
                        .ok_or_else(|| RuleError::UnknownPlayer(name.clone()))?;
                    if Some(bowler) == self.last_bowler {
                        return Err(RuleError::TwoOversRunning(name.clone()));
                    }
                    Ok(vec![Event::Bowler { name: name.clone() }])
                }
                _ => Err(RuleError::NotNow(
                    "the fielding captain names a bowler only between overs",
                )),
            },
            Action::Play => match due {
                Due::Ball if self.striker_seat() == seat => self
                    .next_ball()
                    .map(|e| vec![e])
                    .ok_or(RuleError::NotNow("the batting cards are being shuffled")),
                _ => Err(RuleError::NotNow(
                    "only the striker's player turns up the next batting card",
                )),
            },
            Action::Bowl => match due {
                Due::Appeal if self.bowler_seat() == Some(seat) => self
                    .next_verdict()
                    .map(|e| vec![e])
                    .ok_or(RuleError::NotNow("the bowling cards are being shuffled")),
                _ => Err(RuleError::NotNow(
                    "the bowler of the over turns up a card only after a \"How's That\"",
                )),
            },
            Action::PlayOn => Ok(vec![Event::PlayingOn { seat }]),
            Action::Declare => match due {
                Due::Ball if captain_of(self.batting_side()) => Ok(vec![Event::Declared {
                    side: self.batting_side(),
                }]),
                _ => Err(RuleError::NotNow(
                    "only the batting captain declares, between balls",
                )),
            },
            Action::FollowOn { enforce } => match due {
                Due::FollowOn(side) if captain_of(side) => {
                    Ok(vec![Event::FollowOn { enforced: *enforce }])
                }
                _ => Err(RuleError::NotNow(
                    "the follow-on is decided after the second innings, by the side batting first",
                )),
            },
            Action::ExtraTime { claim } => match due {
                Due::ExtraTime(answered) => {
                    let sides: Vec<u8> = (0..2u8)
                        .filter(|&s| !answered[usize::from(s)] && captain_of(s))
                        .collect();
                    match (sides.first(), claim) {
                        (None, _) => Err(RuleError::NotNow("you have already answered")),
                        (Some(&side), true) => Ok(vec![Event::ExtraTime {
                            side,
                            claimed: true,
                        }]),
                        (Some(_), false) => Ok(sides
                            .into_iter()
                            .map(|side| Event::ExtraTime {
                                side,
                                claimed: false,
                            })
                            .collect()),
                    }
                }
                _ => Err(RuleError::NotNow(
                    "extra time is claimed only at the end of 51 overs",
                )),
            },
            Action::Prefer {
                auto_bowl,
                accept_defaults,
                keep_playing_on,
                declare_at_lead,
            } => {
                let b = bit(seat);
                let current_lead = self
                    .game
                    .captained_by(seat)
                    .next()
                    .and_then(|side| self.declare_lead[usize::from(side)]);
                Ok(vec![Event::Preferences {
                    seat,
                    auto_bowl: auto_bowl.unwrap_or(self.auto_bowl & b != 0),
                    accept_defaults: accept_defaults.unwrap_or(self.accept_defaults & b != 0),
                    keep_playing_on: keep_playing_on.unwrap_or(self.keep_playing_on & b != 0),
                    declare_at_lead: match declare_at_lead {
                        // Only a captain can declare, so only a captain keeps the instruction.
                        _ if self.game.captained_by(seat).next().is_none() => None,
                        Some(0) => None,
                        Some(lead) => Some(*lead),
                        None => current_lead,
                    },
                }])
            }
        }
    }

    /// Applies `events` to a copy and lets the scorer carry on as far as nobody need be asked.
    fn carry_on(&self, mut events: Vec<Event>, chance: &mut Chance) -> Vec<Event> {
        let mut scratch = self.clone();
        for event in &events {
            scratch.apply(event);
        }
        for _ in 0..CHAIN_LIMIT {
            let next = scratch.automatic(chance);
            if next.is_empty() {
                break;
            }
            for event in next {
                scratch.apply(&event);
                events.push(event);
            }
        }
        events
    }
}

// ---------------------------------------------------------------------------------------------
// The game
// ---------------------------------------------------------------------------------------------

impl Game for Googly {
    type Options = Options;
    type State = State;
    type Action = Action;
    type LegalAction = LegalAction;
    type Event = Event;
    type SeenEvent = SeenEvent;
    type SeatView = view::SeatView;
    type PublicView = view::PublicView;
    type PrivateView = view::PrivateView;
    type Outcome = view::Outcome;
    type Error = RuleError;

    fn describe() -> Description {
        Description {
            id: "googly",
            name: "GOOGLY",
            min_players: 1,
            max_players: MAX_PLAYERS,
            summary: "The cricket card game: two named elevens play a two-innings match of \
                      three 17-over days with a batting pack and a bowling pack; runs, \"How's \
                      That\" appeals, declarations, the follow-on and a full score-sheet. Team \
                      game, two players, three players (one scores) or patience.",
            options: json!({
                "variant": {
                    "type": "string",
                    "enum": ["team", "two_player", "three_player", "patience"],
                    "default": "from the number of players: 1 patience, 2 two_player, 3 three_player, 4+ team",
                    "description": "team: seats alternate between the sides and the packs are divided; two_player: one seat a side; three_player: the third seat scores (watches); patience: seat 0 plays both sides."
                },
                "teams": {
                    "type": "array of up to 2 {name, players}",
                    "default": [{"name": "Gentlemen"}, {"name": "Players"}],
                    "description": "Each side's name and up to eleven player names (missing places are named after the side)."
                }
            }),
            rules: "docs/rules/googly.md",
        }
    }

    fn cards() -> Value {
        pack::catalogue()
    }

    fn new(setup: &Setup<Options>) -> Result<State, SetupError> {
        let game = Match::build(setup)?;
        let divided = game.variant == Variant::Team;
        Ok(State {
            game: Arc::new(game),
            rules: Rules::of(setup.rules_version),
            phase: Phase::Toss,
            toss: None,
            elected: None,
            innings: [Innings::default(); 4],
            innings_count: 0,
            crease: [0, 1],
            striker: 0,
            next_in: 2,
            over_balls: 0,
            overs_done: 0,
            bowler: None,
            last_bowler: None,
            bowler_before: None,
            appeal: false,
            batting_pack: Pack::new(divided),
            bowling_pack: Pack::new(divided),
            deliveries: Vec::with_capacity(256),
            match_overs: 0,
            limit: MATCH_OVERS,
            extra_time: None,
            time_question: None,
            follow_on: None,
            shuffles_due: BATTING | BOWLING,
            playing_on: 0,
            keep_playing_on: 0,
            auto_bowl: 0,
            accept_defaults: 0,
            declare_lead: [None, None],
            result: None,
        })
    }

    fn start(state: &State, chance: &mut Chance) -> Vec<Event> {
        let toss = Event::Toss {
            toss: chance.shuffle(&[0u8, 1u8]),
        };
        state.carry_on(vec![toss], chance)
    }

    fn decide(
        state: &State,
        seat: Seat,
        action: &Action,
        chance: &mut Chance,
    ) -> Result<Vec<Event>, RuleError> {
        let events = state.first_events(seat, action)?;
        Ok(state.carry_on(events, chance))
    }

    fn evolve(mut state: State, event: &Event) -> State {
        state.apply(event);
        state
    }

    fn to_act(state: &State) -> Vec<Seat> {
        state.seats_to_act()
    }

    fn legal_actions(state: &State, seat: Seat) -> Vec<LegalAction> {
        if !state.seats_to_act().contains(&seat) {
            return vec![];
        }
        let mut actions = Vec::new();
        let captain_of = |side: u8| state.captain(side) == seat;
        match state.due() {
            Due::Elect(_) => {
                actions.push(LegalAction::Elect { to: Choice::Bat });
                actions.push(LegalAction::Elect { to: Choice::Field });
            }
            Due::Setup { order, openers } => {
                if let Some(side) = order.filter(|&s| captain_of(s)) {
                    let names = &state.game.team(side).players;
                    actions.push(LegalAction::BattingOrder {
                        order: Choose {
                            choose: ELEVEN,
                            from: names.clone(),
                        },
                    });
                }
                if let Some(side) = openers.filter(|&s| captain_of(s)) {
                    let names = &state.game.team(side).players;
                    actions.push(LegalAction::OpeningBowlers {
                        bowlers: Choose {
                            choose: 2,
                            from: names.clone(),
                        },
                    });
                }
                actions.push(LegalAction::AcceptDefaults);
            }
            Due::FollowOn(_) => {
                actions.push(LegalAction::FollowOn { enforce: true });
                actions.push(LegalAction::FollowOn { enforce: false });
            }
            Due::ExtraTime(_) => {
                actions.push(LegalAction::ExtraTime { claim: true });
                actions.push(LegalAction::ExtraTime { claim: false });
            }
            Due::Bowler(side) => {
                let team = state.game.team(side);
                for (i, name) in team.players.iter().enumerate() {
                    if u8::try_from(i).ok() != state.last_bowler {
                        actions.push(LegalAction::Bowler { name: name.clone() });
                    }
                }
            }
            Due::Ball => {
                if state.striker_seat() == seat {
                    actions.push(LegalAction::Play);
                }
                if !state.plays_on(seat) {
                    actions.push(LegalAction::PlayOn);
                }
                if captain_of(state.batting_side()) {
                    actions.push(LegalAction::Declare);
                }
            }
            Due::Appeal => {
                actions.push(LegalAction::Bowl);
                actions.push(LegalAction::PlayOn);
            }
            Due::Finished | Due::Toss | Due::Shuffle(_) => {}
        }
        actions
    }

    fn view(state: &State, viewer: Viewer) -> ViewOf<Self> {
        view::view(state, viewer)
    }

    fn redact(event: &Event, _viewer: Viewer) -> Value {
        // Only the order of the packs is hidden: everyone sees that a shuffle happened.
        let seen = match event {
            Event::BattingShuffle { shuffled } => SeenEvent::BattingShuffle {
                shuffled: ShuffleSeen {
                    stream: shuffled.stream,
                    size: shuffled.order.len(),
                },
            },
            Event::BowlingShuffle { shuffled } => SeenEvent::BowlingShuffle {
                shuffled: ShuffleSeen {
                    stream: shuffled.stream,
                    size: shuffled.order.len(),
                },
            },
            other => return serde_json::to_value(other).unwrap_or(Value::Null),
        };
        serde_json::to_value(seen).unwrap_or(Value::Null)
    }

    fn outcome(state: &State) -> Option<view::Outcome> {
        let result = state.result?;
        let game = &state.game;
        let points = points::championship_points(state);
        let sides_of = |seat: Seat| -> Vec<u8> {
            (0..2u8)
                .filter(|&s| game.team(s).seats.contains(&seat))
                .collect()
        };
        // From rules version 2 a seat playing both sides (patience) has no side of its own to
        // win with: the result names the side, and the seat neither wins nor takes points.
        let for_one_side = |sides: &[u8]| !state.rules.result_names_the_side || sides.len() == 1;
        let winners: Vec<Seat> = match result {
            MatchResult::Won { side, .. } => game
                .team(side)
                .seats
                .iter()
                .copied()
                .filter(|&seat| for_one_side(&sides_of(seat)))
                .collect(),
            _ => vec![],
        };
        let winning_side = match result {
            MatchResult::Won { side, .. } if state.rules.result_names_the_side => {
                Some(game.team(side).name.clone())
            }
            _ => None,
        };
        let seats = Seat::all(game.seats)
            .map(|seat| {
                let sides = sides_of(seat);
                let points = if for_one_side(&sides) {
                    sides.iter().map(|&s| points[usize::from(s)]).sum()
                } else {
                    0
                };
                view::SeatPoints {
                    seat,
                    sides,
                    points,
                }
            })
            .collect();
        Some(view::Outcome {
            result,
            summary: scoresheet::result_text(state),
            winning_side,
            winners,
            points: [
                (game.teams[0].name.clone(), points[0]),
                (game.teams[1].name.clone(), points[1]),
            ]
            .into(),
            seats,
            totals: [state.aggregate(0), state.aggregate(1)],
        })
    }

    fn scoresheet(state: &State) -> Option<Scoresheet> {
        let card = scoresheet::Scorecard::of(state);
        Some(Scoresheet {
            json: serde_json::to_value(&card).unwrap_or(Value::Null),
            text: card.to_text(),
        })
    }

    fn export(state: &State, format: &str) -> Option<Value> {
        match format {
            "cricsheet" => Some(cricsheet::export(state)),
            "record" => {
                stats::MatchRecord::of(state).and_then(|record| serde_json::to_value(record).ok())
            }
            _ => None,
        }
    }

    fn statistics(records: &[Value]) -> Option<Result<Value, String>> {
        Some(stats::aggregate_json(records))
    }

    fn default_action(state: &State, seat: Seat) -> Option<Action> {
        match state.due() {
            // Turning a card has no choice in it: the scorer turns this seat's cards until its
            // next real decision, as `play_on` says (the batting captain, who is only asked
            // because he may declare, lets play go on too).
            Due::Ball | Due::Appeal => Some(Action::PlayOn),
            Due::Finished | Due::Toss | Due::Shuffle(_) => None,
            // Every other decision: the match's own default, as `accept_defaults` takes it,
            // written out as the decision itself (one at a time).
            Due::ExtraTime(_)
            | Due::Elect(_)
            | Due::Setup { .. }
            | Due::FollowOn(_)
            | Due::Bowler(_) => match state.defaults(seat, true, true).into_iter().next()? {
                Event::Elected { to, .. } => Some(Action::Elect { to }),
                Event::BattingOrder { order, .. } => Some(Action::BattingOrder { order }),
                Event::OpeningBowlers { first, second, .. } => Some(Action::OpeningBowlers {
                    bowlers: vec![first, second],
                }),
                Event::FollowOn { enforced } => Some(Action::FollowOn { enforce: enforced }),
                Event::ExtraTime { claimed, .. } => Some(Action::ExtraTime { claim: claimed }),
                Event::Bowler { name } => Some(Action::Bowler { name }),
                _ => None,
            },
        }
    }

    /// A series is between the two named sides, whoever plays them.
    fn match_sides(state: &State) -> Option<Vec<String>> {
        Some(
            (0..2u8)
                .map(|side| state.game.team(side).name.clone())
                .collect(),
        )
    }

    /// A series counts County Championship points, by side.
    fn match_points(state: &State) -> Option<Vec<i64>> {
        state.result?;
        Some(
            points::championship_points(state)
                .into_iter()
                .map(i64::from)
                .collect(),
        )
    }

    /// The one side a seat plays for; none for the scorer, or patience's player of both.
    fn competitor_of(state: &State, seat: Seat) -> Option<usize> {
        let sides: Vec<u8> = (0..2u8)
            .filter(|&side| state.game.team(side).seats.contains(&seat))
            .collect();
        match sides.as_slice() {
            [side] => Some(usize::from(*side)),
            _ => None,
        }
    }

    fn concede(state: &State, seat: Seat) -> Concession {
        let game = &state.game;
        let plays = |s: Seat, side: u8| game.team(side).seats.contains(&s);
        let sides: Vec<u8> = (0..2u8).filter(|&side| plays(seat, side)).collect();
        // A seat playing one side concedes the match for it; a seat playing both (patience)
        // or neither (the scorer, a watcher) leaves no side to win.
        let winner = match sides.as_slice() {
            [side] => Some(1 - side),
            _ => None,
        };
        let side_points = match winner {
            Some(side) => points::points_for(
                state,
                MatchResult::Won {
                    side,
                    // Not recorded anywhere: the points law does not look at the margin.
                    margin: Margin::Runs(0),
                },
            ),
            None => [0, 0],
        };
        let points: Vec<i64> = Seat::all(game.seats)
            .map(|s| {
                (0..2u8)
                    .filter(|&side| plays(s, side))
                    .map(|side| i64::from(side_points[usize::from(side)]))
                    .sum()
            })
            .collect();
        // The winning side first, then the seats that play neither side, then the conceding
        // seat's own side, then the seat itself.
        let ranking = ranking_by(seat, game.seats, |s| match winner {
            Some(w) if plays(s, w) => 2,
            Some(w) if plays(s, 1 - w) => 0,
            _ => 1,
        });
        let wickets = |side: u8| -> i64 {
            state
                .innings()
                .iter()
                .filter(|i| i.batting == side)
                .map(|i| i64::from(i.wickets))
                .sum()
        };
        Concession {
            seat,
            ranking,
            points,
            measure: match winner {
                Some(_) => "championship points with the match conceded: 12 for the win, and \
                            the side conceding keeps 4 for a first-innings lead or 2 for a tie \
                            on it"
                    .to_string(),
                None => "no side concedes the match, so no championship points".to_string(),
            },
            higher_is_better: true,
            figures: [
                (
                    "side_runs".to_string(),
                    vec![i64::from(state.aggregate(0)), i64::from(state.aggregate(1))],
                ),
                ("side_wickets".to_string(), vec![wickets(0), wickets(1)]),
            ]
            .into(),
        }
    }

    // A match runs to a few thousand entries (every ball, appeal and shuffle is one), the
    // longest logs Parlour keeps: a cold match restores from a snapshot instead of folding them.
    fn snapshot(state: &State) -> Option<Value> {
        serde_json::to_value(Saved::of(state)).ok()
    }

    fn restore(fresh: &State, snapshot: &Value) -> Option<State> {
        Saved::deserialize(snapshot).ok()?.onto(fresh)
    }

    fn check_invariants(state: &State) -> Result<(), String> {
        if !state.batting_pack.accounted_for() {
            return Err("a batting card is missing or doubled".into());
        }
        if !state.bowling_pack.accounted_for() {
            return Err("a bowling card is missing or doubled".into());
        }
        let mut total_balls = 0usize;
        for (i, innings) in state.innings().iter().enumerate() {
            let balls = state.innings_deliveries(i);
            total_balls += balls.len();
            if innings.wickets > ALL_OUT {
                return Err(format!("innings {} has {} wickets", i + 1, innings.wickets));
            }
            if usize::from(innings.balls) != balls.len() {
                return Err(format!("innings {} miscounts its balls", i + 1));
            }
            let runs: u16 = balls.iter().map(|d| d.batter_runs() + d.extras()).sum();
            let leg_byes: u16 = balls.iter().map(Delivery::extras).sum();
            let wickets = balls.iter().filter(|d| d.dismissal().is_some()).count();
            if runs != innings.runs || leg_byes != innings.leg_byes {
                return Err(format!("innings {} miscounts its runs", i + 1));
            }
            if wickets != usize::from(innings.wickets) {
                return Err(format!("innings {} miscounts its wickets", i + 1));
            }
        }
        if total_balls != state.deliveries.len() {
            return Err("a ball belongs to no innings".into());
        }
        if state.over_balls > BALLS_PER_OVER
            || (state.over_balls == BALLS_PER_OVER && !state.appeal)
        {
            return Err("an over ran past six balls".into());
        }
        let (used, allowed) = state.time();
        if used > allowed {
            return Err("play went past the time limit".into());
        }
        if state.crease[0] == state.crease[1] && state.phase == Phase::Play {
            return Err("the same batsman is at both ends".into());
        }
        Ok(())
    }
}

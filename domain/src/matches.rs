//! Matches: deals of one game played until a target is reached, as every rule sheet closes.
//!
//! A match is a run of ordinary games ("deals"), each in its own log and linked to the match
//! by a `table.match_deal` entry. This module holds only the match's rules: who deals each
//! deal, what target a match plays to, and the standings that a list of finished deals gives.
//! Reading the deals from the store, and starting the next one, is the server's.
//!
//! *Competitors* are who a match is between: the seats of the first deal for every game but
//! GOOGLY, whose series is between its two named sides ([`crate::Game::match_sides`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most deals a match may have. A points race can in principle go on for ever (a GIRL
/// score can be negative, and a tie on the highest total plays another deal), so the match
/// ends after this many with the highest total winning, ties sharing the win.
pub const MAX_DEALS: u32 = 100;

/// The highest points target a creator may set.
pub const MAX_POINTS: u32 = 1000;

/// The longest series of GOOGLY matches a creator may set.
pub const MAX_SERIES: u32 = 25;

/// What a match is played to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Target {
    /// The first to this total wins: GIRL, The CAR Game, British Birds, History of England.
    Points {
        /// The total to reach.
        points: u32,
    },
    /// A series of this many games, the most points winning: GOOGLY's championship.
    Deals {
        /// How many games the series has.
        deals: u32,
    },
}

/// Why a target cannot be used for a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadTarget {
    /// A GOOGLY series is a number of matches; every other game plays to a points total.
    #[error("a {game} match is played to {wanted}")]
    WrongKind {
        /// The game.
        game: String,
        /// What it is played to, in words.
        wanted: &'static str,
    },
    /// Out of range.
    #[error("{0}")]
    OutOfRange(String),
}

/// How a game's matches are played, from its sheet; each game's catalogue entry says which
/// (`catalog::Entry::matches`), so a game cannot be offered without one.
#[derive(Debug, Clone, Copy)]
pub enum MatchRule {
    /// The first to a points total wins, and the deal passes to the left from one deal to the
    /// next (the sheet names a dealer: "Choose a dealer", "the player on the dealer's left
    /// begins"); `default` is the total for a table of so many players.
    Points {
        /// The total a match plays to unless its creator sets another.
        default: fn(usize) -> u32,
    },
    /// A series of games, the most points winning, the sides keeping their seats (a GOOGLY
    /// match begins with a toss instead of a deal); `default` games unless set.
    Series {
        /// How many games a series has unless its creator sets another.
        default: u32,
    },
}

/// GIRL's and The CAR Game's target: "For 4 players to reach 50 points will require about 6
/// or 7 games. For 2 players, 100 points will require about the same number of games." A deal
/// shares out about the same number of cards whatever the table, so a player's share goes as
/// 1/n: 200/n, to the nearest 5, keeps "about the same number of games" for 3 (65) and 5 (40)
/// too.
pub fn points_shared_out(players: usize) -> u32 {
    let n = u32::try_from(players.max(1)).unwrap_or(u32::MAX);
    ((200 + n * 5 / 2) / n) / 5 * 5
}

/// British Birds' target, rule 10: "The winner is the first to score a total of 50 points";
/// and History of England's, "a longer game": "The first player to score 50 points".
pub fn fifty_points(_players: usize) -> u32 {
    50
}

/// GOOGLY's series: three matches (the sheet names no length; three is the shortest series a
/// side can win two to one).
pub const GOOGLY_SERIES: u32 = 3;

impl MatchRule {
    /// Whether the deal passes to the left from one deal to the next.
    pub fn deal_rotates(self) -> bool {
        matches!(self, MatchRule::Points { .. })
    }

    /// The target a match of `players` plays to unless its creator sets another.
    pub fn default_target(self, players: usize) -> Target {
        match self {
            MatchRule::Points { default } => Target::Points {
                points: default(players),
            },
            MatchRule::Series { default } => Target::Deals { deals: default },
        }
    }

    /// Checks a creator's target for a match of `game`, played under this rule.
    pub fn check_target(self, game: &str, target: Target) -> Result<Target, BadTarget> {
        match (self, target) {
            (MatchRule::Series { .. }, Target::Deals { deals }) => {
                if (1..=MAX_SERIES).contains(&deals) {
                    Ok(target)
                } else {
                    Err(BadTarget::OutOfRange(format!(
                        "a series has 1 to {MAX_SERIES} matches, not {deals}"
                    )))
                }
            }
            (MatchRule::Series { .. }, Target::Points { .. }) => Err(BadTarget::WrongKind {
                game: game.into(),
                wanted: "a number of matches ({\"kind\": \"deals\", \"deals\": n})",
            }),
            (MatchRule::Points { .. }, Target::Points { points }) => {
                if (1..=MAX_POINTS).contains(&points) {
                    Ok(target)
                } else {
                    Err(BadTarget::OutOfRange(format!(
                        "a match is played to 1 to {MAX_POINTS} points, not {points}"
                    )))
                }
            }
            (MatchRule::Points { .. }, Target::Deals { .. }) => Err(BadTarget::WrongKind {
                game: game.into(),
                wanted: "a points total ({\"kind\": \"points\", \"points\": n})",
            }),
        }
    }
}

/// The seat a match's player sits in at deal `deal` (counted from 0) of a table of `players`.
/// With the deal passing to the left, each deal seats everyone one place further round, so
/// that the game's own dealer (its last seat, seat 0 on her left) moves one to the left: in
/// deal 1 the first deal's seat 0 deals and its seat 1 begins.
pub fn game_seat(player: usize, deal: u32, players: usize, rotates: bool) -> usize {
    if !rotates || players == 0 {
        return player;
    }
    let shift = usize::try_from(deal).unwrap_or(0) % players;
    (player + players - shift) % players
}

/// The match's player in `seat` of deal `deal`: the inverse of [`game_seat`].
pub fn match_player(seat: usize, deal: u32, players: usize, rotates: bool) -> usize {
    if !rotates || players == 0 {
        return seat;
    }
    let shift = usize::try_from(deal).unwrap_or(0) % players;
    (seat + shift) % players
}

/// How one deal ended, for the match, in competitors' terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DealEnd {
    /// Played out: each competitor's points towards the target.
    Scored(Vec<i64>),
    /// A competitor resigned, or its clock forfeited it: it concedes the match.
    Conceded(usize),
    /// Abandoned or aborted, or conceded by a seat that plays for no one side: the match ends
    /// with no result.
    Void,
}

/// Where a match stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum MatchResult {
    /// Another deal is to be played.
    Playing,
    /// Over: these competitors won (more than one only when they tie at the end of a series,
    /// or at [`MAX_DEALS`]).
    Won {
        /// The winners, by competitor number.
        winners: Vec<usize>,
    },
    /// A competitor conceded a deal, and with it the match: the best of the others won.
    Conceded {
        /// Who conceded.
        by: usize,
        /// The best totals of the others.
        winners: Vec<usize>,
    },
    /// A deal was abandoned: the match ends with no result.
    Abandoned,
}

impl MatchResult {
    /// Whether the match is over.
    pub fn is_over(&self) -> bool {
        !matches!(self, MatchResult::Playing)
    }
}

/// The totals and the result that a match's finished deals give, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standings {
    /// Each competitor's total over the deals played out.
    pub totals: Vec<i64>,
    /// Where the match stands.
    pub result: MatchResult,
    /// How many of the deals given counted (the deals after the one that ended it do not).
    pub deals: usize,
}

fn best(totals: &[i64], among: impl Fn(usize) -> bool) -> Vec<usize> {
    let top = (0..totals.len())
        .filter(|c| among(*c))
        .map(|c| totals[c])
        .max();
    (0..totals.len())
        .filter(|c| among(*c) && Some(totals[*c]) == top)
        .collect()
}

/// The standings after `deals`, the finished deals in order, of a match between
/// `competitors` played to `target`.
///
/// - A points race ends after the first deal at whose end someone has reached the target and
///   one total is highest: "If at the end of any game more than one player has reached 50
///   points the player with the highest score is the winner" (British Birds, rule 10; the
///   trick games and History of England say only "the first", and the same reading serves
///   them). A tie on the highest total plays another deal, since the sheet names one winner.
/// - A series ends after its number of games, the most points winning; a tie on the most
///   shares the series, as a drawn series in cricket.
/// - A conceded deal ends the match for the one who conceded; an abandoned deal ends it with no
///   result; after [`MAX_DEALS`] the highest total wins.
pub fn standings(target: Target, competitors: usize, deals: &[DealEnd]) -> Standings {
    let mut totals = vec![0i64; competitors];
    for (i, deal) in deals.iter().enumerate() {
        let result = match deal {
            DealEnd::Void => MatchResult::Abandoned,
            DealEnd::Conceded(by) => MatchResult::Conceded {
                by: *by,
                winners: best(&totals, |c| c != *by),
            },
            DealEnd::Scored(points) => {
                for (total, p) in totals.iter_mut().zip(points) {
                    *total = total.saturating_add(*p);
                }
                let played = u32::try_from(i + 1).unwrap_or(u32::MAX);
                let leaders = best(&totals, |_| true);
                match target {
                    Target::Points { points } => {
                        let reached = totals.iter().any(|t| *t >= i64::from(points));
                        if (reached && leaders.len() == 1) || played >= MAX_DEALS {
                            MatchResult::Won { winners: leaders }
                        } else {
                            MatchResult::Playing
                        }
                    }
                    Target::Deals { deals } if played >= deals.min(MAX_DEALS) => {
                        MatchResult::Won { winners: leaders }
                    }
                    Target::Deals { .. } => MatchResult::Playing,
                }
            }
        };
        if result.is_over() {
            return Standings {
                totals,
                result,
                deals: i + 1,
            };
        }
    }
    Standings {
        totals,
        result: MatchResult::Playing,
        deals: deals.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to(points: u32) -> Target {
        Target::Points { points }
    }

    fn rule(game: &str) -> MatchRule {
        crate::catalog::entry(game).unwrap().matches
    }

    fn default_target(game: &str, players: usize) -> Option<Target> {
        Some(rule(game).default_target(players))
    }

    fn check_target(game: &str, target: Target) -> Result<Target, BadTarget> {
        rule(game).check_target(game, target)
    }

    #[test]
    fn the_trick_games_default_to_the_sheets_figures_and_scale_between_them() {
        let targets: Vec<Target> = (2..=5)
            .map(|n| default_target("girl", n).unwrap())
            .collect();
        assert_eq!(targets, vec![to(100), to(65), to(50), to(40)]);
        assert_eq!(default_target("car", 4).unwrap(), to(50));
        assert_eq!(default_target("british-birds", 3).unwrap(), to(50));
        assert_eq!(default_target("history-of-england", 6).unwrap(), to(50));
        assert_eq!(
            default_target("googly", 2).unwrap(),
            Target::Deals { deals: 3 }
        );
    }

    #[test]
    fn a_googly_series_is_counted_in_matches_and_the_others_in_points() {
        assert!(check_target("googly", to(50)).is_err());
        assert!(check_target("girl", Target::Deals { deals: 3 }).is_err());
        assert!(check_target("girl", to(0)).is_err());
        assert!(check_target("girl", to(MAX_POINTS + 1)).is_err());
        assert!(check_target("googly", Target::Deals { deals: 0 }).is_err());
        assert!(crate::catalog::entry("chess").is_none());
        assert_eq!(check_target("british-birds", to(20)), Ok(to(20)));
    }

    #[test]
    fn the_deal_passes_to_the_left_each_deal() {
        // Deal 0: the players sit in their own seats; the last (3) deals, 0 begins.
        assert_eq!(game_seat(0, 0, 4, true), 0);
        // Deal 1: player 0 deals (the last seat) and player 1 begins (seat 0).
        assert_eq!(game_seat(0, 1, 4, true), 3);
        assert_eq!(game_seat(1, 1, 4, true), 0);
        for deal in 0..9 {
            for seat in 0..4 {
                let player = match_player(seat, deal, 4, true);
                assert_eq!(game_seat(player, deal, 4, true), seat);
            }
        }
        assert_eq!(
            game_seat(0, 1, 2, false),
            0,
            "GOOGLY's sides keep their seats"
        );
    }

    #[test]
    fn the_first_to_the_target_wins() {
        let deals = [
            DealEnd::Scored(vec![20, 10]),
            DealEnd::Scored(vec![25, 30]),
            DealEnd::Scored(vec![6, 0]),
            DealEnd::Scored(vec![9, 9]),
        ];
        let standings = standings(to(50), 2, &deals);
        assert_eq!(standings.totals, vec![51, 40]);
        assert_eq!(standings.result, MatchResult::Won { winners: vec![0] });
        assert_eq!(standings.deals, 3, "the fourth deal came after the end");
    }

    #[test]
    fn when_several_pass_the_target_in_one_deal_the_highest_total_wins() {
        let deals = [DealEnd::Scored(vec![45, 40]), DealEnd::Scored(vec![5, 15])];
        let result = standings(to(50), 2, &deals).result;
        assert_eq!(result, MatchResult::Won { winners: vec![1] });
    }

    #[test]
    fn a_tie_on_the_highest_total_past_the_target_plays_another_deal() {
        let mut deals = vec![DealEnd::Scored(vec![50, 50, 10])];
        assert_eq!(standings(to(50), 3, &deals).result, MatchResult::Playing);
        deals.push(DealEnd::Scored(vec![-2, 1, 0]));
        assert_eq!(
            standings(to(50), 3, &deals).result,
            MatchResult::Won { winners: vec![1] }
        );
    }

    #[test]
    fn negative_scores_count_against_the_total() {
        let deals = [DealEnd::Scored(vec![-3, 2]), DealEnd::Scored(vec![-1, 1])];
        let standings = standings(to(50), 2, &deals);
        assert_eq!(standings.totals, vec![-4, 3]);
        assert_eq!(standings.result, MatchResult::Playing);
    }

    #[test]
    fn a_series_is_decided_on_points_after_its_games_and_a_tie_shares_it() {
        let series = Target::Deals { deals: 2 };
        let one = [DealEnd::Scored(vec![12, 4])];
        assert_eq!(standings(series, 2, &one).result, MatchResult::Playing);
        let two = [DealEnd::Scored(vec![12, 4]), DealEnd::Scored(vec![4, 12])];
        assert_eq!(
            standings(series, 2, &two).result,
            MatchResult::Won {
                winners: vec![0, 1]
            }
        );
    }

    #[test]
    fn a_conceded_deal_ends_the_match_for_the_one_who_conceded() {
        let deals = [
            DealEnd::Scored(vec![10, 30, 20]),
            DealEnd::Conceded(1),
            DealEnd::Scored(vec![99, 0, 0]),
        ];
        let standings = standings(to(50), 3, &deals);
        assert_eq!(
            standings.result,
            MatchResult::Conceded {
                by: 1,
                winners: vec![2]
            }
        );
        assert_eq!(standings.totals, vec![10, 30, 20]);
    }

    #[test]
    fn an_abandoned_deal_ends_the_match_with_no_result() {
        let deals = [DealEnd::Scored(vec![1, 2]), DealEnd::Void];
        assert_eq!(standings(to(50), 2, &deals).result, MatchResult::Abandoned);
    }

    #[test]
    fn a_match_that_never_reaches_its_target_ends_at_the_deal_limit() {
        let deals: Vec<DealEnd> = (0..MAX_DEALS + 5)
            .map(|_| DealEnd::Scored(vec![0, 0]))
            .collect();
        let standings = standings(to(50), 2, &deals);
        assert_eq!(standings.deals, MAX_DEALS as usize);
        assert_eq!(
            standings.result,
            MatchResult::Won {
                winners: vec![0, 1]
            }
        );
    }
}

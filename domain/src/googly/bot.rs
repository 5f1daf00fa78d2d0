//! Bots for GOOGLY.
//!
//! GOOGLY has no hidden hands: both packs lie face down, unseen by everyone ("every pack is
//! face down, even to its holder"), so there is nothing for a seat to infer that the table does
//! not show, and `expert` plays as `steady`. The game's decisions are the captain's: "He shall
//! have authority to declare the innings closed at any time he feels suitable, or enforce the
//! follow on, or claim 'extra time'".
//!
//! - `random` turns its cards and answers the captain's questions at random, but declares only
//!   one time in five hundred that it might: uniform play would close an innings after a
//!   handful of balls, since `declare` is offered beside `play` at every ball.
//! - `steady` puts the other side in on winning the toss ("the winner shall have the option
//!   of batting first or putting his opponents in"): the side batting last chases a known
//!   target and stops the moment it passes it. It takes the default batting order and
//!   bowlers (the packs, not the players, decide a ball), and plays on between its decisions.
//!   In its second innings it declares at the lead from which declaring is worth more than
//!   batting on, given the other side's odds of passing it or being bowled out in the balls
//!   left, extra time included while it may still be claimed (2.92 runs a ball and 14 more,
//!   from the last innings' odds worked ball by ball;
//!   a side makes about 2.67 a ball, as the packs run: eight each of 1, 2, 3, 4 and 6 beside
//!   eight "How's That"), and only while six overs or more are left; it enforces the
//!   follow-on (a side 150 behind is likely to be bowled out again in less time than it
//!   takes to bat a third innings); and "if at the end of 51 overs, either captain considers
//!   that there is a chance of forcing a win, he may claim 'extra time' of THREE overs" — it
//!   claims when three overs could win the match for its side and not lose it (three wickets
//!   or fewer to take, or 45 runs or fewer to get).

use serde_json::{json, Value};

use crate::bot_kit::{kind, seat_at, uniform, unit, Level, LevelBot, Rng, Seen};
use crate::game::Seat;

/// Runs a side makes in an over, on average: 5 balls in 6 score, 3.2 runs each.
const RUNS_PER_OVER: u16 = 16;
/// The lead a third-innings declaration wants for each ball the other side may bat, in
/// hundredths of a run: about a tenth more than the 2.67 a ball a side makes. Found by working
/// the last innings' odds ball by ball (the chance of bowling the side out before time against
/// the chance of its passing the lead), declaring at the first ball where declaring is worth
/// more than batting on: 2.92 a ball and 14 more (see `DECLARE_BASE`), whatever the wickets.
const DECLARE_PER_BALL_CENTS: u32 = 292;
/// The lead a declaration wants beyond `DECLARE_PER_BALL_CENTS` for each ball.
const DECLARE_BASE: u32 = 14;
/// Balls of extra time ("THREE overs") the other side may still have: either captain's claim
/// is enough, so a declaration must leave the side more than it can make in them too.
const EXTRA_BALLS: u16 = 18;
/// The fewest balls left at which a declaration is still worth making: with fewer than six
/// overs a side is almost never bowled out in time.
const DECLARE_WITH_BALLS_LEFT: u16 = 36;

/// Whether the bot declines every move it has now (so the match waits for another seat): a
/// batting captain who is not the striker and already plays on is offered only `declare`, at
/// every ball, and must not be made to take it.
pub(crate) fn waits(seen: &Seen, bot: LevelBot, rng: &mut Rng) -> bool {
    let legal = seen.legal();
    if !legal.iter().all(|a| kind(a) == "declare") {
        return false;
    }
    match bot.level {
        Level::Random => unit(rng) >= DECLARE_WEIGHT,
        Level::Steady | Level::Expert => !Match::read(seen).is_some_and(|m| m.should_declare()),
    }
}

/// How often `random` takes a `declare` that is offered, against 1 for any other move.
const DECLARE_WEIGHT: f64 = 0.002;

/// The move of `bot` for the seat that saw `seen`.
pub(crate) fn choose(seen: &Seen, bot: LevelBot, rng: &mut Rng) -> Option<Value> {
    if bot.level == Level::Random {
        return uniform(seen, rng, |action| {
            if kind(action) == "declare" {
                DECLARE_WEIGHT
            } else {
                1.0
            }
        });
    }
    Match::read(seen)?.steady(seen)
}

/// The match as the scorer's view shows it.
struct Match {
    me: Seat,
    decision: String,
    /// Each innings so far: (batting side, runs, wickets, closed).
    innings: Vec<(u8, u16, u8, bool)>,
    /// Balls left of the match's time (whole overs' worth under rules version 1).
    balls_left: u16,
    /// Whether extra time may still be claimed (it has not been yet).
    extra_to_come: bool,
    striker: Option<Seat>,
}

impl Match {
    fn read(seen: &Seen) -> Option<Match> {
        let public = &seen.view().public;
        let time = public.get("time")?;
        let innings = public
            .get("innings")?
            .as_array()?
            .iter()
            .map(|i| {
                Some((
                    u8::try_from(i.get("side")?.as_u64()?).ok()?,
                    u16::try_from(i.get("runs")?.as_u64()?).ok()?,
                    u8::try_from(i.get("wickets")?.as_u64()?).ok()?,
                    i.get("closed")?.as_bool()?,
                ))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Match {
            me: seen.seat(),
            decision: public
                .get("waiting_for")?
                .get("decision")?
                .as_str()?
                .to_string(),
            innings,
            balls_left: match time.get("balls_left").and_then(Value::as_u64) {
                Some(balls) => u16::try_from(balls).ok()?,
                None => u16::try_from(time.get("overs_left")?.as_u64()?)
                    .ok()?
                    .saturating_mul(6),
            },
            extra_to_come: time.get("extra_time").is_none_or(Value::is_null),
            striker: public
                .get("current")
                .and_then(|c| c.get("striker"))
                .and_then(|s| seat_at(s, "seat")),
        })
    }

    fn aggregate(&self, side: u8) -> u16 {
        self.innings
            .iter()
            .filter(|i| i.0 == side)
            .map(|i| i.1)
            .sum()
    }

    /// The innings in play (not closed), as its number (0 to 3) and its entry.
    fn current(&self) -> Option<(usize, (u8, u16, u8, bool))> {
        let last = self.innings.len().checked_sub(1)?;
        let innings = self.innings[last];
        (!innings.3).then_some((last, innings))
    }

    /// The batting side's lead on aggregate (negative when behind).
    fn lead(&self) -> i32 {
        let Some((_, (side, ..))) = self.current() else {
            return 0;
        };
        i32::from(self.aggregate(side)) - i32::from(self.aggregate(1 - side))
    }

    /// The lead at which a second-innings declaration leaves the other side less likely to
    /// make it than to be bowled out in the balls left (extra time included while it may still
    /// be claimed).
    fn declaration_lead(&self) -> Option<i32> {
        let (number, _) = self.current()?;
        // Only the side's second innings, and only while there is time to bowl the other
        // side out after it.
        if number != 2 || self.balls_left < DECLARE_WITH_BALLS_LEFT {
            return None;
        }
        let balls = u32::from(self.balls_left)
            + if self.extra_to_come {
                u32::from(EXTRA_BALLS)
            } else {
                0
            };
        i32::try_from(balls * DECLARE_PER_BALL_CENTS / 100 + DECLARE_BASE).ok()
    }

    fn should_declare(&self) -> bool {
        self.declaration_lead()
            .is_some_and(|lead| self.lead() >= lead)
    }

    /// Whether three more overs could win the match for `my_side` and not lose it.
    fn worth_extra_time(&self, my_side: u8) -> bool {
        let Some((number, (batting, _, wickets, _))) = self.current() else {
            return false;
        };
        if number != 3 {
            return false;
        }
        let needed =
            i32::from(self.aggregate(1 - batting)) - i32::from(self.aggregate(batting)) + 1;
        let three_overs = i32::from(3 * RUNS_PER_OVER);
        if batting == my_side {
            needed <= 45 && wickets <= 7
        } else {
            wickets >= 7 && needed > three_overs
        }
    }

    /// The side this seat decides for now: the one whose captain the match waits for.
    fn my_sides(seen: &Seen) -> Vec<(u8, bool)> {
        seen.view()
            .seats
            .get(seen.seat().index())
            .and_then(|s| s.get("roles"))
            .and_then(|r| r.get("sides"))
            .and_then(Value::as_array)
            .map(|sides| {
                sides
                    .iter()
                    .filter_map(|s| {
                        Some((
                            u8::try_from(s.get("side")?.as_u64()?).ok()?,
                            s.get("captain")?.as_bool()?,
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn steady(&self, seen: &Seen) -> Option<Value> {
        let legal = seen.legal();
        let offered = |name: &str| legal.iter().find(|a| kind(a) == name).cloned();
        match self.decision.as_str() {
            // The side batting last chases a known target and its innings ends the moment it
            // passes it, while the side batting first wins only by bowling the other out in the
            // last innings before time runs out: in a simulation of the packs, a side batting
            // first against one that never declares lost about twice as often as it won. So the
            // toss winner puts the other side in.
            "elect" => Some(json!({"type": "elect", "to": "field"})),
            "batting_order_and_opening_bowlers" => offered("accept_defaults"),
            "follow_on" => Some(json!({"type": "follow_on", "enforce": true})),
            "extra_time" => {
                // A seat playing both sides (patience) claims if either side could force a win.
                let claim = Match::my_sides(seen)
                    .iter()
                    .filter(|(_, captain)| *captain)
                    .any(|(side, _)| self.worth_extra_time(*side));
                Some(json!({"type": "extra_time", "claim": claim}))
            }
            "bowler" => {
                // Any bowler is as good as another (the pack decides); the last two players of
                // the side bowl in turn, as a side's bowlers usually bat last.
                let bowlers: Vec<&Value> = legal.iter().filter(|a| kind(a) == "bowler").collect();
                bowlers.last().map(|b| (*b).clone())
            }
            "ball" => {
                if self.should_declare() {
                    if let Some(declare) = offered("declare") {
                        return Some(declare);
                    }
                }
                // Ball by ball while a declaration is near, so as to close at the right lead;
                // else the scorer turns the cards until the next wicket.
                let near = self
                    .declaration_lead()
                    .is_some_and(|lead| self.lead() + 40 >= lead);
                let striker = self.striker == Some(self.me);
                if near && striker {
                    offered("play")
                } else {
                    offered("play_on").or_else(|| offered("play"))
                }
            }
            "appeal" => offered("play_on").or_else(|| offered("bowl")),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::arena::Arena;
    use crate::bots::{play, Level, LevelBot};
    use crate::catalog;

    fn googly() -> &'static dyn crate::engine::Engine {
        catalog::engine("googly").unwrap()
    }

    /// Plays a two-player match with `bots` until `stop` says so.
    fn until(
        bots: [Level; 2],
        seed: u64,
        stop: impl Fn(&Arena, Seat) -> bool,
    ) -> Option<(Arena, Seat)> {
        let mut arena = Arena::open(googly(), 2, &json!({}), seed).unwrap();
        let bots = bots.map(LevelBot::new);
        for _ in 0..5000 {
            let (seat, action) = arena.next_move(&bots).unwrap()?;
            if stop(&arena, seat) {
                return Some((arena, seat));
            }
            arena.play(seat, &action).unwrap();
        }
        None
    }

    #[test]
    fn random_does_not_declare_its_first_innings_after_a_handful_of_balls() {
        let mut declared_early = 0;
        for seed in 0..20 {
            let mut arena = Arena::open(googly(), 2, &json!({}), seed).unwrap();
            let bots = [LevelBot::new(Level::Random); 2];
            arena.play_out(&bots, 20_000).unwrap();
            let early = arena.log().iter().any(|e| e.kind == "declared")
                && arena
                    .log()
                    .iter()
                    .take_while(|e| e.kind != "declared")
                    .filter(|e| e.kind == "ball")
                    .count()
                    < 60;
            declared_early += usize::from(early);
        }
        assert!(
            declared_early <= 2,
            "{declared_early} of 20 declared within 10 overs"
        );
    }

    #[test]
    fn steady_declares_its_second_innings_with_a_lead_the_other_side_cannot_make() {
        // Steady against steady until a side bats its second innings with a lead past what the
        // other can make in the overs left: its captain declares at its next decision.
        let found = (0..30).find_map(|seed| {
            until([Level::Steady; 2], seed, |arena, seat| {
                let seen = Seen::observe(googly(), arena.table(), seat, arena.log()).unwrap();
                Match::read(&seen).is_some_and(|m| m.should_declare() && m.decision == "ball")
                    && seen.legal().iter().any(|a| kind(a) == "declare")
            })
        });
        let Some((arena, seat)) = found else {
            panic!("no match reached a declaration");
        };
        let action = play(googly(), arena.table(), seat, arena.log(), Level::Steady, 1).unwrap();
        assert_eq!(action, json!({"type": "declare"}));
    }

    #[test]
    fn steady_enforces_the_follow_on() {
        let found = (0..60).find_map(|seed| {
            until([Level::Steady; 2], seed, |arena, seat| {
                let seen = Seen::observe(googly(), arena.table(), seat, arena.log()).unwrap();
                Match::read(&seen).is_some_and(|m| m.decision == "follow_on")
            })
        });
        let Some((arena, seat)) = found else {
            panic!("no match reached a follow-on");
        };
        let action = play(googly(), arena.table(), seat, arena.log(), Level::Steady, 1).unwrap();
        assert_eq!(action, json!({"type": "follow_on", "enforce": true}));
    }
}

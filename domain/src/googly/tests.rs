//! One test per paragraph of the rule sheet (scripted packs), one per strike note, one per
//! decision of `docs/rules/googly.md`, and the score-sheet invariants over random matches.

// Issue 9 lints: test tables and counts are small and fixed, so their casts cannot lose anything.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::{json, Value};

use super::pack::{BatCard, BowlCard, Dismissal, Stroke, Verdict};
use super::scoresheet::{InningsCard, Scorecard};
use super::stats::{self, BattingEntry, BowlingEntry, MatchRecord};
use super::*;
use crate::chance::{Chance, Seed, Shuffled};
use crate::engine::{self, MoveRefused, OutOfTurn};
use crate::game::{Game, Player, Seat, Setup, Viewer};

// --- helpers --------------------------------------------------------------------------------

fn setup(players: usize, variant: Option<Variant>) -> Setup<Options> {
    Setup {
        players: (0..players)
            .map(|i| Player {
                name: format!("p{i}"),
            })
            .collect(),
        options: Options {
            variant,
            ..Options::default()
        },
        rules_version: crate::game::RULES_VERSION,
    }
}

/// Batting cards by kind ("1", "2", "3", "4", "6", "H"), each the next unused copy.
fn bat_kinds(spec: &str, used: &mut Vec<BatCard>) -> Vec<BatCard> {
    spec.split_whitespace()
        .map(|token| {
            let group = match token {
                "1" => 0,
                "2" => 1,
                "3" => 2,
                "4" => 3,
                "6" => 4,
                "H" => 5,
                other => panic!("no batting kind {other}"),
            };
            let card = (0..8)
                .map(|c| BatCard(group * 8 + c))
                .find(|c| !used.contains(c))
                .expect("more than eight of a kind");
            used.push(card);
            card
        })
        .collect()
}

/// Bowling cards by kind ("b", "c", "s", "l", "ro", "no", "lb").
fn bowl_kinds(spec: &str, used: &mut Vec<BowlCard>) -> Vec<BowlCard> {
    spec.split_whitespace()
        .map(|token| {
            let want = match token {
                "b" => Verdict::Out(Dismissal::Bowled),
                "c" => Verdict::Out(Dismissal::Caught),
                "s" => Verdict::Out(Dismissal::Stumped),
                "l" => Verdict::Out(Dismissal::Lbw),
                "ro" => Verdict::Out(Dismissal::RunOut),
                "no" => Verdict::NotOut,
                "lb" => Verdict::LegBye,
                other => panic!("no bowling kind {other}"),
            };
            let card = BowlCard::all()
                .find(|c| c.verdict() == want && !used.contains(c))
                .expect("too many of a kind");
            used.push(card);
            card
        })
        .collect()
}

/// A batting order: each half as given (one half when the pack is not divided), topped up
/// with the unused cards in catalogue order.
fn bat_deal(halves: &[&str]) -> Vec<BatCard> {
    let mut used = Vec::new();
    let scripted: Vec<Vec<BatCard>> = halves.iter().map(|h| bat_kinds(h, &mut used)).collect();
    let mut rest = BatCard::all().filter(|c| !used.contains(c));
    let size = 48 / scripted.len();
    let mut order = Vec::new();
    for half in scripted {
        let fill = size - half.len();
        order.extend(half);
        order.extend(rest.by_ref().take(fill));
    }
    order
}

fn bowl_deal(halves: &[&str]) -> Vec<BowlCard> {
    let mut used = Vec::new();
    let scripted: Vec<Vec<BowlCard>> = halves.iter().map(|h| bowl_kinds(h, &mut used)).collect();
    let mut rest = BowlCard::all().filter(|c| !used.contains(c));
    let size = 50 / scripted.len();
    let mut order = Vec::new();
    for half in scripted {
        let fill = size - half.len();
        order.extend(half);
        order.extend(rest.by_ref().take(fill));
    }
    order
}

/// Only even runs on top: 8 sixes, 8 fours, 8 twos (84 runs in three overs: 6×8 + 4×8 + 2×2).
const EVENS: &str = "6 6 6 6 6 6 6 6 4 4 4 4 4 4 4 4 2 2 2 2 2 2 2 2";

struct T {
    s: State,
    seq: u64,
    log: Vec<Event>,
}

impl T {
    fn new(players: usize, variant: Option<Variant>) -> T {
        T {
            s: Googly::new(&setup(players, variant)).unwrap(),
            seq: 1,
            log: vec![],
        }
    }

    /// Toss to side 0, who bats; packs as scripted; both captains take the defaults.
    fn scripted(players: usize, variant: Option<Variant>, bat: &[&str], bowl: &[&str]) -> T {
        let mut t = T::new(players, variant);
        t.ev(Event::Toss {
            toss: Shuffled {
                stream: 0,
                order: vec![0, 1],
            },
        });
        t.deal_bat(bat);
        t.deal_bowl(bowl);
        t.ev(Event::Elected {
            side: 0,
            to: Choice::Bat,
        });
        t.defaults();
        t
    }

    /// The same match under rules version `version` (set before any ball is bowled).
    fn under(mut self, version: u32) -> T {
        self.s.rules = Rules::of(version);
        self
    }

    fn ev(&mut self, event: Event) {
        self.s = Googly::evolve(self.s.clone(), &event);
        Googly::check_invariants(&self.s).unwrap();
        self.log.push(event);
    }

    fn deal_bat(&mut self, halves: &[&str]) {
        self.ev(Event::BattingShuffle {
            shuffled: Shuffled {
                stream: 0,
                order: bat_deal(halves),
            },
        });
    }

    fn deal_bowl(&mut self, halves: &[&str]) {
        self.ev(Event::BowlingShuffle {
            shuffled: Shuffled {
                stream: 0,
                order: bowl_deal(halves),
            },
        });
    }

    fn try_as(&mut self, seat: u8, action: Action) -> Result<Vec<Event>, RuleError> {
        let mut chance = Chance::new(Seed([9; 32]), self.seq);
        self.seq += 1;
        let before = self.s.clone();
        let result = Googly::decide(&self.s, Seat(seat), &action, &mut chance);
        assert_eq!(before, self.s);
        let events = result?;
        for event in &events {
            self.ev(event.clone());
        }
        Ok(events)
    }

    /// The framework's refusal of a move out of turn or after the match.
    fn out_of_turn(&self, seat: u8, action: Action) -> OutOfTurn {
        let mut chance = Chance::new(Seed([9; 32]), self.seq);
        match engine::decide::<Googly>(&self.s, Seat(seat), &action, &mut chance) {
            Err(MoveRefused::OutOfTurn(refusal)) => refusal,
            other => panic!("seat {seat} {action:?} was not refused out of turn: {other:?}"),
        }
    }

    fn as_(&mut self, seat: u8, action: Action) -> Vec<Event> {
        self.try_as(seat, action.clone())
            .unwrap_or_else(|e| panic!("seat {seat} {action:?}: {e}"))
    }

    /// The action by whichever seat to act accepts it.
    fn act(&mut self, action: Action) -> Vec<Event> {
        for seat in Googly::to_act(&self.s) {
            if let Ok(events) = self.try_as(seat.0, action.clone()) {
                return events;
            }
        }
        panic!("nobody may {action:?} now ({:?})", self.s.due());
    }

    fn defaults(&mut self) {
        while matches!(self.s.due(), Due::Setup { .. } | Due::Bowler(_)) {
            self.act(Action::AcceptDefaults);
        }
    }

    /// The next mechanical move (naming the default bowler first if one is due).
    fn step(&mut self) -> Vec<Event> {
        self.defaults();
        match self.s.due() {
            Due::Ball => self.act(Action::Play),
            Due::Appeal => self.act(Action::Bowl),
            other => panic!("not a card to play: {other:?}"),
        }
    }

    /// Plays a ball and re-deals only even runs whenever the scorer reshuffles the batting
    /// cards, so no wicket ever falls.
    fn step_evens(&mut self) -> Vec<Event> {
        let events = self.step();
        if events
            .iter()
            .any(|e| matches!(e, Event::BattingShuffle { .. }))
        {
            self.deal_bat(&[EVENS]);
        }
        events
    }

    fn striker(&self) -> &str {
        let team = self.s.game().team(self.s.batting_side());
        team.player(self.s.crease[usize::from(self.s.striker)])
    }

    fn non_striker(&self) -> &str {
        let team = self.s.game().team(self.s.batting_side());
        team.player(self.s.crease[usize::from(1 - self.s.striker)])
    }

    fn card(&self, i: usize) -> InningsCard {
        InningsCard::of(&self.s, i).unwrap()
    }

    fn runs_of(&self, i: usize, name: &str) -> u16 {
        self.card(i)
            .batting
            .iter()
            .find(|l| l.name == name)
            .unwrap()
            .runs
    }
}

fn shuffles(events: &[Event]) -> (usize, usize) {
    let bat = events
        .iter()
        .filter(|e| matches!(e, Event::BattingShuffle { .. }))
        .count();
    let bowl = events
        .iter()
        .filter(|e| matches!(e, Event::BowlingShuffle { .. }))
        .count();
    (bat, bowl)
}

// --- The Constitution of the Pack ------------------------------------------------------------

#[test]
fn the_catalogue_lists_ninety_eight_cards_in_two_packs() {
    let cards = Googly::cards();
    let cards = cards.as_array().unwrap();
    assert_eq!(cards.len(), 98);
    assert_eq!(cards.iter().filter(|c| c["pack"] == "batting").count(), 48);
    assert_eq!(cards.iter().filter(|c| c["pack"] == "bowling").count(), 50);
}

// --- The Teams and the seats -----------------------------------------------------------------

/// The sheet fixes a match at three days of 17 overs (and three more of extra time) and gives
/// no shorter game, so no option shortens it (`docs/rules/googly.md`, "A shorter game").
#[test]
fn there_is_no_shorter_game_an_option_for_fewer_overs_is_refused() {
    assert_eq!((OVERS_PER_DAY, MATCH_OVERS, EXTRA_OVERS), (17, 51, 3));
    for shorter in [
        json!({"overs": 20}),
        json!({"days": 1}),
        json!({"format": "short"}),
    ] {
        assert!(
            serde_json::from_value::<Options>(shorter.clone()).is_err(),
            "{shorter}"
        );
    }
    assert!(serde_json::from_value::<Options>(json!({"variant": "two_player"})).is_ok());
}

#[test]
fn options_name_the_sides_and_missing_players_are_named_after_their_side() {
    let mut s = setup(2, None);
    s.options.teams = vec![TeamOptions {
        name: Some("Kent".into()),
        players: vec!["Woolley".into(), "Ames".into()],
    }];
    let state = Googly::new(&s).unwrap();
    let kent = state.game().team(0);
    assert_eq!(kent.name, "Kent");
    assert_eq!(kent.players[1], "Ames");
    assert_eq!(kent.players[10], "Kent 11");
    assert_eq!(state.game().team(1).name, "Players");
    assert_eq!(state.game().team(1).players[0], "Players 1");

    s.options.teams.push(TeamOptions {
        name: Some("Kent".into()),
        players: vec![],
    });
    assert!(Googly::new(&s).is_err());
    s.options.teams[1].name = Some("Surrey".into());
    s.options.teams[1].players = vec!["Hobbs".into(), "Hobbs".into()];
    assert!(Googly::new(&s).is_err());
    s.options.teams[1].players = (0..12).map(|i| format!("P{i}")).collect();
    assert!(Googly::new(&s).is_err());
}

#[test]
fn the_variant_defaults_from_the_number_of_players() {
    let variant = |n| Googly::new(&setup(n, None)).unwrap().game().variant;
    assert_eq!(variant(1), Variant::Patience);
    assert_eq!(variant(2), Variant::TwoPlayer);
    assert_eq!(variant(3), Variant::ThreePlayer);
    assert_eq!(variant(4), Variant::Team);
    assert_eq!(variant(22), Variant::Team);
    assert!(Googly::new(&setup(23, None)).is_err());
    assert!(Googly::new(&setup(3, Some(Variant::TwoPlayer))).is_err());
    let options: Result<Options, _> =
        serde_json::from_value(serde_json::json!({"variant": "team", "colour": "red"}));
    assert!(options.is_err());
}

#[test]
fn in_the_team_game_seats_alternate_between_sides_and_share_the_players_in_turn() {
    let state = Googly::new(&setup(5, None)).unwrap();
    let game = state.game();
    assert_eq!(game.team(0).seats, vec![Seat(0), Seat(2), Seat(4)]);
    assert_eq!(game.team(1).seats, vec![Seat(1), Seat(3)]);
    assert_eq!(game.team(0).captain(), Seat(0));
    assert_eq!(game.team(1).captain(), Seat(1));
    assert_eq!(game.team(0).owner(4), Seat(2));
    assert_eq!(game.team(1).owner(4), Seat(1));
}

// --- The Captain: toss, batting order, openers ----------------------------------------------

#[test]
fn the_toss_is_a_recorded_seeded_shuffle_and_its_winner_chooses_to_bat_or_field() {
    let state = Googly::new(&setup(2, None)).unwrap();
    let events = Googly::start(&state, &mut Chance::new(Seed([0; 32]), 1));
    let Event::Toss { toss } = &events[0] else {
        panic!("the match opens with the toss")
    };
    assert!(crate::chance::verify_shuffle(&Seed([0; 32]), toss));
    assert_eq!(shuffles(&events), (1, 1));
    let mut t = T {
        s: state,
        seq: 2,
        log: vec![],
    };
    for e in events.clone() {
        t.ev(e);
    }
    let winner = toss.order[0];
    assert_eq!(Googly::to_act(&t.s), vec![Seat(winner)]);
    assert!(t
        .try_as(1 - winner, Action::Elect { to: Choice::Bat })
        .is_err());
    t.as_(winner, Action::Elect { to: Choice::Field });
    assert_eq!(t.s.innings()[0].batting, 1 - winner);
}

#[test]
fn a_fixed_seed_gives_this_toss_and_these_first_cards() {
    let state = Googly::new(&setup(2, None)).unwrap();
    let events = Googly::start(&state, &mut Chance::new(Seed([0; 32]), 1));
    let json = serde_json::to_value(&events).unwrap();
    let first: Vec<&str> = json[1]["shuffled"]["order"].as_array().unwrap()[..5]
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let bowl: Vec<&str> = json[2]["shuffled"]["order"].as_array().unwrap()[..3]
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(json[0]["toss"]["order"], serde_json::json!(GOLDEN_TOSS));
    assert_eq!(first, GOLDEN_BAT);
    assert_eq!(bowl, GOLDEN_BOWL);
}

const GOLDEN_TOSS: [u8; 2] = [1, 0];
const GOLDEN_BAT: [&str; 5] = [
    "bat-4-runs-7",
    "bat-2-runs-3",
    "bat-3-runs-5",
    "bat-6-runs-4",
    "bat-2-runs-1",
];
const GOLDEN_BOWL: [&str; 3] = ["bowl-leg-bye-1", "bowl-bowled-1", "bowl-leg-bye-7"];

#[test]
fn the_batting_captain_gives_the_order_and_the_fielding_captain_the_openers() {
    let mut t = T::new(2, None);
    t.ev(Event::Toss {
        toss: Shuffled {
            stream: 0,
            order: vec![1, 0],
        },
    });
    t.deal_bat(&[""]);
    t.deal_bowl(&[""]);
    t.as_(1, Action::Elect { to: Choice::Bat });
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0), Seat(1)]);
    let names: Vec<String> = t.s.game().team(1).players.iter().rev().cloned().collect();
    let mut short = names.clone();
    short.pop();
    assert_eq!(
        t.try_as(1, Action::BattingOrder { order: short }),
        Err(RuleError::BattingOrder)
    );
    assert!(t
        .try_as(
            0,
            Action::BattingOrder {
                order: names.clone()
            }
        )
        .is_err());
    t.as_(1, Action::BattingOrder { order: names });
    let fielders = &t.s.game().team(0).players;
    let same = vec![fielders[3].clone(), fielders[3].clone()];
    let pair = vec![fielders[3].clone(), fielders[5].clone()];
    assert_eq!(
        t.try_as(0, Action::OpeningBowlers { bowlers: same }),
        Err(RuleError::Openers)
    );
    t.as_(0, Action::OpeningBowlers { bowlers: pair });
    assert_eq!(t.striker(), "Players 11");
    assert_eq!(t.non_striker(), "Players 10");
    assert_eq!(
        t.s.game().team(0).player(t.s.bowler.unwrap()),
        "Gentlemen 4"
    );
}

#[test]
fn by_default_the_list_order_bats_and_the_last_two_open_the_bowling() {
    let t = T::scripted(2, None, &[""], &[""]);
    assert_eq!(t.striker(), "Gentlemen 1");
    assert_eq!(t.non_striker(), "Gentlemen 2");
    assert_eq!(t.s.current().openers, [10, 9]);
}

// --- The Play: dividing the packs ------------------------------------------------------------

#[test]
fn in_the_team_game_each_batsman_plays_from_his_own_half_of_the_batting_pack() {
    // Batsman No. 1 holds "2 ..." and No. 2 holds "6 ...": after a single from No. 1 the
    // strike changes and the next card comes from No. 2's half.
    let mut t = T::scripted(4, None, &["1 2", "6"], &[""]);
    assert_eq!(t.s.batting_pack.remaining(0), 24);
    assert_eq!(t.s.batting_pack.remaining(1), 24);
    assert_eq!(t.s.bowling_pack.remaining(0), 25);
    assert_eq!(t.s.bowling_pack.remaining(1), 25);
    t.step();
    t.step();
    let balls = t.s.deliveries();
    assert_eq!(balls[1].card.runs(), 6);
    assert_eq!(t.runs_of(0, "Gentlemen 2"), 6);
    // The striker's seat plays: Gentlemen 2 belongs to seat 2 (the side's second seat).
    assert_eq!(t.s.striker_seat(), Seat(2));
}

#[test]
fn with_two_players_the_packs_are_not_divided() {
    let mut t = T::scripted(2, None, &["1 6"], &[""]);
    assert_eq!(t.s.batting_pack.remaining(0), 48);
    t.step();
    t.step();
    assert_eq!(t.runs_of(0, "Gentlemen 2"), 6);
    assert_eq!(t.s.batting_pack.remaining(0), 46);
}

// --- The Play: runs and the strike -----------------------------------------------------------

#[test]
fn odd_runs_change_the_strike_and_even_runs_keep_it() {
    let mut t = T::scripted(2, None, &["2 1 4 3"], &[""]);
    t.step();
    assert_eq!(t.striker(), "Gentlemen 1");
    t.step();
    assert_eq!(t.striker(), "Gentlemen 2");
    t.step();
    assert_eq!(t.striker(), "Gentlemen 2");
    t.step();
    assert_eq!(t.striker(), "Gentlemen 1");
    assert_eq!(t.runs_of(0, "Gentlemen 1"), 2 + 1);
    assert_eq!(t.runs_of(0, "Gentlemen 2"), 4 + 3);
    assert_eq!(t.s.current().runs, 10);
}

#[test]
fn six_cards_make_an_over_hows_that_included() {
    let mut t = T::scripted(2, None, &["2 2 H 2 2 H"], &["no no"]);
    for _ in 0..5 {
        t.step(); // 2, 2, How's That, not out, 2
    }
    assert_eq!(t.s.over_balls, 4);
    t.step();
    t.step();
    assert_eq!(t.s.over_balls, 6);
    assert_eq!(t.s.overs_done, 0, "the over waits for the last appeal");
    t.step();
    assert_eq!(t.s.overs_done, 1);
    assert_eq!(t.s.match_overs(), 1);
    assert_eq!(t.card(0).overs, "1");
}

#[test]
fn the_played_cards_of_an_over_are_put_aside_at_its_end() {
    let mut t = T::scripted(2, None, &["2 2 2 2 2 2 4"], &[""]);
    for _ in 0..5 {
        t.step();
    }
    let view = engine::view_json::<Googly>(&t.s, Viewer::Spectator);
    assert_eq!(
        view.public["current"]["this_over"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    t.step();
    let view = engine::view_json::<Googly>(&t.s, Viewer::Spectator);
    assert_eq!(
        view.public["current"]["this_over"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(view.public["packs"]["batting"]["played_since_shuffle"], 6);
}

// --- The Play: How's That --------------------------------------------------------------------

#[test]
fn an_out_dismisses_the_striker_and_the_next_man_takes_his_cards() {
    // Team game: Batsman No. 1 holds "H 4"; he is bowled, and No. 3 plays on from his half.
    let mut t = T::scripted(4, None, &["H 4", "6"], &["b"]);
    t.step();
    assert_eq!(t.s.due(), Due::Appeal);
    // The bowler of the over (Gentlemen... no: Players 11) belongs to the fielding side's
    // seat: player 10 of side 1 → seat 1 (side 1 seats are 1 and 3).
    assert_eq!(Googly::to_act(&t.s), vec![Seat(1)]);
    t.step();
    assert_eq!(t.s.current().wickets, 1);
    assert_eq!(t.striker(), "Gentlemen 3");
    t.step();
    let last = *t.s.deliveries().last().unwrap();
    assert_eq!(last.card.runs(), 4);
    assert_eq!(t.runs_of(0, "Gentlemen 3"), 4);
    let card = t.card(0);
    assert_eq!(card.batting[0].how_out.text, "b Players 11");
    assert_eq!(card.bowling[0].wickets, 1);
}

#[test]
fn not_out_lets_the_batsman_who_offered_the_chance_continue() {
    let mut t = T::scripted(2, None, &["H 2"], &["no"]);
    t.step();
    t.step();
    assert_eq!(t.s.current().wickets, 0);
    assert_eq!(t.striker(), "Gentlemen 1");
    assert_eq!(t.s.current().runs, 0);
}

#[test]
fn a_leg_bye_goes_to_extras_not_the_batsman_and_the_striker_keeps_the_strike() {
    let mut t = T::scripted(2, None, &["2 H 4"], &["lb"]);
    t.step();
    t.step();
    t.step();
    assert_eq!(t.striker(), "Gentlemen 1");
    assert_eq!(t.s.current().runs, 3);
    assert_eq!(t.s.current().leg_byes, 1);
    assert_eq!(t.runs_of(0, "Gentlemen 1"), 2);
    let card = t.card(0);
    assert_eq!(card.extras, 1);
    assert_eq!(card.bowling[0].runs, 2, "leg byes are not the bowler's");
}

#[test]
fn a_run_out_dismisses_the_striker_but_is_not_the_bowlers_wicket() {
    let mut t = T::scripted(2, None, &["H"], &["ro"]);
    t.step();
    t.step();
    let card = t.card(0);
    assert_eq!(card.wickets, 1);
    assert_eq!(card.batting[0].how_out.text, "run out");
    assert_eq!(card.bowling[0].wickets, 0);
}

// --- Bowlers ---------------------------------------------------------------------------------

#[test]
fn the_fielding_captain_names_each_over_s_bowler_but_none_bowls_two_overs_running() {
    let mut t = T::scripted(2, None, &[EVENS], &[""]);
    for _ in 0..12 {
        t.step();
    }
    assert_eq!(t.s.due(), Due::Bowler(1));
    assert_eq!(Googly::to_act(&t.s), vec![Seat(1)]);
    let legal = engine::legal_actions_json::<Googly>(&t.s, Seat(1));
    assert_eq!(legal.len(), 10);
    assert!(!legal.iter().any(|a| a["name"] == "Players 10"));
    assert_eq!(
        t.try_as(
            1,
            Action::Bowler {
                name: "Players 10".into()
            }
        ),
        Err(RuleError::TwoOversRunning("Players 10".into()))
    );
    t.as_(
        1,
        Action::Bowler {
            name: "Players 3".into(),
        },
    );
    t.step();
    assert_eq!(t.s.deliveries().last().unwrap().bowler, 2);
}

#[test]
fn each_end_has_its_half_of_the_bowling_pack_and_a_new_bowler_takes_over_his_ends_cards() {
    // Team game. End one holds "c b", end two "no". Over 1 (end one): a catch. Over 2 (end
    // two): not out. Over 3, a new bowler at end one turns up end one's next card: bowled.
    let mut t = T::scripted(4, None, &["H 6 6 6 6 6 H", "4 4 4 4 4 H"], &["c b", "no"]);
    for _ in 0..7 {
        t.step();
    }
    assert_eq!(t.s.overs_done, 1);
    for _ in 0..7 {
        t.step();
    }
    assert_eq!(t.s.overs_done, 2);
    t.as_(
        1,
        Action::Bowler {
            name: "Players 1".into(),
        },
    );
    t.step();
    t.step();
    let verdicts: Vec<Verdict> =
        t.s.deliveries()
            .iter()
            .filter_map(|d| d.verdict.map(BowlCard::verdict))
            .collect();
    assert_eq!(
        verdicts,
        vec![
            Verdict::Out(Dismissal::Caught),
            Verdict::NotOut,
            Verdict::Out(Dismissal::Bowled)
        ]
    );
    assert_eq!(t.s.deliveries().last().unwrap().bowler, 0);
}

// --- Notes on How to Score -------------------------------------------------------------------

#[test]
fn an_odd_last_score_of_an_over_keeps_its_scorer_on_strike_for_the_next_over() {
    let mut t = T::scripted(2, None, &["2 2 2 2 2 3 4"], &[""]);
    for _ in 0..6 {
        t.step();
    }
    assert_eq!(t.striker(), "Gentlemen 1");
    t.step();
    assert_eq!(t.runs_of(0, "Gentlemen 1"), 17);
}

#[test]
fn an_even_last_score_of_an_over_gives_the_other_batsman_the_first_ball_of_the_next() {
    let mut t = T::scripted(2, None, &["2 2 2 2 2 4 6"], &[""]);
    for _ in 0..6 {
        t.step();
    }
    assert_eq!(t.striker(), "Gentlemen 2");
    t.step();
    assert_eq!(t.runs_of(0, "Gentlemen 2"), 6);
}

#[test]
fn after_a_wicket_to_the_last_ball_of_an_over_the_batsman_already_in_takes_the_first_ball() {
    let mut t = T::scripted(2, None, &["2 2 2 2 2 H 4"], &["c"]);
    for _ in 0..7 {
        t.step();
    }
    assert_eq!(t.s.overs_done, 1);
    assert_eq!(t.striker(), "Gentlemen 2");
    assert_eq!(t.non_striker(), "Gentlemen 3");
    t.step();
    assert_eq!(t.runs_of(0, "Gentlemen 2"), 4);
    assert_eq!(t.runs_of(0, "Gentlemen 3"), 0);
}

#[test]
fn after_wickets_to_the_last_ball_of_one_over_and_the_first_of_the_next_the_second_new_man_faces() {
    let mut t = T::scripted(2, None, &["2 2 2 2 2 H H 6"], &["c l"]);
    for _ in 0..7 {
        t.step();
    }
    t.step(); // first ball of over 2: How's That to Gentlemen 2
    t.step(); // l.b.w.
    assert_eq!(t.s.current().wickets, 2);
    assert_eq!(t.striker(), "Gentlemen 4", "the second incoming batsman");
    assert_eq!(t.non_striker(), "Gentlemen 3", "still at the other wicket");
    t.step();
    assert_eq!(t.runs_of(0, "Gentlemen 4"), 6);
}

// --- Innings, declarations, shuffles ---------------------------------------------------------

#[test]
fn ten_wickets_end_the_innings_the_last_man_is_not_out_and_the_other_side_bats() {
    let mut t = T::scripted(
        2,
        None,
        &["H H H H H H H H 4 4 4 4 4 4 6 6 6 6"],
        &["c c c c b b b b l l"],
    );
    while t.s.overs_done < 3 {
        let events = t.step();
        if shuffles(&events).0 == 1 {
            t.deal_bat(&["H H"]);
        }
    }
    assert_eq!(t.s.current().wickets, 8);
    t.step();
    t.step();
    t.step();
    let events = t.step();
    assert_eq!(
        shuffles(&events),
        (1, 1),
        "both packs are shuffled after the innings"
    );
    let card = t.card(0);
    assert_eq!(card.wickets, 10);
    assert!(card.closed);
    let not_out: Vec<&str> = card
        .batting
        .iter()
        .filter(|l| l.how_out.status == "not out")
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(not_out.len(), 1);
    assert!(card
        .batting
        .iter()
        .all(|l| l.how_out.status != "did not bat"));
    assert_eq!(t.s.innings().len(), 2);
    assert_eq!(t.s.innings()[1].batting, 1);
    assert_eq!(
        t.s.due(),
        Due::Setup {
            order: Some(1),
            openers: Some(0)
        }
    );
}

#[test]
fn the_batting_captain_may_declare_between_any_two_balls() {
    let mut t = T::scripted(2, None, &["2 4"], &[""]);
    assert!(t.try_as(1, Action::Declare).is_err());
    t.step();
    let events = t.as_(0, Action::Declare);
    assert_eq!(shuffles(&events), (1, 1));
    assert!(t.s.innings()[0].declared);
    assert_eq!(t.card(0).score(), "2/0 dec (0.1 overs)");
    assert_eq!(t.s.match_balls(), 1, "the part over counts its one ball");
}

#[test]
fn only_the_batting_captain_declares_in_the_team_game() {
    let mut t = T::scripted(4, None, &["1", "2"], &[""]);
    t.step();
    // Gentlemen 2 (seat 2) is on strike; the captain (seat 0) may still declare.
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0), Seat(2)]);
    assert!(matches!(
        t.try_as(2, Action::Declare),
        Err(RuleError::NotNow(_))
    ));
    assert!(matches!(
        t.try_as(0, Action::Play),
        Err(RuleError::NotNow(_))
    ));
    assert_eq!(
        t.out_of_turn(3, Action::Declare),
        OutOfTurn::NotYourMove {
            to_act: vec![Seat(0), Seat(2)]
        }
    );
    t.as_(0, Action::Declare);
    assert!(t.s.innings()[0].declared);
}

#[test]
fn the_batting_cards_are_reshuffled_every_three_overs_and_the_bowling_cards_every_five() {
    let mut t = T::scripted(2, None, &[EVENS], &[""]);
    let mut at = Vec::new();
    for ball in 1..=66u16 {
        let events = t.step_evens();
        let (bat, bowl) = shuffles(&events);
        if bat + bowl > 0 {
            at.push((ball, bat, bowl));
        }
    }
    assert_eq!(
        at,
        vec![(18, 1, 0), (30, 0, 1), (36, 1, 0), (54, 1, 0), (60, 0, 1)]
    );
}

// --- The Object of the Game: results ---------------------------------------------------------

/// Plays one ball of the given cards from a fresh deal, then declares.
fn innings_of(t: &mut T, cards: &str) {
    t.defaults();
    if !cards.is_empty() {
        t.deal_bat(&[cards]);
        for _ in cards.split_whitespace() {
            t.step();
        }
    }
    t.defaults();
    t.act(Action::Declare);
}

#[test]
fn the_side_with_more_runs_after_four_innings_wins_by_runs() {
    let mut t = T::scripted(2, None, &[""], &[""]);
    innings_of(&mut t, "6");
    innings_of(&mut t, "4 4");
    innings_of(&mut t, "6 6");
    assert!(engine::outcome_json::<Googly>(&t.s).is_none());
    let events = {
        t.defaults();
        t.deal_bat(&["2"]);
        t.step();
        t.act(Action::Declare)
    };
    assert_eq!(
        shuffles(&events),
        (0, 0),
        "no shuffle once the match is over"
    );
    assert_eq!(
        t.s.result(),
        Some(MatchResult::Won {
            side: 0,
            margin: Margin::Runs(8)
        })
    );
    assert_eq!(scoresheet::result_text(&t.s), "Gentlemen won by 8 runs");
    assert!(Googly::to_act(&t.s).is_empty());
    assert_eq!(t.out_of_turn(0, Action::Play), OutOfTurn::GameOver);
    // Points: Gentlemen 12; Players led on the first innings (8 to 6): 4.
    assert_eq!(stats::championship_points(&t.s), [12, 4]);
}

#[test]
fn passing_the_target_in_the_fourth_innings_wins_at_once_by_wickets() {
    let mut t = T::scripted(2, None, &[""], &[""]);
    innings_of(&mut t, "6");
    innings_of(&mut t, "");
    innings_of(&mut t, "");
    t.defaults();
    t.deal_bat(&["4 2 2"]);
    t.step();
    t.step();
    assert!(t.s.result().is_none());
    t.step();
    assert_eq!(
        t.s.result(),
        Some(MatchResult::Won {
            side: 1,
            margin: Margin::Wickets(10)
        })
    );
    assert_eq!(t.s.current().runs, 8);
    assert_eq!(stats::championship_points(&t.s), [4, 12]);
}

#[test]
fn a_side_dismissed_twice_for_less_than_the_other_s_one_innings_loses_by_an_innings() {
    let mut t = T::scripted(2, None, &[""], &[""]);
    innings_of(&mut t, "2");
    innings_of(&mut t, "6 6");
    innings_of(&mut t, "4");
    assert_eq!(
        t.s.result(),
        Some(MatchResult::Won {
            side: 1,
            margin: Margin::InningsAndRuns(6)
        })
    );
    assert_eq!(
        scoresheet::result_text(&t.s),
        "Players won by an innings and 6 runs"
    );
    assert_eq!(t.s.innings().len(), 3);
}

#[test]
fn level_aggregates_when_the_last_innings_ends_are_a_tie_worth_six_points_each() {
    let mut t = T::scripted(2, None, &[""], &[""]);
    innings_of(&mut t, "6");
    innings_of(&mut t, "");
    innings_of(&mut t, "");
    innings_of(&mut t, "4 2");
    assert_eq!(t.s.result(), Some(MatchResult::Tie));
    assert_eq!(stats::championship_points(&t.s), [6, 6]);
}

#[test]
fn the_side_batting_first_may_enforce_the_follow_on_with_a_lead_of_150() {
    for (second, enforce) in [("6 6 6", true), ("6 6 6 1", false), ("6 6 6", false)] {
        let mut t = T::scripted(2, None, &[EVENS], &[""]);
        while t.s.current().runs < 168 {
            t.step_evens();
        }
        assert_eq!(t.s.current().runs, 168);
        t.defaults();
        t.act(Action::Declare);
        innings_of(&mut t, second);
        let lead = 168 - t.s.innings()[1].runs;
        if lead >= FOLLOW_ON_LEAD {
            assert_eq!(Googly::to_act(&t.s), vec![Seat(0)]);
            assert_eq!(t.s.due(), Due::FollowOn(0));
            t.as_(0, Action::FollowOn { enforce });
            assert_eq!(t.s.follow_on(), Some(enforce));
        } else {
            assert_eq!(t.s.follow_on(), None);
        }
        t.defaults();
        let third = t.s.innings()[2].batting;
        assert_eq!(third, if t.s.follow_on() == Some(true) { 1 } else { 0 });
        assert_eq!(t.card(2).follow_on, t.s.follow_on() == Some(true));
    }
}

// --- The Duration of the Game ----------------------------------------------------------------

fn to_fifty_one_overs() -> T {
    let mut t = T::scripted(2, None, &[EVENS], &[""]);
    while t.s.due() != Due::ExtraTime([false, false]) {
        t.step_evens();
    }
    t
}

#[test]
fn at_the_end_of_51_overs_without_a_result_and_no_claim_the_match_is_drawn() {
    let mut t = to_fifty_one_overs();
    assert_eq!(t.s.match_overs(), 51);
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0), Seat(1)]);
    t.as_(0, Action::ExtraTime { claim: false });
    assert_eq!(Googly::to_act(&t.s), vec![Seat(1)]);
    t.as_(1, Action::ExtraTime { claim: false });
    assert_eq!(t.s.result(), Some(MatchResult::Draw));
    assert_eq!(stats::championship_points(&t.s), [0, 0]);
}

#[test]
fn one_captain_s_claim_brings_three_overs_of_extra_time_then_the_match_is_drawn() {
    let mut t = to_fifty_one_overs();
    t.as_(0, Action::ExtraTime { claim: false });
    t.as_(1, Action::ExtraTime { claim: true });
    assert_eq!(t.s.limit(), 54);
    assert_eq!(t.s.extra_time(), Some(1));
    while t.s.result().is_none() {
        t.step_evens();
    }
    assert_eq!(t.s.match_overs(), 54);
    assert_eq!(t.s.result(), Some(MatchResult::Draw));
}

/// One ball, a declaration, then only even runs in the second innings until the time is up.
fn a_part_over_then_to_the_time_limit(version: u32) -> T {
    let mut t = T::scripted(2, None, &["2"], &[""]).under(version);
    t.step();
    t.as_(0, Action::Declare);
    t.defaults();
    t.deal_bat(&[EVENS]);
    while t.s.due() != Due::ExtraTime([false, false]) {
        t.step_evens();
    }
    t
}

#[test]
fn from_rules_version_2_the_51_overs_are_counted_in_balls_so_a_part_over_ending_an_innings_counts_only_its_balls(
) {
    // "Each game is limited to three days of 17 overs each, making a total of 51 overs": 306
    // balls, of which the declared innings took one.
    let mut t = a_part_over_then_to_the_time_limit(crate::game::RULES_VERSION);
    assert_eq!(t.s.match_balls(), 306);
    assert_eq!(t.s.innings()[1].balls, 305);
    assert_eq!(
        t.s.over_balls, 5,
        "time ran out with a ball of the over to come"
    );
    assert_eq!(t.s.match_overs(), 51);
    let view = engine::view_json::<Googly>(&t.s, Viewer::Spectator);
    assert_eq!(view.public["time"]["balls_bowled"], json!(306));
    assert_eq!(view.public["time"]["balls_left"], json!(0));
    assert_eq!(view.public["time"]["overs_left"], json!(0));
    // Extra time goes on from the middle of the over, for three overs' worth of balls.
    t.as_(1, Action::ExtraTime { claim: true });
    assert_eq!(t.s.due(), Due::Ball);
    let view = engine::view_json::<Googly>(&t.s, Viewer::Spectator);
    assert_eq!(view.public["time"]["balls_left"], json!(18));
    assert!(
        view.public["status"]
            .as_str()
            .unwrap()
            .ends_with("3 overs left"),
        "{}",
        view.public["status"]
    );
    t.step_evens();
    assert_eq!(t.s.over_balls, 0, "the over is finished first");
    while t.s.result().is_none() {
        t.step_evens();
    }
    assert_eq!(t.s.match_balls(), 324);
    assert_eq!(t.s.result(), Some(MatchResult::Draw));
    let card = Googly::scoresheet(&t.s).unwrap();
    assert_eq!(card.json["match_balls"], json!(324));
    assert!(card.text.contains("Overs bowled in the match: 54 of 54"));
}

#[test]
fn under_rules_version_1_a_part_over_that_ends_an_innings_counts_as_a_whole_over_of_the_51() {
    let t = a_part_over_then_to_the_time_limit(1);
    assert_eq!(t.s.match_overs(), 51);
    assert_eq!(t.s.match_balls(), 301, "one ball and fifty overs");
    assert_eq!(t.s.over_balls, 0);
    let view = engine::view_json::<Googly>(&t.s, Viewer::Spectator);
    assert_eq!(view.public["time"].get("balls_bowled"), None);
    assert_eq!(view.public["time"]["overs_left"], json!(0));
    let card = Googly::scoresheet(&t.s).unwrap();
    assert_eq!(card.json.get("match_balls"), None);
}

#[test]
fn a_draw_with_the_first_innings_level_gives_two_points_each() {
    let mut t = T::scripted(2, None, &[""], &[""]);
    innings_of(&mut t, "6");
    innings_of(&mut t, "4 2");
    t.defaults();
    t.deal_bat(&[EVENS]);
    while t.s.due() != Due::ExtraTime([false, false]) {
        t.step_evens();
    }
    t.as_(0, Action::ExtraTime { claim: false });
    t.as_(1, Action::ExtraTime { claim: false });
    assert_eq!(t.s.result(), Some(MatchResult::Draw));
    assert_eq!(stats::championship_points(&t.s), [2, 2]);
}

// --- Variations --------------------------------------------------------------------------------

#[test]
fn in_patience_one_seat_plays_both_sides() {
    let mut t = T::scripted(1, None, &["H"], &["no"]);
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0)]);
    t.step();
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0)]);
    t.step();
    t.act(Action::Declare);
    t.defaults();
    assert_eq!(t.s.innings()[1].batting, 1);
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0)]);
}

/// Players beat Gentlemen by an innings: 2, then 12, then 4.
fn an_innings_win_for_the_second_side(t: &mut T) {
    innings_of(t, "2");
    innings_of(t, "6 6");
    innings_of(t, "4");
    assert_eq!(
        t.s.result(),
        Some(MatchResult::Won {
            side: 1,
            margin: Margin::InningsAndRuns(6)
        })
    );
}

#[test]
fn from_rules_version_2_a_patience_result_names_the_winning_side_and_no_seat_wins_it() {
    // Seat 0 played both sides, so the side won, not the seat; the points are the sides'.
    let mut t = T::scripted(1, None, &[""], &[""]);
    an_innings_win_for_the_second_side(&mut t);
    let outcome = engine::outcome_json::<Googly>(&t.s).unwrap();
    assert_eq!(outcome["winning_side"], json!("Players"));
    assert_eq!(outcome["winners"], json!([]));
    assert_eq!(outcome["points"], json!({"Gentlemen": 0, "Players": 12}));
    assert_eq!(
        outcome["seats"],
        json!([{"seat": 0, "sides": [0, 1], "points": 0}])
    );
    // Where each side has its own seats, the winners are still that side's seats.
    let mut t = T::scripted(2, None, &[""], &[""]);
    an_innings_win_for_the_second_side(&mut t);
    let outcome = engine::outcome_json::<Googly>(&t.s).unwrap();
    assert_eq!(outcome["winning_side"], json!("Players"));
    assert_eq!(outcome["winners"], json!([1]));
    assert_eq!(outcome["seats"][1]["points"], json!(12));
}

#[test]
fn under_rules_version_1_a_patience_result_lists_its_one_seat_as_the_winner_with_both_sides_points()
{
    let mut t = T::scripted(1, None, &[""], &[""]).under(1);
    an_innings_win_for_the_second_side(&mut t);
    let outcome = engine::outcome_json::<Googly>(&t.s).unwrap();
    assert_eq!(outcome.get("winning_side"), None);
    assert_eq!(outcome["winners"], json!([0]));
    assert_eq!(
        outcome["seats"],
        json!([{"seat": 0, "sides": [0, 1], "points": 12}])
    );
}

#[test]
fn a_table_of_the_wrong_size_is_refused_in_the_variant_s_own_words() {
    let refusal = |players, variant| {
        Googly::new(&setup(players, Some(variant)))
            .err()
            .map(|e| e.to_string())
    };
    assert_eq!(
        refusal(2, Variant::ThreePlayer).as_deref(),
        Some("three-player GOOGLY is for exactly 3 players, not 2")
    );
    assert_eq!(
        refusal(3, Variant::TwoPlayer).as_deref(),
        Some("two-player GOOGLY is for exactly 2 players, not 3")
    );
    assert_eq!(
        refusal(23, Variant::Team).as_deref(),
        Some("the team game of GOOGLY is for 2 to 22 players, not 23")
    );
}

#[test]
fn with_three_players_the_third_seat_scores_and_never_acts() {
    for seed in 0..20 {
        let state = random_match(3, None, seed, 200);
        let view = engine::view_json::<Googly>(&state, Viewer::Seat(Seat(2)));
        assert_eq!(view.seats[2]["role"], "scorer");
        assert!(view.private.is_some());
    }
    let mut t = T::scripted(3, None, &[""], &[""]);
    while t.s.result().is_none() && t.s.match_overs() < 6 {
        assert!(!Googly::to_act(&t.s).contains(&Seat(2)));
        assert!(engine::legal_actions_json::<Googly>(&t.s, Seat(2)).is_empty());
        t.step();
        if t.s.phase != Phase::Play {
            break;
        }
    }
}

// --- The Scorer: what is public --------------------------------------------------------------

#[test]
fn every_card_played_is_public_but_the_order_of_the_packs_is_hidden() {
    let state = Googly::new(&setup(2, None)).unwrap();
    let events = Googly::start(&state, &mut Chance::new(Seed([3; 32]), 1));
    let ids = crate::playout::card_ids(&Googly::cards());
    for viewer in [Viewer::Spectator, Viewer::Seat(Seat(0))] {
        let redacted = Googly::redact(&events[1], viewer);
        assert!(crate::playout::mentioned_cards(&redacted, &ids).is_empty());
        assert_eq!(redacted["shuffled"]["size"], 48);
    }
    let ball = Event::Ball { card: BatCard(5) };
    let shown = Googly::redact(&ball, Viewer::Spectator);
    assert_eq!(shown["card"], "bat-1-run-6");
}

// --- Play on and standing preferences ----------------------------------------------------------

#[test]
fn play_on_turns_the_seat_s_cards_until_its_batsman_is_out() {
    let mut t = T::scripted(1, None, &["2 2 1 H 4 H"], &["no c"]);
    let events = t.as_(0, Action::PlayOn);
    let balls = events
        .iter()
        .filter(|e| matches!(e, Event::Ball { .. }))
        .count();
    assert_eq!(balls, 6);
    assert!(matches!(events.last(), Some(Event::Verdict { .. })));
    assert_eq!(t.s.current().wickets, 1);
    assert!(!t.s.plays_on(Seat(0)));
    assert_eq!(t.s.due(), Due::Ball);
}

#[test]
fn play_on_stops_where_another_seat_must_turn_a_card() {
    let mut t = T::scripted(2, None, &["2 2 H 4"], &["no"]);
    let events = t.as_(0, Action::PlayOn);
    assert_eq!(events.len(), 4);
    assert_eq!(t.s.due(), Due::Appeal);
    assert_eq!(Googly::to_act(&t.s), vec![Seat(1)]);
    t.as_(1, Action::Bowl);
    // The batting seat is still playing on, so the scorer carried on at once.
    assert!(t.s.deliveries().len() >= 4);
}

#[test]
fn standing_preferences_play_a_whole_match_without_asking() {
    let state = Googly::new(&setup(1, None)).unwrap();
    let mut t = T {
        s: state,
        seq: 2,
        log: vec![],
    };
    for e in Googly::start(&t.s, &mut Chance::new(Seed([5; 32]), 1)) {
        t.ev(e);
    }
    t.as_(
        0,
        Action::Prefer {
            auto_bowl: Some(true),
            accept_defaults: Some(true),
            keep_playing_on: Some(true),
            declare_at_lead: None,
        },
    );
    assert!(engine::outcome_json::<Googly>(&t.s).is_some());
}

#[test]
fn bowl_my_openers_in_turn_names_the_bowler_of_the_over_before_last() {
    let mut t = T::scripted(2, None, &[EVENS], &[""]);
    for _ in 0..12 {
        t.step();
    }
    t.as_(
        1,
        Action::Prefer {
            auto_bowl: Some(true),
            accept_defaults: None,
            keep_playing_on: None,
            declare_at_lead: None,
        },
    );
    assert_eq!(t.s.bowler, Some(10));
    for _ in 0..6 {
        t.step();
    }
    assert_eq!(t.s.bowler, Some(9));
}

#[test]
fn a_standing_declaration_closes_the_innings_when_the_lead_is_reached() {
    let mut t = T::scripted(2, None, &[EVENS], &[""]);
    t.as_(
        0,
        Action::Prefer {
            auto_bowl: None,
            accept_defaults: None,
            keep_playing_on: None,
            declare_at_lead: Some(20),
        },
    );
    for _ in 0..4 {
        t.step();
    }
    assert!(t.s.innings()[0].declared);
    assert_eq!(t.s.innings()[0].runs, 24);
}

// --- Score-sheet, export and statistics ------------------------------------------------------

#[test]
fn the_scorecard_reads_like_a_real_one() {
    let mut t = T::scripted(2, None, &["4 1 H 6 2 2 H"], &["c lb"]);
    for _ in 0..9 {
        t.step();
    }
    let sheet = Googly::scoresheet(&t.s).unwrap();
    assert!(
        sheet.text.contains("Gentlemen 1st innings"),
        "{}",
        sheet.text
    );
    assert!(sheet.text.contains("ct b Players 11"), "{}", sheet.text);
    assert!(
        sheet
            .text
            .contains("Fall of wickets: 1-5 (Gentlemen 2, 0.3 ov)"),
        "{}",
        sheet.text
    );
    assert!(sheet.text.contains("Extras"), "{}", sheet.text);
    assert_eq!(sheet.json["innings"][0]["total"], 16);
    assert_eq!(sheet.json["innings"][0]["bowling"][0]["overs"], "1");
    assert_eq!(sheet.json["innings"][0]["bowling"][1]["overs"], "0.1");
}

#[test]
fn hat_tricks_are_three_bowler_s_wickets_with_successive_balls_and_a_run_out_breaks_them() {
    let mut t = T::scripted(2, None, &["H H H 2 H H"], &["c b s ro l"]);
    for _ in 0..11 {
        t.step();
    }
    let found = stats::hat_tricks(&t.s);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].player, "Players 11");
    assert_eq!(found[0].wickets, 3);
    let mut t = T::scripted(2, None, &["H H H H"], &["c ro b s"]);
    for _ in 0..8 {
        t.step();
    }
    assert!(stats::hat_tricks(&t.s).is_empty());
}

#[test]
fn averages_are_runs_per_dismissal_and_the_table_adds_points() {
    let entry = |player: &str, runs, out| BattingEntry {
        player: player.into(),
        team: "Kent".into(),
        runs,
        balls: runs,
        out,
    };
    let record = |result, points: [u16; 2], batting: Vec<BattingEntry>| MatchRecord {
        teams: ["Kent".into(), "Surrey".into()],
        result,
        summary: String::new(),
        points,
        first_innings: None,
        batting,
        bowling: vec![BowlingEntry {
            player: "Laker".into(),
            team: "Surrey".into(),
            balls: 30,
            maidens: 1,
            runs: 40,
            wickets: 4,
        }],
        hat_tricks: vec![],
    };
    let records = vec![
        record(
            MatchResult::Won {
                side: 0,
                margin: Margin::Runs(3),
            },
            [12, 4],
            vec![entry("Woolley", 120, true), entry("Ames", 10, false)],
        ),
        record(MatchResult::Draw, [0, 4], vec![entry("Woolley", 30, false)]),
    ];
    let s = stats::aggregate(&records);
    let woolley = s.batting.iter().find(|b| b.player == "Woolley").unwrap();
    assert_eq!(
        (woolley.innings, woolley.not_outs, woolley.runs),
        (2, 1, 150)
    );
    assert_eq!(woolley.average, Some(150.0));
    assert_eq!(woolley.matches, 2);
    assert_eq!(woolley.hundreds, 1);
    assert_eq!(s.centuries.len(), 1);
    assert_eq!(
        s.batting
            .iter()
            .find(|b| b.player == "Ames")
            .unwrap()
            .average,
        None
    );
    assert_eq!(s.bowling[0].average, Some(10.0));
    assert_eq!(s.bowling[0].best, "4/40");
    assert_eq!(s.table[0].team, "Kent");
    assert_eq!(s.table[0].points, 12);
    assert_eq!(s.table[1].points, 8);
    assert_eq!(s.table[1].first_innings_points, 8);
    let json: Vec<Value> = records
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    assert!(stats::aggregate_json(&json).is_ok());
}

/// Plays a random match with a client that mostly plays on and rarely declares.
fn random_match(players: usize, variant: Option<Variant>, seed: u64, declare_one_in: u64) -> State {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bytes = [0u8; 32];
    rng.fill_bytes(&mut bytes);
    let chance_seed = Seed(bytes);
    let mut state = Googly::new(&setup(players, variant)).unwrap();
    let mut seq = 1;
    for e in Googly::start(&state, &mut Chance::new(chance_seed, seq)) {
        state = Googly::evolve(state, &e);
        seq += 1;
    }
    for _ in 0..20_000 {
        if state.result().is_some() {
            return state;
        }
        let to_act = Googly::to_act(&state);
        let seat = to_act[(rng.next_u64() % to_act.len() as u64) as usize];
        let mut legal = engine::legal_actions_json::<Googly>(&state, seat);
        if legal.len() > 1 && rng.next_u64() % declare_one_in != 0 {
            legal.retain(|a| a["type"] != "declare");
        }
        let template = &legal[(rng.next_u64() % legal.len() as u64) as usize];
        let body = crate::playout::instantiate(template, &mut rng);
        let action: Action = serde_json::from_value(body).unwrap();
        let events =
            Googly::decide(&state, seat, &action, &mut Chance::new(chance_seed, seq)).unwrap();
        for e in &events {
            state = Googly::evolve(state, e);
            seq += 1;
        }
        Googly::check_invariants(&state).unwrap();
    }
    panic!("the match did not end");
}

fn parse_overs(text: &str) -> u16 {
    match text.split_once('.') {
        Some((o, b)) => o.parse::<u16>().unwrap() * 6 + b.parse::<u16>().unwrap(),
        None => text.parse::<u16>().unwrap() * 6,
    }
}

fn check_scorecard(state: &State) {
    let card = Scorecard::of(state);
    for inn in &card.innings {
        let batsmen: u16 = inn.batting.iter().map(|l| l.runs).sum();
        assert_eq!(batsmen + inn.extras, inn.total, "runs + extras = total");
        assert!(inn.wickets <= 10);
        assert_eq!(
            parse_overs(&inn.overs),
            inn.balls,
            "balls = 6 × overs + part"
        );
        let bowled: u16 = inn.bowling.iter().map(|l| l.balls).sum();
        assert_eq!(bowled, inn.balls);
        let conceded: u16 = inn.bowling.iter().map(|l| l.runs).sum();
        assert_eq!(
            conceded,
            inn.total - inn.leg_byes,
            "bowling runs = total - leg byes"
        );
        for line in &inn.bowling {
            assert_eq!(parse_overs(&line.overs), line.balls);
        }
        let faced: u16 = inn.batting.iter().map(|l| l.balls).sum();
        assert_eq!(faced, inn.balls);
        let outs = inn
            .batting
            .iter()
            .filter(|l| l.how_out.status == "out")
            .count();
        assert_eq!(outs, usize::from(inn.wickets));
        assert_eq!(inn.fall_of_wickets.len(), usize::from(inn.wickets));
        let partnered: u16 = inn.partnerships.iter().map(|p| p.runs).sum();
        assert_eq!(partnered, inn.total, "partnerships add up to the total");
        let bowlers_wickets: u16 = inn.bowling.iter().map(|l| l.wickets).sum();
        assert!(bowlers_wickets <= u16::from(inn.wickets));
        if inn.wickets == 10 {
            let not_out = inn
                .batting
                .iter()
                .filter(|l| l.how_out.status == "not out")
                .count();
            assert_eq!(not_out, 1);
        }
    }
    let text = card.to_text();
    assert!(text.contains("GOOGLY: Gentlemen v Players"));

    let export = Googly::export(state, "cricsheet").unwrap();
    let innings = export["innings"].as_array().unwrap();
    assert_eq!(innings.len(), card.innings.len());
    for (inn, exported) in card.innings.iter().zip(innings) {
        assert_eq!(exported["team"], inn.team);
        let overs = exported["overs"].as_array().unwrap();
        let mut total = 0;
        let mut batter = 0;
        let mut balls = 0;
        let mut wickets = 0;
        for (n, over) in overs.iter().enumerate() {
            assert_eq!(over["over"], n);
            let deliveries = over["deliveries"].as_array().unwrap();
            assert!(!deliveries.is_empty() && deliveries.len() <= 6);
            for d in deliveries {
                balls += 1;
                total += d["runs"]["total"].as_u64().unwrap();
                batter += d["runs"]["batter"].as_u64().unwrap();
                assert_eq!(
                    d["runs"]["total"].as_u64().unwrap(),
                    d["runs"]["batter"].as_u64().unwrap() + d["runs"]["extras"].as_u64().unwrap()
                );
                wickets += d["wickets"].as_array().map_or(0, |w| w.len());
                assert_ne!(d["batter"], d["non_striker"]);
            }
        }
        assert_eq!(total, u64::from(inn.total));
        assert_eq!(batter, u64::from(inn.total - inn.extras));
        assert_eq!(balls, inn.balls);
        assert_eq!(wickets, usize::from(inn.wickets));
    }
    if state.result().is_some() {
        assert!(export["info"]["outcome"].is_object());
        assert!(MatchRecord::of(state).is_some());
    }
}

#[test]
fn scorecards_and_exports_keep_their_invariants_over_many_random_matches() {
    random_matches_keep_their_invariants(240);
}

/// Thousands of matches: `cargo test --release -p parlour-domain -- --ignored thousands`.
#[test]
#[ignore]
fn scorecards_keep_their_invariants_over_thousands_of_random_matches() {
    random_matches_keep_their_invariants(4000);
}

fn random_matches_keep_their_invariants(matches: u64) {
    let mut results = std::collections::BTreeMap::new();
    let mut follow_ons = 0;
    let mut extra_time = 0;
    for seed in 0..matches {
        let (players, variant) = match seed % 4 {
            0 => (1, None),
            1 => (2, None),
            2 => (4, None),
            _ => (3, None),
        };
        let state = random_match(players, variant, seed, 400);
        check_scorecard(&state);
        let kind = match state.result().unwrap() {
            MatchResult::Won { margin, .. } => match margin {
                Margin::Runs(_) => "runs",
                Margin::Wickets(_) => "wickets",
                Margin::InningsAndRuns(_) => "innings",
            },
            MatchResult::Tie => "tie",
            MatchResult::Draw => "draw",
        };
        *results.entry(kind).or_insert(0) += 1;
        follow_ons += usize::from(state.follow_on().is_some());
        extra_time += usize::from(state.extra_time().is_some());
    }
    // Every kind of result turns up among random matches.
    for kind in ["runs", "wickets", "innings", "draw"] {
        assert!(results.get(kind).copied().unwrap_or(0) > 0, "{results:?}");
    }
    assert!(
        follow_ons > 0 && extra_time > 0,
        "{follow_ons} {extra_time}"
    );
}

#[test]
fn live_scorecards_keep_their_invariants_during_play() {
    let mut t = T::scripted(4, None, &["", ""], &["", ""]);
    for _ in 0..200 {
        if t.s.result().is_some() || t.s.phase != Phase::Play {
            break;
        }
        t.step();
        check_scorecard(&t.s);
        let view = engine::view_json::<Googly>(&t.s, Viewer::Spectator);
        assert!(view.private.is_none());
    }
}

#[test]
fn a_state_clones_cheaply() {
    let state = random_match(2, None, 7, 400);
    let start = std::time::Instant::now();
    for _ in 0..1000 {
        std::hint::black_box(state.clone());
    }
    // Generous for a debug build: a few allocations and a memcpy of a few KB.
    assert!(start.elapsed() < std::time::Duration::from_millis(50));
    assert!(std::mem::size_of::<State>() < 600);
}

#[test]
fn a_how_s_that_card_scores_nothing() {
    assert_eq!(BatCard(40).stroke(), Stroke::HowsThat);
    assert_eq!(BatCard(40).runs(), 0);
}

/// Prints a random match's scorecard: `cargo test -p parlour-domain -- --ignored print_a_scorecard --nocapture`.
#[test]
#[ignore]
fn print_a_scorecard() {
    let state = random_match(2, None, 11, 100_000);
    println!("{}", Googly::scoresheet(&state).unwrap().text);
    println!(
        "{}",
        serde_json::to_string(&Googly::export(&state, "cricsheet").unwrap()["info"]).unwrap()
    );
}

// --- When a seat's time runs out (docs/rules/googly.md) ---------------------------------------

/// The move the server makes for `seat` when its clock runs out, as JSON.
fn default(t: &T, seat: u8) -> Option<Value> {
    engine::default_action::<Googly>(&t.s, Seat(seat)).map(|a| serde_json::to_value(a).unwrap())
}

/// Plays `seat`'s default move, which must exist and be accepted.
fn play_default(t: &mut T, seat: u8) -> Vec<Event> {
    let body = default(t, seat).unwrap_or_else(|| panic!("seat {seat} has no default"));
    t.as_(seat, serde_json::from_value(body).unwrap())
}

fn names(t: &T, side: u8, players: &[usize]) -> Vec<String> {
    let team = t.s.game().team(side);
    players.iter().map(|&p| team.players[p].clone()).collect()
}

#[test]
fn a_toss_winner_out_of_time_elects_to_bat() {
    let mut t = T::new(2, None);
    t.ev(Event::Toss {
        toss: Shuffled {
            stream: 0,
            order: vec![1, 0],
        },
    });
    t.deal_bat(&[""]);
    t.deal_bowl(&[""]);
    assert_eq!(
        default(&t, 1),
        Some(serde_json::json!({"type": "elect", "to": "bat"}))
    );
    assert_eq!(default(&t, 0), None);
    play_default(&mut t, 1);
    assert_eq!(t.s.innings()[0].batting, 1);
}

#[test]
fn captains_out_of_time_before_an_innings_give_the_default_order_and_openers_each_for_himself() {
    let mut t = T::new(2, None);
    t.ev(Event::Toss {
        toss: Shuffled {
            stream: 0,
            order: vec![0, 1],
        },
    });
    t.deal_bat(&[""]);
    t.deal_bowl(&[""]);
    t.as_(0, Action::Elect { to: Choice::Bat });
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0), Seat(1)]);
    let order: Vec<usize> = (0..ELEVEN).collect();
    assert_eq!(
        default(&t, 0),
        Some(serde_json::json!({"type": "batting_order", "order": names(&t, 0, &order)}))
    );
    assert_eq!(
        default(&t, 1),
        Some(serde_json::json!({"type": "opening_bowlers", "bowlers": names(&t, 1, &[10, 9])}))
    );
    play_default(&mut t, 1);
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0)]);
    play_default(&mut t, 0);
    assert_eq!(t.s.due(), Due::Ball);
}

#[test]
fn in_patience_the_one_seat_out_of_time_gives_the_order_then_the_openers() {
    let mut t = T::new(1, None);
    t.ev(Event::Toss {
        toss: Shuffled {
            stream: 0,
            order: vec![0, 1],
        },
    });
    t.deal_bat(&[""]);
    t.deal_bowl(&[""]);
    play_default(&mut t, 0);
    assert_eq!(default(&t, 0).unwrap()["type"], "batting_order");
    play_default(&mut t, 0);
    assert_eq!(default(&t, 0).unwrap()["type"], "opening_bowlers");
    play_default(&mut t, 0);
    assert_eq!(t.s.due(), Due::Ball);
}

#[test]
fn a_fielding_captain_out_of_time_between_overs_names_the_bowler_of_the_over_before_last() {
    let mut t = T::scripted(2, None, &[EVENS], &[""]);
    for _ in 0..12 {
        t.act(Action::Play);
    }
    assert_eq!(t.s.due(), Due::Bowler(1));
    assert_eq!(
        default(&t, 1),
        Some(serde_json::json!({"type": "bowler", "name": "Players 11"}))
    );
    play_default(&mut t, 1);
    assert_eq!(t.s.bowler, Some(10));
}

#[test]
fn a_striker_out_of_time_plays_on_until_his_batsman_is_out() {
    let mut t = T::scripted(1, None, &["2 2 1 H 4 H"], &["no c"]);
    assert_eq!(default(&t, 0), Some(serde_json::json!({"type": "play_on"})));
    let events = play_default(&mut t, 0);
    assert!(matches!(events[0], Event::PlayingOn { seat: Seat(0) }));
    assert_eq!(t.s.current().wickets, 1);
    assert!(!t.s.plays_on(Seat(0)));
}

#[test]
fn in_the_team_game_the_batting_captain_out_of_time_while_another_seat_is_on_strike_plays_on_too() {
    // A single puts seat 2's batsman on strike: the match waits for seat 2's card, and for
    // the captain (seat 0), who may declare.
    let mut t = T::scripted(4, None, &["1 2 2", "2 2 2"], &[""]);
    t.act(Action::Play);
    assert_eq!(Googly::to_act(&t.s), vec![Seat(0), Seat(2)]);
    for seat in [0, 2] {
        assert_eq!(
            default(&t, seat),
            Some(serde_json::json!({"type": "play_on"}))
        );
    }
    let events = play_default(&mut t, 0);
    assert_eq!(events, vec![Event::PlayingOn { seat: Seat(0) }]);
    assert!(!t.s.innings()[0].declared);
    let balls = t.s.deliveries().len();
    play_default(&mut t, 2);
    assert!(t.s.deliveries().len() > balls);
}

#[test]
fn a_bowler_out_of_time_after_a_hows_that_plays_on_and_turns_his_card() {
    let mut t = T::scripted(2, None, &["H 2"], &["no"]);
    t.act(Action::Play);
    assert_eq!(t.s.due(), Due::Appeal);
    assert_eq!(default(&t, 1), Some(serde_json::json!({"type": "play_on"})));
    assert_eq!(default(&t, 0), None);
    let events = play_default(&mut t, 1);
    assert!(events.iter().any(|e| matches!(e, Event::Verdict { .. })));
}

#[test]
fn a_captain_out_of_time_with_a_lead_of_150_enforces_the_follow_on() {
    let mut t = T::scripted(2, None, &[EVENS], &[""]);
    while t.s.current().runs < 168 {
        t.step_evens();
    }
    t.defaults();
    t.act(Action::Declare);
    innings_of(&mut t, "6 6 6");
    assert_eq!(t.s.due(), Due::FollowOn(0));
    assert_eq!(
        default(&t, 0),
        Some(serde_json::json!({"type": "follow_on", "enforce": true}))
    );
    play_default(&mut t, 0);
    assert_eq!(t.s.follow_on(), Some(true));
}

#[test]
fn captains_out_of_time_at_the_end_of_51_overs_do_not_claim_extra_time() {
    let mut t = to_fifty_one_overs();
    for seat in [0, 1] {
        assert_eq!(
            default(&t, seat),
            Some(serde_json::json!({"type": "extra_time", "claim": false}))
        );
    }
    play_default(&mut t, 1);
    play_default(&mut t, 0);
    assert_eq!(t.s.result(), Some(MatchResult::Draw));
    assert!(Seat::all(2).all(|s| default(&t, s.0).is_none()));
}

#[test]
fn default_moves_alone_play_a_team_match_to_its_end_and_the_scorer_never_has_one() {
    for (players, variant) in [(4, None), (3, None)] {
        let mut t = T::new(players, variant);
        for e in Googly::start(&t.s, &mut Chance::new(Seed([5; 32]), 1)) {
            t.ev(e);
        }
        let mut moves = 0;
        while let Some(&seat) = Googly::to_act(&t.s).last() {
            if players == 3 {
                assert_eq!(default(&t, 2), None);
            }
            play_default(&mut t, seat.0);
            moves += 1;
            assert!(moves < 2_000, "no end");
        }
        assert!(t.s.result().is_some());
    }
}

// --- Resigning and forfeiting (docs/rules/googly.md) ------------------------------------------

#[test]
fn at_a_table_of_two_a_captain_who_resigns_concedes_the_match_to_the_other() {
    let t = T::scripted(2, None, &[""], &[""]);
    let conceded = Googly::concede(&t.s, Seat(0));
    assert_eq!(conceded.ranking, vec![vec![Seat(1)], vec![Seat(0)]]);
    assert_eq!(conceded.points, vec![0, 12]);
}

#[test]
fn a_side_that_concedes_keeps_its_points_for_a_first_innings_lead() {
    let mut t = T::scripted(2, None, &[""], &[""]);
    innings_of(&mut t, "6");
    innings_of(&mut t, "4 4");
    // Players led on the first innings, 8 to 6, and then concede.
    let conceded = Googly::concede(&t.s, Seat(1));
    assert_eq!(conceded.ranking, vec![vec![Seat(0)], vec![Seat(1)]]);
    assert_eq!(conceded.points, vec![12, 4]);
    assert_eq!(conceded.figures["side_runs"], vec![6, 8]);
    assert_eq!(conceded.figures["side_wickets"], vec![0, 0]);
}

#[test]
fn in_the_team_game_a_resignation_concedes_for_the_side_the_winners_share_first_place_and_the_resigner_is_last(
) {
    let t = T::scripted(4, None, &[""], &[""]);
    let conceded = Googly::concede(&t.s, Seat(2));
    assert_eq!(
        conceded.ranking,
        vec![vec![Seat(1), Seat(3)], vec![Seat(0)], vec![Seat(2)]]
    );
    assert_eq!(conceded.points, vec![0, 12, 0, 12]);
}

#[test]
fn the_scorer_ranks_between_the_sides_and_a_resignation_in_patience_leaves_no_winner() {
    let t = T::scripted(3, None, &[""], &[""]);
    assert_eq!(
        Googly::concede(&t.s, Seat(0)).ranking,
        vec![vec![Seat(1)], vec![Seat(2)], vec![Seat(0)]]
    );
    // The scorer leaving decides nothing: the players share first place.
    assert_eq!(
        Googly::concede(&t.s, Seat(2)).ranking,
        vec![vec![Seat(0), Seat(1)], vec![Seat(2)]]
    );
    let t = T::scripted(3, Some(Variant::Patience), &[""], &[""]);
    let conceded = Googly::concede(&t.s, Seat(0));
    assert_eq!(
        conceded.ranking,
        vec![vec![Seat(1), Seat(2)], vec![Seat(0)]]
    );
    assert_eq!(conceded.points, vec![0, 0, 0]);
}

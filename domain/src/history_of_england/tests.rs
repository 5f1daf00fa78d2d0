//! One test per rule clause and per written decision (`docs/rules/history-of-england.md`).
//! Tables are dealt from a scripted pack order (series 1 unless said otherwise).

// Issue 9 lints: test tables and counts are small and fixed, so their casts cannot lose anything.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::*;
use crate::chance::Seed;
use crate::engine::{self, MoveRefused, OutOfTurn};
use crate::game::Player;

/// A series-1 card by its id without the `s1-` prefix.
fn card(name: &str) -> Card {
    Card::from_id(&format!("s1-{name}")).unwrap_or_else(|| panic!("no card {name}"))
}

fn setup(players: usize, series: u8) -> Setup<Options> {
    Setup {
        players: (0..players)
            .map(|i| Player {
                name: format!("p{i}"),
            })
            .collect(),
        options: Options { series },
        rules_version: crate::game::RULES_VERSION,
    }
}

/// Deals series 1 so that each seat holds the cards named for it, topped up to seven with
/// "filler": cards of sets no one names, one of a set to a hand and no Crown while the other
/// cards last (at three players a filler hand holds neither a Crown nor a pair).
/// The pool starts with the cards named for it; the rest of the pack follows in catalogue order.
fn table(hands: &[&[&str]], pool: &[&str]) -> State {
    let pack = Pack::of(1);
    let players = hands.len();
    let named: Vec<Card> = hands
        .iter()
        .flat_map(|h| h.iter())
        .chain(pool)
        .map(|n| card(n))
        .collect();
    let named_sets: BTreeSet<u8> = named.iter().map(|c| CARDS[c.0 as usize].reign).collect();
    let mut spare: Vec<Card> = pack
        .cards(ALL_CARDS)
        .into_iter()
        .filter(|c| !named_sets.contains(&CARDS[c.0 as usize].reign))
        .collect();
    spare.sort_by_key(|c| c.is_crown());
    let mut dealt: Vec<Vec<Card>> = Vec::new();
    for hand in hands {
        let mut cards: Vec<Card> = hand.iter().map(|n| card(n)).collect();
        while cards.len() < HAND_SIZE {
            let sets: BTreeSet<u8> = cards.iter().map(|c| CARDS[c.0 as usize].reign).collect();
            let i = spare
                .iter()
                .position(|c| !sets.contains(&CARDS[c.0 as usize].reign))
                .unwrap_or(0);
            cards.push(spare.remove(i));
        }
        dealt.push(cards);
    }
    let mut order: Vec<Card> = Vec::new();
    for j in 0..HAND_SIZE {
        for hand in &dealt {
            order.push(hand[j]);
        }
    }
    order.extend(pool.iter().map(|n| card(n)));
    for c in pack.cards(ALL_CARDS) {
        if !order.contains(&c) {
            order.push(c);
        }
    }
    assert_eq!(order.len(), PACK_SIZE);
    let state = HistoryOfEngland::new(&setup(players, 1)).expect("table");
    HistoryOfEngland::evolve(
        state,
        &Event::Deal {
            players: players as u8,
            shuffled: Shuffled { stream: 0, order },
        },
    )
}

fn chance() -> Chance {
    Chance::new(Seed([7; 32]), 1)
}

/// Decides and applies a move given as JSON.
fn play(state: &State, seat: u8, action: Value) -> Result<(State, Vec<Event>), RuleError> {
    let action: Action = serde_json::from_value(action).expect("an action");
    let events = HistoryOfEngland::decide(state, Seat(seat), &action, &mut chance())?;
    let next = events.iter().fold(state.clone(), HistoryOfEngland::evolve);
    HistoryOfEngland::check_invariants(&next).expect("invariants");
    Ok((next, events))
}

/// The framework's refusal of a move out of turn, before the deal or after the end.
fn out_of_turn(state: &State, seat: u8, action: Value) -> OutOfTurn {
    let action: Action = serde_json::from_value(action).expect("an action");
    match engine::decide::<HistoryOfEngland>(state, Seat(seat), &action, &mut chance()) {
        Err(MoveRefused::OutOfTurn(refusal)) => refusal,
        other => panic!("{action:?} by seat {seat} was not refused out of turn: {other:?}"),
    }
}

fn ask(state: &State, seat: u8, target: u8, name: &str) -> Result<(State, Vec<Event>), RuleError> {
    play(
        state,
        seat,
        json!({"type": "ask", "seat": target, "card": card(name)}),
    )
}

fn ask_crown(
    state: &State,
    seat: u8,
    target: u8,
    crown: &str,
    show: [&str; 2],
) -> Result<(State, Vec<Event>), RuleError> {
    play(
        state,
        seat,
        json!({"type": "ask", "seat": target, "card": card(crown),
               "show": [card(show[0]), card(show[1])]}),
    )
}

fn holds(state: &State, seat: u8, name: &str) -> bool {
    let local = Pack::of(1).local(card(name)).expect("series 1");
    state.hand(seat) & bit(local) != 0
}

fn answer(events: &[Event]) -> Answer {
    match events.first() {
        Some(Event::Asked { answer, .. }) => *answer,
        other => panic!("not an ask: {other:?}"),
    }
}

/// Plays one turn that ends at once: an ask the asked player must refuse (or a pass).
fn refused_turn(state: &State) -> (State, Vec<Event>) {
    let seat = state.turn;
    for mut action in engine::legal_actions_json::<HistoryOfEngland>(state, Seat(seat)) {
        if action["type"] == "pass" {
            return play(state, seat, action).expect("pass");
        }
        if let Some(show) = action.get("show") {
            // A Crown asked of a player without it is refused before anything is shown; the
            // first two cards offered to show will do (the hand's first two, unless two of
            // the set must be shown).
            let from = show["from"].as_array().cloned().unwrap_or_default();
            action["show"] = json!([from[0], from[1]]);
        }
        let target = action["seat"].as_u64().expect("seat") as u8;
        let wanted: Card = serde_json::from_value(action["card"].clone()).expect("card");
        let local = Pack::of(state.series).local(wanted).expect("local");
        if state.hand(target) & bit(local) == 0 {
            return play(state, seat, action).expect("refusal");
        }
    }
    panic!("no refusable ask for seat {seat}");
}

fn mentions(value: &Value, name: &str) -> bool {
    value
        .to_string()
        .contains(&format!("\"{}\"", card(name).id()))
}

// ---- The table and the pack ----

#[test]
fn the_game_is_for_three_to_eight_players_and_three_series() {
    for players in [2, 9] {
        assert!(matches!(
            HistoryOfEngland::new(&setup(players, 1)),
            Err(SetupError::PlayerCount { .. })
        ));
    }
    for players in 3..=8 {
        assert!(HistoryOfEngland::new(&setup(players, 3)).is_ok());
    }
    assert!(matches!(
        HistoryOfEngland::new(&setup(4, 4)),
        Err(SetupError::Options(_))
    ));
    assert_eq!(Options::default().series, 1);
    let bad: Result<Options, _> = serde_json::from_value(json!({"series": 2, "speed": 1}));
    assert!(bad.is_err(), "unknown options are refused");
}

#[test]
fn each_series_is_a_complete_pack_of_66_cards_one_crown_to_a_set() {
    let mut ids = BTreeSet::new();
    for series in 1..=3 {
        let pack = Pack::of(series);
        let mut total = 0;
        for reign in pack.reigns {
            assert_eq!(reign.series, series);
            let cards = pack.cards(pack.set(reign));
            assert_eq!(cards.len(), usize::from(reign.len));
            assert!(cards[0].is_crown(), "{} starts with its Crown", reign.name);
            assert_eq!(cards.iter().filter(|c| c.is_crown()).count(), 1);
            assert!(
                reign.len >= 3,
                "a set of fewer than three cannot be claimed by showing two"
            );
            total += cards.len();
        }
        assert_eq!(total, PACK_SIZE, "series {series}");
        assert_eq!(pack.crowns().count_ones() as usize, pack.reigns.len());
        for c in pack.cards(ALL_CARDS) {
            assert!(ids.insert(c.id()), "{} is unique", c.id());
        }
    }
    assert_eq!(
        HistoryOfEngland::cards().as_array().map(Vec::len),
        Some(198)
    );
}

#[test]
fn the_deal_gives_seven_cards_each_from_the_dealers_left_and_pools_the_rest() {
    let state = table(
        &[&["crown-john"], &["magna-carta"], &["the-interdict"]],
        &[],
    );
    assert!(holds(&state, 0, "crown-john"));
    assert!(holds(&state, 1, "magna-carta"));
    assert!(holds(&state, 2, "the-interdict"));
    for seat in 0..3 {
        assert_eq!(state.hand(seat).count_ones() as usize, HAND_SIZE);
    }
    assert_eq!(state.pool_left(), PACK_SIZE - 21);
    assert_eq!(HistoryOfEngland::to_act(&state), vec![Seat(0)]);
}

#[test]
fn a_fixed_seed_gives_this_exact_deal() {
    // Golden: if this changes, recorded games would no longer replay from their seeds.
    let state = HistoryOfEngland::new(&setup(4, 2)).expect("table");
    let events = HistoryOfEngland::start(&state, &mut Chance::new(Seed([0; 32]), 1));
    let Event::Deal { shuffled, .. } = &events[0] else {
        panic!("a deal")
    };
    assert_eq!(shuffled.stream, 1 << 16);
    let first: Vec<&str> = shuffled.order.iter().take(5).map(|c| c.id()).collect();
    assert_eq!(first, GOLDEN_TOP_FIVE);
    let state = HistoryOfEngland::evolve(state, &events[0]);
    assert_eq!(Pack::of(2).ids(state.hand(0)), GOLDEN_SEAT_0);
}

const GOLDEN_TOP_FIVE: [&str; 5] = [
    "s2-buckinghams-rebellion",
    "s2-wyatts-rebellion",
    "s2-cromwell-made-lord-protector",
    "s2-battle-of-edgehill",
    "s2-defeat-of-the-spanish-armada",
];
/// Seat 0 gets cards 1, 5, 9, ... of the order, shown here in pack order.
const GOLDEN_SEAT_0: [&str; 7] = [
    "s2-richard-of-gloucester-lord-protector",
    "s2-buckinghams-rebellion",
    "s2-john-cabots-voyage",
    "s2-crown-henry-viii",
    "s2-pilgrimage-of-grace",
    "s2-defeat-of-the-spanish-armada",
    "s2-monmouths-rebellion-and-sedgemoor",
];

#[test]
fn the_deal_shows_each_player_their_own_hand_and_nobody_the_pool() {
    let state = table(
        &[&["crown-john"], &["magna-carta"], &["the-interdict"]],
        &[],
    );
    let fresh = HistoryOfEngland::new(&setup(3, 1)).expect("table");
    let events = HistoryOfEngland::start(&fresh, &mut chance());
    let dealt = HistoryOfEngland::evolve(fresh, &events[0]);
    let seen = HistoryOfEngland::redact(&events[0], Viewer::Seat(Seat(1)));
    let hand: Vec<Card> = serde_json::from_value(seen["hand"].clone()).expect("hand");
    assert_eq!(hand.len(), HAND_SIZE);
    let mut sorted = hand.clone();
    sorted.sort();
    assert_eq!(sorted, Pack::of(1).cards(dealt.hand(1)));
    assert_eq!(seen["pool"], json!(PACK_SIZE - 21));
    assert!(seen.get("shuffled").is_none());
    let spectator = HistoryOfEngland::redact(&events[0], Viewer::Spectator);
    assert!(spectator.get("hand").is_none() && spectator.get("shuffled").is_none());
    // The view: own hand private, the others' only counted.
    let view = engine::view_json::<HistoryOfEngland>(&state, Viewer::Seat(Seat(1)));
    assert!(mentions(
        &view.private.clone().expect("private"),
        "magna-carta"
    ));
    assert!(!mentions(&json!(view.seats), "crown-john"));
    assert_eq!(view.seats[0]["cards"], json!(7));
}

// ---- What may be asked ----

#[test]
fn a_crown_holder_may_ask_for_any_card_of_its_set_and_asks_again_after_success() {
    let state = table(
        &[&["crown-john"], &["magna-carta", "the-interdict"], &[]],
        &[],
    );
    let (state, events) = ask(&state, 0, 1, "magna-carta").expect("allowed");
    assert_eq!(answer(&events), Answer::Given);
    assert!(holds(&state, 0, "magna-carta") && !holds(&state, 1, "magna-carta"));
    assert_eq!(
        HistoryOfEngland::to_act(&state),
        vec![Seat(0)],
        "asks again"
    );
    let (state, events) = ask(&state, 0, 1, "the-interdict").expect("allowed");
    assert_eq!(answer(&events), Answer::Given);
    assert_eq!(state.turn, 0);
}

#[test]
fn after_a_success_the_asker_may_ask_any_player() {
    let state = table(
        &[&["crown-john"], &["magna-carta"], &["the-interdict"]],
        &[],
    );
    let (state, _) = ask(&state, 0, 1, "magna-carta").expect("allowed");
    let (state, events) = ask(&state, 0, 2, "the-interdict").expect("another player");
    assert_eq!(answer(&events), Answer::Given);
    assert!(holds(&state, 0, "the-interdict"));
}

#[test]
fn with_a_crown_to_ask_under_a_card_of_another_set_may_not_be_asked_for() {
    let state = table(&[&["crown-john"], &["third-crusade"], &[]], &[]);
    assert_eq!(
        ask(&state, 0, 1, "third-crusade").map(|_| ()),
        Err(RuleError::NotYourSet)
    );
    assert_eq!(RuleError::NotYourSet.kind(), RefusalKind::Forbidden);
}

#[test]
fn a_claimable_pair_also_rules_out_asking_for_cards_of_other_sets() {
    let state = table(
        &[&["third-crusade", "siege-of-chalus"], &["magna-carta"], &[]],
        &[],
    );
    assert_eq!(
        ask(&state, 0, 1, "magna-carta").map(|_| ()),
        Err(RuleError::NotYourSet)
    );
    // Nor may the pair's own non-Crown cards be asked for: only its Crown.
    assert_eq!(
        ask(&state, 0, 1, "captivity-and-kings-ransom").map(|_| ()),
        Err(RuleError::NotYourSet)
    );
}

#[test]
fn with_neither_any_card_but_a_crown_may_be_asked_for() {
    // Filler hands hold neither a Crown nor two cards of a set.
    let state = table(&[&[], &["magna-carta"], &[]], &[]);
    let askable = state.askable(0);
    assert!(askable.neither);
    let (state, events) = ask(&state, 0, 1, "magna-carta").expect("any card");
    assert_eq!(answer(&events), Answer::Given);
    assert!(holds(&state, 0, "magna-carta"));
    assert_eq!(askable.cards & Pack::of(1).crowns(), 0, "never a Crown");
}

#[test]
fn a_crown_whose_set_is_complete_in_hand_leaves_its_holder_with_neither() {
    let state = table(
        &[
            &[
                "crown-william-ii",
                "westminster-hall-built",
                "death-in-the-new-forest",
            ],
            &["magna-carta"],
            &[],
        ],
        &[],
    );
    assert!(state.askable(0).neither);
    assert_eq!(
        answer(&ask(&state, 0, 1, "magna-carta").expect("any card").1),
        Answer::Given
    );
}

/// Seat 0 claims the Crown of Henry II from seat 2; seat 1 holds two more cards of its set.
fn henry_ii_claimed() -> State {
    let state = table(
        &[
            &["constitutions-of-clarendon", "assize-of-clarendon-juries"],
            &["murder-of-thomas-becket", "henry-ii-lands-in-ireland"],
            &["crown-henry-ii"],
        ],
        &[],
    );
    let (state, events) = ask_crown(
        &state,
        0,
        2,
        "crown-henry-ii",
        ["constitutions-of-clarendon", "assize-of-clarendon-juries"],
    )
    .expect("claim");
    assert_eq!(answer(&events), Answer::Given);
    // Seat 0 ends its turn with a refusal; seat 1 is to ask.
    let (state, _) = ask(&state, 0, 2, "murder-of-thomas-becket").expect("under the Crown");
    assert_eq!(state.turn, 1);
    state
}

#[test]
fn a_pair_under_a_crown_already_won_does_not_count() {
    let state = henry_ii_claimed();
    assert!(
        state.askable(1).neither,
        "the pair's Crown cannot be claimed"
    );
    let (_, events) = ask(&state, 1, 2, "magna-carta").expect("any card");
    assert_eq!(answer(&events), Answer::Refused);
}

#[test]
fn no_one_asks_for_a_card_they_hold_or_asks_themselves() {
    let state = table(
        &[&["crown-john", "magna-carta"], &["the-interdict"], &[]],
        &[],
    );
    assert_eq!(
        ask(&state, 0, 1, "magna-carta").map(|_| ()),
        Err(RuleError::AlreadyHeld(card("magna-carta").id()))
    );
    assert_eq!(
        ask(&state, 0, 0, "the-interdict").map(|_| ()),
        Err(RuleError::AskingYourself)
    );
    assert_eq!(
        ask(&state, 0, 5, "the-interdict").map(|_| ()),
        Err(RuleError::NoSuchPlayer(5))
    );
    let other_series = Card::from_id("s2-crown-henry-viii").expect("series 2");
    assert_eq!(
        play(
            &state,
            0,
            json!({"type": "ask", "seat": 1, "card": other_series})
        )
        .map(|_| ()),
        Err(RuleError::NotInSeries(other_series.id()))
    );
}

#[test]
fn a_player_with_no_cards_cannot_be_asked_but_still_takes_turns_and_asks() {
    // Seat 0 holds the Crowns of three big sets; seats 1 and 2 hold nothing else.
    let state = table(
        &[
            &[
                "crown-william-i",
                "crown-edward-iii",
                "crown-henry-ii",
                "crown-john",
                "crown-stephen",
                "crown-henry-iv",
                "crown-henry-v",
            ],
            &[
                "battle-of-hastings",
                "harrying-of-the-north",
                "hereward-the-wake-at-ely",
                "white-tower-tower-of-london-begun",
                "domesday-book",
                "battle-of-crecy",
                "burghers-of-calais",
            ],
            &[
                "order-of-the-garter",
                "the-black-death",
                "black-prince-at-poitiers",
                "constitutions-of-clarendon",
                "assize-of-clarendon-juries",
                "murder-of-thomas-becket",
                "henry-ii-lands-in-ireland",
            ],
        ],
        &["magna-carta"],
    );
    let mut state = state;
    for (target, names) in [
        (
            1,
            [
                "battle-of-hastings",
                "harrying-of-the-north",
                "hereward-the-wake-at-ely",
                "white-tower-tower-of-london-begun",
                "domesday-book",
                "battle-of-crecy",
                "burghers-of-calais",
            ],
        ),
        (
            2,
            [
                "order-of-the-garter",
                "the-black-death",
                "black-prince-at-poitiers",
                "constitutions-of-clarendon",
                "assize-of-clarendon-juries",
                "murder-of-thomas-becket",
                "henry-ii-lands-in-ireland",
            ],
        ),
    ] {
        for name in names {
            let (next, events) = ask(&state, 0, target, name).expect("under a Crown");
            assert_eq!(answer(&events), Answer::Given);
            state = next;
        }
    }
    assert_eq!(state.hand(1), 0);
    assert_eq!(
        ask(&state, 0, 1, "treasure-lost-in-the-wash").map(|_| ()),
        Err(RuleError::EmptyHanded(1))
    );
    // Nobody to ask: the only move is to pass, which draws like a refusal.
    assert_eq!(
        engine::legal_actions_json::<HistoryOfEngland>(&state, Seat(0)),
        vec![json!({"type": "pass"})]
    );
    let (state, events) = play(&state, 0, json!({"type": "pass"})).expect("pass");
    assert!(events.contains(&Event::Drew {
        seat: Seat(0),
        card: card("magna-carta")
    }));
    assert_eq!(state.turn, 1);
    // Seat 1 has no cards but asks, for any card but a Crown (it has neither, and has no
    // two cards to show).
    assert!(state.askable(1).neither);
    assert_eq!(state.askable(1).crowns, 0);
    let claim = ask_crown(&state, 1, 0, "crown-john", ["magna-carta", "the-interdict"]);
    assert_eq!(claim.map(|_| ()), Err(RuleError::ShowNotHeld));
    let (_, events) = ask(&state, 1, 0, "domesday-book").expect("an empty hand asks");
    assert_eq!(answer(&events), Answer::Given);
}

#[test]
fn passing_is_refused_while_something_may_be_asked() {
    let state = table(&[&[], &[], &[]], &[]);
    assert_eq!(
        play(&state, 0, json!({"type": "pass"})).map(|_| ()),
        Err(RuleError::CannotPass)
    );
}

// ---- Crowns: showing, bluffing, forfeiting ----

#[test]
fn asking_for_a_crown_names_two_different_cards_of_ones_hand_to_show() {
    let state = table(
        &[
            &["third-crusade", "siege-of-chalus"],
            &["crown-richard-i"],
            &[],
        ],
        &[],
    );
    let plain = ask(&state, 0, 1, "crown-richard-i").map(|_| ());
    assert_eq!(plain, Err(RuleError::ShowTwoCards));
    let same = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["third-crusade", "third-crusade"],
    );
    assert_eq!(same.map(|_| ()), Err(RuleError::ShowTwoCards));
    let not_held = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["third-crusade", "magna-carta"],
    );
    assert_eq!(not_held.map(|_| ()), Err(RuleError::ShowNotHeld));
    let shown_for_plain_card = play(
        &state,
        0,
        json!({"type": "ask", "seat": 1, "card": card("magna-carta"),
               "show": [card("third-crusade"), card("siege-of-chalus")]}),
    );
    assert_eq!(
        shown_for_plain_card.map(|_| ()),
        Err(RuleError::ShowOnlyForCrown)
    );
}

#[test]
fn an_honest_claim_shows_the_two_cards_to_the_asked_player_alone_and_wins_the_crown() {
    let state = table(
        &[
            &["third-crusade", "siege-of-chalus"],
            &["crown-richard-i"],
            &[],
        ],
        &[],
    );
    let (state, events) = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["third-crusade", "siege-of-chalus"],
    )
    .expect("claim");
    assert_eq!(answer(&events), Answer::Given);
    assert!(holds(&state, 0, "crown-richard-i"));
    assert_eq!(state.turn, 0, "a won Crown is a success: ask again");
    let asked = HistoryOfEngland::redact(&events[0], Viewer::Seat(Seat(1)));
    assert!(mentions(&asked, "third-crusade") && mentions(&asked, "siege-of-chalus"));
    for viewer in [Viewer::Seat(Seat(2)), Viewer::Spectator] {
        let seen = HistoryOfEngland::redact(&events[0], viewer);
        assert!(
            !mentions(&seen, "third-crusade"),
            "{viewer:?} saw the shown cards"
        );
        assert!(mentions(&seen, "crown-richard-i"), "the ask is public");
    }
    let view = engine::view_json::<HistoryOfEngland>(&state, Viewer::Seat(Seat(1)));
    assert!(mentions(
        &view.private.expect("private")["shown_to_you"],
        "siege-of-chalus"
    ));
}

#[test]
fn a_caught_bluff_with_one_card_of_the_set_forfeits_that_card_and_ends_the_asking() {
    let state = table(
        &[&["third-crusade", "magna-carta"], &["crown-richard-i"], &[]],
        &["treaty-of-wallingford"],
    );
    let (state, events) = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["third-crusade", "magna-carta"],
    )
    .expect("a bluff is legal");
    assert_eq!(answer(&events), Answer::BluffCaught);
    assert!(
        holds(&state, 1, "third-crusade"),
        "the card of the set is forfeited"
    );
    assert!(
        holds(&state, 0, "magna-carta"),
        "the other shown card is kept"
    );
    assert!(
        holds(&state, 1, "crown-richard-i"),
        "the Crown stays where it was"
    );
    assert!(holds(&state, 0, "treaty-of-wallingford"), "the asker draws");
    assert_eq!(state.turn, 1, "the turn passes left");
    assert_eq!(state.protected, 0);
    // The forfeit: asker and asked see the card; the others only that one card went.
    let other = HistoryOfEngland::redact(&events[0], Viewer::Seat(Seat(2)));
    assert_eq!(other["forfeited"], json!(1));
    assert!(!mentions(&other, "third-crusade") && !mentions(&other, "magna-carta"));
    let asked = HistoryOfEngland::redact(&events[0], Viewer::Seat(Seat(1)));
    assert!(mentions(&asked["forfeit"], "third-crusade"));
    assert!(mentions(&asked["show"], "magna-carta"));
}

#[test]
fn a_caught_bluff_with_no_card_of_the_set_forfeits_both_shown_cards() {
    let state = table(
        &[&["magna-carta", "the-interdict"], &["crown-richard-i"], &[]],
        &[],
    );
    let (state, events) = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["magna-carta", "the-interdict"],
    )
    .expect("a bluff is legal");
    assert_eq!(answer(&events), Answer::BluffCaught);
    assert!(holds(&state, 1, "magna-carta") && holds(&state, 1, "the-interdict"));
    assert!(holds(&state, 1, "crown-richard-i"));
    let spectator = HistoryOfEngland::redact(&events[0], Viewer::Spectator);
    assert_eq!(spectator["forfeited"], json!(2));
    assert!(spectator.get("forfeit").is_none() && spectator.get("show").is_none());
}

/// Seat 0 holds two cards of Richard I's set and Magna Carta; seat 1 holds his Crown.
fn an_honest_pair(version: u32) -> State {
    let mut state = table(
        &[
            &["third-crusade", "siege-of-chalus", "magna-carta"],
            &["crown-richard-i"],
            &[],
        ],
        &[],
    );
    state.rules = Rules::of(version);
    state
}

#[test]
fn from_rules_version_2_a_player_holding_two_cards_of_the_set_must_show_two_of_them() {
    // "A Player with two cards of the same set, asking for the Crown Card, must show the
    // Player they ask the two cards belonging to this set": she can produce them, so she
    // shows them, and her claim cannot fail by the cards she names.
    let state = an_honest_pair(crate::game::RULES_VERSION);
    assert_eq!(
        ask_crown(
            &state,
            0,
            1,
            "crown-richard-i",
            ["third-crusade", "magna-carta"]
        )
        .map(|(_, events)| events),
        Err(RuleError::ShowTheSet(card("crown-richard-i").id()))
    );
    assert_eq!(
        RuleError::ShowTheSet("").rule(),
        "show-two-cards-of-the-set"
    );
    let offered = engine::legal_actions_json::<HistoryOfEngland>(&state, Seat(0));
    let claim = offered
        .iter()
        .find(|a| a["card"] == json!(card("crown-richard-i")) && a["seat"] == json!(1))
        .expect("the claim is offered");
    assert_eq!(
        claim["show"],
        json!({"choose": 2, "from": [card("third-crusade"), card("siege-of-chalus")]}),
        "only the cards of the set are offered to show"
    );
    let (state, events) = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["siege-of-chalus", "third-crusade"],
    )
    .expect("an honest claim");
    assert_eq!(answer(&events), Answer::Given);
    assert!(holds(&state, 0, "crown-richard-i") && holds(&state, 0, "magna-carta"));
}

#[test]
fn from_rules_version_2_a_player_without_two_cards_of_the_set_may_still_bluff() {
    // Any two cards of her hand are offered, and a caught bluff forfeits as the sheet says.
    let mut state = table(
        &[&["third-crusade", "magna-carta"], &["crown-richard-i"], &[]],
        &[],
    );
    state.rules = Rules::of(crate::game::RULES_VERSION);
    let offered = engine::legal_actions_json::<HistoryOfEngland>(&state, Seat(0));
    let claim = offered
        .iter()
        .find(|a| a["card"] == json!(card("crown-richard-i")))
        .expect("the claim is offered");
    assert_eq!(claim["show"]["from"], json!(Pack::of(1).ids(state.hand(0))));
    let (_, events) = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["third-crusade", "magna-carta"],
    )
    .expect("a bluff");
    assert_eq!(answer(&events), Answer::BluffCaught);
}

#[test]
fn under_rules_version_1_an_honest_pair_showing_the_wrong_card_is_judged_by_the_cards_shown() {
    let state = an_honest_pair(1);
    let (state, events) = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["third-crusade", "magna-carta"],
    )
    .expect("legal");
    assert_eq!(answer(&events), Answer::BluffCaught);
    assert!(holds(&state, 1, "third-crusade") && holds(&state, 0, "siege-of-chalus"));
}

#[test]
fn a_bluff_on_a_player_without_the_crown_is_refused_and_nothing_is_shown() {
    let state = table(
        &[&["magna-carta", "the-interdict"], &[], &["crown-richard-i"]],
        &[],
    );
    let (state, events) = ask_crown(
        &state,
        0,
        1,
        "crown-richard-i",
        ["magna-carta", "the-interdict"],
    )
    .expect("legal");
    assert_eq!(answer(&events), Answer::Refused);
    assert!(holds(&state, 0, "magna-carta") && holds(&state, 0, "the-interdict"));
    let asked = HistoryOfEngland::redact(&events[0], Viewer::Seat(Seat(1)));
    assert!(
        asked.get("show").is_none(),
        "cards are shown only to a Crown's holder"
    );
    assert_eq!(state.shown[1], None);
}

#[test]
fn a_crown_won_by_asking_can_never_be_claimed_again() {
    let state = henry_ii_claimed();
    assert!(holds(&state, 0, "crown-henry-ii"));
    let claim = ask_crown(
        &state,
        1,
        0,
        "crown-henry-ii",
        ["murder-of-thomas-becket", "henry-ii-lands-in-ireland"],
    );
    assert_eq!(
        claim.map(|_| ()),
        Err(RuleError::CrownProtected(card("crown-henry-ii").id()))
    );
    let offered = engine::legal_actions_json::<HistoryOfEngland>(&state, Seat(1));
    assert!(!offered
        .iter()
        .any(|a| a["card"] == json!(card("crown-henry-ii"))));
    let view = engine::view_json::<HistoryOfEngland>(&state, Viewer::Spectator);
    assert_eq!(
        view.public["protected_crowns"],
        json!([card("crown-henry-ii")])
    );
}

#[test]
fn a_dealt_or_drawn_crown_is_not_protected() {
    let state = table(
        &[
            &["third-crusade", "siege-of-chalus"],
            &["crown-richard-i"],
            &[],
        ],
        &[],
    );
    assert_eq!(state.protected, 0);
    let offered = engine::legal_actions_json::<HistoryOfEngland>(&state, Seat(0));
    assert!(offered
        .iter()
        .any(|a| a["card"] == json!(card("crown-richard-i"))));
}

#[test]
fn every_claimable_crown_is_offered_with_the_whole_hand_to_show_so_bluffs_stay_possible() {
    // Seat 0 holds no two cards of one set (the filler deals one of a set to a hand), so
    // every Crown she names is a bluff, and she may show any two of her cards.
    let state = table(&[&["magna-carta"], &[], &[]], &[]);
    let offered = engine::legal_actions_json::<HistoryOfEngland>(&state, Seat(0));
    let crowns: Vec<&Value> = offered.iter().filter(|a| a.get("show").is_some()).collect();
    assert_eq!(
        crowns.len(),
        2 * Pack::of(1).reigns.len(),
        "16 Crowns of 2 players"
    );
    let hand = json!(Pack::of(1).ids(state.hand(0)));
    assert!(crowns
        .iter()
        .all(|a| a["show"] == json!({"choose": 2, "from": hand})));
}

// ---- Completed sets ----

#[test]
fn completed_sets_stay_in_hand_and_can_be_asked_for() {
    let state = table(
        &[
            &[],
            &[
                "crown-william-ii",
                "westminster-hall-built",
                "death-in-the-new-forest",
            ],
            &[],
        ],
        &[],
    );
    let (state, events) = ask(&state, 0, 1, "westminster-hall-built").expect("any card");
    assert_eq!(answer(&events), Answer::Given);
    assert!(holds(&state, 0, "westminster-hall-built"));
}

// ---- Refusals, the pool and the end ----

#[test]
fn a_refusal_ends_the_asking_the_asker_draws_the_top_card_and_the_turn_passes_left() {
    let state = table(
        &[&["crown-john"], &[], &["magna-carta"]],
        &["battle-of-lewes"],
    );
    let (state, events) = ask(&state, 0, 1, "magna-carta").expect("allowed");
    assert_eq!(answer(&events), Answer::Refused);
    assert_eq!(
        events[1],
        Event::Drew {
            seat: Seat(0),
            card: card("battle-of-lewes")
        }
    );
    assert!(holds(&state, 0, "battle-of-lewes"));
    assert_eq!(HistoryOfEngland::to_act(&state), vec![Seat(1)]);
    assert_eq!(
        out_of_turn(
            &state,
            0,
            json!({"type": "ask", "seat": 2, "card": card("magna-carta")})
        ),
        OutOfTurn::NotYourMove {
            to_act: vec![Seat(1)]
        }
    );
    assert_eq!(
        OutOfTurn::NotYourMove { to_act: vec![] }.kind(),
        RefusalKind::NotYourMove
    );
    // The drawn card is seen by the drawer alone.
    for viewer in [Viewer::Seat(Seat(1)), Viewer::Spectator] {
        assert!(!mentions(
            &HistoryOfEngland::redact(&events[1], viewer),
            "battle-of-lewes"
        ));
    }
    assert!(mentions(
        &HistoryOfEngland::redact(&events[1], Viewer::Seat(Seat(0))),
        "battle-of-lewes"
    ));
}

#[test]
fn a_refused_move_changes_nothing() {
    let state = table(&[&["crown-john"], &["third-crusade"], &[]], &[]);
    let before = state.clone();
    assert!(ask(&state, 0, 1, "third-crusade").is_err());
    assert_eq!(state, before);
}

/// Plays refused turns to the end; returns, for each turn, whether the hands were face up
/// when it began and whether it drew.
fn play_out_by_refusals(mut state: State) -> (State, Vec<(bool, bool)>, usize) {
    let mut turns = Vec::new();
    let mut exposed_at = None;
    while engine::outcome_json::<HistoryOfEngland>(&state).is_none() {
        let open = state.exposed();
        let (next, events) = refused_turn(&state);
        let drew = events.iter().any(|e| matches!(e, Event::Drew { .. }));
        turns.push((open, drew));
        if events
            .iter()
            .any(|e| matches!(e, Event::HandsExposed { .. }))
        {
            exposed_at = Some(turns.len());
        }
        state = next;
    }
    (state, turns, exposed_at.expect("hands exposed"))
}

#[test]
fn when_the_pool_is_empty_the_round_is_completed_then_as_many_rounds_as_players_face_up() {
    let players = 8;
    let hands: Vec<&[&str]> = vec![&[]; players];
    let (state, turns, exposed_at) = play_out_by_refusals(table(&hands, &[]));
    let pool = PACK_SIZE - HAND_SIZE * players; // 10: one draw per turn
    let last_drawer = (pool - 1) % players; // the turn that drew the last card
    let finishing = players - 1 - last_drawer; // the rest of that round
    assert!(turns[..pool].iter().all(|(open, drew)| !open && *drew));
    assert!(
        turns[pool..].iter().all(|(_, drew)| !drew),
        "no pool, no draw"
    );
    assert_eq!(
        exposed_at,
        pool + finishing,
        "face up once the round is complete"
    );
    assert!(turns[pool..exposed_at].iter().all(|(open, _)| !open));
    assert!(turns[exposed_at..].iter().all(|(open, _)| *open));
    assert_eq!(
        turns.len() - exposed_at,
        players * players,
        "8 rounds of 8 turns"
    );
    assert_eq!(HistoryOfEngland::to_act(&state), vec![]);
    assert!(engine::legal_actions_json::<HistoryOfEngland>(&state, Seat(0)).is_empty());
    assert_eq!(
        out_of_turn(
            &state,
            0,
            json!({"type": "ask", "seat": 1, "card": card("magna-carta")})
        ),
        OutOfTurn::GameOver
    );
}

/// The events of the turn that ends a game of three played out by refusals.
fn last_turn(version: u32) -> Vec<Event> {
    let mut state = table(&[&[], &[], &[]], &[]);
    state.rules = Rules::of(version);
    loop {
        let (next, events) = refused_turn(&state);
        if engine::outcome_json::<HistoryOfEngland>(&next).is_some() {
            return events;
        }
        state = next;
    }
}

#[test]
fn from_rules_version_2_the_turn_that_ends_the_game_names_no_next_seat() {
    let events = last_turn(crate::game::RULES_VERSION);
    let ended = events.last().expect("the turn's events");
    assert_eq!(
        *ended,
        Event::TurnEnded {
            seat: Seat(2),
            next: None
        }
    );
    assert_eq!(
        crate::engine::record(ended).data,
        json!({"seat": 2}),
        "nobody plays next"
    );
}

#[test]
fn under_rules_version_1_the_turn_that_ends_the_game_names_the_seat_on_the_left() {
    let events = last_turn(1);
    let ended = events.last().expect("the turn's events");
    assert_eq!(
        crate::engine::record(ended).data,
        json!({"seat": 2, "next": 0})
    );
    let parsed: Event = crate::engine::parse_recorded(&crate::engine::record(ended)).unwrap();
    assert_eq!(parsed, *ended, "the old shape still reads back");
}

#[test]
fn when_the_last_card_ends_a_round_the_hands_go_face_up_at_once() {
    let players = 3;
    let (_, turns, exposed_at) = play_out_by_refusals(table(&[&[], &[], &[]], &[]));
    let pool = PACK_SIZE - HAND_SIZE * players; // 45, drawn by seat 2: the round is complete
    assert_eq!((pool - 1) % players, players - 1);
    assert_eq!(exposed_at, pool);
    assert_eq!(turns.len(), pool + players * players);
}

#[test]
fn the_exposure_lays_every_hand_face_up_as_it_stands() {
    let mut state = table(&[&[], &[], &[]], &[]);
    loop {
        let (next, events) = refused_turn(&state);
        if let Some(Event::HandsExposed { hands }) = events.last() {
            for (seat, hand) in hands.iter().enumerate() {
                assert_eq!(*hand, Pack::of(1).cards(next.hand(seat as u8)));
            }
            let seen = HistoryOfEngland::redact(events.last().expect("event"), Viewer::Spectator);
            assert_eq!(seen["hands"].as_array().map(Vec::len), Some(3));
            let view = engine::view_json::<HistoryOfEngland>(&next, Viewer::Spectator);
            assert_eq!(view.seats[0]["hand"], json!(Pack::of(1).ids(next.hand(0))));
            assert_eq!(view.public["hands_exposed"], json!(true));
            break;
        }
        assert_eq!(
            engine::view_json::<HistoryOfEngland>(&next, Viewer::Spectator).seats[0].get("hand"),
            None
        );
        state = next;
    }
}

#[test]
fn face_up_hands_are_seen_by_everyone_and_so_is_every_later_show_and_forfeit() {
    let players = 3;
    let mut state = table(
        &[&["magna-carta", "the-interdict"], &["crown-richard-i"], &[]],
        &[],
    );
    while !state.exposed() {
        state = refused_turn(&state).0;
    }
    while state.turn != 0 {
        state = refused_turn(&state).0;
    }
    let view = engine::view_json::<HistoryOfEngland>(&state, Viewer::Spectator);
    assert!(
        mentions(&json!(view.seats), "magna-carta")
            && mentions(&json!(view.seats), "crown-richard-i")
    );
    let crown_holder = (0..players as u8)
        .find(|s| holds(&state, *s, "crown-richard-i"))
        .expect("someone");
    let (_, events) = ask_crown(
        &state,
        0,
        crown_holder,
        "crown-richard-i",
        ["magna-carta", "the-interdict"],
    )
    .expect("legal");
    assert_eq!(answer(&events), Answer::BluffCaught);
    let seen = HistoryOfEngland::redact(&events[0], Viewer::Spectator);
    assert!(mentions(&seen["show"], "magna-carta") && mentions(&seen["forfeit"], "the-interdict"));
}

// ---- Winning ----

#[test]
fn the_most_cards_in_completed_sets_wins_scoring_a_point_a_card() {
    let state = table(
        &[
            &[
                "crown-william-ii",
                "westminster-hall-built",
                "death-in-the-new-forest",
                "crown-stephen",
                "the-anarchy-empress-matilda",
                "treaty-of-wallingford",
            ],
            &[
                "crown-henry-i",
                "charter-of-liberties",
                "battle-of-tinchebrai",
                "wreck-of-the-white-ship",
            ],
            &[],
        ],
        &[],
    );
    let (state, _, _) = play_out_by_refusals(state);
    let result = engine::outcome_json::<HistoryOfEngland>(&state).expect("over");
    let own = |seat: u8| state.completed(seat).1;
    assert!(own(0) >= 6 && own(1) >= 4, "the sets were kept: {result}");
    assert_eq!(result["points"][0], json!(own(0)));
    let best = (0..3).map(own).max().expect("seats");
    let winners: Vec<u8> = (0..3).filter(|s| own(*s) == best).collect();
    assert_eq!(result["winners"], json!(winners));
    assert_eq!(
        result["completed_sets"][1]
            .as_array()
            .map(|a| !a.is_empty()),
        Some(true)
    );
}

#[test]
fn equal_greatest_holdings_share_the_win() {
    let state = table(
        &[
            &[
                "crown-william-ii",
                "westminster-hall-built",
                "death-in-the-new-forest",
            ],
            &[
                "crown-stephen",
                "the-anarchy-empress-matilda",
                "treaty-of-wallingford",
            ],
            &[],
        ],
        &[],
    );
    let (state, _, _) = play_out_by_refusals(state);
    let result = engine::outcome_json::<HistoryOfEngland>(&state).expect("over");
    if state.completed(0).1 == state.completed(1).1 && state.completed(2).1 < state.completed(0).1 {
        assert_eq!(result["winners"], json!([0, 1]));
    } else {
        panic!("the draws changed the holdings: {result}");
    }
}

#[test]
fn without_a_completed_set_nobody_wins() {
    let hands: Vec<&[&str]> = vec![&[]; 8];
    let (state, _, _) = play_out_by_refusals(table(&hands, &[]));
    let result = engine::outcome_json::<HistoryOfEngland>(&state).expect("over");
    if result["points"]
        .as_array()
        .expect("points")
        .iter()
        .all(|p| p == 0)
    {
        assert_eq!(result["winners"], json!([]));
    } else {
        panic!("a set was completed by the draws: {result}");
    }
}

// ---- When a seat's time runs out (docs/rules/history-of-england.md) ----

/// The move the server makes for `seat` when its clock runs out, as JSON.
fn default(state: &State, seat: u8) -> Option<Value> {
    engine::default_action::<HistoryOfEngland>(state, Seat(seat))
        .map(|a| serde_json::to_value(a).expect("json"))
}

/// Plays `seat`'s default move, which must exist and be accepted.
fn play_default(state: &State, seat: u8) -> (State, Vec<Event>) {
    let action = default(state, seat).unwrap_or_else(|| panic!("seat {seat} has no default"));
    play(state, seat, action).expect("the default is accepted")
}

#[test]
fn a_player_out_of_time_claims_a_crown_only_honestly_and_a_refusal_ends_her_turn_with_the_draw() {
    // Two of John's set, and his Crown is with seat 2: seat 1 (as full a hand, and nearest on
    // her left) is asked, refuses, and she draws.
    let state = table(
        &[&["the-interdict", "magna-carta"], &[], &["crown-john"]],
        &["battle-of-towton"],
    );
    assert_eq!(
        default(&state, 0),
        Some(json!({"type": "ask", "seat": 1, "card": card("crown-john"),
                    "show": [card("the-interdict"), card("magna-carta")]}))
    );
    assert_eq!((default(&state, 1), default(&state, 2)), (None, None));
    let (state, events) = play_default(&state, 0);
    assert_eq!(answer(&events), Answer::Refused);
    assert!(events.contains(&Event::Drew {
        seat: Seat(0),
        card: card("battle-of-towton")
    }));
    assert_eq!(state.turn, 1);
}

#[test]
fn a_player_out_of_time_asks_for_the_set_nearest_completion_in_her_hand() {
    // Richard I's set lacks two cards under her Crown; John's lacks three behind a claim.
    let state = table(
        &[
            &[
                "crown-richard-i",
                "third-crusade",
                "the-interdict",
                "magna-carta",
            ],
            &["captivity-and-kings-ransom"],
            &[],
        ],
        &[],
    );
    assert_eq!(
        default(&state, 0),
        Some(json!({"type": "ask", "seat": 1, "card": card("captivity-and-kings-ransom")}))
    );
}

#[test]
fn a_crown_claim_comes_before_a_card_for_a_set_as_near_completion() {
    // Richard I's set and Henry I's each lack two: the claim for Henry I's Crown comes first.
    let state = table(
        &[
            &[
                "crown-richard-i",
                "third-crusade",
                "charter-of-liberties",
                "battle-of-tinchebrai",
            ],
            &[],
            &[],
        ],
        &[],
    );
    let action = default(&state, 0).expect("a default");
    assert_eq!(action["card"], json!(card("crown-henry-i")));
    assert_eq!(
        action["show"],
        json!([card("charter-of-liberties"), card("battle-of-tinchebrai")])
    );
}

#[test]
fn after_a_success_a_player_out_of_time_asks_the_fullest_hand_not_the_one_that_holds_the_card() {
    let state = table(
        &[
            &["crown-richard-i", "third-crusade"],
            &["captivity-and-kings-ransom", "siege-of-chalus"],
            &[],
        ],
        &["battle-of-towton"],
    );
    let (state, events) = play_default(&state, 0);
    assert_eq!(answer(&events), Answer::Given);
    // Seat 1 now holds six cards and seat 2 seven: seat 2 is asked for the Siege of Chalus,
    // which seat 1 holds; she cannot see that, so she is refused and draws.
    assert_eq!(
        default(&state, 0),
        Some(json!({"type": "ask", "seat": 2, "card": card("siege-of-chalus")}))
    );
    let (state, events) = play_default(&state, 0);
    assert_eq!(answer(&events), Answer::Refused);
    assert_eq!(state.turn, 1);
}

#[test]
fn with_neither_a_crown_nor_a_pair_a_player_out_of_time_asks_for_a_card_and_never_bluffs() {
    // One card each of seven sets: the smallest, William II's and Stephen's, lack two; William
    // II's comes first in the pack.
    let state = table(
        &[
            &[
                "battle-of-hastings",
                "westminster-hall-built",
                "charter-of-liberties",
                "the-anarchy-empress-matilda",
                "constitutions-of-clarendon",
                "third-crusade",
                "loss-of-normandy",
            ],
            &[],
            &[],
        ],
        &[],
    );
    assert!(state.askable(0).neither && state.askable(0).crowns != 0);
    assert_eq!(
        default(&state, 0),
        Some(json!({"type": "ask", "seat": 1, "card": card("death-in-the-new-forest")}))
    );
}

#[test]
fn a_player_out_of_time_with_nobody_to_ask_passes() {
    let mut state = table(&[&[], &[], &[]], &[]);
    state.hands[0] |= state.hands[1] | state.hands[2];
    state.hands[1] = 0;
    state.hands[2] = 0;
    assert_eq!(default(&state, 0), Some(json!({"type": "pass"})));
    let (state, _) = play_default(&state, 0);
    assert_eq!(state.turn, 1);
}

#[test]
fn once_the_hands_are_face_up_a_player_out_of_time_asks_for_cards_she_sees_until_she_can_ask_no_more(
) {
    let mut state = table(
        &[&["crown-richard-i", "third-crusade"], &["magna-carta"], &[]],
        &[],
    );
    while !(state.exposed() && state.turn == 0) {
        state = refused_turn(&state).0;
    }
    let mut given = 0;
    while state.turn == 0 && !matches!(state.stage, Stage::Over) {
        let (next, events) = play_default(&state, 0);
        match events.first() {
            Some(Event::Asked { answer, .. }) => {
                assert_eq!(*answer, Answer::Given, "she asked for a card nobody showed");
                given += 1;
            }
            _ => assert!(!state.can_ask(0), "she passed with an ask open"),
        }
        state = next;
    }
    assert!(given > 0);
}

#[test]
fn nobody_has_a_default_once_the_game_is_over() {
    let (state, _, _) = play_out_by_refusals(table(&[&[], &[], &[]], &[]));
    assert!((0..3).all(|s| default(&state, s).is_none()));
}

// ---- Resigning and forfeiting (docs/rules/history-of-england.md) ----

#[test]
fn a_resignation_ranks_the_others_by_cards_in_completed_sets_equal_holdings_together_and_the_resigner_last(
) {
    let state = table(
        &[
            &[
                "crown-william-ii",
                "westminster-hall-built",
                "death-in-the-new-forest",
                "crown-stephen",
                "the-anarchy-empress-matilda",
                "treaty-of-wallingford",
            ],
            &[
                "crown-henry-i",
                "charter-of-liberties",
                "battle-of-tinchebrai",
                "wreck-of-the-white-ship",
            ],
            &[
                "crown-richard-i",
                "third-crusade",
                "captivity-and-kings-ransom",
                "siege-of-chalus",
            ],
            &[],
        ],
        &[],
    );
    let conceded = HistoryOfEngland::concede(&state, Seat(0));
    assert_eq!(
        conceded.ranking,
        vec![vec![Seat(1), Seat(2)], vec![Seat(3)], vec![Seat(0)]]
    );
    assert_eq!(conceded.points, vec![6, 4, 4, 0]);
    assert_eq!(conceded.figures["completed_sets"], vec![2, 1, 1, 0]);
    assert_eq!(conceded.figures["cards"], vec![7, 7, 7, 7]);
}

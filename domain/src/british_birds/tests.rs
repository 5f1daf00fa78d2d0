//! British Birds tests: one per rule and per decision in `docs/rules/british-birds.md`.

// Issue 9 lints: test tables and counts are small and fixed, so their casts cannot lose anything.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use super::*;
use crate::chance::Seed;
use crate::engine::{self, MoveRefused, OutOfTurn};
use crate::game::{Player, RULES_VERSION};

/// A table under the latest rules, or, for a series in one log (`play_to`), under the last
/// version whose new games may play one; [`under`] puts an arranged one under another version.
fn setup(players: usize, options: Options) -> Setup<Options> {
    let version = if options.play_to.is_some() {
        LAST_RULES_VERSION_WITH_PLAY_TO
    } else {
        RULES_VERSION
    };
    Setup::new(
        (0..players)
            .map(|i| Player {
                name: format!("p{i}"),
            })
            .collect(),
        options,
    )
    .under(version)
}

/// The same table under rules version `version`.
fn under(version: u32, mut state: State) -> State {
    state.rules = Rules::of(version);
    state
}

fn card(id: &str) -> Card {
    Card::from_id(id).unwrap_or_else(|| panic!("no card {id}"))
}

fn cards(ids: &[&str]) -> Vec<Card> {
    ids.iter().map(|id| card(id)).collect()
}

/// A real deal from an explicit pack: `hands[s]` are seat s's seven cards, then the row,
/// then the pack top first (the remaining cards follow in catalogue order).
fn deal_with(
    options: Options,
    hands: &[&[&str]],
    row: &[&str],
    pack: &[&str],
) -> (State, Vec<Event>) {
    let players = hands.len();
    let mut order = Vec::new();
    for k in 0..HAND {
        for hand in hands {
            order.push(card(hand[k]));
        }
    }
    order.extend(cards(row));
    order.extend(cards(pack));
    for c in Card::all() {
        if !order.contains(&c) {
            order.push(c);
        }
    }
    assert_eq!(order.len(), CARDS);
    let state = BritishBirds::new(&setup(players, options)).unwrap();
    let mut batch = Batch::new(&state);
    batch.deal(Seat(0), Shuffled { stream: 0, order });
    let events = batch.events;
    let state = events.iter().fold(state, BritishBirds::evolve);
    BritishBirds::check_invariants(&state).unwrap();
    (state, events)
}

/// A table arranged mid-game, seat 0 to play: the hands, the row and the top of the pack as
/// given, `laid` sets already on the table; every card not mentioned lies lower in the pack.
fn arrange(
    options: Options,
    hands: &[&[&str]],
    row: &[Option<&str>],
    pack: &[&str],
    laid: &[(&str, u8)],
) -> State {
    let mut state = BritishBirds::new(&setup(hands.len(), options)).unwrap();
    let mut used = 0u64;
    for (s, hand) in hands.iter().enumerate() {
        for c in cards(hand) {
            state.hands[s].add(c);
            used |= c.bit();
        }
    }
    for (slot, id) in state.row.iter_mut().zip(row) {
        *slot = id.map(card);
        used |= slot.map_or(0, Card::bit);
    }
    for (set, seat) in laid {
        let set = BirdSet::all().find(|s| s.id() == *set).unwrap();
        state.laid[usize::from(set.0)] = Some(Seat(*seat));
        used |= set.mask();
    }
    let mut pack = cards(pack);
    used |= pack.iter().fold(0, |m, c| m | c.bit());
    pack.extend(Card::all().filter(|c| used & c.bit() == 0));
    let start = CARDS - pack.len();
    state.deal_order[start..].copy_from_slice(&pack);
    state.pack_next = start as u8;
    state.game = 1;
    state.phase = Phase::Turn { seat: Seat(0) };
    BritishBirds::check_invariants(&state).unwrap();
    state
}

fn action(body: Value) -> Action {
    serde_json::from_value(body).unwrap()
}

fn play(state: &State, seat: u8, body: Value) -> (State, Vec<Event>) {
    let events = BritishBirds::decide(
        state,
        Seat(seat),
        &action(body.clone()),
        &mut Chance::new(Seed([7; 32]), 50),
    )
    .unwrap_or_else(|e| panic!("{body} by seat {seat} refused: {e}"));
    let next = events.iter().fold(state.clone(), BritishBirds::evolve);
    BritishBirds::check_invariants(&next).unwrap();
    (next, events)
}

fn after(state: &State, seat: u8, body: Value) -> State {
    play(state, seat, body).0
}

/// The move as every table decides it: the framework's turn check, then the game's rules.
fn decided(state: &State, seat: u8, body: &Value) -> Result<Vec<Event>, MoveRefused<RuleError>> {
    engine::decide::<BritishBirds>(
        state,
        Seat(seat),
        &action(body.clone()),
        &mut Chance::new(Seed([7; 32]), 50),
    )
}

/// The rule of British Birds that refuses the move.
fn refused(state: &State, seat: u8, body: Value) -> RuleError {
    match decided(state, seat, &body) {
        Ok(events) => panic!("{body} by seat {seat} accepted: {events:?}"),
        Err(MoveRefused::Rule(e)) => e,
        Err(MoveRefused::OutOfTurn(e)) => panic!("{body} by seat {seat} refused as {e}"),
    }
}

/// The framework's refusal of a move out of turn or after the end.
fn out_of_turn(state: &State, seat: u8, body: Value) -> OutOfTurn {
    match decided(state, seat, &body) {
        Ok(events) => panic!("{body} by seat {seat} accepted: {events:?}"),
        Err(MoveRefused::OutOfTurn(e)) => e,
        Err(MoveRefused::Rule(e)) => panic!("{body} by seat {seat} refused by the rules: {e}"),
    }
}

fn ask(seat: u8, id: &str) -> Value {
    json!({"type": "ask", "seat": seat, "card": id})
}

fn pick_up(id: &str) -> Value {
    json!({"type": "pick_up", "card": id})
}

fn hand_of(state: &State, seat: u8) -> Vec<&'static str> {
    state.hands[usize::from(seat)].ids()
}

fn to_act(state: &State) -> Vec<u8> {
    BritishBirds::to_act(state).iter().map(|s| s.0).collect()
}

fn types(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| crate::engine::record(e).kind)
        .collect()
}

const FULL_ROW: [Option<&str>; 7] = [
    Some("g-1"),
    Some("g-2"),
    Some("g-3"),
    Some("h-1"),
    Some("h-2"),
    Some("h-3"),
    Some("owl-4"),
];
const EMPTY_ROW: [Option<&str>; 7] = [None; 7];

/// Two players with a full row and pack; seat 0 holds A and B cards, seat 1 C and D, both an Owl.
fn two_players() -> State {
    arrange(
        Options::default(),
        &[
            &["a-1", "a-2", "b-1", "c-3", "e-1", "owl-1"],
            &["a-3", "b-2", "c-1", "c-2", "d-1", "owl-2"],
        ],
        &FULL_ROW,
        &[
            "g-4", "g-5", "h-4", "h-5", "a-4", "a-5", "b-3", "b-4", "b-5", "c-4", "c-5", "d-2",
            "d-3", "d-4", "d-5", "e-2", "e-3", "e-4", "e-5", "f-1", "f-2", "f-3", "f-4", "f-5",
            "owl-3",
        ],
        &[],
    )
}

// Rule 1.

#[test]
fn the_deal_gives_seven_cards_each_one_at_a_time_seven_face_up_and_the_rest_as_the_pack() {
    for players in 2..=4 {
        let state = BritishBirds::new(&setup(players, Options::default())).unwrap();
        let events = BritishBirds::start(&state, &mut Chance::new(Seed([3; 32]), 1));
        let Event::Deal { shuffled, .. } = &events[0] else {
            panic!("no deal first");
        };
        let state = events.iter().fold(state, BritishBirds::evolve);
        for seat in 0..players {
            let dealt: Vec<Card> = shuffled
                .order
                .iter()
                .take(HAND * players)
                .skip(seat)
                .step_by(players)
                .copied()
                .collect();
            let laid = state.sets_of(Seat(seat as u8)).count();
            assert_eq!(state.hands[seat].len() + 5 * laid, HAND);
            for c in dealt {
                let in_laid_set = c
                    .set()
                    .is_some_and(|s| state.laid[usize::from(s.0)] == Some(Seat(seat as u8)));
                assert!(state.hands[seat].holds(c) || in_laid_set);
            }
        }
        let row: Vec<Card> = state.row.iter().flatten().copied().collect();
        assert_eq!(row, shuffled.order[HAND * players..HAND * players + ROW]);
        assert_eq!(state.pack(), &shuffled.order[HAND * players + ROW..]);
        assert_eq!(state.pack().len(), CARDS - 7 * players - 7);
        assert_eq!(to_act(&state), vec![0], "the dealer's left (seat 0) begins");
    }
}

#[test]
fn a_fixed_seed_gives_this_exact_deal() {
    let state = BritishBirds::new(&setup(2, Options::default())).unwrap();
    let events = BritishBirds::start(&state, &mut Chance::new(Seed([0; 32]), 1));
    let state = events.iter().fold(state, BritishBirds::evolve);
    let row: Vec<&str> = state.row.iter().flatten().map(|c| c.id()).collect();
    assert_eq!(
        hand_of(&state, 0),
        ["a-3", "a-5", "b-2", "d-3", "e-4", "g-4", "owl-3"]
    );
    assert_eq!(
        hand_of(&state, 1),
        ["b-1", "b-3", "c-1", "c-5", "f-4", "g-5", "h-4"]
    );
    assert_eq!(row, ["e-1", "d-5", "b-4", "owl-4", "c-2", "d-1", "b-5"]);
    let pack: Vec<&str> = state.pack().iter().map(|c| c.id()).collect();
    assert_eq!(pack[..4], ["d-2", "g-2", "g-1", "h-3"]);
    assert_eq!(pack.last(), Some(&"owl-1"));
}

fn three_players() -> State {
    arrange(
        Options::default(),
        &[
            &["a-1", "a-2", "b-1", "owl-1"],
            &["a-3", "b-2", "c-1"],
            &["a-4", "c-2", "d-1", "owl-2"],
        ],
        &FULL_ROW,
        &[],
        &[],
    )
}

fn answer(kind: &str) -> Value {
    json!({ "type": kind })
}

fn prefer(preference: &str) -> Value {
    json!({"type": "set_owl_preference", "preference": preference})
}

fn preferences(prefs: &[OwlPreference]) -> Options {
    Options {
        owl_preferences: prefs.to_vec(),
        ..Options::default()
    }
}

// Rule 2(a).

#[test]
fn picking_up_takes_any_exposed_card_and_turns_up_the_top_of_the_pack_in_its_place() {
    let state = two_players();
    // Seat 0 holds no G card: it may pick one up all the same.
    let (state, events) = play(&state, 0, pick_up("g-2"));
    assert_eq!(
        events,
        [Event::PickUp {
            seat: Seat(0),
            card: card("g-2"),
            replacement: Some(card("g-4")),
        }]
    );
    assert!(state.hands[0].holds(card("g-2")));
    assert_eq!(
        state.row[1],
        Some(card("g-4")),
        "in the picked-up card's place"
    );
    assert_eq!(state.pack().len(), 24);
    assert_eq!(
        refused(&state, 1, pick_up("g-2")),
        RuleError::NotExposed("g-2")
    );
}

#[test]
fn once_the_pack_is_used_up_exposed_cards_are_picked_up_until_none_are_left() {
    let mut state = two_players();
    while !state.row_is_empty() && engine::outcome_json::<BritishBirds>(&state).is_none() {
        let pack_before = state.pack().len();
        let exposed_before = state.row.iter().flatten().count();
        let seat = to_act(&state)[0];
        let exposed = state.row.iter().flatten().next().copied().unwrap();
        let (next, events) = play(&state, seat, pick_up(exposed.id()));
        let Event::PickUp { replacement, .. } = events[0] else {
            panic!("not a pick-up");
        };
        let exposed_after = next.row.iter().flatten().count();
        if pack_before > 0 {
            assert_eq!(replacement, state.pack().first().copied());
            assert_eq!(exposed_after, ROW);
        } else {
            assert_eq!(replacement, None);
            assert_eq!(exposed_after, exposed_before - 1);
        }
        state = next;
    }
    assert!(state.pack().is_empty());
    if let Some(seat) = to_act(&state).first() {
        assert!(
            engine::legal_actions_json::<BritishBirds>(&state, Seat(*seat))
                .iter()
                .all(|a| a["type"] != "pick_up")
        );
    }
}

// Rule 2(b).

#[test]
fn a_player_may_ask_any_other_player_for_a_card_of_a_set_they_hold() {
    let state = two_players();
    let (asked, events) = play(&state, 0, ask(1, "a-3"));
    assert_eq!(types(&events), ["ask"]);
    assert_eq!(to_act(&asked), [1], "the game waits for the asked player");
    assert_eq!(
        refused(&state, 0, ask(1, "d-1")),
        RuleError::NoCardOfThatSet
    );
    assert_eq!(
        refused(&state, 0, ask(0, "a-3")),
        RuleError::NotAnotherPlayer
    );
    assert_eq!(
        refused(&state, 0, ask(2, "a-3")),
        RuleError::NotAnotherPlayer
    );
    let state = three_players();
    assert_eq!(types(&play(&state, 0, ask(2, "a-4")).1), ["ask"]);
}

#[test]
fn the_asked_player_must_hand_over_a_card_they_hold() {
    let state = after(&two_players(), 0, ask(1, "a-3"));
    assert_eq!(
        refused(&state, 1, answer("not_held")),
        RuleError::MustHandOver("a-3")
    );
    let (state, events) = play(&state, 1, answer("hand_over"));
    assert_eq!(
        events,
        [Event::HandOver {
            from: Seat(1),
            to: Seat(0),
            card: card("a-3"),
        }]
    );
    assert!(state.hands[0].holds(card("a-3")));
    assert!(!state.hands[1].holds(card("a-3")));
}

// Rule 3.

#[test]
fn picking_up_ends_the_turn_and_the_turn_passes_to_the_left() {
    let state = after(&three_players(), 0, pick_up("g-1"));
    assert_eq!(to_act(&state), [1]);
    assert_eq!(
        out_of_turn(&state, 0, pick_up("g-2")),
        OutOfTurn::NotYourMove {
            to_act: vec![Seat(1)]
        }
    );
    let state = after(&state, 1, pick_up("g-2"));
    assert_eq!(to_act(&state), [2]);
    let state = after(&state, 2, pick_up("g-3"));
    assert_eq!(to_act(&state), [0]);
}

// Rule 4.

#[test]
fn after_a_successful_ask_the_asker_may_ask_the_same_or_another_player_again() {
    let state = after(&three_players(), 0, ask(1, "a-3"));
    let state = after(&state, 1, answer("hand_over"));
    assert_eq!(to_act(&state), [0]);
    let state = after(&state, 0, ask(1, "b-2"));
    let state = after(&state, 1, answer("hand_over"));
    assert_eq!(to_act(&state), [0]);
    let state = after(&state, 0, ask(2, "a-4"));
    let state = after(&state, 2, answer("hand_over"));
    assert_eq!(to_act(&state), [0]);
    assert_eq!(
        hand_of(&state, 0),
        ["a-1", "a-2", "a-3", "a-4", "b-1", "b-2", "owl-1"]
    );
}

#[test]
fn after_a_successful_ask_picking_up_ends_the_turn() {
    let state = after(&three_players(), 0, ask(1, "a-3"));
    let state = after(&state, 1, answer("hand_over"));
    let state = after(&state, 0, pick_up("h-1"));
    assert_eq!(to_act(&state), [1]);
}

// Rule 5.

#[test]
fn when_the_asked_player_has_not_got_the_card_the_turn_passes_to_the_askers_left() {
    let state = after(&three_players(), 0, ask(2, "a-3"));
    assert_eq!(to_act(&state), [2]);
    assert_eq!(
        refused(&state, 2, answer("hand_over")),
        RuleError::NotHeldByYou("a-3")
    );
    let (state, events) = play(&state, 2, answer("not_held"));
    assert_eq!(
        events,
        [Event::NotHeld {
            seat: Seat(2),
            asker: Seat(0),
            card: card("a-3"),
        }]
    );
    assert_eq!(to_act(&state), [1]);
    let view = engine::view_json::<BritishBirds>(&state, Viewer::Spectator);
    assert_eq!(
        view.public["last_ask"],
        json!({"asker": 0, "seat": 2, "card": "a-3", "answer": "not_held"})
    );
}

// Rule 6.

#[test]
fn a_player_holding_no_card_may_only_pick_up() {
    let state = arrange(
        Options::default(),
        &[&[], &["a-1", "a-2"], &["a-3"]],
        &FULL_ROW,
        &[],
        &[],
    );
    let legal = engine::legal_actions_json::<BritishBirds>(&state, Seat(0));
    assert!(legal.iter().any(|a| a["type"] == "pick_up"));
    assert!(legal
        .iter()
        .all(|a| a["type"] == "pick_up" || a["type"] == "set_owl_preference"));
    assert_eq!(
        refused(&state, 0, ask(1, "a-1")),
        RuleError::NoCardOfThatSet
    );
    assert_eq!(to_act(&after(&state, 0, pick_up("g-1"))), [1]);
}

#[test]
fn a_player_who_can_neither_pick_up_nor_ask_is_passed_over() {
    let state = arrange(
        Options::default(),
        &[
            &[
                "a-1", "a-2", "a-3", "a-4", "b-1", "b-2", "b-3", "b-4", "owl-1", "owl-2",
            ],
            &[],
            &["a-5", "b-5", "owl-3", "owl-4"],
        ],
        &EMPTY_ROW,
        &[],
        &[("c", 0), ("d", 0), ("e", 1), ("f", 1), ("g", 2), ("h", 2)],
    );
    // Seat 1 has no card and nothing is exposed: the turn goes from seat 0 to seat 2.
    let (state, events) = play(&state, 0, ask(1, "a-5"));
    assert_eq!(types(&events), ["ask", "not_held"]);
    assert_eq!(to_act(&state), [2]);
    assert_eq!(state.quiet_turns, 1, "a passed-over seat is not a turn");
}

#[test]
fn a_player_whose_last_cards_go_down_as_a_set_with_nothing_exposed_has_no_more_turn() {
    let state = arrange(
        Options::default(),
        &[
            &["a-1", "a-2", "a-3", "a-4"],
            &[
                "a-5", "b-1", "b-2", "b-3", "b-4", "owl-1", "owl-2", "owl-3", "owl-4",
            ],
            &["b-5"],
        ],
        &EMPTY_ROW,
        &[],
        &[("c", 0), ("d", 0), ("e", 1), ("f", 1), ("g", 2), ("h", 2)],
    );
    let state = after(&state, 0, ask(1, "a-5"));
    let (state, events) = play(&state, 1, answer("hand_over"));
    assert_eq!(types(&events), ["hand_over", "set_laid"]);
    assert_eq!(to_act(&state), [1]);
}

// Rule 7.

#[test]
fn an_asked_player_holding_the_card_and_an_owl_may_play_the_owl_and_keep_the_card() {
    let state = after(&two_players(), 0, ask(1, "a-3"));
    let legal = engine::legal_actions_json::<BritishBirds>(&state, Seat(1));
    assert!(legal.contains(&answer("hand_over")));
    assert!(legal.contains(&answer("play_owl")));
    assert!(!legal.contains(&answer("not_held")));
    let (state, events) = play(&state, 1, answer("play_owl"));
    assert_eq!(
        events,
        [Event::Owl {
            seat: Seat(1),
            owl: card("owl-2"),
            asker: Seat(0),
            card: card("a-3"),
        }]
    );
    assert!(state.hands[1].holds(card("a-3")), "the card is kept");
    assert!(!state.hands[1].holds(card("owl-2")));
    assert_eq!(to_act(&state), [1], "the asker's turn is over (rule 5)");
    let view = engine::view_json::<BritishBirds>(&state, Viewer::Spectator);
    assert_eq!(view.public["owls"], json!([{"card": "owl-2", "seat": 1}]));
    assert_eq!(view.seats[1]["owls_played"], json!(1));
}

#[test]
fn an_owl_is_played_only_by_a_player_who_holds_the_card_asked_for_and_an_owl() {
    let state = after(&two_players(), 0, ask(1, "a-4"));
    assert_eq!(
        refused(&state, 1, answer("play_owl")),
        RuleError::NotHeldByYou("a-4")
    );
    // Seat 1 plays its only Owl, then is asked again for the same card.
    let state = after(&two_players(), 0, ask(1, "a-3"));
    let state = after(&state, 1, answer("play_owl"));
    let state = after(&state, 1, pick_up("g-1"));
    let state = after(&state, 0, ask(1, "a-3"));
    assert_eq!(refused(&state, 1, answer("play_owl")), RuleError::NoOwl);
    let legal = engine::legal_actions_json::<BritishBirds>(&state, Seat(1));
    assert!(!legal.contains(&answer("play_owl")));
}

#[test]
fn a_played_owl_stays_on_the_table_for_the_rest_of_the_game() {
    let state = after(&two_players(), 0, ask(1, "a-3"));
    let mut state = after(&state, 1, answer("play_owl"));
    for _ in 0..10 {
        let seat = to_act(&state)[0];
        let exposed = state.row.iter().flatten().next().copied().unwrap();
        state = after(&state, seat, pick_up(exposed.id()));
        assert_eq!(state.owls[1], Some(Seat(1)));
        assert!((0..2).all(|s| !state.hands[s].holds(card("owl-2"))));
    }
}

// Rule 8.

#[test]
fn a_set_completed_by_asking_is_laid_at_once_by_the_asker() {
    let state = arrange(
        Options::default(),
        &[&["a-1", "a-2", "a-4", "a-5", "b-1"], &["a-3", "b-2"]],
        &FULL_ROW,
        &[],
        &[],
    );
    let state = after(&state, 0, ask(1, "a-3"));
    let (state, events) = play(&state, 1, answer("hand_over"));
    assert_eq!(
        events[1],
        Event::SetLaid {
            seat: Seat(0),
            set: BirdSet(0),
        }
    );
    assert_eq!(hand_of(&state, 0), ["b-1"]);
    assert_eq!(to_act(&state), [0], "the asker's turn goes on");
    let view = engine::view_json::<BritishBirds>(&state, Viewer::Spectator);
    assert_eq!(view.seats[0]["sets"], json!(["a"]));
    assert_eq!(view.public["laid"], json!([{"set": "a", "seat": 0}]));
}

#[test]
fn a_set_completed_by_picking_up_is_laid_at_once_by_the_player_who_picked_it_up() {
    let state = arrange(
        Options::default(),
        &[&["b-1"], &["g-4", "g-5", "h-4", "h-5"]],
        &FULL_ROW,
        &[],
        &[],
    );
    let state = after(&state, 0, pick_up("g-1"));
    let state = after(&state, 1, pick_up("h-1"));
    let state = after(&state, 0, pick_up("g-2"));
    let (state, events) = play(&state, 1, pick_up("h-2"));
    assert_eq!(types(&events), ["pick_up"]);
    let state = after(&state, 0, pick_up("g-3"));
    let (state, events) = play(&state, 1, pick_up("h-3"));
    assert_eq!(types(&events), ["pick_up", "set_laid"]);
    assert_eq!(state.laid[7], Some(Seat(1)));
    assert_eq!(to_act(&state), [0]);
}

#[test]
fn a_set_dealt_complete_is_laid_before_the_first_turn() {
    let (state, events) = deal_with(
        Options::default(),
        &[
            &["c-1", "c-2", "c-3", "c-4", "c-5", "a-1", "owl-1"],
            &["a-2", "b-1", "b-2", "d-1", "e-1", "f-1", "g-1"],
        ],
        &["h-1", "h-2", "h-3", "h-4", "h-5", "g-2", "g-3"],
        &[],
    );
    assert_eq!(types(&events), ["deal", "set_laid"]);
    assert_eq!(state.laid[2], Some(Seat(0)));
    assert_eq!(hand_of(&state, 0), ["a-1", "owl-1"]);
    assert_eq!(to_act(&state), [0]);
}

// Rule 9.

fn last_set_to_lay(options: Options, laid: &[(&str, u8)]) -> State {
    arrange(
        options,
        &[
            &["h-1", "h-2", "h-3", "h-4", "owl-1", "owl-2"],
            &["h-5", "owl-3", "owl-4"],
        ],
        &EMPTY_ROW,
        &[],
        laid,
    )
}

const SEVEN_LAID: [(&str, u8); 7] = [
    ("a", 0),
    ("b", 0),
    ("c", 0),
    ("d", 0),
    ("e", 1),
    ("f", 1),
    ("g", 1),
];

#[test]
fn the_game_ends_when_all_eight_sets_are_laid() {
    let state = last_set_to_lay(
        preferences(&[OwlPreference::AskMe, OwlPreference::AlwaysHandOver]),
        &SEVEN_LAID,
    );
    let (state, events) = play(&state, 0, ask(1, "h-5"));
    assert_eq!(
        types(&events),
        ["ask", "hand_over", "set_laid", "game_over"]
    );
    assert_eq!(
        events[3],
        Event::GameOver {
            ending: Ending::AllSetsLaid,
            points: vec![25, 15],
        }
    );
    assert!(to_act(&state).is_empty());
    assert!(engine::legal_actions_json::<BritishBirds>(&state, Seat(0)).is_empty());
    assert_eq!(out_of_turn(&state, 1, pick_up("g-1")), OutOfTurn::GameOver);
    assert_eq!(OutOfTurn::GameOver.kind(), RefusalKind::NotYourMove);
}

// Rule 10.

#[test]
fn each_player_scores_five_points_for_each_set_and_the_most_points_win() {
    let state = last_set_to_lay(
        preferences(&[OwlPreference::AskMe, OwlPreference::AlwaysHandOver]),
        &SEVEN_LAID,
    );
    let state = after(&state, 0, ask(1, "h-5"));
    let outcome = engine::outcome_json::<BritishBirds>(&state).unwrap();
    assert_eq!(outcome["points"], json!([25, 15]));
    assert_eq!(
        outcome["sets"],
        json!([["a", "b", "c", "d", "h"], ["e", "f", "g"]])
    );
    assert_eq!(outcome["winners"], json!([0]));
    assert_eq!(outcome["ending"], json!("all_sets_laid"));
}

#[test]
fn equal_points_share_the_win() {
    let laid = [
        ("a", 0),
        ("b", 0),
        ("c", 0),
        ("d", 1),
        ("e", 1),
        ("f", 1),
        ("g", 1),
    ];
    let state = last_set_to_lay(
        preferences(&[OwlPreference::AskMe, OwlPreference::AlwaysHandOver]),
        &laid,
    );
    let state = after(&state, 0, ask(1, "h-5"));
    let outcome = engine::outcome_json::<BritishBirds>(&state).unwrap();
    assert_eq!(outcome["points"], json!([20, 20]));
    assert_eq!(outcome["winners"], json!([0, 1]));
}

#[test]
fn a_series_deals_further_games_with_the_deal_passing_left_until_a_total_is_reached() {
    let options = Options {
        play_to: Some(30),
        ..preferences(&[OwlPreference::AskMe, OwlPreference::AlwaysHandOver])
    };
    let state = last_set_to_lay(options.clone(), &SEVEN_LAID);
    let (state, events) = play(&state, 0, ask(1, "h-5"));
    assert_eq!(
        types(&events)[..5],
        ["ask", "hand_over", "set_laid", "game_over", "deal"]
    );
    assert!(engine::outcome_json::<BritishBirds>(&state).is_none());
    assert_eq!(state.game, 2);
    assert_eq!(
        to_act(&state),
        [1],
        "the next game begins one seat further left"
    );
    let view = engine::view_json::<BritishBirds>(&state, Viewer::Spectator);
    assert_eq!(view.seats[0]["total"], json!(25));
    assert_eq!(view.seats[0]["points"], json!(0));
    let sheet = BritishBirds::scoresheet(&state).unwrap();
    assert_eq!(sheet.json["games"], json!([[25, 15], [0, 0]]));

    let options = Options {
        play_to: Some(25),
        ..options
    };
    let state = last_set_to_lay(options, &SEVEN_LAID);
    let state = after(&state, 0, ask(1, "h-5"));
    assert_eq!(
        engine::outcome_json::<BritishBirds>(&state).unwrap()["winners"],
        json!([0])
    );
}

#[test]
fn when_several_reach_the_target_the_highest_total_wins() {
    let options = Options {
        play_to: Some(30),
        ..preferences(&[OwlPreference::AskMe, OwlPreference::AlwaysHandOver])
    };
    let mut state = last_set_to_lay(options, &SEVEN_LAID);
    state.finished = vec![[20, 25, 0, 0]];
    let state = after(&state, 0, ask(1, "h-5"));
    let outcome = engine::outcome_json::<BritishBirds>(&state).unwrap();
    assert_eq!(outcome["totals"], json!([45, 40]));
    assert_eq!(outcome["winners"], json!([0]));
}

// Parlour's decisions.

#[test]
fn nobody_may_ask_for_an_owl_or_a_card_they_hold() {
    let state = two_players();
    assert_eq!(refused(&state, 0, ask(1, "owl-2")), RuleError::AskedForOwl);
    assert_eq!(
        refused(&state, 0, ask(1, "a-2")),
        RuleError::AlreadyHeld("a-2")
    );
}

/// Seat 0 holds a G card while g-1 lies face up; seat 1 answers for herself.
fn g_1_face_up() -> State {
    arrange(
        Options::default(),
        &[&["g-4"], &["a-1"]],
        &FULL_ROW,
        &[],
        &[],
    )
}

#[test]
fn from_rules_version_2_a_card_lying_face_up_may_be_asked_for_and_the_ask_simply_fails() {
    let state = g_1_face_up();
    assert!(BritishBirds::legal_actions(&state, Seat(0)).contains(&action(ask(1, "g-1"))));
    // Everyone sees the card in the row, so nobody is waited for: "not held" at once, though
    // seat 1 answers every other ask herself.
    let (state, events) = play(&state, 0, ask(1, "g-1"));
    assert_eq!(types(&events), ["ask", "not_held"]);
    assert_eq!(to_act(&state), [1], "a failed ask passes the turn (rule 5)");
    assert_eq!(state.row[0], Some(card("g-1")), "the card stays in the row");
}

#[test]
fn under_rules_version_1_nobody_may_ask_for_a_card_lying_face_up() {
    let state = under(1, g_1_face_up());
    assert_eq!(refused(&state, 0, ask(1, "g-1")), RuleError::Exposed("g-1"));
    assert!(!BritishBirds::legal_actions(&state, Seat(0)).contains(&action(ask(1, "g-1"))));
}

#[test]
fn a_player_who_answers_for_themselves_is_waited_for_whatever_they_hold() {
    let state = two_players();
    for wanted in ["a-3", "a-4"] {
        let (asked, events) = play(&state, 0, ask(1, wanted));
        assert_eq!(
            types(&events),
            ["ask"],
            "the table learns nothing by the waiting"
        );
        assert_eq!(to_act(&asked), [1]);
    }
    let held = after(&state, 0, ask(1, "a-3"));
    let answers: Vec<Value> = engine::legal_actions_json::<BritishBirds>(&held, Seat(1))
        .into_iter()
        .filter(|a| a["type"] != "set_owl_preference")
        .collect();
    assert_eq!(answers, [answer("hand_over"), answer("play_owl")]);
    let missing = after(&state, 0, ask(1, "a-4"));
    let answers: Vec<Value> = engine::legal_actions_json::<BritishBirds>(&missing, Seat(1))
        .into_iter()
        .filter(|a| a["type"] != "set_owl_preference")
        .collect();
    assert_eq!(answers, [answer("not_held")]);
    assert_eq!(
        out_of_turn(&missing, 0, pick_up("g-1")),
        OutOfTurn::NotYourMove {
            to_act: vec![Seat(1)]
        }
    );
    assert_eq!(
        refused(&missing, 1, pick_up("g-1")),
        RuleError::AnswerFirst("a-4")
    );
    assert_eq!(
        refused(&missing, 1, ask(0, "c-4")),
        RuleError::AnswerFirst("a-4")
    );
}

#[test]
fn always_hand_over_answers_at_once_and_never_plays_an_owl() {
    let state = arrange(
        preferences(&[OwlPreference::AskMe, OwlPreference::AlwaysHandOver]),
        &[&["a-1", "b-1"], &["a-3", "c-1", "owl-2"]],
        &FULL_ROW,
        &[],
        &[],
    );
    let (after_ask, events) = play(&state, 0, ask(1, "a-3"));
    assert_eq!(types(&events), ["ask", "hand_over"]);
    assert_eq!(to_act(&after_ask), [0]);
    let (after_ask, events) = play(&after_ask, 0, ask(1, "b-2"));
    assert_eq!(types(&events), ["ask", "not_held"]);
    assert_eq!(to_act(&after_ask), [1]);
}

#[test]
fn always_play_owl_keeps_the_card_with_an_owl_when_it_can_and_otherwise_answers_at_once() {
    let state = arrange(
        preferences(&[OwlPreference::AskMe, OwlPreference::AlwaysPlayOwl]),
        &[&["a-1", "b-1"], &["a-3", "a-4", "c-1", "owl-2"]],
        &FULL_ROW,
        &[],
        &[],
    );
    let (state, events) = play(&state, 0, ask(1, "a-3"));
    assert_eq!(types(&events), ["ask", "owl"]);
    let state = after(&state, 1, pick_up("g-1"));
    let (state, events) = play(&state, 0, ask(1, "a-3"));
    assert_eq!(types(&events), ["ask", "hand_over"], "no Owl left");
    let (_, events) = play(&state, 0, ask(1, "a-5"));
    assert_eq!(types(&events), ["ask", "not_held"]);
}

#[test]
fn a_player_with_an_empty_hand_is_answered_for_at_once() {
    let state = arrange(Options::default(), &[&["a-1"], &[]], &FULL_ROW, &[], &[]);
    let (state, events) = play(&state, 0, ask(1, "a-2"));
    assert_eq!(types(&events), ["ask", "not_held"]);
    assert_eq!(to_act(&state), [1]);
}

#[test]
fn the_owl_preference_may_be_changed_once_at_your_turn_or_when_you_are_asked() {
    let state = two_players();
    let legal = engine::legal_actions_json::<BritishBirds>(&state, Seat(0));
    assert!(legal.contains(&prefer("always_play_owl")));
    assert!(!legal.contains(&prefer("ask_me")));
    assert_eq!(
        refused(&state, 0, prefer("ask_me")),
        RuleError::SamePreference
    );
    let (changed, events) = play(&state, 0, prefer("always_hand_over"));
    assert_eq!(
        events,
        [Event::OwlPreference {
            seat: Seat(0),
            preference: OwlPreference::AlwaysHandOver,
        }]
    );
    assert_eq!(to_act(&changed), [0], "changing it is no turn");
    assert_eq!(
        refused(&changed, 0, prefer("always_play_owl")),
        RuleError::PreferenceAlreadyChanged
    );
    let view = engine::view_json::<BritishBirds>(&changed, Viewer::Spectator);
    assert_eq!(view.seats[0]["owl_preference"], json!("always_hand_over"));

    // Asked, seat 1 may change it, and still owes its answer to this ask.
    let asked = after(&changed, 0, ask(1, "a-3"));
    let asked = after(&asked, 1, prefer("always_hand_over"));
    assert_eq!(to_act(&asked), [1]);
    let state = after(&asked, 1, answer("hand_over"));
    // The new preference answers the next ask at once.
    let (_, events) = play(&state, 0, ask(1, "b-2"));
    assert_eq!(types(&events), ["ask", "hand_over"]);
}

#[test]
fn nobody_may_change_their_owl_preference_out_of_turn() {
    let state = two_players();
    let error = out_of_turn(&state, 1, prefer("always_hand_over"));
    assert_eq!(error.kind(), RefusalKind::NotYourMove);
    assert!(engine::legal_actions_json::<BritishBirds>(&state, Seat(1)).is_empty());
}

/// Three players who can only ask; seat 0 and seat 1 pass a-2 back and forth for ever.
fn back_and_forth(quiet_rounds: u32) -> State {
    arrange(
        Options {
            quiet_rounds,
            ..preferences(&[OwlPreference::AlwaysHandOver; 3])
        },
        &[
            &["a-1", "a-3", "b-5", "owl-1"],
            &["a-2", "a-4"],
            &["a-5", "b-1", "b-2", "b-3", "b-4", "owl-2", "owl-3", "owl-4"],
        ],
        &EMPTY_ROW,
        &[],
        &[("c", 0), ("d", 0), ("e", 1), ("f", 1), ("g", 2), ("h", 2)],
    )
}

#[test]
fn the_game_ends_when_the_turn_goes_round_the_quiet_rounds_with_no_pick_up_and_no_set_laid() {
    let state = back_and_forth(1);
    let state = after(&state, 0, ask(1, "a-5"));
    assert_eq!(state.quiet_turns, 1);
    let state = after(&state, 1, ask(0, "a-5"));
    assert_eq!(state.quiet_turns, 2);
    let (state, events) = play(&state, 2, ask(0, "a-2"));
    assert_eq!(types(&events), ["ask", "not_held", "game_over"]);
    assert_eq!(
        events[2],
        Event::GameOver {
            ending: Ending::NoProgress,
            points: vec![10, 10, 10],
        }
    );
    let outcome = engine::outcome_json::<BritishBirds>(&state).unwrap();
    assert_eq!(outcome["ending"], json!("no_progress"));
    assert_eq!(outcome["winners"], json!([0, 1, 2]));
}

#[test]
fn a_pick_up_or_a_set_laid_starts_the_quiet_count_again() {
    // Under rules version 1 turns passed with cards face up count, so a pick-up can find the
    // count running; from version 2 the count only runs once nothing is left to pick up.
    let state = after(&under(1, two_players()), 0, ask(1, "a-4"));
    let state = after(&state, 1, answer("not_held"));
    assert_eq!(state.quiet_turns, 1);
    let state = after(&state, 1, pick_up("g-1"));
    assert_eq!(state.quiet_turns, 0);
    let state = back_and_forth(10);
    let state = after(&state, 0, ask(1, "a-5"));
    let state = after(&state, 1, ask(2, "a-1"));
    assert_eq!(state.quiet_turns, 2);
    let (state, events) = play(&state, 2, ask(0, "b-5"));
    assert_eq!(types(&events), ["ask", "hand_over", "set_laid"]);
    assert_eq!(state.quiet_turns, 0);
    assert_eq!(to_act(&state), [2], "b-5 handed over: seat 2 goes on");
}

/// The table: two players just dealt, seven cards face up and 23 in the pack, and
/// every ask fails.
fn failed_asks_with_the_row_full(version: u32, asks: usize) -> State {
    let mut state = under(
        version,
        arrange(
            Options::default(),
            &[
                &["a-1", "a-2", "a-3", "b-1", "b-2", "b-3", "c-1"],
                &["d-1", "d-2", "d-3", "e-1", "e-2", "e-3", "f-1"],
            ],
            &FULL_ROW,
            &["a-4"],
            &[],
        ),
    );
    assert_eq!(state.pack().len(), 23);
    for turn in 0..asks {
        if BritishBirds::outcome(&state).is_some() {
            break;
        }
        state = match turn % 2 {
            0 => after(&state, 0, ask(1, "a-4")),
            _ => after(&state, 1, ask(0, "d-4")),
        };
        if let Phase::Asked { asked, .. } = state.phase {
            state = after(&state, asked.0, answer("not_held"));
        }
    }
    state
}

#[test]
fn from_rules_version_2_failed_asks_with_a_card_face_up_never_end_the_game() {
    // Rule 9, "The game ends when all the sets have been laid on the table": while a card
    // lies face up any player can make progress by picking it up, so no turn counts.
    let state = failed_asks_with_the_row_full(RULES_VERSION, 200);
    assert_eq!(BritishBirds::outcome(&state), None);
    assert_eq!(state.quiet_turns, 0);
    let view = engine::view_json::<BritishBirds>(&state, Viewer::Spectator);
    assert_eq!(view.public["quiet_turns"], json!(0));
    // Progress is one pick-up away, as it always is while the row has a card.
    let state = after(&state, 0, pick_up("g-1"));
    assert_eq!(state.row[0], Some(card("a-4")));
}

#[test]
fn from_rules_version_2_the_quiet_count_runs_once_nothing_is_left_to_pick_up() {
    // Three players who answer at once; b-5, the last card face up, is picked up by seat 1,
    // and from then on every turn passed counts.
    let state = arrange(
        Options {
            quiet_rounds: 1,
            ..preferences(&[OwlPreference::AlwaysHandOver; 3])
        },
        &[
            &["a-1", "a-3", "owl-1"],
            &["a-2", "a-4"],
            &["a-5", "b-1", "b-2", "b-3", "b-4", "owl-2", "owl-3", "owl-4"],
        ],
        &row(&["b-5"]),
        &[],
        &[("c", 0), ("d", 0), ("e", 1), ("f", 1), ("g", 2), ("h", 2)],
    );
    let state = after(&state, 0, ask(1, "a-5"));
    assert_eq!(state.quiet_turns, 0, "b-5 still lies face up");
    let state = after(&state, 1, pick_up("b-5"));
    assert_eq!(state.quiet_turns, 0);
    let state = after(&state, 2, ask(0, "a-2"));
    assert_eq!(state.quiet_turns, 1);
    let state = after(&state, 0, ask(1, "a-5"));
    assert_eq!(state.quiet_turns, 2);
    let (state, events) = play(&state, 1, ask(0, "a-5"));
    assert_eq!(types(&events), ["ask", "not_held", "game_over"]);
    assert_eq!(
        BritishBirds::outcome(&state).map(|o| o.ending),
        Some(Ending::NoProgress)
    );
}

#[test]
fn under_rules_version_1_failed_asks_end_the_game_even_with_cards_face_up() {
    // The old guard: 10 rounds of a 2-player table, 20 failed asks, end the game 0:0.
    let state = failed_asks_with_the_row_full(1, 200);
    let outcome = BritishBirds::outcome(&state).unwrap();
    assert_eq!(outcome.ending, Ending::NoProgress);
    assert_eq!(outcome.points, vec![0, 0]);
    assert_eq!(state.quiet_turns, 20);
    assert_eq!(state.pack().len(), 23);
}

#[test]
fn passing_a_card_back_and_forth_cannot_go_on_for_ever() {
    let mut state = back_and_forth(DEFAULT_QUIET_ROUNDS);
    let mut turns = 0;
    while engine::outcome_json::<BritishBirds>(&state).is_none() {
        assert!(turns < 1000, "the game did not end");
        match to_act(&state)[0] {
            0 => {
                state = after(&state, 0, ask(1, "a-2"));
                state = after(&state, 0, ask(1, "a-5"));
            }
            1 => {
                state = after(&state, 1, ask(0, "a-2"));
                state = after(&state, 1, ask(0, "a-5"));
            }
            _ => state = after(&state, 2, ask(1, "b-5")),
        }
        turns += 1;
    }
    assert_eq!(turns, 3 * DEFAULT_QUIET_ROUNDS);
    assert_eq!(
        engine::outcome_json::<BritishBirds>(&state).unwrap()["ending"],
        json!("no_progress")
    );
}

#[test]
fn the_deal_shows_each_player_only_their_own_hand_and_everything_else_is_public() {
    let (state, events) = deal_with(
        Options::default(),
        &[
            &["a-1", "a-2", "a-3", "b-1", "b-2", "b-3", "owl-1"],
            &["c-1", "c-2", "c-3", "d-1", "d-2", "d-3", "owl-2"],
        ],
        &["e-1", "e-2", "e-3", "f-1", "f-2", "f-3", "g-1"],
        &[],
    );
    let seat0 = BritishBirds::redact(&events[0], Viewer::Seat(Seat(0)));
    assert_eq!(
        seat0["hand"],
        json!(["a-1", "a-2", "a-3", "b-1", "b-2", "b-3", "owl-1"])
    );
    assert_eq!(seat0["hand_sizes"], json!([7, 7]));
    assert_eq!(
        seat0["row"],
        json!(["e-1", "e-2", "e-3", "f-1", "f-2", "f-3", "g-1"])
    );
    assert_eq!(seat0["pack_size"], json!(23));
    assert!(seat0.get("shuffled").is_none());
    let spectator = BritishBirds::redact(&events[0], Viewer::Spectator);
    assert!(spectator.get("hand").is_none());
    assert!(!spectator.to_string().contains("c-1"));
    assert!(!seat0.to_string().contains("c-1"));

    let view = engine::view_json::<BritishBirds>(&state, Viewer::Seat(Seat(1)));
    assert_eq!(view.seats[0]["hand_size"], json!(7));
    assert_eq!(view.private.unwrap()["hand"][0], json!("c-1"));
    assert!(!serde_json::to_string(&view.public).unwrap().contains("a-1"));
    assert!(engine::view_json::<BritishBirds>(&state, Viewer::Spectator)
        .private
        .is_none());

    let (_, events) = play(&two_players(), 0, ask(1, "a-3"));
    assert_eq!(
        BritishBirds::redact(&events[0], Viewer::Spectator),
        serde_json::to_value(&events[0]).unwrap()
    );
}

#[test]
fn actions_and_events_have_the_documented_json_shapes() {
    assert_eq!(
        action(json!({"type": "ask", "seat": 1, "card": "a-3"})),
        Action::Ask {
            seat: Seat(1),
            card: card("a-3")
        }
    );
    assert_eq!(action(json!({"type": "play_owl"})), Action::PlayOwl);
    assert_eq!(
        action(json!({"type": "set_owl_preference", "preference": "always_play_owl"})),
        Action::SetOwlPreference {
            preference: OwlPreference::AlwaysPlayOwl
        }
    );
    assert_eq!(
        serde_json::to_value(Event::PickUp {
            seat: Seat(0),
            card: card("g-2"),
            replacement: None
        })
        .unwrap(),
        json!({"type": "pick_up", "seat": 0, "card": "g-2", "replacement": null})
    );
    assert_eq!(
        serde_json::to_value(Event::Owl {
            seat: Seat(1),
            owl: card("owl-2"),
            asker: Seat(0),
            card: card("a-3")
        })
        .unwrap(),
        json!({"type": "owl", "seat": 1, "owl": "owl-2", "asker": 0, "card": "a-3"})
    );
    assert_eq!(
        serde_json::to_value(Event::SetLaid {
            seat: Seat(0),
            set: BirdSet(7)
        })
        .unwrap(),
        json!({"type": "set_laid", "seat": 0, "set": "h"})
    );
    assert!(
        serde_json::from_value::<Action>(json!({"type": "ask", "seat": 1, "card": "z-9"})).is_err()
    );
}

#[test]
fn the_catalogue_has_forty_birds_in_eight_sets_and_four_owls() {
    let cards = BritishBirds::cards();
    let cards = cards.as_array().unwrap();
    assert_eq!(cards.len(), 44);
    assert_eq!(cards.iter().filter(|c| c["kind"] == "owl").count(), 4);
    for set in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        let birds: Vec<_> = cards.iter().filter(|c| c["set"] == set).collect();
        assert_eq!(birds.len(), 5);
        let habitat = if set < "e" { "land" } else { "water" };
        assert!(birds.iter().all(|b| b["habitat"] == habitat));
    }
    assert_eq!(
        cards[0],
        json!({"id": "a-1", "name": "Robin", "kind": "bird", "set": "a", "letter": "A", "set_name": "Garden", "habitat": "land", "number": 1})
    );
    let ids = crate::playout::card_ids(&BritishBirds::cards());
    assert_eq!(ids.len(), 44);
}

#[test]
fn tables_of_the_wrong_size_or_with_bad_options_are_refused() {
    assert!(matches!(
        BritishBirds::new(&setup(1, Options::default())),
        Err(SetupError::PlayerCount { .. })
    ));
    assert!(matches!(
        BritishBirds::new(&setup(5, Options::default())),
        Err(SetupError::PlayerCount { .. })
    ));
    let bad = [
        preferences(&[OwlPreference::AskMe]),
        Options {
            quiet_rounds: 0,
            ..Options::default()
        },
        Options {
            play_to: Some(0),
            ..Options::default()
        },
        Options {
            play_to: Some(MAX_PLAY_TO + 1),
            ..Options::default()
        },
        Options {
            play_to: Some(4_000_000_000),
            ..Options::default()
        },
    ];
    for options in bad {
        assert!(matches!(
            BritishBirds::new(&setup(2, options)),
            Err(SetupError::Options(_))
        ));
    }
    assert!(serde_json::from_value::<Options>(json!({"owls": true})).is_err());
    assert_eq!(
        serde_json::from_value::<Options>(json!({})).unwrap(),
        Options::default()
    );
}

#[test]
fn from_rules_version_3_a_new_game_refuses_play_to_and_points_at_matches() {
    let series = Options {
        play_to: Some(50),
        ..Options::default()
    };
    match BritishBirds::new(&setup(2, series).under(3)) {
        Err(SetupError::Options(detail)) => {
            assert!(detail.contains("POST /v1/matches"), "{detail}");
        }
        other => panic!("a version-3 series was not refused: {other:?}"),
    }
    let single = Options {
        play_to: None,
        ..Options::default()
    };
    assert!(BritishBirds::new(&setup(2, single).under(3)).is_ok());
}

#[test]
fn a_game_created_under_rules_version_2_keeps_its_series() {
    for version in [1, LAST_RULES_VERSION_WITH_PLAY_TO] {
        let series = Options {
            play_to: Some(50),
            ..Options::default()
        };
        let state = BritishBirds::new(&setup(2, series).under(version)).unwrap();
        assert_eq!(state.play_to, Some(50), "version {version}");
    }
}

#[test]
fn the_engine_is_in_the_catalogue() {
    let engine = crate::catalog::engine("british-birds").unwrap();
    assert_eq!(engine.describe().name, "British Birds");
}

// When a seat's time runs out (docs/rules/british-birds.md).

/// The move the server makes for `seat` when its clock runs out, as JSON.
fn default(state: &State, seat: u8) -> Option<Value> {
    engine::default_action::<BritishBirds>(state, Seat(seat))
        .map(|a| serde_json::to_value(a).unwrap())
}

/// A row of these cards, the rest of its places empty.
fn row(cards: &[&'static str]) -> [Option<&'static str>; 7] {
    let mut row = EMPTY_ROW;
    for (slot, id) in row.iter_mut().zip(cards) {
        *slot = Some(id);
    }
    row
}

/// Three players, nothing exposed and no pack: sets C to H are laid, A, B and the Owls are in
/// the hands. Seat 0 holds two A cards and a B card (and `extra`); seat 1 five cards; seat 2
/// five more, and `owl-4` too unless seat 0 has it.
fn nothing_exposed(seat_0_owl: bool) -> State {
    let mut seat_0 = vec!["a-1", "a-2", "b-1"];
    let mut seat_2 = vec!["a-4", "b-3", "b-4", "b-5", "owl-2"];
    if seat_0_owl {
        seat_0.push("owl-4");
    } else {
        seat_2.push("owl-4");
    }
    arrange(
        Options::default(),
        &[&seat_0, &["a-3", "a-5", "b-2", "owl-1", "owl-3"], &seat_2],
        &EMPTY_ROW,
        &[],
        &[("c", 1), ("d", 1), ("e", 2), ("f", 2), ("g", 1), ("h", 2)],
    )
}

#[test]
fn a_player_out_of_time_picks_up_the_exposed_card_that_brings_a_set_of_hers_nearest_to_complete() {
    let state = arrange(
        Options::default(),
        &[&["a-1", "a-2", "a-3", "b-1"], &["c-2"]],
        &row(&["b-2", "c-1", "owl-1", "a-4", "d-2", "e-1", "f-1"]),
        &["d-1"],
        &[],
    );
    assert_eq!(default(&state, 0), Some(pick_up("a-4")));
    assert_eq!(default(&state, 1), None);
    let state = after(&state, 0, default(&state, 0).unwrap());
    assert_eq!(hand_of(&state, 0), ["a-1", "a-2", "a-3", "a-4", "b-1"]);
}

#[test]
fn a_player_out_of_time_picks_up_an_owl_before_a_bird_of_a_set_she_holds_none_of() {
    let state = arrange(
        Options::default(),
        &[&["a-1"], &["c-2"]],
        &row(&["c-1", "owl-1", "d-1", "e-1", "f-1", "g-1", "h-1"]),
        &["d-2"],
        &[],
    );
    assert_eq!(default(&state, 0), Some(pick_up("owl-1")));
    // With no Owl and nothing of her sets exposed: the earliest card in catalogue order.
    let state = arrange(
        Options::default(),
        &[&["a-1"], &["c-2"]],
        &row(&["d-1", "c-1", "e-1", "f-1", "g-1", "h-1", "h-2"]),
        &["d-2"],
        &[],
    );
    assert_eq!(default(&state, 0), Some(pick_up("c-1")));
}

#[test]
fn with_nothing_exposed_a_player_out_of_time_asks_the_fullest_hand_for_a_card_of_her_best_set() {
    // She holds two A cards and one B card; seat 2 holds six cards, seat 1 five. Where the
    // card really is (seat 1 holds a-3) plays no part: she cannot see it.
    let state = nothing_exposed(false);
    assert_eq!(default(&state, 0), Some(ask(2, "a-3")));
    let state = after(&state, 0, ask(2, "a-3"));
    assert_eq!(default(&state, 2), Some(answer("not_held")));
    let state = after(&state, 2, answer("not_held"));
    assert_eq!(to_act(&state), [1]);
}

#[test]
fn between_hands_as_full_as_each_other_the_ask_goes_to_the_nearest_on_her_left() {
    let state = nothing_exposed(true);
    assert_eq!(default(&state, 0), Some(ask(1, "a-3")));
}

#[test]
fn a_player_out_of_time_who_is_asked_for_a_card_she_holds_plays_an_owl_if_she_has_one() {
    let state = after(&nothing_exposed(true), 0, ask(1, "a-3"));
    assert_eq!(to_act(&state), [1]);
    assert_eq!(default(&state, 1), Some(answer("play_owl")));
    assert_eq!(default(&state, 0), None);
    let (state, events) = play(&state, 1, answer("play_owl"));
    assert_eq!(types(&events), ["owl"]);
    assert_eq!(hand_of(&state, 1), ["a-3", "a-5", "b-2", "owl-3"]);
}

#[test]
fn a_player_out_of_time_who_is_asked_for_a_card_she_holds_without_an_owl_hands_it_over() {
    let state = three_players();
    let state = after(&state, 0, ask(1, "a-3"));
    assert_eq!(default(&state, 1), Some(answer("hand_over")));
}

#[test]
fn a_player_out_of_time_who_is_asked_for_a_card_she_has_not_got_says_so() {
    let state = three_players();
    let state = after(&state, 0, ask(1, "b-3"));
    assert_eq!(default(&state, 1), Some(answer("not_held")));
}

#[test]
fn default_moves_alone_end_a_game() {
    let mut state = two_players();
    let mut moves = 0;
    while let Some(&seat) = BritishBirds::to_act(&state).first() {
        let body = default(&state, seat.0).unwrap();
        state = after(&state, seat.0, body);
        moves += 1;
        assert!(moves < 5_000, "no end");
    }
    assert!(BritishBirds::outcome(&state).is_some());
    assert_eq!(default(&state, 0), None);
}

// Resigning and forfeiting (docs/rules/british-birds.md).

#[test]
fn a_resignation_ranks_the_others_by_points_for_sets_laid_equal_points_together_and_the_resigner_last(
) {
    let state = arrange(
        Options::default(),
        &[&["c-1"], &["c-2"], &["c-3"], &["f-1"]],
        &FULL_ROW,
        &["f-2"],
        &[("d", 0), ("e", 0), ("a", 1), ("b", 2)],
    );
    let conceded = BritishBirds::concede(&state, Seat(0));
    assert_eq!(
        conceded.ranking,
        vec![vec![Seat(1), Seat(2)], vec![Seat(3)], vec![Seat(0)]]
    );
    assert_eq!(conceded.points, vec![10, 5, 5, 0]);
    assert_eq!(conceded.figures["sets"], vec![2, 1, 1, 0]);
}

#[test]
fn in_a_series_a_resignation_ranks_by_the_series_points_the_game_in_progress_included() {
    let mut state = arrange(
        Options {
            play_to: Some(50),
            ..Options::default()
        },
        &[&["c-1"], &["c-2"], &["c-3"]],
        &FULL_ROW,
        &["f-2"],
        &[("a", 1), ("b", 2)],
    );
    // One game finished before this one: 20, 5 and 25.
    state.finished = vec![[20, 5, 25, 0]];
    let conceded = BritishBirds::concede(&state, Seat(2));
    assert_eq!(conceded.points, vec![20, 10, 30]);
    assert_eq!(conceded.figures["game"], vec![0, 5, 5]);
    assert_eq!(
        conceded.ranking,
        vec![vec![Seat(0)], vec![Seat(1)], vec![Seat(2)]]
    );
}

#[test]
fn at_a_table_of_two_the_other_player_wins_a_resignation_whatever_the_score() {
    let state = arrange(
        Options::default(),
        &[&["c-1"], &["c-2"]],
        &FULL_ROW,
        &["f-2"],
        &[("a", 0), ("b", 0)],
    );
    let conceded = BritishBirds::concede(&state, Seat(0));
    assert_eq!(conceded.ranking, vec![vec![Seat(1)], vec![Seat(0)]]);
    assert_eq!(conceded.points, vec![10, 0]);
}

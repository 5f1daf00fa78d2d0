//! Bots of every level play legal moves to the end of every game and variant, and never see a
//! card their seat cannot.

use serde_json::{json, Value};

use super::arena::Arena;
use super::*;
use crate::catalog;
use crate::chance::{Chance, Seed};
use crate::engine::Table;
use crate::game::Player;

/// A small search, so that the debug-build tests stay quick; the default budget is measured by
/// the tournament instead.
const TEST_BUDGET: Budget = Budget {
    determinizations: 1,
    playouts: 1,
};

const MAX_MOVES: usize = 20_000;

fn bot(level: Level) -> LevelBot<'static> {
    LevelBot {
        level,
        budget: Some(TEST_BUDGET),
        ..LevelBot::new(level)
    }
}

fn engine(game: &str) -> &'static dyn Engine {
    match catalog::engine(game) {
        Some(engine) => engine,
        None => panic!("no game {game}"),
    }
}

/// Every player count, then the catalogue's variants (options that change the pack, the
/// variant or the ending), each at its smallest table: the player count, the options and the
/// rules version each table is created under.
fn configurations(game: &str) -> Vec<(usize, Value, u32)> {
    let d = engine(game).describe();
    let mut configs: Vec<(usize, Value)> = (d.min_players..=d.max_players)
        .map(|players| (players, json!({})))
        .collect();
    // What the bots' tests can afford of the longest games' default tables.
    match game {
        "history-of-england" => {
            // Its games are the longest, and every bot reads the whole log at every move: the
            // smallest table and each series (every player count is played at random by the
            // game's own playout tests).
            configs = vec![(3, json!({}))];
        }
        "googly" => {
            // Every seat count from 1 to 22 plays one of GOOGLY's games by default: one of
            // each, and the team game at a small and a full table.
            configs = vec![
                (1, json!({})),
                (2, json!({})),
                (3, json!({})),
                (4, json!({})),
                (22, json!({})),
            ];
        }
        _ => {}
    }
    let mut configs: Vec<(usize, Value, u32)> = configs
        .into_iter()
        .map(|(players, options)| (players, options, crate::RULES_VERSION))
        .collect();
    let Some(entry) = catalog::entry(game) else {
        panic!("no game {game}")
    };
    for variant in entry.variants {
        configs.push((
            variant.players[0],
            variant.options(),
            variant.rules_version(),
        ));
    }
    configs
}

/// Plays every configuration of `game` to the end with bots of every level.
fn every_level_plays_to_the_end(game: &str) {
    let engine = engine(game);
    for (k, (players, options, version)) in configurations(game).into_iter().enumerate() {
        // Every seat random, every seat steady, and the levels mixed (seat 0 expert, the rest
        // steady and random by turns); every seat expert (the slowest, searching at every
        // move) at the first table only.
        let mut tables: Vec<Vec<LevelBot>> = vec![
            vec![bot(Level::Random); players],
            vec![bot(Level::Steady); players],
            (0..players)
                .map(|s| match s {
                    0 => bot(Level::Expert),
                    s if s % 2 == 1 => bot(Level::Steady),
                    _ => bot(Level::Random),
                })
                .collect(),
        ];
        // (History of England's games are the longest by far: its expert plays in the mixed
        // tables only.)
        if k == 0 && game != "history-of-england" {
            tables.push(vec![bot(Level::Expert); players]);
        }
        for (i, bots) in tables.iter().enumerate() {
            let seed = 1000 + i as u64;
            let mut arena = Arena::open_under(engine, players, &options, seed, version)
                .unwrap_or_else(|e| panic!("{game} {players} {options}: {e}"));
            let outcome = arena
                .play_out(bots, MAX_MOVES)
                .unwrap_or_else(|e| panic!("{game}, {players} players, {options}, table {i}: {e}"));
            assert!(outcome.get("winners").is_some(), "{game}: {outcome}");
        }
    }
}

#[test]
fn in_girl_bots_of_every_level_play_legal_moves_to_the_end() {
    every_level_plays_to_the_end("girl");
}

#[test]
fn in_the_car_game_bots_of_every_level_play_legal_moves_to_the_end() {
    every_level_plays_to_the_end("car");
}

#[test]
fn in_british_birds_bots_of_every_level_play_legal_moves_to_the_end() {
    every_level_plays_to_the_end("british-birds");
}

#[test]
fn in_history_of_england_bots_of_every_level_play_legal_moves_to_the_end() {
    every_level_plays_to_the_end("history-of-england");
}

#[test]
fn in_googly_bots_of_every_level_play_legal_moves_to_the_end() {
    every_level_plays_to_the_end("googly");
}

/// The opening events with two cards of the shuffled pack swapped: seat 1's first card and the
/// bottom card of the pack (in every hidden-hand game, `order[1]` is dealt to seat 1 and the
/// last card is the last the pack gives up). Seat 0 sees neither.
fn swapped(log: &[Recorded]) -> Vec<Recorded> {
    let mut log = log.to_vec();
    for event in &mut log {
        for key in ["deck", "shuffled"] {
            if let Some(Value::Array(order)) =
                event.data.get_mut(key).and_then(|d| d.get_mut("order"))
            {
                let last = order.len() - 1;
                order.swap(1, last);
                return log;
            }
        }
    }
    panic!("no shuffled pack in the opening events");
}

fn open(engine: &dyn Engine, players: usize, options: &Value) -> Box<dyn Table> {
    let players: Vec<Player> = (0..players)
        .map(|i| Player {
            name: format!("p{i}"),
        })
        .collect();
    engine
        .open(&players, options, crate::RULES_VERSION)
        .unwrap()
}

/// Two tables dealt alike but for one card hidden from seat 0, played alike move for move:
/// as long as seat 0 sees the same on both, every level chooses the same for it on both.
/// Returns how many of seat 0's decisions were compared before the card came to light.
fn decisions_alike_while_a_card_is_hidden(game: &str, players: usize, deal: u8) -> usize {
    let engine = engine(game);
    let options = json!({});
    let seed = Seed([deal; 32]);
    let mut a = open(engine, players, &options);
    let opening = a.start(&mut Chance::new(seed, 1));
    let mut log_a: Vec<Recorded> = opening.events.clone();
    a.apply(opening);
    let mut log_b = swapped(&log_a);
    let mut b = open(engine, players, &options);
    for event in &log_b {
        b.apply_recorded(event).unwrap();
    }
    assert!(!a.same_as(b.as_ref()), "{game}: the swap changed nothing");

    let me = Seat(0);
    let mut compared = 0;
    let mut rng = Rng::seed_from_u64(u64::from(deal));
    for step in 0..400 {
        let seen_a = Seen::observe(engine, a.as_ref(), me, &log_a).unwrap();
        let seen_b = Seen::observe(engine, b.as_ref(), me, &log_b).unwrap();
        if seen_a != seen_b {
            // The swapped card has come to light (turned up, asked for, or drawn).
            break;
        }
        if !seen_a.legal().is_empty() {
            for level in Level::ALL {
                let on_a = bot(level).choose(&seen_a, &mut Rng::seed_from_u64(step));
                let on_b = bot(level).choose(&seen_b, &mut Rng::seed_from_u64(step));
                assert_eq!(
                    on_a, on_b,
                    "{game}: {level} chose differently at step {step}"
                );
            }
            compared += 1;
        }
        if a.outcome().is_some() {
            break;
        }
        let to_act = a.to_act();
        let seat = to_act[below(&mut rng, to_act.len())];
        let seen = Seen::observe(engine, a.as_ref(), seat, &log_a).unwrap();
        let Some(action) = bot(Level::Steady).choose(&seen, &mut rng) else {
            break;
        };
        let next = log_a.len() as u64 + 1;
        let on_a = a
            .decide(seat, &action, &mut Chance::new(seed, next))
            .unwrap();
        let Ok(on_b) = b.decide(seat, &action, &mut Chance::new(seed, next)) else {
            break;
        };
        log_a.extend(on_a.events.iter().cloned());
        log_b.extend(on_b.events.iter().cloned());
        a.apply(on_a);
        b.apply(on_b);
    }
    compared
}

/// Over a few deals, at least a handful of seat 0's decisions are compared.
fn a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does(game: &str, players: usize) {
    let compared: usize = (7..12)
        .map(|deal| decisions_alike_while_a_card_is_hidden(game, players, deal))
        .sum();
    assert!(compared >= 5, "{game}: only {compared} decisions compared");
}

#[test]
fn in_girl_a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does() {
    a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does("girl", 3);
}

#[test]
fn in_the_car_game_a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does() {
    a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does("car", 4);
}

#[test]
fn in_british_birds_a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does() {
    a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does("british-birds", 3);
}

#[test]
fn in_history_of_england_a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does() {
    a_card_hidden_from_the_seat_changes_nothing_it_sees_or_does("history-of-england", 4);
}

#[test]
fn the_seat_that_is_shown_the_card_sees_the_difference() {
    // The same swap is no secret from seat 1: its hand differs, so its bot's input does.
    let engine = engine("girl");
    let mut a = open(engine, 3, &json!({}));
    let opening = a.start(&mut Chance::new(Seed([7; 32]), 1));
    let log_a = opening.events.clone();
    a.apply(opening);
    let log_b = swapped(&log_a);
    let mut b = open(engine, 3, &json!({}));
    for event in &log_b {
        b.apply_recorded(event).unwrap();
    }
    let seen_a = Seen::observe(engine, a.as_ref(), Seat(1), &log_a).unwrap();
    let seen_b = Seen::observe(engine, b.as_ref(), Seat(1), &log_b).unwrap();
    assert_ne!(seen_a, seen_b);
}

#[test]
fn the_server_helper_returns_a_complete_legal_move_for_the_seat_to_act() {
    for engine in catalog::engines() {
        let players = engine.describe().min_players.max(2);
        for level in Level::ALL {
            let mut arena = Arena::open(engine, players, &json!({}), 3).unwrap();
            let seat = arena.next_seat().unwrap();
            let action = play(engine, arena.table(), seat, arena.log(), level, 9).unwrap();
            assert!(!action.to_string().contains("\"choose\""), "{action}");
            assert_eq!(
                action,
                play(engine, arena.table(), seat, arena.log(), level, 9).unwrap(),
                "the same seed gives the same move"
            );
            arena.play(seat, &action).unwrap();
        }
    }
}

/// The server stops `expert` at a wall-clock deadline; here a counter stands for the clock, so
/// the test is deterministic. A search told at once that its time is up, whatever its budget,
/// plays no playout and falls back on its best guess without one: `steady`'s move.
#[test]
fn an_expert_whose_time_is_up_at_once_plays_steadys_move() {
    let unbounded = Budget {
        determinizations: usize::MAX,
        playouts: usize::MAX,
    };
    for game in ["girl", "british-birds", "history-of-england"] {
        let engine = engine(game);
        let mut arena = Arena::open(engine, 3, &json!({}), 5).unwrap();
        let mut searched = 0;
        for step in 0..40u64 {
            let Some(seat) = arena.next_seat() else {
                break;
            };
            let asked = std::cell::Cell::new(0usize);
            let up = || {
                asked.set(asked.get() + 1);
                true
            };
            let hurried = LevelBot {
                level: Level::Expert,
                budget: Some(unbounded),
                time_up: TimeUp::when(&up),
            };
            let (table, log) = (arena.table(), arena.log().to_vec());
            let chosen = play_with(engine, table, seat, &log, hurried, step);
            assert_eq!(
                chosen,
                play_with(engine, table, seat, &log, bot(Level::Steady), step),
                "{game}, move {step}"
            );
            assert!(asked.get() <= 1, "{game}: asked {} times", asked.get());
            searched += asked.get();
            let Ok(action) = chosen else { break };
            arena.play(seat, &action).unwrap();
        }
        assert!(searched > 0, "{game}: no search was cut short");
    }
}

/// A search stopped after some playouts is still a function of its seed, and stops there.
#[test]
fn an_expert_stopped_after_a_count_of_playouts_moves_as_its_seed_says() {
    let engine = engine("girl");
    let mut arena = Arena::open(engine, 3, &json!({}), 8).unwrap();
    let mut searched = 0;
    for step in 0..40u64 {
        let Some(seat) = arena.next_seat() else {
            break;
        };
        let (table, log) = (arena.table(), arena.log().to_vec());
        let stopped_after = |count: usize| {
            let asked = std::cell::Cell::new(0usize);
            let up = || {
                asked.set(asked.get() + 1);
                asked.get() > count
            };
            let bot = LevelBot {
                level: Level::Expert,
                budget: None,
                time_up: TimeUp::when(&up),
            };
            let chosen = play_with(engine, table, seat, &log, bot, step).unwrap();
            (chosen, asked.get())
        };
        let (chosen, asked) = stopped_after(50);
        // No question at all: one move worth weighing, so no search.
        if asked > 0 {
            assert_eq!(asked, 51, "asked before each playout until told to stop");
            assert_eq!(stopped_after(50).0, chosen, "the same seed, the same move");
            searched += 1;
        }
        arena.play(seat, &chosen).unwrap();
    }
    assert!(searched > 0, "no search was cut short");
}

#[test]
fn a_seat_with_nothing_to_do_is_told_so() {
    let engine = engine("girl");
    let arena = Arena::open(engine, 3, &json!({}), 3).unwrap();
    // Seat 0 turns up first: seat 1 has nothing to do.
    assert_eq!(
        play(
            engine,
            arena.table(),
            Seat(1),
            arena.log(),
            Level::Steady,
            1
        ),
        Err(BotError::NothingToDo(Seat(1)))
    );
}

#[test]
fn levels_are_named_as_a_seat_asks_for_them() {
    for level in Level::ALL {
        assert_eq!(level.name().parse::<Level>(), Ok(level));
        assert_eq!(serde_json::to_value(level).unwrap(), json!(level.name()));
    }
    assert!("grandmaster".parse::<Level>().is_err());
}

//! Bots for GIRL and The CAR Game (one engine, two themes).
//!
//! - `random` turns up, exposes and lays at random (every lay of the right size alike).
//! - `steady` follows the sheet's "Choosing the 3 cards": "if a player thinks she has a fair
//!   total of points in any 3 of her cards for the HEROINE being played for, then she will
//!   include them", and "if she feels her total is likely to be beaten by other players, she
//!   will choose 3 cards, if possible, which do not show that Heroine — and she would not then
//!   choose a GIRL card, as she would lose it". Her total is "fair" when it reaches a bar that
//!   rises with the number of players laying against her, and is "likely to be beaten" when
//!   some player is known (from the cards she has seen go into that hand: turned up, or
//!   returned to it after a trick) to hold a better three.
//! - `expert` searches ([`crate::bot_kit::search`]) the lays `steady` weighs (the best three, the
//!   cheapest three, the best three keeping the jokers back) and, once the centre pack is used
//!   up, every HEROINE she may lay, over samples of the hidden hands and the centre pack.

use serde_json::Value;

use super::cards::{heroine_of, is_won_for, points};
use super::{
    cheapest_lay, Action, Card, CardSet, Phase, State, Theme, Trick, Trio, LAY, MAX_PLAYERS, PACK,
};
use crate::bot_kit::search::{search, share_of_first, Playouts};
use crate::bot_kit::{
    below, kind, seat_at, shuffle, uniform, unit, Budget, Level, LevelBot, Rng, Seen,
};
use crate::game::Seat;

/// `expert`'s search budget in GIRL and The CAR Game unless one is set: chosen so that a move takes well
/// under a second in a release build on a 2-core machine (the measured times are in
/// `docs/bots.md`).
pub const BUDGET: Budget = Budget {
    determinizations: 32,
    playouts: 64,
};

/// The move of `bot` for the seat that saw `seen`.
pub(crate) fn choose<T: Theme>(seen: &Seen, bot: LevelBot, rng: &mut Rng) -> Option<Value> {
    if bot.level == Level::Random {
        return uniform(seen, rng, |_| 1.0);
    }
    let table = Observed::<T>::read(seen)?;
    let steady = table.steady()?;
    if bot.level == Level::Steady {
        return Some(action_json(&steady));
    }
    let sample = |rng: &mut Rng| table.determinize(rng);
    let budget = bot.budget_or(BUDGET);
    let chosen = search::<Playout<T>>(
        sample,
        &table.candidates(&steady),
        table.me,
        budget,
        bot.time_up,
        rng,
    )
    .unwrap_or(steady);
    Some(action_json(&chosen))
}

fn action_json<T: Theme>(action: &Action<T>) -> Value {
    serde_json::to_value(action).unwrap_or(Value::Null)
}

/// Where a card is, as far as one seat knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Not seen since the deal: in another hand or in the centre pack.
    Unseen,
    /// In this seat's hand (seen going into it).
    Hand(Seat),
    /// Laid face down by this seat for the trick in play (only the seat's own lay is known).
    Laid(Seat),
    /// Won by this seat.
    Won(Seat),
    /// Exposed, or put aside.
    Out,
}

/// The table as one seat has seen it: its view, read into the engine's own terms, and where
/// every card it has seen went (from the redacted log).
struct Observed<T: Theme> {
    /// The rule points of the version the game is played under, for its samples.
    rules: super::Rules,
    me: Seat,
    players: usize,
    phase: Phase,
    hand: CardSet,
    /// The HEROINE played for, by whom, and whether from the hand.
    exposed: Option<(u8, Seat, bool)>,
    centre_pack: usize,
    last_winner: Option<Seat>,
    hand_sizes: Vec<usize>,
    won_counts: Vec<usize>,
    /// Each seat's lay for the trick in play: `Some(count)` once laid.
    laid: Vec<Option<usize>>,
    to_act: Vec<Seat>,
    places: [Place; PACK],
    /// Seats that passed with the centre pack used up: they hold no HEROINE they were not seen
    /// to take back.
    no_heroine: Vec<bool>,
    theme: std::marker::PhantomData<T>,
}

fn card_of<T: Theme>(value: &Value) -> Option<u8> {
    value.as_str().and_then(Card::<T>::from_id).map(Card::index)
}

fn cards_of<T: Theme>(value: Option<&Value>) -> Vec<u8> {
    value
        .and_then(Value::as_array)
        .map(|cards| cards.iter().filter_map(card_of::<T>).collect())
        .unwrap_or_default()
}

impl<T: Theme> Observed<T> {
    fn read(seen: &Seen) -> Option<Observed<T>> {
        let me = seen.seat();
        let players = seen.players();
        let view = seen.view();
        let public = &view.public;
        let turn = seat_at(public, "turn");
        let phase = match public.get("phase").and_then(Value::as_str)? {
            "turn_up" => Phase::TurnUp(turn?),
            "heroine_from_hand" => Phase::HeroineFromHand(turn?),
            "trick" => Phase::Trick,
            "over" => Phase::Over,
            _ => Phase::Deal,
        };
        let exposed = public
            .get("exposed")
            .filter(|e| !e.is_null())
            .and_then(|e| {
                Some((
                    card_of::<T>(e.get("card")?)?,
                    seat_at(e, "by")?,
                    e.get("from_hand")?.as_bool()?,
                ))
            });
        let count = |v: &Value, key: &str| {
            v.get(key)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
        };
        let hand_sizes = view
            .seats
            .iter()
            .map(|s| count(s, "hand"))
            .collect::<Option<Vec<_>>>()?;
        let won_counts = view
            .seats
            .iter()
            .map(|s| count(s, "won"))
            .collect::<Option<Vec<_>>>()?;
        let to_act = public
            .get("to_act")
            .and_then(Value::as_array)
            .map(|seats| {
                seats
                    .iter()
                    .filter_map(|s| s.as_u64().and_then(|n| u8::try_from(n).ok()).map(Seat))
                    .collect()
            })
            .unwrap_or_default();
        let hand: CardSet = cards_of::<T>(seen.private().get("hand"))
            .into_iter()
            .collect();
        let mut observed = Observed {
            rules: super::Rules::of(seen.rules_version()),
            me,
            players,
            phase,
            hand,
            exposed,
            centre_pack: count(public, "centre_pack")?,
            last_winner: seat_at(public, "last_trick_winner"),
            hand_sizes,
            won_counts,
            laid: vec![None; players],
            to_act,
            places: [Place::Unseen; PACK],
            no_heroine: vec![false; players],
            theme: std::marker::PhantomData,
        };
        for event in seen.log() {
            observed.follow(event);
        }
        Some(observed)
    }

    /// Moves the cards `event` shows to where it put them.
    fn follow(&mut self, event: &Value) {
        let seat = seat_at(event, "seat");
        match kind(event) {
            "deal" => {
                self.places = [Place::Unseen; PACK];
                for card in cards_of::<T>(event.get("hand")) {
                    self.places[usize::from(card)] = Place::Hand(self.me);
                }
            }
            "draw" => {
                if let (Some(seat), Some(card)) = (seat, event.get("card").and_then(card_of::<T>)) {
                    self.places[usize::from(card)] = if heroine_of(card).is_some() {
                        Place::Out
                    } else {
                        Place::Hand(seat)
                    };
                    self.laid = vec![None; self.players];
                }
            }
            "expose" => {
                if let Some(card) = event.get("card").and_then(card_of::<T>) {
                    self.places[usize::from(card)] = Place::Out;
                    self.laid = vec![None; self.players];
                }
            }
            "pass" => {
                if let Some(flag) = seat.and_then(|s| self.no_heroine.get_mut(s.index())) {
                    *flag = true;
                }
            }
            "lay" => {
                if let Some(seat) = seat {
                    let count = event.get("count").and_then(Value::as_u64).unwrap_or(0);
                    if let Some(slot) = self.laid.get_mut(seat.index()) {
                        *slot = usize::try_from(count).ok();
                    }
                    for card in cards_of::<T>(event.get("cards")) {
                        self.places[usize::from(card)] = Place::Laid(seat);
                    }
                }
            }
            "reveal" => {
                let lays = event.get("lays").and_then(Value::as_array);
                for (s, lay) in lays.into_iter().flatten().enumerate() {
                    let Ok(s) = u8::try_from(s) else { continue };
                    for card in cards_of::<T>(Some(lay)) {
                        self.places[usize::from(card)] = Place::Laid(Seat(s));
                    }
                }
            }
            "resolve" => {
                let winner = seat_at(event, "winner");
                for card in cards_of::<T>(event.get("won")) {
                    if let Some(winner) = winner {
                        self.places[usize::from(card)] = Place::Won(winner);
                    }
                }
                for card in cards_of::<T>(event.get("set_aside")) {
                    self.places[usize::from(card)] = Place::Out;
                }
                for place in &mut self.places {
                    if let Place::Laid(s) = *place {
                        *place = Place::Hand(s);
                    }
                }
                self.laid = vec![None; self.players];
            }
            _ => {}
        }
    }

    fn known_hand(&self, seat: Seat) -> CardSet {
        (0..=u8::MAX)
            .take(PACK)
            .filter(|c| self.places[usize::from(*c)] == Place::Hand(seat))
            .collect()
    }

    /// Whether `seat` lays against her in the trick in play.
    fn lays_against_her(&self, seat: Seat) -> bool {
        seat != self.me && (self.laid[seat.index()].is_some() || self.to_act.contains(&seat))
    }

    /// The players who lay against her in the trick in play.
    fn rivals(&self) -> usize {
        Seat::all(self.players)
            .filter(|s| self.lays_against_her(*s))
            .count()
    }

    /// `steady`'s move.
    fn steady(&self) -> Option<Action<T>> {
        match self.phase {
            Phase::TurnUp(_) => Some(Action::TurnUp),
            Phase::HeroineFromHand(_) => Some(match self.strongest_heroine() {
                Some(card) => Action::Expose {
                    card: Card::at(card),
                },
                None => Action::Pass,
            }),
            Phase::Trick => {
                let (heroine_card, _, _) = self.exposed?;
                let heroine = heroine_of(heroine_card)?;
                let best = best_lay(self.hand, heroine);
                let total = total(best, heroine);
                let lay = if total > 0 && self.fair(total, heroine) {
                    best
                } else {
                    cheapest_lay(self.hand, heroine)
                };
                Some(Action::Lay {
                    cards: lay.cards().collect(),
                })
            }
            Phase::Deal | Phase::Over => None,
        }
    }

    /// Whether `total` is a "fair total": it reaches the bar for the players laying against
    /// her, and no rival is known to hold better.
    fn fair(&self, mine: u8, heroine: u8) -> bool {
        let bar = bar_against(self.rivals());
        // The best three each rival is known to hold.
        let beaten = Seat::all(self.players)
            .filter(|s| self.lays_against_her(*s))
            .map(|s| total(best_lay(self.known_hand(s), heroine), heroine))
            .max()
            .unwrap_or(0);
        mine >= bar && mine > beaten
    }

    /// The HEROINE she lays from her hand once the centre pack is used up.
    fn strongest_heroine(&self) -> Option<u8> {
        strongest_heroine(self.hand)
    }

    /// The moves `expert` compares: `steady`'s first.
    fn candidates(&self, steady: &Action<T>) -> Vec<Action<T>> {
        let mut moves = vec![steady.clone()];
        match self.phase {
            Phase::Trick => {
                if let Some(heroine) = self.exposed.and_then(|(c, _, _)| heroine_of(c)) {
                    let jokers = self
                        .hand
                        .minus(CardSet::HEROINES)
                        .iter()
                        .filter(|c| matches!(super::cards::kind(*c), super::Kind::Joker));
                    let without_jokers = jokers.fold(self.hand, |mut h, c| {
                        h.remove(c);
                        h
                    });
                    let mut lays = vec![
                        best_lay(self.hand, heroine),
                        cheapest_lay(self.hand, heroine),
                    ];
                    if without_jokers.len() >= self.hand.len().min(LAY) {
                        lays.push(best_lay(without_jokers, heroine));
                    }
                    for lay in lays {
                        moves.push(Action::Lay {
                            cards: lay.cards().collect(),
                        });
                    }
                }
            }
            Phase::HeroineFromHand(_) => {
                for card in self.hand.intersection(CardSet::HEROINES).cards::<T>() {
                    moves.push(Action::Expose { card });
                }
            }
            _ => {}
        }
        moves
    }

    /// A full state consistent with all she has seen: every card she has not seen dealt at
    /// random into the other hands, their lays and the centre pack, as many to each as the
    /// table shows, no HEROINE to a player who has passed.
    fn determinize(&self, rng: &mut Rng) -> Option<State<T>> {
        let players = self.players;
        let mut hands = [CardSet::EMPTY; MAX_PLAYERS];
        let mut won = [CardSet::EMPTY; MAX_PLAYERS];
        let mut set_aside = CardSet::EMPTY;
        let mut unseen: Vec<u8> = Vec::new();
        let mut mine_laid = CardSet::EMPTY;
        for (card, place) in (0..=u8::MAX).zip(self.places.iter()) {
            if self.hand.contains(card) {
                continue;
            }
            match *place {
                Place::Unseen => unseen.push(card),
                Place::Hand(s) if s != self.me => hands[s.index()].insert(card),
                Place::Laid(s) if s == self.me => mine_laid.insert(card),
                Place::Won(s) => won[s.index()].insert(card),
                Place::Out => set_aside.insert(card),
                Place::Hand(_) | Place::Laid(_) => {}
            }
        }
        let exposed = self.exposed.map(|(c, _, _)| c);
        if let Some(card) = exposed {
            set_aside.remove(card);
        }
        hands[self.me.index()] = self.hand;
        // The unseen cards go to the slots the table shows: each other hand (with its lay) up
        // to its size, then the centre pack.
        let mut room = [0usize; MAX_PLAYERS];
        for s in Seat::all(players).filter(|s| *s != self.me) {
            let size = self.hand_sizes[s.index()] + self.laid[s.index()].unwrap_or(0);
            room[s.index()] = size.checked_sub(hands[s.index()].len())?;
        }
        let pack_room = self.centre_pack;
        if room.iter().sum::<usize>() + pack_room != unseen.len() {
            return None;
        }
        for s in Seat::all(players) {
            if won[s.index()].len() != self.won_counts[s.index()] {
                return None;
            }
        }
        shuffle(rng, &mut unseen);
        // HEROINE cards first, so that those who passed can be kept from them.
        unseen.sort_by_key(|c| heroine_of(*c).is_none());
        let mut pack: Vec<u8> = Vec::with_capacity(pack_room);
        for card in unseen {
            let heroine = heroine_of(card).is_some();
            let open: Vec<usize> = Seat::all(players)
                .filter(|s| room[s.index()] > 0 && !(heroine && self.no_heroine[s.index()]))
                .map(|s| s.index())
                .collect();
            let open_total: usize = open.iter().map(|s| room[*s]).sum();
            let pack_open = pack_room - pack.len();
            let pick = below(rng, open_total + pack_open);
            if pick >= open_total {
                pack.push(card);
                continue;
            }
            let mut at = pick;
            for s in open {
                if at < room[s] {
                    hands[s].insert(card);
                    room[s] -= 1;
                    break;
                }
                at -= room[s];
            }
        }
        if room.iter().any(|r| *r > 0) || pack.len() != pack_room {
            return None;
        }
        let trick = match (self.phase, self.exposed) {
            (Phase::Trick, Some((heroine, exposed_by, from_hand))) => {
                let mut lays = [CardSet::EMPTY; MAX_PLAYERS];
                let mut to_lay = 0u8;
                let mut laid = 0u8;
                for s in Seat::all(players) {
                    let bit = super::seat_bit(s);
                    if self.to_act.contains(&s) {
                        to_lay |= bit;
                    }
                    let Some(count) = self.laid[s.index()] else {
                        continue;
                    };
                    to_lay |= bit;
                    laid |= bit;
                    if s == self.me {
                        lays[s.index()] = mine_laid;
                        continue;
                    }
                    let mut cards: Vec<u8> = hands[s.index()].iter().collect();
                    shuffle(rng, &mut cards);
                    for card in cards.into_iter().take(count) {
                        hands[s.index()].remove(card);
                        lays[s.index()].insert(card);
                    }
                }
                Some(Trick {
                    heroine,
                    exposed_by,
                    from_hand,
                    lays,
                    to_lay,
                    laid,
                })
            }
            (Phase::Trick, None) => return None,
            _ => None,
        };
        let mut pack_cards = [0u8; PACK];
        for (slot, card) in pack_cards.iter_mut().zip(&pack) {
            *slot = *card;
        }
        Some(State {
            rules: self.rules,
            players: u8::try_from(players).ok()?,
            phase: self.phase,
            hands,
            won,
            pack: pack_cards,
            pack_next: 0,
            pack_end: u8::try_from(pack.len()).ok()?,
            set_aside,
            last_winner: self.last_winner,
            trick,
            last_trick: None,
            last_move: None,
            theme: std::marker::PhantomData,
        })
    }
}

/// The three (or fewer) cards of `hand` scoring most for `heroine`; equal ones in pack order,
/// so a card she would not lose (another HEROINE) is not picked over one she would.
fn best_lay(hand: CardSet, heroine: u8) -> CardSet {
    let mut cards: Vec<u8> = hand.iter().collect();
    cards.sort_by_key(|card| {
        (
            std::cmp::Reverse(points(*card, heroine)),
            is_won_for(*card, heroine),
            *card,
        )
    });
    cards.into_iter().take(hand.len().min(LAY)).collect()
}

/// The least "fair total" against `rivals` players laying against her: 6 against one, 7
/// against two, 8 against three or more (anything at all against nobody).
fn bar_against(rivals: usize) -> u8 {
    match rivals {
        0 => 1,
        1 => 6,
        2 => 7,
        _ => 8,
    }
}

/// The HEROINE to lay from `hand` once the centre pack is used up: the one the rest of the
/// hand scores most for, so that the trick is likely hers.
fn strongest_heroine(hand: CardSet) -> Option<u8> {
    hand.intersection(CardSet::HEROINES)
        .iter()
        .max_by_key(|card| {
            let mut rest = hand;
            rest.remove(*card);
            let heroine = heroine_of(*card).unwrap_or(0);
            (
                total(best_lay(rest, heroine), heroine),
                std::cmp::Reverse(*card),
            )
        })
}

fn total(lay: CardSet, heroine: u8) -> u8 {
    lay.iter().map(|card| points(card, heroine)).sum()
}

/// How `expert` plays on after each candidate.
struct Playout<T>(std::marker::PhantomData<T>);

impl<T: Theme> Playouts for Playout<T> {
    type G = Trio<T>;
    type Memo = ();

    // About a fifth of a second of playouts at the moves' usual cost in a release build.
    const MOVE_CAP: usize = 2_000_000;

    /// Playouts play as `steady` does, seeing only their own hand: the best three when they
    /// reach the bar for the players laying against them (6, 7, 8), else the cheapest three;
    /// from the hand, the HEROINE the rest of it scores most for. Now and then (one lay in
    /// five) the bar is drawn afresh, somewhere between a timid and a bold player, so that the
    /// playouts do not all follow one line.
    fn playout_move(state: &State<T>, _memo: &(), seat: Seat, rng: &mut Rng) -> Option<Action<T>> {
        match state.phase {
            Phase::TurnUp(_) => Some(Action::TurnUp),
            Phase::HeroineFromHand(_) => Some(match strongest_heroine(state.hand(seat)) {
                Some(card) => Action::Expose {
                    card: Card::at(card),
                },
                None => Action::Pass,
            }),
            Phase::Trick => {
                let heroine = heroine_of(state.trick?.heroine)?;
                let hand = state.hand(seat);
                let best = best_lay(hand, heroine);
                let rivals = Seat::all(state.players())
                    .filter(|s| *s != seat && !state.hand(*s).is_empty())
                    .count();
                #[allow(clippy::cast_possible_truncation)]
                let bar = if unit(rng) < 0.2 {
                    4 + below(rng, 6) as u8
                } else {
                    bar_against(rivals)
                };
                let lay = if total(best, heroine) >= bar {
                    best
                } else {
                    cheapest_lay(hand, heroine)
                };
                Some(Action::Lay {
                    cards: lay.cards().collect(),
                })
            }
            Phase::Deal | Phase::Over => None,
        }
    }

    fn reward(state: &State<T>, seat: Seat) -> f64 {
        let scores: Vec<f64> = state.scores().into_iter().map(f64::from).collect();
        share_of_first(&scores, seat, 10.0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::bots::{play, Level};
    use crate::chance::Shuffled;
    use crate::engine::{record, Engine, EngineOf, Table};
    use crate::game::Player;
    use crate::tricks::{Event, Girl, GirlGame};

    static GIRL: EngineOf<GirlGame> = EngineOf::new();

    /// A table of `players` dealt from an explicit order: `hands[s]` seat s's seven cards, then
    /// `top` on top of the centre pack, then every other card.
    fn dealt(hands: &[[&str; 7]], top: &[&str]) -> (Box<dyn Table>, Vec<crate::engine::Recorded>) {
        let players = hands.len();
        let mut order: Vec<Card<Girl>> = Vec::new();
        for k in 0..7 * players {
            order.push(Card::from_id(hands[k % players][k / players]).unwrap());
        }
        order.extend(top.iter().map(|id| Card::<Girl>::from_id(id).unwrap()));
        for card in Card::<Girl>::all() {
            if !order.contains(&card) {
                order.push(card);
            }
        }
        let players: Vec<Player> = (0..players)
            .map(|i| Player {
                name: format!("p{i}"),
            })
            .collect();
        let mut table = GIRL
            .open(&players, &json!({}), crate::RULES_VERSION)
            .unwrap();
        let deal = record(&Event::<Girl>::Deal {
            dealer: Seat(u8::try_from(players.len() - 1).unwrap()),
            deck: Shuffled { stream: 0, order },
        });
        table.apply_recorded(&deal).unwrap();
        (table, vec![deal])
    }

    fn turn_up(table: &mut Box<dyn Table>, log: &mut Vec<crate::engine::Recorded>, seat: Seat) {
        let decision = table
            .decide(
                seat,
                &json!({"type": "turn_up"}),
                &mut crate::chance::Chance::new(crate::chance::Seed([0; 32]), 2),
            )
            .unwrap();
        log.extend(decision.events.iter().cloned());
        table.apply(decision);
    }

    fn laid(action: &Value) -> Vec<String> {
        let mut cards: Vec<String> = action["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        cards.sort();
        cards
    }

    #[test]
    fn steady_holding_a_poor_total_lays_three_cards_that_do_not_show_the_heroine_and_keeps_its_girl_card(
    ) {
        // Wendy is turned up. Seat 0 holds one GIRL card, one TRIO card showing Wendy low
        // (trio-16 DAB: Wendy 2), and five that do not show her.
        let (mut table, mut log) = dealt(
            &[
                [
                    "girl-1", "trio-14", "trio-16", "trio-07", "trio-09", "trio-12", "trio-13",
                ],
                [
                    "trio-01", "trio-02", "trio-03", "trio-04", "trio-05", "girl-2", "wendy-2",
                ],
                [
                    "trio-10", "trio-14", "trio-17", "trio-18", "trio-20", "trio-23", "trio-24",
                ],
            ],
            &["wendy-1"],
        );
        turn_up(&mut table, &mut log, Seat(0));
        let action = play(&GIRL, table.as_ref(), Seat(0), &log, Level::Steady, 1).unwrap();
        // Her best three (GIRL 4, Wendy 2, nothing) make 6 against two rivals: not a fair
        // total, so she keeps everything that shows Wendy and her GIRL card.
        assert_eq!(laid(&action), vec!["trio-07", "trio-09", "trio-12"]);
    }

    #[test]
    fn steady_with_a_fair_total_lays_its_best_three_girl_card_and_all() {
        let (mut table, mut log) = dealt(
            &[
                [
                    "girl-1", "wendy-2", "trio-01", "trio-07", "trio-09", "trio-12", "trio-13",
                ],
                [
                    "trio-02", "trio-03", "trio-04", "trio-05", "trio-08", "girl-2", "trio-16",
                ],
                [
                    "trio-10", "trio-14", "trio-17", "trio-18", "trio-20", "trio-23", "trio-24",
                ],
            ],
            &["wendy-1"],
        );
        turn_up(&mut table, &mut log, Seat(0));
        let action = play(&GIRL, table.as_ref(), Seat(0), &log, Level::Steady, 1).unwrap();
        assert_eq!(laid(&action), vec!["girl-1", "trio-01", "wendy-2"]);
    }

    #[test]
    fn steady_knows_a_rival_who_turned_up_strong_cards_will_beat_it() {
        // Seat 1 turns up the GIRL card, trio-01 (Wendy 3) and trio-05 (Wendy 3) before wendy-1
        // appears: seat 0's 9 (its own GIRL card and wendy-2) is a fair total against one
        // rival, but seat 1 is known to hold 10, so seat 0 stays out.
        let (mut table, mut log) = dealt(
            &[
                [
                    "girl-1", "wendy-2", "trio-07", "trio-09", "trio-12", "trio-13", "trio-14",
                ],
                [
                    "trio-02", "trio-03", "trio-04", "trio-06", "trio-08", "trio-10", "trio-16",
                ],
            ],
            &[
                "trio-20", "girl-2", "trio-23", "trio-01", "trio-24", "trio-05", "wendy-1",
            ],
        );
        for seat in [0, 1, 0, 1, 0, 1, 0] {
            turn_up(&mut table, &mut log, Seat(seat));
        }
        let action = play(&GIRL, table.as_ref(), Seat(0), &log, Level::Steady, 1).unwrap();
        let cards = laid(&action);
        assert!(!cards.contains(&"girl-1".to_string()), "{cards:?}");
        assert!(!cards.contains(&"wendy-2".to_string()), "{cards:?}");
    }
}

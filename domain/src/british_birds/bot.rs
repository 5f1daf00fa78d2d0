//! Bots for British Birds.
//!
//! - `random` picks up, asks and answers at random; it never changes its standing Owl
//!   preference (a setting for an absent player, not a move of the game).
//! - `steady` plays as the sheet's rules advise. Rule 4: "if a prayer asks another player for
//!   a card and gets it, he may go on asking ... or pick up an exposed card, which will end his
//!   turn", so it asks first while it knows where a card it wants is, and always for the cards
//!   of the set it is closest to completing (rule 8: "as soon as a player has collected a set
//!   of 5 cards ... he lays them"); it picks up when no ask is promising. It remembers what the
//!   log shows: every card picked up or handed over, every "not held" and every Owl. Rule 7's
//!   Owl it keeps for the card that would complete the asker's set (or one of its own four).
//! - `expert` searches ([`crate::bot_kit::search`]) `steady`'s move against the most useful
//!   pick-up and the most promising asks (or, when asked, Owl against hand over) over samples
//!   of the hidden hands and the pack.

use serde_json::Value;

use super::cards::{Hand, BIRD_CARDS, CARDS, MAX_PLAYERS, ROW, SETS};
use super::{
    best_pick_up, usefulness, Action, BirdSet, BritishBirds, Card, Event, OwlPreference, Phase,
    State,
};
use crate::bot_kit::search::{search_remembering, share_of_first, Playouts};
use crate::bot_kit::{below, kind, seat_at, shuffle, uniform, Budget, Level, LevelBot, Rng, Seen};
use crate::game::{Game, Seat};

/// `expert`'s search budget in British Birds unless one is set: chosen so that a move takes well
/// under a second in a release build on a 2-core machine (the measured times are in
/// `docs/bots.md`).
pub const BUDGET: Budget = Budget {
    determinizations: 24,
    playouts: 60,
};

/// The move of `bot` for the seat that saw `seen`.
pub(crate) fn choose(seen: &Seen, bot: LevelBot, rng: &mut Rng) -> Option<Value> {
    if bot.level == Level::Random {
        return uniform(seen, rng, |action| {
            if kind(action) == "set_owl_preference" {
                0.0
            } else {
                1.0
            }
        });
    }
    let table = Observed::read(seen)?;
    let steady = table.steady()?;
    if bot.level == Level::Steady {
        return serde_json::to_value(&steady).ok();
    }
    let record = table.record();
    let sample = |rng: &mut Rng| table.determinize(rng).map(|state| (state, record.clone()));
    let budget = bot.budget_or(BUDGET);
    let chosen = search_remembering::<Playout>(
        sample,
        &table.candidates(&steady),
        table.me,
        budget,
        bot.time_up,
        rng,
    )
    .unwrap_or(steady);
    serde_json::to_value(&chosen).ok()
}

/// Where a card is, as far as one seat knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Dealt to another hand or still in the pack: not seen since the deal.
    Unseen,
    /// In this seat's hand.
    Hand(Seat),
    /// Face up in the row, laid in a set, or an Owl played onto the table.
    Table,
}

/// The table as one seat has seen it.
struct Observed {
    /// The rule points of the version the game is played under, for its samples.
    rules: super::Rules,
    me: Seat,
    players: usize,
    hand: Hand,
    row: [Option<Card>; ROW],
    pack_size: usize,
    laid: [Option<Seat>; SETS],
    owls: [Option<Seat>; 4],
    hand_sizes: Vec<usize>,
    preferences: Vec<OwlPreference>,
    totals: Vec<u32>,
    turn: Option<Seat>,
    /// The ask waiting for this seat's answer: who asked, for what.
    asked: Option<(Seat, Seat, Card)>,
    quiet_turns: u32,
    quiet_limit: u32,
    game: u32,
    first: Seat,
    places: [Place; CARDS],
    /// The cards each seat said it had not got (while they stay unseen).
    lacks: Vec<u64>,
    /// The sets each seat has asked for a card of: it holds one of each (rule 2b).
    interests: Vec<u8>,
    /// The cards everyone saw go into a hand (picked up, handed over, kept with an Owl).
    shown: u64,
}

fn card(value: &Value) -> Option<Card> {
    value.as_str().and_then(Card::from_id)
}

fn number(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

impl Observed {
    fn read(seen: &Seen) -> Option<Observed> {
        let me = seen.seat();
        let players = seen.players();
        let view = seen.view();
        let public = &view.public;
        let mut row = [None; ROW];
        for (slot, value) in row
            .iter_mut()
            .zip(public.get("row").and_then(Value::as_array)?)
        {
            *slot = card(value);
        }
        let mut laid = [None; SETS];
        for entry in public.get("laid").and_then(Value::as_array)? {
            let set: BirdSet = serde_json::from_value(entry.get("set")?.clone()).ok()?;
            laid[usize::from(set.0)] = seat_at(entry, "seat");
        }
        let mut owls = [None; 4];
        for entry in public.get("owls").and_then(Value::as_array)? {
            let owl = card(entry.get("card")?)?;
            let slot = owls.get_mut(usize::from(owl.0.checked_sub(BIRD_CARDS)?))?;
            *slot = seat_at(entry, "seat");
        }
        let hand_sizes = view
            .seats
            .iter()
            .map(|s| number(s, "hand_size").and_then(|n| usize::try_from(n).ok()))
            .collect::<Option<Vec<_>>>()?;
        let preferences = view
            .seats
            .iter()
            .map(|s| serde_json::from_value(s.get("owl_preference")?.clone()).ok())
            .collect::<Option<Vec<OwlPreference>>>()?;
        let totals = view
            .seats
            .iter()
            .map(|s| {
                number(s, "total")
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0)
            })
            .collect();
        let asked = public.get("asked").filter(|a| !a.is_null()).and_then(|a| {
            Some((
                seat_at(a, "asker")?,
                seat_at(a, "seat")?,
                card(a.get("card")?)?,
            ))
        });
        let mut hand = Hand::default();
        for value in seen.private().get("hand").and_then(Value::as_array)? {
            hand.add(card(value)?);
        }
        let mut observed = Observed {
            rules: super::Rules::of(seen.rules_version()),
            me,
            players,
            hand,
            row,
            pack_size: usize::try_from(number(public, "pack_size")?).ok()?,
            laid,
            owls,
            hand_sizes,
            preferences,
            totals,
            turn: seat_at(public, "turn"),
            asked,
            quiet_turns: u32::try_from(number(public, "quiet_turns")?).ok()?,
            quiet_limit: u32::try_from(number(public, "quiet_limit")?).ok()?,
            game: u32::try_from(number(public, "game")?).ok()?,
            first: Seat(0),
            places: [Place::Unseen; CARDS],
            lacks: vec![0; players],
            interests: vec![0; players],
            shown: 0,
        };
        for event in seen.log() {
            observed.follow(event);
        }
        Some(observed)
    }

    fn put(&mut self, card: Option<Card>, place: Place) {
        if let Some(card) = card {
            self.places[usize::from(card.0)] = place;
        }
    }

    /// Puts `card` in `seat`'s hand, in sight of everyone.
    fn show(&mut self, card: Option<Card>, seat: Seat) {
        if let Some(card) = card {
            self.shown |= card.bit();
        }
        self.put(card, Place::Hand(seat));
    }

    /// What everyone at the table knows (the start of a playout's [`Record`]): the cards seen
    /// going into a hand, this seat's own dealt cards not among them, and every "not held".
    fn record(&self) -> Record {
        let mut record = Record::default();
        for card in Card::all() {
            if let Place::Hand(seat) = self.places[usize::from(card.0)] {
                if seat != self.me || self.shown & card.bit() != 0 {
                    record.held[usize::from(card.0)] = Some(seat);
                }
            }
        }
        for (slot, lacks) in record.lacks.iter_mut().zip(&self.lacks) {
            *slot = *lacks;
        }
        record
    }

    /// Moves the cards `event` shows to where it put them.
    fn follow(&mut self, event: &Value) {
        let seat = seat_at(event, "seat");
        match kind(event) {
            "deal" => {
                self.places = [Place::Unseen; CARDS];
                self.lacks = vec![0; self.players];
                self.interests = vec![0; self.players];
                self.shown = 0;
                self.first = seat_at(event, "first").unwrap_or(Seat(0));
                for value in event
                    .get("hand")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.put(card(value), Place::Hand(self.me));
                }
                for value in event
                    .get("row")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.put(card(value), Place::Table);
                }
            }
            "pick_up" => {
                if let Some(seat) = seat {
                    self.show(event.get("card").and_then(card), seat);
                }
                self.put(event.get("replacement").and_then(card), Place::Table);
            }
            "ask" => {
                if let (Some(seat), Some(set)) =
                    (seat, event.get("card").and_then(card).and_then(Card::set))
                {
                    if let Some(mask) = self.interests.get_mut(seat.index()) {
                        *mask |= 1 << set.0;
                    }
                }
            }
            "hand_over" => {
                if let Some(to) = seat_at(event, "to") {
                    self.show(event.get("card").and_then(card), to);
                }
            }
            "owl" => {
                if let Some(seat) = seat {
                    self.put(event.get("owl").and_then(card), Place::Table);
                    self.show(event.get("card").and_then(card), seat);
                }
            }
            "not_held" => {
                if let (Some(seat), Some(card)) = (seat, event.get("card").and_then(card)) {
                    if let Some(lacks) = self.lacks.get_mut(seat.index()) {
                        *lacks |= card.bit();
                    }
                }
            }
            "set_laid" => {
                if let Some(set) = event
                    .get("set")
                    .and_then(|s| serde_json::from_value::<BirdSet>(s.clone()).ok())
                {
                    for card in set.cards() {
                        self.put(Some(card), Place::Table);
                    }
                }
            }
            _ => {}
        }
    }

    fn in_row(&self, card: Card) -> bool {
        self.row.contains(&Some(card))
    }

    fn cards_of(&self, hand: Hand, set: BirdSet) -> u32 {
        (hand.0 & set.mask()).count_ones()
    }

    fn known_hand(&self, seat: Seat) -> Hand {
        let mut hand = Hand::default();
        for card in Card::all() {
            if self.places[usize::from(card.0)] == Place::Hand(seat) {
                hand.add(card);
            }
        }
        hand
    }

    /// The hand's cards not yet seen, for `seat`: its size less the cards known in it.
    fn unseen_room(&self, seat: Seat) -> usize {
        self.hand_sizes[seat.index()].saturating_sub(self.known_hand(seat).len())
    }

    /// How likely `seat` is to hold `card`, from what the log shows: 1 if it was seen going
    /// in, 0 if it said it has not got it or the card is elsewhere, else its share of the
    /// places the unseen cards could be.
    fn chance_held(&self, seat: Seat, card: Card) -> f64 {
        match self.places[usize::from(card.0)] {
            Place::Hand(s) => f64::from(u8::from(s == seat)),
            Place::Table => 0.0,
            Place::Unseen if self.lacks[seat.index()] & card.bit() != 0 => 0.0,
            Place::Unseen => {
                let room: usize = Seat::all(self.players)
                    .filter(|s| *s != self.me && self.lacks[s.index()] & card.bit() == 0)
                    .map(|s| self.unseen_room(s))
                    .sum::<usize>()
                    + self.pack_size;
                // Small counts.
                #[allow(clippy::cast_precision_loss)]
                let share = self.unseen_room(seat) as f64 / room.max(1) as f64;
                share
            }
        }
    }

    /// The asks open to her: for each card she lacks of a set she holds, the seat likeliest to
    /// hold it, with that likelihood; the sets she holds most of first.
    fn asks(&self) -> Vec<(u32, f64, Action)> {
        let mut asks = Vec::new();
        for set in BirdSet::all().filter(|s| self.hand.holds_any_of(*s)) {
            let mine = self.cards_of(self.hand, set);
            for card in set.cards() {
                if self.hand.holds(card) || self.in_row(card) {
                    continue;
                }
                let best = Seat::all(self.players)
                    .filter(|s| *s != self.me && self.hand_sizes[s.index()] > 0)
                    .map(|s| (self.chance_held(s, card), s))
                    .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
                if let Some((chance, seat)) = best {
                    asks.push((mine, chance, Action::Ask { seat, card }));
                }
            }
        }
        asks.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)));
        asks
    }

    /// `steady`'s move.
    fn steady(&self) -> Option<Action> {
        if let Some((asker, _, card)) = self.asked {
            return Some(self.answer(asker, card));
        }
        let asks = self.asks();
        // A sure ask (the card was seen going into that hand) for the nearest set first; an ask
        // of even odds for a set of three or more before a pick-up.
        let sure = asks.iter().find(|(_, chance, _)| *chance >= 1.0);
        let hopeful = asks
            .iter()
            .find(|(mine, chance, _)| *mine >= 3 && *chance >= 0.5);
        if let Some((_, _, ask)) = sure.or(hopeful) {
            return Some(ask.clone());
        }
        if let Some(card) = self.best_pick_up() {
            return Some(Action::PickUp { card });
        }
        asks.first().map(|(_, _, ask)| ask.clone())
    }

    /// The exposed card that brings one of her sets nearest to complete (an Owl above a card
    /// of a set she holds none of), as the game's own default picks.
    fn best_pick_up(&self) -> Option<Card> {
        self.row
            .iter()
            .flatten()
            .copied()
            .max_by_key(|card| (usefulness(self.hand, *card), std::cmp::Reverse(*card)))
    }

    /// Her answer to `asker`, who asked for `card`: an Owl (rule 7) only to stop the asker
    /// completing the set (the asker is known to hold or may hold every other card of it, and
    /// at most one of them is not known to be there) or to keep one of her own set of four.
    fn answer(&self, asker: Seat, card: Card) -> Action {
        if !self.hand.holds(card) {
            return Action::NotHeld;
        }
        if self.hand.first_owl().is_none() {
            return Action::HandOver;
        }
        let Some(set) = card.set() else {
            return Action::HandOver;
        };
        if self.cards_of(self.hand, set) >= 4 {
            return Action::PlayOwl;
        }
        let known = self.known_hand(asker);
        let mut uncertain = 0;
        let mut possible = true;
        for other in set.cards().filter(|c| *c != card) {
            if known.holds(other) {
                continue;
            }
            if self.chance_held(asker, other) > 0.0 {
                uncertain += 1;
            } else {
                possible = false;
            }
        }
        if possible && uncertain <= 1 {
            Action::PlayOwl
        } else {
            Action::HandOver
        }
    }

    /// The moves `expert` compares: `steady`'s first, then the most useful pick-up and the
    /// three most promising asks (or, when asked, the Owl and the hand-over).
    fn candidates(&self, steady: &Action) -> Vec<Action> {
        let mut moves = vec![steady.clone()];
        if let Some((_, _, card)) = self.asked {
            if self.hand.holds(card) && self.hand.first_owl().is_some() {
                moves.push(Action::PlayOwl);
                moves.push(Action::HandOver);
            }
        } else {
            // Few candidates, each searched well, beat many searched thinly: the best pick-up
            // and the three most promising asks.
            if let Some(card) = self.best_pick_up() {
                moves.push(Action::PickUp { card });
            }
            let mut asks = self.asks();
            asks.retain(|(_, chance, _)| *chance > 0.0);
            asks.truncate(3);
            moves.extend(asks.into_iter().map(|(_, _, ask)| ask));
        }
        moves
    }

    /// A full state consistent with what she has seen: the unseen cards dealt at random to the
    /// other hands (to their sizes, none to a hand that said it has not got it) and the pack.
    /// A series is cut to the game in progress, the points of the games before it kept.
    fn determinize(&self, rng: &mut Rng) -> Option<State> {
        let players = self.players;
        let mut hands = [Hand::default(); MAX_PLAYERS];
        let mut unseen: Vec<Card> = Vec::new();
        for card in Card::all() {
            if self.hand.holds(card) {
                continue;
            }
            match self.places[usize::from(card.0)] {
                Place::Hand(s) if s != self.me => hands[s.index()].add(card),
                Place::Unseen => unseen.push(card),
                Place::Hand(_) | Place::Table => {}
            }
        }
        hands[self.me.index()] = self.hand;
        let mut room = [0usize; MAX_PLAYERS];
        for s in Seat::all(players).filter(|s| *s != self.me) {
            room[s.index()] = self.hand_sizes[s.index()].checked_sub(hands[s.index()].len())?;
        }
        if room.iter().sum::<usize>() + self.pack_size != unseen.len() {
            return None;
        }
        shuffle(rng, &mut unseen);
        // The cards fewest hands may hold go first, so that none is left without a place.
        unseen.sort_by_key(|card| {
            Seat::all(players)
                .filter(|s| self.lacks[s.index()] & card.bit() != 0)
                .count()
                == 0
        });
        let mut pack: Vec<Card> = Vec::with_capacity(self.pack_size);
        for card in unseen {
            let open: Vec<usize> = Seat::all(players)
                .filter(|s| room[s.index()] > 0 && self.lacks[s.index()] & card.bit() == 0)
                .map(|s| s.index())
                .collect();
            let open_total: usize = open.iter().map(|s| room[*s]).sum();
            let pack_open = self.pack_size - pack.len();
            if open_total + pack_open == 0 {
                return None;
            }
            let mut at = below(rng, open_total + pack_open);
            if at >= open_total {
                pack.push(card);
                continue;
            }
            for s in open {
                if at < room[s] {
                    hands[s].add(card);
                    room[s] -= 1;
                    break;
                }
                at -= room[s];
            }
        }
        let mut deal_order = [Card(0); CARDS];
        let start = CARDS.checked_sub(pack.len())?;
        for (slot, card) in deal_order[start..].iter_mut().zip(&pack) {
            *slot = *card;
        }
        let phase = match (self.asked, self.turn) {
            (Some((asker, asked, card)), _) => Phase::Asked { asker, asked, card },
            (None, Some(seat)) => Phase::Turn { seat },
            (None, None) => return None,
        };
        let mut preferences = [OwlPreference::AskMe; MAX_PLAYERS];
        for (slot, preference) in preferences.iter_mut().zip(&self.preferences) {
            *slot = *preference;
        }
        let mut totals = [0u32; MAX_PLAYERS];
        for (slot, total) in totals.iter_mut().zip(&self.totals) {
            *slot = *total;
        }
        Some(State {
            rules: self.rules,
            players: u8::try_from(players).ok()?,
            quiet_rounds: (self.quiet_limit / u32::try_from(players).ok()?).max(1),
            play_to: None,
            preferences,
            preference_changed: false,
            phase,
            hands,
            row: self.row,
            deal_order,
            pack_next: u8::try_from(start).ok()?,
            laid: self.laid,
            owls: self.owls,
            quiet_turns: self.quiet_turns,
            last_ask: None,
            game: self.game,
            first: self.first,
            finished: vec![totals],
        })
    }
}

/// A playout's answer to an ask: an Owl only if the card completes the asker's set or the
/// answerer holds four of it; the card handed over if held; else "not held". (The game's own
/// default plays an Owl whenever it can, which in a playout makes every ask look hopeless.)
fn playout_answer(state: &State, seat: Seat, asker: Seat, card: Card) -> Action {
    let hand = state.hands[seat.index()];
    if !hand.holds(card) {
        return Action::NotHeld;
    }
    let Some(set) = card.set() else {
        return Action::HandOver;
    };
    let theirs = (state.hands[asker.index()].0 & set.mask()).count_ones();
    let mine = (hand.0 & set.mask()).count_ones();
    if hand.first_owl().is_some() && (theirs >= 4 || mine >= 4) {
        Action::PlayOwl
    } else {
        Action::HandOver
    }
}

/// What every player of a playout knows, as `steady` remembers it: where each card was seen
/// going (picked up, handed over, kept with an Owl) and which cards each player said it had
/// not got. Every move of the game is public, so this record is exact as far as it goes.
#[derive(Clone)]
struct Record {
    held: [Option<Seat>; CARDS],
    lacks: [u64; MAX_PLAYERS],
}

impl Default for Record {
    fn default() -> Record {
        Record {
            held: [None; CARDS],
            lacks: [0; MAX_PLAYERS],
        }
    }
}

impl Record {
    /// A playout's turn for `seat`, as `steady` plays it with what the record shows and its
    /// own hand: an ask for a card seen going into a hand, for the set it holds most of; else
    /// an ask of even odds or better for a set of three or more; else the most useful pick-up;
    /// else the first ask.
    fn turn(&self, state: &State, seat: Seat) -> Option<Action> {
        let players = state.seats();
        let hand = state.hands[seat.index()];
        // Each hand's cards the record does not place: where an unplaced card may be.
        let mut room = [0usize; MAX_PLAYERS];
        for s in Seat::all(players) {
            let placed = self.held.iter().filter(|h| **h == Some(s)).count();
            room[s.index()] = state.hands[s.index()].len().saturating_sub(placed);
        }
        let pack = CARDS.saturating_sub(usize::from(state.pack_next));
        let mut first: Option<(u32, f64, Action)> = None;
        let mut sure: Option<(u32, Action)> = None;
        let mut hopeful: Option<(u32, f64, Action)> = None;
        for set in BirdSet::all().filter(|s| hand.holds_any_of(*s)) {
            let mine = (hand.0 & set.mask()).count_ones();
            for card in set.cards() {
                if hand.holds(card) || state.row.contains(&Some(card)) {
                    continue;
                }
                let (chance, asked) = match self.held[usize::from(card.0)] {
                    Some(holder) if holder != seat => (1.0, holder),
                    _ => {
                        let open = |s: &Seat| *s != seat && self.lacks[s.index()] & card.bit() == 0;
                        let total: usize = Seat::all(players)
                            .filter(open)
                            .map(|s| room[s.index()])
                            .sum::<usize>()
                            + pack;
                        let Some(best) = Seat::all(players)
                            .filter(open)
                            .max_by_key(|s| (room[s.index()], std::cmp::Reverse(*s)))
                        else {
                            continue;
                        };
                        // Small counts.
                        #[allow(clippy::cast_precision_loss)]
                        let chance = room[best.index()] as f64 / total.max(1) as f64;
                        (chance, best)
                    }
                };
                let ask = Action::Ask { seat: asked, card };
                if chance >= 1.0 && sure.as_ref().is_none_or(|(m, _)| mine > *m) {
                    sure = Some((mine, ask.clone()));
                }
                if mine >= 3
                    && chance >= 0.5
                    && hopeful
                        .as_ref()
                        .is_none_or(|(m, c, _)| (mine, chance) > (*m, *c))
                {
                    hopeful = Some((mine, chance, ask.clone()));
                }
                if first
                    .as_ref()
                    .is_none_or(|(m, c, _)| (mine, chance) > (*m, *c))
                {
                    first = Some((mine, chance, ask));
                }
            }
        }
        if let Some((_, ask)) = sure {
            return Some(ask);
        }
        if let Some((_, _, ask)) = hopeful {
            return Some(ask);
        }
        if let Some(card) = best_pick_up(state, seat) {
            return Some(Action::PickUp { card });
        }
        first.map(|(_, _, ask)| ask)
    }
}

/// How `expert` plays on after each candidate.
struct Playout;

impl Playouts for Playout {
    type G = BritishBirds;
    type Memo = Record;

    // About a fifth of a second of playouts at the moves' usual cost in a release build.
    const MOVE_CAP: usize = 1_000_000;

    /// Playouts play as `steady` does: every player answers as `steady` does seeing the
    /// sampled hands (an Owl only against the card that completes the asker's set, or to keep
    /// one of four), and at its turn asks and picks up as `steady` does from the public record
    /// and its own hand (`Record::turn`): a playout in which nobody asks as well as `steady`
    /// undervalues every ask at the root.
    fn playout_move(state: &State, memo: &Record, seat: Seat, _rng: &mut Rng) -> Option<Action> {
        match state.phase {
            Phase::Asked { asker, card, .. } => Some(playout_answer(state, seat, asker, card)),
            Phase::Turn { .. } => memo
                .turn(state, seat)
                .or_else(|| BritishBirds::default_action(state, seat)),
            Phase::Dealing | Phase::Over { .. } => BritishBirds::default_action(state, seat),
        }
    }

    fn remember(memo: &mut Record, event: &Event) {
        match event {
            Event::Deal { .. } => *memo = Record::default(),
            Event::PickUp { seat, card, .. } | Event::Owl { seat, card, .. } => {
                memo.held[usize::from(card.0)] = Some(*seat);
            }
            Event::HandOver { to, card, .. } => memo.held[usize::from(card.0)] = Some(*to),
            Event::NotHeld { seat, card, .. } => {
                if let Some(lacks) = memo.lacks.get_mut(seat.index()) {
                    *lacks |= card.bit();
                }
            }
            Event::SetLaid { set, .. } => {
                for card in set.cards() {
                    memo.held[usize::from(card.0)] = None;
                }
            }
            _ => {}
        }
    }

    fn reward(state: &State, seat: Seat) -> f64 {
        let totals = state.totals();
        let game = if matches!(state.phase, Phase::Over { .. }) {
            [0; MAX_PLAYERS]
        } else {
            state.game_points()
        };
        let scores: Vec<f64> = Seat::all(state.seats())
            .map(|s| f64::from(totals[s.index()] + game[s.index()]))
            .collect();
        share_of_first(&scores, seat, 20.0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::bots::{play, Level};
    use crate::british_birds::Event;
    use crate::chance::{Chance, Seed, Shuffled};
    use crate::engine::{record, Engine, EngineOf, Recorded, Table};
    use crate::game::Player;

    static BIRDS: EngineOf<BritishBirds> = EngineOf::new();

    fn id(card: &str) -> Card {
        Card::from_id(card).unwrap()
    }

    /// A table dealt from an explicit order: `hands[s]` seat s's seven cards, `row` the seven
    /// exposed, then every other card as the pack.
    fn dealt(hands: &[[&str; 7]], row: [&str; 7]) -> (Box<dyn Table>, Vec<Recorded>) {
        let players = hands.len();
        let mut order: Vec<Card> = Vec::new();
        for k in 0..7 * players {
            order.push(id(hands[k % players][k / players]));
        }
        order.extend(row.iter().map(|c| id(c)));
        for card in Card::all() {
            if !order.contains(&card) {
                order.push(card);
            }
        }
        let people: Vec<Player> = (0..players)
            .map(|i| Player {
                name: format!("p{i}"),
            })
            .collect();
        let mut table = BIRDS
            .open(&people, &json!({}), crate::RULES_VERSION)
            .unwrap();
        let deal = record(&Event::Deal {
            first: Seat(0),
            players: u8::try_from(players).unwrap(),
            shuffled: Shuffled { stream: 0, order },
        });
        table.apply_recorded(&deal).unwrap();
        (table, vec![deal])
    }

    fn act(table: &mut Box<dyn Table>, log: &mut Vec<Recorded>, seat: u8, action: Value) {
        let next = log.len() as u64 + 1;
        let decision = table
            .decide(Seat(seat), &action, &mut Chance::new(Seed([0; 32]), next))
            .unwrap();
        log.extend(decision.events.iter().cloned());
        table.apply(decision);
    }

    #[test]
    fn steady_asks_for_a_card_it_saw_go_into_a_hand_of_the_set_it_is_nearest_to_completing() {
        // Seat 0 holds three of set A; seat 1 picks up a-4 from the row, and then it is seat
        // 0's turn again (after seat 1... a two-player table).
        let (mut table, mut log) = dealt(
            &[
                ["a-1", "a-2", "a-3", "b-1", "c-1", "d-1", "e-1"],
                ["f-1", "f-2", "f-3", "g-1", "g-2", "h-1", "h-2"],
            ],
            ["a-4", "b-2", "c-2", "d-2", "e-2", "f-4", "g-3"],
        );
        act(
            &mut table,
            &mut log,
            0,
            json!({"type": "pick_up", "card": "b-2"}),
        );
        act(
            &mut table,
            &mut log,
            1,
            json!({"type": "pick_up", "card": "a-4"}),
        );
        let action = play(&BIRDS, table.as_ref(), Seat(0), &log, Level::Steady, 1).unwrap();
        assert_eq!(action, json!({"type": "ask", "seat": 1, "card": "a-4"}));
    }

    #[test]
    fn steady_keeps_its_owl_for_the_card_that_would_complete_the_askers_set() {
        // Seat 1 picks up c-2, c-3 and c-4 from the row over its turns, and holds c-1: asked
        // for c-5, seat 0 (holding it and an Owl) plays the Owl.
        let (mut table, mut log) = dealt(
            &[
                ["c-5", "owl-1", "a-1", "a-2", "b-1", "b-2", "d-1"],
                ["c-1", "e-1", "e-2", "f-1", "f-2", "g-1", "g-2"],
            ],
            ["c-2", "c-3", "c-4", "h-1", "h-2", "h-3", "a-5"],
        );
        for (seat, card) in [
            (0, "h-1"),
            (1, "c-2"),
            (0, "h-2"),
            (1, "c-3"),
            (0, "h-3"),
            (1, "c-4"),
            (0, "a-5"),
        ] {
            act(
                &mut table,
                &mut log,
                seat,
                json!({"type": "pick_up", "card": card}),
            );
        }
        act(
            &mut table,
            &mut log,
            1,
            json!({"type": "ask", "seat": 0, "card": "c-5"}),
        );
        let action = play(&BIRDS, table.as_ref(), Seat(0), &log, Level::Steady, 1).unwrap();
        assert_eq!(action, json!({"type": "play_owl"}));
    }

    #[test]
    fn steady_hands_over_a_card_that_completes_nothing() {
        let (mut table, mut log) = dealt(
            &[
                ["c-5", "owl-1", "a-1", "a-2", "b-1", "b-2", "d-1"],
                ["c-1", "e-1", "e-2", "f-1", "f-2", "g-1", "g-2"],
            ],
            ["c-2", "c-3", "c-4", "h-1", "h-2", "h-3", "a-5"],
        );
        act(
            &mut table,
            &mut log,
            0,
            json!({"type": "pick_up", "card": "c-2"}),
        );
        act(
            &mut table,
            &mut log,
            1,
            json!({"type": "ask", "seat": 0, "card": "c-5"}),
        );
        let action = play(&BIRDS, table.as_ref(), Seat(0), &log, Level::Steady, 1).unwrap();
        assert_eq!(action, json!({"type": "hand_over"}));
    }
}

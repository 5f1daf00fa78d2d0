//! Bots for the "History of England" Card Game (No. 2).
//!
//! - `random` asks at random, but bluffs as a person might, not as a coin would: the sheet lets
//!   a player "ask for the 'crown' card of any set of which they hold at least two cards" and
//!   "if they cannot produce these two cards, they forfeit", so asking for a Crown it can back
//!   (two cards of the set in hand) it shows them nine times in ten; a Crown it cannot back it
//!   asks for a quarter as often as any other card.
//! - `steady` keeps the account the sheet's play invites: every card it has seen given (it is
//!   now the asker's), shown to it or forfeited to it, and every ask refused (that player had
//!   not got that card, until they next draw from the pool). It asks for the cards of the set
//!   it is nearest to completing ("the object of the game is to complete as many sets as
//!   possible"), from the player known (or likeliest) to hold them, and only honest Crown asks.
//!   Once "all hands are exposed" it asks the holder directly.
//! - `expert` searches ([`crate::bot_kit::search`]) the honest asks (one target per card, and
//!   every honest Crown claim of every player who may hold the Crown) over samples of the
//!   hidden hands and the pool, each playout played on until every Crown is won. Face up it
//!   plays for the hand it ends with ([`collect`]), searching the one state the table shows.
//!   Between bots the game is decided in the open rounds: the last seat takes the last turn,
//!   and holding a won Crown she gathers its set and breaks every other.

use serde_json::Value;

use super::deck::PACK_SIZE;
use super::{
    bit, bits, Action, Answer, Card, Event, HistoryOfEngland, Pack, Stage, State, MAX_PLAYERS,
};
use crate::bot_kit::search::{search_remembering, share_of_first, Playouts};
use crate::bot_kit::{
    below, choice, fill, kind, seat_at, shuffle, unit, weighted, Budget, Level, LevelBot, Rng, Seen,
};
use crate::game::Seat;

/// `expert`'s search budget in History of England (its playouts run to hundreds of asks) unless one is set: chosen so that a move takes well
/// under a second in a release build on a 2-core machine (the measured times are in
/// `docs/bots.md`).
pub const BUDGET: Budget = Budget {
    determinizations: 16,
    playouts: 48,
};

/// The move of `bot` for the seat that saw `seen`.
pub(crate) fn choose(seen: &Seen, bot: LevelBot, rng: &mut Rng) -> Option<Value> {
    let table = Observed::read(seen)?;
    if bot.level == Level::Random {
        return table.random(seen, rng);
    }
    let steady = table.steady()?;
    if bot.level == Level::Steady {
        return serde_json::to_value(&steady).ok();
    }
    let record = table.record();
    let sample = |rng: &mut Rng| table.determinize(rng).map(|state| (state, record.clone()));
    let mut candidates = table.candidates(&steady);
    if table.open_hands.is_some() {
        // Face up, the sample is the table itself: her own plan for the hand she ends with
        // goes first.
        if let Some(state) = table.determinize(rng) {
            candidates.insert(0, collect(&state, table.me.0));
        }
    }
    let budget = if table.open_hands.is_some() {
        // Face up, nothing is hidden and the playouts draw nothing: one sample is the game
        // itself, and one playout of each candidate to the end says what it leads to.
        Budget {
            determinizations: 1,
            playouts: candidates.len(),
        }
    } else {
        bot.budget_or(BUDGET)
    };
    let chosen =
        search_remembering::<Playout>(sample, &candidates, table.me, budget, bot.time_up, rng)
            .unwrap_or(steady);
    serde_json::to_value(&chosen).ok()
}

/// Where a card is, as far as one seat knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// In another hand or the pool: not seen since.
    Unseen,
    /// In this seat's hand.
    Hand(Seat),
}

/// The table as one seat has seen it (cards as the series' own 0..66 numbers).
struct Observed {
    /// The rule points of the version the game is played under, for its samples.
    rules: super::Rules,
    me: Seat,
    players: usize,
    series: u8,
    stage: Stage,
    turn: Seat,
    pool: usize,
    turns_left: u16,
    protected: u128,
    hand: u128,
    cards: Vec<usize>,
    /// Every hand, once they are exposed.
    open_hands: Option<Vec<u128>>,
    places: [Place; PACK_SIZE],
    /// The cards each seat refused since it last drew.
    lacks: Vec<u128>,
    /// How many cards each seat has taken unseen (drawn from the pool, or forfeited to it
    /// unseen by this seat): a card it refused can only have come to it among those since.
    taken: Vec<u32>,
    /// For each seat and card, `taken` when the seat last refused the card (or asked for it
    /// and was refused: the asker lacks it too).
    refused_at: Vec<[Option<u32>; PACK_SIZE]>,
    /// The sets (as masks) each seat asked for a card of: it is collecting them.
    collecting: Vec<u128>,
}

impl Observed {
    fn pack(&self) -> Pack {
        Pack::of(self.series)
    }

    fn local(&self, value: &Value) -> Option<u8> {
        let card = Card::from_id(value.as_str()?)?;
        self.pack().local(card)
    }

    fn locals(&self, value: Option<&Value>) -> u128 {
        value
            .and_then(Value::as_array)
            .map(|cards| {
                cards
                    .iter()
                    .filter_map(|c| self.local(c))
                    .fold(0, |m, l| m | bit(l))
            })
            .unwrap_or(0)
    }

    /// The set (Crown included) of a card.
    fn set_of(&self, local: u8) -> u128 {
        let pack = self.pack();
        pack.reign_of(local).map_or(0, |r| pack.set(r))
    }

    fn read(seen: &Seen) -> Option<Observed> {
        let me = seen.seat();
        let players = seen.players();
        let view = seen.view();
        let public = &view.public;
        let series = u8::try_from(public.get("series")?.as_u64()?).ok()?;
        let stage = match public.get("stage")?.as_str()? {
            "pool" => Stage::Pool,
            "finishing_round" => Stage::FinishingRound,
            "open_rounds" => Stage::OpenRounds,
            "over" => Stage::Over,
            _ => Stage::Dealing,
        };
        let count = |v: &Value, key: &str| {
            v.get(key)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
        };
        let mut observed = Observed {
            rules: super::Rules::of(seen.rules_version()),
            me,
            players,
            series,
            stage,
            turn: seat_at(public, "turn").unwrap_or(me),
            pool: count(public, "pool")?,
            turns_left: public
                .get("turns_left")
                .and_then(Value::as_u64)
                .and_then(|n| u16::try_from(n).ok())
                .unwrap_or(0),
            protected: 0,
            hand: 0,
            cards: view
                .seats
                .iter()
                .map(|s| count(s, "cards"))
                .collect::<Option<Vec<_>>>()?,
            open_hands: None,
            places: [Place::Unseen; PACK_SIZE],
            lacks: vec![0; players],
            taken: vec![0; players],
            refused_at: vec![[None; PACK_SIZE]; players],
            collecting: vec![0; players],
        };
        observed.protected = observed.locals(public.get("protected_crowns"));
        observed.hand = observed.locals(seen.private().get("hand"));
        if public.get("hands_exposed").and_then(Value::as_bool) == Some(true) {
            observed.open_hands = Some(
                view.seats
                    .iter()
                    .map(|s| observed.locals(s.get("hand")))
                    .collect(),
            );
        }
        for event in seen.log() {
            observed.follow(event);
        }
        Some(observed)
    }

    fn put(&mut self, cards: u128, place: Place) {
        for local in bits(cards) {
            if let Some(slot) = self.places.get_mut(usize::from(local)) {
                *slot = place;
            }
        }
    }

    /// What everyone at the table knows (the start of a playout's [`Record`]): the cards seen
    /// going into the other hands, every refusal since the refuser last drew, and the sets
    /// each player has asked for.
    fn record(&self) -> Record {
        let mut record = Record {
            series: self.series,
            me: Some(self.me.0),
            ..Record::default()
        };
        for (slot, place) in record.held.iter_mut().zip(&self.places) {
            if let Place::Hand(seat) = place {
                if *seat != self.me {
                    *slot = Some(seat.0);
                }
            }
        }
        for (slot, lacks) in record.lacks.iter_mut().zip(&self.lacks) {
            *slot = *lacks;
        }
        for (slot, sets) in record.collecting.iter_mut().zip(&self.collecting) {
            *slot = *sets;
        }
        record
    }

    /// Moves the cards `event` shows to where it put them.
    fn follow(&mut self, event: &Value) {
        match kind(event) {
            "deal" => {
                let hand = self.locals(event.get("hand"));
                self.put(hand, Place::Hand(self.me));
            }
            "asked" => {
                let (Some(asker), Some(seat)) = (seat_at(event, "asker"), seat_at(event, "seat"))
                else {
                    return;
                };
                let card = event.get("card").and_then(|c| self.local(c));
                let answer = event.get("answer").and_then(Value::as_str).unwrap_or("");
                let shown = self.locals(event.get("show"));
                if let Some(card) = card {
                    let set = self.set_of(card);
                    if let Some(mask) = self.collecting.get_mut(asker.index()) {
                        *mask |= set;
                    }
                }
                match answer {
                    "given" => {
                        if let Some(card) = card {
                            self.put(bit(card), Place::Hand(asker));
                        }
                        self.put(shown, Place::Hand(asker));
                    }
                    "refused" => {
                        // Neither the asked player nor the asker (who may not ask for a card
                        // held) has the card.
                        if let Some(card) = card {
                            for s in [seat, asker] {
                                if let Some(lacks) = self.lacks.get_mut(s.index()) {
                                    *lacks |= bit(card);
                                }
                                let taken = self.taken.get(s.index()).copied().unwrap_or(0);
                                if let Some(at) = self
                                    .refused_at
                                    .get_mut(s.index())
                                    .and_then(|r| r.get_mut(usize::from(card)))
                                {
                                    *at = Some(taken);
                                }
                            }
                        }
                    }
                    _ => {
                        // A caught bluff: the forfeit went from the asker to the asked. Whoever
                        // could not see it no longer knows which of the asker's cards left.
                        let forfeit = self.locals(event.get("forfeit"));
                        let forfeited = event.get("forfeited").and_then(Value::as_u64).unwrap_or(0);
                        self.put(shown & !forfeit, Place::Hand(asker));
                        if forfeit.count_ones() == u32::try_from(forfeited).unwrap_or(0) {
                            self.put(forfeit, Place::Hand(seat));
                        } else {
                            // Cards she did not see reached the asked player's hand.
                            if let Some(taken) = self.taken.get_mut(seat.index()) {
                                *taken += u32::try_from(forfeited).unwrap_or(0);
                            }
                            for place in &mut self.places {
                                if *place == Place::Hand(asker) && asker != self.me {
                                    *place = Place::Unseen;
                                }
                            }
                        }
                    }
                }
            }
            "drew" => {
                if let Some(seat) = seat_at(event, "seat") {
                    if let Some(lacks) = self.lacks.get_mut(seat.index()) {
                        *lacks = 0;
                    }
                    if let Some(taken) = self.taken.get_mut(seat.index()) {
                        *taken += 1;
                    }
                    if let Some(card) = event.get("card").and_then(|c| self.local(c)) {
                        self.put(bit(card), Place::Hand(seat));
                    }
                }
            }
            "hands_exposed" => {
                let hands = event.get("hands").and_then(Value::as_array);
                for (s, hand) in hands.into_iter().flatten().enumerate() {
                    let Ok(s) = u8::try_from(s) else { continue };
                    let hand = self.locals(Some(hand));
                    self.put(hand, Place::Hand(Seat(s)));
                }
            }
            _ => {}
        }
    }

    fn known_hand(&self, seat: Seat) -> u128 {
        if let Some(hands) = &self.open_hands {
            return hands.get(seat.index()).copied().unwrap_or(0);
        }
        if seat == self.me {
            return self.hand;
        }
        (0..=u8::MAX)
            .take(PACK_SIZE)
            .filter(|l| {
                self.places[usize::from(*l)] == Place::Hand(seat) && self.hand & bit(*l) == 0
            })
            .fold(0, |m, l| m | bit(l))
    }

    /// Cards of `seat`'s hand not known to her.
    fn unseen_room(&self, seat: Seat) -> usize {
        let known = usize::try_from(self.known_hand(seat).count_ones()).unwrap_or(0);
        self.cards[seat.index()].saturating_sub(known)
    }

    /// How likely `seat` is to hold `local`: 1 if seen going into its hand, 0 if it refused it
    /// since it last drew or the card is seen elsewhere, else its share of the unseen places,
    /// doubled for a player who is collecting that set.
    fn chance_held(&self, seat: Seat, local: u8) -> f64 {
        let b = bit(local);
        if self.known_hand(seat) & b != 0 {
            return 1.0;
        }
        if self.open_hands.is_some()
            || self.hand & b != 0
            || self.places[usize::from(local)] != Place::Unseen
            || self.lacks[seat.index()] & b != 0
        {
            return 0.0;
        }
        let room: usize = Seat::all(self.players)
            .filter(|s| *s != self.me && self.lacks[s.index()] & b == 0)
            .map(|s| self.unseen_room(s))
            .sum::<usize>()
            + self.pool;
        // Small counts.
        #[allow(clippy::cast_precision_loss)]
        let share = self.unseen_room(seat) as f64 / room.max(1) as f64;
        let collecting = if self.collecting[seat.index()] & b != 0 {
            2.0
        } else {
            1.0
        };
        (share * collecting).min(0.95)
    }

    /// Two cards of the hand of `crown`'s set, if she holds two: an honest show.
    fn honest_show(&self, crown: u8) -> Option<[u8; 2]> {
        let mut of_set = bits(self.hand & self.set_of(crown));
        Some([of_set.next()?, of_set.next()?])
    }

    /// The `random` move: any legal ask alike, except that a Crown she cannot back is asked for
    /// a quarter as often, and one she can is backed nine times in ten.
    fn random(&self, seen: &Seen, rng: &mut Rng) -> Option<Value> {
        let legal = seen.legal();
        let crown = |action: &Value| {
            action
                .get("show")
                .is_some()
                .then(|| action.get("card").and_then(|c| self.local(c)))
                .flatten()
        };
        let weights: Vec<f64> = legal
            .iter()
            .map(|action| match crown(action) {
                Some(c) if self.honest_show(c).is_none() => 0.25,
                _ => 1.0,
            })
            .collect();
        if weights.is_empty() {
            return None;
        }
        let template = &legal[weighted(rng, &weights)];
        let mut action = fill(template, rng);
        if let (Some(c), Some(show)) = (crown(template), template.get("show")) {
            if let (Some([a, b]), Some(_)) = (self.honest_show(c), choice(show)) {
                if unit(rng) < 0.9 {
                    let pack = self.pack();
                    action["show"] = serde_json::json!([pack.card(a), pack.card(b)]);
                }
            }
        }
        Some(action)
    }

    /// Every honest ask she may make, each to the player likeliest to hold the card, scored
    /// (cards of the set still missing, the chance it is held there): the sets nearest to
    /// complete first, then the likeliest.
    fn asks(&self) -> Vec<(u32, f64, Action)> {
        let pack = self.pack();
        let own = self.hand;
        let askable = super::Askable::of(pack, own, self.protected);
        let (cards, claimable) = (askable.cards, askable.crowns);
        let targets: Vec<Seat> = Seat::all(self.players)
            .filter(|s| *s != self.me && self.cards[s.index()] > 0)
            .collect();
        let mut asks = Vec::new();
        for local in bits(cards | claimable) {
            let show = if claimable & bit(local) != 0 {
                match self.honest_show(local) {
                    Some([a, b]) => Some(vec![pack.card(a), pack.card(b)]),
                    None => continue,
                }
            } else {
                None
            };
            let set = self.set_of(local);
            let missing = (set & !own).count_ones();
            let best = targets
                .iter()
                .map(|s| (self.chance_held(*s, local), *s))
                .max_by(|a, b| {
                    a.0.total_cmp(&b.0)
                        .then(self.cards[a.1.index()].cmp(&self.cards[b.1.index()]))
                        .then(b.1.cmp(&a.1))
                });
            if let Some((chance, seat)) = best {
                asks.push((
                    missing,
                    chance,
                    Action::Ask {
                        seat,
                        card: pack.card(local),
                        show,
                    },
                ));
            }
        }
        // A Crown unlocks the rest of its set: ask for it before the set's other cards.
        asks.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.total_cmp(&a.1))
                .then(is_crown(&b.2).cmp(&is_crown(&a.2)))
        });
        asks
    }

    /// `steady`'s move: a certain ask if there is one (a card seen going into a hand, or any
    /// card once the hands are face up), else the best ask of the set nearest to complete.
    fn steady(&self) -> Option<Action> {
        let asks = self.asks();
        if asks.is_empty() {
            return Some(Action::Pass);
        }
        let sure = asks.iter().find(|(_, chance, _)| *chance >= 1.0);
        let nearest = asks.first();
        sure.or(nearest).map(|(_, _, ask)| ask.clone())
    }

    /// The moves `expert` compares: `steady`'s first, then the five best asks (few candidates,
    /// each searched well, beat many searched thinly).
    fn candidates(&self, steady: &Action) -> Vec<Action> {
        let mut moves = vec![steady.clone()];
        let mut asks = self.asks();
        asks.retain(|(_, chance, _)| *chance > 0.0);
        asks.truncate(5);
        moves.extend(asks.into_iter().map(|(_, _, a)| a));
        // Every honest Crown claim, of every player who may hold the Crown: a won Crown can
        // never be claimed back, and a Crown held at the end is what lets its holder gather
        // its set in the open rounds, so these are the asks that decide most games.
        if self.open_hands.is_none() {
            let pack = self.pack();
            let claimable = super::Askable::of(pack, self.hand, self.protected).crowns;
            for crown in bits(claimable) {
                let Some([a, b]) = self.honest_show(crown) else {
                    continue;
                };
                for seat in Seat::all(self.players).filter(|s| *s != self.me) {
                    if self.cards[seat.index()] > 0 && self.chance_held(seat, crown) > 0.0 {
                        moves.push(Action::Ask {
                            seat,
                            card: pack.card(crown),
                            show: Some(vec![pack.card(a), pack.card(b)]),
                        });
                    }
                }
            }
        }
        moves
    }

    /// A full state consistent with what she has seen: the unseen cards dealt at random to the
    /// other hands (to their sizes, none to a player who refused it since drawing) and the pool.
    fn determinize(&self, rng: &mut Rng) -> Option<State> {
        let players = self.players;
        let mut hands = [0u128; MAX_PLAYERS];
        let mut unseen: Vec<u8> = Vec::new();
        for local in (0..=u8::MAX).take(PACK_SIZE) {
            if self.hand & bit(local) != 0 {
                continue;
            }
            match self.places[usize::from(local)] {
                Place::Hand(s) if s != self.me => hands[s.index()] |= bit(local),
                _ if self.open_hands.is_some() => {}
                _ => unseen.push(local),
            }
        }
        if let Some(open) = &self.open_hands {
            for (slot, hand) in hands.iter_mut().zip(open) {
                *slot = *hand;
            }
            unseen.clear();
            let all = (1u128 << PACK_SIZE) - 1;
            unseen.extend(bits(all & !open.iter().fold(0, |m, h| m | h)));
        }
        hands[self.me.index()] = self.hand;
        let mut room = [0usize; MAX_PLAYERS];
        for s in Seat::all(players).filter(|s| *s != self.me) {
            let known = usize::try_from(hands[s.index()].count_ones()).ok()?;
            room[s.index()] = self.cards[s.index()].checked_sub(known)?;
        }
        if room.iter().sum::<usize>() + self.pool != unseen.len() {
            return None;
        }
        shuffle(rng, &mut unseen);
        // The cards some player refused first, while there is room for them.
        unseen.sort_by_key(|l| {
            Seat::all(players)
                .filter(|s| self.refused_at[s.index()][usize::from(*l)].is_some())
                .count()
                == 0
        });
        let mut pool: Vec<u8> = Vec::with_capacity(self.pool);
        for local in unseen {
            // Each hand's places the card may be in: a player who refused it can hold it only
            // if it came among the cards she took unseen since (none, if she has not drawn
            // since), so it goes there far less often than to a hand that never refused it.
            let places: Vec<(usize, usize)> = Seat::all(players)
                .filter(|s| *s != self.me)
                .map(|s| {
                    let since = self.refused_at[s.index()][usize::from(local)].map(|at| {
                        let taken = self.taken[s.index()].saturating_sub(at);
                        usize::try_from(taken).unwrap_or(usize::MAX)
                    });
                    (s.index(), places_for(room[s.index()], since))
                })
                .filter(|(_, n)| *n > 0)
                .collect();
            let open_total: usize = places.iter().map(|(_, n)| *n).sum();
            let pool_open = self.pool - pool.len();
            if open_total + pool_open == 0 {
                return None;
            }
            let mut at = below(rng, open_total + pool_open);
            if at >= open_total {
                pool.push(local);
                continue;
            }
            for (s, n) in places {
                if at < n {
                    hands[s] |= bit(local);
                    room[s] -= 1;
                    break;
                }
                at -= n;
            }
        }
        let mut pool_cards = [0u8; PACK_SIZE];
        for (slot, local) in pool_cards.iter_mut().zip(&pool) {
            *slot = *local;
        }
        Some(State {
            rules: self.rules,
            players: u8::try_from(players).ok()?,
            series: self.series,
            stage: self.stage,
            hands,
            pool: pool_cards,
            pool_top: 0,
            pool_end: u8::try_from(pool.len()).ok()?,
            protected: self.protected,
            turn: self.turn.0,
            turns_left: self.turns_left,
            shown: [None; MAX_PLAYERS],
            last: None,
            last_draw: None,
        })
    }
}

/// The places of a hand with `room` cards unseen that may hold a card its player refused
/// `since` cards taken unseen ago (`None`: never refused): a refused card can only be among
/// the cards taken since.
fn places_for(room: usize, since: Option<usize>) -> usize {
    since.map_or(room, |since| room.min(since))
}

/// A move for `asker` once every hand is face up (every ask of a card's holder is given, so a
/// turn goes on as long as she has something to ask): it aims at the hand she ends with, since
/// only completed sets held at the end count. In order: an honest claim of a Crown (the largest
/// set first: a won Crown can never be claimed back, and it opens its set to her); a card under
/// a Crown she holds (completing that set); and, with "neither" (which she is again once every
/// set she holds a Crown of is complete), any card but a Crown: first one of another player's
/// completed set (the largest first, it costs them its points), then one that makes a pair of a
/// set whose Crown may still be claimed (so she can claim it next), then one that starts such
/// a pair, the largest sets first. `default_move` asks for the set nearest completion instead,
/// and so stalls on a pair whose Crown is won, or leaves other players' sets whole.
fn collect(state: &State, asker: u8) -> Action {
    let pack = state.pack();
    let own = state.hand(asker);
    let askable = state.askable(asker);
    let holder =
        |local: u8| (0..state.players).find(|s| *s != asker && state.hand(*s) & bit(local) != 0);
    let ask = |local: u8, show: Option<Vec<Card>>| {
        holder(local).map(|seat| Action::Ask {
            seat: Seat(seat),
            card: pack.card(local),
            show,
        })
    };
    // The open rounds are complete rounds, so the last turn of the game is the last seat's:
    // whoever takes it with a Crown in hand gathers its set and then, with "neither", breaks
    // every other. A Crown of that player's is the one to take first.
    let last = state.players.saturating_sub(1);
    let lasts = |crown_local: u8| last != asker && state.hand(last) & bit(crown_local) != 0;
    // (priority, not the last seat's Crown, longest set): the least wins.
    type Key = (u8, bool, std::cmp::Reverse<u8>);
    let mut best: Option<(Key, u8, Option<Vec<Card>>)> = None;
    let mut consider = |key: Key, local: u8, show: Option<Vec<Card>>| {
        if holder(local).is_none() {
            return;
        }
        if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
            best = Some((key, local, show));
        }
    };
    for reign in pack.reigns {
        let set = pack.set(reign);
        let crown = pack.crown(reign);
        let crown_local = reign.first - pack.base;
        let mine = own & set;
        let key = |rank: u8| (rank, !lasts(crown_local), std::cmp::Reverse(reign.len));
        if askable.crowns & crown != 0 && mine.count_ones() >= 2 {
            let show = bits(mine).take(2).map(|l| pack.card(l)).collect();
            consider(key(0), crown_local, Some(show));
        }
        for local in bits(askable.cards & set) {
            let rank = if !askable.neither {
                1
            } else if (0..state.players).any(|s| s != asker && state.hand(s) & set == set) {
                2
            } else if state.protected & crown == 0 && own & crown == 0 {
                if mine.count_ones() == 1 {
                    3
                } else {
                    4
                }
            } else {
                5
            };
            consider(key(rank), local, None);
        }
    }
    match best {
        Some((_, local, show)) => ask(local, show).unwrap_or_else(|| state.default_move(asker)),
        None => state.default_move(asker),
    }
}

fn is_crown(action: &Action) -> bool {
    matches!(action, Action::Ask { show: Some(_), .. })
}

/// What every player of a playout knows, as `steady` keeps the account: where each card was
/// seen going (given, or forfeited), who refused which card since last drawing, and which sets
/// each player has asked for (cards as the series' own numbers).
#[derive(Clone)]
struct Record {
    series: u8,
    /// The seat searching, which plays its own open rounds as [`collect`] does.
    me: Option<u8>,
    held: [Option<u8>; PACK_SIZE],
    lacks: [u128; MAX_PLAYERS],
    collecting: [u128; MAX_PLAYERS],
}

impl Default for Record {
    fn default() -> Record {
        Record {
            series: 0,
            me: None,
            held: [None; PACK_SIZE],
            lacks: [0; MAX_PLAYERS],
            collecting: [0; MAX_PLAYERS],
        }
    }
}

impl Record {
    /// Whom to ask for `local`, of `targets` (the players who may be asked): the one seen
    /// taking it; else one who has not refused it since drawing, a player collecting its set
    /// first; else any.
    fn target(&self, local: u8, set: u128, targets: &[u8], rng: &mut Rng) -> Option<u8> {
        if let Some(holder) = self.held.get(usize::from(local)).copied().flatten() {
            if targets.contains(&holder) {
                return Some(holder);
            }
        }
        let open: Vec<u8> = targets
            .iter()
            .copied()
            .filter(|s| self.lacks[usize::from(*s)] & bit(local) == 0)
            .collect();
        let collecting: Vec<u8> = open
            .iter()
            .copied()
            .filter(|s| self.collecting[usize::from(*s)] & set != 0)
            .collect();
        let pool = [collecting, open, targets.to_vec()]
            .into_iter()
            .find(|group| !group.is_empty())?;
        Some(pool[below(rng, pool.len())])
    }
}

/// How `expert` plays on after each candidate.
struct Playout;

impl Playouts for Playout {
    type G = HistoryOfEngland;
    type Memo = Record;

    // About a fifth of a second of playouts at the moves' usual cost in a release build.
    const MOVE_CAP: usize = 100_000;

    /// Playouts play as `steady` does, from the public record and the player's own hand: a
    /// card seen going into a hand is asked of its holder (the set nearest complete first);
    /// else the game's own default card (of the set nearest complete) is asked of a player who
    /// has not refused it, one collecting its set first. Once the hands are face up, the
    /// default asks the holder, and the searching seat plays as [`collect`] does.
    fn playout_move(state: &State, memo: &Record, seat: Seat, rng: &mut Rng) -> Option<Action> {
        if state.exposed() && memo.me == Some(seat.0) {
            return Some(collect(state, seat.0));
        }
        let mut action = state.default_move(seat.0);
        if state.exposed() {
            return Some(action);
        }
        let targets: Vec<u8> = state.askable_seats(seat.0).collect();
        if targets.is_empty() {
            return Some(action);
        }
        let pack = state.pack();
        let own = state.hand(seat.0);
        let mut sure: Option<(u32, u8, u8)> = None;
        for local in bits(state.askable(seat.0).cards) {
            let Some(holder) = memo.held.get(usize::from(local)).copied().flatten() else {
                continue;
            };
            if !targets.contains(&holder) {
                continue;
            }
            let missing = (state.set_of(local) & !own).count_ones();
            if sure.is_none_or(|(m, _, _)| missing < m) {
                sure = Some((missing, holder, local));
            }
        }
        if let Some((_, holder, local)) = sure {
            return Some(Action::Ask {
                seat: Seat(holder),
                card: pack.card(local),
                show: None,
            });
        }
        if let Action::Ask {
            seat: asked, card, ..
        } = &mut action
        {
            if let Some(local) = pack.local(*card) {
                if let Some(target) = memo.target(local, state.set_of(local), &targets, rng) {
                    *asked = Seat(target);
                }
            }
        }
        Some(action)
    }

    fn remember(memo: &mut Record, event: &Event) {
        let pack = Pack::of(memo.series);
        let mut put = |card: &Card, seat: Seat| {
            if let Some(slot) = pack
                .local(*card)
                .and_then(|l| memo.held.get_mut(usize::from(l)))
            {
                *slot = Some(seat.0);
            }
        };
        match event {
            Event::Asked {
                asker,
                seat,
                card,
                show,
                answer,
                forfeit,
                ..
            } => {
                match answer {
                    Answer::Given => {
                        put(card, *asker);
                        for shown in show.iter().flatten() {
                            put(shown, *asker);
                        }
                    }
                    Answer::BluffCaught => {
                        for lost in forfeit {
                            put(lost, *seat);
                        }
                    }
                    Answer::Refused => {}
                }
                let Some(local) = pack.local(*card) else {
                    return;
                };
                if let Some(sets) = memo.collecting.get_mut(asker.index()) {
                    *sets |= pack.reign_of(local).map_or(0, |r| pack.set(r));
                }
                if *answer == Answer::Refused {
                    for s in [*seat, *asker] {
                        if let Some(lacks) = memo.lacks.get_mut(s.index()) {
                            *lacks |= bit(local);
                        }
                    }
                }
            }
            Event::Drew { seat, .. } => {
                if let Some(lacks) = memo.lacks.get_mut(seat.index()) {
                    *lacks = 0;
                }
            }
            _ => {}
        }
    }

    // Playouts are played on until every Crown is won, not cut after a few rounds of asks and
    // scored by the sets in hand: the game is decided in the open rounds, and sets held before
    // them say little of who wins (cut after 48 moves, the search measured no stronger than
    // `steady`). Once every Crown has been won, none can change hands again (a won Crown
    // cannot be claimed back, and nobody else can ask for a Crown): the end is then settled,
    // as `reward` says, and the playout stops there, long before the open rounds' hundreds
    // of asks are played.
    fn settled(state: &State) -> bool {
        state.pool_left() == 0 && state.protected & state.pack().crowns() == state.pack().crowns()
    }

    fn reward(state: &State, seat: Seat) -> f64 {
        let pack = state.pack();
        let over = matches!(state.stage, Stage::Over);
        if !over && Self::settled(state) {
            // The open rounds are complete rounds: the last turn of the game is the last
            // seat's. Holding a Crown, she asks for the rest of its set (every card is in a
            // hand, and every hand face up), and then, with "neither", for every card that
            // is not a Crown: every other set is broken and hers alone are complete. Without
            // a Crown she has "neither" at once and breaks every set, her own none: nobody wins.
            let last = state.players.saturating_sub(1);
            let own = state.hand(last);
            let points: u32 = pack
                .reigns
                .iter()
                .filter(|reign| own & pack.crown(reign) != 0)
                .map(|reign| u32::from(reign.len))
                .sum();
            let scores: Vec<f64> = (0..state.players)
                .map(|s| if s == last { f64::from(points) } else { 0.0 })
                .collect();
            return share_of_first(&scores, seat, 20.0);
        }
        let scores: Vec<f64> = (0..state.players)
            .map(|s| {
                let done = f64::from(state.completed(s).1);
                if over {
                    return done;
                }
                // A playout cut short (by the guard on its length): each set not yet complete
                // counts for the share of it
                // held, squared (two cards of four are a quarter of the way, not half: the
                // last cards are the hardest to get), and half of that.
                let own = state.hand(s);
                let partial: f64 = pack
                    .reigns
                    .iter()
                    .map(|reign| {
                        let set = pack.set(reign);
                        let held = f64::from((own & set).count_ones());
                        let len = f64::from(reign.len);
                        if own & set == set {
                            0.0
                        } else {
                            0.5 * held * held / len
                        }
                    })
                    .sum();
                done + partial
            })
            .collect();
        share_of_first(&scores, seat, 20.0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::bots::{play, Level};
    use crate::chance::{Chance, Seed, Shuffled};
    use crate::engine::{record, Engine, EngineOf, Recorded, Table};
    use crate::game::Player;
    use crate::history_of_england::Event;

    static HOE: EngineOf<HistoryOfEngland> = EngineOf::new();

    fn pack() -> Pack {
        Pack::of(1)
    }

    /// A table of three dealt from the series 1 pack in catalogue order, but for `first`,
    /// which are dealt first (one at a time round the table).
    fn dealt(first: &[u8]) -> (Box<dyn Table>, Vec<Recorded>) {
        let mut order: Vec<Card> = first.iter().map(|l| pack().card(*l)).collect();
        for local in 0..u8::try_from(PACK_SIZE).unwrap() {
            if !first.contains(&local) {
                order.push(pack().card(local));
            }
        }
        let people: Vec<Player> = (0..3)
            .map(|i| Player {
                name: format!("p{i}"),
            })
            .collect();
        let mut table = HOE.open(&people, &json!({}), crate::RULES_VERSION).unwrap();
        let deal = record(&Event::Deal {
            players: 3,
            shuffled: Shuffled { stream: 0, order },
        });
        table.apply_recorded(&deal).unwrap();
        (table, vec![deal])
    }

    fn act(table: &mut Box<dyn Table>, log: &mut Vec<Recorded>, seat: u8, action: &Value) {
        let next = log.len() as u64 + 1;
        let decision = table
            .decide(Seat(seat), action, &mut Chance::new(Seed([0; 32]), next))
            .unwrap();
        log.extend(decision.events.iter().cloned());
        table.apply(decision);
    }

    #[test]
    fn steady_asks_the_player_it_saw_take_a_card_it_wants() {
        let p = pack();
        let william = p.reigns[0];
        let crown = william.first - p.base;
        let set: Vec<u8> = (crown..crown + william.len).collect();
        // Seat 0 holds William I's Crown and one of its cards; seat 1 holds two more of the set
        // (set[2] and set[3]); seat 2 holds set[4].
        let mut first = vec![0u8; 21];
        let others: Vec<u8> = (30..60).collect();
        let mut spare = others.iter();
        for (k, slot) in first.iter_mut().enumerate() {
            *slot = match k {
                0 => set[0],
                3 => set[1],
                1 => set[2],
                4 => set[3],
                2 => set[4],
                _ => *spare.next().unwrap(),
            };
        }
        let (mut table, mut log) = dealt(&first);
        // Seat 0 asks seat 2 for set[2] (refused: seat 1 has it), draws; seat 1 then asks... seat
        // 1 holds no Crown and two of the set: it asks seat 0 for the Crown, showing its two.
        act(
            &mut table,
            &mut log,
            0,
            &json!({"type": "ask", "seat": 2, "card": p.card(set[2])}),
        );
        let seen = Seen::observe(&HOE, table.as_ref(), Seat(1), &log).unwrap();
        assert!(!seen.legal().is_empty());
        let ask = json!({"type": "ask", "seat": 0, "card": p.card(set[0]), "show": [p.card(set[2]), p.card(set[3])]});
        act(&mut table, &mut log, 1, &ask);
        // Seat 1 was given the Crown, so it asks again: for set[1], which seat 0 still holds.
        let action = play(&HOE, table.as_ref(), Seat(1), &log, Level::Steady, 1).unwrap();
        assert_eq!(action["card"], json!(p.card(set[1])), "{action}");
        assert_eq!(action["seat"], json!(0), "{action}");
    }

    #[test]
    fn steady_asks_the_player_collecting_a_set_and_not_the_one_that_refused_it() {
        let p = pack();
        let crown = p.reigns[0].first - p.base;
        let set: Vec<u8> = (crown..crown + p.reigns[0].len).collect();
        // Seat 0 holds set[1] and one non-Crown card of each of six other reigns: no pair and
        // no Crown, so it may ask for any card that is not a Crown. Seat 1 holds the Crown of
        // the set; seat 2 holds none of it.
        let mut own: Vec<u8> = p.reigns[1..7]
            .iter()
            .map(|r| r.first - p.base + 1)
            .collect();
        own.insert(0, set[1]);
        let mut rest = (0..u8::try_from(PACK_SIZE).unwrap())
            .filter(|l| !set.contains(l) && !own.contains(l))
            .collect::<Vec<u8>>()
            .into_iter();
        let mut own = own.into_iter();
        let mut first = Vec::new();
        for k in 0..21 {
            first.push(match k {
                1 => set[0],
                k if k % 3 == 0 => own.next().unwrap(),
                _ => rest.next().unwrap(),
            });
        }
        let (mut table, mut log) = dealt(&first);
        // Seat 0 asks seat 2 for set[3], which lies in the pool: refused, and seat 0 draws.
        act(
            &mut table,
            &mut log,
            0,
            &json!({"type": "ask", "seat": 2, "card": p.card(set[3])}),
        );
        let action = play(&HOE, table.as_ref(), Seat(1), &log, Level::Steady, 1).unwrap();
        // Seat 1 wants the rest of its set: seat 2 is known to lack set[3] and seat 0 is known
        // to be collecting the set, so it asks seat 0.
        assert_eq!(action["seat"], json!(0), "{action}");
    }

    #[test]
    fn a_refused_card_fits_only_the_places_taken_since() {
        assert_eq!(places_for(5, None), 5);
        assert_eq!(places_for(5, Some(0)), 0);
        assert_eq!(places_for(5, Some(2)), 2);
        assert_eq!(places_for(1, Some(4)), 1);
    }

    #[test]
    fn samples_keep_every_hand_size_every_seen_card_and_every_refusal() {
        use rand_core::SeedableRng;
        let p = pack();
        // Seat 0 holds William I's Crown and one card of each of six other reigns; the rest of
        // William I's set lies in the pool. Seat 0 asks seat 2 for one of them (refused) and
        // draws.
        let crown = p.reigns[0].first - p.base;
        let asked = crown + 1;
        let mut own: Vec<u8> = p.reigns[1..7]
            .iter()
            .map(|r| r.first - p.base + 1)
            .collect();
        own.insert(0, crown);
        let set = p.set(&p.reigns[0]);
        let mut rest = (0..u8::try_from(PACK_SIZE).unwrap())
            .rev()
            .filter(|l| set & bit(*l) == 0 && !own.contains(l))
            .collect::<Vec<u8>>()
            .into_iter();
        let mut own = own.into_iter();
        let first: Vec<u8> = (0..21)
            .map(|k| {
                if k % 3 == 0 {
                    own.next().unwrap()
                } else {
                    rest.next().unwrap()
                }
            })
            .collect();
        let (mut table, mut log) = dealt(&first);
        act(
            &mut table,
            &mut log,
            0,
            &json!({"type": "ask", "seat": 2, "card": p.card(asked)}),
        );
        let seen = Seen::observe(&HOE, table.as_ref(), Seat(1), &log).unwrap();
        let observed = Observed::read(&seen).unwrap();
        let mut rng = Rng::seed_from_u64(7);
        let mut in_seat_0 = 0;
        let samples = 2000;
        for _ in 0..samples {
            let state = observed.determinize(&mut rng).unwrap();
            for s in 0..3u8 {
                let size = usize::try_from(state.hand(s).count_ones()).unwrap();
                assert_eq!(size, observed.cards[usize::from(s)]);
            }
            assert_eq!(state.hand(1), observed.hand);
            assert_eq!(state.pool_left(), observed.pool);
            // Seat 2 refused it and has not drawn since.
            assert_eq!(state.hand(2) & bit(asked), 0);
            if state.hand(0) & bit(asked) != 0 {
                in_seat_0 += 1;
            }
        }
        // Seat 0 (the asker) lacked it and has drawn one card since: it is hers only if that
        // card was it, one chance in the pool's 38 (uniform over her 8 cards and the pool, it
        // would be about one in six).
        assert!(in_seat_0 > 0, "never in seat 0's hand");
        assert!(in_seat_0 * 12 < samples, "{in_seat_0} of {samples}");
    }

    #[test]
    fn random_backs_a_crown_it_can_with_the_cards_of_its_set() {
        let p = pack();
        let william = p.reigns[0];
        let crown = william.first - p.base;
        // Seat 0 holds two of William I's set but not its Crown.
        let mut first: Vec<u8> = vec![crown + 1];
        first.extend(30..52);
        first.insert(3, crown + 2);
        first.truncate(21);
        let (table, log) = dealt(&first);
        let mut honest = 0;
        let mut crowns = 0;
        for seed in 0..400 {
            let action = play(&HOE, table.as_ref(), Seat(0), &log, Level::Random, seed).unwrap();
            if action["card"] == json!(p.card(crown)) {
                crowns += 1;
                let shown: Vec<Value> = action["show"].as_array().unwrap().clone();
                if shown.contains(&json!(p.card(crown + 1)))
                    && shown.contains(&json!(p.card(crown + 2)))
                {
                    honest += 1;
                }
            }
        }
        assert!(crowns > 0);
        assert!(honest * 10 >= crowns * 8, "{honest} honest of {crowns}");
    }
}

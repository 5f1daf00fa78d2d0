//! British Birds: collect sets of five birds by picking them up from the table or asking other
//! players for them; an Owl card lets a player keep a card they were asked for.
//!
//! The printed rules are quoted and every decision Parlour took on them is explained in
//! `docs/rules/british-birds.md`. The deck is a reconstruction: the printed card list is lost.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

use crate::chance::{Chance, Shuffled};
use crate::game::{
    Description, Game, Refusal, RefusalKind, Scoresheet, Seat, Setup, SetupError, View, Viewer,
};

/// Eight sets, A to H.
const SETS: usize = 8;
/// Five birds in each set, numbered 1 to 5.
const BIRDS_PER_SET: u8 = 5;
/// Bird cards come first in the catalogue, the four Owls after them.
const BIRD_CARDS: u8 = 40;
/// 40 birds and 4 Owls.
const CARDS: usize = 44;
/// Rule 1: seven cards to each player and seven face up in a row.
const HAND: usize = 7;
/// Rule 1: the seven exposed cards.
const ROW: usize = 7;
const MIN_PLAYERS: usize = 2;
const MAX_PLAYERS: usize = 4;
/// Rule 10.
const POINTS_PER_SET: u32 = 5;
/// Parlour's end rule: the game ends once the turn has passed this many rounds of the table in a
/// row without a card picked up or a set laid.
const DEFAULT_QUIET_ROUNDS: u32 = 10;
const BIRD_MASK: u64 = (1 << BIRD_CARDS) - 1;
const OWL_MASK: u64 = ((1 << CARDS) - 1) & !BIRD_MASK;

/// Every card's stable id, in catalogue order: `a-1` … `h-5`, then `owl-1` … `owl-4`.
const CARD_IDS: [&str; CARDS] = [
    "a-1", "a-2", "a-3", "a-4", "a-5", "b-1", "b-2", "b-3", "b-4", "b-5", "c-1", "c-2", "c-3",
    "c-4", "c-5", "d-1", "d-2", "d-3", "d-4", "d-5", "e-1", "e-2", "e-3", "e-4", "e-5", "f-1",
    "f-2", "f-3", "f-4", "f-5", "g-1", "g-2", "g-3", "g-4", "g-5", "h-1", "h-2", "h-3", "h-4",
    "h-5", "owl-1", "owl-2", "owl-3", "owl-4",
];

/// A set as printed: its letter, Parlour's name for it, its habitat and its five birds.
struct SetPrint {
    letter: &'static str,
    name: &'static str,
    habitat: &'static str,
    birds: [&'static str; 5],
}

/// The reconstructed deck: real British species, grouped to fit the rule sheet (A–D land, E–H water).
const SET_PRINTS: [SetPrint; SETS] = [
    SetPrint {
        letter: "A",
        name: "Garden",
        habitat: "land",
        birds: ["Robin", "Blackbird", "Song Thrush", "Wren", "House Sparrow"],
    },
    SetPrint {
        letter: "B",
        name: "Woodland",
        habitat: "land",
        birds: [
            "Great Spotted Woodpecker",
            "Green Woodpecker",
            "Jay",
            "Nuthatch",
            "Treecreeper",
        ],
    },
    SetPrint {
        letter: "C",
        name: "Field & Hedgerow",
        habitat: "land",
        birds: [
            "Skylark",
            "Yellowhammer",
            "Chaffinch",
            "Goldfinch",
            "Cuckoo",
        ],
    },
    SetPrint {
        letter: "D",
        name: "Birds of Prey",
        habitat: "land",
        birds: [
            "Kestrel",
            "Sparrowhawk",
            "Buzzard",
            "Peregrine Falcon",
            "Golden Eagle",
        ],
    },
    SetPrint {
        letter: "E",
        name: "Lakes & Ponds",
        habitat: "water",
        birds: [
            "Mute Swan",
            "Mallard",
            "Moorhen",
            "Coot",
            "Great Crested Grebe",
        ],
    },
    SetPrint {
        letter: "F",
        name: "Rivers & Reedbeds",
        habitat: "water",
        birds: [
            "Grey Heron",
            "Kingfisher",
            "Dipper",
            "Grey Wagtail",
            "Bittern",
        ],
    },
    SetPrint {
        letter: "G",
        name: "Shore & Estuary",
        habitat: "water",
        birds: [
            "Oystercatcher",
            "Curlew",
            "Redshank",
            "Ringed Plover",
            "Dunlin",
        ],
    },
    SetPrint {
        letter: "H",
        name: "Sea & Cliffs",
        habitat: "water",
        birds: [
            "Puffin",
            "Gannet",
            "Herring Gull",
            "Cormorant",
            "Common Tern",
        ],
    },
];

const OWL_NAMES: [&str; 4] = ["Barn Owl", "Tawny Owl", "Little Owl", "Short-eared Owl"];

/// One card of the pack: a bird of a set, or an Owl. Written as its id (`c-4`, `owl-2`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// The card with this stable id.
    pub fn from_id(id: &str) -> Option<Card> {
        CARD_IDS
            .iter()
            .position(|c| *c == id)
            .map(|i| Card(i as u8))
    }

    /// The card's stable id.
    pub fn id(self) -> &'static str {
        CARD_IDS[usize::from(self.0)]
    }

    /// The set this bird belongs to; `None` for an Owl.
    pub fn set(self) -> Option<BirdSet> {
        (self.0 < BIRD_CARDS).then_some(BirdSet(self.0 / BIRDS_PER_SET))
    }

    /// Whether this is one of the four Owls.
    pub fn is_owl(self) -> bool {
        self.0 >= BIRD_CARDS
    }

    fn bit(self) -> u64 {
        1 << self.0
    }

    fn all() -> impl Iterator<Item = Card> {
        (0..CARDS as u8).map(Card)
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        Card::from_id(&id).ok_or_else(|| serde::de::Error::custom(format!("no card {id:?}")))
    }
}

/// A set of five birds with the same letter. Written as its lowercase letter (`a` … `h`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BirdSet(u8);

impl BirdSet {
    /// The set's lowercase letter, its stable id.
    pub fn id(self) -> &'static str {
        ["a", "b", "c", "d", "e", "f", "g", "h"][usize::from(self.0)]
    }

    fn mask(self) -> u64 {
        0b1_1111 << (self.0 * BIRDS_PER_SET)
    }

    fn cards(self) -> impl Iterator<Item = Card> {
        (0..BIRDS_PER_SET).map(move |n| Card(self.0 * BIRDS_PER_SET + n))
    }

    fn all() -> impl Iterator<Item = BirdSet> {
        (0..SETS as u8).map(BirdSet)
    }
}

impl Serialize for BirdSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for BirdSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        BirdSet::all()
            .find(|s| s.id() == id)
            .ok_or_else(|| serde::de::Error::custom(format!("no set {id:?}")))
    }
}

/// The cards one player holds, as a bit per card: cheap to copy and to test.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
struct Hand(u64);

impl Hand {
    fn holds(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }

    fn add(&mut self, card: Card) {
        self.0 |= card.bit();
    }

    fn take(&mut self, card: Card) {
        self.0 &= !card.bit();
    }

    fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    fn is_empty(self) -> bool {
        self.0 == 0
    }

    fn holds_a_bird(self) -> bool {
        self.0 & BIRD_MASK != 0
    }

    fn holds_any_of(self, set: BirdSet) -> bool {
        self.0 & set.mask() != 0
    }

    fn first_owl(self) -> Option<Card> {
        let owls = self.0 & OWL_MASK;
        (owls != 0).then(|| Card(owls.trailing_zeros() as u8))
    }

    fn complete_sets(self) -> impl Iterator<Item = BirdSet> {
        BirdSet::all().filter(move |s| self.0 & s.mask() == s.mask())
    }

    fn cards(self) -> impl Iterator<Item = Card> {
        Card::all().filter(move |c| self.holds(*c))
    }

    fn ids(self) -> Vec<&'static str> {
        self.cards().map(Card::id).collect()
    }
}

/// What a player wants done, while they are away, when someone asks them for a card.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OwlPreference {
    /// Wait for the player to answer every ask themselves (the printed game).
    #[default]
    AskMe,
    /// Answer at once: hand the card over if held, never play an Owl.
    AlwaysHandOver,
    /// Answer at once: play an Owl whenever it would keep the card asked for.
    AlwaysPlayOwl,
}

impl OwlPreference {
    fn id(self) -> &'static str {
        match self {
            OwlPreference::AskMe => "ask_me",
            OwlPreference::AlwaysHandOver => "always_hand_over",
            OwlPreference::AlwaysPlayOwl => "always_play_owl",
        }
    }

    const ALL: [OwlPreference; 3] = [
        OwlPreference::AskMe,
        OwlPreference::AlwaysHandOver,
        OwlPreference::AlwaysPlayOwl,
    ];
}

/// The highest `play_to`. A series deals games until someone's total reaches it, so the
/// target bounds how long a series (and its log) grows: a game shares out at most 40 points
/// (8 sets at 5), so 1,000 points is at least 25 games and commonly a hundred, far beyond
/// any sitting, whereas a target like 4,000,000,000 asks for a series that never ends.
pub const MAX_PLAY_TO: u32 = 1_000;

/// The options of a British Birds table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Each seat's standing Owl preference at the start, in seat order; empty means every seat
    /// answers for itself (`ask_me`).
    pub owl_preferences: Vec<OwlPreference>,
    /// The game ends when the turn has passed this many rounds of the table in a row with no
    /// card picked up and no set laid (1 to 100).
    pub quiet_rounds: u32,
    /// Rule 10's series: deal further games until someone's total reaches this (the printed
    /// rules say 50). `None` plays a single game.
    pub play_to: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            owl_preferences: Vec::new(),
            quiet_rounds: DEFAULT_QUIET_ROUNDS,
            play_to: None,
        }
    }
}

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Rule 9: all eight sets are on the table.
    AllSetsLaid,
    /// Parlour's end rule: too many turns passed with nothing picked up and no set laid.
    NoProgress,
}

/// How an asked player answered.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Answer {
    HandedOver,
    Owl,
    NotHeld,
}

/// The last ask and its answer, for the view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct LastAsk {
    asker: Seat,
    asked: Seat,
    card: Card,
    answer: Answer,
}

/// Where the game stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the deal (or between two games of a series, inside one batch of events).
    Dealing,
    /// `seat` picks up or asks.
    Turn { seat: Seat },
    /// `asker` asked `asked` for `card`; the game waits for `asked` to answer.
    Asked {
        asker: Seat,
        asked: Seat,
        card: Card,
    },
    /// The game (or the series) is over.
    Over { ending: Ending },
}

/// A British Birds table at one moment, hidden cards included.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    players: u8,
    quiet_rounds: u32,
    play_to: Option<u32>,
    preferences: [OwlPreference; MAX_PLAYERS],
    /// Whether the seat to act has already changed its preference at this step.
    preference_changed: bool,
    phase: Phase,
    hands: [Hand; MAX_PLAYERS],
    /// Rule 1: the exposed cards; a picked-up card is replaced in its own place.
    row: [Option<Card>; ROW],
    /// The dealt order; the pack is `deal_order[pack_next..]`, top first.
    deal_order: [Card; CARDS],
    pack_next: u8,
    /// Who laid each set.
    laid: [Option<Seat>; SETS],
    /// Who played each Owl onto the table.
    owls: [Option<Seat>; 4],
    /// Turn passes since the last card picked up or set laid.
    quiet_turns: u32,
    last_ask: Option<LastAsk>,
    /// Games dealt so far in this series (1 during the first game).
    game: u32,
    first: Seat,
    /// Points per seat of each finished game.
    finished: Vec<[u32; MAX_PLAYERS]>,
}

impl State {
    fn seats(&self) -> usize {
        usize::from(self.players)
    }

    fn pack(&self) -> &[Card] {
        &self.deal_order[usize::from(self.pack_next).min(CARDS)..]
    }

    fn row_holds(&self, card: Card) -> bool {
        self.row.contains(&Some(card))
    }

    fn row_is_empty(&self) -> bool {
        self.row.iter().all(Option::is_none)
    }

    fn all_laid(&self) -> bool {
        self.laid.iter().all(Option::is_some)
    }

    /// Rules 2 and 6: a player can pick up while a card is exposed, and ask while holding a bird.
    fn can_play(&self, seat: Seat) -> bool {
        !self.row_is_empty() || self.hands[seat.index()].holds_a_bird()
    }

    fn sets_of(&self, seat: Seat) -> impl Iterator<Item = BirdSet> + '_ {
        BirdSet::all().filter(move |s| self.laid[usize::from(s.0)] == Some(seat))
    }

    fn points(&self, seat: Seat) -> u32 {
        self.sets_of(seat).count() as u32 * POINTS_PER_SET
    }

    fn game_points(&self) -> [u32; MAX_PLAYERS] {
        let mut points = [0; MAX_PLAYERS];
        for seat in Seat::all(self.seats()) {
            points[seat.index()] = self.points(seat);
        }
        points
    }

    fn totals(&self) -> [u32; MAX_PLAYERS] {
        let mut totals = [0; MAX_PLAYERS];
        for game in &self.finished {
            for (total, points) in totals.iter_mut().zip(game) {
                *total += points;
            }
        }
        totals
    }

    fn quiet_limit(&self) -> u32 {
        self.quiet_rounds * u32::from(self.players)
    }

    /// Rules 3 and 5: the turn passes to the left, past anyone who can neither pick up nor ask.
    fn pass_turn(&mut self, from: Seat) {
        let players = self.seats();
        let mut next = from.left(players);
        for _ in 0..players {
            if self.can_play(next) {
                break;
            }
            next = next.left(players);
        }
        self.phase = Phase::Turn { seat: next };
        self.quiet_turns += 1;
    }

    /// Rule 6 mid-turn: a player whose last cards went down as a set, with nothing exposed,
    /// has no move left, so the turn passes.
    fn settle(&mut self) {
        if let Phase::Turn { seat } = self.phase {
            if !self.all_laid() && !self.can_play(seat) {
                self.pass_turn(seat);
            }
        }
    }

    fn apply(&mut self, event: &Event) {
        if !matches!(event, Event::OwlPreference { .. }) {
            self.preference_changed = false;
        }
        match event {
            Event::Deal {
                first, shuffled, ..
            } => self.deal(*first, &shuffled.order),
            Event::PickUp {
                seat,
                card,
                replacement,
            } => {
                if let Some(slot) = self.row.iter_mut().find(|c| **c == Some(*card)) {
                    *slot = *replacement;
                }
                if replacement.is_some() {
                    self.pack_next += 1;
                }
                self.hands[seat.index()].add(*card);
                self.pass_turn(*seat);
                self.quiet_turns = 0;
            }
            Event::Ask { seat, asked, card } => {
                self.phase = Phase::Asked {
                    asker: *seat,
                    asked: *asked,
                    card: *card,
                };
            }
            Event::HandOver { from, to, card } => {
                self.hands[from.index()].take(*card);
                self.hands[to.index()].add(*card);
                self.last_ask = Some(LastAsk {
                    asker: *to,
                    asked: *from,
                    card: *card,
                    answer: Answer::HandedOver,
                });
                self.phase = Phase::Turn { seat: *to };
            }
            Event::Owl {
                seat,
                owl,
                asker,
                card,
            } => {
                self.hands[seat.index()].take(*owl);
                if let Some(place) = self.owls.get_mut(usize::from(owl.0 - BIRD_CARDS)) {
                    *place = Some(*seat);
                }
                self.last_ask = Some(LastAsk {
                    asker: *asker,
                    asked: *seat,
                    card: *card,
                    answer: Answer::Owl,
                });
                self.pass_turn(*asker);
            }
            Event::NotHeld { seat, asker, card } => {
                self.last_ask = Some(LastAsk {
                    asker: *asker,
                    asked: *seat,
                    card: *card,
                    answer: Answer::NotHeld,
                });
                self.pass_turn(*asker);
            }
            Event::SetLaid { seat, set } => {
                self.hands[seat.index()].0 &= !set.mask();
                self.laid[usize::from(set.0)] = Some(*seat);
                self.quiet_turns = 0;
                self.settle();
            }
            Event::OwlPreference { seat, preference } => {
                self.preferences[seat.index()] = *preference;
                self.preference_changed = true;
            }
            Event::GameOver { ending, .. } => {
                self.finished.push(self.game_points());
                let series_won = match self.play_to {
                    None => true,
                    Some(target) => self.totals().iter().any(|t| *t >= target),
                };
                self.phase = if series_won {
                    Phase::Over { ending: *ending }
                } else {
                    Phase::Dealing
                };
            }
        }
    }

    /// Rule 1: seven cards to each player one at a time from the first player round, seven
    /// face up in a row, the rest face down as the pack.
    fn deal(&mut self, first: Seat, order: &[Card]) {
        let players = self.seats();
        self.hands = [Hand::default(); MAX_PLAYERS];
        self.row = [None; ROW];
        self.laid = [None; SETS];
        self.owls = [None; 4];
        self.last_ask = None;
        self.quiet_turns = 0;
        for (place, card) in self.deal_order.iter_mut().zip(order) {
            *place = *card;
        }
        let dealt = HAND * players;
        for (k, card) in order.iter().take(dealt).enumerate() {
            let seat = Seat(((first.index() + k) % players) as u8);
            self.hands[seat.index()].add(*card);
        }
        for (slot, card) in self.row.iter_mut().zip(order.iter().skip(dealt)) {
            *slot = Some(*card);
        }
        self.pack_next = (dealt + ROW) as u8;
        self.game += 1;
        self.first = first;
        self.phase = Phase::Turn { seat: first };
    }

    fn seat_json(&self, seat: Seat) -> Value {
        let sets: Vec<_> = self.sets_of(seat).map(BirdSet::id).collect();
        let owls = self.owls.iter().filter(|o| **o == Some(seat)).count();
        let mut value = json!({
            "hand_size": self.hands[seat.index()].len(),
            "sets": sets,
            "points": self.points(seat),
            "owls_played": owls,
            "owl_preference": self.preferences[seat.index()].id(),
        });
        if self.play_to.is_some() {
            value["total"] = json!(self.totals()[seat.index()]);
        }
        value
    }

    fn public_json(&self) -> Value {
        let row: Vec<Option<&str>> = self.row.iter().map(|c| c.map(Card::id)).collect();
        let laid: Vec<Value> = BirdSet::all()
            .filter_map(|set| {
                self.laid[usize::from(set.0)].map(|seat| json!({"set": set.id(), "seat": seat}))
            })
            .collect();
        let owls: Vec<Value> = self
            .owls
            .iter()
            .enumerate()
            .filter_map(|(i, seat)| {
                seat.map(
                    |seat| json!({"card": CARD_IDS[usize::from(BIRD_CARDS) + i], "seat": seat}),
                )
            })
            .collect();
        let (turn, asked) = match self.phase {
            Phase::Turn { seat } => (Some(seat), Value::Null),
            Phase::Asked { asker, asked, card } => (
                Some(asker),
                json!({"asker": asker, "seat": asked, "card": card}),
            ),
            Phase::Dealing | Phase::Over { .. } => (None, Value::Null),
        };
        let last_ask = self.last_ask.map_or(Value::Null, |last| {
            json!({"asker": last.asker, "seat": last.asked, "card": last.card, "answer": last.answer})
        });
        json!({
            "row": row,
            "pack_size": self.pack().len(),
            "laid": laid,
            "owls": owls,
            "turn": turn,
            "asked": asked,
            "last_ask": last_ask,
            "quiet_turns": self.quiet_turns,
            "quiet_limit": self.quiet_limit(),
            "game": self.game,
            "play_to": self.play_to,
            "finished": matches!(self.phase, Phase::Over { .. }),
        })
    }
}

/// What a player may submit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Rule 2(a): pick up one exposed card (ends the turn).
    PickUp {
        /// The exposed card.
        card: Card,
    },
    /// Rule 2(b): ask another player for a particular card of a set you hold a card of.
    Ask {
        /// The player asked.
        seat: Seat,
        /// The card wanted.
        card: Card,
    },
    /// Rule 2(b), answering an ask: hand the card over.
    HandOver,
    /// Rule 7, answering an ask: keep the card and play an Owl onto the table.
    PlayOwl,
    /// Rule 5, answering an ask: "I haven't got it."
    NotHeld,
    /// Change your standing Owl preference (at your turn or when you are asked).
    SetOwlPreference {
        /// The new preference.
        preference: OwlPreference,
    },
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Rule 1: the deal of one game, from the whole shuffled pack.
    Deal {
        /// Who plays first (the player on the dealer's left).
        first: Seat,
        /// How many players were dealt to.
        players: u8,
        /// The shuffled pack, dealt from the top.
        shuffled: Shuffled<Card>,
    },
    /// Rule 2(a): a card picked up from the row, and the pack's top card turned up in its place.
    PickUp {
        /// Who picked it up.
        seat: Seat,
        /// The card picked up.
        card: Card,
        /// The pack's top card, now exposed in its place (`None` once the pack is used up).
        replacement: Option<Card>,
    },
    /// Rule 2(b): an ask, heard by everyone.
    Ask {
        /// Who asked.
        seat: Seat,
        /// Who was asked.
        asked: Seat,
        /// The card asked for.
        card: Card,
    },
    /// The asked card handed over.
    HandOver {
        /// Who handed it over.
        from: Seat,
        /// Who asked for it.
        to: Seat,
        /// The card.
        card: Card,
    },
    /// Rule 7: an Owl played onto the table to keep the card asked for.
    Owl {
        /// Who played the Owl.
        seat: Seat,
        /// The Owl card.
        owl: Card,
        /// Who had asked.
        asker: Seat,
        /// The card asked for (kept).
        card: Card,
    },
    /// Rule 5: the player asked has not got the card.
    NotHeld {
        /// Who was asked.
        seat: Seat,
        /// Who asked.
        asker: Seat,
        /// The card asked for.
        card: Card,
    },
    /// Rule 8: a completed set laid on the table.
    SetLaid {
        /// Who laid it.
        seat: Seat,
        /// The set.
        set: BirdSet,
    },
    /// A seat's standing Owl preference changed.
    OwlPreference {
        /// The seat.
        seat: Seat,
        /// The new preference.
        preference: OwlPreference,
    },
    /// Rules 9 and 10: a game ended.
    GameOver {
        /// Why it ended.
        ending: Ending,
        /// Points scored in this game, per seat.
        points: Vec<u32>,
    },
}

/// A move British Birds does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// Not this seat's move.
    #[error("it is not your move: the game is waiting for {0}")]
    NotYourMove(String),
    /// An answer is owed first.
    #[error("you have been asked for the {0}: answer first (rule 2b)")]
    AnswerFirst(&'static str),
    /// Answering when nobody asked.
    #[error("nobody has asked you for a card")]
    NotAsked,
    /// Rule 2(a).
    #[error("the {0} is not one of the cards exposed on the table (rule 2a)")]
    NotExposed(&'static str),
    /// Rule 2(b): asking yourself or an empty seat.
    #[error("you may only ask one of the other players at the table (rule 2b)")]
    NotAnotherPlayer,
    /// Rule 2(b): Owls belong to no set.
    #[error("an Owl belongs to no set, so nobody can ask for one (rule 2b)")]
    AskedForOwl,
    /// Rule 2(b) / 6.
    #[error("you may only ask for a card of a set you hold at least one card of (rules 2b and 6)")]
    NoCardOfThatSet,
    /// Asking for a card you hold.
    #[error("you already hold the {0}: ask for a card you want")]
    AlreadyHeld(&'static str),
    /// Asking for an exposed card.
    #[error("the {0} is face up on the table, so nobody holds it: pick it up instead")]
    Exposed(&'static str),
    /// Rule 2(b)/7: only a card you hold can be handed over or kept with an Owl.
    #[error("you have not got the {0}: say so (rule 5)")]
    NotHeldByYou(&'static str),
    /// Rule 2(b): a card you hold must be handed over unless you play an Owl.
    #[error("you hold the {0}: you must hand it over unless you play an Owl (rules 2b and 7)")]
    MustHandOver(&'static str),
    /// Rule 7.
    #[error("you have no Owl to play (rule 7)")]
    NoOwl,
    /// Preference already this.
    #[error("that is already your Owl preference")]
    SamePreference,
    /// Preference changed already at this step.
    #[error("you have already changed your Owl preference at this move")]
    PreferenceAlreadyChanged,
}

impl Refusal for RuleError {
    fn kind(&self) -> RefusalKind {
        match self {
            RuleError::GameOver | RuleError::NotYourMove(_) => RefusalKind::NotYourMove,
            _ => RefusalKind::Forbidden,
        }
    }

    fn rule(&self) -> &'static str {
        match self {
            RuleError::GameOver => "game-over",
            RuleError::NotYourMove(_) => "not-your-move",
            RuleError::AnswerFirst(_) => "answer-the-ask",
            RuleError::NotAsked => "nobody-asked-you",
            RuleError::NotExposed(_) => "pick-up-an-exposed-card",
            RuleError::NotAnotherPlayer => "ask-another-player",
            RuleError::AskedForOwl => "owls-are-not-a-set",
            RuleError::NoCardOfThatSet => "hold-a-card-of-the-set",
            RuleError::AlreadyHeld(_) => "ask-for-a-card-you-lack",
            RuleError::Exposed(_) => "exposed-cards-are-picked-up",
            RuleError::NotHeldByYou(_) => "say-you-have-not-got-it",
            RuleError::MustHandOver(_) => "hand-over-the-card",
            RuleError::NoOwl => "owl-needed",
            RuleError::SamePreference => "preference-unchanged",
            RuleError::PreferenceAlreadyChanged => "one-preference-change-per-move",
        }
    }
}

/// British Birds, as a [`Game`].
pub struct BritishBirds;

/// Applies events to a scratch copy as they are decided, so later events see their effects.
struct Batch {
    state: State,
    events: Vec<Event>,
}

impl Batch {
    fn new(state: &State) -> Self {
        Batch {
            state: state.clone(),
            events: Vec::with_capacity(4),
        }
    }

    fn push(&mut self, event: Event) {
        self.state.apply(&event);
        self.events.push(event);
    }

    /// Rule 8: whoever completes a set lays it at once.
    fn lay_sets(&mut self) {
        for seat in Seat::all(self.state.seats()) {
            let complete: Vec<BirdSet> = self.state.hands[seat.index()].complete_sets().collect();
            for set in complete {
                self.push(Event::SetLaid { seat, set });
            }
        }
    }

    /// Rule 9 and Parlour's end rule, then Rule 10's next deal when a series goes on.
    fn end_if_over(&mut self, chance: &mut Chance) {
        let ending = if self.state.all_laid() {
            Ending::AllSetsLaid
        } else if self.state.quiet_turns >= self.state.quiet_limit() {
            Ending::NoProgress
        } else {
            return;
        };
        let points = self.state.game_points()[..self.state.seats()].to_vec();
        self.push(Event::GameOver { ending, points });
        if self.state.phase == Phase::Dealing {
            // Rule 10's further games: the deal passes to the left.
            let first = self.state.first.left(self.state.seats());
            self.deal(first, chance.shuffle(&Card::all().collect::<Vec<_>>()));
        }
    }

    fn deal(&mut self, first: Seat, shuffled: Shuffled<Card>) {
        let players = self.state.players;
        self.push(Event::Deal {
            first,
            players,
            shuffled,
        });
        self.lay_sets();
    }

    fn finish(mut self, chance: &mut Chance) -> Vec<Event> {
        self.lay_sets();
        self.end_if_over(chance);
        self.events
    }
}

/// The answer a seat's standing preference gives at once, or `None` when the game must wait.
fn automatic_answer(state: &State, asked: Seat, card: Card) -> Option<Answer> {
    let hand = state.hands[asked.index()];
    let holds = hand.holds(card);
    // Everyone can see an empty hand, so waiting for its owner would tell nobody anything.
    if hand.is_empty() {
        return Some(Answer::NotHeld);
    }
    match state.preferences[asked.index()] {
        OwlPreference::AskMe => None,
        OwlPreference::AlwaysHandOver if holds => Some(Answer::HandedOver),
        OwlPreference::AlwaysPlayOwl if holds && hand.first_owl().is_some() => Some(Answer::Owl),
        OwlPreference::AlwaysPlayOwl if holds => Some(Answer::HandedOver),
        _ => Some(Answer::NotHeld),
    }
}

fn answer_event(state: &State, asker: Seat, asked: Seat, card: Card, answer: Answer) -> Event {
    match (answer, state.hands[asked.index()].first_owl()) {
        (Answer::HandedOver, _) => Event::HandOver {
            from: asked,
            to: asker,
            card,
        },
        (Answer::Owl, Some(owl)) => Event::Owl {
            seat: asked,
            owl,
            asker,
            card,
        },
        _ => Event::NotHeld {
            seat: asked,
            asker,
            card,
        },
    }
}

/// The answers the asked player may truthfully give.
fn truthful_answers(state: &State, asked: Seat, card: Card) -> impl Iterator<Item = Answer> {
    let hand = state.hands[asked.index()];
    let holds = hand.holds(card);
    let owl = holds && hand.first_owl().is_some();
    [
        (holds, Answer::HandedOver),
        (owl, Answer::Owl),
        (!holds, Answer::NotHeld),
    ]
    .into_iter()
    .filter_map(|(ok, answer)| ok.then_some(answer))
}

fn check_ask(state: &State, seat: Seat, asked: Seat, card: Card) -> Result<(), RuleError> {
    if asked == seat || asked.index() >= state.seats() {
        return Err(RuleError::NotAnotherPlayer);
    }
    let Some(set) = card.set() else {
        return Err(RuleError::AskedForOwl);
    };
    let hand = state.hands[seat.index()];
    if !hand.holds_any_of(set) {
        return Err(RuleError::NoCardOfThatSet);
    }
    if hand.holds(card) {
        return Err(RuleError::AlreadyHeld(card.id()));
    }
    if state.row_holds(card) {
        return Err(RuleError::Exposed(card.id()));
    }
    Ok(())
}

fn check_answer(state: &State, seat: Seat, given: Answer) -> Result<(Seat, Card), RuleError> {
    let Phase::Asked { asker, asked, card } = state.phase else {
        return Err(RuleError::NotAsked);
    };
    if asked != seat {
        return Err(RuleError::NotAsked);
    }
    let hand = state.hands[seat.index()];
    match given {
        Answer::HandedOver | Answer::Owl if !hand.holds(card) => {
            Err(RuleError::NotHeldByYou(card.id()))
        }
        Answer::Owl if hand.first_owl().is_none() => Err(RuleError::NoOwl),
        Answer::NotHeld if hand.holds(card) => Err(RuleError::MustHandOver(card.id())),
        _ => Ok((asker, card)),
    }
}

impl Game for BritishBirds {
    type Options = Options;
    type State = State;
    type Action = Action;
    type Event = Event;
    type Error = RuleError;

    fn describe() -> Description {
        Description {
            id: "british-birds",
            name: "British Birds",
            min_players: MIN_PLAYERS,
            max_players: MAX_PLAYERS,
            summary:
                "Collect sets of five British birds by picking up the exposed cards or asking \
                      other players for the cards you want; an Owl lets a player keep a card \
                      they are asked for. Five points for each set laid.",
            options: json!({
                "owl_preferences": {
                    "description": "each seat's standing Owl preference at the start, in seat order \
                                    (ask_me, always_hand_over, always_play_owl); empty: everyone ask_me",
                    "type": "array",
                    "default": [],
                },
                "quiet_rounds": {
                    "description": "the game ends when the turn has gone this many times round the \
                                    table with no card picked up and no set laid (1 to 100)",
                    "type": "integer",
                    "default": DEFAULT_QUIET_ROUNDS,
                },
                "play_to": {
                    "description": "play a series of games until a total of this many points is \
                                    reached (1 to 1000; the printed rules: 50); null plays one game",
                    "type": "integer or null",
                    "default": null,
                },
            }),
            rules: "docs/rules/british-birds.md",
        }
    }

    fn cards() -> Value {
        let mut cards: Vec<Value> = Vec::with_capacity(CARDS);
        for (s, print) in SET_PRINTS.iter().enumerate() {
            for (n, bird) in print.birds.iter().enumerate() {
                cards.push(json!({
                    "id": CARD_IDS[s * 5 + n],
                    "name": bird,
                    "kind": "bird",
                    "set": BirdSet(s as u8).id(),
                    "letter": print.letter,
                    "set_name": print.name,
                    "habitat": print.habitat,
                    "number": n + 1,
                }));
            }
        }
        for (i, owl) in OWL_NAMES.iter().enumerate() {
            cards.push(json!({
                "id": CARD_IDS[usize::from(BIRD_CARDS) + i],
                "name": owl,
                "kind": "owl",
            }));
        }
        Value::Array(cards)
    }

    fn new(setup: &Setup<Options>) -> Result<State, SetupError> {
        let players = setup.players.len();
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
            return Err(SetupError::PlayerCount {
                game: "British Birds",
                min: MIN_PLAYERS,
                max: MAX_PLAYERS,
                got: players,
            });
        }
        let options = &setup.options;
        let mut preferences = [OwlPreference::AskMe; MAX_PLAYERS];
        match options.owl_preferences.len() {
            0 => {}
            n if n == players => preferences[..n].copy_from_slice(&options.owl_preferences),
            n => {
                return Err(SetupError::Options(format!(
                    "owl_preferences has {n} entries for {players} players"
                )))
            }
        }
        if !(1..=100).contains(&options.quiet_rounds) {
            return Err(SetupError::Options(
                "quiet_rounds must be from 1 to 100".into(),
            ));
        }
        if let Some(target) = options.play_to {
            if !(1..=MAX_PLAY_TO).contains(&target) {
                return Err(SetupError::Options(format!(
                    "play_to must be from 1 to {MAX_PLAY_TO} (or null for a single game)"
                )));
            }
        }
        Ok(State {
            players: players as u8,
            quiet_rounds: options.quiet_rounds,
            play_to: options.play_to,
            preferences,
            preference_changed: false,
            phase: Phase::Dealing,
            hands: [Hand::default(); MAX_PLAYERS],
            row: [None; ROW],
            deal_order: std::array::from_fn(|i| Card(i as u8)),
            pack_next: CARDS as u8,
            laid: [None; SETS],
            owls: [None; 4],
            quiet_turns: 0,
            last_ask: None,
            game: 0,
            first: Seat(0),
            finished: Vec::new(),
        })
    }

    fn start(state: &State, chance: &mut Chance) -> Vec<Event> {
        let mut batch = Batch::new(state);
        batch.deal(Seat(0), chance.shuffle(&Card::all().collect::<Vec<_>>()));
        batch.events
    }

    fn decide(
        state: &State,
        seat: Seat,
        action: &Action,
        chance: &mut Chance,
    ) -> Result<Vec<Event>, RuleError> {
        let to_act = match state.phase {
            Phase::Over { .. } | Phase::Dealing => return Err(RuleError::GameOver),
            Phase::Turn { seat } => seat,
            Phase::Asked { asked, .. } => asked,
        };
        if seat != to_act {
            return Err(RuleError::NotYourMove(to_act.to_string()));
        }
        let mut batch = Batch::new(state);
        match action {
            Action::SetOwlPreference { preference } => {
                if state.preference_changed {
                    return Err(RuleError::PreferenceAlreadyChanged);
                }
                if state.preferences[seat.index()] == *preference {
                    return Err(RuleError::SamePreference);
                }
                return Ok(vec![Event::OwlPreference {
                    seat,
                    preference: *preference,
                }]);
            }
            Action::PickUp { card } => {
                if let Phase::Asked { card: asked, .. } = state.phase {
                    return Err(RuleError::AnswerFirst(asked.id()));
                }
                if !state.row_holds(*card) {
                    return Err(RuleError::NotExposed(card.id()));
                }
                let replacement = state.pack().first().copied();
                batch.push(Event::PickUp {
                    seat,
                    card: *card,
                    replacement,
                });
            }
            Action::Ask { seat: asked, card } => {
                if let Phase::Asked { card: owed, .. } = state.phase {
                    return Err(RuleError::AnswerFirst(owed.id()));
                }
                check_ask(state, seat, *asked, *card)?;
                batch.push(Event::Ask {
                    seat,
                    asked: *asked,
                    card: *card,
                });
                if let Some(answer) = automatic_answer(state, *asked, *card) {
                    batch.push(answer_event(state, seat, *asked, *card, answer));
                }
            }
            Action::HandOver | Action::PlayOwl | Action::NotHeld => {
                let given = match action {
                    Action::HandOver => Answer::HandedOver,
                    Action::PlayOwl => Answer::Owl,
                    _ => Answer::NotHeld,
                };
                let (asker, card) = check_answer(state, seat, given)?;
                batch.push(answer_event(state, asker, seat, card, given));
            }
        }
        Ok(batch.finish(chance))
    }

    fn evolve(mut state: State, event: &Event) -> State {
        state.apply(event);
        state
    }

    fn to_act(state: &State) -> Vec<Seat> {
        match state.phase {
            Phase::Turn { seat } => vec![seat],
            Phase::Asked { asked, .. } => vec![asked],
            Phase::Dealing | Phase::Over { .. } => Vec::new(),
        }
    }

    fn legal_actions(state: &State, seat: Seat) -> Vec<Value> {
        let mut actions = Vec::new();
        match state.phase {
            Phase::Turn { seat: player } if player == seat => {
                for card in state.row.iter().flatten() {
                    actions.push(json!({"type": "pick_up", "card": card}));
                }
                let hand = state.hands[seat.index()];
                for set in BirdSet::all().filter(|s| hand.holds_any_of(*s)) {
                    for card in set.cards() {
                        if hand.holds(card) || state.row_holds(card) {
                            continue;
                        }
                        for asked in Seat::all(state.seats()).filter(|s| *s != seat) {
                            actions.push(json!({"type": "ask", "seat": asked, "card": card}));
                        }
                    }
                }
            }
            Phase::Asked { asked, card, .. } if asked == seat => {
                for answer in truthful_answers(state, seat, card) {
                    let kind = match answer {
                        Answer::HandedOver => "hand_over",
                        Answer::Owl => "play_owl",
                        Answer::NotHeld => "not_held",
                    };
                    actions.push(json!({ "type": kind }));
                }
            }
            _ => return actions,
        }
        if !state.preference_changed {
            for preference in OwlPreference::ALL {
                if preference != state.preferences[seat.index()] {
                    actions.push(json!({"type": "set_owl_preference", "preference": preference}));
                }
            }
        }
        actions
    }

    fn view(state: &State, viewer: Viewer) -> View {
        let seats = Seat::all(state.seats())
            .map(|s| state.seat_json(s))
            .collect();
        let private = match viewer {
            Viewer::Seat(seat) if seat.index() < state.seats() => {
                Some(json!({"hand": state.hands[seat.index()].ids()}))
            }
            _ => None,
        };
        View {
            seats,
            public: state.public_json(),
            private,
        }
    }

    fn redact(event: &Event, viewer: Viewer) -> Value {
        match event {
            Event::Deal {
                first,
                players,
                shuffled,
            } => {
                // The deal as each player saw it: their own hand, the row face up, and how many
                // cards everyone else and the pack hold. The shuffled order stays secret.
                let players = usize::from(*players).clamp(MIN_PLAYERS, MAX_PLAYERS);
                let dealt = HAND * players;
                let order = &shuffled.order;
                let row: Vec<&str> = order.iter().skip(dealt).take(ROW).map(|c| c.id()).collect();
                let mut value = json!({
                    "type": "deal",
                    "first": first,
                    "players": players,
                    "hand_sizes": vec![HAND; players],
                    "row": row,
                    "pack_size": order.len().saturating_sub(dealt + ROW),
                });
                if let Viewer::Seat(seat) = viewer {
                    if seat.index() < players {
                        let hand: Vec<&str> = order
                            .iter()
                            .take(dealt)
                            .enumerate()
                            .filter(|(k, _)| (first.index() + k) % players == seat.index())
                            .map(|(_, c)| c.id())
                            .collect();
                        value["hand"] = json!(hand);
                    }
                }
                value
            }
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        }
    }

    fn outcome(state: &State) -> Option<Value> {
        let Phase::Over { ending } = state.phase else {
            return None;
        };
        let totals = state.totals();
        let best = totals.iter().copied().max().unwrap_or(0);
        let winners: Vec<Seat> = Seat::all(state.seats())
            .filter(|s| totals[s.index()] == best)
            .collect();
        let sets: Vec<Vec<&str>> = Seat::all(state.seats())
            .map(|s| state.sets_of(s).map(BirdSet::id).collect())
            .collect();
        Some(json!({
            "ending": ending,
            "points": state.game_points()[..state.seats()],
            "sets": sets,
            "totals": totals[..state.seats()],
            "games": state.game,
            "winners": winners,
        }))
    }

    fn scoresheet(state: &State) -> Option<Scoresheet> {
        let players = state.seats();
        let mut games: Vec<Vec<u32>> = state
            .finished
            .iter()
            .map(|g| g[..players].to_vec())
            .collect();
        let in_progress = !matches!(state.phase, Phase::Over { .. } | Phase::Dealing);
        if in_progress {
            games.push(state.game_points()[..players].to_vec());
        }
        let mut totals = state.totals();
        if in_progress {
            for (total, points) in totals.iter_mut().zip(state.game_points()) {
                *total += points;
            }
        }
        let mut text = String::from("game");
        for seat in Seat::all(players) {
            text.push_str(&format!("  seat {}", seat.0));
        }
        text.push('\n');
        for (i, game) in games.iter().enumerate() {
            text.push_str(&format!("{:>4}", i + 1));
            for points in game {
                text.push_str(&format!("  {points:>6}"));
            }
            text.push('\n');
        }
        text.push_str("total");
        for total in &totals[..players] {
            text.push_str(&format!(" {total:>6} "));
        }
        text.push('\n');
        Some(Scoresheet {
            json: json!({
                "games": games,
                "totals": totals[..players],
                "play_to": state.play_to,
                "in_progress": in_progress,
            }),
            text,
        })
    }

    fn check_invariants(state: &State) -> Result<(), String> {
        let mut seen = 0u64;
        let mut count = 0usize;
        let mut place = |mask: u64, what: &str| -> Result<(), String> {
            if seen & mask != 0 {
                return Err(format!("{what} holds a card that is also elsewhere"));
            }
            seen |= mask;
            count += mask.count_ones() as usize;
            Ok(())
        };
        if state.phase == Phase::Dealing {
            return Ok(());
        }
        for seat in Seat::all(state.seats()) {
            let hand = state.hands[seat.index()];
            // A completed set is laid by the next event of the same batch, so a hand may hold
            // one between two events; the rule 8 tests pin that it is always laid.
            place(hand.0, "a hand")?;
        }
        for card in state.row.iter().flatten() {
            place(card.bit(), "the row")?;
        }
        for card in state.pack() {
            place(card.bit(), "the pack")?;
        }
        for set in BirdSet::all().filter(|s| state.laid[usize::from(s.0)].is_some()) {
            place(set.mask(), "the laid sets")?;
        }
        for (i, owl) in state.owls.iter().enumerate() {
            if owl.is_some() {
                place(Card(BIRD_CARDS + i as u8).bit(), "the played Owls")?;
            }
        }
        if count != CARDS || seen != (1 << CARDS) - 1 {
            return Err(format!("{count} cards accounted for, not {CARDS}"));
        }
        if !state.pack().is_empty() && state.row.iter().any(Option::is_none) {
            return Err("a gap in the row while the pack lasts".into());
        }
        if let Phase::Turn { seat } | Phase::Asked { asker: seat, .. } = state.phase {
            if !state.all_laid() && !state.can_play(seat) {
                return Err(format!(
                    "{seat} has the turn but can neither pick up nor ask"
                ));
            }
        }
        if state.quiet_turns > state.quiet_limit() {
            return Err("the game went on past its quiet limit".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chance::Seed;
    use crate::game::Player;

    fn setup(players: usize, options: Options) -> Setup<Options> {
        Setup {
            players: (0..players)
                .map(|i| Player {
                    name: format!("p{i}"),
                })
                .collect(),
            options,
        }
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

    fn refused(state: &State, seat: u8, body: Value) -> RuleError {
        match BritishBirds::decide(
            state,
            Seat(seat),
            &action(body.clone()),
            &mut Chance::new(Seed([7; 32]), 50),
        ) {
            Ok(events) => panic!("{body} by seat {seat} accepted: {events:?}"),
            Err(e) => e,
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
        while !state.row_is_empty() && BritishBirds::outcome(&state).is_none() {
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
            assert!(BritishBirds::legal_actions(&state, Seat(*seat))
                .iter()
                .all(|a| a["type"] != "pick_up"));
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
            refused(&state, 0, pick_up("g-2")),
            RuleError::NotYourMove("seat 1".into())
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
        let view = BritishBirds::view(&state, Viewer::Spectator);
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
        let legal = BritishBirds::legal_actions(&state, Seat(0));
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
        let legal = BritishBirds::legal_actions(&state, Seat(1));
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
        let view = BritishBirds::view(&state, Viewer::Spectator);
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
        let legal = BritishBirds::legal_actions(&state, Seat(1));
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
        let view = BritishBirds::view(&state, Viewer::Spectator);
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
        assert!(BritishBirds::legal_actions(&state, Seat(0)).is_empty());
        assert_eq!(refused(&state, 1, pick_up("g-1")), RuleError::GameOver);
        assert_eq!(RuleError::GameOver.kind(), RefusalKind::NotYourMove);
    }

    // Rule 10.

    #[test]
    fn each_player_scores_five_points_for_each_set_and_the_most_points_win() {
        let state = last_set_to_lay(
            preferences(&[OwlPreference::AskMe, OwlPreference::AlwaysHandOver]),
            &SEVEN_LAID,
        );
        let state = after(&state, 0, ask(1, "h-5"));
        let outcome = BritishBirds::outcome(&state).unwrap();
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
        let outcome = BritishBirds::outcome(&state).unwrap();
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
        assert!(BritishBirds::outcome(&state).is_none());
        assert_eq!(state.game, 2);
        assert_eq!(
            to_act(&state),
            [1],
            "the next game begins one seat further left"
        );
        let view = BritishBirds::view(&state, Viewer::Spectator);
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
            BritishBirds::outcome(&state).unwrap()["winners"],
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
        let outcome = BritishBirds::outcome(&state).unwrap();
        assert_eq!(outcome["totals"], json!([45, 40]));
        assert_eq!(outcome["winners"], json!([0]));
    }

    // Parlour's decisions.

    #[test]
    fn nobody_may_ask_for_an_owl_a_card_they_hold_or_a_card_lying_face_up() {
        let state = two_players();
        assert_eq!(refused(&state, 0, ask(1, "owl-2")), RuleError::AskedForOwl);
        assert_eq!(
            refused(&state, 0, ask(1, "a-2")),
            RuleError::AlreadyHeld("a-2")
        );
        let state = arrange(
            Options::default(),
            &[&["g-4"], &["a-1"]],
            &FULL_ROW,
            &[],
            &[],
        );
        assert_eq!(refused(&state, 0, ask(1, "g-1")), RuleError::Exposed("g-1"));
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
        let answers: Vec<Value> = BritishBirds::legal_actions(&held, Seat(1))
            .into_iter()
            .filter(|a| a["type"] != "set_owl_preference")
            .collect();
        assert_eq!(answers, [answer("hand_over"), answer("play_owl")]);
        let missing = after(&state, 0, ask(1, "a-4"));
        let answers: Vec<Value> = BritishBirds::legal_actions(&missing, Seat(1))
            .into_iter()
            .filter(|a| a["type"] != "set_owl_preference")
            .collect();
        assert_eq!(answers, [answer("not_held")]);
        assert_eq!(
            refused(&missing, 0, pick_up("g-1")),
            RuleError::NotYourMove("seat 1".into())
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
        let legal = BritishBirds::legal_actions(&state, Seat(0));
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
        let view = BritishBirds::view(&changed, Viewer::Spectator);
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
        let error = refused(&state, 1, prefer("always_hand_over"));
        assert_eq!(error.kind(), RefusalKind::NotYourMove);
        assert!(BritishBirds::legal_actions(&state, Seat(1)).is_empty());
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
        let outcome = BritishBirds::outcome(&state).unwrap();
        assert_eq!(outcome["ending"], json!("no_progress"));
        assert_eq!(outcome["winners"], json!([0, 1, 2]));
    }

    #[test]
    fn a_pick_up_or_a_set_laid_starts_the_quiet_count_again() {
        let state = after(&two_players(), 0, ask(1, "a-4"));
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

    #[test]
    fn passing_a_card_back_and_forth_cannot_go_on_for_ever() {
        let mut state = back_and_forth(DEFAULT_QUIET_ROUNDS);
        let mut turns = 0;
        while BritishBirds::outcome(&state).is_none() {
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
            BritishBirds::outcome(&state).unwrap()["ending"],
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

        let view = BritishBirds::view(&state, Viewer::Seat(Seat(1)));
        assert_eq!(view.seats[0]["hand_size"], json!(7));
        assert_eq!(view.private.unwrap()["hand"][0], json!("c-1"));
        assert!(!serde_json::to_string(&view.public).unwrap().contains("a-1"));
        assert!(BritishBirds::view(&state, Viewer::Spectator)
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
            serde_json::from_value::<Action>(json!({"type": "ask", "seat": 1, "card": "z-9"}))
                .is_err()
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
    fn the_engine_is_in_the_catalogue() {
        let engine = crate::catalog::engine("british-birds").unwrap();
        assert_eq!(engine.describe().name, "British Birds");
    }
}

//! British Birds: collect sets of five birds by picking them up from the table or asking other
//! players for them; an Owl card lets a player keep a card they were asked for.
//!
//! The printed rules are quoted and every decision Parlour took on them is explained in
//! `docs/rules/british-birds.md`. The deck is a reconstruction: the printed card list is lost.

pub(crate) mod bot;
mod cards;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::chance::{Chance, Shuffled};
use crate::game::{
    Concession, Description, Game, Refusal, RefusalKind, Scoresheet, Seat, Setup, SetupError, View,
    ViewOf, Viewer,
};

pub use cards::{BirdSet, Card};
use cards::{
    Hand, BIRD_CARDS, CARDS, CARD_IDS, DEFAULT_QUIET_ROUNDS, HAND, MAX_PLAYERS, MIN_PLAYERS,
    OWL_NAMES, POINTS_PER_SET, ROW, SETS, SET_PRINTS,
};

/// What a player wants done, while they are away, when someone asks them for a card.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default, JsonSchema)]
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

/// The last rules version whose new games may set `play_to`: from version 3, rule 10's series
/// is played as a match, each game in its own log, so a new game is always a single game.
pub const LAST_RULES_VERSION_WITH_PLAY_TO: u32 = 2;

/// The options of a British Birds table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Each seat's standing Owl preference at the start, in seat order; empty means every seat
    /// answers for itself (`ask_me`).
    pub owl_preferences: Vec<OwlPreference>,
    /// The game ends when the turn has passed this many rounds of the table in a row with no
    /// card picked up and no set laid (1 to 100); from rules version 2 only turns passed with
    /// nothing face up to pick up are counted.
    pub quiet_rounds: u32,
    /// Rule 10's series in one log: deal further games until someone's total reaches this
    /// (the printed rules say 50). `None` plays a single game. Only games created under rules
    /// version 1 or 2 may set it; from version 3 the series is a match (`POST /v1/matches`),
    /// and the option is kept for the games that recorded it.
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
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Rule 9: all eight sets are on the table.
    AllSetsLaid,
    /// Parlour's end rule: too many turns passed with nothing picked up and no set laid.
    NoProgress,
}

/// How an asked player answered.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Handed the card over.
    HandedOver,
    /// Kept it and played an Owl.
    Owl,
    /// Had not got it.
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

/// The rule points that changed between rules versions, read once from the version the game
/// was created under ([`Setup::rules_version`]); `docs/rules/british-birds.md` gives each
/// one's reasons. Everything else is the same in every version.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Rules {
    /// From version 2, the quiet-rounds count runs only while nothing lies face up, so that
    /// no pick-up is possible: while a card is exposed, any player can make progress at her
    /// turn by picking it up, and the game goes on by rule 9 alone. Version 1 counts every
    /// turn passed.
    quiet_only_with_nothing_exposed: bool,
    /// From version 2, a card lying face up in the row may be asked for (rule 2b asks only
    /// that the asker hold a card of its set): nobody holds it, so the ask fails at once.
    /// Version 1 refuses the ask.
    may_ask_for_an_exposed_card: bool,
    /// Up to version 2, `play_to` plays rule 10's series in the game's own log; from version
    /// 3 the series is a match and a new game refuses the option.
    series_in_one_log: bool,
}

impl Rules {
    fn of(version: u32) -> Rules {
        Rules {
            quiet_only_with_nothing_exposed: version >= 2,
            may_ask_for_an_exposed_card: version >= 2,
            series_in_one_log: version <= LAST_RULES_VERSION_WITH_PLAY_TO,
        }
    }
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
    rules: Rules,
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
    /// Turn passes since the last card picked up or set laid (from rules version 2, only
    /// those with nothing exposed).
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
        // At most SETS sets.
        #[allow(clippy::cast_possible_truncation)]
        let sets = self.sets_of(seat).count() as u32;
        sets * POINTS_PER_SET
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
        if !self.rules.quiet_only_with_nothing_exposed || self.row_is_empty() {
            self.quiet_turns += 1;
        }
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
            // Below `players`, at most MAX_PLAYERS.
            #[allow(clippy::cast_possible_truncation)]
            let seat = Seat(((first.index() + k) % players) as u8);
            self.hands[seat.index()].add(*card);
        }
        for (slot, card) in self.row.iter_mut().zip(order.iter().skip(dealt)) {
            *slot = Some(*card);
        }
        // At most the CARDS of the pack.
        #[allow(clippy::cast_possible_truncation)]
        let next = (dealt + ROW) as u8;
        self.pack_next = next;
        self.game += 1;
        self.first = first;
        self.phase = Phase::Turn { seat: first };
    }

    fn seat_view(&self, seat: Seat) -> SeatView {
        SeatView {
            hand_size: self.hands[seat.index()].len(),
            sets: self.sets_of(seat).collect(),
            points: self.points(seat),
            owls_played: self.owls.iter().filter(|o| **o == Some(seat)).count(),
            owl_preference: self.preferences[seat.index()],
            total: self.play_to.map(|_| self.totals()[seat.index()]),
        }
    }

    fn public_view(&self) -> PublicView {
        let laid = BirdSet::all()
            .filter_map(|set| self.laid[usize::from(set.0)].map(|seat| LaidSet { set, seat }))
            .collect();
        // The Owls in catalogue order, as `owls` records who played each.
        let owls = Card::all()
            .filter(|card| card.is_owl())
            .zip(self.owls)
            .filter_map(|(card, seat)| seat.map(|seat| OwlPlayed { card, seat }))
            .collect();
        let (turn, asked) = match self.phase {
            Phase::Turn { seat } => (Some(seat), None),
            Phase::Asked { asker, asked, card } => (
                Some(asker),
                Some(AskPending {
                    asker,
                    seat: asked,
                    card,
                }),
            ),
            Phase::Dealing | Phase::Over { .. } => (None, None),
        };
        PublicView {
            row: self.row.to_vec(),
            pack_size: self.pack().len(),
            laid,
            owls,
            turn,
            asked,
            last_ask: self.last_ask.map(|last| LastAskView {
                asker: last.asker,
                seat: last.asked,
                card: last.card,
                answer: last.answer,
            }),
            quiet_turns: self.quiet_turns,
            quiet_limit: self.quiet_limit(),
            game: self.game,
            play_to: self.play_to,
            finished: matches!(self.phase, Phase::Over { .. }),
        }
    }
}

/// What everyone sees of one seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatView {
    /// Cards in the hand.
    pub hand_size: usize,
    /// The sets this seat has laid.
    pub sets: Vec<BirdSet>,
    /// Points in this game.
    pub points: u32,
    /// Owls this seat has played onto the table.
    pub owls_played: usize,
    /// The seat's standing Owl preference.
    pub owl_preference: OwlPreference,
    /// In a series, the seat's total over the finished games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u32>,
}

/// A set on the table and who laid it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LaidSet {
    /// The set.
    pub set: BirdSet,
    /// Who laid it.
    pub seat: Seat,
}

/// An Owl on the table and who played it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct OwlPlayed {
    /// The Owl.
    pub card: Card,
    /// Who played it.
    pub seat: Seat,
}

/// An ask waiting for its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AskPending {
    /// Who asked.
    pub asker: Seat,
    /// Who was asked.
    pub seat: Seat,
    /// The card asked for.
    pub card: Card,
}

/// The last ask and how it was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LastAskView {
    /// Who asked.
    pub asker: Seat,
    /// Who was asked.
    pub seat: Seat,
    /// The card asked for.
    pub card: Card,
    /// The answer.
    pub answer: Answer,
}

/// What lies face up for everyone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PublicView {
    /// Rule 1's exposed cards, in their places (`null` for an empty place).
    pub row: Vec<Option<Card>>,
    /// Cards left in the pack.
    pub pack_size: usize,
    /// The sets laid, in set order.
    pub laid: Vec<LaidSet>,
    /// The Owls played onto the table.
    pub owls: Vec<OwlPlayed>,
    /// Whose turn it is.
    pub turn: Option<Seat>,
    /// The ask waiting for an answer, if any.
    pub asked: Option<AskPending>,
    /// The last ask and its answer.
    pub last_ask: Option<LastAskView>,
    /// Turn passes since a card was last picked up or a set laid (from rules version 2, only
    /// those with nothing face up to pick up).
    pub quiet_turns: u32,
    /// The game ends when `quiet_turns` reaches this.
    pub quiet_limit: u32,
    /// The game of the series being played (1 for the first).
    pub game: u32,
    /// The series' target, if one is played.
    pub play_to: Option<u32>,
    /// Whether the game (or series) is over.
    pub finished: bool,
}

/// What only the player in a seat sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PrivateView {
    /// The hand, in catalogue order.
    pub hand: Vec<Card>,
}

/// The result of a finished game (or series).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Outcome {
    /// Why it ended.
    pub ending: Ending,
    /// Points per seat in the last game.
    pub points: Vec<u32>,
    /// The sets each seat laid in the last game.
    pub sets: Vec<Vec<BirdSet>>,
    /// Points per seat over the finished games.
    pub totals: Vec<u32>,
    /// Games played.
    pub games: u32,
    /// The seats with the most points.
    pub winners: Vec<Seat>,
}

/// What a player may submit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// An event as a player or a spectator sees it while the game is in progress, where that
/// differs from the [`Event`] recorded: the shuffled order of the pack stays secret. Every
/// other event is seen as it was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeenEvent {
    /// Rule 1: the deal of one game, as each player saw it: seven cards face down to each
    /// player, seven face up in a row, and the rest of the pack face down in a pile.
    Deal {
        /// Who plays first (the player on the dealer's left).
        first: Seat,
        /// How many players were dealt to.
        players: usize,
        /// Cards dealt to each player, in seat order.
        hand_sizes: Vec<usize>,
        /// The cards laid face up in a row, in order.
        row: Vec<Card>,
        /// Cards left face down in the pack.
        pack_size: usize,
        /// The viewer's own hand, in the order it was dealt: for a player at the table only,
        /// not a spectator.
        #[serde(skip_serializing_if = "Option::is_none")]
        hand: Option<Vec<Card>>,
    },
}

/// A move British Birds does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
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
    /// Asking for an exposed card (rules version 1 only).
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
        // Out of turn and after the end are refused by the framework before `decide`.
        RefusalKind::Forbidden
    }

    fn rule(&self) -> &'static str {
        match self {
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
    // Everyone can see an empty hand, or the card asked for lying face up in the row, so
    // waiting for the asked player would tell nobody anything.
    if hand.is_empty() || state.row_holds(card) {
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

/// How much a card would bring `hand` nearer a set: the cards of its set the hand would then
/// hold (a bird), or 1.5 for an Owl (worth more than a bird of a set the hand holds none of,
/// which only starts one, and less than one that pairs), doubled to stay whole.
fn usefulness(hand: Hand, card: Card) -> u32 {
    match card.set() {
        Some(set) => 2 * ((hand.0 & set.mask()).count_ones() + 1),
        None => 3,
    }
}

/// The pick-up of a player whose time runs out: the exposed card that brings a set of hers
/// nearest to complete (see [`usefulness`]), the earliest in catalogue order among equals.
fn best_pick_up(state: &State, seat: Seat) -> Option<Card> {
    let hand = state.hands[seat.index()];
    state
        .row
        .iter()
        .flatten()
        .copied()
        .max_by_key(|card| (usefulness(hand, *card), std::cmp::Reverse(*card)))
}

/// The ask of a player whose time runs out with nothing exposed to pick up: the first card
/// she lacks of the set she holds most of (the earliest set among equals), from the other
/// player holding the most cards (the nearest on her left among equals). Only her own hand
/// and what the table sees go into it. `None` when she holds no bird.
fn best_ask(state: &State, seat: Seat) -> Option<(Seat, Card)> {
    let hand = state.hands[seat.index()];
    let set = BirdSet::all()
        .filter(|set| hand.holds_any_of(*set))
        .max_by_key(|set| ((hand.0 & set.mask()).count_ones(), std::cmp::Reverse(*set)))?;
    let card = set
        .cards()
        .find(|card| !hand.holds(*card) && !state.row_holds(*card))?;
    let players = state.seats();
    let mut others = Vec::with_capacity(players);
    let mut next = seat.left(players);
    while next != seat {
        others.push(next);
        next = next.left(players);
    }
    let asked = others
        .into_iter()
        .rev()
        .max_by_key(|s| state.hands[s.index()].len())?;
    Some((asked, card))
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
    if state.row_holds(card) && !state.rules.may_ask_for_an_exposed_card {
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
    // Every legal move is a complete action: British Birds never offers a choice of cards.
    type LegalAction = Action;
    type Event = Event;
    type SeenEvent = SeenEvent;
    type SeatView = SeatView;
    type PublicView = PublicView;
    type PrivateView = PrivateView;
    type Outcome = Outcome;
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
                                    table with no card picked up and no set laid (1 to 100); from \
                                    rules version 2 only turns with nothing face up to pick up count",
                    "type": "integer",
                    "default": DEFAULT_QUIET_ROUNDS,
                },
                "play_to": {
                    "description": "games created under rules version 2 or earlier only: play a \
                                    series of games in one log until a total of this many points \
                                    is reached (1 to 1000); null plays one game. New games refuse \
                                    it: a series is a match (POST /v1/matches)",
                    "type": "integer or null",
                    "default": null,
                },
            }),
            rules: "docs/rules/british-birds.md",
        }
    }

    // The set index `s` is below SETS, so it fits a u8.
    #[allow(clippy::cast_possible_truncation)]
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

    // The player count is checked against MAX_PLAYERS first, and the pack has CARDS cards: the
    // counts and card indices fit a u8.
    #[allow(clippy::cast_possible_truncation)]
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
        let rules = Rules::of(setup.rules_version);
        if let Some(target) = options.play_to {
            if !rules.series_in_one_log {
                return Err(SetupError::Options(format!(
                    "play_to is for games created under rules version \
                     {LAST_RULES_VERSION_WITH_PLAY_TO} or earlier: play rule 10's series as a \
                     match (POST /v1/matches with a target of points)"
                )));
            }
            if !(1..=MAX_PLAY_TO).contains(&target) {
                return Err(SetupError::Options(format!(
                    "play_to must be from 1 to {MAX_PLAY_TO} (or null for a single game)"
                )));
            }
        }
        Ok(State {
            players: players as u8,
            rules,
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

    fn legal_actions(state: &State, seat: Seat) -> Vec<Action> {
        let mut actions = Vec::new();
        match state.phase {
            Phase::Turn { seat: player } if player == seat => {
                for card in state.row.iter().flatten() {
                    actions.push(Action::PickUp { card: *card });
                }
                let hand = state.hands[seat.index()];
                for set in BirdSet::all().filter(|s| hand.holds_any_of(*s)) {
                    for card in set.cards() {
                        if hand.holds(card)
                            || (state.row_holds(card) && !state.rules.may_ask_for_an_exposed_card)
                        {
                            continue;
                        }
                        for asked in Seat::all(state.seats()).filter(|s| *s != seat) {
                            actions.push(Action::Ask { seat: asked, card });
                        }
                    }
                }
            }
            Phase::Asked { asked, card, .. } if asked == seat => {
                for answer in truthful_answers(state, seat, card) {
                    actions.push(match answer {
                        Answer::HandedOver => Action::HandOver,
                        Answer::Owl => Action::PlayOwl,
                        Answer::NotHeld => Action::NotHeld,
                    });
                }
            }
            _ => return actions,
        }
        if !state.preference_changed {
            for preference in OwlPreference::ALL {
                if preference != state.preferences[seat.index()] {
                    actions.push(Action::SetOwlPreference { preference });
                }
            }
        }
        actions
    }

    fn view(state: &State, viewer: Viewer) -> ViewOf<Self> {
        let seats = Seat::all(state.seats())
            .map(|s| state.seat_view(s))
            .collect();
        let private = match viewer {
            Viewer::Seat(seat) if seat.index() < state.seats() => Some(PrivateView {
                hand: state.hands[seat.index()].cards().collect(),
            }),
            _ => None,
        };
        View {
            seats,
            public: state.public_view(),
            private,
        }
    }

    fn redact(event: &Event, viewer: Viewer) -> Value {
        let seen = match event {
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
                let hand = match viewer {
                    Viewer::Seat(seat) if seat.index() < players => Some(
                        order
                            .iter()
                            .take(dealt)
                            .enumerate()
                            .filter(|(k, _)| (first.index() + k) % players == seat.index())
                            .map(|(_, c)| *c)
                            .collect(),
                    ),
                    _ => None,
                };
                SeenEvent::Deal {
                    first: *first,
                    players,
                    hand_sizes: vec![HAND; players],
                    row: order.iter().skip(dealt).take(ROW).copied().collect(),
                    pack_size: order.len().saturating_sub(dealt + ROW),
                    hand,
                }
            }
            other => return serde_json::to_value(other).unwrap_or(Value::Null),
        };
        serde_json::to_value(seen).unwrap_or(Value::Null)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        let Phase::Over { ending } = state.phase else {
            return None;
        };
        let totals = state.totals();
        let best = totals.iter().copied().max().unwrap_or(0);
        let winners: Vec<Seat> = Seat::all(state.seats())
            .filter(|s| totals[s.index()] == best)
            .collect();
        let sets = Seat::all(state.seats())
            .map(|s| state.sets_of(s).collect())
            .collect();
        Some(Outcome {
            ending,
            points: state.game_points()[..state.seats()].to_vec(),
            sets,
            totals: totals[..state.seats()].to_vec(),
            games: state.game,
            winners,
        })
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

    fn default_action(state: &State, seat: Seat) -> Option<Action> {
        match state.phase {
            Phase::Turn { .. } => match best_pick_up(state, seat) {
                Some(card) => Some(Action::PickUp { card }),
                None => {
                    best_ask(state, seat).map(|(asked, card)| Action::Ask { seat: asked, card })
                }
            },
            // Rule 7: an Owl has no use but this one, so a player who is away keeps the card.
            Phase::Asked { card, .. } => {
                let hand = state.hands[seat.index()];
                Some(match (hand.holds(card), hand.first_owl()) {
                    (true, Some(_)) => Action::PlayOwl,
                    (true, None) => Action::HandOver,
                    (false, _) => Action::NotHeld,
                })
            }
            Phase::Dealing | Phase::Over { .. } => None,
        }
    }

    /// Rule 10: five points for each set laid in the game.
    fn match_points(state: &State) -> Option<Vec<i64>> {
        Self::outcome(state).map(|o| o.points.into_iter().map(i64::from).collect())
    }

    fn concede(state: &State, seat: Seat) -> Concession {
        let players = state.seats();
        let game: Vec<i64> = state.game_points()[..players]
            .iter()
            .map(|p| i64::from(*p))
            .collect();
        // Once over, the last game is among the finished ones already (as on the score-sheet).
        let in_progress = !matches!(state.phase, Phase::Over { .. } | Phase::Dealing);
        let concession = match state.play_to {
            None => Concession::by_points(seat, game.clone(), "points for sets laid (5 a set)"),
            Some(_) => {
                let totals: Vec<i64> = state.totals()[..players]
                    .iter()
                    .zip(&game)
                    .map(|(total, now)| i64::from(*total) + if in_progress { *now } else { 0 })
                    .collect();
                Concession::by_points(
                    seat,
                    totals,
                    "the series' points so far, the game in progress included (5 a set)",
                )
            }
        };
        concession.with_figure("game", game).with_figure(
            "sets",
            Seat::all(players)
                .map(|s| i64::try_from(state.sets_of(s).count()).unwrap_or(0))
                .collect(),
        )
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
        for (i, owl) in (0..=u8::MAX).zip(state.owls.iter()) {
            if owl.is_some() {
                place(Card(BIRD_CARDS + i).bit(), "the played Owls")?;
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

//! The "History of England" Card Game (No. 2), H. P. Gibson & Sons: 3 to 8 players ask one
//! another for the cards of the reigns until the pool runs dry, then play a few rounds with
//! every hand face up. Whoever holds completed sets with the most cards wins.
//!
//! Every rule decision is written up, with the clause it settles, in
//! `docs/rules/history-of-england.md`.

pub(crate) mod bot;
pub mod deck;

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

use crate::chance::{Chance, Shuffled};
use crate::game::{
    Choose, Concession, Description, Game, Refusal, RefusalKind, Seat, Setup, SetupError, View,
    ViewOf, Viewer,
};
use deck::{Reign, CARDS, PACK_SIZE, REIGNS};

/// Cards dealt to each player.
pub const HAND_SIZE: usize = 7;
/// Fewest players.
pub const MIN_PLAYERS: usize = 3;
/// Most players.
pub const MAX_PLAYERS: usize = 8;

/// The game, for the [`Game`] trait.
#[derive(Debug, Clone, Copy, Default)]
pub struct HistoryOfEngland;

/// Options chosen when the game is created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Which of the three series (each a complete 66-card game) is played: 1, 2 or 3.
    pub series: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options { series: 1 }
    }
}

/// A card of any series, written in JSON as its stable id (e.g. `s1-magna-carta`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// The card with this id, if any series has it.
    pub fn from_id(id: &str) -> Option<Card> {
        CARDS
            .iter()
            .position(|face| face.id == id)
            .and_then(|i| u8::try_from(i).ok())
            .map(Card)
    }

    /// The card's stable id.
    pub fn id(self) -> &'static str {
        CARDS.get(usize::from(self.0)).map_or("", |face| face.id)
    }

    fn is_crown(self) -> bool {
        CARDS
            .get(usize::from(self.0))
            .is_some_and(|face| face.crown)
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

/// A card is written as its id: the schema lists every series' ids.
impl JsonSchema for Card {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("HistoryOfEnglandCard")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<&str> = CARDS.iter().map(|face| face.id).collect();
        json_schema!({
            "type": "string",
            "description": "The id of a card of any series, e.g. `s1-magna-carta`",
            "enum": ids,
        })
    }
}

/// What a player may do on their turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Ask the player in `seat` for `card`; asking for a Crown, name the two cards to `show`.
    Ask {
        /// The player asked.
        seat: Seat,
        /// The card asked for.
        card: Card,
        /// For a Crown: the two cards of your hand you will show if the asked player has it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        show: Option<Vec<Card>>,
    },
    /// Take the top card of the pool and end the turn: only when nobody may be asked or
    /// there is nothing you may ask for.
    Pass,
}

/// How an ask was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The asked player held the card and handed it over: the asker asks again.
    Given,
    /// The asked player does not hold the card: the asking ends.
    Refused,
    /// The asked player holds the Crown, and the two cards shown were not both of its set:
    /// the asker forfeits the shown card of the set, or both if neither belongs, and the
    /// asking ends.
    BluffCaught,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The pack, shuffled: dealt one card at a time from seat 0, seven each; the rest is
    /// the pool, top card first.
    Deal {
        /// Players at the table.
        players: u8,
        /// The whole pack in dealing order.
        shuffled: Shuffled<Card>,
    },
    /// One ask and its answer.
    Asked {
        /// Who asked.
        asker: Seat,
        /// Who was asked.
        seat: Seat,
        /// The card asked for.
        card: Card,
        /// For a Crown: the two cards named to be shown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        show: Option<[Card; 2]>,
        /// The answer.
        answer: Answer,
        /// The cards the asker forfeited to the asked player (a caught bluff).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        forfeit: Vec<Card>,
        /// Whether every hand was face up when the ask was made.
        #[serde(default)]
        open: bool,
    },
    /// The asker took the top card of the pool.
    Drew {
        /// Who drew.
        seat: Seat,
        /// The card, seen by the drawer alone.
        card: Card,
    },
    /// The asking ended and the turn passed to the left (or the game ended).
    TurnEnded {
        /// Whose turn ended.
        seat: Seat,
        /// Whose turn it is now. From rules version 2 absent when this turn ended the game
        /// (nobody plays next); under version 1 always given, the last one naming the seat
        /// on the left as before.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<Seat>,
    },
    /// The pool is empty and the round is complete: every hand is laid face up.
    HandsExposed {
        /// Every hand, in seat order.
        hands: Vec<Vec<Card>>,
    },
}

/// An event as a player or a spectator sees it while the game is in progress, where that
/// differs from the [`Event`] recorded: the order of the pack, the cards shown for a Crown
/// and forfeited, and the card drawn are seen only by those who saw them at the table. Every
/// other event is seen as it was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeenEvent {
    /// The pack, shuffled and dealt one card at a time from seat 0, seven each; the rest is the
    /// pool. The order stays secret: a player sees her own hand, and everyone the pool's size.
    Deal {
        /// Players at the table.
        players: usize,
        /// The viewer's own hand, in the order it was dealt: for a player only, not a
        /// spectator.
        #[serde(skip_serializing_if = "Option::is_none")]
        hand: Option<Vec<Card>>,
        /// Cards left face down in the pool.
        pool: usize,
    },
    /// One ask and its answer, heard by everyone; the cards shown for a Crown and the cards
    /// forfeited are seen only by the players they passed between, until the hands are face up.
    Asked {
        /// Who asked.
        asker: Seat,
        /// Who was asked.
        seat: Seat,
        /// The card asked for.
        card: Card,
        /// For a Crown: the two cards named to be shown. Seen by the asker, and by the asked
        /// player if they held the Crown (answer `given` or `bluff_caught`); by everyone once
        /// the hands are face up.
        #[serde(skip_serializing_if = "Option::is_none")]
        show: Option<[Card; 2]>,
        /// The answer.
        answer: Answer,
        /// The cards the asker forfeited to the asked player (a caught bluff), when there were
        /// any. Seen by the asker and the asked player; by everyone once the hands are face up.
        #[serde(skip_serializing_if = "Option::is_none")]
        forfeit: Option<Vec<Card>>,
        /// Whether every hand was face up when the ask was made.
        open: bool,
        /// How many cards the asker forfeited, seen by everyone.
        forfeited: usize,
    },
    /// The asker took the top card of the pool.
    Drew {
        /// Who drew.
        seat: Seat,
        /// The card: for the drawer alone.
        #[serde(skip_serializing_if = "Option::is_none")]
        card: Option<Card>,
    },
}

/// A move as `legal_actions` offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LegalAction {
    /// Ask the player in `seat` for `card`; for a Crown, choose two cards of the hand to show.
    Ask {
        /// The player to ask.
        seat: Seat,
        /// The card to ask for.
        card: Card,
        /// For a Crown: two cards to choose from the hand.
        #[serde(skip_serializing_if = "Option::is_none")]
        show: Option<Choose<Card>>,
    },
    /// Take the top card of the pool.
    Pass,
}

/// What everyone sees of one seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatView {
    /// Cards in the hand.
    pub cards: u32,
    /// Once the hands are face up: the hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<Card>>,
    /// Once the hands are face up: the Crowns of the sets the hand completes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_sets: Option<Vec<Card>>,
    /// Once the hands are face up: the points those sets score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
}

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StageName {
    /// Before the deal.
    Dealing,
    /// Asking, with the pool face down.
    Pool,
    /// The pool is empty: the round is finished.
    FinishingRound,
    /// Every hand is face up.
    OpenRounds,
    /// The game is over.
    Over,
}

/// The last ask and its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LastAskView {
    /// Who asked.
    pub asker: u8,
    /// Who was asked.
    pub seat: u8,
    /// The card asked for.
    pub card: Card,
    /// The answer.
    pub answer: Answer,
    /// How many cards the asker forfeited.
    pub forfeited: usize,
    /// Once the hands are face up: which.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<Vec<Card>>,
}

/// What lies face up for everyone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PublicView {
    /// The series played.
    pub series: u8,
    /// Where the game stands.
    pub stage: StageName,
    /// Whose turn it is, while the game is in play.
    pub turn: Option<u8>,
    /// Cards left in the pool.
    pub pool: usize,
    /// Once the pool is empty: turns still to be played.
    pub turns_left: Option<u16>,
    /// Whether the hands are face up.
    pub hands_exposed: bool,
    /// Crowns won by asking, never to be claimed again.
    pub protected_crowns: Vec<Card>,
    /// The last ask.
    pub last_ask: Option<LastAskView>,
    /// Who drew last.
    pub last_draw: Option<u8>,
}

/// Cards shown to this player for a Crown they were asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ShownView {
    /// Who showed them.
    pub by: u8,
    /// The Crown asked for.
    pub crown: Card,
    /// The two cards shown.
    pub cards: [Card; 2],
}

/// What only the player in a seat sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PrivateView {
    /// The hand.
    pub hand: Vec<Card>,
    /// The cards last shown to this player, if any.
    pub shown_to_you: Option<ShownView>,
}

/// The result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Outcome {
    /// Points per seat.
    pub points: Vec<u32>,
    /// The Crowns of the sets each seat completed.
    pub completed_sets: Vec<Vec<Card>>,
    /// The seats with the most points (none if nobody scored).
    pub winners: Vec<usize>,
}

/// Why a move was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The asked seat is not at the table.
    #[error("there is no player in seat {0}")]
    NoSuchPlayer(u8),
    /// One asks another player.
    #[error("you ask another player for a card, not yourself")]
    AskingYourself,
    /// A player with no cards cannot be asked.
    #[error("seat {0} holds no cards, so there is nothing to ask them for")]
    EmptyHanded(u8),
    /// The card belongs to another series.
    #[error("{0} is not a card of the series being played")]
    NotInSeries(&'static str),
    /// One asks only for a card one does not hold.
    #[error("you already hold {0}; ask for a card you do not have")]
    AlreadyHeld(&'static str),
    /// "A Crown Card that has been successfully won cannot be re-claimed."
    #[error("the Crown {0} has been won by asking and cannot be claimed again")]
    CrownProtected(&'static str),
    /// Asking for a Crown, the asker names two cards to show.
    #[error("asking for a Crown, you must name two different cards of your hand to show")]
    ShowTwoCards,
    /// Only cards in one's hand can be shown.
    #[error("you can only show cards you hold")]
    ShowNotHeld,
    /// A player holding two cards of the set shows two of them (from rules version 2).
    #[error(
        "you hold two cards of the set of {0}: show two of them, and the Crown is yours if \
         the player you ask has it"
    )]
    ShowTheSet(&'static str),
    /// Cards are shown only for a Crown.
    #[error("cards are shown only when asking for a Crown")]
    ShowOnlyForCrown,
    /// "If they have neither they may ask for any card they like": only if they have neither.
    #[error(
        "you hold a Crown with cards of its set still out, or two cards of a set whose Crown \
         may be claimed, so you may ask only for a card of a set whose Crown you hold, or for \
         a Crown"
    )]
    NotYourSet,
    /// Passing is only for a player who can ask nothing of anyone.
    #[error("you may pass only when nobody holds a card you may ask for")]
    CannotPass,
}

impl Refusal for RuleError {
    fn kind(&self) -> RefusalKind {
        // Out of turn, before the deal and after the end are refused by the framework.
        RefusalKind::Forbidden
    }

    fn rule(&self) -> &'static str {
        match self {
            RuleError::NoSuchPlayer(_) => "no-such-player",
            RuleError::AskingYourself => "ask-another-player",
            RuleError::EmptyHanded(_) => "ask-a-player-with-cards",
            RuleError::NotInSeries(_) => "card-of-this-series",
            RuleError::AlreadyHeld(_) => "ask-for-a-card-you-lack",
            RuleError::CrownProtected(_) => "won-crown-cannot-be-reclaimed",
            RuleError::ShowTwoCards => "show-two-cards-for-a-crown",
            RuleError::ShowNotHeld => "show-cards-you-hold",
            RuleError::ShowTheSet(_) => "show-two-cards-of-the-set",
            RuleError::ShowOnlyForCrown => "show-only-for-a-crown",
            RuleError::NotYourSet => "ask-within-your-sets",
            RuleError::CannotPass => "pass-only-with-nothing-to-ask",
        }
    }
}

/// Cards shown to a player for a Crown they held: what they saw, kept in their private view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shown {
    by: u8,
    crown: Card,
    cards: [Card; 2],
}

/// The last ask, as the table remembers it for the public view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LastAsk {
    asker: u8,
    seat: u8,
    card: Card,
    answer: Answer,
    forfeit: [Option<Card>; 2],
    open: bool,
}

/// The rule points that changed between rules versions, read once from the version the game
/// was created under ([`Setup::rules_version`]); `docs/rules/history-of-england.md` gives the
/// reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rules {
    /// From version 2, a player who holds two cards of a set and asks for its Crown must show
    /// two of them, so her claim cannot fail by the cards she names: "If they cannot produce
    /// these two cards" is then never true of her. A bluff is left to a player who holds fewer
    /// than two. Version 1 judges whatever two cards are named.
    holder_of_two_shows_two_of_the_set: bool,
    /// From version 2, the `turn_ended` that ends the game names no next seat.
    last_turn_names_no_next_seat: bool,
}

impl Rules {
    fn of(version: u32) -> Rules {
        Rules {
            holder_of_two_shows_two_of_the_set: version >= 2,
            last_turn_names_no_next_seat: version >= 2,
        }
    }
}

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Before the deal.
    Dealing,
    /// Asking, and drawing from the pool after each refusal.
    Pool,
    /// The pool is empty; the players still to ask in the round in progress do so.
    FinishingRound,
    /// Every hand face up: the complete rounds without the pool.
    OpenRounds,
    /// The last round has been played.
    Over,
}

/// A table of History of England at one moment, hidden cards included. Hands are bit sets
/// over the 66 cards of the series (bit i = the series' i-th card), so a state is plain data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    players: u8,
    rules: Rules,
    series: u8,
    stage: Stage,
    hands: [u128; MAX_PLAYERS],
    /// The pool in drawing order: `pool[pool_top..pool_end]` is still face down.
    pool: [u8; PACK_SIZE],
    pool_top: u8,
    pool_end: u8,
    /// Crowns won by asking: never to be claimed again.
    protected: u128,
    turn: u8,
    /// Once the pool is empty: turns still to be played, the finishing of the round included.
    turns_left: u16,
    shown: [Option<Shown>; MAX_PLAYERS],
    last: Option<LastAsk>,
    last_draw: Option<u8>,
}

/// The cards of one series: which bits are which sets.
#[derive(Debug, Clone, Copy)]
struct Pack {
    /// Index in [`CARDS`] of the series' first card.
    base: u8,
    reigns: &'static [Reign],
}

const ALL_CARDS: u128 = (1u128 << PACK_SIZE) - 1;

fn bit(local: u8) -> u128 {
    1u128.checked_shl(u32::from(local)).unwrap_or(0)
}

/// The set bits of `mask`, lowest first.
fn bits(mut mask: u128) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        let low = mask.trailing_zeros();
        mask &= mask.wrapping_sub(1);
        u8::try_from(low).ok().filter(|low| *low < 128)
    })
}

/// Each series' reigns: the index in [`REIGNS`] of its first reign, and how many it has.
const SERIES_REIGNS: [(usize, usize); 3] = series_reigns();

const fn series_reigns() -> [(usize, usize); 3] {
    let mut table = [(0, 0); 3];
    let mut i = 0;
    while i < REIGNS.len() {
        let s = REIGNS[i].series as usize - 1;
        if table[s].1 == 0 {
            table[s].0 = i;
        }
        table[s].1 += 1;
        i += 1;
    }
    table
}

impl Pack {
    fn of(series: u8) -> Pack {
        let (first, count) = SERIES_REIGNS[usize::from(series.clamp(1, 3)) - 1];
        Pack {
            base: REIGNS[first].first,
            reigns: &REIGNS[first..first + count],
        }
    }

    fn local(self, card: Card) -> Option<u8> {
        card.0
            .checked_sub(self.base)
            .filter(|i| usize::from(*i) < PACK_SIZE)
    }

    fn card(self, local: u8) -> Card {
        Card(self.base + local)
    }

    fn cards(self, mask: u128) -> Vec<Card> {
        bits(mask).map(|i| self.card(i)).collect()
    }

    /// The cards' ids, for tests that compare them with ids written out.
    #[cfg(test)]
    fn ids(self, mask: u128) -> Vec<&'static str> {
        bits(mask).map(|i| self.card(i).id()).collect()
    }

    /// The bit set of one reign's cards.
    fn set(self, reign: &Reign) -> u128 {
        let start = reign.first - self.base;
        ((1u128 << reign.len) - 1) << start
    }

    /// The bit of one reign's Crown.
    fn crown(self, reign: &Reign) -> u128 {
        bit(reign.first - self.base)
    }

    fn crowns(self) -> u128 {
        self.reigns.iter().fold(0, |m, r| m | self.crown(r))
    }

    /// The reign whose set holds this card.
    fn reign_of(self, local: u8) -> Option<&'static Reign> {
        CARDS
            .get(usize::from(self.base + local))
            .and_then(|face| REIGNS.get(usize::from(face.reign)))
    }
}

/// What a player may ask for now, from their own hand and the public table alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Askable {
    /// Cards that are not Crowns.
    cards: u128,
    /// Crowns (each with two cards to show: honestly or as a bluff).
    crowns: u128,
    /// Whether the player has neither a Crown to ask under nor a claimable pair.
    neither: bool,
}

impl Askable {
    /// What a player holding `own` may ask for from `pack` while the Crowns `protected` are
    /// protected (see [`State::askable`]).
    fn of(pack: Pack, own: u128, protected: u128) -> Askable {
        let crowns = pack.crowns();
        let mut under_crowns = 0;
        let mut claimable_pair = false;
        for reign in pack.reigns {
            let set = pack.set(reign);
            let crown = pack.crown(reign);
            if own & crown != 0 {
                under_crowns |= set & !crown & !own;
            } else if (own & set).count_ones() >= 2 && protected & crown == 0 {
                claimable_pair = true;
            }
        }
        let neither = under_crowns == 0 && !claimable_pair;
        Askable {
            cards: if neither {
                ALL_CARDS & !crowns & !own
            } else {
                under_crowns
            },
            crowns: if own.count_ones() >= 2 {
                crowns & !own & !protected
            } else {
                0
            },
            neither,
        }
    }
}

impl State {
    fn pack(&self) -> Pack {
        Pack::of(self.series)
    }

    fn n(&self) -> usize {
        usize::from(self.players)
    }

    fn hand(&self, seat: u8) -> u128 {
        self.hands.get(usize::from(seat)).copied().unwrap_or(0)
    }

    fn pool_left(&self) -> usize {
        usize::from(self.pool_end.saturating_sub(self.pool_top))
    }

    fn pool_mask(&self) -> u128 {
        self.pool[usize::from(self.pool_top)..usize::from(self.pool_end)]
            .iter()
            .fold(0, |m, c| m | bit(*c))
    }

    fn exposed(&self) -> bool {
        matches!(self.stage, Stage::OpenRounds | Stage::Over)
    }

    /// The sheet's three kinds of ask: "a card of any set of which they hold the crown card";
    /// "the crown card of any set of which they hold at least two cards"; and "if they have
    /// neither ... any card they like, excepting a Crown Card". A Crown ask is always a claim
    /// to hold two of its set, tested only by the forfeit, so any claimable Crown may be named
    /// by a player with two cards to show (a bluff when they are not of its set).
    fn askable(&self, seat: u8) -> Askable {
        Askable::of(self.pack(), self.hand(seat), self.protected)
    }

    /// The bit set of the set that holds the card `local`.
    fn set_of(&self, local: u8) -> u128 {
        let pack = self.pack();
        pack.reign_of(local).map_or(0, |reign| pack.set(reign))
    }

    /// Whether `asker`, asking for the Crown `crown`, must show two cards of its set: from
    /// rules version 2, whenever she holds two of them (her claim is then honest, and only a
    /// player who cannot produce them can bluff).
    fn must_show_the_set(&self, asker: u8, crown: u8) -> bool {
        self.rules.holder_of_two_shows_two_of_the_set
            && (self.hand(asker) & self.set_of(crown)).count_ones() >= 2
    }

    /// The other players who hold at least one card.
    fn askable_seats(&self, seat: u8) -> impl Iterator<Item = u8> + '_ {
        (0..self.players).filter(move |s| *s != seat && self.hand(*s) != 0)
    }

    fn can_ask(&self, seat: u8) -> bool {
        let askable = self.askable(seat);
        self.askable_seats(seat).next().is_some() && (askable.cards | askable.crowns) != 0
    }

    /// The turns still to play once the turn of `seat` ends with `pool_left` cards in the
    /// pool: "the remaining players ask in turn until the round is completed. Complete rounds
    /// are then played to coincide with the number playing". `None` while the pool lasts.
    fn turns_left_after(&self, seat: u8, pool_left: usize) -> Option<u16> {
        let n = self.players as u16;
        match self.stage {
            Stage::FinishingRound | Stage::OpenRounds | Stage::Over => {
                Some(self.turns_left.saturating_sub(1))
            }
            _ if pool_left == 0 => Some(n - 1 - seat as u16 + n * n),
            _ => None,
        }
    }

    /// Completed sets held by `seat`, and the cards in them (the points).
    fn completed(&self, seat: u8) -> (Vec<Card>, u32) {
        let pack = self.pack();
        let own = self.hand(seat);
        let mut crowns = Vec::new();
        let mut points = 0;
        for reign in pack.reigns {
            let set = pack.set(reign);
            if own & set == set {
                crowns.push(pack.card(reign.first - pack.base));
                points += u32::from(reign.len);
            }
        }
        (crowns, points)
    }
}

impl State {
    /// The other player with cards whom a player whose time runs out asks for `local`: while
    /// the hands are hidden, the one holding the most cards (likeliest to hold it), the nearest
    /// on the asker's left among equals; once they are face up, the one who holds it, if any.
    fn default_target(&self, asker: u8, local: u8) -> Option<u8> {
        let n = self.players;
        let others = (1..n)
            .map(|k| (asker + k) % n)
            .filter(|s| self.hand(*s) != 0);
        if self.exposed() {
            if let Some(holder) = others.clone().find(|s| self.hand(*s) & bit(local) != 0) {
                return Some(holder);
            }
        }
        others.fold(None, |best: Option<u8>, s| match best {
            Some(b) if self.hand(b).count_ones() >= self.hand(s).count_ones() => Some(b),
            _ => Some(s),
        })
    }

    /// The move of a player whose time runs out: an ask that cannot cost her a card. She claims
    /// a Crown only honestly (showing two cards of its set, so the worst answer is a refusal),
    /// else asks for a card she may ask for; either way for the set nearest completion in her
    /// hand (fewest of its cards missing; a Crown claim before a card, then pack order). A
    /// refusal ends her turn with the draw from the pool, as every refusal does. She passes
    /// only when she may ask nothing of anyone. Only her own hand and what the table sees go
    /// into it (every hand, once they are face up).
    fn default_move(&self, asker: u8) -> Action {
        let pack = self.pack();
        let own = self.hand(asker);
        let askable = self.askable(asker);
        if !self.can_ask(asker) {
            return Action::Pass;
        }
        // (cards of the set missing from her hand, a card rather than a Crown, the card)
        let mut best: Option<((u32, bool, u8), Action)> = None;
        let mut consider = |key: (u32, bool, u8), action: Action| {
            let better = match &best {
                Some((k, _)) => key < *k,
                None => true,
            };
            if better {
                best = Some((key, action));
            }
        };
        for reign in pack.reigns {
            let set = pack.set(reign);
            let missing = u32::from(reign.len) - (own & set).count_ones();
            let crown = pack.crown(reign);
            let shown: Vec<u8> = bits(own & set).take(2).collect();
            if askable.crowns & crown != 0 && shown.len() == 2 {
                let local = reign.first - pack.base;
                if let Some(target) = self.default_target(asker, local) {
                    consider(
                        (missing, false, local),
                        Action::Ask {
                            seat: Seat(target),
                            card: pack.card(local),
                            show: Some(shown.iter().map(|l| pack.card(*l)).collect()),
                        },
                    );
                }
            }
            for local in bits(askable.cards & set) {
                if let Some(target) = self.default_target(asker, local) {
                    consider(
                        (missing, true, local),
                        Action::Ask {
                            seat: Seat(target),
                            card: pack.card(local),
                            show: None,
                        },
                    );
                }
            }
        }
        match best {
            Some((_, action)) => action,
            // Every table with an ask open has an honest one (see the rules document); should
            // one ever have only a bluff, the first Crown with the first two cards of the hand.
            None => {
                let crown = bits(askable.crowns).next().unwrap_or(0);
                Action::Ask {
                    seat: Seat(self.default_target(asker, crown).unwrap_or(asker)),
                    card: pack.card(crown),
                    show: Some(pack.cards(own).into_iter().take(2).collect()),
                }
            }
        }
    }
}

impl HistoryOfEngland {
    fn check_ask(
        state: &State,
        asker: u8,
        seat: Seat,
        card: Card,
        show: Option<&[Card]>,
    ) -> Result<Option<[u8; 2]>, RuleError> {
        let pack = state.pack();
        let local = pack.local(card).ok_or(RuleError::NotInSeries(card.id()))?;
        if seat.index() >= state.n() {
            return Err(RuleError::NoSuchPlayer(seat.0));
        }
        if seat.0 == asker {
            return Err(RuleError::AskingYourself);
        }
        if state.hand(seat.0) == 0 {
            return Err(RuleError::EmptyHanded(seat.0));
        }
        let own = state.hand(asker);
        if own & bit(local) != 0 {
            return Err(RuleError::AlreadyHeld(card.id()));
        }
        let askable = state.askable(asker);
        if card.is_crown() {
            if state.protected & bit(local) != 0 {
                return Err(RuleError::CrownProtected(card.id()));
            }
            let shown = match show {
                Some([a, b]) if a != b => [a, b],
                _ => return Err(RuleError::ShowTwoCards),
            };
            let mut locals = [0u8; 2];
            for (slot, shown) in locals.iter_mut().zip(shown) {
                *slot = pack
                    .local(*shown)
                    .filter(|l| own & bit(*l) != 0)
                    .ok_or(RuleError::ShowNotHeld)?;
            }
            let set = state.set_of(local);
            let of_the_set = locals.iter().filter(|l| set & bit(**l) != 0).count();
            if of_the_set < 2 && state.must_show_the_set(asker, local) {
                return Err(RuleError::ShowTheSet(card.id()));
            }
            Ok(Some(locals))
        } else {
            if show.is_some() {
                return Err(RuleError::ShowOnlyForCrown);
            }
            if askable.cards & bit(local) == 0 {
                return Err(RuleError::NotYourSet);
            }
            Ok(None)
        }
    }

    /// Ends the turn after a refusal (or a pass): the top card of the pool, the turn to the
    /// left, and the hands laid open when the finishing round is done.
    fn end_turn(state: &State, seat: u8, events: &mut Vec<Event>) {
        if state.pool_left() > 0 {
            events.push(Event::Drew {
                seat: Seat(seat),
                card: state.pack().card(state.pool[usize::from(state.pool_top)]),
            });
        }
        let mut ended = Event::TurnEnded {
            seat: Seat(seat),
            next: Some(Seat(seat).left(state.n())),
        };
        let before = events.iter().fold(state.clone(), Self::evolve);
        let after = Self::evolve(before, &ended);
        if after.stage == Stage::Over && state.rules.last_turn_names_no_next_seat {
            ended = Event::TurnEnded {
                seat: Seat(seat),
                next: None,
            };
        }
        events.push(ended);
        // The hands go face up once the pool is empty and the round in progress is complete,
        // as they stand after this turn (a forfeit or a draw included).
        let n = state.players as u16;
        if after.stage == Stage::FinishingRound && after.turns_left == n * n {
            let hands = (0..state.players)
                .map(|s| after.pack().cards(after.hand(s)))
                .collect();
            events.push(Event::HandsExposed { hands });
        }
    }
}

impl Game for HistoryOfEngland {
    type Options = Options;
    type State = State;
    type Action = Action;
    type LegalAction = LegalAction;
    type Event = Event;
    type SeenEvent = SeenEvent;
    type SeatView = SeatView;
    type PublicView = PublicView;
    type PrivateView = PrivateView;
    type Outcome = Outcome;
    type Error = RuleError;

    fn describe() -> Description {
        Description {
            id: "history-of-england",
            name: "\"History of England\" Card Game (No. 2)",
            min_players: MIN_PLAYERS,
            max_players: MAX_PLAYERS,
            summary: "Collect the reigns of England: ask other players for the cards of sets \
                      whose Crown you hold, claim a Crown by showing two cards of its set (or \
                      bluff and risk a forfeit), and draw from the pool when refused. When the \
                      pool is empty the hands go face up for a few last rounds; the most cards \
                      in completed sets wins.",
            options: json!({
                "series": {
                    "description": "Which series is played: 1 (William I to Edward IV), \
                                    2 (Edward V to James II) or 3 (William III to George V); \
                                    each is a complete 66-card game.",
                    "type": "integer",
                    "enum": [1, 2, 3],
                    "default": 1
                }
            }),
            rules: "docs/rules/history-of-england.md",
        }
    }

    fn cards() -> Value {
        Value::Array(
            CARDS
                .iter()
                .map(|face| {
                    let reign = &REIGNS[usize::from(face.reign)];
                    json!({
                        "id": face.id,
                        "name": face.name,
                        "series": reign.series,
                        "reign": reign.name,
                        "crown": face.crown,
                        "set": CARDS[usize::from(reign.first)].id,
                        "set_size": reign.len,
                        "year": face.year,
                        "from": reign.from,
                        "to": reign.to,
                    })
                })
                .collect(),
        )
    }

    // The player count is checked against MAX_PLAYERS first, so it fits a u8.
    #[allow(clippy::cast_possible_truncation)]
    fn new(setup: &Setup<Options>) -> Result<State, SetupError> {
        let players = setup.players.len();
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
            return Err(SetupError::PlayerCount {
                game: "History of England",
                min: MIN_PLAYERS,
                max: MAX_PLAYERS,
                got: players,
            });
        }
        if !(1..=3).contains(&setup.options.series) {
            return Err(SetupError::Options(format!(
                "series is 1, 2 or 3, not {}",
                setup.options.series
            )));
        }
        Ok(State {
            players: players as u8,
            rules: Rules::of(setup.rules_version),
            series: setup.options.series,
            stage: Stage::Dealing,
            hands: [0; MAX_PLAYERS],
            pool: [0; PACK_SIZE],
            pool_top: 0,
            pool_end: 0,
            protected: 0,
            turn: 0,
            turns_left: 0,
            shown: [None; MAX_PLAYERS],
            last: None,
            last_draw: None,
        })
    }

    fn start(state: &State, chance: &mut Chance) -> Vec<Event> {
        let pack = state.pack();
        vec![Event::Deal {
            players: state.players,
            shuffled: chance.shuffle(&pack.cards(ALL_CARDS)),
        }]
    }

    fn decide(
        state: &State,
        seat: Seat,
        action: &Action,
        _chance: &mut Chance,
    ) -> Result<Vec<Event>, RuleError> {
        // The framework only asks for the seat whose turn it is, so the asker is `seat`.
        let asker = seat.0;
        let mut events = Vec::with_capacity(4);
        match action {
            Action::Pass => {
                if state.can_ask(asker) {
                    return Err(RuleError::CannotPass);
                }
                Self::end_turn(state, asker, &mut events);
            }
            Action::Ask {
                seat: asked,
                card,
                show,
            } => {
                let shown = Self::check_ask(state, asker, *asked, *card, show.as_deref())?;
                let pack = state.pack();
                let holds = pack
                    .local(*card)
                    .is_some_and(|l| state.hand(asked.0) & bit(l) != 0);
                let mut forfeit = Vec::new();
                let answer = match (holds, shown) {
                    (false, _) => Answer::Refused,
                    (true, None) => Answer::Given,
                    (true, Some(shown)) => {
                        let set = pack
                            .local(*card)
                            .and_then(|l| pack.reign_of(l))
                            .map_or(0, |r| pack.set(r));
                        let belonging: Vec<u8> =
                            shown.into_iter().filter(|l| set & bit(*l) != 0).collect();
                        match belonging.len() {
                            2 => Answer::Given,
                            1 => {
                                forfeit = belonging.iter().map(|l| pack.card(*l)).collect();
                                Answer::BluffCaught
                            }
                            _ => {
                                forfeit = shown.iter().map(|l| pack.card(*l)).collect();
                                Answer::BluffCaught
                            }
                        }
                    }
                };
                events.push(Event::Asked {
                    asker: Seat(asker),
                    seat: *asked,
                    card: *card,
                    show: shown.map(|[a, b]| [pack.card(a), pack.card(b)]),
                    answer,
                    forfeit,
                    open: state.exposed(),
                });
                if answer != Answer::Given {
                    Self::end_turn(state, asker, &mut events);
                }
            }
        }
        Ok(events)
    }

    fn evolve(mut state: State, event: &Event) -> State {
        let pack = state.pack();
        match event {
            Event::Deal { shuffled, .. } => {
                let n = state.n();
                let locals = shuffled.order.iter().filter_map(|c| pack.local(*c));
                let mut pool_end = 0;
                for (i, local) in locals.enumerate().take(PACK_SIZE) {
                    if i < HAND_SIZE * n {
                        state.hands[i % n] |= bit(local);
                    } else {
                        state.pool[pool_end] = local;
                        pool_end += 1;
                    }
                }
                state.pool_top = 0;
                // At most PACK_SIZE cards go to the pool.
                #[allow(clippy::cast_possible_truncation)]
                let end = pool_end as u8;
                state.pool_end = end;
                state.stage = Stage::Pool;
                state.turn = 0;
            }
            Event::Asked {
                asker,
                seat,
                card,
                show,
                answer,
                forfeit,
                open,
            } => {
                let (from, to) = (asker.index() % MAX_PLAYERS, seat.index() % MAX_PLAYERS);
                let asked = pack.local(*card).map_or(0, bit);
                if let (Some(cards), Answer::Given | Answer::BluffCaught) = (show, answer) {
                    state.shown[to] = Some(Shown {
                        by: asker.0,
                        crown: *card,
                        cards: *cards,
                    });
                }
                let mut lost = [None; 2];
                match answer {
                    Answer::Given => {
                        state.hands[to] &= !asked;
                        state.hands[from] |= asked;
                        if card.is_crown() {
                            state.protected |= asked;
                        }
                    }
                    Answer::BluffCaught => {
                        for (slot, c) in lost.iter_mut().zip(forfeit) {
                            let b = pack.local(*c).map_or(0, bit);
                            state.hands[from] &= !b;
                            state.hands[to] |= b;
                            *slot = Some(*c);
                        }
                    }
                    Answer::Refused => {}
                }
                state.last = Some(LastAsk {
                    asker: asker.0,
                    seat: seat.0,
                    card: *card,
                    answer: *answer,
                    forfeit: lost,
                    open: *open,
                });
                state.last_draw = None;
            }
            Event::Drew { seat, card } => {
                state.hands[seat.index() % MAX_PLAYERS] |= pack.local(*card).map_or(0, bit);
                state.pool_top = state.pool_top.saturating_add(1).min(state.pool_end);
                state.last_draw = Some(seat.0);
            }
            Event::TurnEnded { seat, next } => {
                if let Some(left) = state.turns_left_after(seat.0, state.pool_left()) {
                    state.turns_left = left;
                    // The hands go face up with the HandsExposed event that follows.
                    state.stage = match state.stage {
                        _ if left == 0 => Stage::Over,
                        Stage::Pool => Stage::FinishingRound,
                        stage => stage,
                    };
                }
                // Without a next seat (the game is over) the turn stays where it ended.
                if let Some(next) = next {
                    state.turn = next.0;
                }
            }
            Event::HandsExposed { .. } => {
                state.stage = Stage::OpenRounds;
            }
        }
        state
    }

    fn to_act(state: &State) -> Vec<Seat> {
        match state.stage {
            Stage::Dealing | Stage::Over => Vec::new(),
            _ => vec![Seat(state.turn)],
        }
    }

    fn legal_actions(state: &State, seat: Seat) -> Vec<LegalAction> {
        if !Self::to_act(state).contains(&seat) {
            return Vec::new();
        }
        let pack = state.pack();
        let asker = seat.0;
        let askable = state.askable(asker);
        let hand = pack.cards(state.hand(asker));
        let mut actions = Vec::new();
        for target in state.askable_seats(asker) {
            for local in bits(askable.cards) {
                actions.push(LegalAction::Ask {
                    seat: Seat(target),
                    card: pack.card(local),
                    show: None,
                });
            }
            for local in bits(askable.crowns) {
                // A player who holds two of the set shows two of them (from rules version 2);
                // anyone else may show any two cards of her hand, a bluff.
                let from = if state.must_show_the_set(asker, local) {
                    pack.cards(state.hand(asker) & state.set_of(local))
                } else {
                    hand.clone()
                };
                actions.push(LegalAction::Ask {
                    seat: Seat(target),
                    card: pack.card(local),
                    show: Some(Choose { choose: 2, from }),
                });
            }
        }
        if actions.is_empty() {
            actions.push(LegalAction::Pass);
        }
        actions
    }

    fn view(state: &State, viewer: Viewer) -> ViewOf<Self> {
        let pack = state.pack();
        let open = state.exposed();
        let seats = (0..state.players)
            .map(|s| {
                let hand = state.hand(s);
                let mut seat = SeatView {
                    cards: hand.count_ones(),
                    hand: None,
                    completed_sets: None,
                    points: None,
                };
                if open {
                    let (sets, points) = state.completed(s);
                    seat.hand = Some(pack.cards(hand));
                    seat.completed_sets = Some(sets);
                    seat.points = Some(points);
                }
                seat
            })
            .collect();
        let last_ask = state.last.map(|last| {
            let forfeit: Vec<Card> = last.forfeit.iter().flatten().copied().collect();
            LastAskView {
                asker: last.asker,
                seat: last.seat,
                card: last.card,
                answer: last.answer,
                forfeited: forfeit.len(),
                forfeit: last.open.then_some(forfeit),
            }
        });
        let stage = match state.stage {
            Stage::Dealing => StageName::Dealing,
            Stage::Pool => StageName::Pool,
            Stage::FinishingRound => StageName::FinishingRound,
            Stage::OpenRounds => StageName::OpenRounds,
            Stage::Over => StageName::Over,
        };
        let public = PublicView {
            series: state.series,
            stage,
            turn: (!matches!(state.stage, Stage::Dealing | Stage::Over)).then_some(state.turn),
            pool: state.pool_left(),
            turns_left: (!matches!(state.stage, Stage::Dealing | Stage::Pool))
                .then_some(state.turns_left),
            hands_exposed: open,
            protected_crowns: pack.cards(state.protected),
            last_ask,
            last_draw: state.last_draw,
        };
        let private = match viewer {
            Viewer::Spectator => None,
            Viewer::Seat(seat) => {
                let shown = state
                    .shown
                    .get(seat.index())
                    .copied()
                    .flatten()
                    .map(|shown| ShownView {
                        by: shown.by,
                        crown: shown.crown,
                        cards: shown.cards,
                    });
                Some(PrivateView {
                    hand: pack.cards(state.hand(seat.0)),
                    shown_to_you: shown,
                })
            }
        };
        View {
            seats,
            public,
            private,
        }
    }

    fn redact(event: &Event, viewer: Viewer) -> Value {
        let seen = match event {
            Event::Deal { players, shuffled } => {
                let players = usize::from(*players).max(1);
                let dealt = (HAND_SIZE * players).min(shuffled.order.len());
                let hand = match viewer {
                    Viewer::Seat(seat) => Some(
                        shuffled.order[..dealt]
                            .iter()
                            .skip(seat.index())
                            .step_by(players)
                            .copied()
                            .collect(),
                    ),
                    Viewer::Spectator => None,
                };
                SeenEvent::Deal {
                    players,
                    hand,
                    pool: shuffled.order.len() - dealt,
                }
            }
            Event::Asked {
                asker,
                seat,
                card,
                show,
                answer,
                forfeit,
                open,
            } => {
                // Everything is seen by the asker, and by everyone once the hands are face up;
                // the asked player sees the cards shown if they held the Crown, and the forfeit.
                let sees_all = *open || viewer.is(*asker);
                let sees_show = sees_all || (viewer.is(*seat) && *answer != Answer::Refused);
                let sees_forfeit = sees_all || viewer.is(*seat);
                SeenEvent::Asked {
                    asker: *asker,
                    seat: *seat,
                    card: *card,
                    show: show.filter(|_| sees_show),
                    answer: *answer,
                    forfeit: (sees_forfeit && !forfeit.is_empty()).then(|| forfeit.clone()),
                    open: *open,
                    forfeited: forfeit.len(),
                }
            }
            Event::Drew { seat, card } => SeenEvent::Drew {
                seat: *seat,
                card: viewer.is(*seat).then_some(*card),
            },
            Event::TurnEnded { .. } | Event::HandsExposed { .. } => {
                return serde_json::to_value(event).unwrap_or(Value::Null)
            }
        };
        serde_json::to_value(seen).unwrap_or(Value::Null)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        if state.stage != Stage::Over {
            return None;
        }
        let (sets, points): (Vec<_>, Vec<_>) =
            (0..state.players).map(|s| state.completed(s)).unzip();
        let best = points.iter().copied().max().unwrap_or(0);
        let winners: Vec<usize> = if best == 0 {
            Vec::new()
        } else {
            (0..points.len()).filter(|s| points[*s] == best).collect()
        };
        Some(Outcome {
            points,
            completed_sets: sets,
            winners,
        })
    }

    fn default_action(state: &State, seat: Seat) -> Option<Action> {
        match state.stage {
            Stage::Dealing | Stage::Over => None,
            Stage::Pool | Stage::FinishingRound | Stage::OpenRounds => {
                Some(state.default_move(seat.0))
            }
        }
    }

    /// The "longer game": one point for each card in a completed set.
    fn match_points(state: &State) -> Option<Vec<i64>> {
        Self::outcome(state).map(|o| o.points.into_iter().map(i64::from).collect())
    }

    fn concede(state: &State, seat: Seat) -> Concession {
        let points = (0..state.players)
            .map(|s| i64::from(state.completed(s).1))
            .collect();
        let sets = (0..state.players)
            .map(|s| i64::try_from(state.completed(s).0.len()).unwrap_or(0))
            .collect();
        let cards = (0..state.players)
            .map(|s| i64::from(state.hand(s).count_ones()))
            .collect();
        Concession::by_points(
            seat,
            points,
            "cards in completed sets held (a point a card)",
        )
        .with_figure("completed_sets", sets)
        .with_figure("cards", cards)
    }

    fn check_invariants(state: &State) -> Result<(), String> {
        if state.stage == Stage::Dealing {
            return Ok(());
        }
        let mut seen = 0u128;
        let mut count = 0;
        for s in 0..MAX_PLAYERS {
            let hand = state.hands[s];
            if s >= state.n() && hand != 0 {
                return Err(format!("seat {s} is not at the table but holds cards"));
            }
            if seen & hand != 0 {
                return Err(format!("seat {s} holds a card someone else holds too"));
            }
            seen |= hand;
            count += hand.count_ones();
        }
        let pool = state.pool_mask();
        if seen & pool != 0 {
            return Err("a card is both in a hand and in the pool".into());
        }
        count += pool.count_ones();
        if count as usize != PACK_SIZE || (seen | pool) != ALL_CARDS {
            return Err(format!("{count} cards accounted for, not {PACK_SIZE}"));
        }
        if state.protected & !state.pack().crowns() != 0 {
            return Err("a protected card is not a Crown".into());
        }
        let n = state.players as u16;
        match state.stage {
            Stage::FinishingRound | Stage::OpenRounds | Stage::Over if state.pool_left() > 0 => {
                Err("the pool still has cards after it ran out".into())
            }
            Stage::FinishingRound if state.turns_left < n * n => {
                Err("the finishing round outlasted the round".into())
            }
            Stage::OpenRounds if state.turns_left > n * n || state.turns_left == 0 => {
                Err(format!("{} open turns left", state.turns_left))
            }
            _ if usize::from(state.turn) >= state.n() => Err("the turn is at an empty seat".into()),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;

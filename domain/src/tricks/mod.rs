//! GIRL and The CAR Game: one trick-taking engine over the shared 44-card TRIO pack, in two
//! themes ([`Girl`], [`Car`]).
//!
//! The game in the rules' own order: [`deal`](Event::Deal) 7 each; in turn a player turns up
//! the top card of the [centre pack](State::centre_pack) ([`draw`](Event::Draw)); a joker or
//! TRIO card goes to her hand, a HEROINE is exposed and a [`Trick`] is played for her: every
//! player with cards [lays](Event::Lay) 3 face down, all are [revealed](Event::Reveal) together
//! and the trick is [resolved](Event::Resolve). Once the centre pack is used up, each player
//! in turn must [expose](Event::Expose) a HEROINE from her hand or [pass](Event::Pass). The
//! game is [over](Event::GameOver) when the last HEROINE has been played for.
//!
//! Rule decisions where the printed sheets are unclear are in `docs/rules/trio.md`.

pub(crate) mod bot;
mod cards;
#[cfg(test)]
mod tests;

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use cards::{heroine_of, is_won_for, points, twin};
pub use cards::{Car, Card, CardSet, Girl, Kind, Theme, HEROINE_CARDS, PACK};

use crate::chance::{Chance, Shuffled};
use crate::game::{
    Choose, Concession, Description, Game, Refusal, RefusalKind, Seat, Setup, SetupError, View,
    ViewOf, Viewer,
};

/// Cards dealt to each player.
pub const HAND: usize = 7;
/// Cards each player lays for a trick while she holds that many.
pub const LAY: usize = 3;
/// Most players at a table.
pub const MAX_PLAYERS: usize = 5;
/// Fewest players at a table.
pub const MIN_PLAYERS: usize = 2;

/// The trick-taking engine over one theme's names.
pub struct Trio<T>(PhantomData<T>);

/// GIRL.
pub type GirlGame = Trio<Girl>;
/// The CAR Game.
pub type CarGame = Trio<Car>;

/// Options at creation: none yet (a match to an agreed total is played as several games).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TrioOptions {}

/// What a player may do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", bound = "T: Theme")]
pub enum Action<T: Theme> {
    /// Turn up the top card of the centre pack.
    TurnUp,
    /// Lay cards face down for the trick: 3, or all she holds if fewer.
    Lay {
        /// The cards laid.
        cards: Vec<Card<T>>,
    },
    /// Once the centre pack is used up: lay a HEROINE from the hand to be played for.
    Expose {
        /// The HEROINE card.
        card: Card<T>,
    },
    /// Once the centre pack is used up: pass, holding no HEROINE.
    Pass,
}

/// What happened. The log is a sequence of these.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", bound = "T: Theme")]
pub enum Event<T: Theme> {
    /// The dealer shuffled and dealt: the whole deck order, top first. Cards `k < 7n` go to
    /// seat `k mod n` (one at a time from the dealer's left); the rest is the centre pack.
    Deal {
        /// The dealer (the last seat: seat 0 is on her left).
        dealer: Seat,
        /// The shuffled pack.
        deck: Shuffled<Card<T>>,
    },
    /// A player turned up the top card of the centre pack (face up for all). A joker or TRIO
    /// card goes to her hand; a HEROINE is exposed and a trick begins.
    Draw {
        /// Who turned it up.
        seat: Seat,
        /// The card.
        card: Card<T>,
    },
    /// After the centre pack is used up, a player laid a HEROINE from her hand face up.
    Expose {
        /// Who laid it.
        seat: Seat,
        /// The HEROINE card.
        card: Card<T>,
    },
    /// After the centre pack is used up, a player with no HEROINE passed.
    Pass {
        /// Who passed.
        seat: Seat,
    },
    /// A player laid cards face down for the trick (others see only how many).
    Lay {
        /// Who laid.
        seat: Seat,
        /// The cards, face down.
        cards: Vec<Card<T>>,
    },
    /// Everyone has laid: all lays turned face up.
    Reveal {
        /// The HEROINE played for.
        heroine: Card<T>,
        /// Each seat's lay, in seat order (empty for a player who held no cards).
        lays: Vec<Vec<Card<T>>>,
    },
    /// The trick's result.
    Resolve {
        /// The HEROINE played for.
        heroine: Card<T>,
        /// Each seat's points for her.
        points: Vec<u8>,
        /// The player with the highest total, or `None` after a tie or an all-zero trick.
        winner: Option<Seat>,
        /// The jokers and TRIO cards showing her, taken by the winner from every lay.
        won: Vec<Card<T>>,
        /// The HEROINE cards put aside face down: the exposed one, and its twin if laid in a
        /// won trick.
        set_aside: Vec<Card<T>>,
    },
    /// The last HEROINE has been played for: the final count.
    GameOver {
        /// Cards won minus cards in hand, per seat.
        scores: Vec<i32>,
        /// Cards won, per seat.
        won: Vec<u8>,
        /// Cards left in hand, per seat.
        in_hand: Vec<u8>,
        /// The seats with the highest score.
        winners: Vec<Seat>,
        /// Cards never turned up from the centre pack.
        left_in_pack: u8,
    },
}

/// An event as a player or a spectator sees it while the game is in progress, where that
/// differs from the [`Event`] recorded: the order of the deal and the cards laid face down
/// stay hidden. Every other event is seen as it was recorded.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    bound = "T: Theme",
    deny_unknown_fields
)]
pub enum SeenEvent<T: Theme> {
    /// The dealer shuffled and dealt 7 cards to each player, one at a time from her left; the
    /// rest is the centre pack. The order of the deal stays secret: a player sees her own hand,
    /// and everyone how many cards each player holds and the centre pack.
    Deal {
        /// The dealer (the last seat: seat 0 is on her left).
        dealer: Seat,
        /// Cards dealt to each player, in seat order.
        hand_sizes: Vec<usize>,
        /// Cards left face down in the centre pack.
        centre_pack: usize,
        /// The viewer's own hand, in catalogue order: for a player only, not a spectator.
        #[serde(skip_serializing_if = "Option::is_none")]
        hand: Option<Vec<Card<T>>>,
    },
    /// A player laid cards face down for the trick: everyone sees how many, only she sees which.
    Lay {
        /// Who laid.
        seat: Seat,
        /// How many cards she laid.
        count: usize,
        /// The cards laid: for the player who laid them only.
        #[serde(skip_serializing_if = "Option::is_none")]
        cards: Option<Vec<Card<T>>>,
    },
}

/// A move as `legal_actions` offers it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", bound = "T: Theme")]
pub enum LegalAction<T: Theme> {
    /// Turn up the top card of the centre pack.
    TurnUp,
    /// Lay this many cards from the hand, face down.
    Lay {
        /// The cards to choose from: the hand.
        cards: Choose<Card<T>>,
    },
    /// Lay this HEROINE from the hand.
    Expose {
        /// The HEROINE card.
        card: Card<T>,
    },
    /// Pass, holding no HEROINE.
    Pass,
}

/// What everyone sees of one seat.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SeatView {
    /// Cards in her hand.
    pub hand: usize,
    /// Cards she has won.
    pub won: usize,
    /// During a trick, whether she has laid; `null` between tricks.
    pub laid: Option<bool>,
}

/// Where the game stands, as the view names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseName {
    /// Before the deal.
    Deal,
    /// `turn` turns up a card.
    TurnUp,
    /// `turn` lays a HEROINE from her hand or passes.
    HeroineFromHand,
    /// Everyone with cards lays for the exposed HEROINE.
    Trick,
    /// The game is over.
    Over,
}

/// The HEROINE being played for.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(bound = "T: Theme")]
pub struct ExposedView<T: Theme> {
    /// The HEROINE card.
    pub card: Card<T>,
    /// Who turned it up or laid it.
    pub by: Seat,
    /// Whether it was laid from the hand.
    pub from_hand: bool,
}

/// The last trick, face up until the next.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(bound = "T: Theme")]
pub struct LastTrickView<T: Theme> {
    /// The HEROINE played for.
    pub heroine: Card<T>,
    /// Each seat's lay, in seat order.
    pub lays: Vec<Vec<Card<T>>>,
    /// Each seat's points.
    pub points: Vec<u8>,
    /// The winner, if there was one.
    pub winner: Option<Seat>,
    /// The cards the winner took.
    pub won: Vec<Card<T>>,
    /// The HEROINE cards put aside.
    pub set_aside: Vec<Card<T>>,
}

/// The last turn-up, expose or pass.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", bound = "T: Theme")]
pub enum LastMoveView<T: Theme> {
    /// A card turned up from the centre pack.
    TurnUp {
        /// Who turned it up.
        seat: Seat,
        /// The card.
        card: Card<T>,
    },
    /// A HEROINE laid from the hand.
    Expose {
        /// Who laid it.
        seat: Seat,
        /// The card.
        card: Card<T>,
    },
    /// A pass.
    Pass {
        /// Who passed.
        seat: Seat,
    },
}

/// What lies face up for everyone.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(bound = "T: Theme")]
pub struct PublicView<T: Theme> {
    /// Where the game stands.
    pub phase: PhaseName,
    /// Who turns up or exposes, in those phases.
    pub turn: Option<Seat>,
    /// The seats the game waits for.
    pub to_act: Vec<Seat>,
    /// The dealer.
    pub dealer: Seat,
    /// The HEROINE being played for, during a trick.
    pub exposed: Option<ExposedView<T>>,
    /// Cards left in the centre pack.
    pub centre_pack: usize,
    /// HEROINE cards put aside.
    pub set_aside: usize,
    /// Who won the last trick that had a winner.
    pub last_trick_winner: Option<Seat>,
    /// The last trick.
    pub last_trick: Option<LastTrickView<T>>,
    /// The last turn-up, expose or pass.
    pub last_move: Option<LastMoveView<T>>,
}

/// What only the player in a seat sees.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(bound = "T: Theme")]
pub struct PrivateView<T: Theme> {
    /// Her hand, in catalogue order.
    pub hand: Vec<Card<T>>,
    /// What she has laid face down for the trick.
    pub laid: Vec<Card<T>>,
}

/// The final count.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Outcome {
    /// Cards won minus cards in hand, per seat.
    pub scores: Vec<i32>,
    /// Cards won, per seat.
    pub won: Vec<usize>,
    /// Cards left in hand, per seat.
    pub in_hand: Vec<usize>,
    /// The seats with the highest score.
    pub winners: Vec<Seat>,
    /// Cards never turned up from the centre pack.
    pub left_in_pack: usize,
}

/// Why a move was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// Turn-up while a trick is being played for, or expose/pass during a trick.
    #[error("a {word} is being played for: lay your cards face down first")]
    TrickInPlay {
        /// HEROINE or CAR-CLASS.
        word: &'static str,
    },
    /// Lay when no trick is being played.
    #[error("no {word} is exposed, so there is no trick to lay cards for")]
    NoTrick {
        /// HEROINE or CAR-CLASS.
        word: &'static str,
    },
    /// Turn-up once the centre pack is used up.
    #[error(
        "the centre pack is used up: lay a {word} card from your hand, or pass if you hold none"
    )]
    PackUsedUp {
        /// HEROINE or CAR-CLASS.
        word: &'static str,
    },
    /// Expose or pass while the centre pack still has cards.
    #[error("turn up the top card of the centre pack: {word} cards are laid from the hand only once it is used up")]
    PackNotUsedUp {
        /// HEROINE or CAR-CLASS.
        word: &'static str,
    },
    /// A lay of the wrong size.
    #[error(
        "you must lay {must} cards (3 while you hold 3 or more, else all you hold), not {got}"
    )]
    LayCount {
        /// How many she must lay.
        must: usize,
        /// How many she laid.
        got: usize,
    },
    /// A card not in the player's hand.
    #[error("{card} is not in your hand")]
    NotInHand {
        /// The card's id.
        card: &'static str,
    },
    /// The same card twice in one lay.
    #[error("you named {card} twice: lay different cards")]
    RepeatedCard {
        /// The card's id.
        card: &'static str,
    },
    /// Expose of a card that is not a HEROINE.
    #[error("{card} is not a {word} card: only a {word} card can be laid to be played for")]
    NotAHeroine {
        /// The card's id.
        card: &'static str,
        /// HEROINE or CAR-CLASS.
        word: &'static str,
    },
    /// Pass while holding a HEROINE.
    #[error("you hold a {word} card, so you must lay one; you may pass only when you hold none")]
    MustExpose {
        /// HEROINE or CAR-CLASS.
        word: &'static str,
    },
}

impl Refusal for RuleError {
    fn kind(&self) -> RefusalKind {
        // Out of turn (a seat that has laid for the trick included) and after the end are
        // refused by the framework before `decide`.
        RefusalKind::Forbidden
    }

    fn rule(&self) -> &'static str {
        match self {
            RuleError::TrickInPlay { .. } => "play-for-the-trick",
            RuleError::NoTrick { .. } => "lay-only-for-a-trick",
            RuleError::PackUsedUp { .. } => "centre-pack-used-up",
            RuleError::PackNotUsedUp { .. } => "turn-up-from-the-centre-pack",
            RuleError::LayCount { .. } => "lay-three-cards",
            RuleError::NotInHand { .. } => "cards-from-your-hand",
            RuleError::RepeatedCard { .. } => "different-cards",
            RuleError::NotAHeroine { .. } => "expose-a-heroine",
            RuleError::MustExpose { .. } => "must-lay-a-heroine",
        }
    }
}

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before the deal.
    Deal,
    /// This player turns up the top card of the centre pack.
    TurnUp(Seat),
    /// The centre pack is used up: this player lays a HEROINE from her hand, or passes.
    HeroineFromHand(Seat),
    /// A HEROINE is exposed and the players lay for her.
    Trick,
    /// The last HEROINE has been played for.
    Over,
}

/// A trick being played for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trick {
    /// The exposed HEROINE card.
    pub heroine: u8,
    /// Who turned it up or laid it from her hand.
    pub exposed_by: Seat,
    /// Whether it came from her hand (after the centre pack was used up).
    pub from_hand: bool,
    /// The face-down lays so far.
    pub lays: [CardSet; MAX_PLAYERS],
    /// Seats that must lay (those holding cards when the HEROINE was exposed), as bits.
    pub to_lay: u8,
    /// Seats that have laid, as bits.
    pub laid: u8,
}

/// A seat's bit in a trick's seat sets; none for a seat beyond the bits, so that a seat that is
/// not at the table is never taken for one that is (a plain shift overflows at seat 8).
fn seat_bit(seat: Seat) -> u8 {
    1u8.checked_shl(u32::from(seat.0)).unwrap_or(0)
}

impl Trick {
    fn must_lay(&self, seat: Seat) -> bool {
        self.to_lay & !self.laid & seat_bit(seat) != 0
    }

    fn has_laid(&self, seat: Seat) -> bool {
        self.laid & seat_bit(seat) != 0
    }

    fn all_laid(&self) -> bool {
        self.to_lay & !self.laid == 0
    }
}

/// A played trick, face up for everyone until the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrickResult {
    /// The HEROINE played for.
    pub heroine: u8,
    /// Each seat's lay, revealed.
    pub lays: [CardSet; MAX_PLAYERS],
    /// Each seat's points.
    pub points: [u8; MAX_PLAYERS],
    /// The winner, if there was one.
    pub winner: Option<Seat>,
    /// The cards the winner took.
    pub won: CardSet,
    /// The HEROINE cards put aside.
    pub set_aside: CardSet,
}

/// The last turn-up, expose or pass, for a client to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastMove {
    /// A card turned up from the centre pack.
    TurnedUp(Seat, u8),
    /// A HEROINE laid from the hand.
    Exposed(Seat, u8),
    /// A pass.
    Passed(Seat),
}

/// The rule points that changed between rules versions, read once from the version the game
/// was created under ([`Setup::rules_version`]); `docs/rules/trio.md` gives the reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rules {
    /// From version 2, a tie before anyone has won a trick passes play to the left of the
    /// player who turned up (or laid) the HEROINE, the sheet's ordinary "play passes to the
    /// player on her left"; version 1 passes it to the dealer's left.
    tie_before_any_win_passes_left_of_the_exposer: bool,
}

impl Rules {
    fn of(version: u32) -> Rules {
        Rules {
            tie_before_any_win_passes_left_of_the_exposer: version >= 2,
        }
    }
}

/// Everything about a game of GIRL or The CAR Game at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct State<T> {
    players: u8,
    rules: Rules,
    phase: Phase,
    hands: [CardSet; MAX_PLAYERS],
    won: [CardSet; MAX_PLAYERS],
    /// The centre pack: `pack[pack_next..pack_end]`, top first.
    pack: [u8; PACK],
    pack_next: u8,
    pack_end: u8,
    /// The used HEROINE cards, face down.
    set_aside: CardSet,
    /// Who won the last trick that had a winner.
    last_winner: Option<Seat>,
    trick: Option<Trick>,
    last_trick: Option<TrickResult>,
    last_move: Option<LastMove>,
    theme: PhantomData<T>,
}

impl<T: Theme> State<T> {
    fn players(&self) -> usize {
        usize::from(self.players)
    }

    /// The dealer: the last seat, so that seat 0 is on her left.
    pub fn dealer(&self) -> Seat {
        Seat(self.players - 1)
    }

    /// Where the game stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// A seat's hand.
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat.index()]
    }

    /// The cards a seat has won.
    pub fn won(&self, seat: Seat) -> CardSet {
        self.won[seat.index()]
    }

    /// The centre pack, top first.
    pub fn centre_pack(&self) -> &[u8] {
        &self.pack[usize::from(self.pack_next)..usize::from(self.pack_end)]
    }

    /// The set-aside pile of used HEROINE cards.
    pub fn set_aside(&self) -> CardSet {
        self.set_aside
    }

    /// The trick being played for, if any.
    pub fn trick(&self) -> Option<&Trick> {
        self.trick.as_ref()
    }

    /// The last trick played, if any.
    pub fn last_trick(&self) -> Option<&TrickResult> {
        self.last_trick.as_ref()
    }

    /// Who won the last trick that had a winner.
    pub fn last_winner(&self) -> Option<Seat> {
        self.last_winner
    }

    /// The player who plays on after a trick: the one to the left of the trick's winner, or
    /// after a tie, to the left of the last trick winner. Before anyone has won, the left of
    /// `exposed_by`, who turned up (or laid) the HEROINE (the dealer's left under rules
    /// version 1).
    fn after_trick(&self, winner: Option<Seat>, exposed_by: Seat) -> Seat {
        let before_any_win = if self.rules.tie_before_any_win_passes_left_of_the_exposer {
            exposed_by
        } else {
            self.dealer()
        };
        winner
            .or(self.last_winner)
            .unwrap_or(before_any_win)
            .left(self.players())
    }

    /// The turn of `seat`, by whether the centre pack is used up.
    fn turn_of(&self, seat: Seat) -> Phase {
        if self.centre_pack().is_empty() {
            Phase::HeroineFromHand(seat)
        } else {
            Phase::TurnUp(seat)
        }
    }

    /// Exposes a HEROINE: every player then holding cards must lay.
    fn start_trick(&mut self, heroine: u8, exposed_by: Seat, from_hand: bool) {
        let to_lay = Seat::all(self.players())
            .filter(|s| !self.hand(*s).is_empty())
            .fold(0u8, |bits, s| bits | seat_bit(s));
        self.trick = Some(Trick {
            heroine,
            exposed_by,
            from_hand,
            lays: [CardSet::EMPTY; MAX_PLAYERS],
            to_lay,
            laid: 0,
        });
        self.phase = Phase::Trick;
    }

    /// The final count: cards won minus cards in hand.
    // Card counts are at most the PACK cards, so they fit an i32.
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
    fn scores(&self) -> Vec<i32> {
        Seat::all(self.players())
            .map(|s| self.won(s).len() as i32 - self.hand(s).len() as i32)
            .collect()
    }

    fn winners(&self) -> Vec<Seat> {
        let scores = self.scores();
        let best = scores.iter().copied().max().unwrap_or(0);
        Seat::all(self.players())
            .filter(|s| scores[s.index()] == best)
            .collect()
    }
}

/// Scores a trick: each lay's points for the heroine; the single highest non-zero total wins
/// the jokers and TRIO cards showing her from every lay, and her twin (if laid) is put aside
/// with her. A tie for highest, or no points at all, wins nothing and puts aside only the
/// exposed card.
pub fn judge(trick: &Trick, players: usize) -> TrickResult {
    let heroine = heroine_of(trick.heroine).unwrap_or(0);
    let mut scored = [0u8; MAX_PLAYERS];
    for (seat, lay) in trick.lays.iter().enumerate().take(players) {
        scored[seat] = lay.iter().map(|card| points(card, heroine)).sum();
    }
    let best = scored.iter().copied().max().unwrap_or(0);
    let leaders = scored.iter().filter(|p| **p == best).count();
    let winner = (best > 0 && leaders == 1)
        .then(|| scored.iter().position(|p| *p == best))
        .flatten()
        .and_then(|seat| u8::try_from(seat).ok())
        .map(Seat);
    let mut won = CardSet::EMPTY;
    let mut set_aside = CardSet::EMPTY;
    set_aside.insert(trick.heroine);
    if winner.is_some() {
        for lay in &trick.lays[..players] {
            for card in lay.iter() {
                if is_won_for(card, heroine) {
                    won.insert(card);
                } else if card == twin(trick.heroine) {
                    set_aside.insert(card);
                }
            }
        }
    }
    TrickResult {
        heroine: trick.heroine,
        lays: trick.lays,
        points: scored,
        winner,
        won,
        set_aside,
    }
}

/// The lay a player makes when her time runs out: the cards of `hand` scoring least for
/// `heroine`, as many as she must lay ("she will choose 3 cards, if possible, which do not
/// show that Heroine — and she would not then choose a GIRL card, as she would lose it").
/// Equal scores go in pack order. See `docs/rules/trio.md`, "When a seat's time runs out".
fn cheapest_lay(hand: CardSet, heroine: u8) -> CardSet {
    let mut cards: Vec<u8> = hand.iter().collect();
    cards.sort_by_key(|card| (points(*card, heroine), *card));
    cards.into_iter().take(hand.len().min(LAY)).collect()
}

/// How much of `hand` a trick for `heroine` puts within a winner's reach, as a sort key: the
/// points of the cheapest lay she could make, then how many cards she holds that a winner
/// would take or set aside (jokers, TRIO cards showing her, her twin).
fn exposure(hand: CardSet, heroine_card: u8) -> (u8, usize) {
    let heroine = heroine_of(heroine_card).unwrap_or(0);
    let lay: u8 = cheapest_lay(hand, heroine)
        .iter()
        .map(|card| points(card, heroine))
        .sum();
    let at_risk = hand
        .iter()
        .filter(|card| is_won_for(*card, heroine) || *card == twin(heroine_card))
        .count();
    (lay, at_risk)
}

/// The HEROINE a player lays from her hand when her time runs out (once the centre pack is
/// used up): the one whose trick puts least of the rest of her hand at risk, in keeping with
/// the cheapest lay she then makes; equal ones in pack order. `None` when she holds none.
fn safest_heroine(hand: CardSet) -> Option<u8> {
    hand.intersection(CardSet::HEROINES)
        .iter()
        .min_by_key(|card| {
            let mut rest = hand;
            rest.remove(*card);
            (exposure(rest, *card), *card)
        })
}

fn cards_of<T: Theme>(set: CardSet) -> Vec<Card<T>> {
    set.cards::<T>().collect()
}

impl<T: Theme> Trio<T> {
    /// The events that close a trick once every lay is down (reveal, resolve, and the end of
    /// the game if that was the last HEROINE), given the state with every lay applied.
    // Card counts are at most the PACK cards, so they fit a u8.
    #[allow(clippy::cast_possible_truncation)]
    fn close_trick(state: &State<T>, events: &mut Vec<Event<T>>) {
        let Some(trick) = state.trick else {
            return;
        };
        let players = state.players();
        let result = judge(&trick, players);
        let heroine = Card::at(trick.heroine);
        events.push(Event::Reveal {
            heroine,
            lays: trick.lays[..players].iter().map(|l| cards_of(*l)).collect(),
        });
        let resolve = Event::Resolve {
            heroine,
            points: result.points[..players].to_vec(),
            winner: result.winner,
            won: cards_of(result.won),
            set_aside: cards_of(result.set_aside),
        };
        let after = Self::evolve(*state, &resolve);
        events.push(resolve);
        if after.phase == Phase::Over {
            events.push(Event::GameOver {
                scores: after.scores(),
                won: Seat::all(players)
                    .map(|s| after.won(s).len() as u8)
                    .collect(),
                in_hand: Seat::all(players)
                    .map(|s| after.hand(s).len() as u8)
                    .collect(),
                winners: after.winners(),
                left_in_pack: after.centre_pack().len() as u8,
            });
        }
    }

    /// The events of exposing a HEROINE: the exposure itself, and if nobody holds a card to
    /// lay, the (all-zero) trick at once.
    fn expose(state: &State<T>, exposure: Event<T>) -> Vec<Event<T>> {
        let after = Self::evolve(*state, &exposure);
        let mut events = vec![exposure];
        if after.trick.is_some_and(|t| t.all_laid()) {
            Self::close_trick(&after, &mut events);
        }
        events
    }

    fn lay(state: &State<T>, seat: Seat, cards: &[Card<T>]) -> Result<Vec<Event<T>>, RuleError> {
        let hand = state.hand(seat);
        let must = hand.len().min(LAY);
        if cards.len() != must {
            return Err(RuleError::LayCount {
                must,
                got: cards.len(),
            });
        }
        let mut lay = CardSet::EMPTY;
        for card in cards {
            if !hand.contains(card.index()) {
                return Err(RuleError::NotInHand { card: card.id() });
            }
            if lay.contains(card.index()) {
                return Err(RuleError::RepeatedCard { card: card.id() });
            }
            lay.insert(card.index());
        }
        let event = Event::Lay {
            seat,
            cards: cards.to_vec(),
        };
        let after = Self::evolve(*state, &event);
        let mut events = vec![event];
        if after.trick.is_some_and(|t| t.all_laid()) {
            Self::close_trick(&after, &mut events);
        }
        Ok(events)
    }
}

impl<T: Theme> Copy for State<T> {}

impl<T: Theme> Game for Trio<T> {
    type Options = TrioOptions;
    type State = State<T>;
    type Action = Action<T>;
    type LegalAction = LegalAction<T>;
    type Event = Event<T>;
    type SeenEvent = SeenEvent<T>;
    type SeatView = SeatView;
    type PublicView = PublicView<T>;
    type PrivateView = PrivateView<T>;
    type Outcome = Outcome;
    type Error = RuleError;

    fn describe() -> Description {
        Description {
            id: T::GAME_ID,
            name: T::GAME_NAME,
            min_players: MIN_PLAYERS,
            max_players: MAX_PLAYERS,
            summary: T::SUMMARY,
            options: json!({}),
            rules: "docs/rules/trio.md",
        }
    }

    fn cards() -> Value {
        Value::Array(Card::<T>::all().map(Card::catalogue_entry).collect())
    }

    // The player count is checked against MAX_PLAYERS first, so it fits a u8.
    #[allow(clippy::cast_possible_truncation)]
    fn new(setup: &Setup<TrioOptions>) -> Result<State<T>, SetupError> {
        let players = setup.players.len();
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
            return Err(SetupError::PlayerCount {
                game: T::GAME_NAME,
                min: MIN_PLAYERS,
                max: MAX_PLAYERS,
                got: players,
            });
        }
        Ok(State {
            players: players as u8,
            rules: Rules::of(setup.rules_version),
            phase: Phase::Deal,
            hands: [CardSet::EMPTY; MAX_PLAYERS],
            won: [CardSet::EMPTY; MAX_PLAYERS],
            pack: [0; PACK],
            pack_next: 0,
            pack_end: 0,
            set_aside: CardSet::EMPTY,
            last_winner: None,
            trick: None,
            last_trick: None,
            last_move: None,
            theme: PhantomData,
        })
    }

    fn start(state: &State<T>, chance: &mut Chance) -> Vec<Event<T>> {
        let pack: Vec<Card<T>> = Card::all().collect();
        vec![Event::Deal {
            dealer: state.dealer(),
            deck: chance.shuffle(&pack),
        }]
    }

    fn decide(
        state: &State<T>,
        seat: Seat,
        action: &Action<T>,
        _chance: &mut Chance,
    ) -> Result<Vec<Event<T>>, RuleError> {
        let word = T::HEROINE_WORD;
        match (state.phase, action) {
            (Phase::TurnUp(_), Action::TurnUp) => {
                let Some(&top) = state.centre_pack().first() else {
                    return Err(RuleError::PackUsedUp { word });
                };
                let draw = Event::Draw {
                    seat,
                    card: Card::at(top),
                };
                Ok(if heroine_of(top).is_some() {
                    Self::expose(state, draw)
                } else {
                    vec![draw]
                })
            }
            (Phase::TurnUp(_), Action::Expose { .. } | Action::Pass) => {
                Err(RuleError::PackNotUsedUp { word })
            }
            (Phase::HeroineFromHand(_), Action::Expose { card }) => {
                if heroine_of(card.index()).is_none() {
                    return Err(RuleError::NotAHeroine {
                        card: card.id(),
                        word,
                    });
                }
                if !state.hand(seat).contains(card.index()) {
                    return Err(RuleError::NotInHand { card: card.id() });
                }
                Ok(Self::expose(state, Event::Expose { seat, card: *card }))
            }
            (Phase::HeroineFromHand(_), Action::Pass) => {
                if !state.hand(seat).intersection(CardSet::HEROINES).is_empty() {
                    return Err(RuleError::MustExpose { word });
                }
                Ok(vec![Event::Pass { seat }])
            }
            (Phase::HeroineFromHand(_), Action::TurnUp) => Err(RuleError::PackUsedUp { word }),
            (Phase::Trick, Action::Lay { cards }) => Self::lay(state, seat, cards),
            (Phase::Trick, _) => Err(RuleError::TrickInPlay { word }),
            (_, Action::Lay { .. }) => Err(RuleError::NoTrick { word }),
            // No seat is to act before the deal or after the end, and the framework asks
            // `decide` only for a seat that is.
            (Phase::Deal | Phase::Over, _) => {
                unreachable!("the framework refuses every move while no seat is to act")
            }
        }
    }

    fn evolve(mut state: State<T>, event: &Event<T>) -> State<T> {
        let players = state.players();
        match event {
            Event::Deal { deck, .. } => {
                for (k, card) in deck.order.iter().enumerate() {
                    if k < HAND * players {
                        state.hands[k % players].insert(card.index());
                    } else {
                        state.pack[k - HAND * players] = card.index();
                    }
                }
                state.pack_next = 0;
                // At most the PACK cards of the deck.
                #[allow(clippy::cast_possible_truncation)]
                let end = deck.order.len().saturating_sub(HAND * players) as u8;
                state.pack_end = end;
                state.phase = state.turn_of(Seat(0));
            }
            Event::Draw { seat, card } => {
                state.pack_next += 1;
                state.last_move = Some(LastMove::TurnedUp(*seat, card.index()));
                if heroine_of(card.index()).is_some() {
                    state.start_trick(card.index(), *seat, false);
                } else {
                    state.hands[seat.index()].insert(card.index());
                    state.phase = state.turn_of(seat.left(players));
                }
            }
            Event::Expose { seat, card } => {
                state.hands[seat.index()].remove(card.index());
                state.last_move = Some(LastMove::Exposed(*seat, card.index()));
                state.start_trick(card.index(), *seat, true);
            }
            Event::Pass { seat } => {
                state.last_move = Some(LastMove::Passed(*seat));
                state.phase = state.turn_of(seat.left(players));
            }
            Event::Lay { seat, cards } => {
                if let Some(trick) = state.trick.as_mut() {
                    for card in cards {
                        state.hands[seat.index()].remove(card.index());
                        trick.lays[seat.index()].insert(card.index());
                    }
                    trick.laid |= seat_bit(*seat);
                }
            }
            // The lays are all face up from now on; the resolve that follows records them.
            Event::Reveal { .. } => {}
            Event::Resolve {
                points,
                winner,
                won,
                set_aside,
                ..
            } => {
                let Some(trick) = state.trick.take() else {
                    return state;
                };
                let won: CardSet = won.iter().map(|c| c.index()).collect();
                let put_aside: CardSet = set_aside.iter().map(|c| c.index()).collect();
                for (seat, lay) in trick.lays.iter().enumerate().take(players) {
                    state.hands[seat] = state.hands[seat].union(lay.minus(won).minus(put_aside));
                }
                if let Some(winner) = winner {
                    state.won[winner.index()] = state.won[winner.index()].union(won);
                }
                state.set_aside = state.set_aside.union(put_aside);
                let mut scored = [0u8; MAX_PLAYERS];
                scored[..points.len().min(MAX_PLAYERS)]
                    .copy_from_slice(&points[..points.len().min(MAX_PLAYERS)]);
                state.last_trick = Some(TrickResult {
                    heroine: trick.heroine,
                    lays: trick.lays,
                    points: scored,
                    winner: *winner,
                    won,
                    set_aside: put_aside,
                });
                let next = state.after_trick(*winner, trick.exposed_by);
                if winner.is_some() {
                    state.last_winner = *winner;
                }
                state.phase = if state.set_aside == CardSet::HEROINES {
                    Phase::Over
                } else {
                    state.turn_of(next)
                };
            }
            // The count is already final: the resolve before it ended the game.
            Event::GameOver { .. } => {}
        }
        state
    }

    fn to_act(state: &State<T>) -> Vec<Seat> {
        match state.phase {
            Phase::TurnUp(seat) | Phase::HeroineFromHand(seat) => vec![seat],
            Phase::Trick => match state.trick {
                Some(trick) => Seat::all(state.players())
                    .filter(|s| trick.must_lay(*s))
                    .collect(),
                None => Vec::new(),
            },
            Phase::Deal | Phase::Over => Vec::new(),
        }
    }

    fn legal_actions(state: &State<T>, seat: Seat) -> Vec<LegalAction<T>> {
        match state.phase {
            Phase::TurnUp(turn) if turn == seat => vec![LegalAction::TurnUp],
            Phase::HeroineFromHand(turn) if turn == seat => {
                let heroines = state.hand(seat).intersection(CardSet::HEROINES);
                if heroines.is_empty() {
                    vec![LegalAction::Pass]
                } else {
                    heroines
                        .cards::<T>()
                        .map(|card| LegalAction::Expose { card })
                        .collect()
                }
            }
            Phase::Trick if state.trick.is_some_and(|t| t.must_lay(seat)) => {
                let hand = state.hand(seat);
                vec![LegalAction::Lay {
                    cards: Choose {
                        choose: hand.len().min(LAY),
                        from: hand.cards::<T>().collect(),
                    },
                }]
            }
            _ => Vec::new(),
        }
    }

    fn view(state: &State<T>, viewer: Viewer) -> ViewOf<Self> {
        let trick = state.trick;
        let seats = Seat::all(state.players())
            .map(|s| SeatView {
                hand: state.hand(s).len(),
                won: state.won(s).len(),
                laid: trick.map(|t| t.has_laid(s)),
            })
            .collect();
        let (phase, turn) = match state.phase {
            Phase::Deal => (PhaseName::Deal, None),
            Phase::TurnUp(s) => (PhaseName::TurnUp, Some(s)),
            Phase::HeroineFromHand(s) => (PhaseName::HeroineFromHand, Some(s)),
            Phase::Trick => (PhaseName::Trick, None),
            Phase::Over => (PhaseName::Over, None),
        };
        let players = state.players();
        let last_trick = state.last_trick.map(|t| LastTrickView {
            heroine: Card::<T>::at(t.heroine),
            lays: t.lays[..players]
                .iter()
                .map(|l| l.cards::<T>().collect())
                .collect(),
            points: t.points[..players].to_vec(),
            winner: t.winner,
            won: t.won.cards::<T>().collect(),
            set_aside: t.set_aside.cards::<T>().collect(),
        });
        let last_move = state.last_move.map(|m| match m {
            LastMove::TurnedUp(seat, card) => LastMoveView::TurnUp {
                seat,
                card: Card::<T>::at(card),
            },
            LastMove::Exposed(seat, card) => LastMoveView::Expose {
                seat,
                card: Card::<T>::at(card),
            },
            LastMove::Passed(seat) => LastMoveView::Pass { seat },
        });
        let public = PublicView {
            phase,
            turn,
            to_act: Self::to_act(state),
            dealer: state.dealer(),
            exposed: trick.map(|t| ExposedView {
                card: Card::<T>::at(t.heroine),
                by: t.exposed_by,
                from_hand: t.from_hand,
            }),
            centre_pack: state.centre_pack().len(),
            set_aside: state.set_aside.len(),
            last_trick_winner: state.last_winner,
            last_trick,
            last_move,
        };
        let private = match viewer {
            Viewer::Seat(seat) if seat.index() < players => Some(PrivateView {
                hand: state.hand(seat).cards::<T>().collect(),
                laid: trick
                    .map(|t| t.lays[seat.index()].cards::<T>().collect())
                    .unwrap_or_default(),
            }),
            _ => None,
        };
        View {
            seats,
            public,
            private,
        }
    }

    fn redact(event: &Event<T>, viewer: Viewer) -> Value {
        let seen = match event {
            Event::Deal { dealer, deck } => {
                let players = usize::from(dealer.0) + 1;
                let dealt = (HAND * players).min(deck.order.len());
                // In catalogue order, as the view lists a hand: the order of the deal is secret.
                let hand = match viewer {
                    Viewer::Seat(seat) => Some(
                        deck.order[..dealt]
                            .iter()
                            .enumerate()
                            .filter(|(k, _)| k % players == seat.index())
                            .map(|(_, card)| card.index())
                            .collect::<CardSet>()
                            .cards::<T>()
                            .collect(),
                    ),
                    Viewer::Spectator => None,
                };
                SeenEvent::Deal {
                    dealer: *dealer,
                    hand_sizes: vec![HAND; players],
                    centre_pack: deck.order.len() - dealt,
                    hand,
                }
            }
            Event::Lay { seat, cards } => SeenEvent::Lay {
                seat: *seat,
                count: cards.len(),
                cards: viewer.is(*seat).then(|| cards.clone()),
            },
            other => return serde_json::to_value(other).unwrap_or(Value::Null),
        };
        serde_json::to_value(seen).unwrap_or(Value::Null)
    }

    fn outcome(state: &State<T>) -> Option<Outcome> {
        if state.phase != Phase::Over {
            return None;
        }
        let players = state.players();
        Some(Outcome {
            scores: state.scores(),
            won: Seat::all(players).map(|s| state.won(s).len()).collect(),
            in_hand: Seat::all(players).map(|s| state.hand(s).len()).collect(),
            winners: state.winners(),
            left_in_pack: state.centre_pack().len(),
        })
    }

    fn default_action(state: &State<T>, seat: Seat) -> Option<Action<T>> {
        match state.phase {
            Phase::TurnUp(_) => Some(Action::TurnUp),
            Phase::HeroineFromHand(_) => Some(match safest_heroine(state.hand(seat)) {
                Some(card) => Action::Expose {
                    card: Card::at(card),
                },
                None => Action::Pass,
            }),
            Phase::Trick => {
                let heroine = heroine_of(state.trick?.heroine)?;
                Some(Action::Lay {
                    cards: cheapest_lay(state.hand(seat), heroine).cards().collect(),
                })
            }
            Phase::Deal | Phase::Over => None,
        }
    }

    /// The sheet's match counts each deal's score: cards won less cards left in hand.
    fn match_points(state: &State<T>) -> Option<Vec<i64>> {
        Self::outcome(state).map(|o| o.scores.into_iter().map(i64::from).collect())
    }

    // Card counts are at most the PACK cards, so they fit an i64 exactly.
    #[allow(clippy::cast_possible_wrap)]
    fn concede(state: &State<T>, seat: Seat) -> Concession {
        let players = state.players();
        // A lay face down for the trick in play is still hers: it goes back to her hand
        // unless the trick is won, and nobody has won it yet.
        let in_hand: Vec<i64> = Seat::all(players)
            .map(|s| {
                let laid = state.trick.map_or(0, |t| t.lays[s.index()].len());
                (state.hand(s).len() + laid) as i64
            })
            .collect();
        let won: Vec<i64> = Seat::all(players)
            .map(|s| state.won(s).len() as i64)
            .collect();
        let points = won.iter().zip(&in_hand).map(|(w, h)| w - h).collect();
        Concession::by_points(seat, points, "cards won less cards in hand")
            .with_figure("won", won)
            .with_figure("in_hand", in_hand)
    }

    fn check_invariants(state: &State<T>) -> Result<(), String> {
        if state.phase == Phase::Deal {
            return Ok(());
        }
        let players = state.players();
        let mut places: Vec<(String, CardSet)> = Vec::new();
        for seat in Seat::all(players) {
            places.push((format!("{seat} hand"), state.hand(seat)));
            places.push((format!("{seat} won"), state.won(seat)));
        }
        places.push((
            "centre pack".into(),
            state.centre_pack().iter().copied().collect(),
        ));
        places.push(("set aside".into(), state.set_aside));
        if let Some(trick) = state.trick {
            let mut exposed = CardSet::EMPTY;
            exposed.insert(trick.heroine);
            places.push(("exposed".into(), exposed));
            for seat in Seat::all(players) {
                places.push((format!("{seat} lay"), trick.lays[seat.index()]));
            }
            if heroine_of(trick.heroine).is_none() {
                return Err("the exposed card is not a HEROINE".into());
            }
        }
        let counted: usize = places.iter().map(|(_, set)| set.len()).sum();
        let mut all = CardSet::EMPTY;
        for (place, set) in &places {
            if !all.intersection(*set).is_empty() {
                return Err(format!("a card in the {place} is also somewhere else"));
            }
            all = all.union(*set);
        }
        if counted != PACK || all.len() != PACK {
            return Err(format!("{counted} cards accounted for, not {PACK}"));
        }
        if state.set_aside.minus(CardSet::HEROINES) != CardSet::EMPTY {
            return Err("a card other than a HEROINE is set aside".into());
        }
        for seat in Seat::all(players) {
            if !state.won(seat).intersection(CardSet::HEROINES).is_empty() {
                return Err(format!("{seat} has won a HEROINE card"));
            }
        }
        if (state.phase == Phase::Trick) != state.trick.is_some() {
            return Err("a trick is in play outside the trick phase (or none in it)".into());
        }
        if state.phase == Phase::Over && state.set_aside != CardSet::HEROINES {
            return Err("the game ended before the last HEROINE was played for".into());
        }
        Ok(())
    }
}

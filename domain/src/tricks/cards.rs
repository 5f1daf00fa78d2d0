//! The 44-card TRIO pack shared by GIRL and The CAR Game, and the two themes that name it.
//!
//! Every card has a fixed index 0..44: the twelve HEROINE cards first (heroine `h` has
//! indices `2h` and `2h + 1`), then the two jokers (GIRL / BLUEBIRD), then TRIO cards 1..30.
//! Only the names differ between the themes; the engine works on indices and a theme turns
//! them into stable ids at the JSON edge.

use std::borrow::Cow;
use std::fmt::Debug;
use std::hash::Hash;
use std::marker::PhantomData;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

/// Cards in the pack.
pub const PACK: usize = 44;
/// HEROINE cards in the pack (two of each of six heroines).
pub const HEROINE_CARDS: u8 = 12;
/// The first joker's index; the second is the next one.
const FIRST_JOKER: u8 = 12;
/// The first TRIO card's index.
const FIRST_TRIO: u8 = 14;

/// The 30 TRIO cards: the three heroines on each, top (3 points) to bottom (1 point), with
/// heroines numbered 0..6 in the order A..F of the reconstruction. The printed table is lost;
/// this balanced design shows every heroine 5 times in each position.
const TRIOS: [[u8; 3]; 30] = [
    [0, 1, 2], // 1 ABC
    [0, 2, 3], // 2 ACD
    [0, 3, 4], // 3 ADE
    [0, 4, 5], // 4 AEF
    [0, 5, 1], // 5 AFB
    [1, 0, 2], // 6 BAC
    [1, 2, 5], // 7 BCF
    [1, 3, 0], // 8 BDA
    [1, 4, 3], // 9 BED
    [1, 5, 4], // 10 BFE
    [2, 0, 4], // 11 CAE
    [2, 1, 3], // 12 CBD
    [2, 3, 5], // 13 CDF
    [2, 4, 1], // 14 CEB
    [2, 5, 0], // 15 CFA
    [3, 0, 1], // 16 DAB
    [3, 1, 5], // 17 DBF
    [3, 2, 4], // 18 DCE
    [3, 4, 0], // 19 DEA
    [3, 5, 2], // 20 DFC
    [4, 0, 5], // 21 EAF
    [4, 1, 0], // 22 EBA
    [4, 2, 1], // 23 ECB
    [4, 3, 2], // 24 EDC
    [4, 5, 3], // 25 EFD
    [5, 0, 3], // 26 FAD
    [5, 1, 4], // 27 FBE
    [5, 2, 0], // 28 FCA
    [5, 3, 1], // 29 FDB
    [5, 4, 2], // 30 FEC
];

const TRIO_IDS: [&str; 30] = [
    "trio-01", "trio-02", "trio-03", "trio-04", "trio-05", "trio-06", "trio-07", "trio-08",
    "trio-09", "trio-10", "trio-11", "trio-12", "trio-13", "trio-14", "trio-15", "trio-16",
    "trio-17", "trio-18", "trio-19", "trio-20", "trio-21", "trio-22", "trio-23", "trio-24",
    "trio-25", "trio-26", "trio-27", "trio-28", "trio-29", "trio-30",
];

/// The names one edition of the game prints on the shared TRIO pack. A theme names the
/// schemas of its game's types (`Action_for_Girl`), hence `JsonSchema`.
pub trait Theme:
    Copy + Clone + Debug + Default + PartialEq + Eq + Hash + Send + Sync + JsonSchema + 'static
{
    /// The game id in the catalogue.
    const GAME_ID: &'static str;
    /// The printed name of the game.
    const GAME_NAME: &'static str;
    /// One paragraph for the catalogue.
    const SUMMARY: &'static str;
    /// What the rules call a HEROINE card (`HEROINE`, `CAR-CLASS`), for messages.
    const HEROINE_WORD: &'static str;
    /// The six heroines (car classes) in the order A..F of the TRIO table.
    const HEROINES: [&'static str; 6];
    /// The joker's printed name (`GIRL`, `BLUEBIRD`).
    const JOKER: &'static str;
    /// Ids of the twelve HEROINE cards (two per heroine, in heroine order) and two jokers.
    const IDS: [&'static str; 14];
}

/// GIRL (Castell Brothers): the heroines of GIRL magazine and the GIRL joker.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
pub struct Girl;

impl Theme for Girl {
    const GAME_ID: &'static str = "girl";
    const GAME_NAME: &'static str = "GIRL";
    const SUMMARY: &'static str = "A game of skill for 2 to 5 players: turn up cards until a \
        HEROINE appears, then everyone lays 3 cards face down; the set scoring most for that \
        Heroine wins the GIRL and TRIO cards showing her. 1 point per card won, -1 per card \
        left in hand.";
    const HEROINE_WORD: &'static str = "HEROINE";
    const HEROINES: [&'static str; 6] =
        ["Wendy", "Jinx", "Robbie", "Penny", "Belle", "Lettice Leefe"];
    const JOKER: &'static str = "GIRL";
    const IDS: [&'static str; 14] = [
        "wendy-1",
        "wendy-2",
        "jinx-1",
        "jinx-2",
        "robbie-1",
        "robbie-2",
        "penny-1",
        "penny-2",
        "belle-1",
        "belle-2",
        "lettice-leefe-1",
        "lettice-leefe-2",
        "girl-1",
        "girl-2",
    ];
}

/// The CAR Game (Castell Brothers): six classes of car and the BLUEBIRD joker.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
pub struct Car;

impl Theme for Car {
    const GAME_ID: &'static str = "car";
    const GAME_NAME: &'static str = "The CAR Game";
    const SUMMARY: &'static str = "A game of skill for 2 to 5 players: turn up cards until a \
        CAR-CLASS card appears, then everyone lays 3 cards face down; the set scoring most for \
        that class wins the BLUEBIRD and TRIO cards showing it. 1 point per card won, -1 per \
        card left in hand.";
    const HEROINE_WORD: &'static str = "CAR-CLASS";
    const HEROINES: [&'static str; 6] = [
        "Racing",
        "Sports",
        "Record-breaking",
        "Luxury",
        "Touring",
        "Vintage/Veteran",
    ];
    const JOKER: &'static str = "BLUEBIRD";
    const IDS: [&'static str; 14] = [
        "racing-1",
        "racing-2",
        "sports-1",
        "sports-2",
        "record-breaking-1",
        "record-breaking-2",
        "luxury-1",
        "luxury-2",
        "touring-1",
        "touring-2",
        "vintage-veteran-1",
        "vintage-veteran-2",
        "bluebird-1",
        "bluebird-2",
    ];
}

/// What a card is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A HEROINE (CAR-CLASS) card of heroine 0..6.
    Heroine(u8),
    /// A GIRL (BLUEBIRD) card: 4 points towards any heroine.
    Joker,
    /// A TRIO card: three heroines, top (3 points) to bottom (1 point).
    Trio([u8; 3]),
}

/// One card of the pack, named by its theme at the JSON edge (as its stable id).
pub struct Card<T> {
    index: u8,
    theme: PhantomData<T>,
}

impl<T> Clone for Card<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Card<T> {}
impl<T> PartialEq for Card<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Card<T> {}

impl<T: Theme> Debug for Card<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl<T: Theme> Card<T> {
    /// The card at `index` (0..44) of the pack.
    pub(crate) fn at(index: u8) -> Self {
        Card {
            index,
            theme: PhantomData,
        }
    }

    /// The card's place in the pack, 0..44.
    pub fn index(self) -> u8 {
        self.index
    }

    /// Every card of the pack.
    pub fn all() -> impl Iterator<Item = Self> {
        (0..=u8::MAX).take(PACK).map(Card::at)
    }

    /// The card with this id, if the pack has one.
    pub fn from_id(id: &str) -> Option<Self> {
        Card::all().find(|card| card.id() == id)
    }

    /// The card's stable id, e.g. `wendy-2`, `bluebird-1`, `trio-07`.
    pub fn id(self) -> &'static str {
        match self.index.checked_sub(FIRST_TRIO) {
            Some(trio) => TRIO_IDS[usize::from(trio)],
            None => T::IDS[usize::from(self.index)],
        }
    }

    /// What the card is.
    pub fn kind(self) -> Kind {
        kind(self.index)
    }

    /// The card's printed name, e.g. `Wendy`, `GIRL`, `TRIO 7`.
    pub fn name(self) -> String {
        match self.kind() {
            Kind::Heroine(h) => T::HEROINES[usize::from(h)].to_string(),
            Kind::Joker => T::JOKER.to_string(),
            Kind::Trio(_) => format!("TRIO {}", self.index - FIRST_TRIO + 1),
        }
    }

    /// The card as the catalogue lists it.
    pub fn catalogue_entry(self) -> Value {
        match self.kind() {
            Kind::Heroine(h) => json!({
                "id": self.id(),
                "name": self.name(),
                "kind": "heroine",
                "heroine": T::HEROINES[usize::from(h)],
                "points": 5,
            }),
            Kind::Joker => json!({
                "id": self.id(),
                "name": self.name(),
                "kind": "joker",
                "points": 4,
            }),
            Kind::Trio(order) => json!({
                "id": self.id(),
                "name": self.name(),
                "kind": "trio",
                "number": self.index - FIRST_TRIO + 1,
                "pictures": order.iter().zip([3, 2, 1]).map(|(h, points)| json!({
                    "heroine": T::HEROINES[usize::from(*h)],
                    "points": points,
                })).collect::<Vec<_>>(),
            }),
        }
    }
}

/// What the card at `index` is.
pub(crate) fn kind(index: u8) -> Kind {
    if index < FIRST_JOKER {
        Kind::Heroine(index / 2)
    } else if index < FIRST_TRIO {
        Kind::Joker
    } else {
        Kind::Trio(TRIOS[usize::from(index - FIRST_TRIO)])
    }
}

/// The heroine of a HEROINE card, if it is one.
pub(crate) fn heroine_of(index: u8) -> Option<u8> {
    match kind(index) {
        Kind::Heroine(h) => Some(h),
        _ => None,
    }
}

/// The other HEROINE card of the same heroine.
pub(crate) fn twin(index: u8) -> u8 {
    index ^ 1
}

/// The points `index` counts in a trick for `heroine`: the matching HEROINE 5, a joker 4, a
/// TRIO card showing her 3, 2 or 1 by position, anything else nothing.
pub(crate) fn points(index: u8, heroine: u8) -> u8 {
    match kind(index) {
        Kind::Heroine(h) if h == heroine => 5,
        Kind::Heroine(_) => 0,
        Kind::Joker => 4,
        Kind::Trio(order) => order
            .iter()
            .zip(0u8..)
            .find(|(h, _)| **h == heroine)
            .map_or(0, |(_, place)| 3 - place),
    }
}

/// Whether the winner of a trick for `heroine` takes this card: jokers and TRIO cards that
/// show her.
pub(crate) fn is_won_for(index: u8, heroine: u8) -> bool {
    match kind(index) {
        Kind::Heroine(_) => false,
        Kind::Joker => true,
        Kind::Trio(order) => order.contains(&heroine),
    }
}

impl<T: Theme> Serialize for Card<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl<'de, T: Theme> Deserialize<'de> for Card<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Id<T>(PhantomData<T>);
        impl<T: Theme> Visitor<'_> for Id<T> {
            type Value = Card<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "the id of a card of {}", T::GAME_NAME)
            }
            fn visit_str<E: de::Error>(self, id: &str) -> Result<Card<T>, E> {
                Card::from_id(id).ok_or_else(|| {
                    E::custom(format!("there is no card {id:?} in {}", T::GAME_NAME))
                })
            }
        }
        deserializer.deserialize_str(Id(PhantomData))
    }
}

/// A card is written as its id: the schema lists the theme's ids.
impl<T: Theme> JsonSchema for Card<T> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Owned(format!("Card_for_{}", T::schema_name()))
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<&str> = Card::<T>::all().map(Card::id).collect();
        json_schema!({
            "type": "string",
            "description": format!("The id of a card of {}", T::GAME_NAME),
            "enum": ids,
        })
    }
}

/// A set of cards (a hand, a lay, a pile), as one bit per card: cheap to copy and compare.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CardSet(u64);

impl CardSet {
    /// No cards.
    pub const EMPTY: CardSet = CardSet(0);
    /// All twelve HEROINE cards.
    pub const HEROINES: CardSet = CardSet((1 << HEROINE_CARDS) - 1);

    /// Whether the card at `index` is in the set.
    pub fn contains(self, index: u8) -> bool {
        self.0 & (1 << index) != 0
    }

    /// Adds a card.
    pub fn insert(&mut self, index: u8) {
        self.0 |= 1 << index;
    }

    /// Takes a card out.
    pub fn remove(&mut self, index: u8) {
        self.0 &= !(1 << index);
    }

    /// How many cards.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The cards in either set.
    pub fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    /// The cards in both sets.
    pub fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    /// The cards in this set but not the other.
    pub fn minus(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    /// The card indices, lowest first.
    pub fn iter(self) -> impl Iterator<Item = u8> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            // A bit index of a non-empty set, below 128.
            #[allow(clippy::cast_possible_truncation)]
            let index = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(index)
        })
    }

    /// The cards as typed cards, in pack order.
    pub fn cards<T: Theme>(self) -> impl Iterator<Item = Card<T>> {
        self.iter().map(Card::at)
    }

    /// The card ids, in pack order.
    pub fn ids<T: Theme>(self) -> Vec<&'static str> {
        self.cards::<T>().map(Card::id).collect()
    }
}

impl FromIterator<u8> for CardSet {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        let mut set = CardSet::EMPTY;
        iter.into_iter().for_each(|index| set.insert(index));
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_heroine_appears_five_times_in_each_position_of_the_trios() {
        for heroine in 0..6u8 {
            for place in 0..3 {
                let count = TRIOS.iter().filter(|t| t[place] == heroine).count();
                assert_eq!(count, 5, "heroine {heroine} place {place}");
            }
        }
        for trio in TRIOS {
            assert!(trio[0] != trio[1] && trio[1] != trio[2] && trio[0] != trio[2]);
        }
    }

    #[test]
    fn card_ids_are_unique_kebab_case_and_round_trip() {
        fn check<T: Theme>() {
            let ids: std::collections::BTreeSet<_> = Card::<T>::all().map(Card::id).collect();
            assert_eq!(ids.len(), PACK);
            for card in Card::<T>::all() {
                let id = card.id();
                assert!(id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
                assert_eq!(Card::<T>::from_id(id), Some(card));
                let text = serde_json::to_string(&card).unwrap();
                assert_eq!(serde_json::from_str::<Card<T>>(&text).unwrap(), card);
            }
        }
        check::<Girl>();
        check::<Car>();
        assert!(serde_json::from_str::<Card<Girl>>("\"racing-1\"").is_err());
    }

    #[test]
    fn points_follow_the_printed_values() {
        // trio-01 is Wendy 3, Jinx 2, Robbie 1.
        let trio_01 = FIRST_TRIO;
        assert_eq!(points(trio_01, 0), 3);
        assert_eq!(points(trio_01, 1), 2);
        assert_eq!(points(trio_01, 2), 1);
        assert_eq!(points(trio_01, 3), 0);
        assert_eq!(points(FIRST_JOKER, 5), 4);
        assert_eq!(points(1, 0), 5);
        assert_eq!(points(2, 0), 0);
    }
}

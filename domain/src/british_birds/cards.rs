//! The British Birds pack: eight sets of five birds and four Owls, each card with a stable id,
//! and a player's hand as a bit per card.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Eight sets, A to H.
pub(super) const SETS: usize = 8;
/// Five birds in each set, numbered 1 to 5.
pub(super) const BIRDS_PER_SET: u8 = 5;
/// Bird cards come first in the catalogue, the four Owls after them.
pub(super) const BIRD_CARDS: u8 = 40;
/// 40 birds and 4 Owls.
pub(super) const CARDS: usize = 44;
/// Rule 1: seven cards to each player and seven face up in a row.
pub(super) const HAND: usize = 7;
/// Rule 1: the seven exposed cards.
pub(super) const ROW: usize = 7;
pub(super) const MIN_PLAYERS: usize = 2;
pub(super) const MAX_PLAYERS: usize = 4;
/// Rule 10.
pub(super) const POINTS_PER_SET: u32 = 5;
/// Parlour's end rule: the game ends once the turn has passed this many rounds of the table in a
/// row without a card picked up or a set laid.
pub(super) const DEFAULT_QUIET_ROUNDS: u32 = 10;
pub(super) const BIRD_MASK: u64 = (1 << BIRD_CARDS) - 1;
pub(super) const OWL_MASK: u64 = ((1 << CARDS) - 1) & !BIRD_MASK;

/// Every card's stable id, in catalogue order: `a-1` … `h-5`, then `owl-1` … `owl-4`.
pub(super) const CARD_IDS: [&str; CARDS] = [
    "a-1", "a-2", "a-3", "a-4", "a-5", "b-1", "b-2", "b-3", "b-4", "b-5", "c-1", "c-2", "c-3",
    "c-4", "c-5", "d-1", "d-2", "d-3", "d-4", "d-5", "e-1", "e-2", "e-3", "e-4", "e-5", "f-1",
    "f-2", "f-3", "f-4", "f-5", "g-1", "g-2", "g-3", "g-4", "g-5", "h-1", "h-2", "h-3", "h-4",
    "h-5", "owl-1", "owl-2", "owl-3", "owl-4",
];

/// A set as printed: its letter, Parlour's name for it, its habitat and its five birds.
pub(super) struct SetPrint {
    pub(super) letter: &'static str,
    pub(super) name: &'static str,
    pub(super) habitat: &'static str,
    pub(super) birds: [&'static str; 5],
}

/// The reconstructed deck: real British species, grouped to fit the rule sheet (A–D land, E–H water).
pub(super) const SET_PRINTS: [SetPrint; SETS] = [
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

pub(super) const OWL_NAMES: [&str; 4] = ["Barn Owl", "Tawny Owl", "Little Owl", "Short-eared Owl"];

/// One card of the pack: a bird of a set, or an Owl. Written as its id (`c-4`, `owl-2`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(pub(super) u8);

impl Card {
    /// The card with this stable id.
    pub fn from_id(id: &str) -> Option<Card> {
        CARD_IDS
            .iter()
            .position(|c| *c == id)
            .and_then(|i| u8::try_from(i).ok())
            .map(Card)
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

    pub(super) fn bit(self) -> u64 {
        1 << self.0
    }

    pub(super) fn all() -> impl Iterator<Item = Card> {
        (0..=u8::MAX).take(CARDS).map(Card)
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

/// A card is written as its id: the schema lists them.
impl JsonSchema for Card {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("BritishBirdsCard")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "The id of a British Birds card: `a-1` … `h-5`, `owl-1` … `owl-4`",
            "enum": CARD_IDS.to_vec(),
        })
    }
}

/// A set of five birds with the same letter. Written as its lowercase letter (`a` … `h`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BirdSet(pub(super) u8);

impl BirdSet {
    /// The set's lowercase letter, its stable id.
    pub fn id(self) -> &'static str {
        ["a", "b", "c", "d", "e", "f", "g", "h"][usize::from(self.0)]
    }

    pub(super) fn mask(self) -> u64 {
        0b1_1111 << (self.0 * BIRDS_PER_SET)
    }

    pub(super) fn cards(self) -> impl Iterator<Item = Card> {
        (0..BIRDS_PER_SET).map(move |n| Card(self.0 * BIRDS_PER_SET + n))
    }

    pub(super) fn all() -> impl Iterator<Item = BirdSet> {
        (0..=u8::MAX).take(SETS).map(BirdSet)
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

/// A set is written as its letter: the schema lists them.
impl JsonSchema for BirdSet {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("BirdSet")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<&str> = BirdSet::all().map(BirdSet::id).collect();
        json_schema!({
            "type": "string",
            "description": "A set of five birds, by its letter",
            "enum": ids,
        })
    }
}

/// The cards one player holds, as a bit per card: cheap to copy and to test.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Hand(pub(super) u64);

impl Hand {
    pub(super) fn holds(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }

    pub(super) fn add(&mut self, card: Card) {
        self.0 |= card.bit();
    }

    pub(super) fn take(&mut self, card: Card) {
        self.0 &= !card.bit();
    }

    pub(super) fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub(super) fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(super) fn holds_a_bird(self) -> bool {
        self.0 & BIRD_MASK != 0
    }

    pub(super) fn holds_any_of(self, set: BirdSet) -> bool {
        self.0 & set.mask() != 0
    }

    pub(super) fn first_owl(self) -> Option<Card> {
        let owls = self.0 & OWL_MASK;
        (owls != 0)
            .then(|| u8::try_from(owls.trailing_zeros()).ok().map(Card))
            .flatten()
    }

    pub(super) fn complete_sets(self) -> impl Iterator<Item = BirdSet> {
        BirdSet::all().filter(move |s| self.0 & s.mask() == s.mask())
    }

    pub(super) fn cards(self) -> impl Iterator<Item = Card> {
        Card::all().filter(move |c| self.holds(*c))
    }

    /// The ids held, for tests that compare them with ids written out.
    #[cfg(test)]
    pub(super) fn ids(self) -> Vec<&'static str> {
        self.cards().map(Card::id).collect()
    }
}

//! The two packs: 48 batting cards and 50 bowling cards.
//!
//! The printed card list is lost; this is a reconstruction from the rule sheet's own counts
//! (40 run cards and 8 "How's That" in the batting pack; 36 out cards, 7 "not out" and 7
//! "1 leg bye" in the bowling pack). Cards of one kind are identical; each still has its own
//! stable id (`bat-4-runs-3`, `bowl-caught-5`) so a client can draw it and the log can name it.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

/// Cards in the batting pack.
pub const BATTING_CARDS: usize = 48;
/// Cards in the bowling pack.
pub const BOWLING_CARDS: usize = 50;

/// What a batting card does when a batsman turns it up.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stroke {
    /// Runs to the striker: 1, 2, 3, 4 or 6.
    Runs(u8),
    /// "How's That": the bowler of the over turns up his top card.
    HowsThat,
}

/// How a batsman is out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dismissal {
    /// Bowled.
    Bowled,
    /// Caught.
    Caught,
    /// Stumped.
    Stumped,
    /// Leg before wicket.
    Lbw,
    /// Run out (not credited to the bowler).
    RunOut,
}

impl Dismissal {
    /// Whether the bowler is credited with the wicket (every way but run out, as in cricket).
    pub fn to_bowler(self) -> bool {
        self != Dismissal::RunOut
    }

    /// The word a scorer writes, as Cricsheet spells it.
    pub fn kind(self) -> &'static str {
        match self {
            Dismissal::Bowled => "bowled",
            Dismissal::Caught => "caught",
            Dismissal::Stumped => "stumped",
            Dismissal::Lbw => "lbw",
            Dismissal::RunOut => "run out",
        }
    }
}

/// What a bowling card says when the bowler turns it up after a "How's That".
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The striker is out.
    Out(Dismissal),
    /// The chance is missed; the striker continues.
    NotOut,
    /// One run to extras (not the batsman); the striker continues.
    LegBye,
}

/// One batting card, numbered 0..48: eight of each kind in the order 1, 2, 3, 4, 6 runs,
/// "How's That".
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BatCard(pub u8);

/// One bowling card, numbered 0..50: 8 bowled, 8 caught, 8 stumped, 8 l.b.w., 4 run out,
/// 7 not out, 7 "1 leg bye".
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BowlCard(pub u8);

const RUNS: [u8; 5] = [1, 2, 3, 4, 6];

/// Bowling kinds in pack order: (id word, name, how many, verdict).
const BOWLING_KINDS: [(&str, &str, u8, Verdict); 7] = [
    ("bowled", "Bowled", 8, Verdict::Out(Dismissal::Bowled)),
    ("caught", "Caught", 8, Verdict::Out(Dismissal::Caught)),
    ("stumped", "Stumped", 8, Verdict::Out(Dismissal::Stumped)),
    ("lbw", "L.B.W.", 8, Verdict::Out(Dismissal::Lbw)),
    ("run-out", "Run Out", 4, Verdict::Out(Dismissal::RunOut)),
    ("not-out", "Not Out", 7, Verdict::NotOut),
    ("leg-bye", "1 Leg Bye", 7, Verdict::LegBye),
];

impl BatCard {
    /// Every batting card.
    pub fn all() -> impl Iterator<Item = BatCard> {
        (0..=u8::MAX).take(BATTING_CARDS).map(BatCard)
    }

    /// What the card does.
    pub fn stroke(self) -> Stroke {
        match RUNS.get(usize::from(self.0 / 8)) {
            Some(&runs) => Stroke::Runs(runs),
            None => Stroke::HowsThat,
        }
    }

    /// Runs off the bat (0 for "How's That").
    pub fn runs(self) -> u8 {
        match self.stroke() {
            Stroke::Runs(runs) => runs,
            Stroke::HowsThat => 0,
        }
    }

    /// The stable id, e.g. `bat-1-run-1`, `bat-6-runs-8`, `bat-hows-that-2`.
    pub fn id(self) -> String {
        let copy = self.0 % 8 + 1;
        match self.stroke() {
            Stroke::Runs(1) => format!("bat-1-run-{copy}"),
            Stroke::Runs(runs) => format!("bat-{runs}-runs-{copy}"),
            Stroke::HowsThat => format!("bat-hows-that-{copy}"),
        }
    }

    /// The card with this id.
    pub fn from_id(id: &str) -> Option<BatCard> {
        let rest = id.strip_prefix("bat-")?;
        let (kind, copy) = rest.rsplit_once('-')?;
        let copy: u8 = copy.parse().ok()?;
        if !(1..=8).contains(&copy) {
            return None;
        }
        let group = match kind {
            "hows-that" => 5,
            "1-run" => 0,
            _ => {
                let runs: u8 = kind.strip_suffix("-runs")?.parse().ok()?;
                let group = RUNS.iter().position(|&r| r == runs && r != 1)?;
                u8::try_from(group).ok()?
            }
        };
        Some(BatCard(group * 8 + copy - 1))
    }

    fn name(self) -> String {
        match self.stroke() {
            Stroke::Runs(1) => String::from("1 Run"),
            Stroke::Runs(runs) => format!("{runs} Runs"),
            Stroke::HowsThat => String::from("How's That"),
        }
    }
}

impl BowlCard {
    /// Every bowling card.
    pub fn all() -> impl Iterator<Item = BowlCard> {
        (0..=u8::MAX).take(BOWLING_CARDS).map(BowlCard)
    }

    /// The kind's index in `BOWLING_KINDS` and the copy number (1-based).
    fn kind(self) -> (usize, u8) {
        let mut first = 0u8;
        for (index, (_, _, count, _)) in BOWLING_KINDS.iter().enumerate() {
            if self.0 < first + count {
                return (index, self.0 - first + 1);
            }
            first += count;
        }
        (BOWLING_KINDS.len() - 1, 1)
    }

    /// What the card says.
    pub fn verdict(self) -> Verdict {
        BOWLING_KINDS[self.kind().0].3
    }

    /// The stable id, e.g. `bowl-caught-5`, `bowl-leg-bye-7`.
    pub fn id(self) -> String {
        let (kind, copy) = self.kind();
        format!("bowl-{}-{copy}", BOWLING_KINDS[kind].0)
    }

    /// The card with this id.
    pub fn from_id(id: &str) -> Option<BowlCard> {
        let rest = id.strip_prefix("bowl-")?;
        let (word, copy) = rest.rsplit_once('-')?;
        let copy: u8 = copy.parse().ok()?;
        let mut first = 0u8;
        for (kind, _, count, _) in BOWLING_KINDS {
            if kind == word {
                return (1..=count)
                    .contains(&copy)
                    .then_some(BowlCard(first + copy - 1));
            }
            first += count;
        }
        None
    }
}

/// The catalogue of all 98 cards: `{"id", "name", "pack", ...}`.
pub fn catalogue() -> Value {
    let batting = BatCard::all().map(|card| {
        json!({
            "id": card.id(),
            "name": card.name(),
            "pack": "batting",
            "runs": card.runs(),
            "hows_that": card.stroke() == Stroke::HowsThat,
        })
    });
    let bowling = BowlCard::all().map(|card| {
        let (kind, _) = card.kind();
        let (out, leg_bye) = match card.verdict() {
            Verdict::Out(how) => (Some(how.kind()), false),
            Verdict::NotOut => (None, false),
            Verdict::LegBye => (None, true),
        };
        json!({
            "id": card.id(),
            "name": BOWLING_KINDS[kind].1,
            "pack": "bowling",
            "out": out,
            "leg_bye": leg_bye,
        })
    });
    Value::Array(batting.chain(bowling).collect())
}

impl Serialize for BatCard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.id())
    }
}

impl<'de> Deserialize<'de> for BatCard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        BatCard::from_id(&id)
            .ok_or_else(|| serde::de::Error::custom(format!("no batting card {id}")))
    }
}

impl Serialize for BowlCard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.id())
    }
}

impl<'de> Deserialize<'de> for BowlCard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        BowlCard::from_id(&id)
            .ok_or_else(|| serde::de::Error::custom(format!("no bowling card {id}")))
    }
}

/// A batting card is written as its id: the schema lists them.
impl JsonSchema for BatCard {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("BatCard")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<String> = BatCard::all().map(BatCard::id).collect();
        json_schema!({
            "type": "string",
            "description": "The id of a batting card, e.g. `bat-4-runs-3`",
            "enum": ids,
        })
    }
}

/// A bowling card is written as its id: the schema lists them.
impl JsonSchema for BowlCard {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("BowlCard")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<String> = BowlCard::all().map(BowlCard::id).collect();
        json_schema!({
            "type": "string",
            "description": "The id of a bowling card, e.g. `bowl-caught-5`",
            "enum": ids,
        })
    }
}

/// A pack on the table: its order since the last shuffle, and how many cards have been turned
/// up from each half. Undivided, the whole pack is one pile (half 0). Divided (the team game),
/// the first half of the shuffled order is Batsman No. 1's (or the first end's bowler's) and
/// the rest the other's; a card is only ever taken from the top of a pile, and played cards
/// return only at the next shuffle, so this is all the pack's state, with no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "PackData", try_from = "PackData")]
pub struct Pack<const N: usize> {
    order: [u8; N],
    taken: [u8; 2],
    divided: bool,
}

/// A pack as a snapshot stores it: serde has no arrays of any length `N`, so the order is a
/// list, and a list of the wrong length is refused when read back.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PackData {
    order: Vec<u8>,
    taken: [u8; 2],
    divided: bool,
}

impl<const N: usize> From<Pack<N>> for PackData {
    fn from(pack: Pack<N>) -> PackData {
        PackData {
            order: pack.order.to_vec(),
            taken: pack.taken,
            divided: pack.divided,
        }
    }
}

impl<const N: usize> TryFrom<PackData> for Pack<N> {
    type Error = String;

    fn try_from(data: PackData) -> Result<Pack<N>, String> {
        let order: [u8; N] = data
            .order
            .try_into()
            .map_err(|order: Vec<u8>| format!("a pack of {N} cards, not {}", order.len()))?;
        Ok(Pack {
            order,
            taken: data.taken,
            divided: data.divided,
        })
    }
}

impl<const N: usize> Pack<N> {
    /// A fresh pack in catalogue order (it is shuffled before any card is played).
    pub fn new(divided: bool) -> Self {
        let mut order = [0u8; N];
        for (slot, i) in order.iter_mut().zip(0..=u8::MAX) {
            *slot = i;
        }
        Pack {
            order,
            taken: [0, 0],
            divided,
        }
    }

    /// Whether the pack is split between two holders.
    pub fn divided(&self) -> bool {
        self.divided
    }

    fn pile(&self, half: usize) -> usize {
        if self.divided {
            half.min(1)
        } else {
            0
        }
    }

    fn bounds(&self, pile: usize) -> (usize, usize) {
        match (self.divided, pile) {
            (false, _) => (0, N),
            (true, 0) => (0, N / 2),
            (true, _) => (N / 2, N),
        }
    }

    /// The top card of the pile held at `half` (0 or 1; ignored when undivided).
    pub fn top(&self, half: usize) -> Option<u8> {
        let pile = self.pile(half);
        let (start, end) = self.bounds(pile);
        let next = start + usize::from(self.taken[pile]);
        (next < end).then(|| self.order[next])
    }

    /// Turns up the top card of that pile.
    pub fn take(&mut self, half: usize) -> Option<u8> {
        let card = self.top(half)?;
        self.taken[self.pile(half)] += 1;
        Some(card)
    }

    /// Cards still face down in that pile.
    pub fn remaining(&self, half: usize) -> usize {
        let pile = self.pile(half);
        let (start, end) = self.bounds(pile);
        end - start - usize::from(self.taken[pile])
    }

    /// Cards turned up since the last shuffle.
    pub fn played(&self) -> usize {
        usize::from(self.taken[0]) + usize::from(self.taken[1])
    }

    /// Gathers every card and lays them in this shuffled order (top first).
    pub fn deal(&mut self, order: impl IntoIterator<Item = u8>) {
        for (slot, card) in self.order.iter_mut().zip(order) {
            *slot = card;
        }
        self.taken = [0, 0];
    }

    /// Whether every card of the pack is here exactly once.
    pub fn accounted_for(&self) -> bool {
        let mut seen = [false; N];
        for &card in &self.order {
            match seen.get_mut(usize::from(card)) {
                Some(slot) if !*slot => *slot = true,
                _ => return false,
            }
        }
        let piles = if self.divided { 2 } else { 1 };
        (0..piles).all(|pile| {
            let (start, end) = self.bounds(pile);
            start + usize::from(self.taken[pile]) <= end
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_batting_pack_has_eight_of_each_run_and_eight_hows_that() {
        let mut counts = std::collections::BTreeMap::new();
        for card in BatCard::all() {
            *counts.entry(format!("{:?}", card.stroke())).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 6);
        assert!(counts.values().all(|&n| n == 8));
        let runs: u32 = BatCard::all().map(|c| u32::from(c.runs())).sum();
        assert_eq!(runs, 8 * (1 + 2 + 3 + 4 + 6));
    }

    #[test]
    fn the_bowling_pack_has_thirty_six_outs_seven_not_outs_and_seven_leg_byes() {
        let verdicts: Vec<Verdict> = BowlCard::all().map(BowlCard::verdict).collect();
        let outs = verdicts
            .iter()
            .filter(|v| matches!(v, Verdict::Out(_)))
            .count();
        let run_outs = verdicts
            .iter()
            .filter(|v| **v == Verdict::Out(Dismissal::RunOut))
            .count();
        assert_eq!(outs, 36);
        assert_eq!(run_outs, 4);
        assert_eq!(
            verdicts.iter().filter(|v| **v == Verdict::NotOut).count(),
            7
        );
        assert_eq!(
            verdicts.iter().filter(|v| **v == Verdict::LegBye).count(),
            7
        );
    }

    #[test]
    fn every_card_id_is_unique_and_round_trips() {
        let mut ids = std::collections::BTreeSet::new();
        for card in BatCard::all() {
            assert_eq!(BatCard::from_id(&card.id()), Some(card));
            assert!(ids.insert(card.id()));
        }
        for card in BowlCard::all() {
            assert_eq!(BowlCard::from_id(&card.id()), Some(card));
            assert!(ids.insert(card.id()));
        }
        assert_eq!(ids.len(), 98);
        assert_eq!(BatCard(0).id(), "bat-1-run-1");
        assert_eq!(BatCard(47).id(), "bat-hows-that-8");
        assert_eq!(BowlCard(49).id(), "bowl-leg-bye-7");
        assert_eq!(BatCard::from_id("bat-5-runs-1"), None);
        assert_eq!(BowlCard::from_id("bowl-run-out-5"), None);
    }

    #[test]
    fn a_divided_pack_gives_each_holder_half() {
        let mut pack = Pack::<48>::new(true);
        pack.deal((0..48).rev());
        assert_eq!(pack.top(0), Some(47));
        assert_eq!(pack.top(1), Some(23));
        assert_eq!(pack.take(1), Some(23));
        assert_eq!(pack.remaining(1), 23);
        assert_eq!(pack.remaining(0), 24);
        assert!(pack.accounted_for());
        let whole = Pack::<50>::new(false);
        assert_eq!(whole.remaining(1), 50);
    }
}

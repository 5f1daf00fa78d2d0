//! Seeded chance: every shuffle in every game comes from here.
//!
//! A game has one secret 32-byte [`Seed`]. Each shuffle draws from its own ChaCha20 stream of
//! that seed, numbered `(seq << 16) | k`, where `seq` is the sequence number of the first event
//! of the batch being decided and `k` counts the shuffles made while deciding it. The shuffle
//! sorts its input by each item's JSON text, then runs Fisher–Yates from the top down with
//! unbiased (rejection-sampled) draws from the stream. The result is recorded in the event as a
//! [`Shuffled`] `{"stream", "order"}` object, so `evolve` never needs the RNG and anyone who
//! learns the seed after the game can re-run every shuffle from the log alone.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

/// A game's secret seed: 32 bytes, written as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// Parses 64 hex digits.
    pub fn from_hex(text: &str) -> Result<Self, SeedError> {
        let bytes = hex::decode(text).map_err(|_| SeedError)?;
        let bytes: [u8; 32] = bytes.try_into().map_err(|_| SeedError)?;
        Ok(Seed(bytes))
    }

    /// The seed as 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The SHA-256 of the 32 seed bytes, in hex: the public commitment of games of chain
    /// format 1. (Format 2 blinds it with the server's salt, so a chosen seed cannot be looked
    /// up from it; see `docs/audit.md`.)
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }
}

impl std::fmt::Debug for Seed {
    // A seed is a secret until the game ends; keep it out of logs and panics.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Seed(..)")
    }
}

/// A seed that is not 64 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a seed is 64 hexadecimal digits (32 bytes)")]
pub struct SeedError;

/// The outcome of one shuffle, as recorded in an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shuffled<T> {
    /// The ChaCha20 stream of the game's seed that produced this order.
    pub stream: u64,
    /// The items in shuffled order, top of the pack first.
    pub order: Vec<T>,
}

/// The source of every random outcome while one batch of events is decided.
#[derive(Debug, Clone)]
pub struct Chance {
    seed: Seed,
    first_seq: u64,
    shuffles: u64,
}

impl Chance {
    /// Chance for the batch whose first event will have sequence number `first_seq`.
    pub fn new(seed: Seed, first_seq: u64) -> Self {
        Chance {
            seed,
            first_seq,
            shuffles: 0,
        }
    }

    /// Shuffles `items` (in any order: they are sorted first) and records the result.
    pub fn shuffle<T: Clone + Serialize>(&mut self, items: &[T]) -> Shuffled<T> {
        let stream = (self.first_seq << 16) | (self.shuffles & 0xffff);
        self.shuffles += 1;
        Shuffled {
            stream,
            order: shuffle_with_stream(&self.seed, stream, items),
        }
    }
}

/// Re-runs the shuffle of `items` on `stream` of `seed`: what an auditor does with a revealed
/// seed and a recorded [`Shuffled`] (passing its `order` as `items`).
pub fn shuffle_with_stream<T: Clone + Serialize>(seed: &Seed, stream: u64, items: &[T]) -> Vec<T> {
    let mut keyed: Vec<(String, T)> = items
        .iter()
        .map(|item| (json_text(item), item.clone()))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let mut order: Vec<T> = keyed.into_iter().map(|(_, item)| item).collect();
    let mut rng = ChaCha20Rng::from_seed(seed.0);
    rng.set_stream(stream);
    for top in (1..order.len()).rev() {
        // Below `top + 1`, a usize, so it fits one.
        #[allow(clippy::cast_possible_truncation)]
        let pick = below(&mut rng, top as u64 + 1) as usize;
        order.swap(top, pick);
    }
    order
}

/// Checks a recorded shuffle against the seed.
pub fn verify_shuffle<T: Clone + Serialize + PartialEq>(
    seed: &Seed,
    shuffled: &Shuffled<T>,
) -> bool {
    shuffle_with_stream(seed, shuffled.stream, &shuffled.order) == shuffled.order
}

fn json_text<T: Serialize>(item: &T) -> String {
    // Serialising a card id or a number cannot fail; an empty key would only weaken the
    // canonical order, never the shuffle's fairness.
    serde_json::to_string(item).unwrap_or_default()
}

/// A uniform draw from `0..n` (n > 0), rejecting the top of the u64 range that would bias it.
fn below(rng: &mut ChaCha20Rng, n: u64) -> u64 {
    let rejected = (u64::MAX % n).wrapping_add(1) % n;
    let bound = 0u64.wrapping_sub(rejected);
    loop {
        let draw = rng.next_u64();
        if rejected == 0 || draw < bound {
            return draw % n;
        }
    }
}

impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Seed::from_hex(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(byte: u8) -> Seed {
        Seed([byte; 32])
    }

    #[test]
    fn the_shuffle_of_ten_numbers_is_pinned_for_seed_zero() {
        // Golden values: if this changes, every recorded game would fail its audit.
        let items: Vec<u32> = (0..10).collect();
        let order = shuffle_with_stream(&seed(0), 1 << 16, &items);
        assert_eq!(order, vec![7, 9, 0, 8, 6, 5, 1, 2, 3, 4]);
    }

    #[test]
    fn the_shuffle_of_card_ids_is_pinned_for_a_patterned_seed() {
        let mut bytes = [0u8; 32];
        for (b, i) in bytes.iter_mut().zip(0..=u8::MAX) {
            *b = i;
        }
        let items = ["owl", "robin", "wren", "jay", "kestrel", "puffin"];
        let order = shuffle_with_stream(&Seed(bytes), 7, &items);
        assert_eq!(
            order,
            vec!["puffin", "owl", "wren", "jay", "kestrel", "robin"]
        );
    }

    #[test]
    fn the_input_order_does_not_matter() {
        let a = shuffle_with_stream(&seed(9), 3, &[1, 2, 3, 4, 5]);
        let b = shuffle_with_stream(&seed(9), 3, &[5, 3, 1, 4, 2]);
        assert_eq!(a, b);
    }

    #[test]
    fn different_streams_and_seeds_give_different_orders() {
        let items: Vec<u32> = (0..44).collect();
        let base = shuffle_with_stream(&seed(1), 1, &items);
        assert_ne!(base, shuffle_with_stream(&seed(1), 2, &items));
        assert_ne!(base, shuffle_with_stream(&seed(2), 1, &items));
    }

    #[test]
    fn each_shuffle_in_a_batch_has_its_own_stream() {
        let mut chance = Chance::new(seed(4), 12);
        let first = chance.shuffle(&[1, 2, 3]);
        let second = chance.shuffle(&[1, 2, 3]);
        assert_eq!(first.stream, 12 << 16);
        assert_eq!(second.stream, (12 << 16) | 1);
        assert!(verify_shuffle(&seed(4), &first));
        assert!(verify_shuffle(&seed(4), &second));
        assert!(
            !verify_shuffle(
                &seed(5),
                &Shuffled {
                    stream: first.stream,
                    order: vec![3, 2, 1]
                }
            ) || first.order == vec![3, 2, 1]
        );
    }

    #[test]
    fn a_tampered_order_fails_verification() {
        let mut chance = Chance::new(seed(8), 1);
        let mut shuffled = chance.shuffle(&(0..20).collect::<Vec<u32>>());
        shuffled.order.swap(0, 1);
        assert!(!verify_shuffle(&seed(8), &shuffled));
    }

    #[test]
    fn every_position_is_reachable_and_roughly_uniform() {
        // 4 items, 2400 shuffles: each item should land on top about 600 times.
        let mut counts = [0u32; 4];
        for stream in 0..2400 {
            let order = shuffle_with_stream(&seed(3), stream, &[0usize, 1, 2, 3]);
            counts[order[0]] += 1;
        }
        for count in counts {
            assert!((480..=720).contains(&count), "{counts:?}");
        }
    }

    #[test]
    fn seeds_round_trip_through_hex_and_reject_bad_text() {
        let s = seed(0xab);
        assert_eq!(Seed::from_hex(&s.to_hex()), Ok(s));
        assert_eq!(Seed::from_hex("abc"), Err(SeedError));
        assert_eq!(Seed::from_hex(&"zz".repeat(32)), Err(SeedError));
        assert_eq!(format!("{s:?}"), "Seed(..)");
    }

    #[test]
    fn the_commitment_is_the_sha256_of_the_seed_bytes() {
        assert_eq!(
            Seed([0; 32]).commitment(),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }
}

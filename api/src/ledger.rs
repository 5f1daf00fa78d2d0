//! The ledger's own records: a game as it was created and an entry of its log, as stored and
//! as hashed, with the one text form of a time both use. They sit below both the hash chain
//! (`chain`), which seals them, and the store, which keeps them, so that neither depends on
//! the other for them.

use chrono::{DateTime, Utc};
use parlour_domain::{Player, Seed};
use serde_json::Value;
use uuid::Uuid;

/// A game as it was created: everything needed, with the log, to rebuild it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    /// The game's id.
    pub id: Uuid,
    /// The catalogue id of the game played (`girl`, `car`, ...).
    pub game: String,
    /// The players in seat order.
    pub players: Vec<Player>,
    /// The options it was created with.
    pub options: Value,
    /// The secret seed every shuffle comes from.
    pub seed: Seed,
    /// The commitment to the seed published at creation: SHA-256 of the seed and the salt
    /// (format 2), or of the seed alone (format 1).
    pub seed_commitment: String,
    /// The hash chain's format (`chain.rs`): 2 for games created now, 1 for older ones.
    pub chain: u8,
    /// 32 bytes of server randomness, secret until the game is over, that blind the seed's
    /// commitment and every event's seal (format 2; `None` for format 1).
    pub salt: Option<[u8; 32]>,
    /// The version of the game's rules it was created under (it replays under them).
    pub rules_version: u32,
    /// When the game was created.
    pub created_at: DateTime<Utc>,
}

/// One event of the log, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// Position in the game's log, from 1.
    pub seq: u64,
    /// The event type.
    pub kind: String,
    /// The seat whose action produced it; `None` for the opening deal.
    pub actor: Option<u8>,
    /// The event data.
    pub data: Value,
    /// The action that produced the batch this event opens, if it opens one.
    pub command: Option<Value>,
    /// When it was appended (to the microsecond).
    pub at: DateTime<Utc>,
    /// The commitment to `data` and `command` that the hash covers instead of them (format 2).
    pub sealed: Option<String>,
    /// The hash of the previous event (or of the game's genesis record).
    pub prev_hash: String,
    /// The hash of this event, chained to `prev_hash`.
    pub hash: String,
    /// The version of this event type's data shape: 1 for every shape so far. When a shape
    /// changes, new events are written with the next version and the reader upcasts older ones.
    pub version: u16,
}

/// The one text form of a time used in hashes and in SQLite.
pub fn time_text(at: &DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

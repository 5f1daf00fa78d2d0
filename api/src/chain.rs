//! The hash chain over the log, so that any change to a stored event is detectable, in the
//! two formats a game may have been created under (`docs/audit.md` specifies both byte for
//! byte).
//!
//! **Format 2** (every game created now) hides everything secret until the game is over. Each
//! event's hidden parts (its data and the action behind it) enter the chain only through a
//! *seal*, a SHA-256 commitment under a per-event nonce derived from the game's salt, 32 bytes
//! of server randomness revealed with the seed at the end:
//!
//! ```text
//! nonce(seq)  = HMAC-SHA256(key = salt, message = seq as 8 big-endian bytes)
//! sealed      = SHA-256(nonce(seq) || canonical {"command", "data"})
//! hash(n)     = SHA-256(prev_hash(n) as hex text || canonical {"actor","at","game","sealed","seq","type"[,"v"]})
//! genesis     = SHA-256(canonical {"chain":2,"game","id","options","players","rules_version","seed_commitment"})
//! commitment  = SHA-256(seed || salt)
//! ```
//!
//! So during play a hash says nothing of a hidden card (trying every candidate needs the salt),
//! yet anyone can check each link, and after the end anyone can recompute everything.
//!
//! **Format 1** (games created before) hashed the event's whole canonical JSON with no secret;
//! those games keep verifying under it, and their hashes are shown only once they are over.

use hmac::{Hmac, Mac};
use parlour_domain::Seed;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::ledger::{time_text, GameRecord, StoredEvent};

/// The chain format of games created now.
pub const CURRENT_FORMAT: u8 = 2;

/// Writes `value` as JSON with object keys sorted at every depth and no white space.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn sha256_hex(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hex::encode(hasher.finalize())
}

/// The public commitment to a format-2 game's seed: it hides even a seed the creator chose
/// from a list of obvious ones, because the salt is the server's and secret until the end.
/// (Format 1 committed to the seed alone: `Seed::commitment`.)
pub fn seed_commitment(seed: &Seed, salt: &[u8; 32]) -> String {
    sha256_hex(&[&seed.0, salt])
}

/// Whether the record's published commitment is the one its seed (and salt) give.
pub fn commitment_holds(game: &GameRecord) -> bool {
    let expected = match (game.chain, &game.salt) {
        (1, _) => game.seed.commitment(),
        (_, Some(salt)) => seed_commitment(&game.seed, salt),
        (_, None) => return false,
    };
    expected == game.seed_commitment
}

/// The hash the chain starts from: it binds the log to the game's creation record.
pub fn genesis_hash(game: &GameRecord) -> String {
    let record = match game.chain {
        1 => json!({
            "id": game.id.to_string(),
            "game": game.game,
            "players": game.players,
            "options": game.options,
            "seed_commitment": game.seed_commitment,
        }),
        format => json!({
            "chain": format,
            "id": game.id.to_string(),
            "game": game.game,
            "players": game.players,
            "options": game.options,
            "rules_version": game.rules_version,
            "seed_commitment": game.seed_commitment,
        }),
    };
    sha256_hex(&[canonical_json(&record).as_bytes()])
}

/// The secret nonce that blinds event `seq`'s seal.
fn nonce(salt: &[u8; 32], seq: u64) -> Result<[u8; 32], ChainError> {
    let mut mac = Hmac::<Sha256>::new_from_slice(salt).map_err(|_| ChainError::NoSalt)?;
    mac.update(&seq.to_be_bytes());
    Ok(mac.finalize().into_bytes().into())
}

/// The seal of a format-2 event: a commitment to its data and the action behind it.
pub fn seal(
    salt: &[u8; 32],
    seq: u64,
    data: &Value,
    command: Option<&Value>,
) -> Result<String, ChainError> {
    let hidden = json!({"command": command, "data": data});
    Ok(sha256_hex(&[
        &nonce(salt, seq)?,
        canonical_json(&hidden).as_bytes(),
    ]))
}

/// Why a link cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    /// A format-2 game without its salt (the store lost it).
    #[error("a format-2 game has no salt")]
    NoSalt,
    /// A format-2 event without its seal.
    #[error("a format-2 event has no seal")]
    NoSeal,
    /// A format the server does not know.
    #[error("unknown chain format {0}")]
    UnknownFormat(u8),
}

/// The hash of one event, given the hash before it (in `event.prev_hash`) and, for format 2,
/// its seal (in `event.sealed`).
pub fn event_hash(game: &GameRecord, event: &StoredEvent) -> Result<String, ChainError> {
    let body = match game.chain {
        1 => json!({
            "game": game.id.to_string(),
            "seq": event.seq,
            "type": event.kind,
            "actor": event.actor,
            "data": event.data,
            "command": event.command,
            "at": time_text(&event.at),
        }),
        2 => {
            let mut body = json!({
                "game": game.id.to_string(),
                "seq": event.seq,
                "type": event.kind,
                "actor": event.actor,
                "at": time_text(&event.at),
                "sealed": event.sealed.as_deref().ok_or(ChainError::NoSeal)?,
            });
            // The shape's version is bound from version 2 on; version 1, what every event
            // had before versions were recorded, hashes as it always did.
            if event.version != 1 {
                body["v"] = json!(event.version);
            }
            body
        }
        other => return Err(ChainError::UnknownFormat(other)),
    };
    Ok(sha256_hex(&[
        event.prev_hash.as_bytes(),
        canonical_json(&body).as_bytes(),
    ]))
}

/// Seals (for format 2) and hashes a new event whose `prev_hash` is set.
pub fn link(game: &GameRecord, event: &mut StoredEvent) -> Result<(), ChainError> {
    if game.chain >= 2 {
        let salt = game.salt.as_ref().ok_or(ChainError::NoSalt)?;
        event.sealed = Some(seal(salt, event.seq, &event.data, event.command.as_ref())?);
    }
    event.hash = event_hash(game, event)?;
    Ok(())
}

/// Where a chain is broken, if it is: checks every link and, for format 2, every seal.
pub fn verify(game: &GameRecord, events: &[StoredEvent]) -> Result<String, (u64, String)> {
    let mut prev = genesis_hash(game);
    for (i, event) in events.iter().enumerate() {
        let expected_seq = i as u64 + 1;
        if event.seq != expected_seq {
            return Err((event.seq, format!("expected event {expected_seq} here")));
        }
        if event.prev_hash != prev {
            return Err((
                event.seq,
                "its prev_hash is not the hash of the event before it".into(),
            ));
        }
        if game.chain >= 2 {
            let salt = game
                .salt
                .as_ref()
                .ok_or((event.seq, "the game has no salt".into()))?;
            let sealed = seal(salt, event.seq, &event.data, event.command.as_ref())
                .map_err(|e| (event.seq, e.to_string()))?;
            if event.sealed.as_deref() != Some(sealed.as_str()) {
                return Err((
                    event.seq,
                    "its seal does not match its data and command".into(),
                ));
            }
        }
        let hash = event_hash(game, event).map_err(|e| (event.seq, e.to_string()))?;
        if event.hash != hash {
            return Err((event.seq, "its hash does not match its contents".into()));
        }
        prev = hash;
    }
    Ok(prev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let value = json!({"b": 1, "a": {"z": [1, {"y": 2, "x": "é"}], "c": null}});
        assert_eq!(
            canonical_json(&value),
            r#"{"a":{"c":null,"z":[1,{"x":"é","y":2}]},"b":1}"#
        );
    }

    #[test]
    fn seals_and_commitments_match_the_values_docs_audit_md_quotes() {
        // Computed independently with Python's hmac and hashlib.
        assert_eq!(
            hex::encode(nonce(&[0u8; 32], 1).unwrap()),
            "a4a11ce5fbe8f96bf3028035286c2c9274cd4259cbc224e37a73d971923903d3"
        );
        assert_eq!(
            seal(&[0u8; 32], 1, &json!({"x": 1}), None).unwrap(),
            "11d36600345c1db3c3b15cea395fca1f418f1f57fe1cb15b0951feb21bc4d9fb"
        );
        assert_eq!(
            seed_commitment(&Seed([0u8; 32]), &[0u8; 32]),
            "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b"
        );
        assert_ne!(nonce(&[0u8; 32], 1), nonce(&[0u8; 32], 2));
        assert_ne!(nonce(&[0u8; 32], 1), nonce(&[1u8; 32], 1));
    }
}

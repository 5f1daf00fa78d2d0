//! The hash chain over the log, so that any change to a stored event is detectable.
//!
//! `hash(n) = SHA-256(prev_hash(n) as hex text || canonical JSON of event n)`, where the
//! canonical JSON is `{"actor","at","command","data","game","seq","type"}` with object keys
//! sorted at every depth and no white space, and `prev_hash(1)` is the genesis hash: the
//! SHA-256 of the canonical JSON of the game's creation record
//! `{"game","id","options","players","seed_commitment"}`. `docs/audit.md` shows how to check
//! it by hand.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::store::{time_text, GameRecord, StoredEvent};

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

/// The hash the chain starts from: it binds the log to the game's creation record.
pub fn genesis_hash(game: &GameRecord) -> String {
    let record = json!({
        "id": game.id.to_string(),
        "game": game.game,
        "players": game.players,
        "options": game.options,
        "seed_commitment": game.seed_commitment,
    });
    sha256_hex(&[canonical_json(&record).as_bytes()])
}

/// The hash of one event, given the hash before it.
pub fn event_hash(game: Uuid, event: &StoredEvent) -> String {
    let body = json!({
        "game": game.to_string(),
        "seq": event.seq,
        "type": event.kind,
        "actor": event.actor,
        "data": event.data,
        "command": event.command,
        "at": time_text(&event.at),
    });
    sha256_hex(&[event.prev_hash.as_bytes(), canonical_json(&body).as_bytes()])
}

/// Where a chain is broken, if it is.
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
        let hash = event_hash(game.id, event);
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
}

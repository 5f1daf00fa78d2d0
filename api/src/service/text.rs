//! What text the server accepts. Names, options and actions are shown to other players and
//! kept in the log for ever, and Postgres cannot store a NUL in a text column: so before any
//! body is parsed by a game, every string in it (and every object key) is checked here, the
//! same on both backends.

use serde_json::Value;

use super::{Result, ServiceError};

/// Longest player name, in characters (after trimming).
pub const MAX_NAME_CHARS: usize = 64;
/// Longest game id, in characters.
pub const MAX_GAME_ID_CHARS: usize = 64;
/// Longest string anywhere in options or an action, in characters: far beyond any card id,
/// team or player name a game uses.
pub const MAX_STRING_CHARS: usize = 256;

fn refuse(field: &str, reason: impl Into<String>) -> ServiceError {
    ServiceError::InvalidText {
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// Checks one text: at most `max` characters, no control character (Unicode `Cc`: U+0000 to
/// U+001F and U+007F to U+009F).
pub fn check_text(field: &str, text: &str, max: usize) -> Result<()> {
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(refuse(
            field,
            format!("holds the control character U+{:04X}", u32::from(c)),
        ));
    }
    if text.chars().count() > max {
        return Err(refuse(field, format!("is longer than {max} characters")));
    }
    Ok(())
}

/// A player's name as it will be kept: trimmed of surrounding white space (a stray tab or
/// line break at either end included), then 1 to `MAX_NAME_CHARS` characters with no control
/// character.
pub fn player_name(field: &str, name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(refuse(field, "is empty (a name needs a visible character)"));
    }
    check_text(field, name, MAX_NAME_CHARS)?;
    Ok(name.to_string())
}

/// Checks every string and every object key in `value`, however deeply nested, as
/// `check_text` does with `MAX_STRING_CHARS`. `root` names the value in a refusal (`options`;
/// empty for an action body, whose fields are named alone).
pub fn check_strings(root: &str, value: &Value) -> Result<()> {
    let mut path = root.to_string();
    walk(&mut path, value)
}

fn walk(path: &mut String, value: &Value) -> Result<()> {
    match value {
        Value::String(text) => check_text(shown(path), text, MAX_STRING_CHARS),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(path, item)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                // The key is checked before it becomes part of a name shown in a refusal.
                check_text(
                    &format!("{}(a field name)", shown_prefix(&path[..len])),
                    key,
                    MAX_STRING_CHARS,
                )?;
                path.push_str(key);
                walk(path, item)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(()),
    }
}

fn shown(path: &str) -> &str {
    if path.is_empty() {
        "the body"
    } else {
        path
    }
}

fn shown_prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(result: Result<()>) -> String {
        match result {
            Err(ServiceError::InvalidText { field, .. }) => field,
            other => panic!("not refused as text: {other:?}"),
        }
    }

    #[test]
    fn a_name_is_trimmed_and_refused_when_empty_too_long_or_holding_a_control_character() {
        assert_eq!(player_name("n", "  Ann \t\n").unwrap(), "Ann");
        assert!(player_name("n", "tab\there").is_err());
        assert!(player_name("n", "   ").is_err());
        assert!(player_name("n", "a\u{0}b").is_err());
        assert!(player_name("n", "line\nbreak").is_err());
        assert!(player_name("n", "\u{85}").is_err());
        assert!(player_name("n", &"x".repeat(64)).is_ok());
        assert!(player_name("n", &"x".repeat(65)).is_err());
        assert_eq!(
            player_name("n", "Zoë 名前 a\u{2028}b").unwrap(),
            "Zoë 名前 a\u{2028}b"
        );
    }

    #[test]
    fn every_nested_string_and_key_is_checked_and_named_in_the_refusal() {
        assert!(check_strings("options", &json!({"a": [1, "ok", {"b": null}]})).is_ok());
        assert_eq!(
            field(check_strings(
                "options",
                &json!({"home": {"players": ["A", "B\u{0}"]}})
            )),
            "options.home.players[1]"
        );
        assert_eq!(field(check_strings("", &json!({"note": "\u{7}"}))), "note");
        assert_eq!(
            field(check_strings("", &json!({"a\u{0}": 1}))),
            "(a field name)"
        );
        assert_eq!(
            field(check_strings("", &json!({"x": {"k\u{1}": 1}}))),
            "x.(a field name)"
        );
        assert_eq!(field(check_strings("", &json!("\u{0}"))), "the body");
        assert_eq!(
            field(check_strings("", &json!({"pad": "x".repeat(257)}))),
            "pad"
        );
    }
}

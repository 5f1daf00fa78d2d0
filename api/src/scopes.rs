//! What an account token may do: its scopes (issue 39).
//!
//! A token the player signs in with holds every scope; a token minted for an app, or granted
//! to one through OAuth, holds the ones asked for and approved. Each operation that takes an
//! account token needs one scope (or none, for `GET /v1/me`), declared once on its route in
//! the OpenAPI document (`security: [{account_token: [scope]}]`) and checked where the
//! handler authenticates; a test holds the two together for every operation.

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One thing an account token may be allowed to do.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
pub enum Scope {
    /// Read games as the player's seat sees them, the inbox, notices and streams.
    #[serde(rename = "games:read")]
    GamesRead,
    /// Move, resign, claim a seat offered to the player, hand a seat to a bot and back.
    #[serde(rename = "games:play")]
    GamesPlay,
    /// Host tables, offer and withdraw seats, abort a table, start matches.
    #[serde(rename = "games:host")]
    GamesHost,
    /// The account's webhooks and their deliveries.
    #[serde(rename = "webhooks:manage")]
    WebhooksManage,
    /// The account itself: tokens, apps, vacation, passkeys, addresses, push subscriptions,
    /// notice preferences, sign-in codes.
    #[serde(rename = "account:manage")]
    AccountManage,
}

impl Scope {
    /// Every scope, in the order the documents list them.
    pub const ALL: [Scope; 5] = [
        Scope::GamesRead,
        Scope::GamesPlay,
        Scope::GamesHost,
        Scope::WebhooksManage,
        Scope::AccountManage,
    ];

    /// Its name on the wire, in the database and in OAuth's `scope` parameter.
    pub fn name(self) -> &'static str {
        match self {
            Scope::GamesRead => "games:read",
            Scope::GamesPlay => "games:play",
            Scope::GamesHost => "games:host",
            Scope::WebhooksManage => "webhooks:manage",
            Scope::AccountManage => "account:manage",
        }
    }

    /// The scope named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.name() == name)
    }

    /// What it allows, in a sentence for the consent page and the OpenAPI document.
    pub fn description(self) -> &'static str {
        match self {
            Scope::GamesRead => "Read your games, your inbox and your notices",
            Scope::GamesPlay => {
                "Play in your seats: move, resign, take a seat offered to you, hand a seat to a bot"
            }
            Scope::GamesHost => "Host tables, offer seats, abort your tables and start matches",
            Scope::WebhooksManage => "Add, change and remove your webhooks",
            Scope::AccountManage => {
                "Manage your account: tokens, apps, vacation, passkeys, email addresses, notices"
            }
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scopes(u8);

impl Scopes {
    /// Every scope: what a token the player signs in with holds.
    pub fn all() -> Scopes {
        Scope::ALL.into_iter().collect()
    }

    /// Whether `scope` is in the set.
    pub fn has(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// Whether every scope of `other` is in this set.
    pub fn covers(self, other: Scopes) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set has no scope.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set holds every scope.
    pub fn is_all(self) -> bool {
        self == Scopes::all()
    }

    /// The first scope of `other` this set lacks.
    pub fn missing_from(self, other: Scopes) -> Option<Scope> {
        other.iter().find(|scope| !self.has(*scope))
    }

    /// Both sets' scopes.
    pub fn union(self, other: Scopes) -> Scopes {
        Scopes(self.0 | other.0)
    }

    /// Its scopes, in [`Scope::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL.into_iter().filter(move |scope| self.has(*scope))
    }

    /// Its scopes as a list, for the wire.
    pub fn to_vec(self) -> Vec<Scope> {
        self.iter().collect()
    }

    /// Space-separated names, as OAuth's `scope` parameter and the database write them.
    pub fn to_text(self) -> String {
        self.iter().map(Scope::name).collect::<Vec<_>>().join(" ")
    }

    /// Reads space-separated names (RFC 6749 §3.3): `Err` with the first name that is no
    /// scope. Repeats are allowed and count once.
    pub fn parse(text: &str) -> Result<Scopes, String> {
        text.split(' ')
            .filter(|name| !name.is_empty())
            .map(|name| Scope::from_name(name).ok_or_else(|| name.to_string()))
            .collect()
    }
}

impl FromIterator<Scope> for Scopes {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        Scopes(iter.into_iter().fold(0, |bits, scope| bits | scope.bit()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_is_read_back_from_its_name() {
        for scope in Scope::ALL {
            assert_eq!(Scope::from_name(scope.name()), Some(scope));
            assert_eq!(
                serde_json::to_value(scope).unwrap(),
                serde_json::json!(scope.name())
            );
        }
        assert_eq!(Scope::from_name("games"), None);
    }

    #[test]
    fn scopes_are_written_and_read_as_space_separated_names() {
        let scopes = Scopes::parse("games:play  games:read games:play").unwrap();
        assert_eq!(scopes.to_text(), "games:read games:play");
        assert_eq!(Scopes::parse("games:read admin"), Err("admin".to_string()));
        assert!(Scopes::parse("").unwrap().is_empty());
        assert_eq!(Scopes::parse(&Scopes::all().to_text()), Ok(Scopes::all()));
    }

    #[test]
    fn a_set_covers_its_subsets_and_names_what_another_lacks() {
        let read: Scopes = [Scope::GamesRead].into_iter().collect();
        let play: Scopes = [Scope::GamesRead, Scope::GamesPlay].into_iter().collect();
        assert!(play.covers(read));
        assert!(!read.covers(play));
        assert_eq!(read.missing_from(play), Some(Scope::GamesPlay));
        assert_eq!(play.missing_from(read), None);
        assert!(Scopes::all().is_all());
        assert!(!play.is_all());
    }
}

//! Apps that act for a player: OAuth 2.0 authorization codes with PKCE (RFC 6749 §4.1, RFC
//! 7636), for public clients only, as Lichess has them: an app needs no registration and
//! holds no secret; it names itself (`client_id`) and where the player is sent back
//! (`redirect_uri`), and proves at the exchange that it is the one that asked (the PKCE
//! verifier). What it gets is an ordinary account token that holds only the scopes the player
//! approved and names the app, so every route's scope check, every revocation and every open
//! stream's end work for it as for any token. Tokens granted to apps do not expire: they last
//! until the player (or the app, RFC 7009) revokes them, as GitHub's OAuth apps' tokens do.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use sha2::{Digest, Sha256};
use url::Url;

use super::accounts::{AccountCaller, Accounts, ACCOUNT_TOKEN_PREFIX};
use super::{random_bytes, token_hash, Clock, Fault, Result, Revocations, ServiceError};
use crate::dto::{App, AppList, Authorization, AuthorizationRequest, AuthorizationRequestCheck};
use crate::scopes::{Scope, Scopes};
use crate::store::{AccountStore, AppStore, OAuthCodeRecord, SignedInWith};

/// What every authorization code begins with.
pub const CODE_PREFIX: &str = "oacode_";
/// How long a code can be exchanged: RFC 6749 §4.1.2 asks for at most ten minutes.
pub const CODE_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// The longest `redirect_uri` kept.
const MAX_REDIRECT_URI: usize = 2000;
/// The longest `state` carried back.
const MAX_STATE: usize = 500;

/// A refusal at the token or revocation endpoint, in RFC 6749 §5.2's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthRefusal {
    /// The error code: `invalid_request`, `invalid_grant`, `unsupported_grant_type`.
    pub error: &'static str,
    /// What was wrong, for the app's developer.
    pub description: String,
}

/// What the token endpoint answers (RFC 6749 §5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantedToken {
    /// The account token the app now holds.
    pub access_token: String,
    /// The scopes it holds, space-separated.
    pub scope: String,
}

/// A request checked: what it asks for, and how to answer it.
struct Checked {
    client_id: String,
    redirect_uri: String,
    redirect: Url,
    scopes: Scopes,
    state: Option<String>,
    challenge: String,
}

/// The apps capability: what it needs, and nothing else (wired in `Parlour::apps`).
pub struct Apps<'a> {
    /// Codes, and revoking what they gave.
    store: &'a dyn AppStore,
    /// The account's tokens, to list the apps holding some.
    accounts: &'a dyn AccountStore,
    /// When a code was made and expires.
    clock: &'a dyn Clock,
    /// Told of a revocation, so what the token holds ends at once.
    revocations: &'a Revocations,
}

impl<'a> Apps<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        store: &'a dyn AppStore,
        accounts: &'a dyn AccountStore,
        clock: &'a dyn Clock,
        revocations: &'a Revocations,
    ) -> Self {
        Apps {
            store,
            accounts,
            clock,
            revocations,
        }
    }

    /// Checks an app's request for the consent page: what to show, and where a "no" goes.
    pub fn check(&self, request: &AuthorizationRequest) -> Result<AuthorizationRequestCheck> {
        let checked = check(request)?;
        let mut deny_to = checked.redirect.clone();
        with_state(&mut deny_to, &checked.state)
            .append_pair("error", "access_denied")
            .append_pair("error_description", "the player said no");
        Ok(AuthorizationRequestCheck {
            redirect_origin: checked.redirect.origin().ascii_serialization(),
            client_id: checked.client_id,
            redirect_uri: checked.redirect_uri,
            scopes: checked.scopes.to_vec(),
            state: checked.state,
            deny_to: deny_to.to_string(),
        })
    }

    /// The player approves the request: a code for the app, and where to send the player
    /// with it. The approving token must manage the account and hold every scope it grants.
    pub async fn approve(
        &self,
        caller: &AccountCaller,
        request: &AuthorizationRequest,
    ) -> Result<Authorization> {
        caller.require(Scope::AccountManage)?;
        let checked = check(request)?;
        if let Some(missing) = caller.scopes.missing_from(checked.scopes) {
            return Err(ServiceError::InsufficientScope(missing));
        }
        let code = format!("{CODE_PREFIX}{}", hex::encode(random_bytes()?));
        let lifetime = chrono::Duration::from_std(CODE_LIFETIME)
            .map_err(|e| Fault::new("an authorization code's lifetime is out of range", e))?;
        let now = self.clock.recorded_now();
        let record = OAuthCodeRecord {
            code_hash: token_hash(&code),
            account: caller.account.id,
            by_token: caller.token,
            client_id: checked.client_id,
            redirect_uri: checked.redirect_uri,
            scopes: checked.scopes,
            code_challenge: checked.challenge,
            expires_at: now + lifetime,
            used: false,
        };
        if !self.store.create_oauth_code(&record, now).await? {
            return Err(ServiceError::AccountUnauthorized(
                "this token has been revoked",
            ));
        }
        let mut redirect = checked.redirect;
        with_state(&mut redirect, &checked.state).append_pair("code", &code);
        Ok(Authorization {
            code,
            redirect_to: redirect.to_string(),
            expires_at: record.expires_at,
        })
    }

    /// The token endpoint (RFC 6749 §4.1.3): trades a code and its PKCE verifier for a token.
    /// `Err(ServiceError::OAuth)` is a refusal to answer in RFC 6749 §5.2's form.
    pub async fn exchange(&self, form: &BTreeMap<String, String>) -> Result<GrantedToken> {
        let field = |name: &str| {
            form.get(name)
                .ok_or_else(|| refuse("invalid_request", format!("the request has no `{name}`")))
        };
        let grant_type = field("grant_type")?;
        if grant_type != "authorization_code" {
            return Err(refuse(
                "unsupported_grant_type",
                "this server grants only `authorization_code` (with PKCE)",
            ));
        }
        let (code, redirect_uri, client_id, verifier) = (
            field("code")?,
            field("redirect_uri")?,
            field("client_id")?,
            field("code_verifier")?,
        );
        let hash = token_hash(code);
        let Some(record) = self.store.oauth_code(&hash).await? else {
            return Err(refuse(
                "invalid_grant",
                "the code is unknown or has expired",
            ));
        };
        let now = self.clock.recorded_now();
        if record.used {
            // A code presented twice may have been stolen: what it gave is taken back
            // (RFC 6749 §4.1.2).
            if self.store.revoke_code_token(&hash, now).await?.is_some() {
                self.revocations.look_now();
            }
            return Err(refuse(
                "invalid_grant",
                "the code was exchanged already; the token it gave is revoked",
            ));
        }
        if record.expires_at <= now {
            return Err(refuse("invalid_grant", "the code has expired"));
        }
        if &record.client_id != client_id {
            return Err(refuse(
                "invalid_grant",
                "the code was made for another `client_id`",
            ));
        }
        if &record.redirect_uri != redirect_uri {
            return Err(refuse(
                "invalid_grant",
                "`redirect_uri` is not the one the code was asked for",
            ));
        }
        if !is_pkce_text(verifier) || s256(verifier) != record.code_challenge {
            return Err(refuse(
                "invalid_grant",
                "`code_verifier` does not match the request's `code_challenge` (S256)",
            ));
        }
        let (token, issued) = Accounts::mint_scoped(
            self.clock,
            record.account,
            record.client_id.clone(),
            SignedInWith::App,
            record.scopes,
            Some(record.client_id.clone()),
        )?;
        if !self.store.redeem_oauth_code(&hash, now, &token).await? {
            return Err(refuse(
                "invalid_grant",
                "the code was exchanged already, or the device that approved it was signed out",
            ));
        }
        Ok(GrantedToken {
            access_token: issued.secret,
            scope: record.scopes.to_text(),
        })
    }

    /// The revocation endpoint (RFC 7009): revokes the account token sent, if it is one.
    /// An unknown or foreign token is no error (§2.2): there is nothing left for it to open.
    pub async fn revoke(&self, form: &BTreeMap<String, String>) -> Result<()> {
        let token = form
            .get("token")
            .ok_or_else(|| refuse("invalid_request", "the request has no `token`"))?;
        if token.starts_with(ACCOUNT_TOKEN_PREFIX)
            && self
                .store
                .revoke_token_by_hash(&token_hash(token), self.clock.now())
                .await?
        {
            self.revocations.look_now();
        }
        Ok(())
    }

    /// The apps holding a live token of the caller's account.
    pub async fn list(
        &self,
        caller: &AccountCaller,
        after: Option<&str>,
        limit: u64,
    ) -> Result<AppList> {
        caller.require(Scope::AccountManage)?;
        let mut apps: Vec<App> = Vec::new();
        // Oldest first, so each app's first token is the grant it is listed by.
        for token in self.accounts.account_tokens(caller.account.id).await? {
            let Some(app) = token.app else { continue };
            match apps.iter_mut().find(|known| known.client_id == app) {
                Some(known) => {
                    known.scopes = Scopes::from_iter(known.scopes.iter().copied())
                        .union(token.scopes)
                        .to_vec();
                    known.tokens += 1;
                }
                None => apps.push(App {
                    client_id: app,
                    scopes: token.scopes.to_vec(),
                    granted_at: token.created_at,
                    tokens: 1,
                }),
            }
        }
        // A page: the apps after the cursor's (its grant's time and name, so an app removed
        // meanwhile does not move the others), `limit` of them.
        let key = |app: &App| format!("{}.{}", app.granted_at.timestamp_micros(), app.client_id);
        let unordered = |text: &str| {
            let (micros, _) = text.split_once('.')?;
            micros.parse::<i64>().ok()
        };
        if let Some(after) = after {
            let Some(micros) = unordered(after) else {
                return Err(ServiceError::BadRequest(format!(
                    "`cursor` is the `next` of an earlier page, not {after:?}"
                )));
            };
            let name = after.split_once('.').map_or("", |(_, name)| name);
            apps.retain(|app| {
                (app.granted_at.timestamp_micros(), app.client_id.as_str()) > (micros, name)
            });
        }
        let more = apps.len() as u64 > limit;
        apps.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        let next = apps.last().filter(|_| more).map(key);
        Ok(AppList { apps, next })
    }

    /// Revokes every token the app holds for the caller's account.
    pub async fn forget(&self, caller: &AccountCaller, client_id: &str) -> Result<()> {
        caller.require(Scope::AccountManage)?;
        let not_found = || ServiceError::AppNotFound(client_id.chars().take(64).collect());
        if !is_client_id(client_id) {
            return Err(not_found());
        }
        let revoked = self
            .store
            .revoke_app(caller.token, caller.account.id, client_id, self.clock.now())
            .await?;
        if revoked > 0 {
            self.revocations.look_now();
            return Ok(());
        }
        let live = self.accounts.account_tokens(caller.account.id).await?;
        if live.iter().any(|t| t.id == caller.token) {
            Err(not_found())
        } else {
            Err(ServiceError::AccountUnauthorized(
                "this token has been revoked",
            ))
        }
    }
}

fn refuse(error: &'static str, description: impl Into<String>) -> ServiceError {
    ServiceError::OAuth(OAuthRefusal {
        error,
        description: description.into(),
    })
}

/// `redirect` with the request's `state` added to its query (if it had one), to add more to.
fn with_state<'u>(
    redirect: &'u mut Url,
    state: &Option<String>,
) -> url::form_urlencoded::Serializer<'u, url::UrlQuery<'u>> {
    let mut query = redirect.query_pairs_mut();
    if let Some(state) = state {
        query.append_pair("state", state);
    }
    query
}

/// A `client_id` as Parlour takes them: a name an app gives itself, safe in a path.
pub fn is_client_id(text: &str) -> bool {
    let mut chars = text.chars();
    text.len() <= 64
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '~' | '-'))
}

/// RFC 7636 §4.1: 43 to 128 unreserved characters.
fn is_pkce_text(text: &str) -> bool {
    (43..=128).contains(&text.len())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
}

/// BASE64URL(SHA-256(verifier)) without padding (RFC 7636 §4.2, S256).
fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Whether `url` may receive a code: `https`, or `http` on this machine (RFC 8252 §7.3), no
/// fragment (RFC 6749 §3.1.2), no user name or password.
fn redirect_allowed(url: &Url) -> std::result::Result<(), &'static str> {
    let loopback = matches!(
        url.host(),
        Some(url::Host::Domain("localhost"))
            | Some(url::Host::Ipv4(std::net::Ipv4Addr::LOCALHOST))
            | Some(url::Host::Ipv6(std::net::Ipv6Addr::LOCALHOST))
    );
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => return Err("an `http` redirect_uri must be on a loopback host; use `https`"),
        _ => return Err("redirect_uri must be an `https` URL (or `http` on a loopback host)"),
    }
    if url.fragment().is_some() {
        return Err("redirect_uri may not have a fragment");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("redirect_uri may not hold a user name or password");
    }
    Ok(())
}

/// Checks a request. A fault in `client_id` or `redirect_uri` is told to the player only
/// (there is nowhere safe to send them); any other fault also carries the redirect that tells
/// the app (RFC 6749 §4.1.2.1).
fn check(request: &AuthorizationRequest) -> Result<Checked> {
    let here = |detail: &str| ServiceError::BadAuthorization {
        detail: detail.to_string(),
        redirect_to: None,
    };
    let client_id = request
        .client_id
        .as_deref()
        .ok_or_else(|| here("the request has no `client_id`"))?;
    if !is_client_id(client_id) {
        return Err(here(
            "`client_id` must be 1 to 64 letters, digits, `.`, `_`, `~` or `-`, beginning with \
             a letter or digit",
        ));
    }
    let redirect_uri = request
        .redirect_uri
        .as_deref()
        .ok_or_else(|| here("the request has no `redirect_uri`"))?;
    if redirect_uri.len() > MAX_REDIRECT_URI {
        return Err(here("`redirect_uri` is longer than 2000 characters"));
    }
    let redirect = Url::parse(redirect_uri).map_err(|_| here("`redirect_uri` is not a URL"))?;
    redirect_allowed(&redirect).map_err(here)?;
    // From here on the app can be told: its state comes back with the error, if it is sound.
    let state = request.state.clone().filter(|state| {
        state.len() <= MAX_STATE && state.chars().all(|c| (' '..='~').contains(&c))
    });
    let back = |error: &str, detail: &str| {
        let mut to = redirect.clone();
        with_state(&mut to, &state)
            .append_pair("error", error)
            .append_pair("error_description", detail);
        ServiceError::BadAuthorization {
            detail: detail.to_string(),
            redirect_to: Some(to.to_string()),
        }
    };
    if let Some(sent) = &request.state {
        if state.as_ref() != Some(sent) {
            return Err(back(
                "invalid_request",
                "`state` must be at most 500 printable ASCII characters",
            ));
        }
    }
    match request.response_type.as_deref() {
        Some("code") => {}
        None => {
            return Err(back(
                "invalid_request",
                "the request has no `response_type`",
            ))
        }
        Some(_) => {
            return Err(back(
                "unsupported_response_type",
                "`response_type` must be `code`",
            ))
        }
    }
    let scopes = Scopes::parse(request.scope.as_deref().unwrap_or_default()).map_err(|name| {
        back(
            "invalid_scope",
            &format!(
                "{name:?} is not a scope here; the scopes are {}",
                Scopes::all().to_text()
            ),
        )
    })?;
    if scopes.is_empty() {
        return Err(back("invalid_scope", "`scope` names no scope"));
    }
    match request.code_challenge_method.as_deref() {
        Some("S256") => {}
        None => {
            return Err(back(
                "invalid_request",
                "PKCE is required: send `code_challenge` and `code_challenge_method=S256`",
            ))
        }
        Some(_) => {
            return Err(back(
                "invalid_request",
                "`code_challenge_method` must be `S256`",
            ))
        }
    }
    let challenge = request
        .code_challenge
        .as_deref()
        .ok_or_else(|| back("invalid_request", "the request has no `code_challenge`"))?;
    if challenge.len() != 43 || !is_pkce_text(challenge) {
        return Err(back(
            "invalid_request",
            "`code_challenge` must be BASE64URL(SHA-256(code_verifier)): 43 characters",
        ));
    }
    Ok(Checked {
        client_id: client_id.to_string(),
        redirect_uri: redirect_uri.to_string(),
        redirect,
        scopes,
        state,
        challenge: challenge.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> AuthorizationRequest {
        AuthorizationRequest {
            response_type: Some("code".into()),
            client_id: Some("example.app".into()),
            redirect_uri: Some("https://example.app/callback?from=parlour".into()),
            scope: Some("games:read games:play".into()),
            state: Some("xyz".into()),
            code_challenge: Some(s256(&"v".repeat(43))),
            code_challenge_method: Some("S256".into()),
        }
    }

    fn redirect_of(error: ServiceError) -> Option<String> {
        match error {
            ServiceError::BadAuthorization { redirect_to, .. } => redirect_to,
            other => panic!("not a refused request: {other:?}"),
        }
    }

    #[test]
    fn s256_is_rfc_7636s_example() {
        // RFC 7636 Appendix B.
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn a_sound_request_is_checked_and_keeps_the_apps_own_query() {
        let checked = check(&request()).unwrap();
        assert_eq!(checked.scopes.to_text(), "games:read games:play");
        assert_eq!(
            checked.redirect.origin().ascii_serialization(),
            "https://example.app"
        );
        assert_eq!(checked.state.as_deref(), Some("xyz"));
    }

    #[test]
    fn a_bad_client_id_or_redirect_uri_sends_the_player_nowhere() {
        for (client_id, redirect_uri) in [
            ("", "https://example.app/cb"),
            ("-leading", "https://example.app/cb"),
            ("has space", "https://example.app/cb"),
            ("example.app", "ftp://example.app/cb"),
            ("example.app", "http://example.app/cb"),
            ("example.app", "https://example.app/cb#frag"),
            ("example.app", "https://user:pw@example.app/cb"),
            ("example.app", "not a url"),
        ] {
            let mut asked = request();
            asked.client_id = Some(client_id.into());
            asked.redirect_uri = Some(redirect_uri.into());
            let refused = check(&asked).err().map(redirect_of);
            assert_eq!(refused, Some(None), "{client_id} {redirect_uri}");
        }
        for loopback in [
            "http://127.0.0.1:8123/cb",
            "http://localhost/cb",
            "http://[::1]:9/cb",
        ] {
            let mut asked = request();
            asked.redirect_uri = Some(loopback.into());
            assert!(check(&asked).is_ok(), "{loopback}");
        }
    }

    #[test]
    fn any_other_fault_is_told_to_the_app_with_its_state() {
        type Fault = (&'static str, fn(&mut AuthorizationRequest));
        let faults: [Fault; 6] = [
            ("invalid_scope", |r| {
                r.scope = Some("games:read admin".into())
            }),
            ("invalid_scope", |r| r.scope = None),
            ("unsupported_response_type", |r| {
                r.response_type = Some("token".into())
            }),
            ("invalid_request", |r| r.code_challenge_method = None),
            ("invalid_request", |r| {
                r.code_challenge_method = Some("plain".into())
            }),
            ("invalid_request", |r| {
                r.code_challenge = Some("short".into())
            }),
        ];
        for (error, fault) in faults {
            let mut asked = request();
            fault(&mut asked);
            let to = redirect_of(check(&asked).err().unwrap()).unwrap();
            let url = Url::parse(&to).unwrap();
            let pairs: BTreeMap<_, _> = url.query_pairs().into_owned().collect();
            assert_eq!(pairs.get("error").map(String::as_str), Some(error), "{to}");
            assert_eq!(pairs.get("state").map(String::as_str), Some("xyz"), "{to}");
            assert_eq!(
                pairs.get("from").map(String::as_str),
                Some("parlour"),
                "{to}"
            );
        }
    }

    #[test]
    fn a_verifier_is_43_to_128_unreserved_characters() {
        assert!(is_pkce_text(&"a".repeat(43)));
        assert!(is_pkce_text(&"a-._~".repeat(25)));
        assert!(!is_pkce_text(&"a".repeat(42)));
        assert!(!is_pkce_text(&"a".repeat(129)));
        assert!(!is_pkce_text(&format!("{}+", "a".repeat(42))));
    }
}

//! Passkeys (WebAuthn): an account that holds one signs in on a new device without the old one
//! (`docs/playing-across-days.md`, "Getting back into your account").
//!
//! The server is the WebAuthn relying party, checked by `webauthn-rs`: the relying party id is
//! the host of the server's public URL (`--public-url`; the loopback address is `localhost`,
//! the only way a browser makes passkeys for a server on the same machine). A ceremony is two
//! requests: the first keeps the challenge and what the answer must be checked against in the
//! database ([`SignInStore::begin_ceremony`]), the second takes it back once (deleted as it is
//! read), so an answer is never accepted twice and any instance can finish what another began.
//!
//! Sign-in uses discoverable credentials: the browser offers the passkeys it holds for this
//! server, the one chosen names its account (its user handle is the account's id), and a new
//! account token is made for the device, told to the account like every sign-in
//! (`accounts::tell_of_sign_in`).

use std::sync::Arc;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;
use webauthn_rs::prelude::{
    DiscoverableAuthentication, Passkey as Credential, PasskeyRegistration, PublicKeyCredential,
    RegisterPublicKeyCredential, Url, Webauthn, WebauthnBuilder,
};

use super::accounts::{account_dto, tell_of_sign_in, AccountCaller, Accounts};
use super::{text, Clock, Fault, Result, ServiceError};
use crate::bus::CommitSignal;
use crate::dto::{
    CreatedAccount, NewPasskey, Passkey, PasskeyChallenge, PasskeyList, PasskeySignIn,
};
use crate::store::{
    AccountStore, PasskeyRecord, SignInStore, SignedInWith, StoreError, WebhookStore,
};

/// The most passkeys one account may hold.
pub const MAX_PASSKEYS_PER_ACCOUNT: usize = 20;
/// How long a ceremony may take: the browser is told the same (WebAuthn's `timeout`).
pub const CEREMONY_LIFETIME: chrono::Duration = chrono::Duration::minutes(5);

/// The server as a WebAuthn relying party, or why it cannot be one.
#[derive(Clone)]
pub enum RelyingParty {
    /// Passkeys work.
    On(Arc<Webauthn>),
    /// Passkeys are off, for this reason.
    Off(String),
}

impl std::fmt::Debug for RelyingParty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RelyingParty::On(_) => f.write_str("RelyingParty::On"),
            RelyingParty::Off(why) => write!(f, "RelyingParty::Off({why:?})"),
        }
    }
}

impl RelyingParty {
    /// The relying party for a server reached at `public_url`: its host is the relying party
    /// id, and its origin the only one accepted. A loopback IP address is taken as
    /// `localhost` (browsers make no passkey for an IP address); any other IP address
    /// leaves passkeys off.
    pub fn for_public_url(public_url: &str) -> Self {
        match Self::build(public_url) {
            Ok(webauthn) => RelyingParty::On(Arc::new(webauthn)),
            Err(why) => RelyingParty::Off(why),
        }
    }

    fn build(public_url: &str) -> std::result::Result<Webauthn, String> {
        let mut origin = Url::parse(public_url).map_err(|e| e.to_string())?;
        let loopback = match origin.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            _ => false,
        };
        if loopback {
            origin
                .set_host(Some("localhost"))
                .map_err(|e| e.to_string())?;
        }
        let Some(id) = origin.domain().map(str::to_string) else {
            return Err(format!(
                "the server's public URL ({public_url}) names an IP address, and browsers make \
                 passkeys only for a domain name: set --public-url to one"
            ));
        };
        WebauthnBuilder::new(&id, &origin)
            .and_then(|builder| builder.rp_name("Parlour").build())
            .map_err(|e| format!("the server's public URL cannot be a relying party: {e}"))
    }

    fn webauthn(&self) -> Result<&Webauthn> {
        match self {
            RelyingParty::On(webauthn) => Ok(webauthn),
            RelyingParty::Off(why) => Err(ServiceError::PasskeysOff(why.clone())),
        }
    }
}

/// A ceremony under way, as kept between its two requests.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Ceremony {
    /// An account registering a passkey.
    Registration {
        /// The account registering.
        account: Uuid,
        /// What the browser's answer is checked against.
        state: PasskeyRegistration,
    },
    /// A device signing in.
    SignIn {
        /// What the browser's answer is checked against.
        state: DiscoverableAuthentication,
    },
}

/// The passkeys capability: what it needs, and nothing else (wired in `Parlour::passkeys`).
pub struct Passkeys<'a> {
    /// Passkeys and ceremonies.
    store: &'a dyn SignInStore,
    /// The accounts that passkeys sign in.
    accounts: &'a dyn AccountStore,
    /// Where a sign-in is told.
    hooks: &'a dyn WebhookStore,
    /// Wakes the relay when a sign-in is told.
    commits: &'a CommitSignal,
    /// When ceremonies expire and passkeys were made and used.
    clock: &'a dyn Clock,
    /// The relying party, if passkeys are on.
    party: &'a RelyingParty,
}

fn passkey_dto(record: &PasskeyRecord) -> Passkey {
    Passkey {
        id: record.id,
        name: record.name.clone(),
        created_at: record.created_at,
        last_used_at: record.last_used_at,
    }
}

fn bad(detail: impl Into<String>) -> ServiceError {
    ServiceError::BadPasskey(detail.into())
}

fn credential_id(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn fault(doing: &'static str) -> impl FnOnce(serde_json::Error) -> ServiceError {
    move |e| Fault::new(doing, e).into()
}

impl<'a> Passkeys<'a> {
    /// The capability over its parts.
    pub(super) fn new(
        store: &'a dyn SignInStore,
        accounts: &'a dyn AccountStore,
        hooks: &'a dyn WebhookStore,
        commits: &'a CommitSignal,
        clock: &'a dyn Clock,
        party: &'a RelyingParty,
    ) -> Self {
        Passkeys {
            store,
            accounts,
            hooks,
            commits,
            clock,
            party,
        }
    }

    /// Keeps `ceremony` and answers its challenge for the browser.
    async fn begin(&self, ceremony: &Ceremony, public_key: Value) -> Result<PasskeyChallenge> {
        let now = self.clock.recorded_now();
        let id = Uuid::now_v7();
        let state = serde_json::to_string(ceremony).map_err(fault("a ceremony cannot be kept"))?;
        let expires_at = now + CEREMONY_LIFETIME;
        self.store
            .begin_ceremony(id, &state, expires_at, now)
            .await?;
        Ok(PasskeyChallenge {
            ceremony: id,
            public_key,
            expires_at,
        })
    }

    /// The ceremony `id`, taken once; `None` if it is unknown, used or expired.
    async fn take(&self, id: Uuid) -> Result<Option<Ceremony>> {
        let Some(state) = self
            .store
            .take_ceremony(id, self.clock.recorded_now())
            .await?
        else {
            return Ok(None);
        };
        let ceremony =
            serde_json::from_str(&state).map_err(fault("a kept ceremony cannot be read"))?;
        Ok(Some(ceremony))
    }

    /// `POST /v1/me/passkey-registrations`: a registration begun for the caller's account.
    /// The browser is asked for a discoverable credential (a passkey proper), verified by
    /// the user, and not one of those the account holds already.
    pub async fn begin_registration(&self, caller: &AccountCaller) -> Result<PasskeyChallenge> {
        let webauthn = self.party.webauthn()?;
        let held = self.store.passkeys(caller.account.id).await?;
        if held.len() >= MAX_PASSKEYS_PER_ACCOUNT {
            return Err(bad(format!(
                "the account holds {MAX_PASSKEYS_PER_ACCOUNT} passkeys, as many as it may: \
                 remove one first"
            )));
        }
        let mut exclude = Vec::with_capacity(held.len());
        for record in &held {
            let credential: Credential = serde_json::from_str(&record.passkey)
                .map_err(fault("a kept passkey cannot be read"))?;
            exclude.push(credential.cred_id().clone());
        }
        let (options, state) = webauthn
            .start_passkey_registration(
                caller.account.id,
                &caller.account.name,
                &caller.account.name,
                Some(exclude),
            )
            .map_err(|e| Fault::new("a passkey registration cannot begin", e))?;
        let mut public_key = serde_json::to_value(&options.public_key)
            .map_err(fault("a passkey registration cannot be written"))?;
        // A passkey that can sign in with no name typed first must be discoverable: the
        // library leaves that to the authenticator, Parlour asks for it.
        if let Some(selection) = public_key
            .get_mut("authenticatorSelection")
            .and_then(Value::as_object_mut)
        {
            selection.insert("residentKey".into(), "required".into());
            selection.insert("requireResidentKey".into(), true.into());
        }
        let ceremony = Ceremony::Registration {
            account: caller.account.id,
            state,
        };
        self.begin(&ceremony, public_key).await
    }

    /// `POST /v1/me/passkeys`: the browser's answer to a registration, checked and kept.
    pub async fn register(&self, caller: &AccountCaller, request: NewPasskey) -> Result<Passkey> {
        let webauthn = self.party.webauthn()?;
        let name = text::player_name("name", &request.name)?;
        let answer: RegisterPublicKeyCredential = serde_json::from_value(request.credential)
            .map_err(|e| {
                bad(format!(
                    "`credential` is not a WebAuthn registration as a browser gives it \
                     (PublicKeyCredential.toJSON()): {e}"
                ))
            })?;
        let state =
            match self.take(request.ceremony).await? {
                Some(Ceremony::Registration { account, state }) if account == caller.account.id => {
                    state
                }
                _ => return Err(bad(
                    "the ceremony is unknown, finished already, expired, or not this account's \
                     registration: begin another",
                )),
            };
        let credential = webauthn
            .finish_passkey_registration(&answer, &state)
            .map_err(|e| bad(format!("the browser's answer does not hold: {e}")))?;
        let record = PasskeyRecord {
            id: Uuid::now_v7(),
            account: caller.account.id,
            name,
            credential_id: credential_id(credential.cred_id().as_ref()),
            passkey: serde_json::to_string(&credential)
                .map_err(fault("a passkey cannot be kept"))?,
            created_at: self.clock.recorded_now(),
            last_used_at: None,
        };
        match self.store.add_passkey(caller.token, &record).await {
            Ok(true) => Ok(passkey_dto(&record)),
            Ok(false) => Err(ServiceError::AccountUnauthorized(
                "this token has been revoked",
            )),
            Err(StoreError::Conflict) => Err(ServiceError::PasskeyExists),
            Err(e) => Err(e.into()),
        }
    }

    /// `GET /v1/me/passkeys`.
    pub async fn list(&self, caller: &AccountCaller) -> Result<PasskeyList> {
        let passkeys = self.store.passkeys(caller.account.id).await?;
        Ok(PasskeyList {
            passkeys: passkeys.iter().map(passkey_dto).collect(),
            passkeys_enabled: matches!(self.party, RelyingParty::On(_)),
        })
    }

    /// `DELETE /v1/me/passkeys/{id}`: the passkey signs nothing in from now on (the devices
    /// it signed in keep their tokens: revoke those on their own).
    pub async fn remove(&self, caller: &AccountCaller, id: Uuid) -> Result<()> {
        if self
            .store
            .remove_passkey(caller.token, caller.account.id, id)
            .await?
        {
            Ok(())
        } else {
            Err(ServiceError::PasskeyNotFound(id.to_string()))
        }
    }

    /// `POST /v1/accounts/passkey-challenges`: a sign-in begun. Nobody is named: the browser
    /// offers the passkeys it holds for this server.
    pub async fn begin_sign_in(&self) -> Result<PasskeyChallenge> {
        let webauthn = self.party.webauthn()?;
        let (options, state) = webauthn
            .start_discoverable_authentication()
            .map_err(|e| Fault::new("a passkey sign-in cannot begin", e))?;
        // The library asks for conditional mediation (autofill); the page may use it or a
        // button: `mediation` is the page's choice, so only the options are given.
        let public_key = serde_json::to_value(&options.public_key)
            .map_err(fault("a passkey sign-in cannot be written"))?;
        self.begin(&Ceremony::SignIn { state }, public_key).await
    }

    /// `POST /v1/accounts/passkey-sign-in`: the browser's answer checked against the passkey
    /// it names; a new token for the device. Every refusal is the same 401, whatever failed.
    pub async fn sign_in(&self, request: PasskeySignIn) -> Result<CreatedAccount> {
        let webauthn = self.party.webauthn()?;
        let name = text::player_name("token_name", &request.token_name)?;
        let refused = || {
            ServiceError::AccountUnauthorized(
                "the passkey did not sign in: it is not one of an account's passkeys here, the \
                 ceremony is unknown, finished or expired, or the browser's answer does not hold \
                 (begin again)",
            )
        };
        let answer: PublicKeyCredential =
            serde_json::from_value(request.credential).map_err(|e| {
                bad(format!(
                    "`credential` is not a WebAuthn assertion as a browser gives it \
                     (PublicKeyCredential.toJSON()): {e}"
                ))
            })?;
        let Some(Ceremony::SignIn { state }) = self.take(request.ceremony).await? else {
            return Err(refused());
        };
        let (user, presented) = webauthn
            .identify_discoverable_authentication(&answer)
            .map_err(|_| refused())?;
        let Some(record) = self
            .store
            .passkey_by_credential(&credential_id(presented))
            .await?
        else {
            return Err(refused());
        };
        if record.account != user {
            return Err(refused());
        }
        let mut credential: Credential = serde_json::from_str(&record.passkey)
            .map_err(fault("a kept passkey cannot be read"))?;
        let result = webauthn
            .finish_discoverable_authentication_v2(&answer, state, &credential)
            .map_err(|_| refused())?;
        credential.update_credential(&result);
        let updated =
            serde_json::to_string(&credential).map_err(fault("a passkey cannot be kept"))?;
        let Some(account) = self.accounts.account(record.account).await? else {
            return Err(refused());
        };
        let (token, issued) = Accounts::mint(self.clock, account.id, name, SignedInWith::Passkey)?;
        if !self
            .store
            .sign_in_with_passkey(&record, &updated, self.clock.recorded_now(), &token)
            .await?
        {
            // Removed, or used by a racing sign-in with the same signature, meanwhile.
            return Err(refused());
        }
        tell_of_sign_in(
            self.hooks,
            self.commits,
            &token,
            Some(&record.name),
            self.clock.recorded_now(),
        )
        .await;
        Ok(CreatedAccount {
            account: account_dto(&account),
            token: issued,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_server_is_its_own_relying_party_as_localhost() {
        assert!(matches!(
            RelyingParty::for_public_url("http://127.0.0.1:8080"),
            RelyingParty::On(_)
        ));
        assert!(matches!(
            RelyingParty::for_public_url("https://parlour.example.org"),
            RelyingParty::On(_)
        ));
    }

    #[test]
    fn a_server_reached_by_another_ip_address_takes_no_passkeys() {
        let RelyingParty::Off(why) = RelyingParty::for_public_url("http://192.0.2.7:8080") else {
            panic!("a public IP address made a relying party");
        };
        assert!(why.contains("domain name"), "{why}");
    }
}

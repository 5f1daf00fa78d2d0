//! Passkeys: an account registers one from a signed-in device and signs in with it on a new
//! device that holds nothing of the account. The authenticator here is a software one that
//! does what a platform authenticator does, byte for byte (WebAuthn §6.1, §6.5): a P-256 key
//! per credential, authenticator data with the relying party's hash, its flags and a
//! counter, a `none` attestation in CBOR, an ES256 signature over the authenticator data and
//! the hash of the client data; the "browser" around it writes the client data with its
//! origin and the server's challenge. The server checks all of it with `webauthn-rs`; nothing
//! here is taken on trust. (`web/tests` does the same with Chromium's own virtual
//! authenticator.)

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{DerSignature, SigningKey};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_cbor_2::Value as Cbor;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::{assert_problem, new_account, TestApp};
use crate::on_both_backends;

/// One credential the authenticator holds.
#[derive(Clone)]
pub struct Credential {
    pub id: Vec<u8>,
    key: SigningKey,
    rp_id: String,
    user: String,
    counter: u32,
}

/// A platform authenticator and the browser around it, at `origin`.
pub struct Authenticator {
    pub origin: String,
    pub credentials: Vec<Credential>,
    rng: ChaCha8Rng,
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// User present, user verified.
const UP_UV: u8 = 0x01 | 0x04;
/// ... and attested credential data follows.
const AT: u8 = 0x40;

impl Authenticator {
    /// The authenticator of a browser that opened the server `app` by the name `localhost`.
    pub fn for_app(app: &TestApp, seed: u64) -> Authenticator {
        Authenticator {
            origin: app.address.replace("127.0.0.1", "localhost"),
            credentials: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    fn client_data(&self, kind: &str, challenge: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "type": kind,
            "challenge": challenge,
            "origin": self.origin,
            "crossOrigin": false,
        }))
        .unwrap()
    }

    /// `navigator.credentials.create({publicKey})`, then `.toJSON()`.
    pub fn create(&mut self, public_key: &Value) -> Value {
        let rp_id = public_key["rp"]["id"].as_str().unwrap().to_string();
        let challenge = public_key["challenge"].as_str().unwrap();
        let user = public_key["user"]["id"].as_str().unwrap().to_string();
        let excluded: Vec<String> = public_key["excludeCredentials"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|c| c["id"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default();
        assert!(
            !self
                .credentials
                .iter()
                .any(|c| excluded.contains(&b64(&c.id))),
            "a browser refuses to make a second passkey the server excluded"
        );
        let mut id = vec![0u8; 16];
        self.rng.fill_bytes(&mut id);
        let key = loop {
            let mut bytes = [0u8; 32];
            self.rng.fill_bytes(&mut bytes);
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                break key;
            }
        };
        let point = key.verifying_key().to_encoded_point(false);
        let cose = Cbor::Map(
            [
                (Cbor::Integer(1), Cbor::Integer(2)),
                (Cbor::Integer(3), Cbor::Integer(-7)),
                (Cbor::Integer(-1), Cbor::Integer(1)),
                (Cbor::Integer(-2), Cbor::Bytes(point.x().unwrap().to_vec())),
                (Cbor::Integer(-3), Cbor::Bytes(point.y().unwrap().to_vec())),
            ]
            .into_iter()
            .collect(),
        );
        let mut auth_data = Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(UP_UV | AT);
        auth_data.extend_from_slice(&0u32.to_be_bytes());
        auth_data.extend_from_slice(&[0u8; 16]);
        auth_data.extend_from_slice(&(id.len() as u16).to_be_bytes());
        auth_data.extend_from_slice(&id);
        auth_data.extend_from_slice(&serde_cbor_2::to_vec(&cose).unwrap());
        let attestation = Cbor::Map(
            [
                (Cbor::Text("fmt".into()), Cbor::Text("none".into())),
                (Cbor::Text("attStmt".into()), Cbor::Map(Default::default())),
                (Cbor::Text("authData".into()), Cbor::Bytes(auth_data)),
            ]
            .into_iter()
            .collect(),
        );
        let client_data = self.client_data("webauthn.create", challenge);
        self.credentials.push(Credential {
            id: id.clone(),
            key,
            rp_id,
            user,
            counter: 0,
        });
        json!({
            "id": b64(&id),
            "rawId": b64(&id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "response": {
                "clientDataJSON": b64(&client_data),
                "attestationObject": b64(&serde_cbor_2::to_vec(&attestation).unwrap()),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        })
    }

    /// `navigator.credentials.get({publicKey})` answered with the credential `which` (a
    /// person picking one of the passkeys offered), then `.toJSON()`.
    pub fn get_with(&mut self, which: usize, public_key: &Value) -> Value {
        let challenge = public_key["challenge"].as_str().unwrap().to_string();
        let rp_id = public_key["rpId"].as_str().unwrap().to_string();
        let client_data = self.client_data("webauthn.get", &challenge);
        let credential = &mut self.credentials[which];
        assert_eq!(
            credential.rp_id, rp_id,
            "a browser offers only this site's passkeys"
        );
        credential.counter += 1;
        let mut auth_data = Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(UP_UV);
        auth_data.extend_from_slice(&credential.counter.to_be_bytes());
        let mut signed = auth_data.clone();
        signed.extend_from_slice(&Sha256::digest(&client_data));
        let signature: DerSignature = credential.key.sign(&signed);
        json!({
            "id": b64(&credential.id),
            "rawId": b64(&credential.id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "response": {
                "clientDataJSON": b64(&client_data),
                "authenticatorData": b64(&auth_data),
                "signature": b64(signature.as_bytes()),
                "userHandle": credential.user,
            },
            "clientExtensionResults": {},
        })
    }

    /// [`Authenticator::get_with`] the first credential.
    pub fn get(&mut self, public_key: &Value) -> Value {
        self.get_with(0, public_key)
    }
}

/// Registers a passkey called `name` for the account of `token` with `authenticator`: the
/// server's answer.
pub async fn register(
    app: &TestApp,
    token: &str,
    authenticator: &mut Authenticator,
    name: &str,
) -> Value {
    let challenge = begin_registration(app, token).await;
    let credential = authenticator.create(&challenge["public_key"]);
    let (status, passkey) = app
        .post(
            "/v1/me/passkeys",
            Some(token),
            &json!({"ceremony": challenge["ceremony"], "name": name, "credential": credential}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{passkey}");
    passkey
}

/// A registration ceremony begun for the account of `token`.
async fn begin_registration(app: &TestApp, token: &str) -> Value {
    let (status, challenge) = app
        .post("/v1/me/passkey-registrations", Some(token), &json!({}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{challenge}");
    challenge
}

/// The answer to `credential`, sent with `token` to finish `challenge`'s registration of a
/// passkey called "phone".
async fn finish_registration(
    app: &TestApp,
    token: &str,
    challenge: &Value,
    credential: &Value,
) -> reqwest::Response {
    let body =
        json!({"ceremony": challenge["ceremony"], "name": "phone", "credential": credential});
    app.request(Method::POST, "/v1/me/passkeys", Some(token), Some(&body))
        .await
}

/// A sign-in ceremony begun: its id and its options.
async fn challenge(app: &TestApp) -> (Value, Value) {
    let (status, challenge) = app
        .post("/v1/accounts/passkey-challenges", None, &json!({}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{challenge}");
    (
        challenge["ceremony"].clone(),
        challenge["public_key"].clone(),
    )
}

/// Signs in on a new device called `device` with `authenticator`'s first passkey: the status
/// and the answer.
pub async fn sign_in(
    app: &TestApp,
    authenticator: &mut Authenticator,
    device: &str,
) -> (StatusCode, Value) {
    let (ceremony, public_key) = challenge(app).await;
    let credential = authenticator.get(&public_key);
    app.post(
        "/v1/accounts/passkey-sign-in",
        None,
        &json!({"ceremony": ceremony, "token_name": device, "credential": credential}),
    )
    .await
}

async fn passkeys(app: &TestApp, token: &str) -> Value {
    let (status, list) = app.get("/v1/me/passkeys", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list
}

async fn a_passkey_made_on_one_device_signs_the_account_in_on_another(app: TestApp) {
    let (status, created) = app
        .post(
            "/v1/accounts",
            None,
            &json!({"name": "Ann", "token_name": "old phone"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let phone = created["token"]["secret"].as_str().unwrap().to_string();
    let bea = new_account(&app, "Bea").await;
    let game = crate::webhooks::girl(&app, &phone, &bea).await;
    let mut authenticator = Authenticator::for_app(&app, 1);

    let (status, challenge) = app
        .post("/v1/me/passkey-registrations", Some(&phone), &json!({}))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let options = &challenge["public_key"];
    assert_eq!(
        options["rp"]["id"], "localhost",
        "a loopback server is localhost"
    );
    assert_eq!(options["user"]["name"], "Ann");
    assert_eq!(
        options["authenticatorSelection"]["residentKey"], "required",
        "a passkey that signs in with no name typed must be discoverable"
    );
    assert_eq!(
        options["authenticatorSelection"]["userVerification"],
        "required"
    );
    let credential = authenticator.create(options);
    let (status, passkey) = app
        .post(
            "/v1/me/passkeys",
            Some(&phone),
            &json!({"ceremony": challenge["ceremony"], "name": "password manager", "credential": credential}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{passkey}");
    assert_eq!(passkey["name"], "password manager");
    assert!(passkey.get("last_used_at").is_none(), "{passkey}");
    let list = passkeys(&app, &phone).await;
    assert_eq!(list["passkeys_enabled"], true);
    assert_eq!(list["passkeys"], json!([passkey]));

    // The old phone is lost: a laptop that holds the passkey (synced by the password manager)
    // and nothing else signs in.
    let (status, signed_in) = sign_in(&app, &mut authenticator, "laptop").await;
    assert_eq!(status, StatusCode::CREATED, "{signed_in}");
    assert_eq!(signed_in["account"], created["account"]);
    assert_eq!(signed_in["token"]["name"], "laptop");
    let laptop = signed_in["token"]["secret"].as_str().unwrap();
    let (status, me) = app.get("/v1/me", Some(laptop)).await;
    assert_eq!(status, StatusCode::OK);
    let tokens = me["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[0]["signed_in_with"], "account");
    assert_eq!(tokens[1]["signed_in_with"], "passkey");
    assert_eq!(tokens[1]["current"], true);
    // ... and finds the account's games where it left them.
    let (status, inbox) = app.get("/v1/me/games", Some(laptop)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(inbox["games"][0]["id"], json!(game), "{inbox}");
    let list = passkeys(&app, laptop).await;
    assert!(
        list["passkeys"][0]["last_used_at"].is_string(),
        "the passkey's last use is shown: {list}"
    );

    // ... and again, with the next signature.
    let (status, again) = sign_in(&app, &mut authenticator, "tablet").await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
}

async fn an_answer_is_taken_once_and_a_replayed_one_signs_nothing_in(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let mut authenticator = Authenticator::for_app(&app, 2);
    register(&app, &ann, &mut authenticator, "phone").await;
    let (ceremony, public_key) = challenge(&app).await;
    let credential = authenticator.get(&public_key);
    let body = json!({"ceremony": ceremony, "token_name": "laptop", "credential": credential});
    let (status, _) = app.post("/v1/accounts/passkey-sign-in", None, &body).await;
    assert_eq!(status, StatusCode::CREATED);
    let res = app
        .request(
            Method::POST,
            "/v1/accounts/passkey-sign-in",
            None,
            Some(&body),
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;

    // The same signature under a new ceremony does not hold either: its challenge is the old.
    let (fresh, _) = challenge(&app).await;
    let replayed = json!({"ceremony": fresh, "token_name": "laptop", "credential": credential});
    let res = app
        .request(
            Method::POST,
            "/v1/accounts/passkey-sign-in",
            None,
            Some(&replayed),
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let (_, me) = app.get("/v1/me", Some(&ann)).await;
    assert_eq!(
        me["tokens"].as_array().unwrap().len(),
        2,
        "one sign-in, not three"
    );
}

async fn answers_from_another_site_or_a_forged_key_are_refused_and_keep_nothing(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let bea = new_account(&app, "Bea").await;

    // A page on another origin relaying the server's challenge to its visitor's browser.
    let mut phished = Authenticator::for_app(&app, 3);
    phished.origin = "https://parlour.example.com".into();
    let challenge = begin_registration(&app, &ann).await;
    let credential = phished.create(&challenge["public_key"]);
    let res = finish_registration(&app, &ann, &challenge, &credential).await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid-passkey").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("does not hold"),
        "{problem}"
    );
    assert_eq!(passkeys(&app, &ann).await["passkeys"], json!([]));

    // Ann's registration ceremony finished by Bea's token.
    let mut authenticator = Authenticator::for_app(&app, 4);
    let challenge = begin_registration(&app, &ann).await;
    let credential = authenticator.create(&challenge["public_key"]);
    let res = finish_registration(&app, &bea, &challenge, &credential).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid-passkey").await;
    assert_eq!(passkeys(&app, &bea).await["passkeys"], json!([]));

    // Not a credential at all.
    let challenge = begin_registration(&app, &ann).await;
    let res = finish_registration(&app, &ann, &challenge, &json!({"id": "x"})).await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid-passkey").await;

    // A signature by another key, with the user handle and credential id of Ann's passkey.
    let mut anns = Authenticator::for_app(&app, 5);
    register(&app, &ann, &mut anns, "phone").await;
    let mut forger = Authenticator::for_app(&app, 6);
    let challenge = begin_registration(&app, &bea).await;
    forger.create(&challenge["public_key"]);
    forger.credentials[0].id = anns.credentials[0].id.clone();
    forger.credentials[0].user = anns.credentials[0].user.clone();
    let (status, _) = sign_in(&app, &mut forger, "stolen").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Bea's passkey claiming to be Ann's (her own key, Ann's user handle).
    let mut beas = Authenticator::for_app(&app, 7);
    register(&app, &bea, &mut beas, "phone").await;
    beas.credentials[0].user = anns.credentials[0].user.clone();
    let (status, _) = sign_in(&app, &mut beas, "Ann's, says Bea").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let (_, me) = app.get("/v1/me", Some(&ann)).await;
    assert_eq!(
        me["tokens"].as_array().unwrap().len(),
        1,
        "no token was made: {me}"
    );
}

async fn a_removed_passkey_signs_nothing_in_and_another_account_cannot_remove_it(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let bea = new_account(&app, "Bea").await;
    let mut authenticator = Authenticator::for_app(&app, 8);
    let passkey = register(&app, &ann, &mut authenticator, "phone").await;
    let path = format!("/v1/me/passkeys/{}", passkey["id"].as_str().unwrap());

    // The same authenticator cannot register the same passkey twice: the server excludes it.
    let challenge = begin_registration(&app, &ann).await;
    let excluded = challenge["public_key"]["excludeCredentials"][0]["id"].clone();
    assert_eq!(excluded, json!(b64(&authenticator.credentials[0].id)));

    let res = app.request(Method::DELETE, &path, Some(&bea), None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
    let (status, _) = sign_in(&app, &mut authenticator, "laptop").await;
    assert_eq!(status, StatusCode::CREATED, "Bea removed nothing");

    let res = app.request(Method::DELETE, &path, Some(&ann), None).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(passkeys(&app, &ann).await["passkeys"], json!([]));
    let (status, _) = sign_in(&app, &mut authenticator, "tablet").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res = app.request(Method::DELETE, &path, Some(&ann), None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "not-found").await;
}

async fn a_passkey_registered_twice_is_refused(app: TestApp) {
    let ann = new_account(&app, "Ann").await;
    let bea = new_account(&app, "Bea").await;
    let mut authenticator = Authenticator::for_app(&app, 9);
    register(&app, &ann, &mut authenticator, "phone").await;
    // Bea's browser presents the very credential Ann registered (a cloned authenticator).
    let challenge = begin_registration(&app, &bea).await;
    let mut clone = Authenticator::for_app(&app, 9);
    let credential = clone.create(&challenge["public_key"]);
    assert_eq!(clone.credentials[0].id, authenticator.credentials[0].id);
    let res = finish_registration(&app, &bea, &challenge, &credential).await;
    assert_problem(res, StatusCode::CONFLICT, "passkey-exists").await;
    assert_eq!(passkeys(&app, &bea).await["passkeys"], json!([]));
}

on_both_backends!(
    a_passkey_made_on_one_device_signs_the_account_in_on_another,
    an_answer_is_taken_once_and_a_replayed_one_signs_nothing_in,
    answers_from_another_site_or_a_forged_key_are_refused_and_keep_nothing,
    a_removed_passkey_signs_nothing_in_and_another_account_cannot_remove_it,
    a_passkey_registered_twice_is_refused,
);

#[tokio::test]
async fn a_server_reached_by_an_ip_address_takes_no_passkeys_and_says_why() {
    let (url, guard) = crate::helpers::fresh_database(crate::helpers::Backend::Sqlite).await;
    let mut settings = parlour::startup::Settings {
        rate_limits: parlour::http::rate_limit::RateLimitSettings::off(),
        ..Default::default()
    };
    settings.email.public_url = Some("http://192.0.2.7:8080".into());
    let app = crate::helpers::spawn_app_with(&url, guard, settings).await;
    let ann = new_account(&app, "Ann").await;
    let res = app
        .request(
            Method::POST,
            "/v1/me/passkey-registrations",
            Some(&ann),
            Some(&json!({})),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "passkeys-off").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("domain name"),
        "{problem}"
    );
    let res = app
        .request(
            Method::POST,
            "/v1/accounts/passkey-challenges",
            None,
            Some(&json!({})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "passkeys-off").await;
    assert_eq!(passkeys(&app, &ann).await["passkeys_enabled"], false);
}
